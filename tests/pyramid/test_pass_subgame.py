"""The pass-subgame proofs of ``solver.pyramid.winnable.pass_subgame`` (two classes of values played alone,
with the stock's order, the waste's stack and the recycles left): the kernel against a plain
brute force of the same subgame written here, every proof of loss it gives against the plain
concrete reference (``tests/reference/pyramid.py``) on all 24 limited-recycles combinations, and
``moved_classes`` against the subgame starts it claims unchanged.
"""

from __future__ import annotations

import functools
import itertools
import random

import numpy as np
import pytest

from reference.pyramid import endgame_position, partner_endgame, reference_winnable_from
from solver.core.cards import card_rank
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.model.layout import ABOVE, COVER_MASK, PYRAMID_CARDS
from solver.core.hashing import table_find, table_insert
from solver.pyramid.winnable.pass_subgame import (ALL_CLASSES, KNOWN_LOST, KNOWN_MAX_SLOTS,
                                                  KNOWN_TAGS, KNOWN_WON, PassBuffers, class_cards,
                                                  class_masks, grown_known, moved_classes,
                                                  pass_buffers, pass_subgame_clears,
                                                  pass_subgame_lost, pass_subgame_triple_lost,
                                                  with_pointer)
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.state import (PTR_MASK, PTR_SHIFT, REC_MASK, REC_SHIFT, STOCK_MASK,
                                  apply_concrete, deal_tables, gen_concrete, pack_position)
from tests.pyramid.test_limited_pruning import LIMITED_RULES, RULE_IDS

CLASS_PAIRS = list(itertools.combinations(range(1, 7), 2))
"""Every set of two classes (by their low values)."""
CLASS_TRIPLES = list(itertools.combinations(range(1, 7), 3))
"""Every set of three classes."""
NO_BUDGET = 1 << 40
"""A budget no subgame search reaches (the kernel then plays the whole subgame)."""
POSITIONS_PER_RULES = 80
REFERENCE_CAP = 100_000
"""Positions the plain reference may expand on a position before it gives up (it then confirms
nothing; the test counts only the losses it confirms)."""


def brute_clears(deal, rules: Rules, state: int, lows) -> bool:
    """The pass subgame of the classes ``lows``, played out by memoised recursion: cards as slots
    (pyramid 0..27, stock 28 + index), the raw pointer and the recycles used, written from the
    rules of the subgame alone."""
    values = [card_rank(int(c)) for c in deal]
    cards = frozenset(s for s in range(52) if state >> s & 1
                      and values[s] != 13 and min(values[s], 13 - values[s]) in lows)
    ptr0 = (state & int(PTR_MASK)) >> int(PTR_SHIFT)
    rec0 = (state & int(REC_MASK)) >> int(REC_SHIFT)

    def free(p, left):  # a pyramid card with no card of the subgame left in its cone
        return not any(q < PYRAMID_CARDS and int(ABOVE[p]) >> q & 1 for q in left)

    def must(left):
        return any(s < PYRAMID_CARDS or rules.goal == "all" for s in left)

    @functools.lru_cache(maxsize=None)
    def clears(left, ptr, rec):
        if not must(left):
            return True
        waste = [s for s in left if PYRAMID_CARDS <= s < PYRAMID_CARDS + ptr]
        ahead = [s for s in left if s >= PYRAMID_CARDS + ptr]
        wtop = max(waste) if waste else None
        stop = min(ahead) if ahead and rules.stock_top else None
        for a, b in itertools.combinations(sorted(left), 2):
            if values[a] + values[b] != 13:
                continue
            if b < PYRAMID_CARDS:
                ok = free(a, left) and free(b, left)
                for c, p in ((a, b), (b, a)):  # c covers p directly, the only card in its cone
                    if rules.overlap and int(COVER_MASK[p]) >> c & 1 and free(c, left) \
                            and free(p, left - {c}):
                        ok = True
            elif a < PYRAMID_CARDS:
                ok = free(a, left) and b in (wtop, stop)
            else:
                ok = {a, b} == {wtop, stop}
            if ok and clears(left - {a, b}, ptr, rec):
                return True
        if ahead:
            return clears(left, min(ahead) - PYRAMID_CARDS + 1, rec)
        if waste and rec < rules.recycles:
            return clears(left, 0, rec + 1)
        return False

    return clears(cards, ptr0, rec0)


def positions(rules: Rules, n: int, first_seed: int, partners_only: bool = False):
    """``(deal, Position)``: seeded endgames of 4..10 pyramid cards, with 6..16 stock cards (even
    seeds) or a partner for each pyramid card (odd seeds, or all with ``partners_only``: many of
    them are won), any number of recycles used."""
    for i in range(n):
        seed = first_seed + i
        deal = deal_from_seed(seed)
        if seed % 2 or partners_only:
            pos = partner_endgame(deal, rules, seed, 4 + seed % 7)
        else:
            pos = endgame_position(deal, rules, seed, 4 + seed % 7, stock_left=6 + seed % 11)
        pos.recycles_used = random.Random(seed).randint(0, rules.recycles)
        yield deal, pos


def packed(pos) -> int:
    return pack_position(pos.deal, pos.present, pos.stock, pos.waste, pos.recycles_used, True)


def agrees_with_brute_force(rules, groups, deals: int, first_seed: int) -> int:
    """The kernel's verdict on every class group of ``groups`` (tuples of low values) equals the
    brute force's, on positions of ``deals`` deals; returns how many subgames were lost."""
    rule = rules.args
    lost = 0
    for deal, pos in positions(rules, deals, first_seed):
        tabs = deal_tables(deal)
        state = packed(pos)
        pb = pass_buffers(rules.recycles)  # fresh answers for each deal
        for lows in groups:
            cards = np.uint64(0)
            for low in lows:
                cards |= class_cards(low, tabs)
            fast = pass_subgame_clears(np.uint64(state), cards, tabs, rule, pb, NO_BUDGET)
            assert fast == brute_clears(deal, rules, state, lows), (pos, lows)
            lost += not fast
    return lost


@pytest.mark.parametrize("rules", LIMITED_RULES, ids=RULE_IDS)
def test_kernel_plays_the_subgame_of_the_brute_force(rules):
    assert agrees_with_brute_force(rules, CLASS_PAIRS, 12,
                                   500 + 100 * LIMITED_RULES.index(rules)) > 0


@pytest.mark.parametrize("rules", LIMITED_RULES, ids=RULE_IDS)
def test_kernel_plays_the_three_class_subgame_of_the_brute_force(rules):
    assert agrees_with_brute_force(rules, CLASS_TRIPLES, 4,
                                   700 + 100 * LIMITED_RULES.index(rules)) > 0


def line_of_play(deal, rules: Rules, seed: int, length: int):
    """Packed positions along a seeded random line of real play from an endgame of ``deal``."""
    tabs = deal_tables(deal)
    rule = rules.args
    rng = random.Random(seed)
    state = np.uint64(packed(endgame_position(deal, rules, seed, 9 + seed % 4, stock_left=14,
                                              drawn=0)))
    moves = np.zeros(256, dtype=np.int64)
    for _ in range(length):
        yield state
        n = gen_concrete(state, tabs, rule, moves)
        if n == 0:
            return
        state = np.uint64(apply_concrete(state, moves[rng.randrange(n)]))


@pytest.mark.parametrize("rules", LIMITED_RULES, ids=RULE_IDS)
def test_answers_carried_between_searches_stay_true(rules):
    """One deal's searches share what they learn (``PassBuffers.known``): along a line of play,
    every class pair of every position is asked with one set of buffers. Searched to the end the
    answers equal the brute force's; with small budgets mixed in (a search that gives up leaves
    its start as "no proof") a loss is still only ever claimed where the brute force finds one."""
    index = LIMITED_RULES.index(rules)
    rule = rules.args
    claimed = 0
    for deal_seed in (3000 + 10 * index, 3001 + 10 * index):
        deal = deal_from_seed(deal_seed)
        tabs = deal_tables(deal)
        line = list(line_of_play(deal, rules, deal_seed, 14))
        truth = {(int(state), lows): brute_clears(deal, rules, int(state), lows)
                 for state in line for lows in CLASS_PAIRS}
        exact = pass_buffers(rules.recycles)
        mixed = pass_buffers(rules.recycles)
        for k, state in enumerate(line):
            for j, lows in enumerate(CLASS_PAIRS):
                cards = class_cards(lows[0], tabs) | class_cards(lows[1], tabs)
                want = truth[(int(state), lows)]
                got = pass_subgame_clears(state, cards, tabs, rule, exact, NO_BUDGET)
                assert got == want, (deal_seed, k, lows)
                budget = NO_BUDGET if (k + j) % 3 == 0 else 1 + (k + j) % 4
                if not pass_subgame_clears(state, cards, tabs, rule, mixed, budget):
                    assert not want, (deal_seed, k, lows, budget)
                    claimed += 1
        starts = {subgame_start(state, low, tabs, high)
                  for state in line for low, high in CLASS_PAIRS}
        assert exact.known_n[0] > len(starts)  # positions inside the searches were kept too
    assert claimed > 0


@functools.lru_cache(maxsize=None)
def proof_checks(rules: Rules) -> dict:
    """Every seeded endgame of ``rules`` where the pass subgame of two classes, or else of three,
    proves a loss, checked against the concrete reference; returns counts (once per test run),
    with the won positions met where they prove nothing (a proof that fired on them would fail
    the test)."""
    counts = {"fired": 0, "confirmed": 0, "unsettled": 0, "won": 0, "three": 0}
    first = 10_000 + 1000 * LIMITED_RULES.index(rules)
    for deal, pos in positions(rules, POSITIONS_PER_RULES, first, partners_only=True):
        tabs = deal_tables(deal)
        state = np.uint64(packed(pos))
        rule = rules.args
        if pass_subgame_lost(state, ALL_CLASSES, tabs, rule, pass_buffers(rules.recycles)):
            pass
        elif pass_subgame_triple_lost(state, ALL_CLASSES, tabs, rule,
                                      pass_buffers(rules.recycles)):
            counts["three"] += 1
        else:
            counts["won"] += reference_winnable_from(pos, REFERENCE_CAP) is True
            continue
        counts["fired"] += 1
        truth = reference_winnable_from(pos, REFERENCE_CAP)
        assert truth is not True, (pos, rules)  # a proof of loss on a won position
        counts["confirmed" if truth is False else "unsettled"] += 1
    return counts


@pytest.mark.parametrize("rules", LIMITED_RULES, ids=RULE_IDS)
def test_every_proof_is_a_loss_of_the_reference(rules):
    counts = proof_checks(rules)
    print(f"{rules.describe()}: {counts}")
    assert counts["confirmed"] >= 3 and counts["won"] >= 3, counts


def test_three_classes_prove_more_than_two():
    """Over all combinations the three-class subgames proved losses the two-class ones did not
    (checked against the reference in the test above)."""
    total = sum(proof_checks(r)["three"] for r in LIMITED_RULES)
    print(total)
    assert total >= 5


def test_moved_classes_names_every_changed_subgame():
    """Along seeded random lines of play, a class ``moved_classes`` leaves out has the same
    subgame start (its cards in play, those below the pointer, the recycles used) before and
    after the move."""
    checked = 0
    for rules in LIMITED_RULES:
        rule = rules.args
        for seed in range(3):
            deal = deal_from_seed(seed)
            tabs = deal_tables(deal)
            rng = random.Random(seed)
            state = np.uint64(packed(endgame_position(deal, rules, seed, 20, stock_left=24,
                                                      drawn=0)))
            moves = np.zeros(256, dtype=np.int64)
            for _ in range(60):
                n = gen_concrete(state, tabs, rule, moves)
                if n == 0:
                    break
                m = moves[rng.randrange(n)]
                child = np.uint64(apply_concrete(state, m))
                changed = moved_classes(m, child, child, tabs)
                for v in range(1, 7):
                    if changed >> v & 1:
                        continue
                    checked += 1
                    assert subgame_start(state, v, tabs) == subgame_start(child, v, tabs), \
                        (rules, seed, v)
                state = child
    assert checked > 1000


def subgame_start(state, v, tabs, *more) -> int:
    """The start of the pass subgame of class ``v`` (and the classes ``more``) from ``state``, as
    the kernel builds it."""
    cards = class_cards(v, tabs)
    for u in more:
        cards |= class_cards(u, tabs)
    m = np.uint64(state) & cards
    ptr = (int(state) & int(PTR_MASK)) >> int(PTR_SHIFT)
    below = np.uint64(((1 << (ptr + PYRAMID_CARDS)) - 1) & int(STOCK_MASK))
    return int(with_pointer(m | (np.uint64(state) & REC_MASK), m & below))


def fill_known(pb: PassBuffers, entries: dict[int, int], target: int,
               rng: random.Random) -> None:
    """Random subgame keys with random tags put into ``pb.known`` (and ``entries``, key -> tag)
    until it holds ``target``; ``pb.known_n`` counts them."""
    while len(entries) < target:
        key = rng.getrandbits(62) | 1
        tag = int(KNOWN_WON if rng.random() < 0.5 else KNOWN_LOST)
        if table_insert(pb.known, np.uint64(key), KNOWN_TAGS, np.uint64(tag)) >= 0:
            entries[key] = tag
    pb.known_n[0] = len(entries)


def test_known_answers_grow_with_every_entry_and_tag():
    """``grown_known`` leaves a set under half full alone, and past half moves every entry with
    its tag into one four times larger (a tag lost or swapped, or an entry dropped, fails)."""
    rng = random.Random(15)
    pb = pass_buffers(2)
    slots = len(pb.known)
    entries: dict[int, int] = {}
    fill_known(pb, entries, slots // 2 - 1, rng)
    assert len(grown_known(pb).known) == slots
    fill_known(pb, entries, slots // 2 + 10, rng)
    grown = grown_known(pb)
    assert len(grown.known) == 4 * slots
    assert int(np.count_nonzero(grown.known)) == len(entries)
    for key, tag in entries.items():
        found = int(table_find(grown.known, np.uint64(key), KNOWN_TAGS))
        assert found & ~int(KNOWN_TAGS) == key and found & int(KNOWN_TAGS) == tag
    # the searches go on in the larger set: a new answer lands there
    assert table_insert(grown.known, np.uint64(12345), KNOWN_TAGS, KNOWN_LOST) >= 0
    assert int(table_find(grown.known, np.uint64(12345), KNOWN_TAGS)) & int(KNOWN_TAGS) == \
        int(KNOWN_LOST)


def test_known_answers_stop_growing_at_the_cap():
    """Past ``KNOWN_MAX_SLOTS`` the set stays as it is (the searches then stop adding)."""
    pb = pass_buffers(0)
    capped = PassBuffers(pb.stack, pb.moves, pb.counts,
                         np.zeros(KNOWN_MAX_SLOTS // 2, dtype=np.uint64), pb.known_n)
    capped.known_n[0] = KNOWN_MAX_SLOTS // 4 + 1  # over half full
    assert len(grown_known(capped).known) == KNOWN_MAX_SLOTS // 2


@pytest.mark.parametrize("rules", LIMITED_RULES[::5], ids=RULE_IDS[::5])
def test_a_full_set_of_known_answers_changes_no_verdict(rules):
    """With no room left in the set of known answers a search stores nothing, not even the
    positions it has left (which is how it avoids them twice): its verdicts stay the brute
    force's."""
    rule = rules.args
    for deal, pos in positions(rules, 6, 900 + 100 * LIMITED_RULES.index(rules)):
        tabs = deal_tables(deal)
        pb = pass_buffers(rules.recycles)
        full = PassBuffers(pb.stack, pb.moves, pb.counts, np.zeros(16, dtype=np.uint64),
                           np.array([12], dtype=np.int64))  # 3/4 of 16 slots: no room
        for lows in CLASS_PAIRS:
            cards = class_cards(lows[0], tabs) | class_cards(lows[1], tabs)
            fast = pass_subgame_clears(np.uint64(packed(pos)), cards, tabs, rule, full, NO_BUDGET)
            assert fast == brute_clears(deal, rules, packed(pos), lows), (pos, lows)
        assert not np.any(full.known) and full.known_n[0] == 12


def test_class_masks_are_the_class_cards():
    """The kernels' tuple of class masks (index 0: none) against ``class_cards``, on many deals."""
    for seed in range(50):
        tabs = deal_tables(deal_from_seed(seed))
        masks = class_masks(tabs)
        assert int(masks[0]) == 0
        assert [int(m) for m in masks[1:]] == [int(class_cards(v, tabs)) for v in range(1, 7)]
