"""``pyramid check`` shows the score: the score its legal moves earn (text and JSON), the running
score after each of them (JSON ``scores``) and along the win it suggests (the text's numbered
steps, JSON ``losing.win_scores``), all counted from the deal's start. Compared here with the
replay scorer, ``scoring.line_scores``, on random legal lines under several rule combinations,
and with a score written out from the table (``table_score``) at the end of each line."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.core.cards import card_rank
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.model.layout import ROW_OF
from solver.pyramid.model.replay import Position, format_step, parse_solution, replay
from solver.pyramid.model.rules import PRESETS
from solver.pyramid.model.scoring import line_scores

RULES = {
    "standard": ("--rules", "standard"),
    "msc": ("--rules", "msc"),
    "msc, goal all": ("--rules", "msc", "--goal", "all"),
    "one pass, stock top": ("--recycles", "0", "--stock-top"),
}
"""Rule combinations (command-line options) the lines are checked under."""
BONUS_BOTTOM_UP = (25, 50, 75, 100, 150, 250, 500)
"""The row bonuses of the scoring table, written out from issue 32 (bottom row first)."""


def rules_of(args) -> object:
    from cli.options import rules_from_options

    opts = dict(zip(args[::2], args[1::2]))
    return rules_from_options(opts.get("--rules", "standard"), opts.get("--recycles"), None,
                              True if "--stock-top" in args else None, opts.get("--goal"))


def random_line(deal, rules, seed: int, length: int) -> list:
    """Up to ``length`` random legal steps (removals preferred to draws) from the deal's start."""
    rng = random.Random(seed)
    pos = Position(deal, rules)
    steps = []
    while len(steps) < length and pos.legal_steps() and not pos.is_won():
        legal = pos.legal_steps()
        removing = [s for s in legal if s[0] in ("pair", "king")]
        step = rng.choice(removing if removing and rng.random() < 0.85 else legal)
        pos.apply(step)
        steps.append(step)
    return steps


def table_score(deal, rules, steps) -> int:
    """The score after ``steps``, from the table alone: 5 a card pair or a king, and each
    emptied row's bonus."""
    pos = replay(deal, rules, steps).position
    gone = {int(c) for s in steps if s[0] in ("pair", "king") for c in s[1:]}
    kings = sum(card_rank(c) == 13 for c in gone)
    rows_left = {int(ROW_OF[p]) for p in range(28) if pos.present >> p & 1}
    return (5 * kings + 5 * (len(gone) - kings) // 2
            + sum(BONUS_BOTTOM_UP[6 - r] for r in range(7) if r not in rows_left))


def check(*args) -> CliRunner:
    return CliRunner().invoke(cli, ["check", *map(str, args)])


@pytest.mark.parametrize("name", sorted(RULES))
@pytest.mark.parametrize("seed", [2, 11, 32, 375])
def test_the_running_score_is_the_replay_scorers(seed, name):
    rules_args = RULES[name]
    rules = rules_of(rules_args)
    deal = deal_from_seed(seed)
    steps = random_line(deal, rules, seed, 40)
    moves = " ".join(format_step(s) for s in steps)
    result = check("--seed", seed, *rules_args, "--solution", moves, "--json")
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    assert doc["rules"] == rules.to_dict() and doc["moves"] == len(steps)
    assert doc["scores"] == line_scores(Position(deal, rules), steps)
    assert doc["score"] == doc["scores"][-1] == table_score(deal, rules, steps)
    text = check("--seed", seed, *rules_args, "--solution", moves).stdout.splitlines()
    assert text[1] == f"Score: {doc['score']:,} points."
    losing = doc["losing"]
    if losing and losing["win_from_there"]:
        before = len(steps) if losing["move"] is None else losing["move"] - 1
        win = parse_solution(" ".join(losing["win_from_there"]))
        start = replay(deal, rules, steps[:before]).position
        assert losing["win_scores"] == line_scores(start, win)
        assert losing["win_scores"][-1] == table_score(deal, rules, steps[:before] + win)
        numbered = [line for line in text[2:] if line.lstrip()[:1].isdigit()]
        assert [int(line.split()[-1].replace(",", "")) for line in numbered] == \
            losing["win_scores"]


def test_an_illegal_move_midway_keeps_the_score_up_to_it():
    deal, rules = deal_from_seed(32), PRESETS["standard"]
    legal = parse_solution("Js+2d 9d+4c draw draw 3s+Td")  # seed 32's minimum line begins so
    moves = " ".join(format_step(s) for s in legal) + " Kd draw"  # Kd: in the stock
    doc = json.loads(check("--seed", 32, "--solution", moves, "--json").stdout)
    assert (doc["outcome"], doc["failed_step"], doc["moves"]) == ("illegal", 6, 5)
    assert doc["scores"] == line_scores(Position(deal, rules), legal) == [5, 10, 10, 10, 15]
    assert doc["score"] == 15
    text = check("--seed", 32, "--solution", moves).stdout.splitlines()
    assert text[0].startswith("step 6 is illegal: Kd")
    assert text[1] == "Score: 15 points after move 5, the last legal one."
    first = json.loads(check("--seed", 32, "--solution", "Kd", "--json").stdout)
    assert (first["score"], first["scores"]) == (0, [])
    assert check("--seed", 32, "--solution", "Kd").stdout.splitlines()[1] == "Score: 0 points."


def test_a_win_scores_every_row():
    deal, rules = deal_from_seed(32), PRESETS["standard"]
    win = json.loads(CliRunner().invoke(cli, ["solve", "--seed", "32", "--json"]).stdout)
    steps = parse_solution(" ".join(win["solution"]))
    doc = json.loads(check("--seed", 32, "--solution", " ".join(win["solution"]), "--json").stdout)
    assert doc["outcome"] == "won" and doc["losing"] is None
    assert doc["scores"] == line_scores(Position(deal, rules), steps)
    assert doc["score"] == doc["scores"][-1] == table_score(deal, rules, steps)
    assert doc["score"] >= 1150 + 14 * 5  # every row, and 28 pyramid cards gone: 14 pairs at least
    text = check("--seed", 32, "--solution", " ".join(win["solution"])).stdout.splitlines()
    assert text == [f"won in {len(steps)} moves", f"Score: {doc['score']:,} points."]
