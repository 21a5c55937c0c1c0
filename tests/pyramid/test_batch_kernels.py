"""The whole-chunk kernels of ``solver.pyramid.winnable.chunk`` against ``deals.deals_from_seeds``
and ``dfs.decide_batch`` (the search they must reproduce move for move)."""

from __future__ import annotations

import numpy as np
import pytest

from solver.pyramid.winnable.chunk import (chunk_buffers, decide_deal_chunk,
                                          decide_seed_chunk, decide_unlimited)
from solver.pyramid.model.deals import deals_from_seeds
from solver.pyramid.model.rules import Rules
from solver.pyramid.winnable.solve import Workspace
from tests.pyramid.cases import per_deal_outcomes

UNLIMITED_RULES = [Rules(), Rules(overlap=False), Rules(stock_top=True),
                   Rules(goal="all"), Rules(stock_top=True, goal="all")]


def seed_chunk(seeds, rules, max_states=0):
    ws = Workspace.create(rules)
    n = len(seeds)
    deals = np.empty((n, 52), dtype=np.int8)
    outcome = np.empty(n, dtype=np.int8)
    states = np.empty(n, dtype=np.int64)
    ns = np.empty(n, dtype=np.int64)
    decide_seed_chunk(np.asarray(seeds, dtype=np.int64), rules.args, max_states, ws.args(),
                      deals, outcome, states, ns)
    return deals, outcome, states, ns


def deal_chunk(deals, rules, max_states=0):
    ws = Workspace.create(rules)
    n = len(deals)
    outcome = np.empty(n, dtype=np.int8)
    states = np.empty(n, dtype=np.int64)
    ns = np.empty(n, dtype=np.int64)
    decide_deal_chunk(deals, rules.args, max_states, ws.args(), outcome, states, ns)
    return outcome, states, ns


def sample_seeds(n, seed=15):
    """``n`` seeds: the first hundred, a spread over 0..99,999, and huge ones."""
    rng = np.random.default_rng(seed)
    return np.concatenate([np.arange(100), rng.integers(100, 100_000, n - 110),
                           rng.integers(0, 2**63 - 1, 10, dtype=np.int64)])


def test_seed_chunk_deals_the_deals_of_deal_from_seed():
    seeds = sample_seeds(3000)
    deals, _, _, _ = seed_chunk(seeds, Rules())
    assert (deals == deals_from_seeds(seeds)).all()


@pytest.mark.parametrize("rules", UNLIMITED_RULES, ids=lambda r: r.to_dict().__repr__())
def test_chunk_kernels_match_decide_batch(rules):
    seeds = sample_seeds(1500 if rules == Rules() else 400)
    deals = deals_from_seeds(seeds)
    want_outcome, want_states = per_deal_outcomes(deals, rules)
    _, outcome, states, ns = seed_chunk(seeds, rules)
    assert (outcome == want_outcome).all() and (states == want_states).all()
    assert (ns > 0).all()
    outcome, states, _ = deal_chunk(deals, rules)
    assert (outcome == want_outcome).all() and (states == want_states).all()


def test_state_cap_gives_the_same_unknowns():
    seeds = np.arange(2000)
    deals = deals_from_seeds(seeds)
    want = per_deal_outcomes(deals, Rules(), max_states=20)
    _, outcome, states, _ = seed_chunk(seeds, Rules(), max_states=20)
    assert (outcome == 2).any()
    assert (outcome == want[0]).all() and (states == want[1]).all()


def test_a_full_small_table_falls_back_to_dfs_decide():
    """A table too small for a deal's lost positions: the deal is searched again by
    ``dfs.decide``, with the same answer (here every deal with more than 12 lost positions)."""
    rules = Rules()
    ws = Workspace.create(rules)
    big = chunk_buffers(len(ws.counts))
    tiny = big._replace(table=np.zeros(16, dtype=np.uint64), touched=np.empty(16, dtype=np.int64))
    deals = deals_from_seeds(np.arange(300))
    want_outcome, want_states = per_deal_outcomes(deals, rules)
    assert (want_states > 100).any()
    for k in range(len(deals)):
        o, e = decide_unlimited(deals[k], rules.args, 0, ws.args(), tiny)
        assert (o, e) == (want_outcome[k], want_states[k])
    assert not tiny.table.any() and not ws.table.any()  # both tables left clean


@pytest.mark.slow
def test_chunk_kernel_matches_decide_batch_on_seeds_0_to_99999():
    seeds = np.arange(100_000)
    want_outcome, want_states = per_deal_outcomes(deals_from_seeds(seeds), Rules())
    deals, outcome, states, _ = seed_chunk(seeds, Rules())
    assert (deals == deals_from_seeds(seeds)).all()
    assert (outcome == want_outcome).all() and (states == want_states).all()
