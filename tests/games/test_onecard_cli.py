"""One Card commands: output on stdout, JSON, reproducibility and one-line errors (exit 2)."""

import json

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.core.cards import format_card
from solver.games.onecard.sim import first_round


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_simulate_text_report():
    r = run("simulate", "one-card", "--players", "3", "--games", "500", "--seed", "4", "-j", "1",
            "-q")
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    assert out.startswith("One Card: 3 players, 8 cards each, bids 7..15, joker RJ, game to 30")
    for label in ("seat 0 (dealer)", "seat 1 (left)", "seat 2", "Bidder makes the bid:",
                  "Nobody bids:", "Game length in rounds:", "500 games"):
        assert label in out
    assert "seat 3" not in out
    assert r.stderr == ""


def test_simulate_json_matches_and_is_reproducible_across_jobs():
    args = ["simulate", "one-card", "--games", "800", "--seed", "12", "--json", "-q"]
    a = run(*args, "--jobs", "1")
    b = run(*args, "--jobs", "2")
    assert a.exit_code == b.exit_code == 0
    assert a.stdout == b.stdout
    res = json.loads(a.stdout)
    assert res["games"] == 800 and res["seed"] == 12 and res["rules"]["players"] == 4
    assert len(res["seats"]) == 4
    for key in ("bid_made", "no_bid", "game_length", "winning_bid"):
        assert key in res
    assert res["seats"][0]["win_rate"]["lo"] <= res["seats"][0]["win_rate"]["p"]


def test_simulate_no_joker_option():
    r = run("simulate", "one-card", "--games", "200", "--no-joker", "--json", "-q", "-j", "1")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["rules"]["joker"] == "2d"


def test_progress_bar_goes_to_stderr_only():
    r = run("simulate", "one-card", "--games", "300", "--json", "-j", "1", "--progress")
    assert r.exit_code == 0
    json.loads(r.stdout)
    assert "one-card" in r.stderr


def test_show_prints_the_deal_and_the_round_trick_by_trick():
    r = run("show", "one-card", "--seed", "1", "--players", "4")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    log = first_round(1, 4)
    assert f"Dealer: player {log.dealer}; players 0..3 clockwise" in lines
    assert sum(line.strip().startswith("trick") for line in lines) == 6
    assert "one card (face down)" in r.stdout
    assert lines[-1].startswith("Round scores: player 0 ")


def test_show_golden_round():
    """Pins the random-play protocol: seed 1, 4 players (the round in docs/onecard.md)."""
    r = run("show", "one-card", "--seed", "1", "--players", "4")
    tricks = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("trick")]
    assert tricks == [
        "trick  1: p1 Js, p2 As, p3 Ks, p0 RJ  -> player 2  (trump: spades)",
        "trick  2: p2 Qc, p3 9c, p0 Tc, p1 Kc  -> player 1",
        "trick  3: p1 Td, p2 Jd, p3 Qd, p0 Qs  -> player 0",
        "trick  4: p0 9s, p1 Jc, p2 Ts, p3 9d  -> player 2",
        "trick  5: p2 Qh, p3 Ah, p0 Kh, p1 Th  -> player 3",
        "trick  6: p3 9h, p0 Ac, p1 Kd, p2 Ad  -> player 3",
    ]
    assert "Player 1 falls short of the bid of 15." in r.stdout
    # The bid limit is in the rules line once, not repeated after the winning bid.
    assert "is the highest bid" not in r.stdout


def test_show_another_game_of_the_run():
    r = run("show", "one-card", "--seed", "1", "--game", "3", "--json")
    assert r.exit_code == 0
    d = json.loads(r.stdout)
    assert d["game"] == "one-card" and d["seed"] == 1 and d["game_index"] == 3
    assert d["hands"] == [" ".join(map(format_card, h)) for h in first_round(1, 4, game=3).hands]


def test_show_json_and_no_joker():
    r = run("show", "one-card", "--seed", "3", "--players", "3", "--no-joker", "--json")
    assert r.exit_code == 0
    d = json.loads(r.stdout)
    assert d["game"] == "one-card" and d["rules"]["joker"] == "2d"
    assert len(d["tricks"]) == 8 and sum(d["captured"]) == 27
    assert sum(len(h.split()) for h in d["hands"]) == 24


@pytest.mark.parametrize("args", [
    ["simulate", "one-card", "--players", "5"],
    ["simulate", "one-card", "--players", "1"],
    ["simulate", "one-card", "--games", "0"],
    ["simulate", "one-card", "--seed", "-3"],
    ["simulate", "one-card", "--jobs", "-1"],
    ["show", "one-card", "--game", str(10**8)],
    ["show", "one-card", "--seed", "x"],
    ["show", "one-card", "--seed", "1", "--players", "7"],
    ["show", "one-card", "--seed", "1", "--game", "-2"],
])
def test_bad_input_is_one_line_on_stderr_and_exit_2(args):
    r = run(*args)
    assert r.exit_code == 2
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("Error:")
