"""Numba kernels of the minimum-move search (``solver.pyramid.optimal.api`` drives them).

The search is A* over the concrete packed positions of ``solver.pyramid.state`` (bit 63 included, so the
partial-order reduction of ``gen_concrete`` applies), with

* a *bucket queue*: one LIFO list per f-value and bound value (``head[f, h]``; among the positions
  of the lowest f the one with the lowest h, i.e. the most moves made, comes first, which reaches
  the goal layer soonest; h above ``H_BUCKETS - 1`` shares the last list), its entries in two int32 arrays
  (``e_node``, ``e_next``) with a free list, so memory follows the open list, not the pushes;
* a *node store*: ``keys`` (uint64 packed position), ``parent`` (int32 node id of the parent) and
  ``gs`` (uint16 moves from the start, bit 15 = expanded), indexed by insertion order, and an
  open-addressing ``index`` (int32 node ids, -1 = empty, kept at most 3/4 full) that maps a packed
  position to its node. The kernel never allocates: when an array is about to be too small it
  returns a ``GROW_*`` status and the Python driver enlarges it and calls again. It also returns
  ``PAUSED`` after ``budget`` expansions, so the driver can check the clock (numba has no clock);
* the admissible, consistent bound ``bound`` (see its docstring) and the dead-card pruning of
  ``solver.pyramid.winnable`` (a position with a card that can never be removed has no solution);
* the move generator ``gen_optimal``, which leaves out moves that a shortest solution never
  needs (see its docstring);
* an optional upper bound ``regs[R_UB]`` (the length of a known solution): positions whose
  f-value exceeds it are not stored.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.core.cards import RANK_OF
from solver.pyramid.layout import ABOVE, BELOW, COVER_MASK, DIRECT, PYRAMID_CARDS
from solver.core.rng import mix64
from solver.pyramid.winnable import _dead, _dead_after
from solver.pyramid.state import (
    AFTER_DRAW,
    KING,
    MAX_MOVES,
    NO_SLOT,
    PAIR,
    PYR_MASK,
    REC_MASK,
    STOCK_MASK,
    STOCK_SHIFT,
    _push_pyramid_pairs,
    _push_with_card,
    _tables_kernel,
    apply_concrete,
    encode_move,
    gen_concrete,
    highest_bit_below,
    is_won,
    lowest_bit_index,
    move_a,
    move_b,
    pointer,
    recycles_used,
    stock_top,
    uncovered_mask,
    waste_top,
    push_draw_or_recycle,
)

CLOSED = 0x8000
"""Bit 15 of ``gs[i]``: node ``i`` has been expanded (its g-value is final)."""
G_MASK = 0x7FFF

# Indices into the int64 ``regs`` array the kernel keeps its scalars in between calls.
R_STATUS, R_F, R_NODES, R_EXPANDED, R_FREE, R_BUMP, R_NFREE, R_GOAL_PARENT, R_GOAL_MOVE, \
    R_GOAL_LEN, R_UB, R_STARTED, R_INCOMPLETE, R_H0, R_HMIN = range(15)
N_REGS = 16

# Status codes returned by ``astar_run``.
WON, EXHAUSTED, PAUSED, LIMIT, GROW_NODES, GROW_INDEX, GROW_ENTRIES = range(7)

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@njit(cache=True)
def popcount(x):
    """Number of set bits of a uint64 (SWAR; LLVM turns it into one instruction)."""
    x = np.uint64(x)
    x = x - ((x >> _ONE) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


CLASS_SLOTS = 8
"""A value class {v, 13-v} (v = 1..6) has at most 4 + 4 pyramid cards: slots 0..3 hold the
positions of its v cards, 4..7 those of its 13-v cards (-1 when fewer)."""


def _pyramid_configs() -> np.ndarray:
    """Every pyramid mask that play can reach (a card goes only once the cards covering it are
    gone, so the cards left always include everything below a card left): 1430 of them (the
    Catalan number C(8)), fewest cards first."""
    full = (1 << PYRAMID_CARDS) - 1
    seen = {full}
    todo = [full]
    while todo:
        m = todo.pop()
        for p in range(PYRAMID_CARDS):
            if m >> p & 1 and not m & int(COVER_MASK[p]):
                n = m & ~(1 << p)
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
    return np.array(sorted(seen, key=lambda m: (bin(m).count("1"), m)), dtype=np.int64)


CONFIGS = _pyramid_configs()
N_CONFIGS = len(CONFIGS)
_CFG_BITS = 12
_CFG_SHIFT = np.uint64(64 - _CFG_BITS)
_CFG_MUL = np.uint64(0x9E3779B97F4A7C15)


def _config_index() -> tuple[np.ndarray, np.ndarray]:
    """Open-addressing table (4096 slots) from a pyramid mask to its index in ``CONFIGS``."""
    key = np.full(1 << _CFG_BITS, -1, dtype=np.int64)
    ident = np.zeros(1 << _CFG_BITS, dtype=np.int64)
    mask = (1 << _CFG_BITS) - 1
    for i, m in enumerate(CONFIGS):
        j = ((int(m) * int(_CFG_MUL)) & 0xFFFFFFFFFFFFFFFF) >> int(_CFG_SHIFT)
        while key[j] >= 0:
            j = (j + 1) & mask
        key[j] = m
        ident[j] = i
    return key, ident


CFG_KEY, CFG_ID = _config_index()


@njit(cache=True)
def config_id(pyr):
    """Index in ``CONFIGS`` of the pyramid mask ``pyr``, or -1 when play cannot reach it (a mask
    made up by hand, with a card left whose covered cards are gone)."""
    m = np.int64(pyr)
    j = np.int64((np.uint64(m) * _CFG_MUL) >> _CFG_SHIFT)
    while True:
        k = CFG_KEY[j]
        if k == m:
            return CFG_ID[j]
        if k < 0:
            return -1
        j = (j + 1) & ((1 << _CFG_BITS) - 1)


PYR_INF = 1000
"""``pyramid_moves`` of a pyramid that can never be cleared, even with every stock card at hand."""


@njit(cache=True)
def pyramid_moves(deal, overlap):
    """For each pyramid mask of ``CONFIGS``: the fewest moves that remove pyramid cards needed to
    clear it, in a relaxed game where every stock card of the deal is always at hand (so any
    uncovered card whose partner value is among the deal's 24 stock cards can go on its own).

    Every real move that removes pyramid cards (a pair of uncovered cards, an overlap pair, a
    king, a pair with a stock or waste card) is a move of the relaxed game, so this never
    exceeds the real count, and one real move lowers it by at most one. Unlike the per-class
    matching of ``class_tables`` it knows the order in which covering forces the cards out.
    A pyramid that cannot be cleared even so gets ``PYR_INF``."""
    val, pmates, _reach, sval, _vmask, _pkings, _skings = _tables_kernel(deal)
    dp = np.full(N_CONFIGS, PYR_INF, dtype=np.int64)
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    dp[0] = 0  # CONFIGS[0] is the empty pyramid
    for k in range(1, N_CONFIGS):
        m = np.uint64(CONFIGS[k])
        unc = uncovered_mask(m)
        best = PYR_INF
        u = unc
        while u:  # one card alone: a king, or with a stock card
            p = lowest_bit_index(u)
            u &= u - _ONE
            if val[p] == 13 or sval[13 - val[p]]:
                best = min(best, 1 + dp[config_id(m & ~(_ONE << np.uint64(p)))])
        n = _push_pyramid_pairs(m, unc, val, pmates, moves, 0, overlap)
        for q in range(n):
            two = m & ~(_ONE << np.uint64(move_a(moves[q]))) & ~(_ONE << np.uint64(move_b(moves[q])))
            best = min(best, 1 + dp[config_id(two)])
        dp[k] = min(best, PYR_INF)
    return dp


@njit(cache=True)
def class_tables(deal, overlap):
    """Per-deal tables of the pyramid part of ``bound``, for each class c (v = c + 1) and each
    subset ``x`` (8 bits, one per class slot) of its pyramid cards still present:

    * ``cpos[c, k]``: the pyramid position of class slot ``k`` (-1 when empty);
    * ``cmoves[c, x]``: moves the class still needs at least, ``#v + #w - M`` where ``M`` is the
      largest number of disjoint v/w pairs of present pyramid cards that can ever meet (neither
      covers the other, or, with overlap pairs, one covers the other directly): every other
      pyramid card of the class needs a move with a stock or waste card;
    * ``cneed[c, x, 0]``: stock/waste cards of value 13-v needed at least (``#v - M``), and
      ``cneed[c, x, 1]`` those of value v (``#w - M``);
    * ``csub``: lookup tables giving the six subsets of a pyramid mask at once (``_subsets``);
    * ``cdp``: ``pyramid_moves`` by pyramid mask (index ``config_id``).
    """
    val = np.empty(PYRAMID_CARDS, dtype=np.int64)
    for p in range(PYRAMID_CARDS):
        val[p] = RANK_OF[deal[p]]
    cpos = np.full((6, CLASS_SLOTS), -1, dtype=np.int64)
    for c in range(6):
        nv = 0
        nw = 0
        for p in range(PYRAMID_CARDS):
            if val[p] == c + 1:
                cpos[c, nv] = p
                nv += 1
            elif val[p] == 12 - c:
                cpos[c, 4 + nw] = p
                nw += 1
    cmoves = np.zeros((6, 256), dtype=np.int64)
    cneed = np.zeros((6, 256, 2), dtype=np.int64)
    match = np.zeros(256, dtype=np.int64)
    for c in range(6):
        # adj[a]: bit b set when v card a and w card b can ever be paired
        adj = np.zeros(4, dtype=np.int64)
        for a in range(4):
            pa = cpos[c, a]
            if pa < 0:
                continue
            for b in range(4):
                pb = cpos[c, 4 + b]
                if pb < 0:
                    continue
                apart = not ((BELOW[pa] >> pb) & 1) and not ((ABOVE[pa] >> pb) & 1)
                direct = (DIRECT[pa] >> pb) & 1
                if apart or (overlap and direct):
                    adj[a] |= 1 << b
        # match[x]: largest matching within subset x, from smaller subsets: the lowest v card
        # of x is either left unmatched or matched to one of its w cards in x
        for x in range(256):
            if x & 0xF == 0:
                match[x] = 0
            else:
                a = 0
                while not (x >> a) & 1:
                    a += 1
                rest = x & ~(1 << a)
                best = match[rest]
                for b in range(4):
                    if (adj[a] >> b) & 1 and (x >> (4 + b)) & 1:
                        best = max(best, 1 + match[rest & ~(1 << (4 + b))])
                match[x] = best
            nv = popcount(x & 0xF)
            nw = popcount(x >> 4)
            cmoves[c, x] = nv + nw - match[x]
            cneed[c, x, 0] = nv - match[x]
            cneed[c, x, 1] = nw - match[x]
    # csub[k, b]: the class subsets (8 bits per class, class c at bits 8c) of the pyramid cards
    # at positions 7k .. 7k+6 given by the 7 bits b; OR-ing four lookups gives all six subsets
    csub = np.zeros((4, 128), dtype=np.int64)
    for c in range(6):
        for k in range(CLASS_SLOTS):
            p = cpos[c, k]
            if p < 0:
                continue
            for b in range(128):
                if (b >> (p % 7)) & 1:
                    csub[p // 7, b] |= np.int64(1) << (8 * c + k)
    return cpos, cmoves, cneed, csub, pyramid_moves(deal, overlap)


@njit(cache=True)
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


@njit(cache=True)
def _nibble(word, t):
    """The 4-bit count of value ``t`` in a word of 14 such counts (value t at bits 4t..4t+3)."""
    return (word >> (4 * t)) & 15


@njit(cache=True)
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


@njit(cache=True)
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
        i = highest_bit_below(y, 63)
        y &= ~(_ONE << np.uint64(i))
        scr[_COST + i] = min(scr[_COST + i], total)
        scr[_PLAIN + i] = min(scr[_PLAIN + i], plain)
        t = val[PYRAMID_CARDS + i]
        if hidden and t != 13 and _nibble(cnt, t) >= _nibble(cap, t):
            break  # no pyramid card left to pair it with, and the stock top is hidden: stuck
        cnt, d, dp = _add_card(cnt, need, cap, t)
        total += d
        plain += dp


@njit(cache=True)
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


@njit(cache=True)
def bound(state, cpos, cmoves, cneed, csub, cdp, val, vmask, sval, pkings, skings, draw_term, goal_all,
          recycles, scr):
    """Admissible and consistent lower bound on the moves still needed to win from ``state``.

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
    pyr = state & PYR_MASK
    stock = state & STOCK_MASK
    ptr = np.uint64(pointer(state))
    waste = stock & (((_ONE << ptr) - _ONE) << STOCK_SHIFT)
    region = stock & ~waste
    h = popcount(pyr & pkings)
    if goal_all:
        h += popcount(stock & skings)
        if draw_term:
            h += popcount(region)
    subsets = _subsets(pyr, csub)
    needed = 0
    needw = np.int64(0)
    for c in range(6):
        x = (subsets >> (8 * c)) & 255
        scr[_CLS + c] = x
        moves = cmoves[c, x]
        if goal_all:
            v = c + 1
            tv = popcount(pyr & _values_mask(cpos, c, 0, x)) + popcount(stock & sval[v])
            tw = popcount(pyr & _values_mask(cpos, c, 4, x)) + popcount(stock & sval[13 - v])
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
    can_turn = recycles < 0 or recycles_used(state) < recycles
    _stock_costs(waste, region, pyr, vmask, val, draw_term, can_turn, needw, scr)
    depth = 0
    plain = 0
    for c in range(6):
        x = scr[_CLS + c]
        for side in range(2):
            need = cneed[c, x, side]
            if need > 0:
                u = 12 - c if side == 0 else c + 1
                depth = max(depth, _stock_moves(u, need, stock, sval, scr, _COST))
                if hdp > h:
                    plain = max(plain, _stock_moves(u, need, stock, sval, scr, _PLAIN))
    return max(h + min(depth, FAR_BOUND), hdp + min(plain, FAR_BOUND))


@njit(cache=True)
def _values_mask(cpos, c, first, x):
    """Pyramid bits of the present class cards in slots ``first .. first+3``."""
    m = _ZERO
    for k in range(first, first + 4):
        if (x >> k) & 1:
            m |= _ONE << np.uint64(cpos[c, k])
    return m


@njit(cache=True)
def gen_optimal(state, val, pmates, vmask, sval, pkings, recycles, overlap, stock_top_on, goal_all,
                out):
    """The moves the minimum-move search tries from ``state``, into ``out``; returns their number.

    Goal "all": ``gen_concrete`` as it is (every king in play must go some time, and removing one
    as soon as it is available never lengthens a solution). Goal "pyramid": the same, except that a
    king on the waste or the stock top is only *offered*, never forced: it need not be removed at
    all, and removing it costs a move that a shortest solution may not spend (drawing over it can
    be better). An uncovered pyramid king is still removed alone: it must go, it covers nothing
    that its removal could hide, and removing it earlier keeps every later move legal.

    With the stock top available, a king on the stock top is never drawn: removing it costs the
    same one move and leaves a position at least as good (whatever follows the draw works without
    the king, minus the moves that drew it again or removed it).

    Both goals: a *last partner* pair is also played alone: an uncovered pyramid card whose
    value's partners in play (pyramid, stock and waste) come down to one card, available now.
    Every win removes that pair together some time, and removing two cards earlier keeps every
    later move legal (a waste or stock card gone only skips the draws that would have passed it).
    """
    pyr = state & PYR_MASK
    unc = uncovered_mask(pyr)
    k = unc & pkings
    if k:
        out[0] = encode_move(KING, lowest_bit_index(k), NO_SLOT)
        return 1
    w = waste_top(state)
    s = stock_top(state)
    m = _last_partner_pair(state, pyr, unc, val, vmask, sval, w, s if stock_top_on else -1)
    if m >= 0:
        out[0] = m
        return 1
    if goal_all:
        return gen_concrete(state, val, pmates, vmask, pkings, recycles, overlap, stock_top_on, out)
    n = 0
    if not state & AFTER_DRAW:
        n = _push_pyramid_pairs(pyr, unc, val, pmates, out, 0, overlap)
    if w >= 0:
        n = _push_card_moves(PYRAMID_CARDS + w, unc, val, vmask, out, n)
    if stock_top_on and s >= 0:
        n = _push_card_moves(PYRAMID_CARDS + s, unc, val, vmask, out, n)
        if w >= 0 and val[PYRAMID_CARDS + w] + val[PYRAMID_CARDS + s] == 13:
            out[n] = encode_move(PAIR, PYRAMID_CARDS + w, PYRAMID_CARDS + s)
            n += 1
        if val[PYRAMID_CARDS + s] == 13:
            return n  # removing the king (offered above) beats drawing it: no draw
    return push_draw_or_recycle(state, w, s, recycles, out, n)


@njit(cache=True)
def _last_partner_pair(state, pyr, unc, val, vmask, sval, w, s):
    """A pair of an uncovered pyramid card with the only card in play that can pair with it,
    when that card is available (uncovered, the waste top ``w`` or the usable stock top ``s``);
    -1 when there is none."""
    stock = state & STOCK_MASK
    u = unc
    while u:
        p = lowest_bit_index(u)
        u &= u - _ONE
        v = val[p]
        if v == 13:
            continue
        mates = (pyr & vmask[13 - v]) | (stock & sval[13 - v])
        if mates == _ZERO or mates & (mates - _ONE):
            continue
        q = lowest_bit_index(mates)
        if q < PYRAMID_CARDS:
            if unc & mates:
                return encode_move(PAIR, p, q)
        elif q - PYRAMID_CARDS == w or q - PYRAMID_CARDS == s:
            return encode_move(PAIR, p, q)
    return -1


@njit(cache=True)
def _push_card_moves(slot, unc, val, vmask, out, n):
    """A king in stock/waste ``slot`` removed alone, or its pairs with uncovered pyramid cards."""
    v = val[slot]
    if v == 13:
        out[n] = encode_move(KING, slot, NO_SLOT)
        return n + 1
    return _push_with_card(slot, unc, val, vmask[13 - v], out, n)


@njit(cache=True)
def child_of(state, m, recycles):
    """``apply_concrete``, with the recycle count kept at 0 when recycles are unlimited (so the
    set of positions stays finite)."""
    child = apply_concrete(state, m)
    if recycles < 0:
        child &= ~REC_MASK
    return child


@njit(cache=True)
def _find(index, keys, key):
    """Node id of ``key``, or ``-1 - slot`` of the empty slot where it would go."""
    mask = np.uint64(len(index) - 1)
    i = mix64(key) & mask
    while True:
        j = index[i]
        if j < 0:
            return -1 - np.int64(i)
        if keys[j] == key:
            return np.int64(j)
        i = (i + _ONE) & mask


@njit(cache=True)
def rehash(index, keys, n_nodes):
    """Fill the (all -1) ``index`` with the first ``n_nodes`` node ids."""
    for j in range(n_nodes):
        slot = _find(index, keys, keys[j])
        index[-1 - slot] = j


@njit(cache=True)
def _push(head, e_node, e_next, regs, f, h, node):
    if regs[R_FREE] >= 0:
        e = regs[R_FREE]
        regs[R_FREE] = e_next[e]
        regs[R_NFREE] -= 1
    else:
        e = regs[R_BUMP]
        regs[R_BUMP] += 1
    h = min(h, head.shape[1] - 1)
    e_node[e] = node
    e_next[e] = head[f, h]
    head[f, h] = e
    if f == regs[R_F] and h < regs[R_HMIN]:
        regs[R_HMIN] = h


@njit(cache=True)
def astar_run(deal, cpos, cmoves, cneed, csub, cdp, start, recycles, overlap, stock_top_on, goal_all,
              max_states, budget, keys, parent, gs, index, e_node, e_next, head, regs):
    """Run the A* search for at most ``budget`` expansions; returns a status code (the module
    docstring lists them). ``regs`` holds the search's scalars between calls (all zero but
    ``R_UB``, ``R_FREE`` = -1 at the first call). On ``WON`` the goal was reached by move
    ``regs[R_GOAL_MOVE]`` from node ``regs[R_GOAL_PARENT]`` in ``regs[R_GOAL_LEN]`` moves."""
    val, pmates, reach, sval, vmask, pkings, skings = _tables_kernel(deal)
    draw_term = not stock_top_on
    scr = np.zeros(SCRATCH, dtype=np.int64)
    nh = head.shape[0]
    hb = head.shape[1]
    if regs[R_STARTED] == 0:
        regs[R_STARTED] = 1
        if recycles < 0:
            start &= ~REC_MASK
        h0 = bound(start, cpos, cmoves, cneed, csub, cdp, val, vmask, sval, pkings, skings, draw_term,
                   goal_all, recycles, scr)
        regs[R_H0] = h0
        regs[R_F] = h0
        if is_won(start, goal_all):
            regs[R_GOAL_PARENT] = -1
            regs[R_GOAL_LEN] = 0
            return WON
        if _dead(start, val, reach, sval, vmask, stock_top_on, goal_all) or h0 >= FAR_BOUND \
                or h0 > regs[R_UB]:
            return EXHAUSTED
        slot = _find(index, keys, start)
        index[-1 - slot] = 0
        keys[0] = start
        parent[0] = -1
        gs[0] = 0
        regs[R_NODES] = 1
        if h0 >= nh:
            regs[R_INCOMPLETE] = 1
            return EXHAUSTED
        regs[R_HMIN] = 0
        _push(head, e_node, e_next, regs, h0, h0, 0)
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    done = 0
    while True:
        if done >= budget:
            return PAUSED
        if max_states > 0 and regs[R_EXPANDED] >= max_states:
            return LIMIT
        if regs[R_NODES] + MAX_MOVES > len(keys):
            return GROW_NODES
        if 4 * (regs[R_NODES] + MAX_MOVES) > 3 * len(index):
            return GROW_INDEX
        if regs[R_BUMP] + max(0, MAX_MOVES - regs[R_NFREE]) > len(e_node):
            return GROW_ENTRIES
        f = regs[R_F]
        hm = regs[R_HMIN]
        while f < nh:
            while hm < hb and head[f, hm] < 0:
                hm += 1
            if hm < hb:
                break
            f += 1
            hm = 0
        if regs[R_GOAL_LEN] > 0 and f >= regs[R_GOAL_LEN]:
            return WON  # no open position can lead to a shorter win than the one found
        if f >= nh:
            return EXHAUSTED
        regs[R_F] = f
        regs[R_HMIN] = hm
        e = head[f, hm]
        head[f, hm] = e_next[e]
        e_next[e] = regs[R_FREE]
        regs[R_FREE] = e
        regs[R_NFREE] += 1
        i = e_node[e]
        g = np.int64(gs[i])
        if g & CLOSED:
            continue
        gs[i] = g | CLOSED
        state = keys[i]
        regs[R_EXPANDED] += 1
        done += 1
        g1 = g + 1
        if g1 > G_MASK:
            regs[R_INCOMPLETE] = 1
            continue
        n = gen_optimal(state, val, pmates, vmask, sval, pkings, recycles, overlap, stock_top_on,
                        goal_all, moves)
        # pushed in reverse so that the first generated move is popped first (LIFO buckets)
        for k in range(n - 1, -1, -1):
            m = moves[k]
            child = child_of(state, m, recycles)
            if is_won(child, goal_all):
                if regs[R_GOAL_LEN] == 0 or g1 < regs[R_GOAL_LEN]:
                    regs[R_GOAL_LEN] = g1
                    regs[R_GOAL_PARENT] = i
                    regs[R_GOAL_MOVE] = m
                    regs[R_UB] = min(regs[R_UB], g1 - 1)
                continue
            if _dead_after(child, m, val, reach, sval, vmask, stock_top_on, goal_all):
                continue
            j = _find(index, keys, child)
            if j >= 0:
                gj = np.int64(gs[j])
                if gj & CLOSED or gj <= g1:
                    continue
            hj = bound(child, cpos, cmoves, cneed, csub, cdp, val, vmask, sval, pkings, skings, draw_term,
                       goal_all, recycles, scr)
            if hj >= FAR_BOUND:
                continue  # some card that must be used can no longer be reached: lost
            f1 = g1 + hj
            if f1 > regs[R_UB]:
                continue
            if f1 >= nh:
                regs[R_INCOMPLETE] = 1
                continue
            if j < 0:
                slot = -1 - j  # the empty slot the lookup stopped at
                j = regs[R_NODES]
                index[slot] = j
                keys[j] = child
                regs[R_NODES] += 1
            parent[j] = i
            gs[j] = g1
            _push(head, e_node, e_next, regs, f1, hj, j)
        if regs[R_GOAL_LEN] == g1 and g1 <= f:
            return WON


@njit(cache=True)
def trace(deal, recycles, overlap, stock_top_on, goal_all, keys, parent, goal_parent, goal_move,
          out):
    """The moves from the start to the goal, into ``out``; returns their number. Each move is
    found again by generating the parent's moves and matching the child's packed position."""
    val, pmates, _reach, sval, vmask, pkings, _skings = _tables_kernel(deal)
    chain = np.empty(len(out), dtype=np.int64)
    n = 0
    i = goal_parent
    while i >= 0:
        chain[n] = i
        n += 1
        i = parent[i]
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    length = 0
    for k in range(n - 1, 0, -1):
        s = keys[chain[k]]
        target = keys[chain[k - 1]]
        c = gen_optimal(s, val, pmates, vmask, sval, pkings, recycles, overlap, stock_top_on,
                        goal_all, moves)
        out[length] = -1
        for q in range(c):
            if child_of(s, moves[q], recycles) == target:
                out[length] = moves[q]
                break
        length += 1
    if goal_parent >= 0:
        out[length] = goal_move
        length += 1
    return length


@njit(cache=True)
def start_bound(deal, cpos, cmoves, cneed, csub, cdp, start, recycles, stock_top_on, goal_all):
    """``bound`` of the packed position ``start`` (for reporting without a search)."""
    val, _pmates, _reach, sval, vmask, pkings, skings = _tables_kernel(deal)
    scr = np.zeros(SCRATCH, dtype=np.int64)
    return bound(start, cpos, cmoves, cneed, csub, cdp, val, vmask, sval, pkings, skings, not stock_top_on,
                 goal_all, recycles, scr)
