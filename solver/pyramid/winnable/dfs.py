"""The entry kernels of the winnability search (``solver.pyramid.winnable.solve`` is the Python side: it
validates input, owns the workspace and turns a win into steps).

``decide`` runs the free-stock search (``solver.pyramid.winnable.free_search``) under unlimited recycles
and the search of real positions (``solver.pyramid.winnable.limited``) otherwise, both keeping positions
proven lost in the lost-position table of ``solver.pyramid.winnable.lost_table`` (free-stock answers in
the same table, tagged with ``FREE_TAG``); the module docstring of ``solver.pyramid.winnable.solve``
describes the pruning.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.core.jit import kernel
from solver.pyramid.winnable.free_search import FREE_DEPTH, PROOF_AFTER, free_search_proving
from solver.pyramid.winnable.limited import concrete_search
from solver.pyramid.winnable.lost_table import LostTable, WorkspaceArgs, table_clear
from solver.pyramid.model.rules import RuleArgs
from solver.pyramid.model.state import START, deal_tables


class Decided(NamedTuple):
    """What ``decide`` answers: the ``Outcome`` value, the length of the winning path it wrote
    (0 unless won) and the positions it expanded."""

    outcome: int
    length: int
    states: int


FREE_BASE = np.int64(0)
"""The first stack row of a search of its own (int64: a literal 0 would compile ``free_search``
a second time, next to the limited search's int64 row)."""


@njit(cache=True, inline='always')
def decide_free(deal, start, rule, max_states, ws, path):
    """``decide`` under unlimited recycles (``rule.recycles < 0``): the free-stock search alone,
    with the subgame proofs of the start after ``PROOF_AFTER`` positions.

    A kernel of its own so that the default rules never compile the limited-recycles search
    (``solver.pyramid.winnable.limited`` and ``solver.pyramid.winnable.prune``): a few seconds of the first run.
    Inlined into its callers: a small wrapper, compiled on its own it cost the first run a
    second.
    """
    found = free_search_proving(deal_tables(deal), start, rule, max_states, ws,
                                LostTable(ws.table, 0, False), FREE_BASE, path, PROOF_AFTER)
    if not found.lost.grown:
        table_clear(ws.table, ws.touched, found.lost.n)
    return Decided(found.outcome, found.length, found.states)


@kernel
def decide(deal, start, rule, max_states, ws, path):
    """Winnability of ``deal`` (52 card ids) from the packed position ``start`` under ``rule``
    (``RuleArgs``), in workspace ``ws`` (``WorkspaceArgs``).

    Returns a ``Decided``; on a win ``path[:length]`` holds the moves (free-stock moves when
    ``rule.recycles < 0``, real moves otherwise). The workspace table is left clean. The deal's
    tables are built here from its cards (``deal_tables``, a fraction of a microsecond): handing
    a ``DealTables`` in from Python would cost more, numba typing a named tuple of seven fields
    at each call.
    """
    if rule.recycles < 0:
        return decide_free(deal, start, rule, max_states, ws, path)
    found = concrete_search(deal_tables(deal), start, rule, max_states, ws,
                            LostTable(ws.table, 0, False), len(ws.counts) - FREE_DEPTH, path)
    if not found.lost.grown:
        table_clear(ws.table, ws.touched, found.lost.n)
    return Decided(found.outcome, found.length, found.states)


@kernel
def decide_batch(deals, rule, max_states, ws, out_outcome, out_states):
    """Winnability of many deals from their start in one call (no move lists): fills
    ``out_outcome``/``out_states``."""
    path = np.empty(len(ws.counts), dtype=np.int64)
    for k in range(deals.shape[0]):
        found = decide(deals[k], START, rule, max_states, ws, path)
        out_outcome[k] = found.outcome
        out_states[k] = found.states


@kernel
def decide_turn(deal, start, rule, max_states, ws, path, lost):
    """One turn of a limited-recycles search that goes on from the turns before it on the same
    deal and start (``winnable.WinnabilityTurns``): ``decide``, but the lost-position table
    ``lost`` (``LostTable``: the workspace's own table, 0 and False at the first turn) comes in
    and goes out with what this turn proved (the returned ``Searched``), and is not cleaned."""
    return concrete_search(deal_tables(deal), start, rule, max_states, ws, lost,
                           len(ws.counts) - FREE_DEPTH, path)


@kernel
def decide_flat(deal, start, recycles, overlap, stock_top_on, goal_all, max_states, max_table,
                table, touched, moves, counts, path):
    """``decide`` with its rule and workspace arguments spread out: the one entry for a call per
    deal from Python (``solve_winnable``), kept flat because numba's dispatcher types plain
    arguments 1.2-2.2 us faster than the two named tuples (measured: 1.4 against 2.6-3.6 us a
    call), a tenth of an easy deal's search. For the same reason it returns a plain tuple
    ``(outcome, length, states)``, the fields of ``Decided``: numba makes a named tuple's Python
    object through its class, 0.55 us more a call (0.79 against 0.24 us, measured), which the
    per-deal figures of ``benchmarks/bench_winnability.py`` showed as 8% fewer easy deals a
    second. ``decide_free_flat`` is its twin for unlimited recycles. Every other caller passes
    ``RuleArgs`` and ``WorkspaceArgs`` and reads a ``Decided``."""
    found = decide(deal, start, RuleArgs(recycles, overlap, stock_top_on, goal_all), max_states,
                   WorkspaceArgs(max_table, table, touched, moves, counts), path)
    return found.outcome, found.length, found.states


@kernel
def decide_free_flat(deal, start, recycles, overlap, stock_top_on, goal_all, max_states, max_table,
                     table, touched, moves, counts, path):
    """``decide_flat`` for unlimited recycles (``decide_free``), so that the default rules never
    compile the limited-recycles search; it returns the same plain tuple."""
    found = decide_free(deal, start, RuleArgs(recycles, overlap, stock_top_on, goal_all),
                        max_states, WorkspaceArgs(max_table, table, touched, moves, counts), path)
    return found.outcome, found.length, found.states
