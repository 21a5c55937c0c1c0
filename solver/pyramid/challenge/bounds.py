"""Kernels that value a packed position for an objective (``ObjectiveArgs``): its value now, an
upper bound on the value any line from it reaches, and a lower bound on the moves to a value.

* ``value``: the weights of the cards gone (pyramid and stock tables by card value) plus the
  bonus of every empty pyramid row.
* ``upper_bound``: the value plus what the cards still in play could add. A card is *stuck*
  when no card that could ever pair with it is in play and not stuck itself (a king is never
  stuck on its own); a stuck pyramid card never leaves, nor does any card it covers. Of the cards
  not stuck, a class of values ``v`` and ``13 - v`` loses cards only in pairs of one of each, so
  at most ``min(n_v, n_{13-v})`` of each value go (the heavier ones counted first); kings go
  alone; and a row's bonus counts when every card of it and of the rows under it is not stuck
  (rows empty from the bottom up: a card of row r is covered by two of row r+1, and every card
  of row r+1 covers one of row r) and those cards can all find partners at once
  (``solver.pyramid.challenge.rows``: Hall's condition per value). When that is the most
  there is and it needs every card gone, one step less if no line can remove every card with
  the apex last (``solver.pyramid.challenge.apex``).
* ``access``: for every card in play, a lower bound on the moves until it is gone (its own
  removal included), each falling by one at most per move: a pyramid card, the cards covering
  it, two at most per move (each king alone); a stock card, one move for each card before it in
  the stock (drawn, or removed from the stock's top), and its removal (a draw more when the
  stock's top is hidden); a waste card, one move per card above it, or, while a recycle is left,
  every card left in the stock, the recycle and then as a stock card.
* ``moves_lower_bound``: a lower bound on the moves to a value of ``target`` (``FAR`` when no
  line reaches it), falling by one at most per move (consistent, for the A* of
  ``solver.pyramid.challenge.kernels.fewest_search``). A line ends with some number k of rows
  empty (rows not stuck whose cards can all find partners among the cards in play,
  ``rows_matched``; a row that earns nothing is never worth counting); for each such k it
  needs the cards of those rows gone and, from cards, the value still missing after the rows'
  bonuses. For each k the largest of: a move per pair of the rows' cards and per king, the last
  no earlier than its access bound; a move gains at most ``gain``; the last card needed goes no
  earlier than the time by which the cards that can be gone weigh enough; and ``spread_moves``,
  the moves that clear what must go (the cones of the cards needed and, for one rank, of as
  many distinct partners; a move takes at most one card of each value of a class) plus those
  that bring the stock and waste cards needed within reach and remove none of it
  (``clear_moves``, ``passing_moves``): every card before the deepest stock card needed, and
  for the lowest waste card needed either every waste card above it or, with a recycle left,
  the whole stock, the recycle and the cards before it. The bound is the least over k. Every
  part falls by one at most per move, since the cards a move removes had access bound 1, and a
  move takes out of the way two of the cards to pass only as a pair that lowers their matching;
  and a count k whose rows cannot find partners never can again (a move removing a card of
  them takes one of its partners with it, and a matching of the rest plus that pair would have
  done before).
"""

from __future__ import annotations

import numpy as np

from solver.core.bits import nth_bit, popcount
from solver.core.jit import noalloc
from solver.pyramid.model.layout import (ABOVE, BELOW, DIRECT, PYRAMID_CARDS, PYRAMID_ROWS,
                                         STOCK_CARDS)
from solver.pyramid.challenge.apex import capped
from solver.pyramid.challenge.passing import passing_moves, stock_bits
from solver.pyramid.challenge.rows import ROWS_FROM, rows_matched
from solver.pyramid.model.state import (PYR_MASK, ROW_MASKS, STOCK_MASK, STOCK_SHIFT,
                                        lowest_bit_index, pointer, recycles_used)

FAR = 1 << 20
"""A bound meaning never: a card that cannot go, a value no line reaches."""
MAX_TIME = 63
"""Removal times at or past this are counted as this (every access bound is far below it: at
most every card of the stock and the waste, a recycle and two moves)."""
SLOTS = PYRAMID_CARDS + STOCK_CARDS
NEVER = STOCK_CARDS + 1
"""A stock index past the last: the stock never holds what is asked."""
MAX_PICKS = 8
"""``spread_moves`` tries every set of the weighted cards in play when there are at most this
many (the cards of one rank), else counts stock cards the shallowest first."""
"""Rounds of raising removal times to partners' and past covers' (``removal_times``)."""
KING = 13
PAIR_SUM = 13

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@noalloc
def card_value(state, tabs, obj):
    """The weights of the cards gone from ``state``."""
    gone = ~np.uint64(state)
    v = 0
    for x in range(1, KING + 1):
        if obj.wp[x]:
            v += obj.wp[x] * popcount(gone & tabs.vmask[x])
        if obj.ws[x]:
            v += obj.ws[x] * popcount(gone & tabs.sval[x])
    return v


@noalloc
def value(state, tabs, obj):
    """The value of ``state``: its cards gone and its empty rows."""
    v = card_value(state, tabs, obj)
    pyr = np.uint64(state) & PYR_MASK
    for r in range(PYRAMID_ROWS):
        if not pyr & ROW_MASKS[r]:
            v += obj.bonus[r]
    return v


@noalloc
def stock_live(stock, pyr, tabs, stock_top_on):
    """The stock cards of ``stock`` that still have a partner among ``pyr`` and ``stock``
    (kings always; another stock card only when the stock's top is available)."""
    live = np.uint64(stock & np.uint64(tabs.skings))
    for v in range(1, KING):
        cards = np.uint64(stock & tabs.sval[v])
        if cards and ((pyr & tabs.vmask[PAIR_SUM - v]) or
                      (stock_top_on and (stock & tabs.sval[PAIR_SUM - v]))):
            live |= cards
    return live


@noalloc
def live_pyramid(state, tabs, rule):
    """The pyramid cards of ``state`` that are not stuck (see the module docstring)."""
    pyr = np.uint64(state) & PYR_MASK
    stock = np.uint64(state) & STOCK_MASK
    changed = True
    while changed:
        changed = False
        stock = stock_live(stock, pyr, tabs, rule.stock_top)
        x = pyr & ~tabs.pkings
        while x:
            p = lowest_bit_index(x)
            x &= x - _ONE
            if not (pyr >> np.uint64(p)) & _ONE:
                continue
            mates = tabs.reach[p]
            if not rule.overlap:
                mates &= ~np.uint64(DIRECT[p])
            if (mates & pyr) or (stock & tabs.sval[PAIR_SUM - tabs.val[p]]):
                continue
            pyr &= ~((_ONE << np.uint64(p)) | np.uint64(BELOW[p]))
            changed = True
    return pyr | stock


@noalloc
def heaviest(k, n1, w1, n2, w2):
    """The weight of the ``k`` heaviest of ``n1`` cards weighing ``w1`` and ``n2`` weighing
    ``w2``."""
    if w1 < w2:
        a = min(k, n2)
        return a * w2 + min(k - a, n1) * w1
    a = min(k, n1)
    return a * w1 + min(k - a, n2) * w2


@noalloc
def upper_bound(state, tabs, rule, obj):
    """The most value any line from ``state`` could reach (see the module docstring)."""
    live = live_pyramid(state, tabs, rule)
    pyr = live & PYR_MASK
    stock = live & STOCK_MASK
    ub = value(state, tabs, obj)
    for x in range(1, 7):
        y = PAIR_SUM - x
        px = popcount(pyr & tabs.vmask[x])
        sx = popcount(stock & tabs.sval[x])
        py = popcount(pyr & tabs.vmask[y])
        sy = popcount(stock & tabs.sval[y])
        k = min(px + sx, py + sy)
        ub += heaviest(k, px, obj.wp[x], sx, obj.ws[x]) + heaviest(k, py, obj.wp[y], sy, obj.ws[y])
    ub += popcount(pyr & tabs.pkings) * obj.wp[KING] + popcount(stock & tabs.skings) * obj.ws[KING]
    present = np.uint64(state) & PYR_MASK
    top = PYRAMID_ROWS
    for r in range(PYRAMID_ROWS - 1, -1, -1):
        row = present & ROW_MASKS[r]
        if row & ~pyr:
            break
        top = r
    need = present & ROWS_FROM[top]
    if rows_matched(need, need, live, tabs, rule.overlap):
        for r in range(top, PYRAMID_ROWS):
            if present & ROW_MASKS[r]:
                ub += obj.bonus[r]
        return capped(ub, state, tabs, rule, obj)
    need = _ZERO
    for r in range(PYRAMID_ROWS - 1, top - 1, -1):
        row = present & ROW_MASKS[r]
        need |= row
        if not rows_matched(need, row, live, tabs, rule.overlap):
            break
        if row:
            ub += obj.bonus[r]
    return capped(ub, state, tabs, rule, obj)


@noalloc
def access(state, tabs, rule, acc):
    """``acc[s]`` for every slot (0..27 pyramid, 28+i stock card i): a lower bound on the moves
    until its card is gone, ``FAR`` for a card already gone (see the module docstring)."""
    pyr = np.uint64(state) & PYR_MASK
    pk = np.uint64(tabs.pkings)
    for p in range(PYRAMID_CARDS):
        if not (pyr >> np.uint64(p)) & _ONE:
            acc[p] = FAR
            continue
        above = np.uint64(ABOVE[p]) & pyr
        kings = popcount(above & pk)
        others = popcount(above) - kings
        if (pk >> np.uint64(p)) & _ONE:
            acc[p] = kings + (others + 1) // 2 + 1
        else:
            acc[p] = kings + (others + 2) // 2
    stock = (np.uint64(state) & STOCK_MASK) >> STOCK_SHIFT
    ptr = pointer(state)
    draw = 0 if rule.stock_top else 1
    before = 0
    for i in range(ptr, STOCK_CARDS):
        if (stock >> np.uint64(i)) & _ONE:
            acc[PYRAMID_CARDS + i] = before + 1 + draw
            before += 1
        else:
            acc[PYRAMID_CARDS + i] = FAR
    turn = rule.recycles < 0 or recycles_used(state) < rule.recycles
    waste = popcount(stock & ((_ONE << np.uint64(ptr)) - _ONE))
    below = 0
    for i in range(ptr):
        if (stock >> np.uint64(i)) & _ONE:
            a = waste - below
            if turn:
                a = min(a, before + 1 + below + 1 + draw)
            acc[PYRAMID_CARDS + i] = a
            below += 1
        else:
            acc[PYRAMID_CARDS + i] = FAR


@noalloc
def slot_weight(s, tabs, obj):
    """The weight of the card in slot ``s`` when it is gone."""
    if s < PYRAMID_CARDS:
        return obj.wp[tabs.val[s]]
    return obj.ws[tabs.val[s]]


@noalloc
def removal_times(state, tabs, rule, obj, acc, weight_by_time):
    """Fill ``acc`` with every slot's access bound (``FAR``: gone) and ``weight_by_time[t]`` with
    the weight of the cards whose bound is at most ``t``."""
    access(state, tabs, rule, acc)
    for t in range(MAX_TIME + 1):
        weight_by_time[t] = 0
    for s in range(SLOTS):
        if acc[s] < FAR:
            weight_by_time[min(acc[s], MAX_TIME)] += slot_weight(s, tabs, obj)
    for t in range(1, MAX_TIME + 1):
        weight_by_time[t] += weight_by_time[t - 1]


@noalloc
def pyramid_moves(cone, tabs):
    """Moves that remove every card of ``cone`` (pyramid bits): a king alone, and a move takes
    at most one card of each value of a class ``v``, ``13 - v`` (a pair has one of each)."""
    n = popcount(cone & tabs.pkings)
    for x in range(1, 7):
        n += max(popcount(cone & tabs.vmask[x]), popcount(cone & tabs.vmask[PAIR_SUM - x]))
    return n


@noalloc
def cone_of(p, pyr):
    """Pyramid card ``p`` and the cards of ``pyr`` covering it: all must go for it to go."""
    return ((_ONE << np.uint64(p)) | np.uint64(ABOVE[p])) & pyr


@noalloc
def stock_reach(state, tabs, obj, need):
    """The first stock index (at or past the pointer) by which the stock's cards in play weigh
    ``need``, or ``NEVER`` when they never do."""
    stock = (np.uint64(state) & STOCK_MASK) >> STOCK_SHIFT
    got = 0
    for i in range(pointer(state), STOCK_CARDS):
        if (stock >> np.uint64(i)) & _ONE:
            got += obj.ws[tabs.val[PYRAMID_CARDS + i]]
            if got >= need:
                return i
    return NEVER


@noalloc
def partners_reach(state, tabs, cone):
    """The deepest stock index the partners of ``cone`` force (-1: none; ``NEVER``: there are
    too few): per class, the cards of ``cone`` of one value beyond the pyramid cards in play of
    the other need partners of their own from the waste and the stock, the waste's first (no
    card of the stock to pass), then the stock's in order."""
    pyr = np.uint64(state) & PYR_MASK
    split = _ONE << np.uint64(PYRAMID_CARDS + pointer(state))
    stock = np.uint64(state) & STOCK_MASK
    waste = stock & (split - _ONE)
    stock &= ~(split - _ONE)
    last = -1
    for v in range(1, KING):
        w = PAIR_SUM - v
        excess = popcount(cone & tabs.vmask[v]) - popcount(pyr & tabs.vmask[w])
        if excess <= 0:
            continue
        excess -= popcount(waste & tabs.sval[w])
        if excess <= 0:
            continue
        cands = stock & tabs.sval[w]
        if popcount(cands) < excess:
            return NEVER
        last = max(last, nth_bit(cands, excess - 1) - PYRAMID_CARDS)
    return last


@noalloc
def clear_moves(state, tabs, rule, cone, last, deep):
    """A lower bound on the moves that remove every card of ``cone``, stock card ``last`` (-1:
    none) and waste card ``deep`` (``NEVER``: none; the lowest of the waste cards needed): the
    pyramid moves of ``cone`` plus those that bring the cards needed within reach and remove no
    card of ``cone`` (``passing_moves``); ``FAR`` when the cone's cards cannot all find
    partners. Reaching ``last`` passes every card before it in the stock (with the stock's top
    hidden, ``last`` is drawn too). Reaching ``deep`` either takes every waste card above it
    out of the way, the cards before ``last`` besides, or passes every card of the stock, turns
    the waste (a recycle must be left) and passes the cards before ``deep`` again (with the
    stock's top hidden, ``deep`` is drawn too); the cheaper counts."""
    reach = partners_reach(state, tabs, cone)
    if reach == NEVER:
        return FAR
    last = max(last, reach)
    n = pyramid_moves(cone, tabs)
    ptr = pointer(state)
    draw = 0 if rule.stock_top else 1
    before = stock_bits(state, ptr, last) if last >= 0 else _ZERO
    lift = draw if last >= 0 else 0
    if deep >= ptr:  # no waste card needed
        return n + (passing_moves(_ZERO, before, cone, tabs, False) + lift if last >= 0 else 0)
    best = passing_moves(stock_bits(state, deep + 1, ptr), before, cone, tabs,
                         rule.stock_top) + lift
    if rule.recycles < 0 or recycles_used(state) < rule.recycles:
        # Every stock card leaves the stock before the recycle, and every card before ``deep``
        # after it: one a move, never two in a move (``deep`` holds the cards under it down
        # until the recycle).
        again = stock_bits(state, ptr, STOCK_CARDS) | stock_bits(state, 0, deep)
        best = min(best, passing_moves(_ZERO, again, cone, tabs, False) + 1 + draw)
    return n + best


@noalloc
def spread_moves(state, tabs, rule, obj, cone, need, picks, floor):
    """A lower bound on the moves that remove ``cone`` and cards weighing ``need`` more
    (``clear_moves`` of what must go; ``FAR`` when the cards in play never weigh enough).

    With at most ``MAX_PICKS`` weighted cards in play (the cards of one rank), the least over
    the sets of them that weigh enough, each with its cones and deepest stock card; when they
    are all of one value whose partners weigh nothing, each set with every choice of as many
    distinct partners (a pair takes one each). With more, the stock's cards needed after every
    pyramid and waste card is counted, the shallowest first. ``picks``: scratch, ``2 *
    MAX_PICKS`` entries. The caller takes the larger of this and ``floor``: the sets are no
    longer tried once one gives ``floor`` or less."""
    pyr = np.uint64(state) & PYR_MASK
    ptr = pointer(state)
    n = 0
    outside = 0
    value = -1
    for slot in range(SLOTS):
        w = slot_weight(slot, tabs, obj)
        if w and (np.uint64(state) >> np.uint64(slot)) & _ONE:
            if n < MAX_PICKS:
                picks[n] = slot
            n += 1
            value = tabs.val[slot] if value == -1 or value == tabs.val[slot] else 0
            if slot < PYRAMID_CARDS or slot - PYRAMID_CARDS < ptr:
                outside += w
    if need <= 0:
        return clear_moves(state, tabs, rule, cone, -1, NEVER)
    if n > MAX_PICKS:
        if need <= outside:
            return clear_moves(state, tabs, rule, cone, -1, NEVER)
        last = stock_reach(state, tabs, obj, need - outside)
        return FAR if last == NEVER else clear_moves(state, tabs, rule, cone, last, NEVER)
    mates = 0
    if 0 < value < KING and not obj.wp[PAIR_SUM - value] and not obj.ws[PAIR_SUM - value]:
        for slot in range(SLOTS):
            if tabs.val[slot] == PAIR_SUM - value and (np.uint64(state) >> np.uint64(slot)) & _ONE:
                picks[MAX_PICKS + mates] = slot
                mates += 1
    best = FAR
    for chosen in range(1, 1 << n):
        weight = 0
        size = 0
        for j in range(n):
            if (chosen >> j) & 1:
                weight += slot_weight(picks[j], tabs, obj)
                size += 1
        if weight < need:
            continue
        wide, last, deep = widen(cone, -1, NEVER, picks, 0, n, chosen, pyr, ptr)
        if pyramid_moves(wide, tabs) >= best:
            continue  # clear_moves counts these moves and more
        if not mates:
            best = min(best, clear_moves(state, tabs, rule, wide, last, deep))
            if best <= floor:
                return best
            continue
        for paired in range(1 << mates):
            if popcount(np.uint64(paired)) == size:
                both, deepest, lowest = widen(wide, last, deep, picks, MAX_PICKS, mates, paired,
                                              pyr, ptr)
                if pyramid_moves(both, tabs) < best:
                    best = min(best, clear_moves(state, tabs, rule, both, deepest, lowest))
                if best <= floor:
                    return best
    return best


@noalloc
def widen(cone, last, deep, picks, first, n, chosen, pyr, ptr):
    """``(cone, last, deep)`` with the cards ``picks[first + j]`` for each bit j of ``chosen``
    (j < ``n``): a pyramid card's cone added, a stock card's index raising ``last``, a waste
    card's lowering ``deep``."""
    for j in range(n):
        if (chosen >> j) & 1:
            slot = picks[first + j]
            if slot < PYRAMID_CARDS:
                cone |= cone_of(slot, pyr)
            elif slot - PYRAMID_CARDS >= ptr:
                last = max(last, slot - PYRAMID_CARDS)
            else:
                deep = min(deep, slot - PYRAMID_CARDS)
    return cone, last, deep


@noalloc
def moves_lower_bound(state, tabs, rule, obj, target, acc, weight_by_time, picks):
    """A lower bound on the moves from ``state`` to a value of at least ``target``; ``FAR``
    when no line reaches it (see the module docstring). ``acc``, ``weight_by_time`` and
    ``picks`` are scratch arrays (``SLOTS``, ``MAX_TIME + 1`` and ``2 * MAX_PICKS`` int64)."""
    pyr = np.uint64(state) & PYR_MASK
    cards = card_value(state, tabs, obj)
    empty = 0
    bonus = 0
    for r in range(PYRAMID_ROWS - 1, -1, -1):
        if pyr & ROW_MASKS[r]:
            break
        empty += 1
        bonus += obj.bonus[r]
    if cards + bonus >= target:
        return 0
    removal_times(state, tabs, rule, obj, acc, weight_by_time)
    val = tabs.val
    best = FAR
    rows_time = 0
    rows_kings = 0
    rows_others = 0
    present = np.uint64(state) & (PYR_MASK | STOCK_MASK)
    unchecked = _ZERO
    earns = 0
    for r in range(PYRAMID_ROWS - empty):
        earns += obj.bonus[r]
    for k in range(empty, PYRAMID_ROWS + 1):
        if k > empty:
            if not earns:
                break  # no row left earns anything: more rows only add to what must go
            r = PYRAMID_ROWS - k
            earns -= obj.bonus[r]
            row = pyr & ROW_MASKS[r]
            unchecked |= row
            if obj.bonus[r]:
                if not rows_matched(pyr & ROWS_FROM[r], unchecked, present, tabs, rule.overlap):
                    break
                unchecked = _ZERO
            while row:
                p = lowest_bit_index(row)
                row &= row - _ONE
                rows_time = max(rows_time, acc[p])
                if val[p] == KING:
                    rows_kings += 1
                else:
                    rows_others += 1
            if rows_time >= FAR:
                break
            bonus += obj.bonus[r]
        if k > empty and not obj.bonus[PYRAMID_ROWS - k]:
            continue  # a row that earns nothing only adds to what must go
        term = max(rows_time, rows_kings + (rows_others + 1) // 2)
        need = target - cards - bonus
        if need > 0:
            if weight_by_time[MAX_TIME] < need:
                continue
            t = 0
            while weight_by_time[t] < need:
                t += 1
            term = max(term, t, (need + obj.gain - 1) // obj.gain)
        if term >= best:
            continue
        cone = pyr & ROWS_FROM[PYRAMID_ROWS - k]
        best = min(best, max(term, spread_moves(state, tabs, rule, obj, cone, need, picks,
                                                 term)))
    return best
