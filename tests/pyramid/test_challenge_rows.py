"""The row check of the challenge bounds (``solver.pyramid.challenge.rows``) against a plain
enumeration of matchings, and what it buys: a tighter upper bound, still above the best."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from solver.pyramid.challenge.bounds import live_pyramid, upper_bound
from solver.pyramid.challenge.objective import rank_objective, score_objective
from solver.pyramid.challenge.rows import ROWS_FROM, rows_matched
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.layout import PYRAMID_CARDS
from solver.pyramid.model.replay import Position
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.model.state import PYR_MASK, STOCK_MASK, START
from tests.pyramid.cases import packed

ROW_COL = [(r, c) for r in range(7) for c in range(r + 1)]
"""Pyramid position -> (row from the apex, card in the row), counted here on their own."""


def covers(q: int, p: int) -> bool:
    """Whether the card at pyramid position ``q`` lies over ``p`` (directly or not)."""
    (rp, cp), (rq, cq) = ROW_COL[p], ROW_COL[q]
    return rq > rp and cp <= cq <= cp + (rq - rp)


def can_pair(a: int, b: int, overlap: bool) -> bool:
    """Whether slots ``a`` and ``b`` (values making 13) could ever be paired: any stock card;
    two pyramid cards when neither lies over the other, or one directly over the other with
    overlap pairs."""
    if a >= PYRAMID_CARDS or b >= PYRAMID_CARDS:
        return True
    for p, q in ((a, b), (b, a)):
        if covers(q, p):
            direct = ROW_COL[q][0] == ROW_COL[p][0] + 1
            return overlap and direct
    return True


def matchable(need: int, live: int, values, overlap: bool) -> bool:
    """Whether every card of ``need`` can have a partner of its own among ``live`` at once, by
    trying every matching of each class."""
    for x in range(1, 7):
        xs = [s for s in range(52) if live >> s & 1 and values[s] == x]
        ys = [s for s in range(52) if live >> s & 1 and values[s] == 13 - x]
        must = {s for s in xs + ys if need >> s & 1}
        if not must:
            continue
        edges = [(a, b) for a in xs for b in ys if can_pair(a, b, overlap)]
        if not any(must <= {c for e in chosen for c in e}
                   for k in range(len(must) // 2, min(len(xs), len(ys)) + 1)
                   for chosen in itertools.combinations(edges, k)
                   if len({c for e in chosen for c in e}) == 2 * k):
            return False
    return True


def random_positions(rules: Rules, seeds, rng: random.Random):
    """Packed positions along random lines of the seeds' deals."""
    for seed in seeds:
        deal = Deal.from_seed(seed)
        pos = Position(deal, rules)
        while True:
            yield deal, np.uint64(packed(pos))
            steps = pos.legal_steps()
            if not steps:
                break
            pos.apply(rng.choice(steps))


@pytest.mark.parametrize("overlap", [False, True])
def test_rows_matched_agrees_with_every_matching(overlap):
    """On positions of random lines, for the bottom rows from each row up (the cards still
    there), with the cards not stuck and with every card in play: the check says yes exactly
    when some matching gives every card of those rows a partner. Both answers occur."""
    rules = Rules(recycles=2, overlap=overlap, stock_top=True)
    answers = set()
    rng = random.Random(5)
    for deal, key in random_positions(rules, range(25), rng):
        tabs = deal.tables
        values = [int(v) for v in tabs.val]
        kinds = [live_pyramid(key, tabs, rules.args), key & (PYR_MASK | STOCK_MASK)]
        for live in map(np.uint64, kinds):
            r = rng.randrange(7)
            need = np.uint64(key & live & ROWS_FROM[r] & ~tabs.pkings)
            got = bool(rows_matched(need, need, live, tabs, overlap))
            want = matchable(int(need), int(live), values, overlap)
            assert got == want, (hex(int(key)), r)
            answers.add(got)
    assert answers == {True, False}


def test_seed_1037_cannot_empty_the_row_of_its_ace_of_hearts():
    """Seed 1037 under ``msc``: its four aces are in the pyramid and one queen (the apex) lies
    under all of them, so at most three aces go and the third row from the top never empties.
    The upper bound counts the four rows under it and not the 150, 250 and 500 points above
    (385 points, the deal's best being 380); by the stuck cards alone it was 785."""
    rules = PRESETS["msc"]
    deal = Deal.from_seed(1037)
    score = score_objective()
    ub = upper_bound(START, deal.tables, rules.args, score.without_apex().args)
    assert ub == score.scale * 385
    assert upper_bound(START, deal.tables, rules.args, rank_objective(1).args) == 3


def test_the_grain_of_each_objective():
    """Every value of a score is a multiple of 5 points (10 half points), and along random
    lines every value reached is; a count of cards has grain 1, and so has the clearing
    objective (its apex bonus is the most plus one)."""
    score = score_objective()
    assert score.grain == 10
    assert rank_objective(1).grain == 1
    assert score.clearing().grain == 1
    from solver.pyramid.challenge.bounds import value

    rules = PRESETS["msc"]
    seen = set()
    for deal, key in random_positions(rules, range(10), random.Random(2)):
        v = int(value(key, deal.tables, score.args))
        assert v % score.grain == 0
        seen.add(v % 20)
    assert seen == {0, 10}
