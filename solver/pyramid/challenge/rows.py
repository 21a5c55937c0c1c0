"""Which bottom rows of the pyramid can still be emptied, for the bounds of
``solver.pyramid.challenge.bounds``: ``rows_matched`` checks that the cards of some rows can all
find partners at once (``ROWS_FROM``: the masks of the bottom rows).

Rows empty from the bottom up, and every card of them but a king leaves in a pair, so emptying
them needs a partner for each of their cards, a different card for each: a card in play whose
value makes 13 with it that is not stuck (the caller's ``live``), and for a pyramid partner
one it can ever meet (``DealTables.reach``: not covering it and not covered by it, a card
directly over it only with overlap pairs). The pairs of a class (values v and 13 - v) form a
bipartite graph between its two values, and a matching that gives every card of the rows of
one value a partner exists exactly when Hall's condition holds: every set of them has at least
as many partners together as it has cards. One such matching for each value of the class is
enough (a matching covering the rows' cards of both values then exists, by the
Mendelsohn-Dulmage theorem), so each value is checked on its own: at most four cards, fifteen
sets. When each card alone has as many partners as there are cards to match, every set has.
"""

from __future__ import annotations

import numpy as np

from solver.core.bits import popcount
from solver.core.jit import noalloc
from solver.pyramid.model.layout import DIRECT, PYRAMID_ROWS
from solver.pyramid.model.state import ROW_MASKS, lowest_bit_index

KING = 13
PAIR_SUM = 13

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


def rows_from_table() -> np.ndarray:
    """``ROWS_FROM``, built once."""
    out = np.zeros(PYRAMID_ROWS + 1, dtype=np.uint64)
    for r in range(PYRAMID_ROWS - 1, -1, -1):
        out[r] = out[r + 1] | ROW_MASKS[r]
    return out


ROWS_FROM = rows_from_table()
"""``ROWS_FROM[r]``: the pyramid bits of rows ``r`` .. 6 (the bottom ``7 - r`` rows; none for
``r`` = 7)."""


@noalloc(inline="always")
def partners(p, live, tabs, overlap):
    """The cards of ``live`` (pyramid and stock bits) that pyramid card ``p`` can pair with."""
    w = PAIR_SUM - tabs.val[p]
    return (mates_of(p, tabs, overlap) & live & tabs.vmask[w]) | (live & tabs.sval[w])


@noalloc(inline="always")
def mates_of(p, tabs, overlap):
    """The pyramid cards pyramid card ``p`` can ever pair with."""
    mates = np.uint64(tabs.reach[p])
    if not overlap:
        mates &= ~np.uint64(DIRECT[p])
    return mates


@noalloc
def value_matched(cards, v, live, tabs, overlap):
    """Whether the pyramid cards ``cards`` (all of value ``v``, not a king) can each have a
    partner of their own among ``live`` (Hall's condition). Most often settled at once: too
    few cards of the partner value in play, or each card of ``cards`` alone has as many
    partners as there are cards (then every set of them has)."""
    k = popcount(cards)
    w = PAIR_SUM - v
    pool = live & (tabs.vmask[w] | tabs.sval[w])
    if popcount(pool) < k:
        return False
    if k == 1:
        return (partners(lowest_bit_index(cards), live, tabs, overlap)) != _ZERO
    few = False
    x = cards
    while x:
        p = lowest_bit_index(x)
        x &= x - _ONE
        if popcount(partners(p, live, tabs, overlap)) < k:
            few = True
            break
    if not few:
        return True
    sub = cards
    while sub:
        union = _ZERO
        y = sub
        while y:
            p = lowest_bit_index(y)
            y &= y - _ONE
            union |= partners(p, live, tabs, overlap)
        if popcount(union) < popcount(sub):
            return False
        sub = (sub - _ONE) & cards
    return True


@noalloc
def rows_matched(need, added, live, tabs, overlap):
    """Whether the pyramid cards ``need`` can all find partners at once among ``live`` (see the
    module docstring), given that ``need`` without the cards ``added`` can: only the values of
    ``added`` are checked (``added`` = ``need``: every value). When no card of ``added`` has a
    card in play of its partner value that it can never meet, only the numbers are compared:
    each value's cards of ``need`` against the cards in play of its partner value."""
    blocked = _ZERO
    values = 0
    x = added & ~tabs.pkings
    while x:
        p = lowest_bit_index(x)
        x &= x - _ONE
        v = tabs.val[p]
        values |= 1 << v
        blocked |= tabs.vmask[PAIR_SUM - v] & ~mates_of(p, tabs, overlap)
    blocked &= live
    for v in range(1, KING):
        if not (values >> v) & 1:
            continue
        cards = need & tabs.vmask[v]
        w = PAIR_SUM - v
        if not blocked & tabs.vmask[w]:
            if popcount(cards) > popcount(live & (tabs.vmask[w] | tabs.sval[w])):
                return False
        elif not value_matched(cards, v, live, tabs, overlap):
            return False
    return True
