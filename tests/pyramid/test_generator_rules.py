"""The moves the searches' generators leave out, against the plain references.

Each generator offers fewer moves than the rules allow:

* ``state.gen_concrete`` (the winnability search under limited recycles, the pass proofs of the
  minimum-move search, the best partial result under limited recycles) plays an uncovered
  pyramid king, a king on the waste top or on an available stock top alone;
* ``optimal.moves.gen_optimal`` (the minimum-move search) plays an uncovered pyramid king and a
  *last-partner pair* alone, never draws a king off an available stock top, and under goal "all"
  leaves the rest to ``gen_concrete``;
* ``state.gen_free`` (the free-stock search: unlimited recycles, and the relaxation asked first
  under limited ones) plays kings alone, offers one stock card of each value and, under goal
  "pyramid", no move of stock cards among themselves.

Such a reduction is exact when the moves kept still reach the answer: some offered move leads to a
won position exactly when the plain concrete reference (``tests/reference/pyramid.py``) finds the
position won, and for the minimum-move generator the best offered move starts a shortest win (one
more than the reference's length after it is the reference's length before). Checked under every
combination of the rule options on seeded endgames and the positions along a random line from
each, at every position where the generator leaves a legal move of the replay checker out (the
free-stock moves, which skip the draws, at every position). The replay checker's positions carry
no after-draw flag, so the partial-order reduction after a draw is not seen here: every search's
agreement with the references on whole endgames covers it (``test_winnable.py``,
``test_optimal.py``).
"""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest

from reference.pyramid import (LOST, endgame_position, partner_endgame, reference_shortest_from,
                               reference_winnable_from)
from solver.core.cards import card_rank
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.model.replay import KING, Position
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.layout import PYRAMID_CARDS
from solver.pyramid.model.state import (MAX_MOVES, MOVE_KING, MOVE_PAIR, decode_move,
                                        gen_concrete, gen_free)
from solver.pyramid.optimal.moves import gen_optimal
from solver.pyramid.winnable.solve import concrete_step, free_to_steps
from tests.pyramid.cases import ALL_RULES, packed

RULE_IDS = [r.describe().replace(" ", "-").replace(",", "") for r in ALL_RULES]
UNLIMITED = [r for r in ALL_RULES if r.recycles is None]
UNLIMITED_IDS = [RULE_IDS[ALL_RULES.index(r)] for r in UNLIMITED]
POSITIONS = 120
"""Seeded endgames per rule combination (a generator reduces the moves of a share of them)..."""
LINE = 3
"""...and the random steps played from each, every position on the way checked too."""
CAP = 300_000
"""Positions the reference may see on one question (never reached on these endgames)."""


def endgame(rules: Rules, i: int, first: int = 20_000) -> Position:
    """The ``i``-th seeded endgame of ``rules`` (seeds from ``first`` on): 0..8 pyramid cards
    and a stock of partners (odd ``i``, often won; with none left in the pyramid, only stock
    cards under goal "all"), or 3..8 pyramid cards and 0..9 random stock cards (even ``i``, often
    lost); with the stock top available every third one drawn down to a king on the stock
    top when there is one (10 random stock cards then); under limited recycles some of them
    already spent."""
    seed = first + 1000 * ALL_RULES.index(rules) + i
    deal = deal_from_seed(seed)
    to_king = rules.stock_top and i % 3 == 0
    if i % 2:
        pos = partner_endgame(deal, rules, seed, (i // 2) % 9)
    else:
        pos = endgame_position(deal, rules, seed, 3 + (i // 2) % 6,
                               stock_left=10 if to_king else i % 10)
    if to_king and any(card_rank(c) == KING for c in pos.stock):
        while card_rank(pos.stock[-1]) != KING:  # drawn down to a king on the stock top
            pos.waste.append(pos.stock.pop())
    if rules.recycles is not None:
        pos.recycles_used = i % (rules.recycles + 1)
    return pos


def offered(gen, pos: Position) -> list[int]:
    """The moves ``gen`` offers at ``pos`` (packed moves)."""
    out = np.zeros(MAX_MOVES, dtype=np.int64)
    n = gen(np.uint64(packed(pos)), pos.deal.tables, pos.rules.args, out)
    return [int(m) for m in out[:n]]


def same_step(step: tuple) -> tuple:
    """A step in a form that does not depend on the order of a pair's cards."""
    return (step[0], frozenset(step[1:]))


def after(pos: Position, steps) -> Position:
    child = pos.copy()
    for step in steps:
        child.apply(step)
    return child


def won(pos: Position) -> bool:
    verdict = pos.is_won() or reference_winnable_from(pos, CAP)
    assert verdict is not None
    return verdict


def shortest(pos: Position):
    length = reference_shortest_from(pos, CAP)
    assert length is not None
    return length


def positions(rules: Rules, count: int = POSITIONS, first: int = 20_000):
    """``(label, position)``: ``count`` seeded endgames of ``rules`` (``endgame``) and the
    positions along a seeded random line of legal steps from each (``LINE`` steps at most), none
    won already."""
    for i in range(count):
        pos = endgame(rules, i, first)
        rng = random.Random(i)
        for step in range(LINE + 1):
            if pos.is_won():
                break
            yield (i, step), pos
            legal = pos.legal_steps()
            if not legal:
                break
            pos = after(pos, [rng.choice(legal)])


def reduced_positions(gen, rules: Rules):
    """``(position, offered steps, their kind)`` of the ``positions`` of ``rules`` where ``gen``
    leaves a legal step out; every step it offers must be legal."""
    for label, pos in positions(rules):
        legal = {same_step(s) for s in pos.legal_steps()}
        moves = offered(gen, pos)
        steps = [concrete_step(pos.deal, m) for m in moves]
        kept = {same_step(s) for s in steps}
        assert kept <= legal, (label, kept - legal)
        if kept != legal:
            yield pos, steps, kind(moves)


def kind(moves: list[int]) -> str:
    """Which reduction left moves out: a king played alone, from the pyramid (``"pyramid king"``)
    or from the waste or stock top (``"pile king"``), a pair played alone (``"pair"``: a
    last-partner pair), or several moves kept (``"no draw"``: no draw over a king on an available
    stock top)."""
    if len(moves) == 1:
        what, a, _ = decode_move(moves[0])
        if what == MOVE_KING:
            return "pyramid king" if a < PYRAMID_CARDS else "pile king"
        if what == MOVE_PAIR:
            return "pair"
    return "no draw"


@functools.lru_cache(maxsize=None)
def concrete_checks(rules: Rules) -> dict:
    """Where ``gen_concrete`` leaves moves out, it keeps a won child exactly when the position is
    won; counts of the positions checked (once per test run)."""
    counts = {"won": 0, "lost": 0}
    for pos, steps, what in reduced_positions(gen_concrete, rules):
        truth = won(pos)
        assert truth == any(won(after(pos, [s])) for s in steps), (pos, steps)
        counts["won" if truth else "lost"] += 1
        counts[what] = counts.get(what, 0) + 1
    return counts


@functools.lru_cache(maxsize=None)
def optimal_checks(rules: Rules) -> dict:
    """Where ``gen_optimal`` leaves moves out, the reference's length is one more than the least
    of its lengths after the moves offered (or every one is lost, and so is the position)."""
    counts = {"won": 0, "lost": 0}
    for pos, steps, what in reduced_positions(gen_optimal, rules):
        lengths = [0 if child.is_won() else shortest(child)
                   for child in (after(pos, [s]) for s in steps)]
        best = min((n for n in lengths if n != LOST), default=LOST)
        truth = shortest(pos)
        assert truth == (LOST if best == LOST else best + 1), (pos, steps, lengths, truth)
        counts["lost" if truth == LOST else "won"] += 1
        counts[what] = counts.get(what, 0) + 1
    return counts


def fired(checks, rules: Rules, least: int) -> None:
    """The counts ``checks(rules)`` found, printed; the generator must have left moves out at
    ``least`` positions, one of them at least won."""
    counts = checks(rules)
    print(f"{rules.describe()}: {counts}")
    assert counts["won"] + counts["lost"] >= least and counts["won"] >= 1, counts


def totals(checks) -> dict:
    """``checks`` summed over the 32 combinations."""
    out: dict = {}
    for rules in ALL_RULES:
        for key, n in checks(rules).items():
            out[key] = out.get(key, 0) + n
    return out


@pytest.mark.parametrize("rules", ALL_RULES, ids=RULE_IDS)
def test_concrete_moves_keep_the_verdict(rules):
    fired(concrete_checks, rules, 10)


@pytest.mark.parametrize("rules", ALL_RULES, ids=RULE_IDS)
def test_minimum_move_generator_keeps_a_shortest_win(rules):
    fired(optimal_checks, rules, 20)


def test_reductions_fire_on_both_verdicts():
    """Over the 32 combinations the reduced positions are often won and often lost, and every
    kind of reduction was seen often (``kind``)."""
    concrete = totals(concrete_checks)
    optimal = totals(optimal_checks)
    print(concrete, optimal)
    assert concrete["won"] >= 150 and concrete["lost"] >= 300, concrete
    assert concrete["pyramid king"] >= 100 and concrete["pile king"] >= 100, concrete
    assert optimal["won"] >= 250 and optimal["lost"] >= 500, optimal
    assert optimal["pyramid king"] >= 100 and optimal["pair"] >= 100, optimal
    assert optimal["pile king"] + optimal["no draw"] >= 30, optimal


@pytest.mark.parametrize("rules", UNLIMITED, ids=UNLIMITED_IDS)
def test_free_stock_moves_keep_the_verdict(rules):
    """Every free-stock move offered, played for real (``free_to_steps``: the draws and recycles
    that bring its stock card up, then the move), leads to a won position for some move exactly
    when the position is won."""
    counts = {True: 0, False: 0}
    for label, pos in positions(rules):
        start = packed(pos)
        children = [after(pos, free_to_steps(pos.deal, [m], start))
                    for m in offered(gen_free, pos)]
        truth = won(pos)
        assert truth == any(won(child) for child in children), (label, pos)
        counts[truth] += 1
    assert counts[True] >= 30 and counts[False] >= 30, counts
