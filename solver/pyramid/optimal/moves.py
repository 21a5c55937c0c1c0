"""The move generator of the minimum-move search (``gen_optimal``): the concrete moves of
``solver.pyramid.model.state`` less those a shortest solution never needs."""

from __future__ import annotations

import numpy as np

from solver.core.bits import popcount
from solver.core.jit import noalloc
from solver.pyramid.model.layout import PYRAMID_CARDS, STOCK_CARDS
from solver.pyramid.model.state import (AFTER_DRAW, MOVE_KING, MOVE_PAIR, NO_SLOT, PTR_MASK,
                                        PTR_SHIFT, PYR_MASK, REC_MASK, REC_SHIFT, STOCK_MASK,
                                        STOCK_SHIFT, apply_concrete, encode_move, gen_concrete,
                                        highest_bit_below, lowest_bit_index, pointer,
                                        push_draw_or_recycle, push_pyramid_pairs, push_with_card,
                                        recycles_used, stock_top, uncovered_mask, waste_top)

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_BELOW_TOP = np.int64(63)
"""``highest_bit_below(x, _BELOW_TOP)``: the highest bit of a stock mask (int64, not a literal
63: one compile of ``highest_bit_below`` with the bound's calls)."""

MAX_FORCED = 2 * (STOCK_CARDS + 1)
"""Most draws and recycles ``forced_line`` follows: a line that has not left them by then has gone
a whole cycle through the stock without a card to play (so it is dropped)."""
DROPPED = -1
"""``forced_line``'s count for a line that leads nowhere (no move at all, or a whole cycle)."""

@noalloc
def gen_optimal(state, tabs, rule, out):
    """The moves the minimum-move search tries from ``state`` (``tabs``: the deal's
    ``DealTables``, ``rule``: the ``RuleArgs``), into ``out``; returns their number.

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
    val = tabs.val
    vmask = tabs.vmask
    stock_top_on = rule.stock_top
    pyr = state & PYR_MASK
    unc = uncovered_mask(pyr)
    k = unc & tabs.pkings
    if k:
        out[0] = encode_move(MOVE_KING, lowest_bit_index(k), NO_SLOT)
        return 1
    w = waste_top(state)
    s = stock_top(state)
    m = _last_partner_pair(state, pyr, unc, tabs, w, s if stock_top_on else -1)
    if m >= 0:
        out[0] = m
        return 1
    if rule.goal_all:
        return gen_concrete(state, tabs, rule, out)
    n = 0
    if not state & AFTER_DRAW:
        n = push_pyramid_pairs(pyr, unc, tabs, rule.overlap, out, 0)
    if w >= 0:
        n = _push_card_moves(PYRAMID_CARDS + w, unc, val, vmask, out, n)
    if stock_top_on and s >= 0:
        n = _push_card_moves(PYRAMID_CARDS + s, unc, val, vmask, out, n)
        if w >= 0 and val[PYRAMID_CARDS + w] + val[PYRAMID_CARDS + s] == 13:
            out[n] = encode_move(MOVE_PAIR, PYRAMID_CARDS + w, PYRAMID_CARDS + s)
            n += 1
        if val[PYRAMID_CARDS + s] == 13:
            return n  # removing the king (offered above) beats drawing it: no draw
    return push_draw_or_recycle(state, w, s, rule.recycles, out, n)


@noalloc
def _last_partner_pair(state, pyr, unc, tabs, w, s):
    """A pair of an uncovered pyramid card with the only card in play that can pair with it,
    when that card is available (uncovered, the waste top ``w`` or the usable stock top ``s``);
    -1 when there is none."""
    val = tabs.val
    vmask = tabs.vmask
    sval = tabs.sval
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
                return encode_move(MOVE_PAIR, p, q)
        elif q - PYRAMID_CARDS == w or q - PYRAMID_CARDS == s:
            return encode_move(MOVE_PAIR, p, q)
    return -1


@noalloc
def _push_card_moves(slot, unc, val, vmask, out, n):
    """A king in stock/waste ``slot`` removed alone, or its pairs with uncovered pyramid cards."""
    v = val[slot]
    if v == 13:
        out[n] = encode_move(MOVE_KING, slot, NO_SLOT)
        return n + 1
    return push_with_card(slot, unc, vmask[13 - v], out, n)


@noalloc
def child_of(state, m, recycles):
    """``apply_concrete``, with the recycle count kept at 0 when recycles are unlimited (so the
    set of positions stays finite)."""
    child = apply_concrete(state, m)
    if recycles < 0:
        child &= ~REC_MASK
    return child


@noalloc
def forced_line(state, tabs, rule, out, n):
    """Follow the draws and recycles of ``state`` (a position just after a draw or a recycle)
    while ``gen_optimal`` offers nothing else: such a position has one way on, so the minimum-move
    search steps over it instead of storing it (a line through it costs the same).

    Just after a draw no pyramid-only move is offered, and the pyramid is the parent's, which
    offered no pyramid king and no last-partner pair of two pyramid cards (it would have offered
    that move alone, not the draw); so the only other moves use the waste top or the usable stock
    top (``_card_in_play``). The moves followed go to ``out[n:]`` (room for ``MAX_FORCED``).
    Returns ``(position reached, moves followed)``, the count ``DROPPED`` when the line leads
    nowhere (no move at all, or a whole cycle without a card to play)."""
    unc = uncovered_mask(state & PYR_MASK)
    if not _some_card_in_play(state, unc, tabs, rule):
        return state, DROPPED  # no card the line could stop at: it would only go round
    k = 0
    while True:
        w = waste_top(state)
        s = stock_top(state) if rule.stock_top else -1
        if _card_in_play(w, unc, tabs) or _card_in_play(s, unc, tabs):
            return state, k
        if w >= 0 and s >= 0 and tabs.val[PYRAMID_CARDS + w] + tabs.val[PYRAMID_CARDS + s] == 13:
            return state, k
        c = push_draw_or_recycle(state, w, stock_top(state), rule.recycles, out, n + k)
        if c == n + k:
            return state, DROPPED
        if k == MAX_FORCED - 1:
            return state, DROPPED
        state = child_of(state, out[n + k], rule.recycles)
        k += 1


@noalloc
def forced_jump(state, tabs, rule, scratch):
    """``forced_line(state, tabs, rule, scratch, 0)`` without recording the moves: the position
    reached and the number of moves, or ``DROPPED``. With the stock top hidden (the default
    rules) the end of the line is found in a few bit operations instead of one draw at a time;
    with the stock top available one draw at a time (``_forced_jump_top``), as ``forced_line``
    but on the in-play stock bits alone (``scratch`` is then unused).

    Stock top hidden: only the waste top can stop the line, and it stops at the first card that
    is a king or pairs with an uncovered pyramid card (a *playable* card; the pyramid does not
    change along the line). The waste top itself may be one (no move); else the first playable
    card of the stock, reached by one draw per in-play stock card down to it; else, with a
    recycle left, every stock card drawn, a recycle, and one draw per in-play card down to the
    first playable one. No playable card in play at all: ``DROPPED``, as ``forced_line``."""
    stock = (state & STOCK_MASK) >> STOCK_SHIFT
    unc = uncovered_mask(state & PYR_MASK)
    play = tabs.skings >> STOCK_SHIFT
    for v in range(1, 13):
        if unc & tabs.vmask[13 - v]:
            play |= tabs.sval[v] >> STOCK_SHIFT
    play &= stock
    if rule.stock_top:
        return _forced_jump_top(state, stock, play, tabs, rule)
    if play == _ZERO:
        return state, DROPPED
    p = np.uint64(pointer(state))
    if p > _ZERO and (play >> (p - _ONE)) & _ONE:
        return state, np.int64(0)  # the waste top is playable
    region = stock & ~((_ONE << p) - _ONE)  # the in-play cards still in the stock
    hit = play & region
    k = np.int64(0)
    if hit == _ZERO:  # through the stock, a recycle, then from the bottom of the new stock
        if not (rule.recycles < 0 or recycles_used(state) < rule.recycles):
            return state, DROPPED
        k = popcount(region) + 1
        if rule.recycles >= 0 and (state & REC_MASK) != REC_MASK:
            state += _ONE << REC_SHIFT
        region = stock
        hit = play
    c = np.uint64(lowest_bit_index(hit))
    k += popcount(region & ((_ONE << (c + _ONE)) - _ONE))
    if k > MAX_FORCED - 1:
        return state, DROPPED
    return (state & ~PTR_MASK) | ((c + _ONE) << PTR_SHIFT) | AFTER_DRAW, k


@noalloc
def _forced_jump_top(state, stock, play, tabs, rule):
    """``forced_jump`` with the stock top available: ``stock`` holds the in-play stock and waste
    cards (bit i: stock card i), ``play`` those of them that are kings or pair with an uncovered
    pyramid card. The line stops where the waste top or the stock top is in ``play`` or the two
    make 13; else it draws (the pointer past the stock top), or with the stock empty recycles
    while a recycle is left (the count saturating as in ``apply_concrete``, and kept at 0 under
    unlimited recycles as in ``child_of``), one move each; ``DROPPED`` as ``forced_line``: no
    card that could ever stop it, no move, or more than ``MAX_FORCED - 1`` moves.

    Measured: ``forced_line`` took 13-18% of the ``msc`` minimum-move search's time; on the lines
    after the draws and recycles of random ``msc`` play (seeds 0..19) a line costs 82-108 ns this
    way against 403-523 ns (120-148 against 1,205-1,343 under unlimited recycles), the same
    positions and counts."""
    val = tabs.val
    if play == _ZERO:
        some = False  # two cards of partner values could still meet as waste top and stock top
        for v in range(1, 7):
            if stock & (tabs.sval[v] >> STOCK_SHIFT) and stock & (tabs.sval[13 - v] >> STOCK_SHIFT):
                some = True
        if not some:
            return state, DROPPED
    p = np.uint64(pointer(state))
    k = np.int64(0)
    while True:
        below = (_ONE << p) - _ONE
        waste = stock & below
        region = stock & ~below
        w = highest_bit_below(waste, _BELOW_TOP)  # -1 for none
        t = lowest_bit_index(region) if region else -1
        if (w >= 0 and (play >> np.uint64(w)) & _ONE) or (t >= 0 and (play >> np.uint64(t)) & _ONE):
            return state, k
        if w >= 0 and t >= 0 and val[PYRAMID_CARDS + w] + val[PYRAMID_CARDS + t] == 13:
            return state, k
        if t >= 0:
            if k == MAX_FORCED - 1:
                return state, DROPPED
            p = np.uint64(t + 1)
            state = (state & ~PTR_MASK) | (p << PTR_SHIFT) | AFTER_DRAW
        elif w >= 0 and (rule.recycles < 0 or recycles_used(state) < rule.recycles):
            if k == MAX_FORCED - 1:
                return state, DROPPED
            if (state & REC_MASK) != REC_MASK:
                state += _ONE << REC_SHIFT
            p = _ZERO
            state = (state & ~PTR_MASK) | AFTER_DRAW
        else:
            return state, DROPPED
        if rule.recycles < 0:
            state &= ~REC_MASK
        k += 1


@noalloc
def _card_in_play(i, unc, tabs):
    """True when stock card ``i`` (-1: none) is a king or pairs with an uncovered pyramid card."""
    if i < 0:
        return False
    v = tabs.val[PYRAMID_CARDS + i]
    return v == 13 or (unc & tabs.vmask[13 - v]) != _ZERO


@noalloc
def _some_card_in_play(state, unc, tabs, rule):
    """False when no stock or waste card in play could ever stop a forced line: none is a king
    or pairs with an uncovered pyramid card, and (stock top shown) none has a partner value among
    the stock and waste cards (two of them could meet as waste top and stock top)."""
    stock = state & STOCK_MASK
    if stock & tabs.skings:
        return True
    for v in range(1, 13):
        cards = stock & tabs.sval[v]
        if cards and ((unc & tabs.vmask[13 - v]) or (rule.stock_top and stock & tabs.sval[13 - v])):
            return True
    return False
