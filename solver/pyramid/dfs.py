"""The depth-first search kernels of the winnability search (``solver.pyramid.winnable`` is the
Python side: it validates input, owns the workspace and turns a win into steps).

The search keeps positions proven lost in an open-addressing hash table of packed positions
(free-stock answers in the same table, tagged with ``FREE_TAG``); the module docstring of
``solver.pyramid.winnable`` describes the pruning. Kernels return ``Outcome`` values (as ints:
``LOST``, ``WON``, ``UNKNOWN``).
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np
from numba import njit

from solver.core.rng import mix64
from solver.pyramid.layout import PYRAMID_CARDS, STOCK_CARDS
from solver.pyramid.prune import LOST_STATE, bury_last_pass, unmatched, unmatched_after
from solver.pyramid.rules import RuleArgs
from solver.pyramid.state import (FREE_TAG, MOVE_PAIR, PYR_MASK, START, STOCK_MASK, apply_concrete,
                                  apply_free, deal_tables, gen_concrete, gen_free, is_won,
                                  lowest_bit_index, move_a, move_kind)


class Outcome(IntEnum):
    """What a search found: the deal is lost, won, or a limit stopped it first."""

    LOST = 0
    WON = 1
    UNKNOWN = 2


LOST = int(Outcome.LOST)
WON = int(Outcome.WON)
UNKNOWN = int(Outcome.UNKNOWN)
"""``Outcome`` values as the kernels return them (plain ints: numba code compares ints)."""

WON_TAG = np.uint64(1 << 63)
"""With ``FREE_TAG``: a free-stock position known to be won (cached answers of the oracle)."""
ORACLE_TRIAL = 1000
"""The free-stock oracle is asked about the first 1000 positions of a limited-recycles search..."""
ORACLE_MIN_SHARE = 10
"""...and after that only while at least 1 in 10 of its answers has cut a position (on stock-top
rules it cuts most lost lines; with the stock top hidden and few recycles it seldom does, and
asking it would only cost time)."""
FREE_DEPTH = PYRAMID_CARDS + STOCK_CARDS + 2
"""Deepest free-stock line: every card removed once, plus slack."""

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


class WorkspaceArgs(NamedTuple):
    """The kernels' workspace (``solver.pyramid.winnable.Workspace.args``)."""

    max_table: int
    """Most slots the lost-position table may grow to."""
    table: np.ndarray
    """The reused lost-position table (uint64 keys, 0 = empty)."""
    touched: np.ndarray
    """Slots of ``table`` used by the current search, for a cheap clean-up."""
    moves: np.ndarray
    """The DFS stack's moves, one row of ``MAX_MOVES`` per depth."""
    counts: np.ndarray
    """Per depth: moves generated, moves tried."""


class _Table(NamedTuple):
    """The lost-position table as a search carries it: the table in use (the workspace's or a
    private grown one), its keys stored and whether it grew."""

    table: np.ndarray
    n: int
    grown: bool


@njit(cache=True)
def table_has(table, key):
    """True when ``key`` is in the open-addressing ``table``."""
    mask = np.uint64(len(table) - 1)
    i = mix64(key) & mask
    while True:
        k = table[i]
        if k == key:
            return True
        if k == _ZERO:
            return False
        i = (i + _ONE) & mask


@njit(cache=True)
def table_put(table, key):
    """Store ``key`` in ``table``; returns the slot, or -1 when it was there already."""
    mask = np.uint64(len(table) - 1)
    i = mix64(key) & mask
    while table[i] != _ZERO:
        if table[i] == key:
            return -1
        i = (i + _ONE) & mask
    table[i] = key
    return np.int64(i)


@njit(cache=True)
def _table_add(lost, key, ws):
    """Insert ``key`` into the lost-position table ``lost`` (a ``_Table``), growing it when 3/4
    full; returns the new ``_Table``.

    The workspace's own table is reused from search to search, so its used slots are listed in
    ``ws.touched`` for a cheap clean-up. When it fills up, the keys move to a private table twice
    the size (and the workspace table is cleaned at once); private tables double again up to
    ``ws.max_table`` slots, after which the search goes on without storing more: slower, still
    exact.
    """
    table, n, grown = lost.table, lost.n, lost.grown
    if 4 * (n + 1) > 3 * len(table):
        if 2 * len(table) > ws.max_table:
            return lost
        bigger = np.zeros(2 * len(table), dtype=np.uint64)
        for k in range(len(table)):
            if table[k] != _ZERO:
                table_put(bigger, table[k])
        if not grown:
            _table_clear(table, ws.touched, n)
        table = bigger
        grown = True
    slot = table_put(table, key)
    if slot >= 0:
        if not grown:
            ws.touched[n] = slot
        n += 1
    return _Table(table, n, grown)


@njit(cache=True)
def _table_clear(table, touched, n_touched):
    for k in range(n_touched):
        table[touched[k]] = _ZERO


@njit(cache=True)
def _class_dead(state, v, tabs, rule):
    """True when an in-play card of value ``v`` (1..12) can never meet a partner again."""
    pyr = state & PYR_MASK
    stock = state & STOCK_MASK
    w = 13 - v
    x = pyr & tabs.vmask[v]
    if x and not (stock & tabs.sval[w]):
        while x:
            p = lowest_bit_index(x)
            x &= x - _ONE
            if not (tabs.reach[p] & pyr):
                return True
    if rule.goal_all and (stock & tabs.sval[v]) and not (pyr & tabs.vmask[w]) and \
            not (rule.stock_top and (stock & tabs.sval[w])):
        return True
    return False


@njit(cache=True)
def dead(state, tabs, rule):
    """True when some card still in play can never be removed (see ``solver.pyramid.winnable``)."""
    for v in range(1, 13):
        if _class_dead(state, v, tabs, rule):
            return True
    return False


@njit(cache=True)
def dead_after(child, m, tabs, rule):
    """``dead`` for a child whose parent had no dead card: only the partners of the cards that
    move ``m`` removed can have lost their last partner."""
    if move_kind(m) != MOVE_PAIR:
        return False  # draws, recycles and kings take no partner away from anybody
    va = tabs.val[move_a(m)]
    return _class_dead(child, 13 - va, tabs, rule) or _class_dead(child, va, tabs, rule)


@njit(cache=True)
def _free_search(tabs, start, rule, max_states, ws, lost, base, path):
    """Depth-first search of the free-stock abstraction from ``start`` (its pointer ignored).

    Uses rows ``base..`` of ``ws.moves``/``ws.counts``. Positions proven lost are stored as
    ``key | FREE_TAG``, and a won start as ``key | FREE_TAG | WON_TAG``, so the table doubles as
    the memory of the limited-recycles search's oracle. Returns ``(outcome, path_length,
    expanded, lost)``; on a fresh win ``path[:length]`` holds the moves (a win found in the table
    has length -1: no moves known).
    """
    moves = ws.moves
    counts = ws.counts
    start &= PYR_MASK | STOCK_MASK
    if is_won(start, rule.goal_all):
        return WON, 0, 0, lost
    if table_has(lost.table, start | FREE_TAG):
        return LOST, 0, 0, lost
    if table_has(lost.table, start | FREE_TAG | WON_TAG):
        return WON, -1, 0, lost
    if dead(start, tabs, rule):
        return LOST, 0, 0, _table_add(lost, start | FREE_TAG, ws)
    stack = np.empty(FREE_DEPTH, dtype=np.uint64)
    stack[0] = start
    counts[base, 0] = gen_free(start, tabs, rule, moves[base])
    counts[base, 1] = 0
    expanded = 1
    depth = 0
    while depth >= 0:
        row = base + depth
        if counts[row, 1] < counts[row, 0]:
            m = moves[row, counts[row, 1]]
            counts[row, 1] += 1
            child = apply_free(stack[depth], m)
            if is_won(child, rule.goal_all):
                for d in range(depth + 1):
                    path[d] = moves[base + d, counts[base + d, 1] - 1]
                return WON, depth + 1, expanded, _table_add(lost, start | FREE_TAG | WON_TAG, ws)
            if table_has(lost.table, child | FREE_TAG):
                continue
            if dead_after(child, m, tabs, rule):
                lost = _table_add(lost, child | FREE_TAG, ws)
                continue
            if max_states > 0 and expanded >= max_states:
                return UNKNOWN, 0, expanded, lost
            expanded += 1
            depth += 1
            stack[depth] = child
            counts[row + 1, 0] = gen_free(child, tabs, rule, moves[row + 1])
            counts[row + 1, 1] = 0
        else:
            lost = _table_add(lost, stack[depth] | FREE_TAG, ws)
            depth -= 1
    return LOST, 0, expanded, lost


@njit(cache=True)
def _concrete_search(tabs, start, rule, max_states, ws, lost, free_base, path):
    """Depth-first search of the real positions (limited recycles) from ``start``.

    The free-stock search serves as an oracle: a position whose pyramid and in-play cards lose
    even with unlimited recycles is lost, so before a position is expanded its free-stock
    answer is looked up (and searched for once, then remembered), for as long as the oracle
    earns its keep (``ORACLE_TRIAL``, ``ORACLE_MIN_SHARE``). Concrete positions use rows
    ``0..free_base-1``; the oracle the rows from ``free_base``. Returns ``(outcome, length,
    expanded, lost)``.
    """
    moves = ws.moves
    counts = ws.counts
    start = bury_last_pass(start, tabs, rule)
    if start == LOST_STATE:
        return LOST, 0, 0, lost
    o, _, expanded, lost = _free_search(tabs, start, rule, max_states, ws, lost, free_base, path)
    if o != WON:
        return o, 0, expanded, lost
    if max_states > 0 and expanded >= max_states:
        return UNKNOWN, 0, expanded, lost
    probes = 0
    prunes = 0
    stack = np.empty(free_base, dtype=np.uint64)
    stack[0] = start
    counts[0, 0] = gen_concrete(start, tabs, rule, moves[0])
    counts[0, 1] = 0
    expanded += 1
    depth = 0
    while depth >= 0:
        if counts[depth, 1] < counts[depth, 0]:
            m = moves[depth, counts[depth, 1]]
            counts[depth, 1] += 1
            child = apply_concrete(stack[depth], m)
            if is_won(child, rule.goal_all):
                for d in range(depth + 1):
                    path[d] = moves[d, counts[d, 1] - 1]
                return WON, depth + 1, expanded, lost
            buried = bury_last_pass(child, tabs, rule)
            if buried == LOST_STATE:
                continue
            if buried != child:  # cards left the game: any class may have lost its last partner
                child = buried
                if table_has(lost.table, child):
                    continue
                if dead(child, tabs, rule) or unmatched(child, tabs):
                    lost = _table_add(lost, child, ws)
                    continue
            elif table_has(lost.table, child):
                continue
            elif dead_after(child, m, tabs, rule) or unmatched_after(child, m, tabs):
                lost = _table_add(lost, child, ws)
                continue
            left = max_states - expanded if max_states > 0 else 0
            if max_states > 0 and left <= 0:
                return UNKNOWN, 0, expanded, lost
            if probes < ORACLE_TRIAL or prunes * ORACLE_MIN_SHARE >= probes:
                probes += 1
                o, _, e, lost = _free_search(tabs, child, rule, left, ws, lost, free_base, path)
                expanded += e
                if o == UNKNOWN:
                    return UNKNOWN, 0, expanded, lost
                if o == LOST:
                    prunes += 1
                    lost = _table_add(lost, child, ws)
                    continue
                if max_states > 0 and expanded >= max_states:
                    return UNKNOWN, 0, expanded, lost
            expanded += 1
            depth += 1
            stack[depth] = child
            counts[depth, 0] = gen_concrete(child, tabs, rule, moves[depth])
            counts[depth, 1] = 0
        else:
            lost = _table_add(lost, stack[depth], ws)
            depth -= 1
    return LOST, 0, expanded, lost


@njit(cache=True)
def decide(deal, start, rule, max_states, ws, path):
    """Winnability of ``deal`` from the packed position ``start`` under ``rule`` (``RuleArgs``),
    in workspace ``ws`` (``WorkspaceArgs``).

    Returns ``(outcome, path_length, states_expanded)``; on a win ``path[:length]`` holds the
    moves (free-stock moves when ``rule.recycles < 0``, real moves otherwise). The workspace table
    is left clean.
    """
    tabs = deal_tables(deal)
    lost = _Table(ws.table, 0, False)
    if rule.recycles < 0:
        o, length, e, lost = _free_search(tabs, start, rule, max_states, ws, lost, 0, path)
    else:
        o, length, e, lost = _concrete_search(tabs, start, rule, max_states, ws, lost,
                                              len(ws.counts) - FREE_DEPTH, path)
    if not lost.grown:
        _table_clear(ws.table, ws.touched, lost.n)
    return o, length, e


@njit(cache=True)
def decide_batch(deals, rule, max_states, ws, out_outcome, out_states):
    """Winnability of many deals from their start in one call (no move lists): fills
    ``out_outcome``/``out_states``."""
    path = np.empty(len(ws.counts), dtype=np.int64)
    for k in range(deals.shape[0]):
        o, _, e = decide(deals[k], START, rule, max_states, ws, path)
        out_outcome[k] = o
        out_states[k] = e


@njit(cache=True)
def decide_flat(deal, start, recycles, overlap, stock_top_on, goal_all, max_states, max_table,
                table, touched, moves, counts, path):
    """``decide`` with its rule and workspace arguments spread out: the entry for one call per
    deal from Python (``solve_winnable``, ``solver.batch.work``), since numba's dispatcher types
    plain arguments about 2 us faster than named tuples, a quarter of an easy deal's search."""
    return decide(deal, start, RuleArgs(recycles, overlap, stock_top_on, goal_all), max_states,
                  WorkspaceArgs(max_table, table, touched, moves, counts), path)


@njit(cache=True)
def decide_batch_flat(deals, recycles, overlap, stock_top_on, goal_all, max_states, max_table,
                      table, touched, moves, counts, out_outcome, out_states):
    """``decide_batch`` with its rule and workspace arguments spread out
    (``benchmarks/bench_batch.py``)."""
    decide_batch(deals, RuleArgs(recycles, overlap, stock_top_on, goal_all), max_states,
                 WorkspaceArgs(max_table, table, touched, moves, counts), out_outcome, out_states)
