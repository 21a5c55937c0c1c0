"""The bounds and the move rules of the objective searches (solver/pyramid/challenge/bounds.py,
moves.py) against the plain reference and along random play.

* the upper bound is never below the best the reference finds from a position;
* the moves lower bound never exceeds the fewest moves the reference finds to a value, says
  ``FAR`` only when no line reaches it, and falls by one at most per legal move (the A*
  closes a position for good only with a consistent bound);
* the kings: a pyramid king left alone at the apex must wait while the stock still earns.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from reference.challenge import reference_profile

from solver.pyramid.challenge.api import card_challenge
from solver.pyramid.challenge.bounds import (FAR, MAX_PICKS, MAX_TIME, SLOTS, moves_lower_bound,
                                             upper_bound, value)
from solver.pyramid.challenge.objective import rank_objective, score_objective
from solver.pyramid.challenge.search import Budget, max_steps, run_max, workspace_for
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.replay import Position
from solver.pyramid.model.rules import PRESETS
from solver.pyramid.model.state import START
from tests.pyramid.cases import ALL_RULES, packed, start_position

SCORE = score_objective()
"""The score in half points (``scale`` 2)."""


def lower(deal, rules, pos_or_key, objective, target: int) -> int:
    """``moves_lower_bound`` of a position (a ``Position`` or a packed key) for ``target``
    (in the objective's units)."""
    key = packed(pos_or_key) if isinstance(pos_or_key, Position) else pos_or_key
    return int(moves_lower_bound(np.uint64(key), Deal.of(deal).tables, rules.args,
                                 objective.args, target, np.zeros(SLOTS, np.int64),
                                 np.zeros(MAX_TIME + 1, np.int64),
                                 np.zeros(2 * MAX_PICKS, np.int64)))


def keyed(pos: Position) -> np.uint64:
    return np.uint64(packed(pos))


@pytest.mark.parametrize("rules", [PRESETS["msc"], PRESETS["standard"], ALL_RULES[5],
                                   ALL_RULES[22]], ids=lambda r: r.describe().replace(" ", "-"))
def test_bounds_hold_against_the_reference(rules):
    """From positions after a few moves: upper bound >= the best, and for every score and every
    count of aces the lower bound <= the fewest moves (``FAR`` only when no line gets there)."""
    compared = 0
    for seed in range(40):
        deal = Deal.from_seed(seed)
        pos = start_position(deal, rules, seed)
        profile = reference_profile(deal, rules, start=packed(pos), max_states=300_000)
        if profile is None:
            continue
        tabs, key = deal.tables, keyed(pos)
        best, _ = profile.best_score()
        assert upper_bound(key, tabs, rules.args, SCORE.args) >= SCORE.scale * best
        assert value(key, tabs, SCORE.args) == SCORE.scale * int(np.flatnonzero(
            profile.score_first == 0)[0])
        for points in range(0, best + 40, 5):
            fewest = profile.fewest_to_score(points)
            h = lower(deal, rules, pos, SCORE, SCORE.scale * points)
            assert fewest is None if h >= FAR else fewest is None or h <= fewest, \
                (seed, points, h, fewest)
        aces = rank_objective(1)
        assert upper_bound(key, tabs, rules.args, aces.args) >= profile.best_count(1)[0]
        for count in range(5):
            fewest = profile.fewest_to_count(1, count)
            h = lower(deal, rules, pos, aces, count)
            assert fewest is None if h >= FAR else fewest is None or h <= fewest, \
                (seed, count, h, fewest)
        compared += 1
    assert compared >= 10


def assert_consistent_on_random_play(rules, seeds, objectives, rng):
    """Along a random line of each seed's deal: no legal move lowers the bound of any of
    ``objectives`` (objective, target) by more than one."""
    for seed in seeds:
        deal = Deal.from_seed(seed)
        pos = Position(deal, rules)
        for _ in range(60):
            steps = pos.legal_steps()
            if not steps:
                break
            for objective, target in objectives:
                h = lower(deal, rules, pos, objective, target)
                for step in steps:
                    child = pos.copy()
                    child.apply(step)
                    hc = lower(deal, rules, child, objective, target)
                    assert h <= hc + 1 or h >= FAR, (seed, step, objective.name, target, h, hc)
            pos.apply(rng.choice(steps))


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.describe().replace(" ", "-"))
def test_moves_lower_bound_is_consistent_on_random_play(rules):
    """Along random lines, for the score (several targets) and each rank: no legal move lowers
    the bound by more than one."""
    objectives = [(SCORE, t) for t in (60, 300, 800, 1300, 2580)]
    objectives += [(rank_objective(r), c) for r in (1, 6, 13) for c in (1, 3, 4)]
    assert_consistent_on_random_play(rules, range(3), objectives, random.Random(7))


@pytest.mark.parametrize("rank", [1, 5, 12])
def test_moves_lower_bound_is_consistent_along_lines_that_collect_a_rank(rank):
    """The card challenge's bound under ``msc`` along lines that remove the cards of a rank
    (found by the largest-value search over the real positions, which uses no moves bound):
    such lines pass needed cards into the waste and reach them again by clearing the waste or
    by a recycle, where random play seldom goes. At every position of each line, no legal move
    lowers the bound by more than one, and the bound never exceeds the moves left."""
    rules = PRESETS["msc"]
    objective = rank_objective(rank)
    ws = workspace_for(rules)
    checked = 0
    for seed in range(12):
        deal = Deal.from_seed(seed)
        found = run_max(ws, deal, rules, objective, False, START, 4, Budget(2_000_000, None))
        if found.reason is not None or found.best == 0:
            continue
        steps = max_steps(deal, found, False, START)
        pos = Position(deal, rules)
        for i, step in enumerate(steps):
            h = lower(deal, rules, pos, objective, found.best)
            assert h <= len(steps) - i, (seed, i, h)
            for other in pos.legal_steps():
                child = pos.copy()
                child.apply(other)
                hc = lower(deal, rules, child, objective, found.best)
                assert h <= hc + 1, (seed, i, other, h, hc)
            pos.apply(step)
        checked += 1
    assert checked >= 8


def test_a_last_pyramid_king_waits_for_the_stock():
    """Seed 47 with only its apex king left in the pyramid (under ``msc``): the four aces are
    all in the stock and pair there, so the king must stay until they are gone; removing it at
    once (as a search maximising pyramid cards may) would end the deal with none."""
    rules = PRESETS["msc"]
    deal = Deal.from_seed(47)
    pos = Position(deal, rules)
    pos.present = 1
    profile = reference_profile(deal, rules, start=packed(pos))
    res = card_challenge(deal, 1, rules, start=packed(pos))
    assert (res.removed, res.best.moves) == profile.best_count(1) == (4, 16)
    assert res.best.line[-1][0] != "king"
