"""The numba winnability search (``solver/pyramid/winnable/solve.py``) against two plain-Python references.

* ``tests/reference.py``: the concrete reference (every real position, ``solver.pyramid.model.replay`` only),
  exact but slow: used on small endgame positions, for every combination of rule options, and to
  prove the two facts the fast search relies on (stock position and equal values).
* ``tests/reference_fast.py``: an independent plain-Python search fast enough for whole deals:
  300 seeded deals per preset, and a smaller sample for every combination of rule options.

Every solution the fast search returns is replayed move by move through ``solver.pyramid.model.replay``.
"""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest

from reference.pyramid import endgame_position, reference_winnable_from
from reference.pyramid_fast import fast_winnable, fast_winnable_from
from solver.core.cards import card_rank
from solver.pyramid.model.deals import deal_from_seed, deals_from_seeds
from solver.pyramid.model.layout import PYRAMID_CARDS
from solver.pyramid.model.replay import KING, PAIR_SUM, Position, replay, replay_from
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.winnable.solve import Workspace, solve_winnable, winnable_many
from solver.pyramid.model.outcome import Outcome
from solver.pyramid.model.state import pack_position
from tests.pyramid.cases import ALL_RULES

RULE_IDS = [f"rec{'inf' if r.recycles is None else r.recycles}-{'ov' if r.overlap else 'noov'}-"
            f"{'top' if r.stock_top else 'hidden'}-{r.goal}" for r in ALL_RULES]

REFERENCE_CAP = 300_000
"""Positions the concrete reference may see on an endgame before it gives up (never reached)."""
WHOLE_DEAL_CAP = 30_000
"""Positions ``reference_fast`` may expand on a whole deal before the deal is skipped."""
DEALS_PER_PRESET = 300
MAX_SKIPPED = 0.10


def position_with(pos: Position, in_play: list[int], n_waste: int) -> Position:
    """A copy of ``pos`` whose stock and waste hold ``in_play`` (waste bottom .. waste top, then
    stock top .. stock bottom) with the first ``n_waste`` of them in the waste."""
    new = pos.copy()
    new.waste = list(in_play[:n_waste])
    new.stock = list(in_play[n_waste:])[::-1]
    return new


def in_play_order(pos: Position) -> list[int]:
    """Stock and waste cards in the order drawing walks through them (waste bottom first)."""
    return pos.waste + pos.stock[::-1]


def fast_from(pos: Position, workspace: Workspace | None = None, max_states: int = 0):
    """``solve_winnable`` from a ``Position``."""
    start = pack_position(pos.deal, pos.present, pos.stock, pos.waste, pos.recycles_used,
                          pos.rules.recycles is not None)
    return solve_winnable(pos.deal, pos.rules, max_states=max_states, workspace=workspace,
                          start=start)


def balanced_endgame(deal, rules: Rules, seed: int, pyramid_left: int) -> Position:
    """An endgame whose stock holds mostly partners of the pyramid cards left (and maybe a
    king, and maybe two stock cards making 13), so that goal "all" can be won from some of
    them: ``endgame_position`` without stock, then the deal's stock cards chosen, in deal
    order, with a random split into waste and stock."""
    rng = random.Random(seed)
    pos = endgame_position(deal, rules, seed, pyramid_left, stock_left=0)
    pool = [int(c) for c in deal[PYRAMID_CARDS:]]
    keep: set = set()
    for c in pos.pyramid_cards():
        mates = [s for s in pool if card_rank(s) + card_rank(c) == PAIR_SUM and s not in keep]
        if mates and rng.random() < 0.85:
            keep.add(rng.choice(mates))
    kings = [s for s in pool if card_rank(s) == KING]
    if kings and rng.random() < 0.5:
        keep.add(rng.choice(kings))
    pairs = [(a, b) for a in pool for b in pool if a not in keep and b not in keep
             and card_rank(a) + card_rank(b) == PAIR_SUM and a < b]
    if pairs and rng.random() < 0.5:              # two stock cards that can only pair together
        keep.update(rng.choice(pairs))
    return position_with(pos, [s for s in pool if s in keep], rng.randint(0, len(keep)))


def endgames(rules: Rules, n: int, first_seed: int, big_stock: bool = False, mixed: bool = False):
    """``n`` seeded endgame positions with 4..9 pyramid cards left (``balanced_endgame`` under
    goal "all", where almost no ``endgame_position`` can be won, and every other one when
    ``mixed``). The stock keeps a random 0..12 cards, or 8..12 with ``big_stock``."""
    for i in range(n):
        seed = first_seed + i
        deal = deal_from_seed(seed)
        if rules.goal == "all" or (mixed and i % 2):
            yield balanced_endgame(deal, rules, seed, 4 + i % 6)
        else:
            yield endgame_position(deal, rules, seed, 4 + i % 6,
                                   stock_left=8 + i % 5 if big_stock else None)


# --------------------------------------------------------------------------- the two facts

THEOREM_POSITIONS = 40


def _split_verdicts(pos: Position) -> set:
    """The concrete reference's verdict for every split of the in-play cards into waste/stock."""
    cards = in_play_order(pos)
    return {reference_winnable_from(position_with(pos, cards, k), REFERENCE_CAP)
            for k in range(len(cards) + 1)}


@pytest.mark.parametrize("rules", [Rules(), Rules(stock_top=True, goal="all")],
                         ids=["standard", "top-all"])
def test_unlimited_recycles_stock_position_does_not_matter(rules):
    """Positions differing only in where the stock/waste split lies have one verdict."""
    outcomes = set()
    for i, pos in enumerate(endgames(rules, THEOREM_POSITIONS, 5000)):
        pos = position_with(pos, in_play_order(pos), 0)
        verdicts = _split_verdicts(pos)
        assert len(verdicts) == 1, (i, pos, verdicts)
        outcomes |= verdicts
    assert outcomes == {True, False}


def test_split_matters_without_recycles():
    """Control: with no recycle the split does matter on some of the same positions, so the
    test above can tell the difference."""
    differs = 0
    for pos in endgames(Rules(recycles=0), THEOREM_POSITIONS, 5000):
        differs += len(_split_verdicts(position_with(pos, in_play_order(pos), 0))) > 1
    assert differs > 0


SHUFFLES = 4


def _shuffles(pos: Position, seed: int):
    """Copies of ``pos`` with its stock/waste cards in other orders (same split sizes)."""
    rng = random.Random(seed)
    cards = in_play_order(pos)
    for _ in range(SHUFFLES):
        order = list(cards)
        rng.shuffle(order)
        yield position_with(pos, order, len(pos.waste))


@pytest.mark.parametrize("rules", [Rules(), Rules(goal="all"), Rules(stock_top=True)],
                         ids=["standard", "goal-all", "top-pyramid"])
def test_unlimited_recycles_stock_order_does_not_matter(rules):
    """Any order of the same stock/waste cards keeps the verdict: with the stock top hidden (and
    with it shown under goal pyramid, where stock cards never need pairing among themselves)
    only the multiset of values in play counts, so stock cards of equal value are
    interchangeable: removing one or the other leaves positions with the same verdict."""
    outcomes = set()
    for i, pos in enumerate(endgames(rules, THEOREM_POSITIONS, 6000, big_stock=True)):
        verdict = reference_winnable_from(pos, REFERENCE_CAP)
        outcomes.add(verdict)
        for other in _shuffles(pos, i):
            assert reference_winnable_from(other, REFERENCE_CAP) == verdict, (pos, other)
    assert outcomes == {True, False}


def test_stock_order_can_matter_without_recycles():
    """Control: with a single pass through the stock some reorderings do change the verdict
    (small positions: 2..4 pyramid cards, 4..7 stock cards), so the test above can fail."""
    rules = Rules(recycles=0)
    changed = 0
    for i in range(60):
        seed = 6000 + i
        pos = endgame_position(deal_from_seed(seed), rules, seed, 2 + i % 3, stock_left=4 + i % 4)
        verdict = reference_winnable_from(pos, REFERENCE_CAP)
        changed += any(reference_winnable_from(o, REFERENCE_CAP) != verdict
                       for o in _shuffles(pos, i))
    assert changed > 0


# --------------------------------------------------------------------------- endgames, all rules

ENDGAMES_PER_RULES = 24


@functools.lru_cache(maxsize=None)
def checked_endgames(rules: Rules) -> tuple[bool, ...]:
    """Fast search, ``reference_fast`` and the concrete reference agree on ``ENDGAMES_PER_RULES``
    endgame positions under ``rules`` (asserted here); every fast solution replays as a win from
    the position. Returns the verdicts (computed once per rules and test run)."""
    ws = Workspace.create(rules)
    outcomes = []
    first = 100 * ALL_RULES.index(rules)
    for i, pos in enumerate(endgames(rules, ENDGAMES_PER_RULES, 7000 + first,
                                               big_stock=True, mixed=True)):
        if rules.recycles is not None:            # some recycles already spent
            pos.recycles_used = i % (rules.recycles + 1)
        truth = reference_winnable_from(pos, REFERENCE_CAP)
        assert truth is not None
        res = fast_from(pos, ws)
        assert res.winnable == truth, (pos, rules)
        assert fast_winnable_from(pos) == truth, (pos, rules)
        if truth:
            rep = replay_from(pos, res.solution)
            assert rep.ok and rep.won, rep.message()
        outcomes.append(truth)
    return tuple(outcomes)


@pytest.mark.parametrize("rules", ALL_RULES, ids=RULE_IDS)
def test_endgames_agree_with_concrete_reference(rules):
    """Fast search, ``reference_fast`` and the concrete reference agree on endgame positions;
    every fast solution replays as a win from the position."""
    assert len(checked_endgames(rules)) == ENDGAMES_PER_RULES


def test_endgame_sample_has_both_outcomes():
    """Over every rule combination both verdicts were compared, many times (the endgames are
    checked once per test run, shared with the test above)."""
    outcomes = [truth for rules in ALL_RULES for truth in checked_endgames(rules)]
    print(f"endgames: {outcomes.count(True)} won, {outcomes.count(False)} lost")
    assert outcomes.count(True) >= 100 and outcomes.count(False) >= 100, (
        outcomes.count(True), outcomes.count(False))


# --------------------------------------------------------------------------- whole deals

def compare_whole_deals(rules: Rules, wanted: int, first_seed: int, cap: int = WHOLE_DEAL_CAP):
    """Compare the fast search with ``reference_fast`` on ``wanted`` seeded deals, skipping those
    the reference cannot settle within ``cap`` (and giving up after ``2 * wanted`` seeds);
    replay every fast solution. Returns the counts of won, lost and skipped deals."""
    ws = Workspace.create(rules)
    counts = {"won": 0, "lost": 0, "skipped": 0}
    for seed in range(first_seed, first_seed + 2 * wanted):
        if counts["won"] + counts["lost"] == wanted:
            break
        deal = deal_from_seed(seed)
        res = solve_winnable(deal, rules, workspace=ws)
        assert res.outcome != Outcome.UNKNOWN
        if res.winnable:
            rep = replay(deal, rules, res.solution)
            assert rep.ok and rep.won, (seed, rules, rep.message())
        ref = fast_winnable(deal, rules, max_states=cap)
        if ref is None:
            counts["skipped"] += 1
            continue
        assert res.winnable == ref, (seed, rules)
        counts["won" if ref else "lost"] += 1
    return counts


def skipped_fraction(counts: dict) -> float:
    return counts["skipped"] / (counts["won"] + counts["lost"] + counts["skipped"])


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_whole_deals_agree_with_reference_fast(preset):
    """300 seeded deals per preset decided alike (deals the reference cannot settle within its
    cap are replaced by the next seeds; fewer than 10% of them)."""
    counts = compare_whole_deals(PRESETS[preset], DEALS_PER_PRESET, 0)
    print(f"{preset}: {counts}, skipped {skipped_fraction(counts):.1%}")
    assert counts["won"] + counts["lost"] == DEALS_PER_PRESET
    assert skipped_fraction(counts) < MAX_SKIPPED
    assert counts["won"] >= 20 and counts["lost"] >= 20


DEALS_PER_RULES = 4
COMBINATION_CAP = 20_000
MAX_SKIPPED_COMBINATIONS = 0.25
DEALS_PER_RULES_SLOW = 30
MIN_CHECKED_PER_RULES = 2
"""Deals the reference must settle (so compare) per rule combination in the default run, of
``DEALS_PER_RULES``: every combination settles all 4 except no recycles + overlap + stock top +
goal all, which settles 2 of 8 seeds within ``COMBINATION_CAP``; a combination whose deals are
all skipped compares nothing and fails."""


@functools.lru_cache(maxsize=None)
def combination_counts(rules: Rules) -> tuple[tuple[str, int], ...]:
    """``compare_whole_deals`` on ``DEALS_PER_RULES`` deals of ``rules`` (once per test run), as
    sorted ``(key, count)`` pairs."""
    counts = compare_whole_deals(rules, DEALS_PER_RULES, 10_000 + 100 * ALL_RULES.index(rules),
                                 cap=COMBINATION_CAP)
    return tuple(sorted(counts.items()))


@pytest.mark.parametrize("rules", ALL_RULES, ids=RULE_IDS)
def test_whole_deals_every_rule_combination(rules):
    counts = dict(combination_counts(rules))
    print(f"{rules.describe()}: {counts}")


def test_whole_deal_combinations_sample():
    """The sample over all 32 combinations holds both verdicts (the deals are compared once per
    test run, shared with the test above).

    Without recycles, and under goal "all" with the stock top shown, many deals need more
    positions than ``reference_fast`` may spend in the default run, so up to a quarter of the
    deals may be skipped here; the slow variant below compares 30 deals per combination with a
    larger cap."""
    whole_deal_counts = [dict(combination_counts(rules)) for rules in ALL_RULES]
    total = {k: sum(c[k] for c in whole_deal_counts) for k in ("won", "lost", "skipped")}
    print(f"all combinations: {total}, skipped {skipped_fraction(total):.1%}")
    assert total["won"] >= 20 and total["lost"] >= 20, total
    assert skipped_fraction(total) < MAX_SKIPPED_COMBINATIONS, total


@pytest.mark.slow
@pytest.mark.parametrize("rules", ALL_RULES, ids=RULE_IDS)
def test_whole_deals_every_rule_combination_more(rules):
    seeds = 20_000 + 100 * ALL_RULES.index(rules)
    counts = compare_whole_deals(rules, DEALS_PER_RULES_SLOW, seeds, cap=300_000)
    print(f"{rules.describe()}: {counts}, skipped {skipped_fraction(counts):.1%}")
    assert counts["won"] + counts["lost"] == DEALS_PER_RULES_SLOW


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_whole_deals_more_seeds(preset):
    counts = compare_whole_deals(PRESETS[preset], 1000, 100_000, cap=300_000)
    print(f"{preset}: {counts}, skipped {skipped_fraction(counts):.1%}")
    assert skipped_fraction(counts) < MAX_SKIPPED


# --------------------------------------------------------------------------- batch and limits

@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_winnable_many_agrees_with_solve_winnable(preset):
    rules = PRESETS[preset]
    seeds = np.arange(500, 560)
    outcome, states = winnable_many(deals_from_seeds(seeds), rules)
    ws = Workspace.create(rules)
    for k, seed in enumerate(seeds):
        res = solve_winnable(deal_from_seed(int(seed)), rules, workspace=ws)
        assert outcome[k] == res.outcome, seed
        assert states[k] == res.states, seed
    assert set(outcome.tolist()) == {Outcome.LOST, Outcome.WON}


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_max_states_gives_unknown_never_a_wrong_verdict(preset):
    rules = PRESETS[preset]
    seeds = np.arange(600, 640)
    deals = deals_from_seeds(seeds)
    truth, _ = winnable_many(deals, rules)
    unknown = 0
    for cap in (1, 5, 50, 500):
        capped, states = winnable_many(deals, rules, max_states=cap)
        for k in range(len(seeds)):
            assert capped[k] in (truth[k], Outcome.UNKNOWN), (int(seeds[k]), cap)
            unknown += capped[k] == Outcome.UNKNOWN
            single = solve_winnable(deals[k], rules, max_states=cap)
            assert single.outcome == capped[k], (int(seeds[k]), cap)
            if single.outcome == Outcome.UNKNOWN:
                assert single.winnable is None and single.solution == []
    assert unknown > 0


@pytest.mark.parametrize("preset", ["standard", "msc"])
def test_max_states_bounds_the_positions_expanded(preset):
    rules = PRESETS[preset]
    deals = deals_from_seeds(np.arange(600, 640))
    for cap in (1, 5, 50, 500):
        _, states = winnable_many(deals, rules, max_states=cap)
        assert states.max() <= cap, cap
