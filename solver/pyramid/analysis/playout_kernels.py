"""Numba kernels of the Pyramid playouts: the full legal-move generator and the two players.

The rules of play are in the docstring of ``solver.pyramid.analysis.playouts`` (the public side). These
kernels work on the packed positions and move ints of ``solver.pyramid.model.state``. Unlike
``state.gen_concrete`` (which prunes: a king comes alone, no pyramid-only move straight after a
draw), ``gen_legal`` lists *every* legal move, in exactly the order of
``replay.Position.legal_steps``; ``tests/pyramid/test_playouts.py`` checks that on thousands of
positions of every rule combination, so a player drawing the ``k``-th move here plays the same
move as a plain-Python player drawing the ``k``-th step there.
"""

from __future__ import annotations

import numpy as np

from solver.core.jit import kernel
from solver.core.rng import below, stream_seed
from solver.pyramid.model.layout import COVERED_BY, PYRAMID_CARDS, PYRAMID_ROWS, ROW_OF
from solver.pyramid.model.state import (MAX_MOVES, MOVE_DRAW, MOVE_KING, MOVE_PAIR, MOVE_RECYCLE,
                                  NO_SLOT, PYR_MASK, REC_MASK, ROW_MASKS, apply_concrete,
                                  deal_tables, encode_move, is_won, lowest_bit_index, move_a,
                                  move_b, move_kind, recycles_used, stock_top, waste_top)

PLAYER_RANDOM, PLAYER_GREEDY = 0, 1
"""Player codes of the kernels (the names are ``playouts.PLAYERS``, in this order)."""
PLAYER_COUNT = 2
KING_BONUS = 8
"""Greedy score of a king: above any pair's (a pair scores at most ``PYRAMID_ROWS`` = 7)."""

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@kernel
def push_pair(a, b, out, n):
    out[n] = encode_move(MOVE_PAIR, a, b)
    return n + 1


@kernel
def uncovered_and_overlap(pyr, overlap):
    """``(unc, left, right)`` of the pyramid bits ``pyr``, row by row from the bottom (row
    shifts, as in ``state.uncovered_mask``, which gives the same ``unc``): ``unc`` the present
    cards no present card covers; with ``overlap``, ``left`` the present cards whose left cover
    is uncovered and right cover gone (they can form an overlap pair with the left cover),
    ``right`` the mirror image (a card is in at most one of them; both 0 without ``overlap``)."""
    unc = pyr & ROW_MASKS[PYRAMID_ROWS - 1]
    left = _ZERO
    right = _ZERO
    for r in range(PYRAMID_ROWS - 2, -1, -1):
        shift_l = np.uint64(r + 1)
        shift_r = np.uint64(r + 2)
        row = ROW_MASKS[r]
        nxt = pyr & ROW_MASKS[r + 1]
        cov_l = (nxt >> shift_l) & row
        cov_r = (nxt >> shift_r) & row
        if overlap:
            nxt_unc = unc & ROW_MASKS[r + 1]
            left |= (nxt_unc >> shift_l) & ~cov_r & row
            right |= (nxt_unc >> shift_r) & ~cov_l & row
        unc |= pyr & row & ~(cov_l | cov_r)
    return unc, left & pyr, right & pyr


@kernel
def gen_legal(state, tabs, rule, out):
    """Every legal move of ``state`` into ``out``, in ``Position.legal_steps`` order; returns the
    count (0 once the position is won, or when no move is left).

    Order: pairs of available cards (available = uncovered pyramid cards by position, then the
    waste top, then the stock top when ``rule.stock_top``; pair ``(x, y)`` for each ``x`` before
    ``y`` in that list), overlap pairs (covered card by position, its left cover before its
    right), kings (in the available order), then a draw or else a recycle.
    """
    unc, left, right = uncovered_and_overlap(state & PYR_MASK, rule.overlap)
    return gen_with_masks(state, unc, left, right, tabs, rule, out)


@kernel
def gen_with_masks(state, unc, left, right, tabs, rule, out):
    """``gen_legal`` given ``uncovered_and_overlap`` of the state's pyramid (a draw or a recycle
    leaves the pyramid, hence these masks, as they were)."""
    if is_won(state, rule.goal_all):
        return 0
    val = tabs.val
    w = waste_top(state)
    s_real = stock_top(state)
    s = s_real if rule.stock_top else -1
    ws = PYRAMID_CARDS + w
    ss = PYRAMID_CARDS + s
    # uncovered pyramid cards pairing with the waste top / the stock top (vmask[0] = 0: a king)
    w_mates = unc & tabs.vmask[13 - val[ws]] if w >= 0 else _ZERO
    s_mates = unc & tabs.vmask[13 - val[ss]] if s >= 0 else _ZERO
    n = 0
    u = unc
    while u:
        p = lowest_bit_index(u)
        u &= u - _ONE
        mates = tabs.pmates[p] & u
        while mates:
            q = lowest_bit_index(mates)
            mates &= mates - _ONE
            n = push_pair(p, q, out, n)
        bit = _ONE << np.uint64(p)
        if w_mates & bit:
            n = push_pair(p, ws, out, n)
        if s_mates & bit:
            n = push_pair(p, ss, out, n)
    if w >= 0 and s >= 0 and val[ws] + val[ss] == 13:
        n = push_pair(ws, ss, out, n)
    if rule.overlap:
        cand = left | right
        while cand:
            p = lowest_bit_index(cand)
            cand &= cand - _ONE
            c = COVERED_BY[p, 0] if (left >> np.uint64(p)) & _ONE else COVERED_BY[p, 1]
            if val[p] + val[c] == 13:
                n = push_pair(p, c, out, n)
    kings = unc & tabs.pkings
    while kings:
        out[n] = encode_move(MOVE_KING, lowest_bit_index(kings), NO_SLOT)
        kings &= kings - _ONE
        n += 1
    if w >= 0 and val[ws] == 13:
        out[n] = encode_move(MOVE_KING, ws, NO_SLOT)
        n += 1
    if s >= 0 and val[ss] == 13:
        out[n] = encode_move(MOVE_KING, ss, NO_SLOT)
        n += 1
    if s_real >= 0:
        out[n] = encode_move(MOVE_DRAW, NO_SLOT, NO_SLOT)
        n += 1
    elif w >= 0 and (rule.recycles < 0 or recycles_used(state) < rule.recycles):
        out[n] = encode_move(MOVE_RECYCLE, NO_SLOT, NO_SLOT)
        n += 1
    return n


@kernel
def slot_depth(slot):
    """Row (1 = apex .. 7 = bottom) of a pyramid slot; 0 for a stock or waste card or no slot."""
    if slot < PYRAMID_CARDS:
        return ROW_OF[slot] + 1
    return 0


@kernel
def greedy_score(m):
    """The greedy player's preference for a removal ``m`` (higher first): ``KING_BONUS`` for a
    king, plus the lowest row (largest row number) of the pyramid cards it removes."""
    depth = max(slot_depth(move_a(m)), slot_depth(move_b(m)))
    return depth + (KING_BONUS if move_kind(m) == MOVE_KING else 0)


@kernel
def greedy_pick(rs, moves, n):
    """Index of the greedy player's move among ``moves[:n]`` (n >= 1): the best-scoring removal,
    ties drawn uniformly by one ``below`` call (none for a single best); with no removal the last
    move (the draw or the recycle)."""
    best = -1
    ties = 0
    for j in range(n):
        kind = move_kind(moves[j])
        if kind == MOVE_DRAW or kind == MOVE_RECYCLE:
            continue
        sc = greedy_score(moves[j])
        if sc > best:
            best = sc
            ties = 1
        elif sc == best:
            ties += 1
    if best < 0:
        return n - 1
    k = below(rs, ties) if ties > 1 else 0
    for j in range(n):
        kind = move_kind(moves[j])
        if kind != MOVE_DRAW and kind != MOVE_RECYCLE and greedy_score(moves[j]) == best:
            if k == 0:
                return j
            k -= 1
    return n - 1


@kernel
def choose(rs, player, moves, n):
    """Index of the move ``player`` picks among ``moves[:n]`` (n >= 1), drawing from ``rs``: the
    random player any of them uniformly (one ``below(n)`` draw, none when n = 1), the greedy one
    by ``greedy_pick``."""
    if player == PLAYER_GREEDY:
        return greedy_pick(rs, moves, n)
    return below(rs, n) if n > 1 else 0


@kernel
def play_one(start, tabs, rule, player, rs, moves):
    """Play one game from ``start`` with ``player``, drawing from ``rs``; True when it is won.

    Loop rule (unlimited recycles only): a recycle with no card removed since the previous
    recycle ends the game as lost."""
    state = start
    recycled = False
    removed = False
    pyr = state & PYR_MASK
    unc, left, right = uncovered_and_overlap(pyr, rule.overlap)
    while True:
        if state & PYR_MASK != pyr:
            pyr = state & PYR_MASK
            unc, left, right = uncovered_and_overlap(pyr, rule.overlap)
        n = gen_with_masks(state, unc, left, right, tabs, rule, moves)
        if n == 0:
            return is_won(state, rule.goal_all)
        m = moves[choose(rs, player, moves, n)]
        kind = move_kind(m)
        if kind == MOVE_RECYCLE:
            if rule.recycles < 0:
                if recycled and not removed:
                    return False
                recycled = True
                removed = False
        elif kind != MOVE_DRAW:
            removed = True
        state = apply_concrete(state, m)
        if rule.recycles < 0:
            state &= ~REC_MASK  # the count is not kept (nor bounded) under unlimited recycles


@kernel
def play_block(deal, start, rule, seed, first, count, out):
    """Playouts ``first .. first + count - 1`` of ``deal`` from ``start``: ``out[i, player]`` is
    1 when playout ``first + i`` of that player is won. Each playout draws from a fresh generator
    holding ``stream_seed(seed, playout index)`` (the same stream for both players)."""
    tabs = deal_tables(deal)
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    rs = np.empty(1, dtype=np.uint64)
    for i in range(count):
        for player in range(PLAYER_COUNT):
            rs[0] = stream_seed(seed, first + i)
            out[i, player] = play_one(start, tabs, rule, player, rs, moves)


@kernel
def wins_many(deals, start, rule, seed, games, first_player, end_player, wins):
    """For each deal ``d`` of ``deals`` (n, 52) and each player code ``first_player ..
    end_player - 1``: ``wins[d, player]`` = playouts ``0 .. games-1`` won from ``start``."""
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    rs = np.empty(1, dtype=np.uint64)
    for d in range(deals.shape[0]):
        tabs = deal_tables(deals[d])
        for player in range(first_player, end_player):
            won = 0
            for i in range(games):
                rs[0] = stream_seed(seed, i)
                won += play_one(start, tabs, rule, player, rs, moves)
            wins[d, player] = won
