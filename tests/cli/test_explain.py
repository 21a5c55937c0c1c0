"""solver.pyramid.model.explain: each explained step says truly where its cards are, the text renderer
says it in the words ``pyramid solve`` prints, and ``hint`` shows the first explained step."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.model.explain import (PLACE_PYRAMID, PLACE_STOCK, PLACE_WASTE, CardSource,
                                    describe_steps, explain_steps, outcome_name, step_line,
                                    step_note)
from solver.pyramid.model.layout import COL_OF, ROW_OF
from solver.pyramid.model.replay import Position, format_step, parse_solution
from solver.pyramid.model.rules import Rules, find_rules
from solver.pyramid.winnable.solve import solve_winnable
from solver.pyramid.model.outcome import Outcome

CASES = [(1, "standard"), (2, "msc"), (32, "standard"), (12, "msc")]
"""(seed, rules) of winnable deals whose lines are explained step by step (under msc the stock's
top card is available, so stock cards are paired too)."""


@pytest.mark.parametrize("seed, preset", CASES)
def test_every_card_is_where_its_step_says(seed, preset):
    """Replayed beside the explanation: a pyramid card is present at that row and column, a waste
    card is the waste's top, a stock card the stock's top; a draw turns the stock's top over."""
    deal, rules = deal_from_seed(seed), find_rules(preset)
    result = solve_winnable(deal, rules)
    assert result.outcome == Outcome.WON
    pos = Position(deal, rules)
    explained = explain_steps(deal, rules, result.solution)
    assert [s.number for s in explained] == list(range(1, len(result.solution) + 1))
    for step, ex in zip(result.solution, explained):
        assert ex.step == tuple(step) and ex.notation == format_step(step) and ex.kind == step[0]
        for source in ex.cards:
            if source.place == PLACE_PYRAMID:
                p = [int(c) for c in deal[:28]].index(source.card)
                assert pos.present >> p & 1
                assert (source.row, source.column) == (ROW_OF[p] + 1, COL_OF[p] + 1)
            elif source.place == PLACE_WASTE:
                assert pos.waste[-1] == source.card and source.row is None
            else:
                assert source.place == PLACE_STOCK and pos.stock[-1] == source.card
        assert len(ex.cards) == {"draw": 1, "recycle": 0, "king": 1, "pair": 2}[ex.kind]
        pos.apply(step)
    assert pos.is_won()


def test_the_text_names_each_place():
    deal = deal_from_seed(1)
    steps = parse_solution("Kc draw")
    first, second = explain_steps(deal, Rules(), steps)
    assert step_note(first) == "remove Kc (pyramid row 7, card 1)"
    assert step_note(second) == f"turn {format_step(('king', second.cards[0].card))} onto the waste"
    assert step_line(first) == "Kc       remove Kc (pyramid row 7, card 1)"
    assert describe_steps(deal, Rules(), steps) == ["1. Kc       remove Kc (pyramid row 7, card 1)",
                                                    "2. " + step_line(second)]
    assert CardSource(5, PLACE_WASTE).describe() == "6c (waste)"
    assert [outcome_name(o) for o in Outcome] == ["lost", "won", "unknown"]


def test_explaining_does_not_move_the_start():
    deal = deal_from_seed(1)
    start = Position(deal, Rules())
    start.apply(("draw",))
    before = start.key()
    explain_steps(deal, Rules(), parse_solution("draw draw"), start)
    assert start.key() == before


def test_hint_prints_the_first_explained_step():
    deal = deal_from_seed(1)
    result = CliRunner().invoke(cli, ["hint", "--seed", "1", "--after", "Kc Kh"])
    assert result.exit_code == 0, result.output
    start = Position(deal, Rules())
    for step in parse_solution("Kc Kh"):
        start.apply(step)
    lines = result.output.splitlines()
    assert lines[1] == "After 2 moves: Kc Kh"  # then the position they reach, then the hint
    line = next(x for x in lines if x.startswith("Next move: "))
    step = parse_solution(line.removeprefix("Next move: ").split()[0])
    assert line == "Next move: " + step_line(explain_steps(deal, Rules(), step, start)[0])
