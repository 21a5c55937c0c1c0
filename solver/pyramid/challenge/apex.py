"""Whether a line can remove every card with the apex last: ``apex_last_possible``.

Under goal "pyramid" the deal ends as the pyramid's last card goes, and that card is the apex
(it is uncovered only when the other 27 are gone). So a line that removes every card (the score
challenge's 1,290 points) ends with the apex's move, and without overlap pairs, when the apex is
not a king, that move pairs it with the one card left outside the pyramid: a stock or waste card
``q`` of the apex's partner value, kept in play until then.

While ``q`` is in play, two cards outside the pyramid on either side of it in the order of play
(the deal's order: the waste below the stock) are never next to each other, so never the
waste's top and the stock's top together: they can pair only with a card on their own side or
with a pyramid card. Every card gone means, for each class of values ``v`` and ``13 - v``, a
perfect matching of the cards of value ``v`` in play with those of value ``13 - v`` (the apex
and ``q`` apart) without an edge between the two sides: a bipartite graph whose only missing
edges join the left cards of one value to the right cards of the other. By Hall's theorem it
has one exactly when both values have as many cards and the left (right) cards of value ``v``
are no more than the pyramid's and the left (right) cards of value ``13 - v``: any other set of
``v`` cards reaches every card of the other value (with as many on both sides, a matching of
every ``v`` card is perfect).
This ignores which pyramid cards cover which and the order of the moves, so it is a necessary
condition: when no stock or waste card ``q`` of the apex's partner value meets it, no line
removes every card, and the score challenge's bound drops by one step (``Objective.grain``).
``upper_bound`` asks it of every position it bounds at the most there is: on msc seed 279 the
free-stock search took 1.4 s to prove what it sees at the deal's start (tests/reference/apex.py
is a plain version the tests compare it with).
"""

from __future__ import annotations

import numpy as np

from solver.core.bits import popcount
from solver.core.jit import noalloc
from solver.pyramid.challenge.moves import KING, PAIR_SUM
from solver.pyramid.model.state import PYR_MASK, STOCK_MASK

_ONE = np.uint64(1)


@noalloc
def apex_last_possible(state, tabs, rule):
    """False when no line from the packed position ``state`` removes every card with the apex
    last (see the module docstring); True when the test cannot tell. It applies under goal
    "pyramid" without overlap pairs, the apex (bit 0) still there and not a king."""
    state = np.uint64(state)
    pyr = state & PYR_MASK
    if rule.goal_all or rule.overlap or not pyr & _ONE:
        return True
    apex = tabs.val[0]
    if apex == KING:
        return True
    rest = pyr & ~_ONE
    pile = state & STOCK_MASK
    cand = pile & tabs.sval[PAIR_SUM - apex]
    while cand:
        q = cand & (~cand + _ONE)
        cand &= cand - _ONE
        left = pile & (q - _ONE)
        right = pile & ~(q | (q - _ONE))
        if matched(rest, left, right, tabs):
            return True
    return False


@noalloc
def matched(pyr, left, right, tabs):
    """Whether the cards of the pyramid bits ``pyr`` and the stock bits ``left`` and ``right``
    can be paired off, kings alone, with no pair of a left and a right card (the Hall conditions
    of the module docstring)."""
    for v in range(1, 7):
        w = PAIR_SUM - v
        p_v = popcount(pyr & tabs.vmask[v])
        p_w = popcount(pyr & tabs.vmask[w])
        l_v = popcount(left & tabs.sval[v])
        l_w = popcount(left & tabs.sval[w])
        r_v = popcount(right & tabs.sval[v])
        r_w = popcount(right & tabs.sval[w])
        if p_v + l_v + r_v != p_w + l_w + r_w:
            return False
        if l_v > p_w + l_w or r_v > p_w + r_w:
            return False
    return True


@noalloc
def capped(ub, state, tabs, rule, obj):
    """The bound ``ub`` of ``state``, one step (``obj.grain``) less when it is the most there
    is and that needs every card gone (``obj.full``), and no line removes every card with the
    apex last."""
    if obj.full >= 0 and ub >= obj.full and not apex_last_possible(state, tabs, rule):
        return obj.full - obj.grain
    return ub
