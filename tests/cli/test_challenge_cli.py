"""``pyramid challenge score`` and ``pyramid challenge cards``: the options, the text and JSON
answers, the exit codes; every line printed is replayed and scored again by the plain checker."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.pyramid.analysis.replay_page import embedded_data
from solver.pyramid.model.deals import Deal, format_deal
from solver.pyramid.model.replay import Position, format_step, parse_solution, replay
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.model.scoring import line_scores, rank_gone

SEED = 3
"""A deal whose challenges settle in a tenth of a second under msc: at most 105 points, 2 aces."""


def run(*args):
    return CliRunner().invoke(cli, ["challenge", *args])


def answer(*args) -> dict:
    result = run(*args, "--json")
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)  # stderr may hold the notice of a first compile


def replayed(deal, rules: Rules, line: list[str]) -> Position:
    done = replay(deal, rules, parse_solution(" ".join(line)))
    assert done.ok, done.reason
    return done.position


def test_score_without_target_is_the_most_points_and_its_line_scores_them():
    doc = answer("score", "--seed", str(SEED))
    assert doc["challenge"] == "score" and doc["outcome"] == "best"
    assert doc["rules"] == PRESETS["msc"].to_dict()  # the challenges' default rules
    assert doc["score"] == doc["most"] == 105 and doc["moves"] == len(doc["line"])
    steps = parse_solution(" ".join(doc["line"]))
    deal = Deal.from_seed(SEED)
    assert line_scores(Position(deal, PRESETS["msc"]), steps)[-1] == doc["score"]
    assert run("score", "--seed", str(SEED)).exit_code == 0


def test_score_target_reached_and_out_of_reach():
    reached = answer("score", "--seed", str(SEED), "--target", "1000", "--current", "950")
    assert reached["outcome"] == "reached" and reached["score"] >= 50
    assert reached["target"] == 1000 and reached["current"] == 950
    short = run("score", "--seed", str(SEED), "--target", "400")
    assert short.exit_code == 1
    assert "Out of reach: at most 105 points, 295 short of the 400 points needed" in short.output


def test_the_text_answer_shows_the_rules_the_line_and_the_running_score():
    out = run("score", "--seed", str(SEED)).stdout.splitlines()
    assert out[0] == f"Seed {SEED} ({PRESETS['msc'].describe()})"
    steps = [line for line in out if line.lstrip()[:1].isdigit() and ". " in line]
    assert steps and steps[-1].split()[-1] == "105"
    assert out[-1].endswith(" ms.") and "positions explored" in out[-1]
    standard = run("score", "--seed", str(SEED), "--rules", "standard").stdout
    assert standard.splitlines()[0] == f"Seed {SEED} ({Rules().describe()})"


def test_cards_counts_the_rank_and_exits_1_when_out_of_reach():
    doc = answer("cards", "--seed", str(SEED), "--rank", "a")
    assert doc["challenge"] == "cards" and doc["rank"] == "A" and doc["count"] == 4
    assert doc["outcome"] == "best" and doc["removed"] == doc["most"]
    pos = replayed(Deal.from_seed(SEED), PRESETS["msc"], doc["line"])
    assert rank_gone(pos, 1) == doc["removed"]
    assert run("cards", "--seed", str(SEED), "--rank", "A").exit_code == 1
    two = answer("cards", "--seed", str(SEED), "--rank", "A", "--count", "3", "--current", "2")
    assert two["outcome"] == "reached" and two["removed"] >= 1
    assert answer("cards", "--seed", str(SEED), "--rank", "10")["rank"] == "T"


@pytest.mark.parametrize("args, words", [
    (["cards", "--seed", "3", "--rank", "X"], "bad --rank: 'X' is not a rank"),
    (["cards", "--seed", "3"], "Missing option '--rank'"),
    (["score", "--seed", "3", "--target", "-5"], "--target"),
    (["score", "--seed", "3", "--deal", "Ac"], "exactly one of --seed"),
    (["score", "--deal", "Ac 2c"], "too few cards"),
    (["score", "--seed", "3", "--after", "Zz"], "bad --after"),
], ids=["rank", "no-rank", "negative-target", "two-deals", "bad-deal", "bad-after"])
def test_bad_input_is_one_line_and_exit_2(args, words):
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert words in result.output


def test_a_limit_leaves_the_answer_unknown_with_exit_3():
    result = run("score", "--seed", str(SEED), "--max-states", "10", "--json")
    assert result.exit_code == 3
    doc = json.loads(result.stdout)
    assert doc["outcome"] == "unknown" and doc["reason"] == "states"


def test_after_and_a_deal_file_of_many_deals(tmp_path):
    deal = Deal.from_seed(SEED)
    after = answer("score", "--deal", format_deal(deal.cards), "--after", "draw draw")
    assert after["after"] == ["draw", "draw"]
    assert replayed(deal, PRESETS["msc"], ["draw", "draw", *after["line"]])
    path = tmp_path / "deals.txt"
    path.write_text(format_deal(deal.cards) + "\n\n" + format_deal(Deal.from_seed(5).cards) + "\n")
    result = run("score", "--deal-file", str(path), "--json", "--max-states", "2000000")
    docs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [d["deal_line"] for d in docs] == [1, 3]  # "line" is the line of play
    assert all(isinstance(d["line"], list) for d in docs)


def test_the_sentences_name_the_rank_in_the_plural():
    out = run("cards", "--seed", str(SEED), "--rank", "6").stdout
    assert "at most 3 sixes, 1 short of the 4 sixes needed" in out and "sixs" not in out


# --------------------------------------------------------------------------- --html

CLEARING = ("--seed", "201", "--rank", "4", "--count", "8", "--recycles", "0")
"""A card challenge whose best line (4 fours) leaves pyramid cards and whose best line that
clears the pyramid removes fewer (3 fours): msc rules with a single pass."""


def page_of(tmp_path, *args, code: int) -> dict:
    """``pyramid challenge ARGS --html FILE``: the page's embedded data."""
    out = tmp_path / "page.html"
    result = run(*args, "--html", str(out))
    assert result.exit_code == code, result.output
    return embedded_data(out.read_text(encoding="utf-8"))


def check_line_data(line: dict, deal, rules: Rules, steps, rank: int | None = None) -> None:
    """A line of a page: its steps, and at every position the replay scorer's running score from
    the deal's start (``line_scores``) and, given a rank, the cards of that rank gone."""
    assert [s["notation"] for s in line["steps"]] == [format_step(s) for s in steps]
    assert [p["score"] for p in line["positions"]] == [0, *line_scores(Position(deal, rules),
                                                                      steps)]
    if rank is not None:
        pos = Position(deal, rules)
        gone = [rank_gone(pos, rank)]
        for step in steps:
            pos.apply(step)
            gone.append(rank_gone(pos, rank))
        assert [p["rank_gone"] for p in line["positions"]] == gone


def test_the_score_page_shows_the_line_with_the_score_as_it_grows(tmp_path):
    doc = answer("score", "--seed", str(SEED), "--target", "400")
    data = page_of(tmp_path, "score", "--seed", str(SEED), "--target", "400", code=1)
    msc = PRESETS["msc"]
    assert data["title"] == f"Seed {SEED}, score challenge: 400 points ({msc.describe()})"
    assert data["verdict"].startswith("Out of reach: at most 105 points, 295 short")
    check_line_data(data, Deal.from_seed(SEED), msc, parse_solution(" ".join(doc["line"])))
    assert data["positions"][-1]["score"] == doc["score"] == 105
    assert (data["rank"], data["more_lines"], data["first"]) == (None, [], 0)


def test_the_card_page_counts_from_the_deals_start_after_the_moves_played(tmp_path):
    deal, msc = Deal.from_seed(SEED), PRESETS["msc"]
    played = answer("score", "--seed", str(SEED))["line"][:7]  # 4c+9c ... 8h+5d: 15 points
    args = ("cards", "--seed", str(SEED), "--rank", "A", "--count", "3", "--current", "1",
            "--after", " ".join(played))
    doc = answer(*args)
    data = page_of(tmp_path, *args, code=0)
    assert doc["outcome"] == "reached" and data["verdict"].startswith("Reached: 2 aces")
    assert data["title"] == (f"Seed {SEED}, card challenge: 3 aces, 1 ace before this deal "
                             f"({msc.describe()})")
    assert (data["rank"], data["rank_name"], data["first"]) == ("A", "aces", 7)
    steps = parse_solution(" ".join(played + doc["line"]))
    check_line_data(data, deal, msc, steps, rank=1)
    assert data["positions"][7]["score"] == 15  # the moves played count
    assert data["positions"][-1]["rank_gone"] == doc["removed"] == 2
    assert any("--after" in note for note in data["notes"])


def test_the_card_page_holds_the_line_that_clears_the_pyramid_too(tmp_path):
    deal, rules = Deal.from_seed(201), PRESETS["msc"].with_options(recycles=0)
    doc = answer("cards", *CLEARING)
    data = page_of(tmp_path, "cards", *CLEARING, code=1)
    clearing = doc["clearing"]
    assert clearing is not None and clearing["removed"] < doc["removed"]
    check_line_data(data, deal, rules, parse_solution(" ".join(doc["line"])), rank=4)
    [other] = data["more_lines"]
    assert other["line"] == "The best line that clears the pyramid"
    check_line_data(other, deal, rules, parse_solution(" ".join(clearing["line"])), rank=4)
    assert other["positions"][-1]["pyramid"] == [None] * 28
    assert data["positions"][-1]["pyramid"] != [None] * 28
    assert (data["positions"][-1]["rank_gone"], other["positions"][-1]["rank_gone"]) == (4, 3)
    assert data["notes"][0].startswith("Clearing the pyramid ends the deal")
    no_clearing = page_of(tmp_path, "cards", "--seed", str(SEED), "--rank", "A", code=1)
    assert no_clearing["more_lines"] == []


def test_html_takes_a_single_deal(tmp_path):
    path = tmp_path / "deals.txt"
    path.write_text(format_deal(Deal.from_seed(SEED).cards) + "\n"
                    + format_deal(Deal.from_seed(5).cards) + "\n")
    result = run("score", "--deal-file", str(path), "--html", str(tmp_path / "x.html"))
    assert result.exit_code == 2 and "--html needs a single deal" in result.output
    assert not (tmp_path / "x.html").exists()
    result = run("cards", "--seed", str(SEED), "--rank", "A", "--html", "-")
    assert result.exit_code == 2 and "--html needs a file name" in result.output


# --------------------------------------------------------------------------- board

def without_times(text: str) -> str:
    return re.sub(r"in [\d.]+ ms\.", "in ... ms.", text)


@pytest.mark.parametrize("seed", [3, 32])
def test_board_is_solve_under_msc_rules_unless_told(seed):
    """The same options (only the preset's default differs), the same answers and exit codes;
    any rule option overrides the msc default, as for the other challenges."""
    from cli.challenge import challenge
    from cli.solve import solve

    board = challenge.commands["board"]
    assert [p.name for p in board.params] == [p.name for p in solve.params]
    assert [p.default for p in board.params if p.name == "preset"] == ["msc"]
    for rules in ([], ["--rules", "standard"], ["--recycles", "0"], ["--goal", "all"]):
        as_solve = rules if rules[:1] == ["--rules"] else ["--rules", "msc", *rules]
        mine = run("board", "--seed", str(seed), *rules)
        theirs = CliRunner().invoke(cli, ["solve", "--seed", str(seed), *as_solve])
        assert mine.exit_code == theirs.exit_code, rules
        assert without_times(mine.stdout) == without_times(theirs.stdout), rules
    doc = json.loads(run("board", "--seed", str(seed), "--json").stdout)
    assert doc["rules"] == PRESETS["msc"].to_dict()


@pytest.mark.parametrize("args, goal", [
    (("score", "--seed", "2", "--target", "100", "--current", "500"),
     "the 500 points of the earlier deals meet the 100 points asked"),
    (("cards", "--seed", "2", "--rank", "K", "--count", "3", "--current", "3"),
     "the 3 kings of the earlier deals meet the 3 kings asked"),
])
def test_a_challenge_met_before_the_deal_needs_no_move(args, goal):
    """Earlier deals that already met the challenge: reached, no move, said so (not "-400 points
    needed")."""
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert f"Reached before this deal: {goal}; no move is needed." in result.stdout
    assert "-" not in result.stdout.split("Reached")[1].split(".")[0]
    data = answer(*args)
    assert data["outcome"] == "reached" and data["moves"] == 0 and data["line"] == []
