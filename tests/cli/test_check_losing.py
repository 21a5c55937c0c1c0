"""``pyramid check`` on legal moves that do not win: where the deal stopped being winnable.

The answer printed is re-checked independently: the position before the named move is winnable
and the one after it is not (the winnability search on each, from scratch), the move offered
instead is legal there, and the printed win replays from there in the minimum number of moves.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.pyramid.model.state import packed_position
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.model.explain import describe_steps
from solver.pyramid.optimal.api import solve_optimal
from solver.pyramid.model.replay import parse_solution, replay, replay_from
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.winnable.solve import solve_winnable

LOSING_LINES = [
    # (seed, rules option, moves): random lines that follow a win for a while, then lose it
    (4, "standard", "7s+6h Qs+Ad 2c+Js draw draw 5h+8h draw draw draw draw draw draw draw 4d+9c "
                    "draw draw draw draw 7h+6c As+Qc"),
    (10, "msc", "Ks draw draw 3d+Tc draw 7s+6s draw 2d+Js Ah+Qd 5d+8h 4s+9s draw Kc draw draw "
                "2h+Jh draw draw draw 9d+4d"),
]
NEVER_SEED = 9
"""A deal that cannot be won under the standard rules."""


def run(*args):
    return CliRunner().invoke(cli, list(args))


def winnable(deal, rules, pos) -> bool:
    return solve_winnable(deal, rules, start=packed_position(pos)).winnable


@pytest.mark.parametrize("seed, preset, moves", LOSING_LINES)
def test_check_names_the_losing_move_and_a_shortest_win_instead(seed, preset, moves):
    deal, rules = deal_from_seed(seed), PRESETS[preset]
    steps = parse_solution(moves)
    r = run("check", "--seed", str(seed), "--rules", preset, "--solution", moves, "--json")
    assert r.exit_code == 1, r.output
    doc = json.loads(r.stdout)
    assert doc["outcome"] == "incomplete"
    losing = doc["losing"]
    assert losing["status"] == "lost_at" and losing["optimal"] is True
    move = losing["move"]
    before = replay(deal, rules, steps[:move - 1]).position
    after = replay(deal, rules, steps[:move]).position
    assert winnable(deal, rules, before) and not winnable(deal, rules, after)
    assert parse_solution(losing["played"]) == [tuple(steps[move - 1])]
    win = parse_solution(" ".join(losing["win_from_there"]))
    assert win[0] == parse_solution(losing["instead"])[0] and win[0] in before.legal_steps()
    assert replay_from(before, win).won and losing["moves_to_win"] == len(win)
    assert len(win) == solve_optimal(deal, rules, start=packed_position(before)).moves

    text = run("check", "--seed", str(seed), "--rules", preset, "--solution", moves)
    assert text.exit_code == 1
    lines = text.stdout.splitlines()
    assert lines[0] == replay(deal, rules, steps).message()  # the first line as before
    assert lines[1] == f"Score: {doc['score']:,} points."
    assert lines[2] == f"It stopped being winnable after move {move} ({losing['played']})."
    assert lines[3] == (f"Move {move} could have been {losing['instead']}, which keeps it "
                        f"winnable: {len(win)} moves win from there, this one included "
                        f"(the minimum):")
    assert lines[4:] == describe_steps(deal, rules, win, before, scored=True)


def test_check_says_when_the_deal_was_never_winnable():
    r = run("check", "--seed", str(NEVER_SEED), "--solution", "draw draw")
    assert r.exit_code == 1
    assert r.stdout.splitlines() == ["legal but not won: 2 moves, 28 pyramid cards left",
                                     "Score: 0 points.", "It was never winnable."]
    doc = json.loads(run("check", "--seed", str(NEVER_SEED), "--solution", "draw",
                         "--json").stdout)
    assert doc["losing"] == {"status": "never_winnable", "move": None, "played": None,
                             "instead": None, "win_from_there": [], "moves_to_win": None,
                             "optimal": False, "win_scores": []}


def test_check_on_a_prefix_of_a_shortest_win_says_it_can_still_be_won():
    deal = deal_from_seed(1)
    win = solve_optimal(deal, Rules()).solution
    moves = " ".join(r for r in json.loads(run("solve", "--seed", "1", "--json").stdout)
                     ["solution"][:5])
    r = run("check", "--seed", "1", "--solution", moves)
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert lines[2] == (f"It can still be won: {len(win) - 5} more moves win from here "
                        f"(the minimum).")
    rest = parse_solution(" ".join(line.split()[1] for line in lines[3:]))
    assert replay(deal, Rules(), parse_solution(moves) + rest).won


def test_winning_and_illegal_moves_gain_nothing_but_a_null_losing():
    sol = json.loads(run("solve", "--seed", "1", "--json").stdout)["solution"]
    r = run("check", "--seed", "1", "--solution", " ".join(sol))
    assert r.exit_code == 0 and r.stdout.splitlines()[0] == f"won in {len(sol)} moves"
    for moves, code in ((" ".join(sol), 0), ("draw Kd", 1)):
        r = run("check", "--seed", "1", "--solution", moves, "--json")
        assert r.exit_code == code and json.loads(r.stdout)["losing"] is None
    r = run("check", "--seed", "1", "--solution", "draw Kd")
    assert r.stdout.splitlines() == ["step 2 is illegal: Kd is covered by 7h and 4h",
                                     "Score: 0 points after move 1, the last legal one."]


def test_an_unknown_answer_exits_3(monkeypatch):
    """A search that could not finish (today only when memory runs out) is said so, exit 3."""
    import solver.pyramid.analysis.losing_move as blunder

    monkeypatch.setattr(blunder, "first_losing_move",
                        lambda *args, **kwargs: blunder.LosingMove(blunder.STATUS_UNKNOWN))
    r = run("check", "--seed", "1", "--solution", "draw")
    assert r.exit_code == 3
    assert r.stdout.splitlines()[2].startswith("Where it stopped being winnable is unknown")
    r = run("check", "--seed", "1", "--solution", "draw", "--json")
    assert r.exit_code == 3 and json.loads(r.stdout)["losing"]["status"] == "unknown"
