"""The moves that bring stock and waste cards within reach, for the fewest-moves bound of
``solver.pyramid.challenge.bounds`` (``clear_moves``): ``passing_moves`` counts the cards that
must be taken out of the way, one move each, less the moves that take two of them or one of
them and a card the bound already counts; ``stock_bits`` selects cards by their stock index."""

from __future__ import annotations

import numpy as np

from solver.core.bits import popcount
from solver.core.jit import noalloc
from solver.pyramid.model.state import STOCK_SHIFT

PAIR_SUM = 13

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@noalloc
def passing_moves(waste, stock, cone, tabs, pairs):
    """A lower bound on the moves that take the waste cards ``waste`` and the stock cards
    ``stock`` (stock bits) out of the way and remove no card of ``cone`` but by pairing with
    one: each card of ``stock`` leaves the stock by a move of its own (drawn, or removed from
    the stock's top: one stock card a move), each card of ``waste`` is removed by a move of its
    own (from the waste's top: one a move), and one move does both only as a pair of the two
    tops (``pairs``: the stock's top is shown); a move removes one of them and a card of ``cone`` only by pairing the two. So per
    class, the cards less the largest matching of such pairs (values v and 13 - v, a waste card
    with a stock card or a cone card, a stock card with a waste card or a cone card): a move
    that removes matched cards takes the ends of one edge, which lowers the matching by one at
    least, and a draw moves one card from the stock to the waste, which changes it by one at
    most."""
    n = popcount((waste | stock) & tabs.skings)
    for x in range(1, 7):
        y = PAIR_SUM - x
        wx = popcount(waste & tabs.sval[x])
        wy = popcount(waste & tabs.sval[y])
        sx = popcount(stock & tabs.sval[x])
        sy = popcount(stock & tabs.sval[y])
        if not (wx or wy or sx or sy):
            continue
        cx = popcount(cone & tabs.vmask[x])
        cy = popcount(cone & tabs.vmask[y])
        most = 0
        for p in range(min(wx, sy) + 1 if pairs else 1):  # waste x with stock y
            for q in range(min(sx, wy) + 1 if pairs else 1):  # stock x with waste y
                most = max(most, p + q + min(wx - p + sx - q, cy) + min(wy - q + sy - p, cx))
        n += wx + wy + sx + sy - most
    return n


@noalloc
def stock_bits(state, first, stop):
    """The stock bits of the cards in play of ``state`` with index ``first`` <= i < ``stop``."""
    if stop <= first:
        return _ZERO
    span = ((_ONE << np.uint64(stop - first)) - _ONE) << np.uint64(STOCK_SHIFT + first)
    return np.uint64(state) & span
