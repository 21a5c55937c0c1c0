"""``pyramid challenge score`` and ``pyramid challenge cards``: the options, the text and JSON
answers, the exit codes; every line printed is replayed and scored again by the plain checker."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.pyramid.model.deals import Deal, format_deal
from solver.pyramid.model.replay import Position, parse_solution, replay
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
