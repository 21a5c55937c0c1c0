"""The free-stock search of the winnability solver and its dead-card test.

The free-stock abstraction lets every stock card still in play be used at any time (its pointer
is ignored): under unlimited recycles a deal is won exactly when it is won in this abstraction
(see ``solver.pyramid.winnable.solve``), and under limited recycles it is a relaxation: a position lost
here is lost for real. Kernels return ``Outcome`` values as ints (``LOST``, ``WON``, ``UNKNOWN``).

``class_dead``, ``dead_after`` and ``state.gen_free`` are inlined into their callers
(``inline='always'``; the searches call ``gen_free`` from one place): they run once per position,
and a numba call passes each array of the ``DealTables`` as its separate fields, which cost about
a fifth of the search's time.
"""

from __future__ import annotations

import numpy as np

from solver.core.jit import kernel, noalloc
from solver.pyramid.model.layout import PYRAMID_CARDS, STOCK_CARDS
from solver.pyramid.model.outcome import LOST, UNKNOWN, WON
from solver.core.hashing import table_has
from solver.pyramid.winnable.lost_table import (GROW_TABLE, LostTable, Searched, grown_table,
                                                lost_put, must_grow)
from solver.pyramid.winnable.subgame import subgame_buffers, subgame_lost
from solver.pyramid.model.state import (FREE_TAG, MOVE_PAIR, PYR_MASK, STOCK_MASK, apply_free,
                                        gen_free, is_won, lowest_bit_index, move_a, move_kind)

_ONE = np.uint64(1)


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
def pyramid_stranded(pyr, partners, v, tabs):
    """True when a pyramid card of value ``v`` (1..12) of the pyramid mask ``pyr`` has no partner
    among the stock bits ``partners`` (the stock and waste cards that can still reach it) and none
    in the pyramid that it can ever meet (``reach``)."""
    x = pyr & tabs.vmask[v]
    if x and not (partners & tabs.sval[13 - v]):
        while x:
            p = lowest_bit_index(x)
            x &= x - _ONE
            if not (tabs.reach[p] & pyr):
                return True
    return False


@noalloc(inline='always')
def class_dead(state, v, tabs, rule):
    """True when an in-play card of value ``v`` (1..12) can never meet a partner again."""
    pyr = state & PYR_MASK
    stock = state & STOCK_MASK
    w = 13 - v
    if pyramid_stranded(pyr, stock, v, tabs):
        return True
    if rule.goal_all and (stock & tabs.sval[v]) and not (pyr & tabs.vmask[w]) and \
            not (rule.stock_top and (stock & tabs.sval[w])):
        return True
    return False


@noalloc
def dead(state, tabs, rule):
    """True when some card still in play can never be removed (see ``solver.pyramid.winnable.solve``)."""
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


NOT_STARTED = -2
"""The depth register of a search kernel that has not begun yet (``F_DEPTH``, ``limited.R_DEPTH``)."""
PROVE = 4
"""What ``free_walk`` returns when it has expanded ``proof_after`` positions: its driver tries
the subgame proofs of the start, then calls it again (never an ``Outcome``, nor
``lost_table.GROW_TABLE``)."""

F_DEPTH, F_EXPANDED, F_FRESH, F_N, F_GROWN, F_LENGTH = range(6)
"""Registers of ``free_walk`` (an int64 array of ``N_FREE_REGS``): its depth (``NOT_STARTED``
before it begins), positions expanded, whether the moves at its depth are still to be generated,
keys in the lost table and whether that table grew (``LostTable.n``, ``LostTable.grown``) and the
length of a win (-1: a win found in the table, no moves known)."""
N_FREE_REGS = 6


@noalloc(inline='always')
def free_regs_reset(fregs, n, grown):
    """Set ``fregs`` for a new ``free_walk`` with a lost table of ``n`` keys."""
    fregs[F_DEPTH] = NOT_STARTED
    fregs[F_EXPANDED] = 0
    fregs[F_FRESH] = 1
    fregs[F_N] = n
    fregs[F_GROWN] = grown
    fregs[F_LENGTH] = 0


@kernel
def free_search_proving(tabs, start, rule, max_states, ws, lost, base, path, proof_after):
    """Depth-first search of the free-stock abstraction from ``start`` (``free_walk``), with the
    subgame proofs of the start after ``proof_after`` positions (``NO_PROOF``: never).

    The driver of ``free_walk``: it owns the memory (the stack, a table that grows, the subgame
    buffers) and calls the kernel again after each suspension. Returns a ``Searched``; on a
    fresh win ``path[:length]`` holds the moves (a win found in the table
    has length -1: no moves known).

    When ``proof_after`` positions have been expanded and the deal is still open, the subgame
    proofs are tried on ``start`` once (``subgame.subgame_lost``): a deal the search does not
    settle quickly is most often lost, and most lost deals have such a proof.
    """
    stack = np.empty(FREE_DEPTH, dtype=np.uint64)
    fregs = np.empty(N_FREE_REGS, dtype=np.int64)
    free_regs_reset(fregs, lost.n, lost.grown)
    while True:
        o = free_walk(tabs, start, rule, max_states, ws, lost.table, stack, fregs, base, path,
                      proof_after)
        lost = LostTable(lost.table, fregs[F_N], lost.grown)
        if o == GROW_TABLE:
            lost = grown_table(lost, ws)
            fregs[F_GROWN] = lost.grown
        elif o == PROVE:
            proof_after = NO_PROOF
            if subgame_lost(start & (PYR_MASK | STOCK_MASK), tabs, rule, subgame_buffers()):
                return Searched(LOST, 0, fregs[F_EXPANDED], lost)
        else:
            return Searched(o, fregs[F_LENGTH], fregs[F_EXPANDED], lost)


@noalloc
def free_walk(tabs, start, rule, max_states, ws, table, stack, fregs, base, path, proof_after):
    """The kernel of the free-stock search: depth first from ``start`` (its pointer ignored),
    resumable, allocating nothing.

    Uses rows ``base..`` of ``ws.moves``/``ws.counts``, ``stack`` (``FREE_DEPTH`` positions) and
    the registers ``fregs`` (``free_regs_reset`` before the first call). Positions proven lost are
    stored in ``table`` as ``key | FREE_TAG``, and a won start as ``key | FREE_TAG | WON_TAG``
    (so the turns of one limited-recycles search, ``winnable.WinnabilityTurns``, find the answer
    about their start there). Returns an ``Outcome`` (the win's length in ``fregs[F_LENGTH]``),
    or suspends: ``GROW_TABLE`` when the table must grow first (it keeps room for two more keys,
    its own next one and one to spare for its caller), ``PROVE`` once it has expanded
    ``proof_after`` positions.
    Called again with the same arguments (and a grown table, or another ``proof_after``), it
    goes on exactly where it stopped.
    """
    moves = ws.moves
    counts = ws.counts
    start &= PYR_MASK | STOCK_MASK
    n = fregs[F_N]
    grown = fregs[F_GROWN] != 0
    if fregs[F_DEPTH] == NOT_STARTED:
        if is_won(start, rule.goal_all):
            return WON
        if table_has(table, start | FREE_TAG):
            return LOST
        if table_has(table, start | FREE_TAG | WON_TAG):
            fregs[F_LENGTH] = -1
            return WON
        if must_grow(table, n, 2, ws.max_table):
            return GROW_TABLE
        if dead(start, tabs, rule):
            fregs[F_N] = lost_put(table, n, grown, start | FREE_TAG, ws.touched)
            return LOST
        stack[0] = start
        fresh = True  # the moves of stack[depth] are still to be generated (one gen_free site)
        expanded = 1
        depth = 0
    else:
        fresh = fregs[F_FRESH] != 0
        expanded = fregs[F_EXPANDED]
        depth = fregs[F_DEPTH]
    status = LOST
    while depth >= 0:
        if must_grow(table, n, 2, ws.max_table):
            status = GROW_TABLE
            break
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
                fregs[F_LENGTH] = depth + 1
                n = lost_put(table, n, grown, start | FREE_TAG | WON_TAG, ws.touched)
                status = WON
                break
            if table_has(table, child | FREE_TAG):
                continue
            if dead_after(child, m, tabs, rule):
                n = lost_put(table, n, grown, child | FREE_TAG, ws.touched)
                continue
            if max_states > 0 and expanded >= max_states:
                status = UNKNOWN
                break
            if expanded == proof_after:
                counts[row, 1] -= 1  # this child again when called again
                status = PROVE
                break
            expanded += 1
            depth += 1
            stack[depth] = child
            fresh = True
        else:
            n = lost_put(table, n, grown, stack[depth] | FREE_TAG, ws.touched)
            depth -= 1
    fregs[F_DEPTH] = depth
    fregs[F_FRESH] = fresh
    fregs[F_EXPANDED] = expanded
    fregs[F_N] = n
    return status
