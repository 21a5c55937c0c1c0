"""The simulate / show commands of Black Maria and Hearts, driven through click."""

import json

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.games.hearts.game import HeartsRules, play_games


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize("game", ["black-maria", "hearts"])
def test_simulate_json(game):
    r = run("simulate", game, "--players", 4, "--games", 300, "--seed", 5, "--jobs", 1, "-q",
            "--json")
    assert r.exit_code == 0, r.stderr
    assert r.stderr == ""
    s = json.loads(r.stdout)
    assert s["games"] == 300 and s["seed"] == 5 and s["rules"]["game"] == game
    assert len(s["penalty_per_deal"]) == 4 and len(s["win_rate"]) == 4
    for m in s["penalty_per_deal"]:
        assert m["lo"] <= m["mean"] <= m["hi"]
    assert s["deal_total"] == (43 if game == "black-maria" else 26)
    assert ("moon_rate" in s) == (game == "hearts")
    rec = play_games(HeartsRules(game, 4), 300, 5)
    assert s["deals"] == len(rec["shooter"])


def test_simulate_text_and_options():
    r = run("simulate", "hearts", "-p", 5, "-n", 200, "--seed", 1, "-j", 1, "-q", "--spot-hearts",
            "--omnibus", "--moon", "subtract", "--target", 300)
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    assert "Hearts, 5 players, target 300 (Spot Hearts, Omnibus, moon: subtract)" in out
    assert "every deal's points sum to 119" in out
    assert "moon rate per deal" in out and "game length in deals" in out
    assert len([line for line in out.splitlines() if line[:1].isdigit() and "[" in line]) == 5


def test_simulate_same_output_for_one_and_two_jobs():
    args = ["simulate", "black-maria", "-n", 500, "--seed", 3, "-q", "--json"]
    assert run(*args, "-j", 1).stdout == run(*args, "-j", 2).stdout


@pytest.mark.parametrize("args,msg", [
    (["simulate", "hearts", "--players", 7], "7"),
    (["simulate", "black-maria", "--moon", "others"], "--moon"),
    (["simulate", "hearts", "--moon", "never"], "never"),
    (["simulate", "hearts", "--target", 0], "0"),
    (["simulate", "hearts", "--games", 0], "0"),
    (["show", "hearts", "--seed", -1], "-1"),
    (["show", "hearts", "--seed", 1, "--deal", 500], "has no deal 500"),
])
def test_bad_input_is_one_line_exit_2(args, msg):
    r = run(*args)
    assert r.exit_code == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and msg in lines[0] and "Traceback" not in r.stderr


def test_show_black_maria_text():
    r = run("show", "black-maria", "--seed", 1, "--players", 3)
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    assert "Black Maria, 3 players" in out and "removed 2c" in out
    assert "passing right:" in out and "seat 0 -> seat 2:" in out
    assert out.count(" leads: ") == 17
    assert "(total 43)" in out


def test_show_hearts_json_matches_simulation():
    r = run("show", "hearts", "--seed", 8, "--players", 4, "--json")
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["pass"] == "left" and d["plays"][0][0] == "2c"
    assert sum(len(h) for h in d["dealt"]) == 52
    rec = play_games(HeartsRules("hearts", 4), 1, 8)
    assert d["points"] == rec["deal_points"][0].tolist()


def test_show_later_deal_and_no_pass():
    r = run("show", "hearts", "--seed", 2, "--deal", 4)
    assert r.exit_code == 0, r.stderr
    assert "passing: none this deal" in r.stdout and "deal 4: seat 3 deals" in r.stdout
    assert "scores before the deal:" in r.stdout
