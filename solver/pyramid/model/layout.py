"""Pyramid geometry: positions, rows and which cards cover which, as tables built once at import.

Positions are numbered from the apex, row by row, left to right: row ``r`` (0..6) holds positions
``r*(r+1)/2 .. r*(r+1)/2 + r``; the bottom row is 21..27. Card ``c`` of row ``r`` is covered by
cards ``c`` and ``c+1`` of row ``r+1``.

A *pyramid mask* is an int with bit ``p`` set when the card at position ``p`` is still there
(``FULL_PYRAMID`` = all 28 present).
"""

from __future__ import annotations

import numpy as np

PYRAMID_ROWS = 7
PYRAMID_CARDS = 28
STOCK_CARDS = 24
DECK_CARDS = PYRAMID_CARDS + STOCK_CARDS
FULL_PYRAMID = (1 << PYRAMID_CARDS) - 1
"""Pyramid mask with all 28 positions present."""
FULL_STOCK = (1 << STOCK_CARDS) - 1
"""Stock mask with all 24 stock cards still in play (bit i = i-th card of the stock, top first)."""
NO_POSITION = -1


def position(row: int, col: int) -> int:
    """Position number of card ``col`` of ``row`` (both 0-based from the apex)."""
    if not 0 <= col <= row < PYRAMID_ROWS:
        raise ValueError(f"no pyramid position at row {row}, column {col}")
    return row * (row + 1) // 2 + col


def _build():
    row_of = np.zeros(PYRAMID_CARDS, dtype=np.int64)
    col_of = np.zeros(PYRAMID_CARDS, dtype=np.int64)
    covered_by = np.full((PYRAMID_CARDS, 2), NO_POSITION, dtype=np.int64)
    cover_mask = np.zeros(PYRAMID_CARDS, dtype=np.int64)
    for r in range(PYRAMID_ROWS):
        for c in range(r + 1):
            p = position(r, c)
            row_of[p], col_of[p] = r, c
            if r + 1 < PYRAMID_ROWS:
                covered_by[p] = (position(r + 1, c), position(r + 1, c + 1))
                cover_mask[p] = (1 << int(covered_by[p, 0])) | (1 << int(covered_by[p, 1]))
    # below[p]: every position that p covers directly or indirectly (p must go before them,
    # except in an overlap pair with a card it covers directly).
    below = np.zeros(PYRAMID_CARDS, dtype=np.int64)
    for p in range(PYRAMID_CARDS):
        for q in range(PYRAMID_CARDS):
            if q != p and row_of[q] < row_of[p] and col_of[q] <= col_of[p] <= col_of[q] + (row_of[p] - row_of[q]):
                below[p] |= 1 << q
    above = np.zeros(PYRAMID_CARDS, dtype=np.int64)
    direct = np.zeros(PYRAMID_CARDS, dtype=np.int64)
    for p in range(PYRAMID_CARDS):
        for q in range(PYRAMID_CARDS):
            if below[q] >> p & 1:
                above[p] |= 1 << q
        direct[p] = cover_mask[p]
        for q in range(PYRAMID_CARDS):
            if cover_mask[q] >> p & 1:
                direct[p] |= 1 << q
    return row_of, col_of, covered_by, cover_mask, below, above, direct


ROW_OF, COL_OF, COVERED_BY, COVER_MASK, BELOW, ABOVE, DIRECT = _build()
"""Tables by position: ``ROW_OF``/``COL_OF``; ``COVERED_BY[p]`` the two positions covering ``p``
(-1 in the bottom row); ``COVER_MASK[p]`` those two as a pyramid mask (0 in the bottom row);
``BELOW[p]`` the mask of positions that ``p`` covers directly or indirectly; ``ABOVE[p]`` the
positions covering ``p`` directly or indirectly; ``DIRECT[p]`` the positions covering ``p`` or
covered by ``p`` directly (the possible partners of an overlap pair)."""


def uncovered(mask: int, p: int) -> bool:
    """True when position ``p`` is present in ``mask`` and neither card covering it is."""
    return bool(mask >> p & 1) and not (mask & int(COVER_MASK[p]))
