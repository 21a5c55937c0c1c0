"""Old Maid commands through click: output, JSON, reproducibility and one-line errors."""

import json

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.core.cards import format_card
from solver.games.oldmaid.engine import OldMaidRules, play_game, simulation_game
from solver.games.oldmaid.sim import simulate_records


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def one_line_error(result, *words):
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:")
    assert "Traceback" not in result.stderr
    for w in words:
        assert w in lines[0]


def test_simulate_text_report():
    r = run("simulate", "old-maid", "--players", 3, "--games", 3000, "--seed", 4, "-q", "-j", 1)
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    assert "3 players" in out and "3000 games, seed 4" in out
    for place in ("  the dealer ", "  left of the dealer ", "  2nd left of the dealer "):
        assert place in out
    assert "95% Wilson interval" in out and "Game length in draws: mean" in out
    assert "p50" in out and "#" in out
    assert r.stderr == ""  # --quiet: no progress bar


def test_simulate_json_matches_the_engine():
    r = run("simulate", "old-maid", "-p", 4, "-n", 2000, "--seed", 9, "--variant", "colour",
            "--variant", "joker", "--json", "-q", "-j", 1)
    assert r.exit_code == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["game"] == "old-maid" and res["seed"] == 9
    assert res["rules"] == {"name": "colour+joker", "variants": ["colour", "joker"], "players": 4}
    assert res["players"] == 4
    rec = simulate_records(9, 2000, 4, OldMaidRules(colour=True, joker=True))
    assert [d["losses"] for d in res["loss"]] == [int((rec["loser"] == s).sum()) for s in range(4)]
    assert res["old_maid_card"] == {"RJ": 2000}
    assert res["draws"]["n"] == 2000 and sum(res["draws"]["histogram"].values()) == 2000
    for d in res["loss"]:
        assert d["lo"] <= d["p"] <= d["hi"]


def test_simulate_same_output_whatever_the_job_count():
    args = ["simulate", "old-maid", "-n", 45_000, "--seed", 3, "--json", "-q"]
    assert run(*args, "-j", 1).stdout == run(*args, "-j", 2).stdout


def test_progress_bar_goes_to_stderr():
    r = run("simulate", "old-maid", "-n", 1000, "--seed", 1, "--json", "-j", 1, "--progress")
    assert r.exit_code == 0
    json.loads(r.stdout)  # stdout holds only the JSON document
    assert "old-maid" in r.stderr
    # stderr is not a terminal here: without --progress no bar
    assert run("simulate", "old-maid", "-n", 1000, "--seed", 1, "-j", 1).stderr == ""


@pytest.mark.parametrize("args,words", [
    (["--variant", "joker,jack"], ["--variant", "cannot be combined"]),
    (["--variant", "queen"], ["unknown Old Maid variant"]),
    (["--players", 5], ["--players"]),
    (["--games", 0], ["--games"]),
    (["--seed", -1], ["--seed"]),
    (["--jobs", -2], ["--jobs"]),
])
def test_simulate_bad_input_is_one_line(args, words):
    one_line_error(run("simulate", "old-maid", "-q", *args), *words)


def test_show_prints_deal_discards_and_game():
    r = run("show", "old-maid", "--seed", 3, "--players", 3)
    assert r.exit_code == 0, r.stderr
    g = play_game(3, 3)
    out = r.stdout
    assert "Dealt (one card at a time from the dealer's left):" in out
    assert "After the pair discards:" in out and "Play:" in out
    assert f"Seat {g.loser} (" in out and f"loses after {g.draws} draws" in out
    assert len([ln for ln in out.splitlines() if " draws " in ln and "from seat" in ln]) \
        == g.draws
    short = run("show", "old-maid", "--seed", 3, "--no-draws")
    assert "Play:" not in short.stdout and "After the pair discards:" in short.stdout


def test_show_json_and_game_of_a_run():
    r = run("show", "old-maid", "--seed", 12, "-p", 4, "--game", 6, "--json")
    assert r.exit_code == 0, r.stderr
    res = json.loads(r.stdout)
    g = simulation_game(12, 6, 4)
    assert res["dealer"] == 6 % 4 == g.dealer
    assert res["loser"] == g.loser and res["old_maid"] == format_card(g.last_card)
    assert len(res["draws"]) == g.draws and sum(map(len, res["dealt"])) == 51
    rec = simulate_records(12, 7, 4)
    assert res["loser_seat"] == rec["loser"][6] and len(res["draws"]) == rec["draws"][6]


@pytest.mark.parametrize("args,words", [
    (["--seed", 1, "--dealer", 3], ["--dealer", "0..2"]),
    (["--seed", 1, "--game", 2, "--dealer", 1], ["--dealer", "--game"]),
    (["--seed", 1, "--variant", "jack,joker"], ["cannot be combined"]),
])
def test_show_bad_input_is_one_line(args, words):
    one_line_error(run("show", "old-maid", *args), *words)


def test_analyse_text_and_json():
    r = run("analyse", "old-maid", "--seed", 5, "-p", 2, "--trials", 3000, "-q", "-j", 1)
    assert r.exit_code == 0, r.stderr
    assert "Hands after the pair discards:" in r.stdout
    assert "3000 random-play trials of this deal" in r.stdout
    assert "seat 0 (dealer)" in r.stdout and "seat 1" in r.stdout
    assert "the dealer (seat 0)" in r.stdout and "left of the dealer (seat 1)" in r.stdout
    j = run("analyse", "old-maid", "--seed", 5, "-p", 2, "--trials", 3000, "-q", "-j", 1, "--json")
    res = json.loads(j.stdout)
    assert res["trials"] == 3000 and sum(d["losses"] for d in res["loss"]) == 3000


def test_analyse_bad_input_is_one_line():
    one_line_error(run("analyse", "old-maid", "--seed", 5, "--trials", 0), "--trials")
    one_line_error(run("analyse", "old-maid", "--seed", 5, "-p", 2, "--dealer", 2), "--dealer")
    one_line_error(run("analyse", "old-maid", "--trials", 10**9), "--trials")


def test_seed_defaults_to_0_and_the_old_spelling_still_works():
    """``show``/``analyse`` without --seed use seed 0 (as every game's show and simulate do);
    ``oldmaid`` is still accepted for ``old-maid``."""
    for cmd in (["show"], ["analyse", "--trials", 200, "-q", "-j", 1]):
        default = run(cmd[0], "old-maid", *cmd[1:], "--json")
        assert default.exit_code == 0, default.stderr
        assert json.loads(default.stdout)["seed"] == 0
        assert default.stdout == run(cmd[0], "oldmaid", *cmd[1:], "--seed", 0, "--json").stdout


def test_analyse_names_seats_and_places_from_the_dealer_apart():
    """With dealer 2 of 4 a hand line named both 'seat 0 (dealer)' (the place from the dealer)
    and 'player 2' (the seat): now seats are seats, and a place from the dealer is said in
    words with its seat."""
    r = run("analyse", "old-maid", "--seed", 5, "-p", 4, "--dealer", 2, "--trials", 500, "-q",
            "-j", 1)
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].endswith("4 players, dealer seat 2")
    hands = lines[lines.index("Hands after the pair discards:") + 1:][:4]
    assert [h.split()[:2] for h in hands] == [["seat", "2"], ["seat", "3"], ["seat", "0"],
                                              ["seat", "1"]]
    assert hands[0].startswith("  seat 2 (dealer) ") and "player " not in r.stdout
    places = [line.split("  ")[1] for line in lines if " of the dealer (seat " in line
              or line.startswith("  the dealer (seat ")]
    assert places == ["the dealer (seat 2)", "left of the dealer (seat 3)",
                      "2nd left of the dealer (seat 0)", "3rd left of the dealer (seat 1)"]


def test_show_calls_the_seats_seats():
    r = run("show", "old-maid", "--seed", 42, "--players", 4, "--dealer", 1)
    assert r.exit_code == 0, r.stderr
    assert "dealer seat 1" in r.stdout and "  seat 1 (dealer) " in r.stdout
    assert "player " not in r.stdout.lower()
    assert r.stdout.splitlines()[-1].startswith("Seat ")
    assert " of the dealer) holds the Old Maid" in r.stdout or \
        "(the dealer) holds the Old Maid" in r.stdout
