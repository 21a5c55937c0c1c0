"""The pass term of the minimum-move search (solver/pyramid/optimal/passes.py) against independent
searches.

* ``pass_lost`` (no win before the next recycle) agrees with the winnability search under the
  same rules with no recycle allowed, from positions of seeded random play; and its proofs hold
  for the same cards with the pointer further on (the cache's dominance);
* ``free_lost`` (no win at all, unlimited recycles) agrees with the winnability search under the
  default rules;
* the minimum-move search gives the plain BFS's lengths with the term on from the start, and the
  same lengths with the term as without it on deals where it cuts most positions.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from reference.pyramid import partner_endgame

from solver.pyramid.deals import deal_from_seed
from solver.pyramid.optimal import api, passes
from solver.pyramid.replay import Position
from solver.pyramid.rules import Rules, rule_args
from solver.pyramid.state import AFTER_DRAW, kernel_tables, pack_position
from solver.pyramid.winnable import Outcome, solve_winnable
from tests.pyramid.test_optimal import FAST_SEEDS, agree_with_bfs

STANDARD = Rules()
NO_RECYCLE = Rules(recycles=0)
"""The default rules with no recycle: winning here is winning ``STANDARD`` within one pass."""


def scratch() -> api.OptimalWorkspace:
    """A minimum-move workspace with its pass cache: the arrays ``passes.pass_lost`` works in."""
    ws = api.OptimalWorkspace.create()
    assert ws.start_pass_term()
    return ws


def ask(kernel, deal, state, ws, budget=passes.BUDGET):
    return int(kernel(np.uint64(state), kernel_tables(deal), rule_args(STANDARD), ws.memo,
                      ws.p_stack, ws.p_moves, ws.p_kids, ws.p_nexts, ws.p_counts, ws.p_tally,
                      budget))


def played(seed: int, steps: int) -> tuple[np.ndarray, Position]:
    """The position after ``steps`` random legal steps (fewer if the game ends) of seed's deal."""
    deal = deal_from_seed(seed)
    rng = random.Random(seed * 7919 + steps)
    pos = Position(deal, STANDARD)
    for _ in range(steps):
        legal = pos.legal_steps()
        if not legal or pos.is_won():
            break
        pos.apply(rng.choice(legal))
    return deal, pos


def packed(deal, pos: Position, limited: bool) -> int:
    return pack_position(deal, pos.present, pos.stock, pos.waste, 0, limited)


POSITIONS = [(seed, steps) for seed in range(40) for steps in (8, 16, 24, 32, 40)]
"""Seeded random play: mostly positions that cannot be won within their pass."""
ENDGAMES = 200
"""Endgames with a few pyramid cards and a stock of partners: mostly won within the pass."""


def positions():
    """``(label, deal, position)`` of ``POSITIONS`` and the ``ENDGAMES``, won ones left out."""
    for seed, steps in POSITIONS:
        deal, pos = played(seed, steps)
        if not pos.is_won():
            yield (seed, steps), deal, pos
    for i in range(ENDGAMES):
        deal = deal_from_seed(500 + i)
        pos = partner_endgame(deal, STANDARD, seed=i, pyramid_left=3 + i % 6)
        if not pos.is_won():
            yield ("endgame", i), deal, pos


def test_pass_lost_agrees_with_the_search_without_recycles():
    """Every answer that is not left open is the winnability search's under ``NO_RECYCLE``, and
    both answers occur often (a test that only ever saw one answer could not fail)."""
    arrays = scratch()
    seen = {passes.LOST: 0, passes.WON: 0}
    for label, deal, pos in positions():
        answer = ask(passes.pass_lost, deal, packed(deal, pos, False), arrays)
        if answer == passes.OPEN:
            continue
        expected = solve_winnable(deal, NO_RECYCLE, start=packed(deal, pos, True)).outcome
        assert expected != Outcome.UNKNOWN
        assert (answer == passes.LOST) == (expected == Outcome.LOST), label
        seen[answer] += 1
    assert seen[passes.LOST] >= 40 and seen[passes.WON] >= 40, seen


def test_a_proof_answers_for_the_pointer_further_on():
    """The cache's dominance: a position proven not winnable within its pass stays so after more
    draws (a win from there would be one from the position before the draws), checked by the
    winnability search without recycles; and the cache answers so for the position just after
    those draws without a new search."""
    checked = 0
    for label, deal, pos in positions():
        arrays = scratch()
        if ask(passes.pass_lost, deal, packed(deal, pos, False), arrays) != passes.LOST:
            continue
        later = pos.copy()
        for _ in range(min(3, len(pos.stock))):
            later.apply(("draw",))
            key = packed(deal, later, False) | int(AFTER_DRAW)
            assert passes.memo_has(arrays.memo, np.uint64(key)), label
            outcome = solve_winnable(deal, NO_RECYCLE, start=packed(deal, later, True)).outcome
            assert outcome == Outcome.LOST, label
            checked += 1
    assert checked >= 60, checked


def test_free_lost_agrees_with_the_search_under_unlimited_recycles():
    arrays = scratch()
    seen = {passes.LOST: 0, passes.WON: 0}
    for label, deal, pos in positions():
        answer = ask(passes.free_lost, deal, packed(deal, pos, False), arrays)
        assert answer != passes.OPEN
        expected = solve_winnable(deal, STANDARD, start=packed(deal, pos, False)).outcome
        assert (answer == passes.LOST) == (expected == Outcome.LOST), label
        seen[answer] += 1
    assert seen[passes.LOST] >= 20 and seen[passes.WON] >= 40, seen


def test_lengths_with_the_term_from_the_start_agree_with_the_plain_bfs(monkeypatch):
    """The fast BFS seeds of ``test_optimal.py`` take fewer expansions than ``PASS_AFTER``; here
    the term is on from the first expansion, so every one of those searches uses it."""
    monkeypatch.setattr(api, "LOST_AFTER", 0)
    monkeypatch.setattr(api, "PASS_AFTER", 0)
    assert agree_with_bfs("standard", FAST_SEEDS["standard"]) == len(FAST_SEEDS["standard"])


HARD_SEEDS = [997, 5431, 8452]
"""Standard deals whose minimum-move search expands 2 million positions or more without the
proofs and a quarter as many with them from the start."""


@pytest.mark.parametrize("seed", HARD_SEEDS)
def test_the_proofs_keep_every_length(seed, monkeypatch):
    deal = deal_from_seed(seed)
    monkeypatch.setattr(api, "LOST_AFTER", 0)
    monkeypatch.setattr(api, "PASS_AFTER", 0)
    with_term = api.solve_optimal(deal, STANDARD)
    monkeypatch.setattr(api, "LOST_AFTER", 1 << 40)
    monkeypatch.setattr(api, "PASS_AFTER", 1 << 40)
    without = api.solve_optimal(deal, STANDARD)
    assert with_term.outcome == without.outcome == Outcome.WON
    assert with_term.moves == without.moves
    assert with_term.states < without.states / 2
