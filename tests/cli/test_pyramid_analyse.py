"""``pyramid analyse`` for a Pyramid deal: its text and JSON, the rules matrix, and bad input.

The analysis itself is tested in ``tests/pyramid`` (partial results, reasons, choices, playouts);
here the command is checked to print what the analysis found, in one JSON vocabulary, with the
documented exit codes, and to refuse bad input in one line.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli.analyse import PLAYOUTS_TEXT
from cli.main import cli
from solver.pyramid.model.deals import deal_from_seed, format_deal
from solver.pyramid.analysis.rules_matrix import matrix_rules, rules_matrix
from solver.pyramid.model.outcome import Outcome
from tests.faults import assert_clean_failure, run_pyramid


def invoke(*args):
    return CliRunner().invoke(cli, ["analyse", *map(str, args)], catch_exceptions=False)


def test_playouts_default_in_help_is_the_solver_default():
    from solver.pyramid.analysis.playouts import DEFAULT_PLAYOUTS

    assert PLAYOUTS_TEXT == f"{DEFAULT_PLAYOUTS:,}"


def test_all_rules_table_shows_every_combination():
    res = invoke("--seed", 1, "--all-rules", "-q")
    assert res.exit_code == 0, res.stdout
    rows = rules_matrix(deal_from_seed(1))
    text = res.stdout.splitlines()
    grid = text[text.index("recycles  pyramid all     pyramid all     pyramid all     "
                           "pyramid all") + 1:][:4]
    expected = []
    for rec, name in ((0, "0"), (1, "1"), (2, "2"), (None, "unlimited")):
        cells = [("won" if r.moves is None else str(r.moves)) if r.outcome == Outcome.WON
                 else "lost" for r in rows if r.rules.recycles == rec]
        expected.append([name, *cells])
    assert [line.split() for line in grid] == expected
    assert any(line.startswith("overlap pairs: winnable with, lost without") for line in text)


def test_all_rules_json():
    res = invoke("--seed", 1, "--all-rules", "--json")
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert doc["seed"] == 1 and doc["deal"] == format_deal(deal_from_seed(1))
    assert [r["rules"] for r in doc["matrix"]] == [r.to_dict() for r in matrix_rules()]
    assert {r["outcome"] for r in doc["matrix"]} == {"won", "lost"}
    assert len(doc["findings"]) == 4


@pytest.mark.parametrize("args, code, mentions", [
    (["--seed", 1, "--all-rules", "--rules", "msc"], 2, "--rules"),
    (["--seed", 1, "--all-rules", "--no-overlap"], 2, "--overlap"),
    (["--seed", 1, "--all-rules", "--after", "draw"], 2, "--after"),
    (["--seed", 1, "--playouts", "-1"], 2, "--playouts"),
    (["--seed", 1, "--playouts", "many"], 2, "--playouts"),
    (["--seed", 1, "--playouts", "100000000"], 2, "--playouts"),
    (["--seed", 1, "--jobs", "-2"], 2, "--jobs"),
    (["--seed", 1, "--after", "6h+7c"], 2, "--after"),
    (["--seed", 1, "--deal", format_deal(deal_from_seed(1))], 2, "exactly one"),
    (["--json"], 2, "exactly one"),
    (["--seed", 1, "old-maid"], 2, "goes after the game name"),
    (["--seed", "x"], 2, "--seed"),
])
def test_bad_input_is_one_line(args, code, mentions):
    assert_clean_failure(run_pyramid(["analyse", *args]), code, mentions)


def test_a_file_of_two_deals_is_refused(tmp_path):
    path = tmp_path / "two.txt"
    path.write_text(format_deal(deal_from_seed(1)) + "\n" + format_deal(deal_from_seed(2)) + "\n")
    assert_clean_failure(run_pyramid(["analyse", "--deal-file", path]), 2, "one deal")


def test_bare_analyse_prints_help():
    res = run_pyramid(["analyse"])
    assert res.returncode == 0
    assert "Usage: pyramid analyse" in res.stdout


# --------------------------------------------------------------------------- the analysis

LOST_WITH_REASON = 7
LOST_WITHOUT_REASON = 357
"""Standard-rules deals lost with a short reason and without one (``find_reason`` is None)."""
WON = 1


def analyse_json(*args) -> dict:
    res = invoke(*args, "--json")
    assert res.exit_code in (0, 1, 3), res.stdout
    return json.loads(res.stdout)


def replays_to(seed: int, line: list[str], rules_args=()) -> dict:
    """``pyramid check`` of ``line`` on deal ``seed``: its JSON."""
    res = CliRunner().invoke(cli, ["check", "--seed", str(seed), *rules_args, "--solution",
                                   " ".join(line) or "draw", "--json"])
    return json.loads(res.stdout.splitlines()[0])


@pytest.mark.parametrize("rules_args", [(), ("--rules", "msc")])
def test_lost_deal_reason_and_partial_line_replay(rules_args):
    doc = analyse_json("--seed", LOST_WITH_REASON, *rules_args)
    assert doc["outcome"] == "lost" and doc["reason"] is None
    assert doc["loss_reason"] == doc["loss_proof"]["kind"]
    part = doc["partial"]
    assert part["exact"] and part["best"] == part["upper"] < part["most"] == 28
    assert part["moves"] == len(part["line"]) > 0
    check = replays_to(LOST_WITH_REASON, part["line"], rules_args)
    assert check["outcome"] == "incomplete" and check["moves"] == part["moves"]
    assert 28 - check["pyramid_left"] == part["best"]
    text = invoke("--seed", LOST_WITH_REASON, *rules_args, "-q").stdout
    assert f"Why: {doc['loss_proof']['text'][:60]}" in " ".join(text.split())
    assert (f"Best partial result: {part['best']} of 28 pyramid cards removed, in "
            f"{part['moves']} moves") in text
    assert invoke("--seed", LOST_WITH_REASON, *rules_args, "-q").exit_code == 1


def test_lost_deal_without_a_short_reason_says_so():
    doc = analyse_json("--seed", LOST_WITHOUT_REASON)
    assert doc["outcome"] == "lost" and doc["loss_reason"] is None and doc["loss_proof"] is None
    text = invoke("--seed", LOST_WITHOUT_REASON, "-q").stdout
    assert f"Why: no short reason: proven by trying all {doc['states']:,} positions." in text


def test_won_deal_choices_playouts_and_rank():
    doc = analyse_json("--seed", WON, "--playouts", 2000)
    assert doc["outcome"] == "won" and doc["optimal"]
    assert [c["move"] for c in doc["choices"]] == list(range(1, doc["moves"] + 1))
    assert [c["played"] for c in doc["choices"]] == doc["solution"]
    assert all(1 <= c["winning"] <= c["legal"] for c in doc["choices"])
    assert doc["narrow_steps"] == [c["move"] for c in doc["choices"]
                                   if c["winning"] == 1 and c["legal"] > 1]
    rates = doc["playouts"]
    assert rates["games"] == 2000 and rates["random"]["n"] == rates["greedy"]["n"] == 2000
    assert 0 <= doc["harder_than"] <= 1
    assert doc["partial"] is None and doc["loss_reason"] is None
    text = invoke("--seed", WON, "--playouts", 2000, "-q").stdout
    assert "Winnable: minimum 55 moves." in text
    assert "Difficulty: harder than" in text and "Random play wins" in text


def test_playouts_do_not_depend_on_jobs():
    one = analyse_json("--seed", WON, "--playouts", 3000, "-j", 1, "-q")
    two = analyse_json("--seed", WON, "--playouts", 3000, "-j", 2, "-q")
    assert one["playouts"] == two["playouts"]
    other = analyse_json("--seed", WON, "--playouts", 3000, "--playout-seed", 5, "-q")
    assert other["playouts"]["seed"] == 5


def test_no_playouts():
    doc = analyse_json("--seed", WON, "--playouts", 0)
    assert doc["playouts"] is None and doc["harder_than"] is None


def test_after_moves_analyses_the_position_reached():
    doc = analyse_json("--seed", WON, "--after", "Kc Kh")
    assert doc["after"] == ["Kc", "Kh"] and doc["outcome"] == "won" and doc["moves"] == 53
    assert doc["harder_than"] is None  # the table ranks whole deals only
    lost = analyse_json("--seed", WON, "--after", "draw draw draw Kc")
    assert lost["outcome"] in ("won", "lost")


def test_a_limit_gives_unknown_with_bounds():
    res = invoke("--seed", LOST_WITHOUT_REASON, "--max-states", 50, "--json")
    assert res.exit_code == 3
    doc = json.loads(res.stdout)
    assert doc["outcome"] == "unknown" and doc["reason"] == "states"
    part = doc["partial"]
    assert not part["exact"] and part["best"] <= part["upper"] and part["reason"] == "states"
    check = replays_to(LOST_WITHOUT_REASON, part["line"])
    assert 28 - check["pyramid_left"] == part["best"]


def test_a_won_position_is_said_to_be_won():
    solution = analyse_json("--seed", WON, "--playouts", 0)["solution"]
    res = invoke("--seed", WON, "--after", " ".join(solution), "-q")
    assert res.exit_code == 0
    assert res.stdout.splitlines()[-1] == "The deal is already won."
    doc = analyse_json("--seed", WON, "--after", " ".join(solution))
    assert doc["moves"] == 0 and doc["playouts"] is None and doc["choices"] == []


def test_no_rank_from_fewer_playouts_than_the_table_had():
    from solver.pyramid.analysis.difficulty import PLAYOUTS_PER_DEAL

    few = analyse_json("--seed", WON, "--playouts", PLAYOUTS_PER_DEAL - 1)
    assert few["harder_than"] is None and few["playouts"]["games"] == PLAYOUTS_PER_DEAL - 1
    text = invoke("--seed", WON, "--playouts", 10, "-q").stdout
    assert "No difficulty rank: it needs at least 1,000 playouts" in text
    enough = analyse_json("--seed", WON, "--playouts", PLAYOUTS_PER_DEAL)
    assert enough["harder_than"] is not None
    other_rules = invoke("--seed", WON, "--recycles", 1, "--playouts", 1000, "-q").stdout
    assert "No difficulty rank: the table covers the rules of the presets only" in other_rules


def test_a_win_found_by_the_partial_search_under_a_limit_is_a_win():
    res = invoke("--seed", WON, "--max-states", 2000, "--json")
    doc = json.loads(res.stdout)
    assert res.exit_code == 0
    assert doc["outcome"] == "won" and doc["winnable"] and not doc["optimal"]
    assert doc["lower_bound"] <= 55 <= doc["moves"] == len(doc["solution"])
    assert doc["choices"] == [] and doc["choices_stopped"] == "states"
    assert replays_to(WON, doc["solution"])["outcome"] == "won"
    text = invoke("--seed", WON, "--max-states", 2000, "-q").stdout
    assert f"Winnable: a winning line of {doc['moves']} moves." in text
    assert "The minimum is at least" in text


def test_all_rules_exit_3_when_a_limit_leaves_a_combination_unknown():
    res = invoke("--seed", WON, "--all-rules", "--max-states", 100, "-q")
    assert res.exit_code == 3 and "?" in res.stdout
    assert "1: 1 of 8 (5 unknown)" in res.stdout


def test_check_under_goal_all_counts_the_stock_and_waste():
    res = CliRunner().invoke(cli, ["check", "--seed", "1", "--goal", "all", "--solution",
                                   "Kc Kh", "--json"])
    doc = json.loads(res.stdout)
    assert doc["pyramid_left"] == 26 and doc["pile_left"] == 24
    text = CliRunner().invoke(cli, ["check", "--seed", "1", "--goal", "all", "--solution",
                                    "Kc Kh"]).stdout
    assert text.splitlines()[0] == ("legal but not won: 2 moves, 26 pyramid cards left and 24 "
                                    "in the stock and waste")
