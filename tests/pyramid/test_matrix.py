"""The rules matrix (``solver.pyramid.analysis.rules_matrix``) against the plain references, and its findings."""

from __future__ import annotations

import pytest

from reference.bfs import bfs_shortest
from reference.pyramid_fast import fast_winnable
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.analysis.rules_matrix import (MatrixRow, matrix_findings, matrix_rules,
                                                  rules_matrix)
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.outcome import Outcome

MATRIX_SEEDS = (1, pytest.param(7, marks=pytest.mark.slow), pytest.param(12, marks=pytest.mark.slow))
"""Deals whose 32 combinations the references settle (seed 1 in about 10 s, the others 30 s)."""
REFERENCE_STATES = 300_000


def test_matrix_rules_are_the_32_combinations():
    rules = matrix_rules()
    assert len(rules) == len(set(rules)) == 32
    assert {r.recycles for r in rules} == {0, 1, 2, None}
    assert {(r.overlap, r.stock_top, r.goal) for r in rules} == {
        (o, s, g) for o in (True, False) for s in (True, False) for g in ("pyramid", "all")}


@pytest.mark.parametrize("seed", MATRIX_SEEDS)
def test_matrix_agrees_with_the_references(seed):
    deal = deal_from_seed(seed)
    rows = rules_matrix(deal, quick_seconds=5.0)
    checked = 0
    for row in rows:
        expected = fast_winnable(deal, row.rules, max_states=REFERENCE_STATES)
        assert expected is not None, f"the reference did not settle seed {seed} {row.rules}"
        assert row.outcome == (Outcome.WON if expected else Outcome.LOST), row.rules
        if row.moves is not None:
            moves, _ = bfs_shortest(deal, row.rules, max_states=3_000_000)
            if moves is not None:
                assert row.moves == moves, row.rules
                checked += 1
    assert rows[0].rules == matrix_rules()[0]
    if any(r.outcome == Outcome.WON for r in rows):
        assert checked > 0  # at least one minimum was compared


def row(rules: Rules, outcome: Outcome) -> MatrixRow:
    return MatrixRow(rules, outcome, None, None, 0, 0.0)


def test_findings_name_what_an_option_changes():
    rows = [row(r, Outcome.WON if r.overlap else Outcome.LOST) for r in matrix_rules()]
    lines = matrix_findings(rows)
    assert lines[0] == ("overlap pairs: winnable with, lost without in 16 of 16 combinations "
                        "of the other options")
    assert lines[1].startswith("the stock top available: no difference")
    assert lines[2].startswith("goal pyramid: no difference")
    assert lines[3] == ("recycles, combinations won with each limit: 0: 4 of 8, 1: 4 of 8, "
                        "2: 4 of 8, unlimited: 4 of 8")


def test_findings_say_when_an_option_hurts():
    rows = [row(r, Outcome.LOST if r.stock_top and r.recycles == 0 else Outcome.WON)
            for r in matrix_rules()]
    lines = matrix_findings(rows)
    assert lines[1] == "the stock top available: lost with, winnable without in 4 of 16"
    assert lines[0].startswith("overlap pairs: no difference (16 of 16 pairs decided)")
