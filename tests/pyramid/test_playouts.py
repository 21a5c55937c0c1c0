"""Playouts: the full legal-move generator against ``Position.legal_steps`` and the list of
docs/pyramid.md, both players game by game against the plain players written from the docs
(tests/reference/players.py) drawing from the plain-Python SplitMix64, their rates against the
plain players' with Python's own generator (slow), the same rates whatever ``jobs``, and a
chi-square test of the random player's choice."""

from __future__ import annotations

import itertools
import math
import random
import re
import zlib
from pathlib import Path

import numpy as np
import pytest

from solver.core.cards import card_rank, parse_card
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.model.layout import COVERED_BY, PYRAMID_CARDS
from solver.pyramid.analysis.playout_kernels import (PLAYER_GREEDY, PLAYER_RANDOM, choose,
                                                     gen_legal, play_block, uncovered_and_overlap)
from solver.pyramid.analysis.playouts import (DEFAULT_PLAYOUTS, PLAYERS, PlayoutRates,
                                              playout_rates, playout_wins_many, start_state)
from solver.pyramid.model.replay import (STEP_DRAW, STEP_KING, STEP_PAIR, STEP_RECYCLE, Position,
                                   format_step, parse_solution)
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.model.state import (AFTER_DRAW, MAX_MOVES, MOVE_DRAW, MOVE_KING, MOVE_RECYCLE,
                                  REC_MASK, apply_concrete, deal_tables, decode_move,
                                  pack_position, uncovered_mask)
from tests.reference.players import (SplitMix64Choice, greedy_choice, greedy_score, legal_moves,
                                     play, wins)
from tests.reference.rng import stream_seed as ref_stream_seed

ALL_RULES = [Rules(recycles=r, overlap=o, stock_top=t, goal=g)
             for r, o, t, g in itertools.product((0, 1, 2, None), (False, True), (False, True),
                                                 ("pyramid", "all"))]
"""Every rule combination of issue 14's matrix (recycles 0/1/2/unlimited x overlap x stock top x
goal)."""


def pack(pos: Position) -> int:
    return pack_position(pos.deal, pos.present, pos.stock, pos.waste, pos.recycles_used,
                         pos.rules.recycles is not None)


def move_step(deal, m) -> tuple:
    """The replay step of a kernel move int."""
    kind, a, b = decode_move(m)
    if kind == MOVE_DRAW:
        return (STEP_DRAW,)
    if kind == MOVE_RECYCLE:
        return (STEP_RECYCLE,)
    if kind == MOVE_KING:
        return (STEP_KING, int(deal[a]))
    return (STEP_PAIR, int(deal[a]), int(deal[b]))


def kernel_moves(pos: Position, tabs, rule) -> list[int]:
    out = np.zeros(MAX_MOVES, dtype=np.int64)
    n = gen_legal(np.uint64(pack(pos)), tabs, rule, out)
    return [int(m) for m in out[:n]]


def walk_positions(rules: Rules, deals: int, steps: int, seed: int):
    """Positions met along seeded random walks (plain Python ``random``) over ``legal_steps``."""
    rnd = random.Random(seed)
    for k in range(deals):
        pos = Position(deal_from_seed(seed * 1000 + k), rules)
        for _ in range(steps):
            yield pos
            legal = pos.legal_steps()
            if not legal:
                break
            # lean towards removals, so the walks reach emptied pyramids and late passes
            removals = [s for s in legal if s[0] in (STEP_KING, STEP_PAIR)]
            pos = pos.copy()
            pos.apply(rnd.choice(removals) if removals and rnd.random() < 0.7
                      else rnd.choice(legal))


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.describe())
def test_legal_moves_equal_legal_steps(rules):
    """gen_legal lists exactly legal_steps, and the list docs/pyramid.md states (as
    tests/reference/players.py enumerates it from the text), in their order; each move leads
    where the step does (about 5,000 positions over the 32 rule combinations)."""
    seen = 0
    rule = rules.args
    for pos in walk_positions(rules, deals=4, steps=60, seed=ALL_RULES.index(rules)):
        tabs = pos.deal.tables
        moves = kernel_moves(pos, tabs, rule)
        assert [move_step(pos.deal, m) for m in moves] == pos.legal_steps() == legal_moves(pos)
        state = np.uint64(pack(pos))
        for m, step in zip(moves, pos.legal_steps()):
            after = pos.copy()
            after.apply(step)
            got = int(apply_concrete(state, m)) & ~int(AFTER_DRAW)
            if rules.recycles is None:
                got &= ~int(REC_MASK)
            assert got == pack(after)
        seen += 1
    assert seen >= 100


def test_uncovered_and_overlap_masks():
    """The row-shift masks equal state.uncovered_mask and a per-card look at the covers."""
    rnd = random.Random(7)
    for _ in range(3000):
        pyr = rnd.getrandbits(PYRAMID_CARDS) | rnd.getrandbits(PYRAMID_CARDS)
        unc, left, right = uncovered_and_overlap(np.uint64(pyr), True)
        assert int(unc) == int(uncovered_mask(np.uint64(pyr)))
        want = [0, 0]
        for p in range(PYRAMID_CARDS - 7):
            if pyr >> p & 1:
                for k in range(2):
                    c, o = int(COVERED_BY[p, k]), int(COVERED_BY[p, 1 - k])
                    if int(unc) >> c & 1 and not pyr >> o & 1:
                        want[k] |= 1 << p
        assert [int(left), int(right)] == want
        assert uncovered_and_overlap(np.uint64(pyr), False)[1:] == (0, 0)


def test_won_position_has_no_moves():
    deal = deal_from_seed(3)
    pos = Position(deal, Rules())
    pos.present = 0
    assert kernel_moves(pos, deal_tables(deal), Rules().args) == []


# --------------------------------------------------------------------------- plain players


def reference_playout(deal, rules: Rules, player: str, seed: int, i: int,
                      start: Position | None = None) -> bool:
    """Playout ``i`` of ``seed`` by the players of tests/reference/players.py (written from
    docs/pyramid.md), drawing from the same SplitMix64 stream as the kernels' playout ``i``."""
    start = Position(deal, rules) if start is None else start
    return play(start, player, SplitMix64Choice(seed, i))


def kernel_playouts(deal, rules: Rules, seed: int, count: int, start=None) -> np.ndarray:
    out = np.zeros((count, 2), dtype=np.int8)
    play_block(np.asarray(deal, dtype=np.int64), np.uint64(start_state(deal, rules, start)),
               rules.args, np.uint64(seed), 0, count, out)
    return out


CROSS_RULES = [PRESETS["standard"], PRESETS["msc"], Rules(recycles=0, goal="all", stock_top=True),
               Rules(recycles=None, overlap=False, goal="all")]


@pytest.mark.parametrize("rules", CROSS_RULES, ids=lambda r: r.describe())
def test_kernel_playouts_equal_plain_players(rules):
    seed = 11
    wins = {"random": 0, "greedy": 0}
    for deal_seed in (1, 5, 8):
        deal = deal_from_seed(deal_seed)
        got = kernel_playouts(deal, rules, seed, 25)
        for i in range(25):
            for code, player in ((PLAYER_RANDOM, "random"), (PLAYER_GREEDY, "greedy")):
                want = reference_playout(deal, rules, player, seed, i)
                assert bool(got[i, code]) == want, (deal_seed, player, i)
                wins[player] += want
    if rules in PRESETS.values():  # both outcomes were compared (other rules may lose all)
        assert 0 < wins["random"] + wins["greedy"] < 150


def one_card_left() -> Position:
    """A position left with one bottom-row pyramid card whose only partner still in play is a
    single stock card: a pass may remove nothing (the partner drawn past, the kings left on the
    waste), so the loop rule decides many of its games."""
    for seed in range(500):
        deal = deal_from_seed(seed)
        for p in range(21, PYRAMID_CARDS):
            v = card_rank(int(deal[p]))
            partners = [s for s in range(52) if card_rank(int(deal[s])) == 13 - v]
            if v < 13 and sum(s >= PYRAMID_CARDS for s in partners) == 1:
                pos = Position(deal, Rules())
                pos.present = 1 << p
                return pos
    raise AssertionError("no such deal")


def test_loop_rule_equals_plain_player():
    """From ``one_card_left`` the loop rule (from one recycle to the next) ends many games; the
    kernel's outcomes equal the plain player's, and both outcomes occur."""
    pos = one_card_left()
    got = kernel_playouts(pos.deal, pos.rules, 3, 200, start=pos)
    for code, player in ((PLAYER_RANDOM, "random"), (PLAYER_GREEDY, "greedy")):
        want = [reference_playout(pos.deal, pos.rules, player, 3, i, start=pos) for i in range(200)]
        assert [bool(x) for x in got[:, code]] == want
    assert 0 < got[:, PLAYER_RANDOM].sum() < 200


def test_reference_can_fail():
    """The comparison above catches a kernel that differs: a player that never recycles twice
    without a removal between (no loop rule) or one drawing from another stream disagrees."""
    deal = deal_from_seed(1)
    rules = PRESETS["standard"]
    got = kernel_playouts(deal, rules, 11, 25)
    other = [reference_playout(deal, rules, "random", 12, i) for i in range(25)]
    assert [bool(x) for x in got[:, PLAYER_RANDOM]] != other


DOCS = Path(__file__).resolve().parents[2] / "docs" / "pyramid.md"
EXAMPLE_SEED, EXAMPLE_LINE = 18, "2s+Jh draw"
"""The worked example of docs/pyramid.md ("Players"): seed 18, standard rules, after these."""


def docs_example_table() -> list[tuple[str, str]]:
    """``(move, greedy score)`` of each row of the worked example's table in docs/pyramid.md."""
    text = DOCS.read_text()
    part = text[text.index("**Worked example.**"):]
    rows = re.findall(r"^\| (\d+) \| (\S+) \| [^|]+ \| (\d*) *\|$", part, re.MULTILINE)
    assert [int(n) for n, _, _ in rows] == list(range(1, len(rows) + 1)), rows
    return [(move, score) for _, move, score in rows]


def test_docs_worked_example_is_the_kernels_list():
    """The table of the worked example is the kernel's list there, in its order, with the
    reference's greedy scores; and the greedy player plays its best-scoring move."""
    deal = deal_from_seed(EXAMPLE_SEED)
    pos = Position(deal, Rules())
    for step in parse_solution(EXAMPLE_LINE):
        pos.apply(step)
    moves = [move_step(deal, m) for m in kernel_moves(pos, deal_tables(deal), Rules().args)]
    want = [(format_step(m), str(greedy_score(pos, m)) if m[0] in (STEP_KING, STEP_PAIR) else "")
            for m in moves]
    assert docs_example_table() == want
    assert greedy_choice(pos, legal_moves(pos), random.Random(0)) == (STEP_KING, parse_card("Kc"))


# --------------------------------------------------------------------------- rates (slow)

RATE_GAMES = 20_000
"""Games per player and deck of the rate comparison, for the kernel and the reference each."""
Z_99 = 2.5758
"""Two-sided 99% normal quantile."""
RATE_DECKS = [(PRESETS["standard"], 196), (PRESETS["standard"], 280), (PRESETS["msc"], 144),
              (Rules(recycles=None, overlap=True, stock_top=True, goal="all"), 90)]
"""``(rules, deal seed)``: decks with random-play rates near 0.5 and 0.3 and greedy rates from
0.5 to 1 (the comparison is sharpest near 0.5)."""


def rates_agree(a: int, b: int, n: int) -> bool:
    """Two win counts out of ``n`` games each are within the 99% interval of their difference
    (normal approximation, pooled rate); equal counts always agree."""
    p = (a + b) / (2 * n)
    return abs(a - b) / n <= Z_99 * math.sqrt(max(p * (1 - p), 0.0) * 2 / n)


def test_rates_agree_two_sided():
    assert rates_agree(10_500, 10_500, 20_000) and rates_agree(20_000, 20_000, 20_000)
    assert rates_agree(10_700, 10_500, 20_000)          # 1 point apart: z = 2.0
    assert not rates_agree(10_800, 10_500, 20_000)      # 1.5 points: z = 3.0
    assert not rates_agree(19_990, 20_000, 20_000)      # a sure win lost 10 times


@pytest.mark.slow
@pytest.mark.parametrize("rules, deal_seed", RATE_DECKS,
                         ids=[f"{r.describe()}-seed{s}" for r, s in RATE_DECKS])
def test_kernel_rates_agree_with_reference_players(rules, deal_seed):
    """The kernel's random and greedy win rates over ``RATE_GAMES`` playouts agree, within a 99%
    interval, with the reference players' (written from docs/pyramid.md) over as many games
    drawing from Python's own generator (``random.Random``), not the kernels' stream."""
    deal = deal_from_seed(deal_seed)
    got = playout_rates(deal, rules, games=RATE_GAMES, seed=1, jobs=1)
    start = Position(deal, rules)
    rng = random.Random(zlib.crc32(f"{rules.describe()} {deal_seed}".encode()))
    for player, kernel_wins in (("random", got.random_wins), ("greedy", got.greedy_wins)):
        ref_wins = wins(start, player, RATE_GAMES, rng)
        print(f"{rules.describe()}, seed {deal_seed}, {player}: kernel {kernel_wins / RATE_GAMES:.4f}"
              f" reference {ref_wins / RATE_GAMES:.4f} ({RATE_GAMES} games each)")
        assert rates_agree(kernel_wins, ref_wins, RATE_GAMES), (player, kernel_wins, ref_wins)


# --------------------------------------------------------------------------- API


def test_rates_same_with_one_and_two_jobs():
    deal = deal_from_seed(2)
    for rules in PRESETS.values():
        one = playout_rates(deal, rules, games=6_000, seed=4, jobs=1)
        two = playout_rates(deal, rules, games=6_000, seed=4, jobs=2)
        assert one == two
        assert one.to_dict() == {"games": 6_000, "seed": 4, "random": one.random,
                                 "greedy": one.greedy}
        assert one.random["n"] == 6_000 and one.random["p"] == one.random_wins / 6_000


def test_many_equals_one_at_a_time():
    deals = np.array([deal_from_seed(s) for s in range(4)])
    rules = PRESETS["msc"]
    many = playout_wins_many(deals, rules, 500, seed=9)
    for d in range(4):
        one = playout_rates(deals[d], rules, games=500, seed=9)
        assert (many.random[d], many.greedy[d]) == (one.random_wins, one.greedy_wins)
    only = playout_wins_many(deals, rules, 500, seed=9, greedy=False)
    assert list(only.random) == list(many.random) and not only.greedy.any()


def test_start_position():
    """From a won position every playout wins; a Position and its packing give the same rates."""
    deal = deal_from_seed(6)
    rules = Rules()
    pos = Position(deal, rules)
    for step in ["draw", "draw", "draw"]:
        pos.apply((step,))
    a = playout_rates(deal, rules, games=300, seed=1, start=pos)
    b = playout_rates(deal, rules, games=300, seed=1, start=pack(pos))
    assert a == b
    won = Position(deal, rules)
    won.present = 0
    assert playout_rates(deal, rules, games=50, start=won).random_wins == 50


def test_bad_input():
    deal = deal_from_seed(0)
    with pytest.raises(ValueError):
        playout_rates(deal, games=0)
    with pytest.raises(ValueError):
        playout_rates(deal, seed=-1)
    with pytest.raises(ValueError):
        playout_rates(deal[:51])
    with pytest.raises(ValueError):
        playout_rates(deal, rules="standard")
    with pytest.raises(ValueError):
        playout_rates(deal, start=Position(deal, PRESETS["msc"]))
    with pytest.raises(ValueError):
        playout_wins_many(deal, Rules(), 10)
    assert PLAYERS == ("random", "greedy") and DEFAULT_PLAYOUTS == 10_000
    assert PlayoutRates.__dataclass_params__.frozen


# --------------------------------------------------------------------------- uniform choice


def chi2_sf(x: float, df: int) -> float:
    """Upper tail of the chi-square distribution (series of the lower regularised gamma)."""
    a, z = df / 2, x / 2
    term = total = 1 / a
    k = 0
    while term > 1e-16 * total:
        k += 1
        term *= z / (a + k)
        total += term
    lower = math.exp(-z + a * math.log(z) - math.lgamma(a)) * total
    return max(0.0, 1 - lower)


def first_choices(pick, samples: int) -> tuple[list[int], int]:
    """Counts of each move index chosen at a fixed position with several legal moves, one
    fresh stream per sample as the playouts use them."""
    rules = Rules(recycles=None, overlap=True, stock_top=True, goal="all")
    pos = next(p for p in walk_positions(rules, deals=10, steps=60, seed=3)
               if len(p.legal_steps()) >= 5)
    moves = np.array(kernel_moves(pos, pos.deal.tables, rules.args) + [0] * 8,
                     dtype=np.int64)
    n = len(pos.legal_steps())
    counts = [0] * n
    for i in range(samples):
        counts[pick(np.array([ref_stream_seed(5, i)], dtype=np.uint64), moves, n)] += 1
    return counts, n


def test_random_choice_is_uniform():
    counts, n = first_choices(lambda rs, moves, n: choose(rs, PLAYER_RANDOM, moves, n), 20_000)
    expected = sum(counts) / n
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    assert chi2_sf(chi2, n - 1) > 1e-4


def test_chi_square_detects_a_planted_bias():
    """A chooser that picks the last move twice as often as the others fails the test."""
    def biased(rs, moves, n):
        return min(choose(rs, PLAYER_RANDOM, moves, n + 1), n - 1)

    counts, n = first_choices(biased, 20_000)
    expected = sum(counts) / n
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    assert chi2_sf(chi2, n - 1) < 1e-6


def test_chi2_sf():
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, abs=1e-6)
    assert chi2_sf(18.46682695290317, 4) == pytest.approx(0.001, abs=1e-7)
