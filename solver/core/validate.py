"""Input checks shared by the public functions of every package.

Public functions validate their arguments and raise ``ValueError`` with a message that names the
argument and the value; the kernels behind them trust their input. An "integer" is a Python or
numpy integer but not a ``bool`` (``True`` is an ``int`` to Python, never a count to a user).
"""

from __future__ import annotations

import numpy as np


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
