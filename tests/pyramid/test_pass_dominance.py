"""The pass order of the lost-position table (``lost_table.pass_lost``): a position lost at some
recycle count and pointer makes every position of the same cards later in the game lost.

Checked against the plain reference on seeded endgames of every limited-recycles combination:
wherever the reference finds a position lost, it finds each later position of the same cards
(a later pointer on the same pass, or any pointer of a later pass) lost too. The check can fail:
positions of the same cards *earlier* in the game are often won where the later one is lost,
and the test counts those as well. Then the table itself: an entry answers for later positions
only, keeps the earliest one stored, tells positions with and without the after-draw bit
apart, and survives the table's growth.
"""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest

from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.model.layout import PYRAMID_CARDS, STOCK_CARDS
from solver.pyramid.winnable.lost_table import LostTable, grown_table, pass_lost, pass_lost_put
from solver.pyramid.model.state import AFTER_DRAW, PTR_MASK, PTR_SHIFT, REC_MASK, REC_SHIFT
from solver.pyramid.winnable.solve import Workspace
from tests.pyramid.test_limited_pruning import (LIMITED_RULES, REFERENCE_CAP, RULE_IDS, packed,
                                                unpacked)
from tests.reference.pyramid import endgame_position, partner_endgame, reference_winnable_from

POSITIONS_PER_RULES = 12
"""Seeded endgames per rule combination..."""
SIBLINGS = 5
"""...and, for each lost one, at most this many later positions of its cards checked, and as
many earlier ones (seeded choices)."""


def with_pass(state: int, recycles_used: int, pointer: int) -> int:
    """``state`` with another recycle count and pointer (the same cards)."""
    state &= ~(int(REC_MASK) | int(PTR_MASK))
    return state | recycles_used << int(REC_SHIFT) | pointer << int(PTR_SHIFT)


def passes(state: int, recycles: int) -> list[tuple[int, int]]:
    """Every (recycles used, canonical pointer) a position of the cards of ``state`` can have
    under rules with ``recycles``: 0, or one past an in-play stock card."""
    in_play = [i for i in range(STOCK_CARDS) if state >> (PYRAMID_CARDS + i) & 1]
    return [(r, p) for r in range(recycles + 1) for p in [0] + [i + 1 for i in in_play]]


def position_at(pos, state: int, recycles_used: int, pointer: int):
    new = unpacked(pos, with_pass(state, recycles_used, pointer))
    new.recycles_used = recycles_used
    return new


@functools.lru_cache(maxsize=None)
def order_checks(rules) -> dict:
    """Seeded endgames of ``rules``: each lost one's later positions of the same cards checked
    with the reference; counts of what was met (once per test run)."""
    counts = {"lost": 0, "later_checked": 0, "earlier_won": 0}
    first = 7000 + 100 * LIMITED_RULES.index(rules)
    for seed in range(first, first + POSITIONS_PER_RULES):
        rng = random.Random(seed)
        deal = deal_from_seed(seed)
        if seed % 2:  # partners for the pyramid cards: often won, or lost only late
            pos = partner_endgame(deal, rules, seed, 3 + seed % 5)
        else:
            pos = endgame_position(deal, rules, seed, 3 + seed % 5, stock_left=6 + seed % 7)
        pos.recycles_used = rng.randint(0, rules.recycles)
        state = packed(pos)
        here = ((state & int(REC_MASK)) >> int(REC_SHIFT), (state & int(PTR_MASK)) >> int(PTR_SHIFT))
        truth = reference_winnable_from(pos, REFERENCE_CAP)
        if truth is not False:
            continue
        counts["lost"] += 1
        later = [rp for rp in passes(state, rules.recycles) if rp > here]
        earlier = [rp for rp in passes(state, rules.recycles) if rp < here]
        for r, p in rng.sample(later, min(SIBLINGS, len(later))):
            verdict = reference_winnable_from(position_at(pos, state, r, p), REFERENCE_CAP)
            counts["later_checked"] += 1
            assert verdict is False, (seed, rules.describe(), here, (r, p))
        for r, p in rng.sample(earlier, min(SIBLINGS, len(earlier))):
            verdict = reference_winnable_from(position_at(pos, state, r, p), REFERENCE_CAP)
            counts["earlier_won"] += verdict is True
    return counts


@pytest.mark.parametrize("rules", LIMITED_RULES, ids=RULE_IDS)
def test_later_positions_of_lost_cards_are_lost(rules):
    counts = order_checks(rules)
    print(f"{rules.describe()}: {counts}")
    assert counts["lost"] > 0


def test_the_order_matters():
    """Over all combinations many later positions were checked, and earlier positions of lost
    cards were often won: the claim holds one way only, so reversing it would fail the test."""
    total = {k: sum(order_checks(r)[k] for r in LIMITED_RULES)
             for k in ("lost", "later_checked", "earlier_won")}
    print(total)
    assert total["later_checked"] >= 500 and total["earlier_won"] >= 20, total


def test_table_entries_answer_for_later_positions_only():
    ws = Workspace.create(LIMITED_RULES[0], table_bits=10, max_table_bits=12)
    args = ws.args()
    cards = (1 << 3) | (1 << (PYRAMID_CARDS + 2)) | (1 << (PYRAMID_CARDS + 7))
    at = with_pass(cards, 1, 3)
    n = pass_lost_put(args.table, 0, False, np.uint64(at), args.touched)
    assert n == 1
    for r, p, lost in ((1, 3, True), (1, 8, True), (2, 0, True), (1, 0, False), (0, 8, False)):
        assert pass_lost(args.table, np.uint64(with_pass(cards, r, p))) == lost, (r, p)
    assert not pass_lost(args.table, np.uint64(at | int(AFTER_DRAW)))  # another entry
    assert not pass_lost(args.table, np.uint64(at ^ 1))  # other cards
    # an earlier loss of the same cards lowers the entry, a later one changes nothing
    n = pass_lost_put(args.table, n, False, np.uint64(with_pass(cards, 2, 8)), args.touched)
    n = pass_lost_put(args.table, n, False, np.uint64(with_pass(cards, 0, 8)), args.touched)
    assert n == 1
    assert pass_lost(args.table, np.uint64(with_pass(cards, 0, 8)))
    assert not pass_lost(args.table, np.uint64(with_pass(cards, 0, 3)))
    # growth moves the entry with its pass bits and keeps finding it
    lost = grown_table(LostTable(args.table, n, False), args)
    assert lost.grown and len(lost.table) == 2 * len(args.table)
    assert pass_lost(lost.table, np.uint64(with_pass(cards, 1, 0)))
    assert not pass_lost(lost.table, np.uint64(with_pass(cards, 0, 3)))
    assert not np.any(args.table), "the workspace's table is cleaned when the keys move"
