"""Legal and winning moves at each point of a line (``solver/pyramid/analysis/choices.py``) by brute force.

The legal moves are counted without ``Position.legal_steps``: every conceivable step (draw,
recycle, each king, each pair of cards summing to 13) is offered to ``Position.check``. Each
legal one is played and its result decided from scratch: by the winnability search (a fresh
workspace) on whole deals, and by the plain concrete reference on small endgames. Lines are
shortest wins and seeded random lines (``test_blunder.random_line``).
"""

from __future__ import annotations

import itertools
import random

import pytest

from reference.pyramid import reference_shortest_from, reference_winnable_from
from solver.core.cards import NATURAL_CARDS, card_rank
from solver.pyramid.analysis.losing_move import after
from solver.pyramid.model.state import packed_position
from solver.pyramid.analysis.choices import SearchLimitReached, StepChoices, line_choices
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.optimal.api import OptimalWorkspace, solve_optimal
from solver.pyramid.model.replay import (KING, PAIR_SUM, STEP_DRAW, STEP_KING, STEP_PAIR,
                                         STEP_RECYCLE, IllegalMove, Position)
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.winnable.solve import Workspace, solve_winnable
from test_blunder import RULES, SMALL_REFERENCE_CAP, positions_of, random_line, small_start

EVERY_STEP = ([(STEP_DRAW,), (STEP_RECYCLE,)]
              + [(STEP_KING, c) for c in range(NATURAL_CARDS) if card_rank(c) == KING]
              + [(STEP_PAIR, a, b) for a, b in itertools.combinations(range(NATURAL_CARDS), 2)
                 if card_rank(a) + card_rank(b) == PAIR_SUM])
"""Every step a Pyramid deal could ever allow (a pair once, in one order)."""


def legal_by_trial(pos: Position) -> list[tuple]:
    """The steps of ``EVERY_STEP`` that ``Position.check`` accepts in ``pos``."""
    legal = []
    for step in EVERY_STEP:
        try:
            pos.check(step)
        except IllegalMove:
            continue
        legal.append(step)
    return legal


def brute_choices(start: Position, steps, winnable) -> list[StepChoices]:
    """``line_choices`` by brute force, ``winnable(position)`` deciding each child."""
    line = positions_of(start, steps)
    points = line[:-1] if line[-1].is_won() else line
    out = []
    for number, pos in enumerate(points):
        legal = legal_by_trial(pos)
        winning = sum(bool(winnable(after(pos, step))) for step in legal)
        played = tuple(steps[number]) if number < len(steps) else None
        out.append(StepChoices(number, len(legal), winning, winning == 1, played))
    return out


def fresh_winnable(rules: Rules):
    ws = Workspace.create(rules)

    def winnable(pos: Position) -> bool:
        if pos.is_won():
            return True
        result = solve_winnable(pos.deal, rules, start=packed_position(pos), workspace=ws)
        assert result.winnable is not None
        return result.winnable
    return winnable


def whole_deal_cases(rules: Rules, n: int, first_seed: int):
    """A shortest win (when there is one) and a seeded random line on each of ``n`` deals."""
    ws = OptimalWorkspace.create()
    for seed in range(first_seed, first_seed + n):
        deal = deal_from_seed(seed)
        start = Position(deal, rules)
        win = solve_optimal(deal, rules, workspace=ws, max_states=200_000).solution
        if win:
            yield deal, start, win
        yield deal, start, random_line(start, random.Random(seed), 30)


@pytest.mark.parametrize("name", ["standard", "msc", "recycles0"])
def test_line_choices_agree_with_brute_force_on_whole_deals(name):
    rules = RULES[name]
    ws = OptimalWorkspace.create()
    losing = wins = 0
    for deal, start, steps in whole_deal_cases(rules, 4, 40):
        found = line_choices(deal, rules, steps, workspace=ws)
        assert found == brute_choices(start, steps, fresh_winnable(rules))
        if positions_of(start, steps)[-1].is_won():
            wins += 1
            assert len(found) == len(steps) and all(c.winning >= 1 for c in found)
        else:
            assert len(found) == len(steps) + 1 and found[-1].played is None
        losing += sum(c.winning < c.legal for c in found)
    assert wins and losing  # the lines do meet moves that lose


@pytest.mark.parametrize("name", RULES)
def test_line_choices_agree_with_the_plain_reference_on_endgames(name):
    rules = RULES[name]
    ws = OptimalWorkspace.create()
    for seed in range(600, 606):
        deal = deal_from_seed(seed)
        start = small_start(deal, rules, seed)
        win = reference_shortest_from(start, SMALL_REFERENCE_CAP, return_path=True)[1]
        lines = [random_line(start, random.Random(seed), 12)] + ([win] if win else [])
        for steps in lines:
            found = line_choices(deal, rules, steps, start=start, workspace=ws)
            assert found == brute_choices(
                start, steps, lambda pos: reference_winnable_from(pos, SMALL_REFERENCE_CAP))


def test_limits_and_bad_input():
    deal = deal_from_seed(1)
    steps = solve_optimal(deal, Rules()).solution
    with pytest.raises(SearchLimitReached):
        line_choices(deal, Rules(), steps, max_states=3)
    with pytest.raises(ValueError, match="step 1"):
        line_choices(deal, Rules(), [("recycle",)])
    with pytest.raises(ValueError):
        line_choices(deal, Rules(), [], max_states=-1)
    assert line_choices(deal, PRESETS["msc"], []) == [
        StepChoices(0, *brute_choices(Position(deal, PRESETS["msc"]), [],
                                      fresh_winnable(PRESETS["msc"]))[0][1:])]
