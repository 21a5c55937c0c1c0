"""The progress bars every command draws on stderr, and when they are drawn.

A ``progress`` setting is one of three values: ``True`` draws the bar, ``False`` never does, and
``PROGRESS_AUTO`` (None) draws it only when stderr is a terminal, so that a log file or a pipe
capturing stderr does not fill with redraws. The command line maps ``--progress`` to True,
``--quiet`` to False and neither to ``PROGRESS_AUTO``.
"""

from __future__ import annotations

import sys

PROGRESS_AUTO = None
"""The ``progress`` setting that draws a bar only when stderr is a terminal (tqdm's
``disable=None``)."""


def progress_bar(progress: bool | None, **options):
    """A tqdm bar on stderr, cleared when it closes, drawn as ``progress`` says (True, False or
    ``PROGRESS_AUTO``); ``options`` go to tqdm (``total``, ``desc``, ``unit``, ...)."""
    from tqdm import tqdm  # the bar's import is not paid by commands that never draw one

    disable = None if progress is PROGRESS_AUTO else not progress
    settings = {"leave": False, "dynamic_ncols": True, "file": sys.stderr, **options}
    return tqdm(disable=disable, **settings)
