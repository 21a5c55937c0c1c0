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
    for label in ("\nthe dealer ", "\nleft of the dealer ", "\n2nd left of the dealer ",
                  "Bidder makes the bid:", "Nobody bids:", "Game length in rounds:", "500 games"):
        assert label in out
    assert "3rd left" not in out and "seat" not in out
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
    assert f"Dealer: seat {log.dealer}; seats 0..3 clockwise" in lines
    assert sum(line.strip().startswith("trick") for line in lines) == 6
    assert "one card (face down)" in r.stdout
    assert lines[-1].startswith("Round scores: seat 0 ")


def test_show_golden_round():
    """Pins the random-play protocol: seed 1, 4 players (the round in docs/onecard.md)."""
    r = run("show", "one-card", "--seed", "1", "--players", "4")
    tricks = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("trick")]
    assert tricks == [
        "trick  1: s1 Js, s2 As, s3 Ks, s0 RJ  -> seat 2  (trump: spades)",
        "trick  2: s2 Qc, s3 9c, s0 Tc, s1 Kc  -> seat 1",
        "trick  3: s1 Td, s2 Jd, s3 Qd, s0 Qs  -> seat 0",
        "trick  4: s0 9s, s1 Jc, s2 Ts, s3 9d  -> seat 2",
        "trick  5: s2 Qh, s3 Ah, s0 Kh, s1 Th  -> seat 3",
        "trick  6: s3 9h, s0 Ac, s1 Kd, s2 Ad  -> seat 3",
    ]
    assert "Seat 1 falls short of the bid of 15." in r.stdout
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
