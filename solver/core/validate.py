"""Input checks shared by the public functions of every package.

Public functions validate their arguments and raise ``ValueError`` with a message that names the
argument and the value; the kernels behind them trust their input. An "integer" is a Python or
numpy integer but not a ``bool`` (``True`` is an ``int`` to Python, never a count to a user).
"""

from __future__ import annotations

import os
import stat

import numpy as np

from solver.core.text import shorten_path

WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
"""An existing output file without any of these permission bits is write-protected: refused,
even for root (whom ``os.access`` lets write anything)."""


def write_protected(path: str) -> int | None:
    """The permission bits of ``path`` (a link followed) if it is a regular file without any
    write bit, else None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    mode = stat.S_IMODE(st.st_mode)
    return mode if stat.S_ISREG(st.st_mode) and not mode & WRITE_BITS else None


def check_not_protected(path: str, option: str) -> None:
    """Refuse (``ValueError`` naming ``option``) an output file that exists write-protected
    (``chmod a-w``): it is not to be replaced, whoever runs the command."""
    protected = write_protected(path)
    if protected is not None:
        raise ValueError(f"{option} {shorten_path(path)} is write-protected (mode "
                         f"{protected:04o}); make it writable or name another file")


def is_int(value: object) -> bool:
    """True for a Python or numpy integer, False for anything else, ``bool`` included."""
    return not isinstance(value, bool) and isinstance(value, (int, np.integer))


def check_int(value: object, message: str, lo: int | None = None, hi: int | None = None,
              range_message: str | None = None) -> int:
    """``value`` as a Python ``int`` if it is an integer (``is_int``) in ``lo .. hi`` (both
    inclusive, ``None`` = unbounded), else ``ValueError``.

    ``message`` is the error for a value that is not an integer, and also for one out of range
    unless ``range_message`` is given. Callers build the messages (naming the argument, the value
    and the bounds), so each keeps its own wording:

    >>> check_int(3, "players must be 2..7, not 3", 2, 7)
    3
    >>> check_int(True, "dealer must be a seat 0..3, not True", 0, 3)
    Traceback (most recent call last):
    ValueError: dealer must be a seat 0..3, not True
    """
    if not is_int(value):
        raise ValueError(message)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(message if range_message is None else range_message)
    return int(value)
