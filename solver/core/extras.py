"""The distribution's name and its optional extras, for install hints in error messages.

The distribution is ``pyramid-solitaire`` (the name ``pyramid`` on the package index belongs to a
web framework); the command it installs is still ``pyramid``. Every hint that tells a user what to
install is built here, so that the name is written once.
"""

from __future__ import annotations

DISTRIBUTION = "pyramid-solitaire"
"""The name ``pip`` knows this project by (``pyproject.toml``'s ``[project] name``)."""
EXTRAS = ("parquet", "cluster", "plot", "test")
"""The optional dependency groups of ``pyproject.toml``."""


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: ``pip install 'pyramid-solitaire[parquet]'``.

    >>> install_hint("plot")
    "pip install 'pyramid-solitaire[plot]'"
    """
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; one of {', '.join(EXTRAS)}")
    return f"pip install '{DISTRIBUTION}[{extra}]'"
