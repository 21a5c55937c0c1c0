"""The scoring table and the plain scorer of the replay checker (solver/pyramid/model/scoring.py).

The table is the challenge's statement (issue 32), written out here again; the scorer counts a
line two ways, step by step and from the cards gone at its end, and both must agree on random
play under every rule combination.
"""

from __future__ import annotations

import random

import pytest

from solver.pyramid.model.deals import Deal
from solver.core.cards import parse_rank
from solver.pyramid.model.replay import IllegalMove, Position
from solver.pyramid.model.rules import PRESETS
from solver.pyramid.model.scoring import (SCORING, empty_rows, line_scores, rank_gone, score_of,
                                          step_points)
from tests.pyramid.cases import ALL_RULES

BONUS_BOTTOM_UP = (25, 50, 75, 100, 150, 250, 500)
ROWS = [sum(1 << (r * (r + 1) // 2 + c) for c in range(r + 1)) for r in range(7)]
"""The pyramid mask of each row, 0 the apex."""


def test_the_table_is_the_statement():
    assert (SCORING.pair, SCORING.king, SCORING.row_bonus) == (5, 5, BONUS_BOTTOM_UP)
    assert [SCORING.bonus_of_row(r) for r in range(7)] == list(BONUS_BOTTOM_UP[::-1])
    assert SCORING.max_score == 1290


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.describe().replace(" ", "-"))
def test_step_by_step_and_from_the_cards_gone_agree(rules):
    """On random lines: the running score equals the score of each position from its cards
    gone, never falls, and a step earns 5 or nothing plus row bonuses."""
    for seed in range(3):
        rng = random.Random(seed)
        deal = Deal.from_seed(seed)
        pos = Position(deal, rules)
        steps = []
        for _ in range(120):
            legal = pos.legal_steps()
            if not legal:
                break
            removals = [s for s in legal if s[0] != "draw" and s[0] != "recycle"]
            step = rng.choice(removals if removals and rng.random() < 0.7 else legal)
            steps.append(step)
            pos.apply(step)
        running = line_scores(Position(deal, rules), steps)
        replay = Position(deal, rules)
        previous = 0
        for step, total in zip(steps, running):
            gained = step_points(replay, step)
            before = replay.present
            replay.apply(step)
            assert total == score_of(replay) == previous + gained
            newly = [r for r in range(7) if before & ROWS[r] and not replay.present & ROWS[r]]
            assert gained == (5 if step[0] in ("pair", "king") else 0) + sum(
                BONUS_BOTTOM_UP[6 - r] for r in newly)
            assert empty_rows(replay.present) == [r for r in range(7)
                                                  if not replay.present & ROWS[r]]
            previous = total


def test_a_line_removing_every_card_earns_the_most():
    """Seed 1 under ``msc``: the best score line removes all 52 cards, the pyramid last."""
    from solver.pyramid.challenge.api import score_challenge

    deal = Deal.from_seed(1)
    res = score_challenge(deal)
    start = Position(deal, PRESETS["msc"])
    scores = line_scores(start, list(res.best.line))
    assert scores[-1] == res.score == 1290
    assert scores == sorted(scores)


def test_bottom_row_bonus_and_rank_count():
    """Clearing the bottom row by pairs earns its pairs and 25; the rank count follows."""
    deal = Deal.from_seed(1)
    pos = Position(deal, PRESETS["standard"])
    pos.present &= ~(((1 << 7) - 1) << 21)  # the bottom row gone by fiat: 7 cards
    gone = [int(c) for c in deal[21:28]]
    kings = sum(c % 13 == 12 for c in gone)
    if (len(gone) - kings) % 2 == 0:
        assert score_of(pos) == 5 * ((len(gone) - kings) // 2) + 5 * kings + 25
    else:
        with pytest.raises(ValueError):
            score_of(pos)
    assert sum(rank_gone(pos, r) for r in range(1, 14)) == 7


def test_an_illegal_step_is_refused():
    with pytest.raises(IllegalMove):
        line_scores(Position(Deal.from_seed(1), PRESETS["msc"]), [("recycle",)])


@pytest.mark.parametrize("text, rank", [("A", 1), ("a", 1), ("10", 10), ("T", 10), ("t", 10),
                                        ("J", 11), ("q", 12), ("K", 13), (" 7 ", 7)])
def test_ranks_parse(text, rank):
    assert parse_rank(text) == rank


@pytest.mark.parametrize("text", ["", "1", "11", "X", "AA", "Ac"])
def test_bad_ranks_are_refused(text):
    with pytest.raises(ValueError):
        parse_rank(text)
