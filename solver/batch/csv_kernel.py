"""CSV rows of a chunk written column-wise by one numba kernel (``fill_rows``): the text of every
row goes straight into one byte buffer owned by Python, with no Python code run per row (the
per-row f-string cost about 1.5 us a deal, more than the search of an easy deal).

The text is exactly ``solver.batch.io``'s row format (a test compares the two on every outcome,
reason, missing moves, big ids and times): the names come in as ``NameTable`` byte tables built
from the same tuples the Python writer uses.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

INT_CHARS = 20
"""Most characters of an int64 in decimal (19 digits and a sign)."""
COMMA = ord(",")
DOT = ord(".")
NEWLINE = ord("\n")
MINUS = ord("-")
ZERO_CHAR = ord("0")
FRACTION_DIGITS = 6
"""Digits after the point of the ``ms`` column (nanoseconds / 1e6, exactly)."""


class NameTable(NamedTuple):
    """A tuple of ASCII names as a kernel reads them: ``text[k, :length[k]]`` is name ``k``."""

    text: np.ndarray
    length: np.ndarray

    @property
    def width(self) -> int:
        return int(self.length.max()) if len(self.length) else 0


def name_table(names) -> NameTable:
    """The ``NameTable`` of ``names`` (ASCII strings)."""
    width = max([len(s) for s in names] + [1])
    text = np.zeros((len(names), width), dtype=np.uint8)
    for k, s in enumerate(names):
        text[k, :len(s)] = np.frombuffer(s.encode("ascii"), dtype=np.uint8)
    return NameTable(text, np.array([len(s) for s in names], dtype=np.int64))


@njit(cache=True)
def put_int(buf, pos, x):
    """Write the decimal text of the int ``x`` at ``buf[pos:]``; returns the position after it."""
    x = np.int64(x)
    if x < 0:
        buf[pos] = MINUS
        pos += 1
        u = np.uint64(-(x + 1)) + np.uint64(1)  # |x|, even for the smallest int64
    else:
        u = np.uint64(x)
    ten = np.uint64(10)
    digits = 1
    y = u
    while y >= ten:
        y //= ten
        digits += 1
    end = pos + digits
    for k in range(end - 1, pos - 1, -1):
        buf[k] = ZERO_CHAR + np.int64(u % ten)
        u //= ten
    return end


@njit(cache=True)
def put_name(buf, pos, text, length, k):
    """Write name ``k`` of a ``NameTable`` (``text``, ``length``) at ``buf[pos:]``."""
    for j in range(length[k]):
        buf[pos + j] = text[k, j]
    return pos + length[k]


@njit(cache=True)
def fill_rows(ids, deals, outcome, moves, states, ns, reason, card_text, win_text, win_len,
              outcome_text, outcome_len, reason_text, reason_len, no_moves, ns_per_ms, buf):
    """Write the CSV rows (``solver.batch.io`` format, no analysis columns) of a chunk's columns
    into ``buf`` (uint8, room for ``row_bytes`` per row); returns the bytes written.

    ``card_text[c]``: the two characters of card ``c``; the deal's cards are separated by
    spaces. ``moves == no_moves`` leaves the moves column empty; ``ms`` is ``ns / ns_per_ms``
    written exactly, with ``FRACTION_DIGITS`` decimals.
    """
    pos = 0
    space = np.uint8(ord(" "))
    for i in range(len(ids)):
        pos = put_int(buf, pos, ids[i])
        buf[pos] = COMMA
        pos += 1
        for c in range(deals.shape[1]):
            if c:
                buf[pos] = space
                pos += 1
            card = deals[i, c]
            buf[pos] = card_text[card, 0]
            buf[pos + 1] = card_text[card, 1]
            pos += 2
        buf[pos] = COMMA
        pos = put_name(buf, pos + 1, win_text, win_len, outcome[i])
        buf[pos] = COMMA
        pos += 1
        if moves[i] != no_moves:
            pos = put_int(buf, pos, moves[i])
        buf[pos] = COMMA
        pos = put_int(buf, pos + 1, states[i])
        buf[pos] = COMMA
        t = np.int64(ns[i])
        whole = t // ns_per_ms  # floor division and a non-negative remainder, as Python's divmod
        frac = t - whole * ns_per_ms
        pos = put_int(buf, pos + 1, whole)
        buf[pos] = DOT
        pos += 1
        for k in range(FRACTION_DIGITS - 1, -1, -1):
            buf[pos + k] = ZERO_CHAR + frac % 10
            frac //= 10
        pos += FRACTION_DIGITS
        buf[pos] = COMMA
        pos = put_name(buf, pos + 1, outcome_text, outcome_len, outcome[i])
        buf[pos] = COMMA
        pos = put_name(buf, pos + 1, reason_text, reason_len, reason[i])
        buf[pos] = NEWLINE
        pos += 1
    return pos


NINE_CHAR = ord("9")


@njit(cache=True)
def first_fields(buf, starts, stops, ids):
    """Read the first field of each line ``buf[starts[k]:stops[k]]`` (uint8 CSV text, newlines
    excluded): an unsigned decimal number of at most ``INT_CHARS - 1`` digits followed by a comma,
    into ``ids[k]``. Returns -1, or the first ``k`` whose line does not start so (a damaged file).
    The newlines are found by numpy beforehand (``buf == NEWLINE``): a kernel that looked at every
    byte itself was four times slower."""
    for k in range(len(stops)):
        pos = starts[k]
        stop = stops[k]
        value = np.int64(0)
        digits = 0
        while pos < stop and ZERO_CHAR <= buf[pos] <= NINE_CHAR:
            value = value * 10 + np.int64(buf[pos] - ZERO_CHAR)
            digits += 1
            pos += 1
        if digits == 0 or digits > INT_CHARS - 1 or pos == stop or buf[pos] != COMMA:
            return k
        ids[k] = value
    return -1
