"""The entry kernels of the winnability search (``solver.pyramid.winnable.solve`` is the Python side: it
validates input, owns the workspace and turns a win into steps).

``decide`` runs the free-stock search (``solver.pyramid.winnable.free_search``) under unlimited recycles
and the search of real positions (``solver.pyramid.winnable.limited``) otherwise, both keeping positions
proven lost in the lost-position table of ``solver.pyramid.winnable.lost_table`` (free-stock answers in
the same table, tagged with ``FREE_TAG``); the module docstring of ``solver.pyramid.winnable.solve``
describes the pruning.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.pyramid.winnable.free_search import FREE_DEPTH, PROOF_AFTER, free_search_proving
from solver.pyramid.winnable.limited import concrete_search
from solver.pyramid.winnable.lost_table import LostTable, WorkspaceArgs, table_clear
from solver.pyramid.model.rules import RuleArgs
from solver.pyramid.model.state import START, deal_tables

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
    tabs = deal_tables(deal)
    lost = LostTable(ws.table, 0, False)
    o, length, e, lost = free_search_proving(tabs, start, rule, max_states, ws, lost, FREE_BASE,
                                             path, PROOF_AFTER)
    if not lost.grown:
        table_clear(ws.table, ws.touched, lost.n)
    return o, length, e


@njit(cache=True)
def decide(deal, start, rule, max_states, ws, path):
    """Winnability of ``deal`` from the packed position ``start`` under ``rule`` (``RuleArgs``),
    in workspace ``ws`` (``WorkspaceArgs``).

    Returns ``(outcome, path_length, states_expanded)``; on a win ``path[:length]`` holds the
    moves (free-stock moves when ``rule.recycles < 0``, real moves otherwise). The workspace table
    is left clean.
    """
    if rule.recycles < 0:
        return decide_free(deal, start, rule, max_states, ws, path)
    tabs = deal_tables(deal)
    lost = LostTable(ws.table, 0, False)
    o, length, e, lost = concrete_search(tabs, start, rule, max_states, ws, lost,
                                         len(ws.counts) - FREE_DEPTH, path)
    if not lost.grown:
        table_clear(ws.table, ws.touched, lost.n)
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
def decide_turn(deal, start, recycles, overlap, stock_top_on, goal_all, max_states, max_table,
                table, touched, moves, counts, path, lost_table, lost_n, lost_grown):
    """One turn of a limited-recycles search that goes on from the turns before it on the same
    deal and start (``winnable.WinnabilityTurns``): ``decide_flat``, but the lost-position table
    (``lost_table``, ``lost_n``, ``lost_grown``: a ``LostTable`` spread out; the workspace's own
    table, 0 and False at the first turn) comes in and goes out with what this turn proved, and
    is not cleaned. Returns ``(outcome, path_length, states_expanded, lost_table, lost_n,
    lost_grown)``."""
    rule = RuleArgs(recycles, overlap, stock_top_on, goal_all)
    ws = WorkspaceArgs(max_table, table, touched, moves, counts)
    lost = LostTable(lost_table, lost_n, lost_grown)
    o, length, e, lost = concrete_search(deal_tables(deal), start, rule, max_states, ws, lost,
                                         len(ws.counts) - FREE_DEPTH, path)
    return o, length, e, lost.table, lost.n, lost.grown


@njit(cache=True)
def decide_free_flat(deal, start, recycles, overlap, stock_top_on, goal_all, max_states, max_table,
                     table, touched, moves, counts, path):
    """``decide_free`` with its rule and workspace arguments spread out (``decide_flat``'s
    entry for unlimited recycles)."""
    return decide_free(deal, start, RuleArgs(recycles, overlap, stock_top_on, goal_all),
                       max_states, WorkspaceArgs(max_table, table, touched, moves, counts), path)


@njit(cache=True)
def decide_batch_flat(deals, recycles, overlap, stock_top_on, goal_all, max_states, max_table,
                      table, touched, moves, counts, out_outcome, out_states):
    """``decide_batch`` with its rule and workspace arguments spread out
    (``benchmarks/bench_batch.py``)."""
    decide_batch(deals, RuleArgs(recycles, overlap, stock_top_on, goal_all), max_states,
                 WorkspaceArgs(max_table, table, touched, moves, counts), out_outcome, out_states)
