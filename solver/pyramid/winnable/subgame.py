"""A cheap proof of loss for the free-stock search: the game of one or two classes of values.

A *class* is a pair of values making 13 (1 and 12, 2 and 11, ..., 6 and 7); kings form none. The
*subgame* of a set of classes is the game of their cards alone (the ``class_order`` reason of
``solver.pyramid.analysis.reasons``, here as a kernel): every other card is taken as gone whenever it is
in the way, and every stock card still in play as at hand whenever it is wanted. A pyramid card
is available when no card of the subgame still in play lies in its cone (``layout.ABOVE``: the
cards covering it directly or indirectly); two partners pair when both are available, or as an
overlap pair when the one directly covering the other is available and is the only card of the
subgame left in the other's cone; a pyramid card pairs with any stock card of the partner value;
with goal "all" and the stock top shown any two stock partners pair.

Argument (why a lost subgame proves the position lost). Take a winning line of play of the
free-stock search (any line of the real game is one too) and keep only its moves on the subgame's
cards: every one of them is a pair of two subgame cards (kings are in no class). When such a
move is played in the real game, its pyramid cards are uncovered (or form an overlap pair), so
every card of their cones has gone, except the overlap partner: the same holds of the subgame's
cards, which are the same cards in both games. Stock cards in play are at hand in the subgame
anyway, and two stock cards that pair as waste top and stock top pair in the subgame too. So the
kept moves are a line of the subgame that removes every card of it the goal needs removed: the
subgame is won. Hence a subgame with no win proves the position lost.

This needs every card a present card covers to be present too, as in every position reached
from a deal's start (``closed``); a hand-made position that is not closed gets no proof.

The subgame's positions are the sets of its cards still in play, packed like positions, searched
depth first from the position's own with a small set of the card sets already seen.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.core.bits import popcount
from solver.core.jit import noalloc
from solver.core.hashing import table_has, table_put
from solver.pyramid.model.layout import ABOVE, DIRECT, PYRAMID_ROWS
from solver.pyramid.model.state import (PYR_MASK, ROW_MASKS, STOCK_MASK,
                                  lowest_bit_index)

CLASSES = 6
"""Classes of values: the low value ``v`` 1..6 with its partner ``13 - v``."""
MAX_DEPTH = 8
"""Deepest subgame line: two classes hold 16 cards, and every move removes two."""
MAX_PAIRS = 96
"""Room for the pairs of one subgame position (two classes: at most 2 x (4 x 4 + 4 + 4 + 1)
plus one overlap pair per covered card)."""
MEMO_SLOTS = 1 << 10
"""Slots of the set of card sets seen (kept under three quarters full: beyond that the search
goes on without remembering more)."""

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_ABOVE = ABOVE.astype(np.uint64)
_DIRECT = DIRECT.astype(np.uint64)


class SubgameBuffers(NamedTuple):
    """Arrays a subgame search reuses (``subgame_buffers``)."""

    stack: np.ndarray
    """The cards in play at each depth of the search (packed like a position)."""
    moves: np.ndarray
    """Per depth, the pairs to try there (each the two cards' bits)..."""
    counts: np.ndarray
    """...and per depth the pairs generated and tried."""
    memo: np.ndarray
    """The card sets seen, a hash set of ``solver.pyramid.winnable.lost_table`` (``MEMO_SLOTS``)..."""
    touched: np.ndarray
    """...and its slots in use, for a cheap clean-up."""


@njit(cache=True, inline='always')
def subgame_buffers():
    """Fresh ``SubgameBuffers``."""
    return SubgameBuffers(np.empty(MAX_DEPTH + 1, dtype=np.uint64),
                          np.empty((MAX_DEPTH + 1, MAX_PAIRS), dtype=np.uint64),
                          np.empty((MAX_DEPTH + 1, 2), dtype=np.int64),
                          np.zeros(MEMO_SLOTS, dtype=np.uint64),
                          np.empty(MEMO_SLOTS, dtype=np.int64))


@noalloc(inline='always')
def closed(state):
    """True when every card a present pyramid card covers is present too."""
    pyr = state & PYR_MASK
    for r in range(PYRAMID_ROWS - 1):
        nxt = pyr & ROW_MASKS[r + 1]
        below = ((nxt >> np.uint64(r + 1)) | (nxt >> np.uint64(r + 2))) & ROW_MASKS[r]
        if below & ~pyr:
            return False
    return True


@noalloc(inline='always')
def shadow(pyr):
    """The pyramid positions in the cone of some card of ``pyr`` (covered by it directly or
    through other positions, present or not): row shifts from the bottom row up."""
    sh = _ZERO
    for r in range(PYRAMID_ROWS - 2, -1, -1):
        nxt = (pyr | sh) & ROW_MASKS[r + 1]
        sh |= ((nxt >> np.uint64(r + 1)) | (nxt >> np.uint64(r + 2))) & ROW_MASKS[r]
    return sh


@noalloc(inline='always')
def lowest(x):
    """The lowest set bit of ``x`` alone (0 for 0)."""
    return x & (~x + _ONE)


@noalloc(inline='always')
def subgame_pairs(m, values, tabs, rule, out):
    """The pairs of the subgame position ``m`` (its cards, packed like a position) into
    ``out``, each as the two cards' bits; returns their number. Stock cards of one value are
    interchangeable in the subgame (any is at hand), so only the lowest is offered."""
    pyr = m & PYR_MASK
    stock = m & STOCK_MASK
    avail = pyr & ~shadow(pyr)
    n = 0
    for v in range(1, 7):
        if not (values >> v) & 1:
            continue
        w = 13 - v
        low = avail & tabs.vmask[v]
        high = avail & tabs.vmask[w]
        s_high = lowest(stock & tabs.sval[w])
        s_low = lowest(stock & tabs.sval[v])
        x = low
        while x:
            a = lowest(x)
            x &= x - _ONE
            y = high
            while y:
                b = lowest(y)
                y &= y - _ONE
                out[n] = a | b
                n += 1
            if s_high:
                out[n] = a | s_high
                n += 1
        if s_low:
            y = high
            while y:
                out[n] = lowest(y) | s_low
                y &= y - _ONE
                n += 1
        if rule.goal_all and rule.stock_top and s_low and s_high:
            out[n] = s_low | s_high
            n += 1
        if rule.overlap:
            # a covered card whose cone holds one card of the subgame: a partner covering it
            # directly and available
            x = pyr & ~avail & (tabs.vmask[v] | tabs.vmask[w])
            while x:
                p = lowest_bit_index(x)
                x &= x - _ONE
                c = _ABOVE[p] & pyr
                if (c & (c - _ONE)) == _ZERO and (c & _DIRECT[p] & avail) \
                        and (c & tabs.vmask[13 - tabs.val[p]]):
                    out[n] = c | (_ONE << np.uint64(p))
                    n += 1
    return n


@noalloc
def subgame_clears(state, values, tabs, rule, sb):
    """Whether the subgame of the cards of ``state`` whose value is in ``values`` (a bitmask of
    the low values 1..6 of its classes) can remove every one of them the goal needs removed."""
    cards = _ZERO
    for v in range(1, 7):
        if (values >> v) & 1:
            cards |= tabs.vmask[v] | tabs.vmask[13 - v] | tabs.sval[v] | tabs.sval[13 - v]
    start = state & (PYR_MASK | STOCK_MASK) & cards
    must = PYR_MASK | STOCK_MASK if rule.goal_all else PYR_MASK
    if not (start & must):
        return True
    stack = sb.stack
    moves = sb.moves
    counts = sb.counts
    n_memo = 0
    stack[0] = start
    fresh = True  # the pairs of stack[depth] are still to be generated (one call site)
    depth = 0
    won = False
    while depth >= 0:
        if fresh:
            counts[depth, 0] = subgame_pairs(stack[depth], values, tabs, rule, moves[depth])
            counts[depth, 1] = 0
            fresh = False
        if counts[depth, 1] < counts[depth, 0]:
            child = stack[depth] & ~moves[depth, counts[depth, 1]]
            counts[depth, 1] += 1
            if not (child & must):
                won = True
                break
            if table_has(sb.memo, child):
                continue  # seen before, and lost: no subset of a position on the stack is one
            if 4 * (n_memo + 1) <= 3 * len(sb.memo):  # else go on without remembering
                sb.touched[n_memo] = table_put(sb.memo, child)
                n_memo += 1
            depth += 1
            stack[depth] = child
            fresh = True
        else:
            depth -= 1
    for k in range(n_memo):
        sb.memo[sb.touched[k]] = _ZERO
    return won


@noalloc(inline='always')
def stock_rich(state, v, tabs, rule):
    """True when class ``v``'s subgame is won whatever else is in play (goal "pyramid"): the
    stock holds a partner for every pyramid card of the class, so its cards can go one by one
    from the bottom of the cones up, each with a stock card of its own."""
    if rule.goal_all:
        return False
    pyr = state & PYR_MASK
    stock = state & STOCK_MASK
    w = 13 - v
    return popcount(pyr & tabs.vmask[v]) <= popcount(stock & tabs.sval[w]) and \
        popcount(pyr & tabs.vmask[w]) <= popcount(stock & tabs.sval[v])


@noalloc(inline='always')
def class_pyramid(state, v, tabs):
    """The pyramid cards of class ``v`` in ``state``."""
    return state & (tabs.vmask[v] | tabs.vmask[13 - v])


@noalloc
def subgame_lost(state, tabs, rule, sb):
    """True when the subgame of some one class, or of some two classes together, is lost: a
    proof that ``state`` is lost (no proof for a position that is not ``closed``).

    Two classes are searched together only when their cards lie in each other's cones: when no
    card of class A lies in the cone of a card of class B, B's cards can all go first (A's cards
    never block them) and A's afterwards, each by the line of its own subgame. Nor is a class
    with a stock partner for each of its pyramid cards (``stock_rich``): its cards never block
    for good (each can go, with its own stock partner, as soon as no other card of the two
    classes lies in its cone, and the cone of a card in another's cone lies in that one's cone),
    so the two classes clear when the other one does alone.
    """
    if not closed(state):
        return False
    for v in range(1, CLASSES + 1):
        if not stock_rich(state, v, tabs, rule) and not subgame_clears(state, 1 << v, tabs, rule,
                                                                       sb):
            return True
    for v in range(1, CLASSES + 1):
        if stock_rich(state, v, tabs, rule):
            continue
        pv = class_pyramid(state, v, tabs)
        sv = shadow(pv)
        for u in range(v + 1, CLASSES + 1):
            if stock_rich(state, u, tabs, rule):
                continue
            pu = class_pyramid(state, u, tabs)
            if not (pu & sv) or not (pv & shadow(pu)):
                continue
            if not subgame_clears(state, (1 << v) | (1 << u), tabs, rule, sb):
                return True
    return False
