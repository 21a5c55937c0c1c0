"""``solve``, ``hint``, ``analyse`` and ``challenge`` with ``--after MOVES`` draw the position those
moves reach (the pyramid with its gaps, the stock and the waste), not the deal's start: a player
compares it with the board in front of them.

The check rebuilds the position on its own from the moves' card names (a pair or a king removes
the cards it names, a draw turns the next stock card; no recycle in these lines), sharing no code
with the drawing or the replay checker.
"""

from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.core.cards import format_card
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.replay import Position, format_step
from solver.pyramid.model.rules import PRESETS


def run(*args):
    return CliRunner().invoke(cli, list(args))


def expected(deal: Deal, moves: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The pyramid tokens row by row (``--`` for a card gone), the stock (next first) and the
    waste (top last) after ``moves``, none of them a recycle."""
    pyramid = [format_card(int(c)) for c in deal[:28]]
    stock = [format_card(int(c)) for c in deal[28:]]
    waste: list[str] = []
    for move in moves:
        if move == "draw":
            waste.append(stock.pop(0))
            continue
        assert move != "recycle"
        for name in move.split("+"):
            if name in pyramid:
                pyramid[pyramid.index(name)] = "--"
            elif name in waste:
                waste.remove(name)
            else:
                stock.remove(name)
    return pyramid, stock, waste


def printed(out: str) -> tuple[list[str], list[str], list[str]]:
    """The pyramid tokens, the stock and the waste of the drawing in ``out``."""
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("After "))
    rows = lines[at + 1:at + 8]
    pyramid = [tok for row in rows for tok in row.split()]

    def pile(line: str, name: str) -> list[str]:
        assert line.startswith(f"{name}: "), line
        body = line[len(name) + 2:]
        if body == "empty":
            return []
        cards, count = body.split(" (")
        assert count.split()[0] == str(len(cards.split())), line  # the size it says is right
        return cards.split()

    return pyramid, pile(lines[at + 8], "stock"), pile(lines[at + 9], "waste")


def random_moves(deal: Deal, rules, rng: random.Random, n: int) -> list[str]:
    """Up to ``n`` random legal moves without a recycle."""
    pos = Position(deal, rules)
    moves = []
    for _ in range(n):
        steps = [s for s in pos.legal_steps() if format_step(s) != "recycle"]
        if not steps:
            break
        step = rng.choice(steps)
        moves.append(format_step(step))
        pos.apply(step)
    return moves


@pytest.mark.parametrize("command", [["solve"], ["hint"], ["analyse", "--playouts", "0"],
                                     ["challenge", "cards", "--rank", "A"]])
def test_after_draws_the_position_reached(command):
    rules = PRESETS["msc"] if command[0] == "challenge" else PRESETS["standard"]
    rng = random.Random(len(command[0]))
    for seed in (1, 12, 32):
        deal = Deal.from_seed(seed)
        moves = random_moves(deal, rules, rng, 8)
        r = run(*command, "--seed", str(seed), "--after", " ".join(moves))
        assert r.exit_code in (0, 1), r.output
        assert f"After {len(moves)} move" in r.stdout
        assert printed(r.stdout) == expected(deal, moves), (seed, moves)
        assert "recycles used: 0 of 2" in r.stdout if rules.recycles == 2 else \
            "recycles used: 0 (unlimited)" in r.stdout


def test_without_after_the_deal_is_drawn_as_dealt():
    r = run("solve", "--seed", "12")
    lines = r.stdout.splitlines()
    assert not any(line.startswith("After ") for line in lines)
    deal = Deal.from_seed(12)
    assert lines[8] == "stock: " + " ".join(format_card(int(c)) for c in deal[28:])
    assert "--" not in "\n".join(lines[1:8])


def test_a_check_on_the_drawing_can_fail():
    """The rebuilt position differs from the start once a card is gone: the comparison above
    is not trivially true."""
    deal = Deal.from_seed(12)
    r = run("solve", "--seed", "12", "--after", "Kh draw")
    assert printed(r.stdout) == expected(deal, ["Kh", "draw"])
    assert printed(r.stdout) != expected(deal, ["Kh"])
    assert printed(r.stdout) != expected(deal, [])
