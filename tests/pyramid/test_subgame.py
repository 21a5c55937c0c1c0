"""The subgame proofs of ``solver.pyramid.winnable.subgame`` (one or two classes of values played alone):
the kernel against a plain brute force of the same subgame written here, and every proof of loss
it gives against the plain reference solver (``tests/reference/pyramid_fast.py``)."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from reference.pyramid import endgame_position
from reference.pyramid_fast import fast_winnable, fast_winnable_from
from solver.core.cards import card_rank
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.model.layout import ABOVE, COVER_MASK, PYRAMID_CARDS
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.state import START, deal_tables, pack_position
from solver.pyramid.winnable.subgame import closed, subgame_buffers, subgame_clears, subgame_lost

UNLIMITED_RULES = [Rules(overlap=o, stock_top=s, goal=g)
                   for o, s, g in itertools.product((True, False), (False, True),
                                                    ("pyramid", "all"))]
RULE_IDS = [f"{'ov' if r.overlap else 'noov'}-{'top' if r.stock_top else 'hidden'}-{r.goal}"
            for r in UNLIMITED_RULES]
CLASS_SETS = [(v,) for v in range(1, 7)] + list(itertools.combinations(range(1, 7), 2))
"""Every set of one or two classes (by their low values)."""
REFERENCE_CAP = 50_000
"""Positions the plain reference may expand on a position before it gives up (it then confirms
nothing; the test counts only the losses it confirms)."""


def brute_clears(deal, rules: Rules, state: int, lows) -> bool:
    """The subgame, played out by memoised recursion over the sets of cards left: cards as
    slots (pyramid 0..27, stock 28 + index), written from the rules of the subgame alone."""
    values = [card_rank(int(c)) for c in deal]
    cards = frozenset(s for s in range(52) if state >> s & 1
                      and min(values[s], 13 - values[s]) in lows and values[s] != 13)

    def free(p, left):  # a pyramid card with no card of the subgame left in its cone
        return not any(q < PYRAMID_CARDS and int(ABOVE[p]) >> q & 1 for q in left)

    def can_pair(a, b, left):
        if a >= PYRAMID_CARDS and b >= PYRAMID_CARDS:
            return rules.goal == "all" and rules.stock_top
        if a >= PYRAMID_CARDS or b >= PYRAMID_CARDS:
            return free(min(a, b), left)
        if free(a, left) and free(b, left):
            return True
        for c, p in ((a, b), (b, a)):  # c covers p directly, the only card left in its cone
            if rules.overlap and int(COVER_MASK[p]) >> c & 1 and free(c, left) \
                    and free(p, left - {c}):
                return True
        return False

    @functools.lru_cache(maxsize=None)
    def clears(left):
        if not any(s < PYRAMID_CARDS or rules.goal == "all" for s in left):
            return True
        return any(clears(left - {a, b}) for a, b in itertools.combinations(sorted(left), 2)
                   if values[a] + values[b] == 13 and can_pair(a, b, left))

    return clears(cards)


def positions(rules: Rules, n: int, first_seed: int):
    """``(deal, packed position)``: deal starts and endgames with 8..16 pyramid cards left."""
    for i in range(n):
        seed = first_seed + i
        deal = deal_from_seed(seed)
        if i % 2:
            yield deal, int(START)
        else:
            pos = endgame_position(deal, rules, seed, 8 + i % 9)
            yield deal, pack_position(deal, pos.present, pos.stock, pos.waste, 0, False)


@pytest.mark.parametrize("rules", UNLIMITED_RULES, ids=RULE_IDS)
def test_kernel_plays_the_subgame_of_the_brute_force(rules):
    sb = subgame_buffers()
    args = rules.args
    verdicts = []
    for deal, state in positions(rules, 40, 500):
        tabs = deal_tables(deal)
        for lows in CLASS_SETS:
            want = brute_clears(deal, rules, state, lows)
            got = subgame_clears(np.uint64(state), sum(1 << v for v in lows), tabs, args, sb)
            assert got == want, (state, lows, rules)
            verdicts.append(want)
    assert verdicts.count(False) >= 10 and verdicts.count(True) >= 100
    assert not sb.memo.any()  # the set of card sets seen is left clean


@pytest.mark.parametrize("rules", UNLIMITED_RULES, ids=RULE_IDS)
def test_every_proof_of_loss_is_a_loss_for_the_reference(rules):
    """Where ``subgame_lost`` fires (deal starts and endgames), the plain reference never finds
    the position won, and confirms the loss often enough for this to fail on an unsound proof."""
    sb = subgame_buffers()
    args = rules.args
    confirmed = 0
    for i, (deal, state) in enumerate(positions(rules, 120, 900)):
        if not subgame_lost(np.uint64(state), deal_tables(deal), args, sb):
            continue
        if state == int(START):
            verdict = fast_winnable(deal, rules, max_states=REFERENCE_CAP)
        else:
            pos = endgame_position(deal, rules, 900 + i, 8 + i % 9)
            verdict = fast_winnable_from(pos, max_states=REFERENCE_CAP)
        assert verdict is not True, (i, rules)
        confirmed += verdict is False
    assert confirmed >= 10, confirmed


def test_a_position_not_closed_gets_no_proof():
    """A hand-made pyramid with a card floating over an empty place: the cone rule would not
    be a relaxation there, so no proof is given."""
    deal = deal_from_seed(3)
    state = int(START) & ~(1 << 1)  # row 1, left card gone, the apex still there
    assert not closed(np.uint64(state))
    assert not subgame_lost(np.uint64(state), deal_tables(deal), Rules().args,
                          subgame_buffers())
    assert closed(START)
