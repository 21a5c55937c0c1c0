"""The score and card challenges (solver/pyramid/challenge/) against the plain reference.

``tests/reference/challenge.py`` searches every reachable position breadth-first and profiles
the fewest moves to each score and to each count of cards of each rank. Every answer is compared
with it, values and numbers of moves, and every line returned is replayed by the replay checker,
which scores it again itself (``solver.pyramid.model.scoring``).

The default run compares positions of 40 ``msc`` deals after a few moves (a seeded random line,
or the start of a shortest win, so that won and lost positions both come up) and a sample under
every other rule combination; the slow run compares 200 whole ``msc`` deals.
"""

from __future__ import annotations

import random

import numpy as np

import pytest
from reference.challenge import reference_profile

from solver.core.cards import KING
from solver.pyramid.challenge.api import (BEST, REACHED, UNKNOWN, card_challenge,
                                          score_challenge)
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.outcome import REASONS
from solver.pyramid.model.replay import Position, replay_from
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.model.scoring import line_scores, rank_gone, score_of
from tests.pyramid.cases import ALL_RULES, packed, start_position

MSC = PRESETS["msc"]
REF_CAP = 1_000_000
"""Most positions the reference may store for a position after a few moves."""
WHOLE_CAP = 12_000_000
"""Most positions the reference may store for a whole deal (about 4 s and 1 GB); deals with more
are skipped and counted."""


def replayed(pos: Position, line) -> Position:
    """The position after ``line`` from ``pos``; every step must be legal."""
    run = replay_from(pos, list(line))
    assert run.ok, run.message()
    return run.position


def check_score(deal, rules, pos: Position, profile, target=None, current=0) -> None:
    """``score_challenge`` from ``pos`` against the profile; its line replayed and rescored."""
    res = score_challenge(deal, rules, target=target, current=current, start=packed(pos))
    best, best_moves = profile.best_score()
    needed = None if target is None else target - current
    fewest = None if needed is None else profile.fewest_to_score(needed)
    if fewest is not None:
        assert res.outcome == REACHED and res.best.moves == fewest, (res, fewest)
        assert res.score >= needed
    else:
        assert res.outcome == BEST, res
        assert (res.score, res.best.moves) == (best, best_moves), (res, best, best_moves)
        assert res.most == best
        if needed is not None:
            assert res.short == needed - best
    end = replayed(pos, res.best.line)
    scores = line_scores(pos, list(res.best.line))
    assert (scores[-1] if scores else score_of(pos)) == score_of(end) == res.score
    assert res.best.clears_pyramid == (end.present == 0)


def check_cards(deal, rules, pos: Position, profile, rank: int, count=4, current=0) -> None:
    """``card_challenge`` from ``pos`` against the profile; its lines replayed and recounted."""
    res = card_challenge(deal, rank, rules, count=count, current=current, start=packed(pos))
    fewest = profile.fewest_to_count(rank, count - current)
    if fewest is not None:
        assert res.outcome == REACHED and res.best.moves == fewest, (res, fewest)
        assert res.clearing is None
    else:
        most, moves = profile.best_count(rank)
        assert res.outcome == BEST and (res.removed, res.best.moves) == (most, moves), \
            (res, most, moves)
        clear = profile.best_count(rank, clearing=True)
        if clear is None or clear[0] == most:
            assert res.clearing is None, res
        else:
            assert (res.clearing.value, res.clearing.moves) == clear, (res, clear)
            end = replayed(pos, res.clearing.line)
            assert end.present == 0 and rank_gone(end, rank) == res.clearing.value
            assert res.clearing.clears_pyramid
    end = replayed(pos, res.best.line)
    assert rank_gone(end, rank) == res.removed
    assert res.best.clears_pyramid == (end.present == 0)


def compare(deal, rules: Rules, pos: Position, profile, seed: int) -> None:
    """Every challenge of one position: the score without a target, with a target reached below
    the most, the most itself, one past it; the aces and one other rank, all four or fewer."""
    rng = random.Random(seed)
    check_score(deal, rules, pos, profile)
    best, _ = profile.best_score()
    now = score_of(pos)
    current = rng.randrange(0, 300, 5)
    for needed in sorted({now + (best - now) // 2, best, best + 5, now}):
        check_score(deal, rules, pos, profile, target=needed + current, current=current)
    for rank in (1, rng.randint(2, KING)):
        check_cards(deal, rules, pos, profile, rank)
        check_cards(deal, rules, pos, profile, rank, count=3, current=1)


def compare_deals(rules: Rules, seeds, wanted: int, whole: bool) -> int:
    """Compare positions of the deals of ``seeds`` (whole deals from their start with ``whole``)
    until ``wanted`` were compared; returns the number of deals skipped for the reference's
    cap."""
    done = skipped = 0
    for seed in seeds:
        deal = Deal.from_seed(seed)
        pos = Position(deal, rules) if whole else start_position(deal, rules, seed)
        profile = reference_profile(deal, rules, start=packed(pos),
                                    max_states=WHOLE_CAP if whole else REF_CAP)
        if profile is None:
            skipped += 1
            continue
        compare(deal, rules, pos, profile, seed)
        done += 1
        if done == wanted:
            return skipped
    raise AssertionError(f"only {done} deals compared")


def test_agrees_with_reference_on_msc_positions():
    compare_deals(MSC, range(1000), 40, whole=False)


@pytest.mark.slow
def test_agrees_with_reference_on_200_whole_msc_deals():
    compare_deals(MSC, range(100_000), 200, whole=True)


@pytest.mark.parametrize("rules", [r for r in ALL_RULES if r != MSC],
                         ids=lambda r: r.describe().replace(" ", "-"))
def test_agrees_with_reference_under_other_rules(rules):
    compare_deals(rules, range(200), 2, whole=False)


@pytest.mark.slow
@pytest.mark.parametrize("rules", [r for r in ALL_RULES if r != MSC],
                         ids=lambda r: r.describe().replace(" ", "-"))
def test_agrees_with_reference_under_other_rules_more(rules):
    compare_deals(rules, range(1000), 12, whole=False)


def test_a_target_met_at_the_start_needs_no_move():
    deal = Deal.from_seed(3)
    res = score_challenge(deal, target=2400, current=2400)
    assert res.outcome == REACHED and res.best.line == () and res.score == 0
    cards = card_challenge(deal, 1, count=12, current=12)
    assert cards.outcome == REACHED and cards.best.line == ()


def test_out_of_reach_says_how_short():
    """More than one deal can give: the most, and how far short it falls."""
    res = score_challenge(Deal.from_seed(3), target=2400)
    assert res.outcome == BEST and res.short == 2400 - res.score > 0
    cards = card_challenge(Deal.from_seed(3), 1, count=12)
    assert cards.outcome == BEST and cards.removed <= 4


@pytest.mark.parametrize("kwargs", [{"max_states": 1}, {"max_states": 50}, {"timeout": 1e-6}])
def test_limits_give_unknown_with_a_reason_and_sound_bounds(kwargs):
    for seed in range(4):
        deal = Deal.from_seed(seed)
        exact = score_challenge(deal)
        res = score_challenge(deal, **kwargs)
        if res.outcome == UNKNOWN:
            assert res.reason in REASONS
            assert res.score <= exact.score <= res.most
            end = replayed(Position(deal, MSC), res.best.line)
            assert score_of(end) == res.score
        else:
            assert (res.score, res.best.moves) == (exact.score, exact.best.moves)
        cards = card_challenge(deal, 1, **kwargs)
        assert cards.outcome in (UNKNOWN, REACHED, BEST)
        assert cards.outcome != UNKNOWN or cards.reason in REASONS


def test_out_of_memory_is_unknown_not_a_crash(monkeypatch):
    """No array may grow: the searches stop with reason "memory"."""
    monkeypatch.setattr("solver.core.memory.fits", lambda nbytes: False)
    res = score_challenge(Deal.from_seed(8))
    assert res.outcome == UNKNOWN and res.reason == "memory"


def test_results_as_records():
    res = score_challenge(Deal.from_seed(1), target=1000, current=100)
    d = res.to_dict()
    assert d["challenge"] == "score" and d["outcome"] == "reached" and d["rules"]["recycles"] == 2
    assert d["moves"] == len(d["line"]) == res.best.moves
    cards = card_challenge(Deal.from_seed(3), 1).to_dict()
    assert cards["challenge"] == "cards" and cards["rank"] == "A" and cards["count"] == 4
    assert set(cards) >= {"outcome", "removed", "moves", "line", "clears_pyramid", "clearing",
                          "states", "seconds", "reason"}


@pytest.mark.parametrize("call", [
    lambda: score_challenge(1, target=-1),
    lambda: score_challenge(1, current=1.5),
    lambda: score_challenge(1, rules="nope"),
    lambda: score_challenge(1, max_states=-1),
    lambda: score_challenge(1, timeout=0),
    lambda: score_challenge(1, start=1 << 62),
    lambda: card_challenge(1, 0),
    lambda: card_challenge(1, 14),
    lambda: card_challenge(1, 1, count=0),
], ids=["target", "current", "rules", "states", "timeout", "start", "rank-0", "rank-14", "count"])
def test_bad_input_is_refused(call):
    with pytest.raises(ValueError):
        call()


def test_a_doubled_memo_finds_every_entry():
    """The free-stock memo's entries carry a tag (``REACHES``) outside their key: doubling the
    memo must put each where ``table_find`` looks, at the hash of the key without it."""
    from solver.core.hashing import table_find, table_insert
    from solver.pyramid.challenge import kernels as ck
    from solver.pyramid.challenge.search import doubled

    rng = random.Random(5)
    memo = np.zeros(1 << 8, np.uint64)
    keys = {np.uint64(rng.getrandbits(52)) | ck.SETTLED: rng.random() < 0.5 for _ in range(150)}
    for key, reaches in keys.items():
        table_insert(memo, key, ck.REACHES, ck.REACHES if reaches else np.uint64(0))
    bigger, grown = doubled(memo, ck.REACHES)
    assert grown and len(bigger) == 2 * len(memo)
    for key, reaches in keys.items():
        found = table_find(bigger, key, ck.REACHES)
        assert found and bool(found & ck.REACHES) == reaches


def test_positions_explored_do_not_depend_on_the_workspace_history():
    """A workspace whose tables an earlier deal enlarged explores the same positions as a new
    one (the batch's rows and the figures printed must not depend on what ran before)."""
    from solver.pyramid.challenge.search import Workspace

    deal = Deal.from_seed(16)
    counts = set()
    for memo_bits, table_bits in ((17, 18), (20, 18), (17, 21)):
        ws = Workspace.create(MSC)
        ws.memo = np.zeros(1 << memo_bits, np.uint64)
        ws.table = np.zeros(1 << table_bits, np.uint64)
        res = score_challenge(deal, MSC, workspace=ws)
        counts.add((res.states, res.score, res.best.moves))
    assert len(counts) == 1, counts
