"""`pyramid solve` (minimum moves by default, --any, --max-states, --timeout, --after) and
`pyramid hint`, driven through click's CliRunner."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.model.replay import parse_solution, replay
from solver.pyramid.model.rules import PRESETS, Rules
from tests.faults import error_lines

SEED = 12          # standard rules: a minimum of 48 moves
SEED_MSC = 12      # msc: a minimum of 37 moves
LOST_SEED = 3      # lost under the standard rules
HARD_SEED = 10     # standard: 63 moves, about a million positions


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def solve_json(*args) -> dict:
    res = run("solve", *args, "--json")
    assert res.exit_code in (0, 1, 3), res.stderr
    return json.loads(res.stdout)


def test_solve_gives_a_minimum_solution_by_default():
    res = run("solve", "--seed", SEED)
    assert res.exit_code == 0, res.stderr
    assert "Winnable: minimum 48 moves." in res.stdout
    assert error_lines(res.stderr) == []  # a "Compiling ..." notice on a cold cache is allowed


def test_solve_json_fields_and_the_solution_replays():
    d = solve_json("--seed", SEED)
    assert d["outcome"] == "won" and d["optimal"] is True and d["moves"] == 48
    assert isinstance(d["lower_bound"], int) and d["lower_bound"] <= 48
    assert d["states"] > 0 and d["seconds"] >= 0
    steps = parse_solution(" ".join(d["solution"]))
    r = replay(deal_from_seed(SEED), Rules(), steps)
    assert r.ok and r.won and r.moves == 48


def test_solve_msc_preset():
    d = solve_json("--seed", SEED_MSC, "--rules", "msc")
    assert d["moves"] == 37 and d["optimal"] is True
    r = replay(deal_from_seed(SEED_MSC), PRESETS["msc"], parse_solution(" ".join(d["solution"])))
    assert r.ok and r.won


def test_any_keeps_the_fast_first_found_solution():
    d = solve_json("--seed", SEED, "--any")
    assert d["outcome"] == "won" and d["optimal"] is False and d["moves"] >= 48


def test_lost_deal_exit_1():
    res = run("solve", "--seed", LOST_SEED)
    assert res.exit_code == 1
    assert "Not winnable." in res.stdout


@pytest.mark.parametrize("limit, reason, text", [
    (["--max-states", "2000"], "states", "--max-states limit reached"),
    (["--timeout", "0.000001"], "timeout", "--timeout reached"),
])
def test_limit_gives_unknown_exit_3_with_the_lower_bound(limit, reason, text):
    res = run("solve", "--seed", HARD_SEED, *limit)
    assert res.exit_code == 3, res.stderr
    assert f"Unknown ({text}) (at least" in res.stdout
    d = solve_json("--seed", HARD_SEED, *limit)
    assert d["outcome"] == "unknown" and d["optimal"] is False and d["solution"] == []
    assert d["reason"] == reason
    assert 14 <= d["lower_bound"] <= 63


@pytest.mark.parametrize("args", [["--timeout", "0"], ["--timeout", "-1"], ["--timeout", "x"],
                                  ["--max-states", "-3"]])
def test_bad_limits_are_input_errors(args):
    res = run("solve", "--seed", SEED, *args)
    assert res.exit_code == 2
    assert res.stdout == ""


def test_after_solves_from_the_position_reached():
    full = solve_json("--seed", SEED)
    played = " ".join(full["solution"][:5])
    d = solve_json("--seed", SEED, "--after", played)
    assert d["moves"] == 48 - 5 and d["after"] == full["solution"][:5]
    deal = deal_from_seed(SEED)
    r = replay(deal, Rules(), parse_solution(played + " " + " ".join(d["solution"])))
    assert r.ok and r.won and r.moves == 48


def test_after_with_any():
    full = solve_json("--seed", SEED)
    d = solve_json("--seed", SEED, "--any", "--after", " ".join(full["solution"][:3]))
    assert d["outcome"] == "won"
    r = replay(deal_from_seed(SEED), Rules(),
               parse_solution(" ".join(full["solution"][:3] + d["solution"])))
    assert r.ok and r.won


@pytest.mark.parametrize("after,words", [
    ("draw recycle", ["step 2", "recycle"]),
    ("draw zz", ["step 2", "zz"]),
    ("Jc+2h", ["step 1", "Jc+2h", "covered"]),  # Jc is the apex of deal 12
])
def test_illegal_after_is_an_input_error_naming_the_step(after, words):
    res = run("solve", "--seed", SEED, "--after", after)
    assert res.exit_code == 2
    assert res.stdout == ""
    [line] = error_lines(res.stderr)
    assert "\n" not in line and line.startswith("Error: bad --after")
    for w in words:
        assert w in line


def test_hint_prints_the_next_move_and_the_moves_left():
    full = solve_json("--seed", SEED)
    res = run("hint", "--seed", SEED)
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith(f"Next move: {full['solution'][0]} ")
    assert "48 moves to win" in res.stdout


def test_hint_after_moves_and_json():
    full = solve_json("--seed", SEED)
    res = run("hint", "--seed", SEED, "--after", " ".join(full["solution"][:47]), "--json")
    assert res.exit_code == 0, res.stderr
    d = json.loads(res.stdout)
    assert d["outcome"] == "won" and d["moves_left"] == 1
    assert d["next"] == full["solution"][47]


def test_hint_when_already_won():
    full = solve_json("--seed", SEED)
    res = run("hint", "--seed", SEED, "--after", " ".join(full["solution"]))
    assert res.exit_code == 0
    assert "already won" in res.stdout


def test_hint_on_a_lost_position():
    res = run("hint", "--seed", LOST_SEED)
    assert res.exit_code == 1
    assert "can no longer be won" in res.stdout


def test_hint_limit_exit_3():
    res = run("hint", "--seed", HARD_SEED, "--max-states", "1000")
    assert res.exit_code == 3
    assert "at least" in res.stdout


def test_hint_bad_after_exit_2():
    res = run("hint", "--seed", SEED, "--after", "7h+6c+2d")
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.count("\n") == 1
