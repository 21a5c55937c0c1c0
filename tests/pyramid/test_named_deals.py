"""The named deals of data/named_deals.json keep their known outcomes."""

import json
from pathlib import Path

import pytest

from solver.pyramid.model.deals import deal_from_seed, parse_deal
from solver.pyramid.model.replay import parse_solution, replay
from solver.pyramid.model.rules import Rules, find_rules
from solver.pyramid.winnable.solve import solve_winnable
from solver.pyramid.model.outcome import Outcome

DATA = Path(__file__).resolve().parents[2] / "data" / "named_deals.json"
ENTRIES = json.loads(DATA.read_text())


def test_the_four_required_kinds_are_there():
    names = {e["name"] for e in ENTRIES}
    assert {"fourteen-move-win", "lost-from-the-start", "needs-a-recycle",
            "only-overlap-pairs-win"} <= names


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_named_deal(entry):
    deal = parse_deal(entry["deal"])
    if "seed" in entry:
        assert deal.tolist() == deal_from_seed(entry["seed"]).tolist()
    base = find_rules(entry["rules"])
    checks = [(base, entry["winnable"])] + [
        (base.with_options(**{k: v for k, v in a["rules"].items()}), a["winnable"])
        for a in entry.get("also", [])]
    for rules, winnable in checks:
        result = solve_winnable(deal, rules)
        assert result.outcome == (Outcome.WON if winnable else Outcome.LOST), rules
        if winnable:
            rep = replay(deal, rules, result.solution)
            assert rep.ok and rep.won
    if "solution" in entry:
        rep = replay(deal, base, parse_solution(entry["solution"]))
        assert rep.ok and rep.won and rep.moves == entry["moves"]


def test_lost_from_the_start_needs_no_search():
    entry = next(e for e in ENTRIES if e["name"] == "lost-from-the-start")
    result = solve_winnable(parse_deal(entry["deal"]), Rules())
    assert result.outcome == Outcome.LOST and result.states == 0
