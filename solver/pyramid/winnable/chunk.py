"""Whole-chunk winnability kernels for batch scoring under unlimited recycles.

``decide_seed_chunk`` deals every seed of a chunk (the SplitMix64 shuffle of
``solver.pyramid.model.deals``), builds its tables and runs the free-stock search of
``solver.pyramid.winnable.dfs`` in one numba call, reusing one set of buffers for every deal: no array is
allocated per deal and no Python code runs between deals. The search is the same search, move for
move (``gen_free``, ``apply_free``, ``dead``, ``dead_after`` of ``state``/``free_search``, the same order,
the same lost-position memory, the same subgame proofs after ``free_search.PROOF_AFTER``
positions), so outcomes and positions expanded are identical to ``dfs.decide``'s; a test checks
this on many seeds.

Two things differ from ``dfs.decide`` and cannot change a result:

* The lost-position table is a small one (``SMALL_TABLE_BITS``: it stays in the processor's
  cache, where the 8 MiB workspace table does not); a deal that would fill it three quarters is
  searched again from scratch by ``dfs.decide`` with the full workspace (which grows as it
  needs), timed as part of that deal. Under the default rules that is about one deal in ten
  thousand.
* Positions proven lost are the only keys stored: ``dfs`` also stores a won start (for the
  limited-recycles oracle, which this kernel never serves).

Each deal's time is read from the monotonic clock around its deal, tables and search
(``clock_ns``), so the ``ms`` column stays the per-deal cost it always was, now including the
dealing (about 0.1 us).
"""

from __future__ import annotations

import sys
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from solver.core.jit import kernel, noalloc
from solver.core.rng import shuffle
from solver.pyramid.winnable.dfs import decide, decide_free
from solver.pyramid.winnable.free_search import FREE_DEPTH, PROOF_AFTER, dead, dead_after
from solver.pyramid.model.outcome import LOST, UNKNOWN, WON
from solver.pyramid.winnable.subgame import SubgameBuffers, subgame_buffers, subgame_lost
from solver.core.hashing import table_has, table_put
from solver.pyramid.winnable.lost_table import table_clear
from solver.pyramid.model.layout import DECK_CARDS, PYRAMID_CARDS
from solver.pyramid.model.state import (FREE_TAG, START, apply_free, deal_tables_into, gen_free,
                                        is_won)

SMALL_TABLE_BITS = 14
"""The chunk kernel's lost-position table: 2**14 slots (128 KiB, in a core's L2 cache)."""
VALUES = 14
"""Rows of the per-value tables (values 1..13; row 0 unused)."""

CLOCK_MONOTONIC = 1
"""Linux's id of the monotonic clock for ``clock_gettime``."""
IN_KERNEL_CLOCK = sys.platform.startswith("linux")
"""Whether ``clock_ns`` may be used (the ``timespec`` layout below is Linux's, 64-bit)."""

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@intrinsic
def clock_ns(typingctx):
    """Nanoseconds of the monotonic clock, from nopython code: libc's ``clock_gettime`` declared
    to LLVM (unlike a ctypes pointer this keeps ``cache=True`` working). One read costs 30-60 ns."""

    def codegen(context, builder, signature, args):
        i32, i64 = ir.IntType(32), ir.IntType(64)
        timespec = ir.LiteralStructType([i64, i64])  # tv_sec, tv_nsec
        fnty = ir.FunctionType(i32, [i32, timespec.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        ts = cgutils.alloca_once(builder, timespec)
        builder.call(fn, [ir.Constant(i32, CLOCK_MONOTONIC), ts])
        sec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
        nsec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

    return types.int64(), codegen


@noalloc
def _lost_put(table, touched, n, key):
    """Store ``key`` (``lost_table.table_put``), listing its slot in ``touched``; the new count of stored
    keys, or -1 when the table is three quarters full (``dfs`` grows its table there)."""
    if 4 * (n + 1) > 3 * len(table):
        return -1
    slot = table_put(table, key)
    if slot < 0:
        return n
    touched[n] = slot
    return n + 1


@noalloc
def free_search_small(tabs, rule, max_states, table, touched, moves, counts, stack, sub):
    """``dfs`` free-stock search from ``START`` with the small table: ``(outcome, expanded)``,
    or ``(-1, 0)`` when the table filled up (the caller searches again with ``dfs.decide``).
    The table is left clean."""
    n = 0
    start = START
    if dead(start, tabs, rule):
        return LOST, 0
    stack[0] = start
    fresh = True  # the moves of stack[depth] are still to be generated (one gen_free call site)
    expanded = 1
    depth = 0
    outcome = LOST
    while depth >= 0:
        if fresh:
            counts[depth, 0] = gen_free(stack[depth], tabs, rule, moves[depth])
            counts[depth, 1] = 0
            fresh = False
        if counts[depth, 1] < counts[depth, 0]:
            m = moves[depth, counts[depth, 1]]
            counts[depth, 1] += 1
            child = apply_free(stack[depth], m)
            if is_won(child, rule.goal_all):
                outcome = WON
                break
            if table_has(table, child | FREE_TAG):
                continue
            if dead_after(child, m, tabs, rule):
                n = _lost_put(table, touched, n, child | FREE_TAG)
                if n < 0:
                    break
                continue
            if max_states > 0 and expanded >= max_states:
                outcome = UNKNOWN
                break
            if expanded == PROOF_AFTER and subgame_lost(start, tabs, rule, sub):
                break
            expanded += 1
            depth += 1
            stack[depth] = child
            fresh = True
        else:
            n = _lost_put(table, touched, n, stack[depth] | FREE_TAG)
            if n < 0:
                break
            depth -= 1
    if n < 0:
        table_clear(table, touched, (3 * len(table)) // 4)
        return -1, 0
    table_clear(table, touched, n)
    return outcome, expanded


class ChunkBuffers(NamedTuple):
    """Arrays one chunk kernel call reuses for every deal (``chunk_buffers``)."""

    val: np.ndarray
    vmask: np.ndarray
    sval: np.ndarray
    pmates: np.ndarray
    reach: np.ndarray
    stack: np.ndarray
    path: np.ndarray
    table: np.ndarray
    touched: np.ndarray
    sub: SubgameBuffers


@kernel
def chunk_buffers(depth):
    """Fresh ``ChunkBuffers`` for a workspace whose stack has ``depth`` rows."""
    size = 1 << SMALL_TABLE_BITS
    return ChunkBuffers(np.empty(DECK_CARDS, dtype=np.int64), np.empty(VALUES, dtype=np.uint64),
                        np.empty(VALUES, dtype=np.uint64), np.empty(PYRAMID_CARDS, dtype=np.uint64),
                        np.empty(PYRAMID_CARDS, dtype=np.uint64), np.empty(FREE_DEPTH, dtype=np.uint64),
                        np.empty(depth, dtype=np.int64), np.zeros(size, dtype=np.uint64),
                        np.empty(size, dtype=np.int64), subgame_buffers())


@kernel
def decide_unlimited(deal, rule, max_states, ws, buf):
    """``dfs.decide(deal, START, rule, max_states, ws, path)``'s outcome and states for unlimited recycles,
    with ``buf`` (``ChunkBuffers``) instead of fresh arrays: ``(outcome, expanded)``."""
    tabs = deal_tables_into(deal, buf.val, buf.vmask, buf.pmates, buf.reach, buf.sval)
    o, e = free_search_small(tabs, rule, max_states, buf.table, buf.touched, ws.moves, ws.counts,
                             buf.stack, buf.sub)
    if o < 0:
        found = decide_free(deal, START, rule, max_states, ws, buf.path)
        return found.outcome, found.states
    return o, e


@kernel
def decide_seed_chunk(seeds, rule, max_states, ws, out_deals, out_outcome, out_states, out_ns):
    """Deal, table and decide every seed of ``seeds`` under unlimited recycles (``rule.recycles``
    must be -1): fills ``out_deals`` (n, 52) card ids (the deals of ``deals.deal_from_seed``),
    ``out_outcome``, ``out_states`` and ``out_ns`` (each deal's time: dealing, tables, search)."""
    buf = chunk_buffers(len(ws.counts))
    deck = np.empty(DECK_CARDS, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    for k in range(len(seeds)):
        t0 = clock_ns()
        rng[0] = np.uint64(seeds[k])
        for i in range(DECK_CARDS):
            deck[i] = i
        shuffle(rng, deck)
        o, e = decide_unlimited(deck, rule, max_states, ws, buf)
        out_ns[k] = clock_ns() - t0
        out_outcome[k] = o
        out_states[k] = e
        out_deals[k] = deck


@kernel
def decide_deal_chunk(deals, rule, max_states, ws, out_outcome, out_states, out_ns):
    """``decide_seed_chunk`` for deals given as an (n, 52) array of card ids."""
    buf = chunk_buffers(len(ws.counts))
    for k in range(deals.shape[0]):
        t0 = clock_ns()
        o, e = decide_unlimited(deals[k], rule, max_states, ws, buf)
        out_ns[k] = clock_ns() - t0
        out_outcome[k] = o
        out_states[k] = e


@kernel
def decide_timed(deals, rule, max_states, ws, out_outcome, out_states, out_ns):
    """``dfs.decide_batch`` that also measures each deal's wall time in nanoseconds
    (``clock_ns``): the batch's kernel under limited recycles."""
    path = np.empty(len(ws.counts), dtype=np.int64)
    for k in range(deals.shape[0]):
        t0 = clock_ns()
        found = decide(deals[k], START, rule, max_states, ws, path)
        out_ns[k] = clock_ns() - t0
        out_outcome[k] = found.outcome
        out_states[k] = found.states
