"""CSV rows of a chunk written column-wise by one numba kernel (``fill_rows``): the text of every
row goes straight into one byte buffer owned by Python, with no Python code run per row (the
per-row f-string cost about 1.5 us a deal, more than the search of an easy deal).

The kernel knows no column by name: it gets the columns as one 2-D int64 array and a format code
per column, both built from the column table (``solver.batch.columns``), so a new column is not a
new parameter here. The text is exactly that of the row-at-a-time Python writer
(``solver.batch.io.csv_rows``; a test compares the two on every outcome, reason, missing moves,
big ids and times): the names come in as ``NameTable`` byte tables built from the same tuples the
Python writer uses.
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
SPACE = ord(" ")
FRACTION_DIGITS = 6
"""Digits after the point of a ``MILLIS`` column (nanoseconds / 1e6, exactly)."""
SCALE = 10 ** FRACTION_DIGITS
NUMBER, NUMBER_OR_EMPTY, MILLIS, NAME, DEAL_CARDS = range(5)
"""The formats of ``fill_rows``' columns (each column kind names its own,
``solver.batch.kinds``)."""


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
def put_millis(buf, pos, ns):
    """Write ``ns`` nanoseconds as milliseconds with ``FRACTION_DIGITS`` decimals, exactly."""
    t = np.int64(ns)
    whole = t // SCALE  # floor division and a non-negative remainder, as Python's divmod
    frac = t - whole * SCALE
    pos = put_int(buf, pos, whole)
    buf[pos] = DOT
    pos += 1
    for k in range(FRACTION_DIGITS - 1, -1, -1):
        buf[pos + k] = ZERO_CHAR + frac % 10
        frac //= 10
    return pos + FRACTION_DIGITS


@njit(cache=True)
def put_deal(buf, pos, deals, i, card_text):
    """Write the cards of deal ``deals[i]`` (``card_text[c]``: the two characters of card
    ``c``), separated by spaces."""
    for c in range(deals.shape[1]):
        if c:
            buf[pos] = SPACE
            pos += 1
        card = deals[i, c]
        buf[pos] = card_text[card, 0]
        buf[pos + 1] = card_text[card, 1]
        pos += 2
    return pos


@njit(cache=True)
def fill_rows(values, formats, empty, text, length, deals, card_text, buf):
    """Write the CSV rows of a chunk into ``buf`` (uint8, room for every row at its widest);
    returns the bytes written.

    Column ``c`` of row ``i`` is ``values[c, i]`` (int64) written as ``formats[c]`` says:
    ``NUMBER`` its decimal text; ``NUMBER_OR_EMPTY`` the same, or nothing when it is
    ``empty[c]``; ``MILLIS`` nanoseconds as milliseconds (``put_millis``); ``NAME`` name
    ``values[c, i]`` of the column's ``NameTable`` (``text[c]``, ``length[c]``);
    ``DEAL_CARDS`` the cards of ``deals[i]`` (``put_deal``; ``values[c]`` is not read).
    ``solver.batch.io.csv_bytes`` builds these arrays from the column table.
    """
    pos = 0
    columns, rows = values.shape
    for i in range(rows):
        for c in range(columns):
            if c:
                buf[pos] = COMMA
                pos += 1
            form = formats[c]
            x = values[c, i]
            if form == NUMBER:
                pos = put_int(buf, pos, x)
            elif form == NAME:  # (inline: a put_name call here cost 10 ns a row)
                for j in range(length[c, x]):
                    buf[pos + j] = text[c, x, j]
                pos += length[c, x]
            elif form == NUMBER_OR_EMPTY:
                if x != empty[c]:
                    pos = put_int(buf, pos, x)
            elif form == MILLIS:
                pos = put_millis(buf, pos, x)
            else:
                pos = put_deal(buf, pos, deals, i, card_text)
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
