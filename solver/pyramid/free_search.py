"""The free-stock search of the winnability solver and its dead-card test.

The free-stock abstraction lets every stock card still in play be used at any time (its pointer
is ignored): under unlimited recycles a deal is won exactly when it is won in this abstraction
(see ``solver.pyramid.winnable``), and under limited recycles it is a relaxation: a position lost
here is lost for real. Kernels return ``Outcome`` values as ints (``LOST``, ``WON``, ``UNKNOWN``).

``class_dead``, ``dead_after`` and ``state.gen_free`` are inlined into their callers
(``inline='always'``; the searches call ``gen_free`` from one place): they run once per position,
and a numba call passes each array of the ``DealTables`` as its separate fields, which cost about
a fifth of the search's time.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

from solver.core.jit import noalloc
from solver.pyramid.layout import PYRAMID_CARDS, STOCK_CARDS
from solver.pyramid.lost_table import table_add, table_has
from solver.pyramid.subgame import subgame_buffers, subgame_lost
from solver.pyramid.state import (FREE_TAG, MOVE_PAIR, PYR_MASK, STOCK_MASK, apply_free, gen_free,
                                  is_won, lowest_bit_index, move_a, move_kind)

_ONE = np.uint64(1)


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
FREE_DEPTH = PYRAMID_CARDS + STOCK_CARDS + 2
"""Deepest free-stock line: every card removed once, plus slack."""
PROOF_AFTER = np.int64(32)
"""Positions a search under unlimited recycles expands before it tries the subgame proofs of
its start (won deals mostly finish sooner, on their first descent: they never pay for them)."""
NO_PROOF = np.int64(-1)
"""``proof_after`` of a search that never tries them."""


@noalloc(inline='always')
def class_dead(state, v, tabs, rule):
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


@noalloc
def dead(state, tabs, rule):
    """True when some card still in play can never be removed (see ``solver.pyramid.winnable``)."""
    for v in range(1, 13):
        if class_dead(state, v, tabs, rule):
            return True
    return False


@noalloc(inline='always')
def dead_after(child, m, tabs, rule):
    """``dead`` for a child whose parent had no dead card: only the partners of the cards that
    move ``m`` removed can have lost their last partner."""
    if move_kind(m) != MOVE_PAIR:
        return False  # draws, recycles and kings take no partner away from anybody
    va = tabs.val[move_a(m)]
    return class_dead(child, 13 - va, tabs, rule) or class_dead(child, va, tabs, rule)


@njit(cache=True)
def free_search(tabs, start, rule, max_states, ws, lost, base, path):
    """``free_search_proving`` without the subgame proofs (the limited-recycles oracle)."""
    return free_search_proving(tabs, start, rule, max_states, ws, lost, base, path, NO_PROOF)


@njit(cache=True)
def free_search_proving(tabs, start, rule, max_states, ws, lost, base, path, proof_after):
    """Depth-first search of the free-stock abstraction from ``start`` (its pointer ignored).

    Uses rows ``base..`` of ``ws.moves``/``ws.counts``. Positions proven lost are stored as
    ``key | FREE_TAG``, and a won start as ``key | FREE_TAG | WON_TAG``, so the table doubles as
    the memory of the limited-recycles search's oracle. Returns ``(outcome, path_length,
    expanded, lost)``; on a fresh win ``path[:length]`` holds the moves (a win found in the table
    has length -1: no moves known).

    When ``proof_after`` positions have been expanded and the deal is still open, the subgame
    proofs are tried on ``start`` once (``subgame.subgame_lost``; ``NO_PROOF``: never): a deal
    the search does not settle quickly is most often lost, and most lost deals have such a proof.
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
        return LOST, 0, 0, table_add(lost, start | FREE_TAG, ws)
    stack = np.empty(FREE_DEPTH, dtype=np.uint64)
    stack[0] = start
    fresh = True  # the moves of stack[depth] are still to be generated (one gen_free call site)
    expanded = 1
    depth = 0
    while depth >= 0:
        row = base + depth
        if fresh:
            counts[row, 0] = gen_free(stack[depth], tabs, rule, moves[row])
            counts[row, 1] = 0
            fresh = False
        if counts[row, 1] < counts[row, 0]:
            m = moves[row, counts[row, 1]]
            counts[row, 1] += 1
            child = apply_free(stack[depth], m)
            if is_won(child, rule.goal_all):
                for d in range(depth + 1):
                    path[d] = moves[base + d, counts[base + d, 1] - 1]
                return WON, depth + 1, expanded, table_add(lost, start | FREE_TAG | WON_TAG, ws)
            if table_has(lost.table, child | FREE_TAG):
                continue
            if dead_after(child, m, tabs, rule):
                lost = table_add(lost, child | FREE_TAG, ws)
                continue
            if max_states > 0 and expanded >= max_states:
                return UNKNOWN, 0, expanded, lost
            if expanded == proof_after and subgame_lost(start, tabs, rule, subgame_buffers()):
                return LOST, 0, expanded, lost
            expanded += 1
            depth += 1
            stack[depth] = child
            fresh = True
        else:
            lost = table_add(lost, stack[depth] | FREE_TAG, ws)
            depth -= 1
    return LOST, 0, expanded, lost
