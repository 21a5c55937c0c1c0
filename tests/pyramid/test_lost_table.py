"""The lost-position table's growth: a search whose table starts small and grows decides every
deal as a search with a roomy table does, on the same positions; one whose table cannot grow
gives no other verdict (it may run out of positions: without the memory it is slower)."""

import numpy as np
import pytest

from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.winnable.solve import Workspace, solve_winnable
from solver.pyramid.model.outcome import Outcome

RULES = [PRESETS["standard"], PRESETS["msc"], Rules(recycles=0, stock_top=True),
         Rules(recycles=1, goal="all")]
SMALL_BITS = 10
GROWS_PAST = 3 * (1 << SMALL_BITS) // 4
"""A search storing more lost positions than this grows a table of 2**SMALL_BITS slots."""
CAP = 200_000


def deals_for(rules: Rules, roomy: Workspace, n: int = 12):
    """Up to ``n`` deals whose search expands past ``GROWS_PAST`` positions (few under unlimited
    recycles) and ``n`` others (seeds in order), with the roomy search's result."""
    big, other = [], []
    for seed in range(3000):
        deal = deal_from_seed(seed)
        want = solve_winnable(deal, rules, max_states=CAP, workspace=roomy)
        (big if want.states > GROWS_PAST else other).append((seed, deal, want))
        if len(big) >= n and len(other) >= n:
            break
    return big[:n] + other[:n]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.describe())
def test_a_growing_table_changes_nothing(rules):
    roomy = Workspace.create(rules)
    small = Workspace.create(rules, table_bits=SMALL_BITS, max_table_bits=20)
    capped = Workspace.create(rules, table_bits=SMALL_BITS, max_table_bits=SMALL_BITS)
    cases = deals_for(rules, roomy)
    assert any(want.states > GROWS_PAST for _, _, want in cases)  # the growth is exercised
    decided = 0
    for seed, deal, want in cases:
        got = solve_winnable(deal, rules, max_states=CAP, workspace=small)
        assert (got.outcome, got.states) == (want.outcome, want.states), seed
        full = solve_winnable(deal, rules, max_states=CAP, workspace=capped)
        assert full.outcome in (want.outcome, Outcome.UNKNOWN), seed
        decided += full.outcome == want.outcome != Outcome.UNKNOWN
        for ws in (small, capped):
            assert not np.any(ws.table), "the workspace's table is left clean"
    assert decided >= len(cases) // 3
