"""The apex-last test of the score's bound (solver/pyramid/challenge/apex.py): the kernel against
a plain matching (tests/reference/apex.py) on many positions, and against the plain reference
solver: whenever it says no line removes every card with the apex last, no line from there
earns the full 1,290 points."""

from __future__ import annotations

import random

import numpy as np
import pytest
from reference.apex import apex_last_possible as plain_apex_last
from reference.challenge import reference_profile

from solver.pyramid.challenge.apex import apex_last_possible
from solver.pyramid.challenge.bounds import upper_bound
from solver.pyramid.challenge.objective import score_objective
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.layout import PYRAMID_CARDS
from solver.pyramid.model.replay import Position
from solver.pyramid.model.rules import PRESETS
from solver.pyramid.model.scoring import SCORING
from solver.pyramid.model.state import START
from tests.pyramid.cases import ALL_RULES, packed

SCORE = score_objective()
FULL = 2 * SCORING.max_score  # in the objective's half points


def random_cards_in_play(rng: random.Random) -> int:
    """A packed position keeping a random share of the cards (the apex kept, mostly), pointer 0:
    any set of cards, not only those play reaches, to try the counting on every shape."""
    keep = rng.choice([0.2, 0.4, 0.6, 0.9])
    state = 0
    for slot in range(52):
        if rng.random() < keep or (slot == 0 and rng.random() < 0.9):
            state |= 1 << slot
    return state


@pytest.mark.parametrize("rules", [PRESETS["msc"], ALL_RULES[0], ALL_RULES[7], ALL_RULES[12],
                                   ALL_RULES[28]],
                         ids=lambda r: r.describe().replace(" ", "-"))
def test_the_kernel_agrees_with_a_plain_matching(rules):
    rng = random.Random(33)
    said = {True: 0, False: 0}
    for seed in range(300):
        deal = Deal.from_seed(seed)
        for _ in range(20):
            state = random_cards_in_play(rng)
            got = bool(apex_last_possible(np.uint64(state), deal.tables, rules.args))
            want = plain_apex_last(deal.tables.val, rules.overlap, rules.goal, state)
            assert got == want, (seed, hex(state))
            said[got] += 1
    if rules.goal == "pyramid" and not rules.overlap:
        assert said[False] > 500 and said[True] > 500  # both answers, many times
    else:
        assert said[False] == 0  # the test applies under goal "pyramid" without overlap only


def positions_along_play(deal, rules, rng: random.Random, pyramid_left: int):
    """Positions of a random line preferring removals, once at most ``pyramid_left`` pyramid
    cards are left."""
    pos = Position(deal, rules)
    while True:
        if bin(pos.present).count("1") <= pyramid_left:
            yield pos
        steps = pos.legal_steps()
        if not steps:
            return
        removals = [s for s in steps if len(s) > 1]
        pos.apply(rng.choice(removals if removals and rng.random() < 0.7 else steps))


def test_no_line_earns_the_full_score_where_the_test_says_so():
    """Against the plain breadth-first reference: every position (along random msc play, small
    enough to search whole) where the test says no line removes every card with the apex last has
    a best score below 1,290, and the bound is then below it too."""
    rules = PRESETS["msc"]
    rng = random.Random(7)
    refuted = 0
    for seed in range(400):
        deal = Deal.from_seed(seed)
        for pos in positions_along_play(deal, rules, rng, pyramid_left=12):
            state = packed(pos)
            if apex_last_possible(np.uint64(state), deal.tables, rules.args):
                continue
            profile = reference_profile(deal, rules, start=state, max_states=200_000)
            if profile is None:
                continue
            assert profile.best_score()[0] < SCORING.max_score, (seed, hex(state))
            assert upper_bound(np.uint64(state), deal.tables, rules.args, SCORE.args) < FULL
            refuted += 1
            break
    assert refuted >= 30


def test_seed_279_cannot_earn_the_full_score():
    """Its apex 8h must go last with the stock's only five, 5h; three fours lie before 5h in the
    stock, two nines after it, and the pyramid holds one four and two nines: the fours before 5h
    have only two nines to pair with (the pyramid's; those after 5h never meet them)."""
    deal = Deal.from_seed(279)
    rules = PRESETS["msc"]
    assert deal.text().split()[0] == "8h"
    assert not apex_last_possible(np.uint64(START), deal.tables, rules.args)
    assert upper_bound(np.uint64(START), deal.tables, rules.args, SCORE.args) == FULL - 10
    assert int(deal.tables.val[0]) + int(deal.tables.val[PYRAMID_CARDS + 14]) == 13  # 5h
