"""The admissible, consistent lower bound of the minimum-move search (``bound``), over the
per-deal ``ClassTables`` of ``solver.pyramid.optimal.tables``."""

from __future__ import annotations

import numpy as np

from solver.core.bits import popcount
from solver.core.jit import kernel, noalloc
from solver.pyramid.model.layout import PYRAMID_CARDS
from solver.pyramid.optimal.tables import PYR_INF, config_id
from solver.pyramid.model.state import (PYR_MASK, STOCK_MASK, STOCK_SHIFT, deal_tables,
                                        highest_bit_below, lowest_bit_index, pointer, recycles_used)

_ONE = np.uint64(1)
_ZERO = np.uint64(0)

@noalloc
def _subsets(pyr, csub):
    """The subsets of all six classes (class c in bits 8c .. 8c+7) of the pyramid mask ``pyr``."""
    m = np.int64(pyr)
    return (csub[0, m & 127] | csub[1, (m >> 7) & 127] | csub[2, (m >> 14) & 127]
            | csub[3, (m >> 21) & 127])


_FAR = 1 << 20
FAR_BOUND = 200
"""``bound`` gives this when a card that must be used can never be reached (too few of a value
left, or only behind cards that can never go with no recycle left): the position is lost, and
the search drops it."""


SCRATCH = 64
"""Size of the int64 scratch array of ``bound``: [0, 24) the full cost of each stock card,
[24, 30) the class subsets, [32, 56) the plain cost of each stock card."""
_COST, _CLS, _PLAIN = 0, 24, 32
_COST_AT, _PLAIN_AT = np.int64(_COST), np.int64(_PLAIN)
"""``_COST`` and ``_PLAIN`` as int64 arguments: a plain int constant passed to a kernel is typed as
its literal value, and numba would compile ``_stock_moves`` once per constant."""
_V_SLOTS, _W_SLOTS = np.int64(0), np.int64(4)
_BELOW_TOP = np.int64(63)
"""``highest_bit_below(y, _BELOW_TOP)``: the highest bit of a stock mask (int64 for one compile
with ``canon_pointer``'s calls)."""
"""The first class slot of the v cards and of the 13-v cards (``_values_mask``), int64 for the
same reason."""


@noalloc
def _nibble(word, t):
    """The 4-bit count of value ``t`` in a word of 14 such counts (value t at bits 4t..4t+3)."""
    return (word >> (4 * t)) & 15


@noalloc
def _add_card(cnt, need, cap, t):
    """Count a stock/waste card of value ``t`` in the way; returns ``(cnt, full, plain)``: the
    counts per value with it (``cnt``, ``need`` and ``cap`` are words of 4-bit counts,
    ``_nibble``) and the changes of two costs of clearing the cards counted so far, both besides
    the moves that remove pyramid cards.

    Plain cost: a king costs a move, and so does every card beyond ``cap`` (the pyramid cards of
    the partner value: no pyramid card is left to pair it with); the others may go with pyramid
    cards.

    Full cost, to add to the class-matching pyramid part only: of the cards within ``cap``, those
    beyond the cards of their value that the pyramid needs anyway (``need``) cost a move too or
    go in a pair with a pyramid card that the matching had paired inside the pyramid, and e such
    extra pairs of each value of a class {v, w} mean e pyramid pairs given up (e more pyramid
    moves). So with ``P_t`` the cards of value t between ``need`` and ``cap`` and ``U_t`` those
    beyond ``cap``, the class costs ``U_v + U_w + max(P_v, P_w)`` at least. Counting one more
    card changes that by 0 (within ``need``), 1 (beyond ``cap``), or 1 exactly when its ``P``
    overtakes the partner value's."""
    if t == 13:
        return cnt, 1, 1
    cnt += np.int64(1) << (4 * t)
    a = _nibble(cnt, t)
    nd = _nibble(need, t)
    if a <= nd:
        return cnt, 0, 0
    if a > _nibble(cap, t):
        return cnt, 1, 1
    o = 13 - t
    p_other = min(_nibble(cnt, o), _nibble(cap, o)) - _nibble(need, o)
    return cnt, (1 if a - nd > p_other else 0), 0


@noalloc
def _stock_costs(waste, region, pyr, vmask, val, hidden, can_turn, need, scr):
    """``scr[_COST + i]`` and ``scr[_PLAIN + i]``: the fewest moves besides those that remove
    pyramid cards before stock card ``i`` (in play) can be used, counting the cards in the way
    at their full and plain cost (``_add_card``; ``need`` holds the t-cards needed).

    Stock top hidden: in the stock, a draw per in-play card down to it (itself included). In the
    waste, either the cards above it go first (only kings and cards that pair with pyramid cards
    can), or the waste is turned: a draw per stock card, a recycle, then a draw per card before
    it and one for itself (nothing leaves a hidden stock undrawn).

    Stock top available: the cards above it cleared away (a card can also leave the stock or the
    waste with the other pile's top). In the waste, either the cards above it cleared, or the
    waste turned: the stock cleared, a recycle, the cards before it cleared.

    With no recycle left (``can_turn`` false) a waste card that cannot be reached from the top
    gets ``_FAR``."""
    cap = np.int64(0)
    for v in range(1, 13):
        cap |= popcount(pyr & vmask[13 - v]) << (4 * v)
    cnt = np.int64(0)
    # the stock, top (lowest index) first
    y = region >> STOCK_SHIFT
    n = 0
    total = 0
    plain = 0
    while y:
        i = lowest_bit_index(y)
        y &= y - _ONE
        n += 1
        if hidden:
            scr[_COST + i] = n
            scr[_PLAIN + i] = n
        else:
            scr[_COST + i] = total
            scr[_PLAIN + i] = plain
            cnt, d, dp = _add_card(cnt, need, cap, val[PYRAMID_CARDS + i])
            total += d
            plain += dp
    if waste == _ZERO:
        return
    # the waste, bottom (lowest index) first: the waste turned (with the stock top available,
    # the stock's cards count in the same clearing)
    y = waste >> STOCK_SHIFT
    j = 0
    while y:
        i = lowest_bit_index(y)
        y &= y - _ONE
        j += 1
        if not can_turn:
            scr[_COST + i] = _FAR
            scr[_PLAIN + i] = _FAR
        elif hidden:
            scr[_COST + i] = n + 1 + j
            scr[_PLAIN + i] = n + 1 + j
        else:
            scr[_COST + i] = 1 + total
            scr[_PLAIN + i] = 1 + plain
            cnt, d, dp = _add_card(cnt, need, cap, val[PYRAMID_CARDS + i])
            total += d
            plain += dp
    # the waste, top first: the cards above each card cleared away
    cnt = np.int64(0)
    y = waste >> STOCK_SHIFT
    total = 0
    plain = 0
    while y:
        i = highest_bit_below(y, _BELOW_TOP)
        y &= ~(_ONE << np.uint64(i))
        scr[_COST + i] = min(scr[_COST + i], total)
        scr[_PLAIN + i] = min(scr[_PLAIN + i], plain)
        t = val[PYRAMID_CARDS + i]
        if hidden and t != 13 and _nibble(cnt, t) >= _nibble(cap, t):
            break  # no pyramid card left to pair it with, and the stock top is hidden: stuck
        cnt, d, dp = _add_card(cnt, need, cap, t)
        total += d
        plain += dp


@noalloc
def _stock_moves(u, need, stock, sval, scr, base):
    """Moves besides pyramid pairs needed to get ``need`` (1..4) u-cards of the stock and waste:
    the ``need``-th cheapest of their costs ``scr[base + i]`` (far off when there are fewer)."""
    c0 = _FAR
    c1 = _FAR
    c2 = _FAR
    c3 = _FAR
    y = stock & sval[u]
    while y:
        i = lowest_bit_index(y)
        y &= y - _ONE
        c = scr[base + i - PYRAMID_CARDS]
        if c < c3:
            c3 = c
            if c3 < c2:
                c2, c3 = c3, c2
                if c2 < c1:
                    c1, c2 = c2, c1
                    if c1 < c0:
                        c0, c1 = c1, c0
    if need == 1:
        return c0
    if need == 2:
        return c1
    if need == 3:
        return c2
    return c3


@noalloc
def bound(state, ctab, tabs, rule, scr):
    """Admissible and consistent lower bound on the moves still needed to win from ``state``
    (``ctab``: the deal's ``ClassTables``, ``tabs`` its ``DealTables``, ``rule`` the
    ``RuleArgs``, ``scr`` an int64 scratch array of ``SCRATCH``).

    It adds a lower bound on the moves that remove pyramid cards (pyramid part) to one on the
    moves that remove none (draws, recycles, stock/waste kings, pairs of two stock/waste cards:
    stock part), and under goal "pyramid" takes the larger of two such sums.

    Class sum: every pyramid king costs a move, and a class {v, 13-v} needs ``cmoves`` moves at
    least (see ``class_tables``: the pyramid cards that cannot all be paired among themselves each
    need a move with a stock or waste card). Goal "all" also counts, per class, the larger number
    of cards in play of the two values (each pair removes one of each) and every king in play,
    and with the stock top hidden a draw for every card still in the stock; it stops there.
    Goal "pyramid" adds the stock part at the *full* cost of ``_stock_costs``.

    Order sum (goal "pyramid"): ``pyramid_moves`` (the fewest pyramid-removing moves when the
    covering order is respected and every stock card is at hand; never below the class count)
    plus the stock part at the *plain* cost, which charges no pyramid pairs given up and so
    can go with any pyramid part.

    Stock part: for each value u, ``cneed`` u-cards of the stock and waste must pair with pyramid
    cards (the class matching says so, whatever the pyramid part); getting the k-th cheapest of
    them (``_stock_costs``) costs at least that much; the part is the largest such cost over the
    values (one pass through the stock serves them all).

    Consistent: a move lowers each sum by at most one. A move that removes pyramid cards lowers
    ``pyramid_moves`` or one class by at most one; it takes away a stock or waste card it used (a
    cheapest one, so the k-th cheapest of the rest with k one smaller is the same card) and
    otherwise can only make cards harder to reach (fewer pyramid partners for the cards in the
    way). A draw, a recycle, a king or a pair of two stock/waste cards removes no pyramid card
    and lowers each card's cost by at most one. The tests check this move by move.
    """
    cpos, cmoves, cneed, cdp = ctab.cpos, ctab.cmoves, ctab.cneed, ctab.cdp
    sval = tabs.sval
    goal_all = rule.goal_all
    draw_term = not rule.stock_top
    pyr = state & PYR_MASK
    stock = state & STOCK_MASK
    ptr = np.uint64(pointer(state))
    waste = stock & (((_ONE << ptr) - _ONE) << STOCK_SHIFT)
    region = stock & ~waste
    h = popcount(pyr & tabs.pkings)
    if goal_all:
        h += popcount(stock & tabs.skings)
        if draw_term:
            h += popcount(region)
    subsets = _subsets(pyr, ctab.csub)
    needed = 0
    needw = np.int64(0)
    for c in range(6):
        x = (subsets >> (8 * c)) & 255
        scr[_CLS + c] = x
        moves = cmoves[c, x]
        if goal_all:
            v = c + 1
            tv = popcount(pyr & _values_mask(cpos, c, _V_SLOTS, x)) + popcount(stock & sval[v])
            tw = popcount(pyr & _values_mask(cpos, c, _W_SLOTS, x)) + popcount(stock & sval[13 - v])
            moves = max(moves, max(tv, tw))
        h += moves
        needw |= (cneed[c, x, 0] << (4 * (12 - c))) | (cneed[c, x, 1] << (4 * (c + 1)))
        needed += cneed[c, x, 0] + cneed[c, x, 1]
    if goal_all:
        return h
    cid = config_id(pyr)
    hdp = cdp[cid] if cid >= 0 else 0
    if hdp >= PYR_INF:
        return FAR_BOUND  # some pyramid card can never go, even with every stock card at hand
    if needed == 0:
        return max(h, hdp)
    can_turn = rule.recycles < 0 or recycles_used(state) < rule.recycles
    _stock_costs(waste, region, pyr, tabs.vmask, tabs.val, draw_term, can_turn, needw, scr)
    depth = 0
    plain = 0
    for c in range(6):
        x = scr[_CLS + c]
        for side in range(2):
            need = cneed[c, x, side]
            if need > 0:
                u = 12 - c if side == 0 else c + 1
                depth = max(depth, _stock_moves(u, need, stock, sval, scr, _COST_AT))
                if hdp > h:
                    plain = max(plain, _stock_moves(u, need, stock, sval, scr, _PLAIN_AT))
    return max(h + min(depth, FAR_BOUND), hdp + min(plain, FAR_BOUND))


@noalloc
def pyramid_part(pyr, ctab, tabs):
    """A lower bound on the moves that remove pyramid cards still needed to clear the pyramid mask
    ``pyr``: the larger of the class sum (a move per pyramid king and ``cmoves`` per class) and
    ``pyramid_moves`` (``bound`` explains both)."""
    h = popcount(pyr & tabs.pkings)
    subsets = _subsets(pyr, ctab.csub)
    for c in range(6):
        h += ctab.cmoves[c, (subsets >> (8 * c)) & 255]
    cid = config_id(pyr)
    return max(h, ctab.cdp[cid] if cid >= 0 else 0)


@noalloc
def pass_floor(state, ctab, tabs):
    """The pass term of ``state`` (stock top hidden, goal "pyramid"): its value when the position
    cannot be won without a recycle (``solver.pyramid.optimal.passes`` gives the argument):
    ``pyramid_part`` plus a draw for each card still in the stock, the recycle and one draw."""
    stock = state & STOCK_MASK
    ptr = np.uint64(pointer(state))
    region = stock & ~(((_ONE << ptr) - _ONE) << STOCK_SHIFT)
    return pyramid_part(state & PYR_MASK, ctab, tabs) + popcount(region) + 2


@noalloc
def two_passes_floor(state, ctab, tabs):
    """The two-pass term of ``state`` (stock top hidden, goal "pyramid"): its value when the
    position cannot be won with fewer than two recycles (``solver.pyramid.optimal.passes`` gives
    the argument): ``pass_floor``, the second recycle, and a draw for each card that must still be
    in play when the first recycle turns the waste (``stays_in_play``)."""
    return pass_floor(state, ctab, tabs) + 1 + stays_in_play(state, tabs)


@noalloc
def stays_in_play(state, tabs):
    """How many of the stock and waste cards of ``state`` are still in play however it goes on, with
    the stock top hidden: only the waste top can be played, so such a card leaves play as a king
    or in a pair with a pyramid card of the partner value, each pyramid card serving one of them;
    at least the cards beyond ``kings + sum over v of min(stock v-cards, pyramid (13-v)-cards)``
    stay."""
    pyr = state & PYR_MASK
    stock = state & STOCK_MASK
    gone = popcount(stock & tabs.skings)
    for v in range(1, 13):
        gone += min(popcount(stock & tabs.sval[v]), popcount(pyr & tabs.vmask[13 - v]))
    return popcount(stock) - gone


@noalloc
def _values_mask(cpos, c, first, x):
    """Pyramid bits of the present class cards in slots ``first .. first+3``."""
    m = _ZERO
    for k in range(first, first + 4):
        if (x >> k) & 1:
            m |= _ONE << np.uint64(cpos[c, k])
    return m


@kernel
def start_bound(deal, ctab, start, rule):
    """``bound`` of the packed position ``start`` (for reporting without a search)."""
    scr = np.zeros(SCRATCH, dtype=np.int64)
    return bound(start, ctab, deal_tables(deal), rule, scr)
