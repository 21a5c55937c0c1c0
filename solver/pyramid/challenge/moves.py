"""The moves of the objective searches, real (``gen_moves``) and free-stock (``gen_free_moves``).

Both are the moves of ``solver.pyramid.model.state`` (``gen_concrete``, ``gen_free``) with the
kings played alone only where that is sound for the objective (``Forcing``): removing an
available king at once keeps every later move of a line legal and only adds to the cards gone,
and the value never falls when a card goes; but the deal ends when the pyramid is clear, so a
pyramid king removed early could end it before moves that earn more (a line clearing the
pyramid with that king last). So a pyramid king is removed alone when it covers a card still
there (it is then not the pyramid's last card in any line), or always when the end does not
matter (no stock card counts, or goal "all", where the deal goes on), and otherwise offered among
the other moves. For the fewest moves to a value, a king is removed alone only when every
shortest line must remove it: its weight is positive and the value asked for is the largest any
line can reach (a line leaving it there could remove it and reach more).

The free-stock moves (unlimited recycles: any stock or waste card can be brought to the waste's
top, so only the cards in play matter) include, when stock cards count, the moves of two stock
cards: a stock king alone, and with the stock's top available two stock cards that are
neighbours in the order of play (the waste's top and the stock's top). Every real line of any
recycle limit is then a free-stock line with the same cards gone, so the free-stock value is an
upper bound on the real one, and equal to it under unlimited recycles.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.core.jit import noalloc
from solver.pyramid.model.layout import COVER_MASK, PYRAMID_CARDS
from solver.pyramid.model.state import (AFTER_DRAW, MOVE_KING, MOVE_PAIR, NO_SLOT, PYR_MASK,
                                        STOCK_MASK, encode_move, lowest_bit_index,
                                        push_draw_or_recycle, push_free_stock,
                                        push_pyramid_pairs, push_with_card, stock_top,
                                        uncovered_mask, waste_top)

NEVER, COVERING, ALWAYS = 0, 1, 2
"""When an uncovered pyramid king is removed alone: never, when it covers a card still there,
always."""
PAIR_SUM = 13
KING = 13

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


class Forcing(NamedTuple):
    """Which kings the move generators remove alone (see the module docstring)."""

    pyramid: int
    """``NEVER``, ``COVERING`` or ``ALWAYS``, for an uncovered pyramid king."""
    pile: bool
    """A king on the waste's top or (available) the stock's top."""


def _covers() -> np.ndarray:
    out = np.zeros(PYRAMID_CARDS, dtype=np.uint64)
    for q in range(PYRAMID_CARDS):
        for p in range(PYRAMID_CARDS):
            if int(COVER_MASK[q]) >> p & 1:
                out[p] |= np.uint64(1 << q)
    return out


COVERS = _covers()
"""``COVERS[p]``: the pyramid positions that the card at ``p`` covers directly."""


@noalloc
def king_alone(pyr, kings, forcing, out):
    """Whether one of the uncovered pyramid kings ``kings`` (a pyramid mask) is removed alone:
    then its move is ``out[0]``; else every one of them is offered among the other moves."""
    while kings:
        k = lowest_bit_index(kings)
        kings &= kings - _ONE
        if forcing.pyramid == ALWAYS or (forcing.pyramid == COVERING and (COVERS[k] & pyr)):
            out[0] = encode_move(MOVE_KING, k, NO_SLOT)
            return True
    return False


@noalloc
def push_kings(kings, out, n):
    """A move for each king of ``kings`` (a mask of slots), into ``out`` from ``n``."""
    while kings:
        k = lowest_bit_index(kings)
        kings &= kings - _ONE
        out[n] = encode_move(MOVE_KING, k, NO_SLOT)
        n += 1
    return n


@noalloc
def gen_moves(state, tabs, rule, forcing, out):
    """The real moves of ``state`` (``gen_concrete``'s, with the kings of ``forcing``) into
    ``out``; returns their number. Straight after a draw or a recycle no move of pyramid cards
    alone is offered (they commute with it)."""
    val = tabs.val
    vmask = tabs.vmask
    pyr = state & PYR_MASK
    unc = uncovered_mask(pyr)
    kings = unc & tabs.pkings
    if king_alone(pyr, kings, forcing, out):
        return 1
    w = waste_top(state)
    s = stock_top(state)
    waste_king = w >= 0 and val[PYRAMID_CARDS + w] == KING
    stock_king = rule.stock_top and s >= 0 and val[PYRAMID_CARDS + s] == KING
    if forcing.pile and (waste_king or stock_king):
        out[0] = encode_move(MOVE_KING, PYRAMID_CARDS + (w if waste_king else s), NO_SLOT)
        return 1
    n = 0
    if not state & AFTER_DRAW:
        n = push_kings(kings, out, push_pyramid_pairs(pyr, unc, tabs, rule.overlap, out, 0))
    for slot in (w, s if rule.stock_top else -1):
        if slot >= 0:
            card = PYRAMID_CARDS + slot
            if val[card] == KING:
                out[n] = encode_move(MOVE_KING, card, NO_SLOT)
                n += 1
            else:
                n = push_with_card(card, unc, vmask[PAIR_SUM - val[card]], out, n)
    if rule.stock_top and w >= 0 and s >= 0 and \
            val[PYRAMID_CARDS + w] + val[PYRAMID_CARDS + s] == PAIR_SUM:
        out[n] = encode_move(MOVE_PAIR, PYRAMID_CARDS + w, PYRAMID_CARDS + s)
        n += 1
    return push_draw_or_recycle(state, w, s, rule.recycles, out, n)


@noalloc
def gen_free_moves(state, tabs, rule, forcing, stock_counts, out):
    """The free-stock moves of ``state`` (pointer 0; see the module docstring) into ``out``;
    returns their number. ``stock_counts``: stock cards carry weight (or goal "all"), so the
    moves of stock cards among themselves are offered."""
    pyr = state & PYR_MASK
    stock = state & STOCK_MASK
    unc = uncovered_mask(pyr)
    kings = unc & tabs.pkings
    if king_alone(pyr, kings, forcing, out):
        return 1
    if stock_counts and (stock & tabs.skings):
        out[0] = encode_move(MOVE_KING, lowest_bit_index(stock & tabs.skings), NO_SLOT)
        return 1
    n = push_kings(kings, out, push_pyramid_pairs(pyr, unc, tabs, rule.overlap, out, 0))
    return push_free_stock(stock, unc, tabs, rule.stock_top and stock_counts, out, n)
