"""Exact pruning rules of the limited-recycles winnability search, most of them knowing the passes
left.

On the last pass (every recycle used: ``recycles_used == rule.recycles``) the waste is a stack
that can only shrink from its top or grow by draws: no recycle will ever reorder it. This module
turns that into one exact rule, applied by ``solver.pyramid.winnable.limited`` to every concrete position it
meets on the last pass (``bury_last_pass``), and into the waste deadlock below:

**Burial.** A waste card ``k`` can leave the waste only as the waste top, by one of: a king
removed alone; a pair with a pyramid card of the partner value (13 - its value); with the stock
top available, a pair with the stock top, which on the last pass is always a card still in the
stock (index >= pointer). So when ``k`` is no king, no pyramid card of the partner value is
still present, and (stock top shown) no stock card of the partner value is still ahead of the
pointer, ``k`` is *stuck*: it stays in the waste for the rest of the game (pyramid cards and
stock cards ahead only ever disappear, so this stays true in every later position). Every waste
card below the highest stuck card is then *buried*: it can never become the waste top (the
stuck card stays above it), never be the stock top again (no recycle is left), so it takes part
in no move for the rest of the game. The stuck card itself takes part in no move either: as the
waste top it has no partner and is no king, and no recycle is left.

* Under goal "pyramid" the highest stuck card and every waste card under it play no role at all:
  clearing them from the position (and setting the pointer canonically: the waste top is then
  the next card above them, or the waste is empty) changes no move of this or any later position
  and not the goal. The stock top is unchanged (the cleared cards were all below the pointer),
  and a waste top or a stuck top offers the same moves as the waste they leave: a draw when
  the stock is not empty, no recycle (none is left), and no pair. So the search continues from
  the position without them: an equivalent position that merges transpositions and lets the
  dead-card test, the partner count (``class_unmatched``) and the free-stock oracle see that
  those cards are no partners any more.
* Under goal "all" a stuck card can never be removed, so the position is lost
  (``bury_last_pass`` returns ``LOST_STATE``).

Two more last-pass rules and one for every pass, each argued in its kernel's docstring:

* **Waste deadlock** (``waste_deadlock``): a pyramid card whose partners left all lie in the
  waste waits for every waste card above them, and when one of those (or, counted, more of one
  value than their partners) can leave only with pyramid cards that card covers, neither ever
  leaves: the position is lost.
* **Partner count** (``class_unmatched``): once cards left the game unpaired, a class of values
  whose pyramid cards outnumber the partners left to them is lost.
* **Forced pair** (``forced_pair``, any pass): a card that must leave with exactly one card left
  that could ever pair with it is paired with it at once, the other moves not searched.

The rules are tested against the plain references on positions where they fire
(``tests/pyramid/test_limited_pruning.py``, ``tests/pyramid/test_limited_rules.py``).
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from solver.core.bits import popcount
from solver.core.jit import noalloc
from solver.pyramid.model.layout import BELOW, PYRAMID_CARDS
from solver.pyramid.model.state import (PTR_MASK, PTR_SHIFT, PYR_MASK, REC_MASK, REC_SHIFT,
                                        STOCK_MASK, MOVE_PAIR, canon_pointer, move_a, move_b,
                                        move_kind)

INLINE = "always"
"""The kernels here are inlined into the search that calls them (``njit(inline=...)``): a call
that passes the deal's tables (``DealTables``, five arrays) costs reference counting on every
array, once per position, and inlined the compiler can drop it. Measured on ``--recycles 0
--stock-top``, seeds 0..199: about 15 % more deals per second, positions identical. Since they
compile as ``noalloc`` kernels (``solver.core.jit``: no reference counting at all), calls measured
the same as inlining (seeds 0..999); they stay inlined."""
LOST_STATE = np.uint64(0xFFFFFFFFFFFFFFFF)
"""What ``bury_last_pass`` returns for a position it proves lost (never a real position: bits
62 and 63 are never both set in one)."""

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@noalloc(inline=INLINE)
def waste_and_ahead(state):
    """``(waste, ahead)``: the stock bits (in place) of the in-play cards of ``state`` below its
    pointer (the waste) and at or above it (the stock)."""
    ptr = np.uint64((state & PTR_MASK) >> PTR_SHIFT)
    below = (_ONE << (ptr + np.uint64(PYRAMID_CARDS))) - _ONE
    stock = state & STOCK_MASK
    return stock & below, stock & ~below


@noalloc(inline=INLINE)
def stuck_waste(state, tabs, rule):
    """Stock bits (in place, bits 28..51) of the waste cards of ``state`` that are stuck for the
    rest of the game (see the module docstring), assuming ``state`` is on its last pass."""
    state = np.uint64(state)
    pyr = state & PYR_MASK
    waste, ahead = waste_and_ahead(state)
    if waste == _ZERO:
        return _ZERO
    removable = np.uint64(tabs.skings)
    for v in range(1, 13):
        w = 13 - v
        if (pyr & tabs.vmask[w]) or (rule.stock_top and (ahead & tabs.sval[w])):
            removable |= tabs.sval[v]
    return waste & ~removable


@noalloc(inline=INLINE)
def bury_last_pass(state, tabs, rule):
    """The position equivalent to ``state`` with its buried waste cards cleared, ``state`` itself
    when the rule does not fire (not the last pass, or nothing buried), or ``LOST_STATE`` when a
    card is stuck under goal "all" (module docstring)."""
    if rule.recycles < 0 or np.int64((state & REC_MASK) >> REC_SHIFT) < rule.recycles:
        return state
    state = np.uint64(state)
    stuck = stuck_waste(state, tabs, rule)
    if stuck == _ZERO:
        return state
    if rule.goal_all:
        return LOST_STATE
    top = np.uint64(63) - np.uint64(leading_zeros(stuck))
    gone = (state & STOCK_MASK) & ((_ONE << (top + _ONE)) - _ONE)
    return canon_pointer(state & ~gone, np.int64((state & PTR_MASK) >> PTR_SHIFT))



@noalloc(inline=INLINE)
def class_unmatched(state, v, tabs):
    """True when the pyramid cards of values ``v`` and ``13 - v`` cannot all find partners
    among the cards in play, counted (``v`` in 1..12).

    Argument: in a win every pyramid card of value ``v`` leaves in a pair with a pyramid card of
    value ``13 - v`` or with a stock or waste card of that value still in play, each card used
    once; likewise for ``13 - v``. With ``x`` pairs of two pyramid cards in the class (at most
    ``min(a, b)`` for ``a``, ``b`` pyramid cards of the two values), the other ``a - x`` and
    ``b - x`` need as many stock cards of the partner values (``sb``, ``sa`` in play). Such an
    ``x`` exists iff ``a - sb <= b`` and ``b - sa <= a``. While every removal is a pair of the two
    values this always holds (``a + sa == b + sb``); it can fail once cards left the game
    unpaired (``bury_last_pass``) and stock cards pair among themselves afterwards.
    """
    w = 13 - v
    state = np.uint64(state)
    pyr = state & PYR_MASK
    stock = state & STOCK_MASK
    a = popcount(pyr & tabs.vmask[v])
    b = popcount(pyr & tabs.vmask[w])
    sa = popcount(stock & tabs.sval[v])
    sb = popcount(stock & tabs.sval[w])
    return a - sb > b or b - sa > a


@noalloc(inline=INLINE)
def unmatched(state, tabs):
    """``class_unmatched`` for some class of values (1 + 12, 2 + 11, .. 6 + 7)."""
    for v in range(1, 7):
        if class_unmatched(state, v, tabs):
            return True
    return False


@noalloc(inline=INLINE)
def unmatched_after(child, m, tabs):
    """``unmatched`` for a child whose parent passed it: only a pair changes the counts, and only
    of its own class (draws, recycles and kings change none)."""
    if move_kind(m) != MOVE_PAIR:
        return False
    return class_unmatched(child, tabs.val[move_a(m)], tabs)


@noalloc(inline=INLINE)
def must_go(slot, rule):
    """True when the card in ``slot`` must leave in every win: a pyramid card, or under goal
    "all" any card."""
    return slot < PYRAMID_CARDS or rule.goal_all


@noalloc(inline=INLINE)
def partners_left(state, slot, tabs):
    """How many cards still in play might yet pair with the card in ``slot`` (an upper bound: the
    pyramid cards of the partner value that are not above or under it, except a direct cover,
    for a pyramid card, every pyramid card of that value for a stock card, and every stock card of
    that value still in play)."""
    state = np.uint64(state)
    v = tabs.val[slot]
    n = popcount(state & STOCK_MASK & tabs.sval[13 - v])
    if slot < PYRAMID_CARDS:
        return n + popcount(state & PYR_MASK & tabs.reach[slot])
    return n + popcount(state & PYR_MASK & tabs.vmask[13 - v])


@noalloc(inline=INLINE)
def forced_pair(state, tabs, rule, moves, n):
    """Move a *forced pair* among ``moves[:n]`` to the front and return 1, or return ``n``.

    A pair ``(x, y)`` is forced when ``x`` must leave in every win (``must_go``) and ``y`` is the
    only card still in play that might pair with it (``partners_left`` counts them, an upper
    bound, so a count of 1 is exact). Argument: every win from here then plays ``(x, y)`` at some
    later time ``t``; playing it now instead and the win's other moves in their order (a draw of
    ``y``, if the win made one, left out) is a win too. No move in between uses ``x`` or ``y``;
    removing them now disables none: a pyramid card only ever uncovers others, a waste card
    taken off early exposes the card under it, which the win could not use before ``t`` (``y``
    lay on it), and a stock card taken early lets the next card be the stock top, which in the win
    it became by the draw of ``y`` left out. After ``t`` both lines hold the same cards, and the
    stock and waste of a position depend only on the cards in play and the pointer, which both
    lines leave at the same card. So the position is won exactly when the position after
    ``(x, y)`` is, and the other moves need no search.
    """
    for k in range(n):
        m = moves[k]
        if move_kind(m) != MOVE_PAIR:
            continue
        a = move_a(m)
        b = move_b(m)
        if (must_go(a, rule) and partners_left(state, a, tabs) == 1) or \
                (must_go(b, rule) and partners_left(state, b, tabs) == 1):
            moves[0] = m
            return 1
    return n


@noalloc(inline=INLINE)
def waste_deadlock(state, tabs, rule):
    """True when, on the last pass, a pyramid card and the waste above its partners wait for
    each other: then the position is lost.

    Argument: let ``x`` be a present pyramid card (no king) with no partner among the present
    pyramid cards that could meet it (``reach``) and none among the stock cards ahead of the
    pointer, so every partner it can still have lies in the waste, the highest at ``h``. The
    pyramid and the stock ahead only ever lose cards, so that stays so. On the last pass a waste
    card becomes the waste top only once every waste card above it has left (draws only add cards
    on top), so before ``x`` leaves every waste card above ``h`` must have left. Such a card ``u``
    (no king) leaves only in a pair: never with another waste card (only the top one is
    available), with the stock top only when the stock top is shown and a card of its partner
    value lies ahead, else with an uncovered pyramid card of its partner value. When ``u`` has no
    partner ahead (or the stock top is hidden) and every pyramid card of its partner value lies
    under ``x`` (``BELOW``: uncovered only once ``x`` has left), ``u`` can leave only after ``x``,
    and ``x`` only after ``u``: ``x`` never leaves, and the pyramid is never cleared. Counted:
    the waste cards above ``h`` of one value ``v`` each need a partner of their own, of value
    ``13 - v``, before ``x`` leaves: a card ahead (stock top shown) or a pyramid card not under
    ``x``. When they outnumber those cards, some of them cannot leave before ``x``, nor ``x``.
    """
    state = np.uint64(state)
    pyr = state & PYR_MASK
    waste, ahead = waste_and_ahead(state)
    if waste == _ZERO:
        return False
    val = tabs.val
    x_left = pyr & ~tabs.pkings
    while x_left:
        x = np.int64(trailing_zeros(x_left))
        x_left &= x_left - _ONE
        w = 13 - val[x]
        if (pyr & tabs.reach[x]) or (ahead & tabs.sval[w]):
            continue
        mates = waste & tabs.sval[w]
        if mates == _ZERO:
            continue  # a dead card: the dead-card test's case
        h = np.uint64(63) - np.uint64(leading_zeros(mates))
        over = waste & ~((_ONE << (h + _ONE)) - _ONE)
        under_x = np.uint64(BELOW[x])
        rest = over
        while rest:
            u = np.int64(trailing_zeros(rest))
            rest &= rest - _ONE
            vu = val[u]
            if vu == 13:
                continue
            have = popcount(pyr & tabs.vmask[13 - vu] & ~under_x)
            if rule.stock_top:
                have += popcount(ahead & tabs.sval[13 - vu])
            if popcount(over & tabs.sval[vu]) > have:
                return True
    return False
