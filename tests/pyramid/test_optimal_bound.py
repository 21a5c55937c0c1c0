"""The minimum-move search's lower bound (``solver.pyramid.optimal.bound.bound``) checked directly.

A* returns shortest solutions only if its bound never overestimates and drops by at most one per
move. The search tests compare whole answers; this file checks the bound itself, move by move,
on positions reached by random play from seeded deals (every legal move of the replay checker,
not the search's own generator), under all 32 combinations of rule options:

* consistency: ``h(parent) <= 1 + h(child)`` for every legal move, and ``h = 0`` on a win;
* "lost" claims: a position the bound calls unreachable (``>= FAR_BOUND``) is lost, by the
  winnability search;
* admissibility against exact distances: along a shortest solution of the plain-Python reference
  (endgames with a stock of partners) or of ``solve_optimal`` (whole deals), ``h`` never exceeds the moves left.
"""

from __future__ import annotations

import random
import zlib

import pytest
from reference.pyramid import LOST, partner_endgame, reference_shortest_from

from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.optimal.api import solve_optimal
from solver.pyramid.optimal.bound import FAR_BOUND, start_bound
from solver.pyramid.optimal.tables import class_tables
from solver.pyramid.model.replay import Position
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.winnable.solve import solve_winnable
from solver.pyramid.model.outcome import Outcome
from tests.pyramid.cases import ALL_RULES, packed

class Bound:
    """``h(position)`` for one deal and rules."""

    def __init__(self, deal, rules: Rules) -> None:
        self.deal = deal
        self.rules = rules
        self.rule = rules.args
        self.tables = class_tables(deal, self.rule.overlap)

    def __call__(self, pos: Position) -> int:
        return int(start_bound(self.deal, self.tables, packed(pos), self.rule))


def walk_and_check(deal, rules: Rules, rng: random.Random, steps: int) -> tuple[int, int]:
    """Random play from the deal's start, checking the bound on every legal move of every
    position passed; returns (moves checked, lost claims checked)."""
    h = Bound(deal, rules)
    pos = Position(deal, rules)
    checked = lost_claims = 0
    for _ in range(steps):
        hp = h(pos)
        if hp >= FAR_BOUND:
            lost_claims += 1
            assert solve_winnable(deal, rules, start=packed(pos)).outcome == Outcome.LOST
            break
        legal = pos.legal_steps()
        if not legal:
            break
        for step in legal:
            child = pos.copy()
            child.apply(step)
            hc = h(child)
            if child.is_won():
                assert hc == 0, (pos, step)
            elif hc < FAR_BOUND:
                assert hp <= hc + 1, (pos, step, hp, hc)
            checked += 1
        pos.apply(rng.choice(legal))
        if pos.is_won():
            break
    return checked, lost_claims


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.describe().replace(" ", "-"))
def test_bound_is_consistent_on_random_play(rules):
    rng = random.Random(zlib.crc32(rules.describe().encode()))
    checked = 0
    for seed in range(20):
        c, _ = walk_and_check(deal_from_seed(700 + seed), rules, rng, steps=150)
        checked += c
    assert checked > 300


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.describe().replace(" ", "-"))
def test_bound_never_exceeds_the_exact_distance_on_endgames(rules):
    tested = 0
    for i in range(16):
        deal = deal_from_seed(800 + i)
        pos = partner_endgame(deal, rules, seed=i, pyramid_left=3 + i % 4)
        result, path = reference_shortest_from(pos, max_states=200_000, return_path=True)
        if result is None or result == LOST:
            continue
        h = Bound(deal, rules)
        left = result
        for step in path:
            assert h(pos) <= left, (pos, left)
            pos.apply(step)
            left -= 1
        assert pos.is_won() and h(pos) == 0
        tested += 1
    assert tested >= 2


@pytest.mark.parametrize("preset,seeds", [("standard", (1, 2, 5)), ("msc", (1, 2, 6))])
def test_bound_never_exceeds_the_moves_left_of_a_shortest_solution(preset, seeds):
    rules = PRESETS[preset]
    for seed in seeds:
        deal = deal_from_seed(seed)
        result = solve_optimal(deal, rules)
        assert result.outcome == Outcome.WON, seed
        h = Bound(deal, rules)
        pos = Position(deal, rules)
        left = len(result.solution)
        for step in result.solution:
            assert h(pos) <= left, (seed, left)
            pos.apply(step)
            left -= 1
