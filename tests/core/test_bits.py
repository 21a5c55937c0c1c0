"""solver.core.bits against plain Python, and against the per-game copies it replaces."""

import numpy as np
import pytest

from solver.core import bits
from solver.core.rng import new_state

MASKS = [1, 2, 3, 0b1011000, 1 << 63, (1 << 64) - 1, 0x8000_0000_0000_0001, 0x0123_4567_89AB_CDEF]


def plain_bits(m: int) -> list[int]:
    return [i for i in range(64) if m >> i & 1]


@pytest.mark.parametrize("m", MASKS + [int(x) for x in
                                       np.random.default_rng(5).integers(1, 2**63, 50)])
def test_counts_and_indices_match_plain_python(m):
    ones = plain_bits(m)
    assert bits.popcount(np.uint64(m)) == len(ones)
    assert bits.lowest_bit(np.uint64(m)) == ones[0]
    for k in range(len(ones)):
        assert bits.nth_bit(np.uint64(m), k) == ones[k]


def test_popcount_of_zero():
    assert bits.popcount(np.uint64(0)) == 0


def test_random_bit_is_uniform_and_only_picks_set_bits():
    m = np.uint64(0b1010_0110_0001)
    allowed = plain_bits(int(m))
    state = new_state(11)
    counts = dict.fromkeys(allowed, 0)
    draws = 50_000
    for _ in range(draws):
        c = int(bits.random_bit(state, m))
        counts[c] += 1  # a KeyError here: a bit that is not set was picked
    expected = draws / len(allowed)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 20.5  # 4 degrees of freedom: p ~ 0.0004


def test_deal_round_robin_deals_every_card_once_from_the_dealers_left():
    deck = np.arange(25, dtype=np.int64)
    work = np.empty_like(deck)
    hands = np.zeros(6, dtype=np.uint64)
    bits.deal_round_robin(new_state(3), deck, work, 4, 2, hands, 24)
    assert sum(bits.popcount(h) for h in hands[:4]) == 24
    union = 0
    for h in hands[:4]:
        assert union & int(h) == 0
        union |= int(h)
    assert union | (1 << int(work[24])) == (1 << 25) - 1
    # The first card goes to seat 3 (left of dealer 2), the second to seat 0.
    assert int(hands[3]) >> int(work[0]) & 1 and int(hands[0]) >> int(work[1]) & 1


@pytest.mark.parametrize("seed", [0, 1, 77, 2**62 + 5])
def test_random_bit_draws_exactly_one_below_of_the_popcount(seed):
    """The engines' seeded results rest on this: one ``below(popcount)`` per pick, the k-th
    lowest set bit, and nothing else taken from the stream."""
    from solver.core.rng import below
    masks = [np.uint64(m) for m in MASKS] + [np.uint64(0b1010_0110_0001)] * 5
    state, twin = new_state(seed), new_state(seed)
    for m in masks:
        picked = int(bits.random_bit(state, m))
        assert picked == plain_bits(int(m))[int(below(twin, len(plain_bits(int(m)))))]
        assert state[0] == twin[0]


@pytest.mark.parametrize("n, dealer, count", [(2, 0, 24), (3, 2, 25), (4, 1, 52), (6, 5, 50)])
def test_deal_round_robin_is_a_shuffle_then_one_card_a_seat(n, dealer, count):
    from solver.core.rng import shuffle
    deck = np.arange(count + 3, dtype=np.int64) * 7 % 64  # distinct card ids, not in order
    work = np.empty_like(deck)
    hands = np.full(n, 0xFFFF, dtype=np.uint64)  # stale contents are cleared
    state, twin = new_state(9), new_state(9)
    bits.deal_round_robin(state, deck, work, n, dealer, hands, count)
    shuffled = deck.copy()
    shuffle(twin, shuffled)
    assert work.tolist() == shuffled.tolist() and state[0] == twin[0]
    expected = [0] * n
    for j in range(count):
        expected[(dealer + 1 + j) % n] |= 1 << int(shuffled[j])
    assert [int(h) for h in hands] == expected
