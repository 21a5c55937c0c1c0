"""The best partial result (solver/pyramid/analysis/partial.py) against the plain reference.

``tests/reference/partial.py`` searches every reachable position breadth-first with
``replay.Position`` alone. Full lost deals have too many positions for it, so the positions
compared are real positions of lost deals after a seeded random prefix of legal moves (removals
preferred), as ``--after`` gives them: the prefix is played until the reference finishes within
its cap. Every line must replay from its start to exactly the count claimed.
"""

from __future__ import annotations

import random

import pytest
from reference.partial import reference_partial_from, removed
from reference.pyramid import partner_endgame

from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.optimal.api import solve_optimal
from solver.pyramid.analysis import partial
from solver.pyramid.analysis.partial import PartialResult, best_partial
from solver.pyramid.model.replay import Position, replay_from
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.winnable.solve import solve_winnable
from solver.pyramid.model.outcome import REASONS, Outcome
from tests.pyramid.cases import ALL_RULES, packed

REF_CAP = 10_000
"""Most positions the reference may see for one comparison (about a second of plain Python)."""
PYRAMID_LEFT = 17
"""The prefix plays on until at most this many pyramid cards are left before the first try."""

def prefix_positions(deal, rules: Rules, seed: int):
    """Positions along one seeded random line of ``deal`` (removals preferred to draws): after
    every removal once at most ``PYRAMID_LEFT`` pyramid cards are left, and the line's last
    position (it ends when no move is left or a full pass of the stock removed nothing)."""
    rng = random.Random(seed)
    pos = Position(deal, rules)
    idle = 0
    while True:
        steps = pos.legal_steps()
        if not steps or idle > 2 * (len(pos.stock) + len(pos.waste)) + 2:
            yield pos
            return
        removals = [s for s in steps if s[0] in ("pair", "king")]
        pos.apply(rng.choice(removals or steps))
        idle = 0 if removals else idle + 1
        if removals and pos.pyramid_left() <= PYRAMID_LEFT:
            yield pos.copy()


def compare(deal, rules: Rules, pos: Position, cap: int = REF_CAP) -> bool:
    """Check ``best_partial`` from ``pos`` against the reference; True when a line of at least one
    move was checked, False when the answer was the empty line or the reference needed more than
    ``cap`` positions (nothing checked)."""
    expected = reference_partial_from(pos, cap)
    if expected is None:
        return False
    best, moves, _ = expected
    res = best_partial(deal, rules, start=packed(pos))
    assert res.exact and res.reason is None
    assert (res.best, len(res.line)) == (best, moves), (res.best, len(res.line), best, moves)
    assert res.upper == res.best
    check_line(res, pos)
    return moves > 0


def check_line(res: PartialResult, pos: Position) -> None:
    """The line replays from ``pos`` and ends with exactly ``res.best`` counted cards gone."""
    run = replay_from(pos, list(res.line))
    assert run.ok, run.message()
    assert removed(run.position) == res.best
    assert res.to_dict()["moves"] == len(res.line)


def check_lost_deals(preset: str, seeds, wanted: int) -> None:
    rules = PRESETS[preset]
    done = 0
    for seed in seeds:
        deal = deal_from_seed(seed)
        if solve_winnable(deal, rules).outcome != Outcome.LOST:
            continue
        if any(compare(deal, rules, pos) for pos in prefix_positions(deal, rules, seed)):
            done += 1
        if done == wanted:
            return
    raise AssertionError(f"only {done} lost deals compared")


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_agrees_with_reference_on_lost_deals(preset):
    check_lost_deals(preset, range(1000), 5)


def test_several_end_positions():
    """Seed 55 (default rules): from the position compared, lines reaching the largest count
    can end with different cards left, and the shortest ends with the one whose solver is
    not tried first in position order (a search that stops at the first end it finds fails
    here; found by planting that bug)."""
    check_lost_deals("standard", [55], 1)


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_agrees_with_reference_on_200_lost_deals(preset):
    check_lost_deals(preset, range(100_000), 200)


def check_combination(rules: Rules, deals: int, cap: int) -> int:
    """Endgames with a stock of partners (mostly won or nearly so) and positions along random
    lines of seeded deals (mostly lost): the number of non-empty lines checked."""
    checked = 0
    for i in range(deals):
        deal = deal_from_seed(700 + i)
        pos = partner_endgame(deal, rules, seed=i, pyramid_left=3 + i % 5)
        checked += compare(deal, rules, pos, cap)
        checked += any(compare(deal, rules, p, cap) for p in prefix_positions(deal, rules, i))
    return checked


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.describe().replace(" ", "-"))
def test_agrees_with_reference_under_every_rule_combination(rules):
    assert check_combination(rules, 2, 2_000) >= 2


@pytest.mark.slow
@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.describe().replace(" ", "-"))
def test_agrees_with_reference_under_every_rule_combination_more(rules):
    assert check_combination(rules, 12, REF_CAP) >= 12


@pytest.mark.parametrize("rules", [PRESETS["standard"], PRESETS["msc"], Rules(recycles=0),
                                   Rules(goal="all", stock_top=True)],
                         ids=lambda r: r.describe().replace(" ", "-"))
def test_fewest_moves_search_alone_agrees(rules, monkeypatch):
    """The A* fallback of step 3 (used when there are too many end positions, and under goal
    "all" with stock cards left) on its own: the end positions are never listed."""
    monkeypatch.setattr("solver.pyramid.analysis.partial._end_positions",
                        lambda *args: (None, partial.MANY))
    checked = 0
    for seed in range(40):
        deal = deal_from_seed(seed)
        checked += any(compare(deal, rules, p, 3_000) for p in prefix_positions(deal, rules, seed))
        if checked == 4:
            return
    raise AssertionError(f"only {checked} positions compared")


def test_full_deal_counts_from_the_start_and_after_moves():
    """From a deal's start, and from a position after some moves: the count includes the cards
    the earlier moves removed, and the line starts at the position given."""
    rules = PRESETS["standard"]
    seed = next(s for s in range(100) if solve_winnable(deal_from_seed(s), rules).outcome
                == Outcome.LOST)
    deal = deal_from_seed(seed)
    full = best_partial(deal, rules)
    assert full.exact and full.counted == "pyramid" and full.most == 28 and full.best < 28
    check_line(full, Position(deal, rules))
    pos = Position(deal, rules)
    for step in full.line[:6]:
        pos.apply(step)
    after = best_partial(deal, rules, start=packed(pos))
    assert after.best == full.best
    assert len(after.line) == len(full.line) - 6
    check_line(after, pos)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_won_deal_gives_a_shortest_win(preset):
    rules = PRESETS[preset]
    seed = next(s for s in range(100) if solve_winnable(deal_from_seed(s), rules).outcome
                == Outcome.WON)
    deal = deal_from_seed(seed)
    res = best_partial(deal, rules)
    assert res.exact and res.best == res.upper == res.most == 28
    assert len(res.line) == solve_optimal(deal, rules).moves
    run = replay_from(Position(deal, rules), list(res.line))
    assert run.ok and run.won


@pytest.mark.parametrize("rules", [PRESETS["standard"], PRESETS["msc"], Rules(goal="all"),
                                   Rules(recycles=1, goal="all", stock_top=True)],
                         ids=lambda r: r.describe().replace(" ", "-"))
def test_limits_give_sound_bounds(rules):
    """Under a cap on positions: lower <= exact <= upper, the line reaches the lower bound, and
    the reason names the limit."""
    for seed in range(6):
        deal = deal_from_seed(seed)
        exact = best_partial(deal, rules)
        assert exact.exact
        for cap in (1, 10, 200):
            res = best_partial(deal, rules, max_states=cap)
            assert res.best <= exact.best <= res.upper <= res.most
            check_line(res, Position(deal, rules))
            if not res.exact:
                assert res.reason in REASONS
            else:
                assert (res.best, len(res.line)) == (exact.best, len(exact.line))
        quick = best_partial(deal, rules, timeout=1e-6)
        assert quick.best <= exact.best <= quick.upper
        check_line(quick, Position(deal, rules))


def test_result_record():
    res = best_partial(deal_from_seed(1))
    d = res.to_dict()
    assert list(d) == ["counted", "most", "best", "upper", "exact", "moves", "line", "states",
                       "seconds", "reason"]
    assert d["moves"] == len(d["line"]) and all(isinstance(s, str) for s in d["line"])
    with pytest.raises(ValueError):
        PartialResult("pyramid", 28, 20, 19, (), True, 0, 0.0, None)
    with pytest.raises(ValueError):
        PartialResult("pyramid", 28, 20, 22, (), False, 0, 0.0, None)


@pytest.mark.parametrize("kwargs", [{"max_states": -1}, {"max_states": 1.5}, {"timeout": 0},
                                    {"start": -1}, {"start": 1 << 62}, {"rules": "standard"},
                                    {"start": 3 << 57, "rules": PRESETS["msc"]}])
def test_bad_input_is_refused(kwargs):
    with pytest.raises(ValueError):
        best_partial(deal_from_seed(0), **kwargs)
