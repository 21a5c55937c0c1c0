"""``solve_chunk`` through the whole-chunk kernel gives the columns of the per-deal search
(``dfs.decide_batch``) for seed chunks and deal-file chunks alike."""

from __future__ import annotations

import numpy as np
import pytest

from solver.batch.work import ChunkTask, solve_chunk
from solver.pyramid.model.deals import deals_from_seeds, format_deal
from solver.pyramid.model.rules import Rules
from tests.pyramid.cases import per_deal_outcomes


@pytest.mark.parametrize("rules,max_states", [(Rules(), 0), (Rules(), 30),
                                              (Rules(recycles=2, stock_top=True), 0)])
def test_seed_chunk_columns_match_the_per_deal_search(rules, max_states):
    first, stop = 54_321, 54_321 + (1000 if rules.recycles is None else 100)
    r = solve_chunk(ChunkTask(7, rules, max_states=max_states, seeds=(first, stop)))
    deals = deals_from_seeds(np.arange(first, stop))
    outcome, states = per_deal_outcomes(deals, rules, max_states)
    assert (r.ids == np.arange(first, stop)).all() and (r.deals == deals).all()
    assert (r.outcome == outcome).all() and (r.states == states).all()
    assert ((r.reason != 0) == (outcome == 2)).all()
    assert (r.ns > 0).all()


def test_deal_file_chunk_columns_match_the_per_deal_search():
    deals = deals_from_seeds(np.arange(300, 800))
    lines = tuple((k + 1, format_deal(d)) for k, d in enumerate(deals))
    r = solve_chunk(ChunkTask(0, Rules(), lines=lines))
    outcome, states = per_deal_outcomes(deals, Rules())
    assert (r.ids == np.arange(1, 501)).all() and (r.deals == deals).all()
    assert (r.outcome == outcome).all() and (r.states == states).all()
