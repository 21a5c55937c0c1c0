"""Where a game went wrong (``solver/pyramid/analysis/losing_move.py``) against brute force.

Seeded random lines of play (random legal moves, some after a stretch of a winning line so that
they lose late or not at all) under several rules. For each line the brute force decides every
prefix: with the winnability search on whole deals (a fresh workspace, one search per prefix), and
with the plain concrete reference (``tests/reference/pyramid.py``) on small endgame positions. It
also checks the fact the binary search rests on (once lost, lost). The move offered instead is
checked to be legal and its result winnable by the plain references, the win from there to replay
as a win and to be as short as the minimum-move search (or the plain breadth-first search) says.
"""

from __future__ import annotations

import random

import pytest

from reference.pyramid import (endgame_position, partner_endgame, reference_shortest_from,
                               reference_winnable_from)
from reference.pyramid_fast import fast_winnable_from
from solver.pyramid.analysis.losing_move import (LosingMove, after, first_losing_move,
                                                 packed_position)
from solver.pyramid.model.outcome import (STATUS_LOST_AT, STATUS_NEVER, STATUS_STILL,
                                          STATUS_UNKNOWN, STATUS_WON)
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.optimal.api import OptimalWorkspace, solve_optimal
from solver.pyramid.model.replay import STEP_KING, STEP_PAIR, Position, replay_from
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.winnable.solve import Workspace, solve_winnable

RULES = {
    "standard": PRESETS["standard"],
    "msc": PRESETS["msc"],
    "recycles0": Rules(recycles=0),
    "recycles1-top": Rules(recycles=1, stock_top=True),
    "all-top": Rules(stock_top=True, goal="all"),
    "recycles2-no-overlap": Rules(recycles=2, overlap=False),
}
"""Rule sets the random lines are played under."""
REMOVAL_SHARE = 0.5
"""Share of the random moves chosen among the removals (pairs and kings) when there are any."""
MAX_LINE = 60
"""Random lines are at most this long (random play usually loses the deal within a few moves)."""
HARD_DEAL = 100_000
"""The default run passes over deals whose winnability search needs more positions than this."""
FAST_REFERENCE_CAP = 5_000
"""Positions the plain whole-deal reference may expand before a check is skipped."""
SMALL_REFERENCE_CAP = 200_000
"""Positions the plain concrete reference may see on an endgame (never reached)."""


def random_line(start: Position, rng: random.Random, length: int, guide=()) -> list[tuple]:
    """A legal line from ``start``: the first ``length`` moves of ``guide`` (a winning line),
    as many as it has, then random legal moves up to ``length`` moves, stopping at a win. Half
    the random moves are chosen among the removals when there are any (with unlimited recycles
    drawing never loses, so a uniform choice would seldom lose a small position)."""
    pos, steps = start.copy(), []
    for step in list(guide)[:length]:
        steps.append(step)
        pos.apply(step)
    while len(steps) < length and pos.legal_steps():
        legal = pos.legal_steps()
        removals = [s for s in legal if s[0] in (STEP_KING, STEP_PAIR)]
        step = rng.choice(removals if removals and rng.random() < REMOVAL_SHARE else legal)
        steps.append(step)
        pos.apply(step)
    return steps


def positions_of(start: Position, steps) -> list[Position]:
    """The position before each move and after the last one."""
    line = [start.copy()]
    for step in steps:
        line.append(after(line[-1], step))
    return line


def expected(verdicts: list[bool], won: bool) -> tuple[str, int | None]:
    """The status and move the brute-force verdicts of every prefix give."""
    assert all(a or not b for a, b in zip(verdicts, verdicts[1:])), f"winnable again: {verdicts}"
    if won:
        return STATUS_WON, None
    if not verdicts[0]:
        return STATUS_NEVER, None
    if verdicts[-1]:
        return STATUS_STILL, None
    return STATUS_LOST_AT, verdicts.index(False)


def fast_verdict(pos: Position, workspace: Workspace) -> bool:
    """The winnability search on one position, from scratch."""
    result = solve_winnable(pos.deal, pos.rules, start=packed_position(pos), workspace=workspace)
    assert result.winnable is not None
    return result.winnable


def check_answer(found: LosingMove, line: list[Position], steps, status: str, move: int | None,
                 shortest) -> None:
    """``found`` says ``status``/``move``; its move instead is legal and its win is a shortest one
    (``shortest(position)``: the minimum number of moves to win, or None when unknown)."""
    assert (found.status, found.move) == (status, move), (found, status, move)
    if status not in (STATUS_LOST_AT, STATUS_STILL):
        assert found.win_from_there == () and found.instead is None and found.played is None
        return
    before = line[move - 1] if status == STATUS_LOST_AT else line[-1]
    win = list(found.win_from_there)
    played = replay_from(before, win)
    assert played.ok and played.won, played.message()
    minimum = shortest(before)
    assert found.optimal or minimum is None
    if minimum is not None:
        assert len(win) == minimum
    if status == STATUS_LOST_AT:
        assert found.played == tuple(steps[move - 1])
        assert found.instead in before.legal_steps()
        assert set(found.instead) == set(win[0]) and found.instead != found.played


def optimal_length(workspace: OptimalWorkspace):
    def shortest(pos: Position) -> int:
        result = solve_optimal(pos.deal, pos.rules, start=packed_position(pos),
                               workspace=workspace)
        assert result.optimal
        return result.moves
    return shortest


def whole_deal_lines(rules: Rules, n: int, first_seed: int, hard: int = 0):
    """``n`` seeded random lines on whole deals: a third purely random, the others following a
    winning line (when there is one) for a random stretch first. Deals whose winnability search
    needs more than ``hard`` positions (0 = no limit) are passed over (the brute force searches
    every prefix again: seconds on the hardest deals)."""
    ws = Workspace.create(rules)
    seed = first_seed
    for i in range(n):
        while True:
            deal = deal_from_seed(seed)
            first = solve_winnable(deal, rules, workspace=ws, max_states=hard)
            seed += 1
            if first.winnable is not None:
                break
        rng = random.Random(seed - 1)
        start = Position(deal, rules)
        guide = () if i % 3 == 0 else first.solution
        length = rng.randint(0, MAX_LINE)
        yield deal, start, random_line(start, rng, length, guide[:rng.randint(0, len(guide))])


def check_whole_deals(rules: Rules, n: int, first_seed: int, hard: int = 0) -> set:
    """Check ``n`` seeded lines; the statuses seen (and "plain" when the plain reference could
    confirm at least one move instead)."""
    ws, ows, fresh = OptimalWorkspace.create(), OptimalWorkspace.create(), Workspace.create(rules)
    seen = set()
    for deal, start, steps in whole_deal_lines(rules, n, first_seed, hard):
        line = positions_of(start, steps)
        found = first_losing_move(deal, rules, steps, workspace=ws)
        status, move = expected([fast_verdict(p, fresh) for p in line], line[-1].is_won())
        check_answer(found, line, steps, status, move, optimal_length(ows))
        if status == STATUS_LOST_AT:
            # the plain whole-deal reference agrees on the move played and the move instead
            for child, verdict in ((after(line[move - 1], found.played), False),
                                   (after(line[move - 1], found.instead), True)):
                plain = fast_winnable_from(child, FAST_REFERENCE_CAP)
                assert plain in (verdict, None)
                if plain and verdict:
                    seen.add("plain")
        seen.add(status)
    return seen


@pytest.mark.parametrize("name", RULES)
def test_first_losing_move_agrees_with_every_prefix(name):
    seen = check_whole_deals(RULES[name], 20, 1000, hard=HARD_DEAL)
    assert {STATUS_LOST_AT, STATUS_STILL, "plain"} <= seen, seen


@pytest.mark.slow
@pytest.mark.parametrize("name", RULES)
def test_first_losing_move_agrees_with_every_prefix_many(name):
    """6 rule sets x 100 lines = 600 lines."""
    seen = check_whole_deals(RULES[name], 100, 20_000)
    assert {STATUS_NEVER, STATUS_LOST_AT, STATUS_STILL, "plain"} <= seen, seen


def small_start(deal, rules: Rules, seed: int) -> Position:
    """A small seeded endgame (5..8 pyramid cards) whose stock holds partners of them (every
    fourth one a random stock instead, under goal "pyramid")."""
    if rules.goal == "pyramid" and seed % 4 == 0:
        return endgame_position(deal, rules, seed, 5 + seed % 4)
    return partner_endgame(deal, rules, seed, 5 + seed % 4)


def check_small(rules: Rules, n: int, first_seed: int) -> set:
    ws = OptimalWorkspace.create()
    seen = set()

    def shortest(pos):
        return reference_shortest_from(pos, SMALL_REFERENCE_CAP)

    for seed in range(first_seed, first_seed + n):
        rng = random.Random(seed)
        deal = deal_from_seed(seed)
        start = small_start(deal, rules, seed)
        guide = reference_shortest_from(start, SMALL_REFERENCE_CAP, return_path=True)[1] or ()
        steps = random_line(start, rng, rng.randint(0, 25), guide[:rng.randint(0, len(guide))])
        line = positions_of(start, steps)
        found = first_losing_move(deal, rules, steps, start=start, workspace=ws)
        verdicts = [reference_winnable_from(p, SMALL_REFERENCE_CAP) for p in line]
        status, move = expected(verdicts, line[-1].is_won())
        check_answer(found, line, steps, status, move, shortest)
        if status == STATUS_LOST_AT:
            assert reference_winnable_from(after(line[move - 1], found.instead))
        seen.add(status)
    return seen


def test_first_losing_move_on_endgames_agrees_with_the_plain_reference():
    """16 endgames per rule set; with unlimited recycles a small position is seldom lost by a
    move (drawing never loses), so the statuses are counted over all the rule sets."""
    seen = set()
    for rules in RULES.values():
        found = check_small(rules, 16, 300)
        assert len(found) >= 2, (rules, found)
        seen |= found
    assert {STATUS_NEVER, STATUS_LOST_AT, STATUS_STILL, STATUS_WON} <= seen, seen


@pytest.mark.slow
@pytest.mark.parametrize("name", RULES)
def test_first_losing_move_on_endgames_many(name):
    seen = check_small(RULES[name], 100, 5000)
    assert {STATUS_NEVER, STATUS_STILL} <= seen, seen


def test_a_winning_line_is_won_and_a_prefix_of_a_shortest_one_still_winnable():
    deal = deal_from_seed(1)
    win = solve_optimal(deal, Rules()).solution
    assert first_losing_move(deal, Rules(), win).status == STATUS_WON
    found = first_losing_move(deal, Rules(), win[:10])
    assert found.status == STATUS_STILL and len(found.win_from_there) == len(win) - 10


def test_illegal_steps_and_bad_limits_are_value_errors():
    deal = deal_from_seed(1)
    with pytest.raises(ValueError, match="step 2"):
        first_losing_move(deal, Rules(), [("draw",), ("king", 0)])
    for kwargs in ({"max_states": -1}, {"max_states": 1.5}, {"timeout": 0}):
        with pytest.raises(ValueError):
            first_losing_move(deal, Rules(), [("draw",)], **kwargs)
    with pytest.raises(ValueError, match="rules"):
        first_losing_move(deal, "standard", [("draw",)])
    with pytest.raises(ValueError, match="start"):
        first_losing_move(deal, Rules(), [], start=Position(deal, PRESETS["msc"]))


def test_a_limit_gives_unknown_never_a_guess():
    """With a cap of a few positions every answer is either the exact one or unknown, and some
    are unknown."""
    rules = Rules()
    unknown = 0
    for deal, start, steps in whole_deal_lines(rules, 30, 1000):
        exact = first_losing_move(deal, rules, steps)
        capped = first_losing_move(deal, rules, steps, max_states=5)
        if capped.status == STATUS_UNKNOWN:
            unknown += 1
            assert capped.win_from_there == () and capped.move is None
        else:
            assert (capped.status, capped.move) == (exact.status, exact.move)
            if capped.win_from_there:
                line = positions_of(start, steps)
                before = line[-1] if capped.move is None else line[capped.move - 1]
                assert replay_from(before, list(capped.win_from_there)).won
    assert unknown > 0


def test_to_dict_and_field_checks():
    found = LosingMove(STATUS_LOST_AT, 3, ("pair", 5, 20), ("draw",), (("draw",), ("king", 12)),
                       True, 10, 0.5)
    assert found.to_dict() == {"status": "lost_at", "move": 3, "played": "6c+8d",
                               "instead": "draw", "win_from_there": ["draw", "Kc"],
                               "moves_to_win": 2, "optimal": True}
    assert LosingMove(STATUS_NEVER).to_dict()["moves_to_win"] is None
    for bad in ({"status": "lost"}, {"status": STATUS_LOST_AT}, {"status": STATUS_STILL},
                {"status": STATUS_NEVER, "move": 2}):
        with pytest.raises(ValueError):
            LosingMove(**bad)


def test_a_minimum_move_search_stopped_by_a_limit_leaves_a_win_not_proven_shortest(monkeypatch):
    """When only the minimum-move search is stopped (say by the clock), the verdict stays exact
    and the winnability search's line is given instead, marked not optimal."""
    import solver.pyramid.analysis.losing_move as blunder
    from solver.pyramid.model.outcome import REASON_TIMEOUT, Outcome, SolveResult

    monkeypatch.setattr(blunder, "solve_optimal", lambda *args, **kwargs: SolveResult(
        Outcome.UNKNOWN, reason=REASON_TIMEOUT))
    rules = PRESETS["msc"]
    seen = set()
    for deal, start, steps in whole_deal_lines(rules, 12, 1000, hard=HARD_DEAL):
        exact = first_losing_move(deal, rules, steps)
        line = positions_of(start, steps)
        check_answer(exact, line, steps, exact.status, exact.move, lambda pos: None)
        seen.add(exact.status)
        if exact.win_from_there:
            assert not exact.optimal
            before = line[-1] if exact.move is None else line[exact.move - 1]
            assert replay_from(before, list(exact.win_from_there)).won
    assert {STATUS_LOST_AT, STATUS_STILL} <= seen, seen
