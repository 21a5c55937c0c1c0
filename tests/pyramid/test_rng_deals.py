from pathlib import Path

import numpy as np
import pytest

from reference.rng import SplitMix64, naive_deal, stream_seed as naive_stream
from solver.pyramid.model.deals import (DealError, check_deal, deal_from_seed, deals_from_seeds,
                                        draw_deal, format_deal, parse_deal)
from solver.core.rng import MAX_SEED, below, check_seed, new_state, next_u64, shuffle, stream_seed

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "golden_deals.txt"


def golden():
    for line in GOLDEN.read_text().splitlines():
        if line and not line.startswith("#"):
            seed, text = line.split("\t")
            yield int(seed), text


def test_splitmix64_known_values():
    # Published SplitMix64 outputs for seed 0.
    s = new_state(0)
    assert [int(next_u64(s)) for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


@pytest.mark.parametrize("seed", [0, 1, 7, 2**40 + 3, MAX_SEED])
def test_numba_rng_matches_plain_python(seed):
    ref = SplitMix64(seed)
    s = new_state(seed)
    for n in [1, 2, 3, 7, 52, 1000, 2**31 - 1, 2**62 + 1]:
        assert int(below(s, n)) == ref.below(n)
    a = np.arange(60)
    b = list(range(60))
    shuffle(s, a)
    ref.shuffle(b)
    assert a.tolist() == b
    for i in [0, 1, 99, 2**40]:
        assert int(stream_seed(seed, i)) == naive_stream(seed, i)


def test_golden_deals_never_change():
    pins = list(golden())
    assert len(pins) >= 20
    for seed, text in pins:
        assert format_deal(deal_from_seed(seed)) == text
        assert format_deal(naive_deal(seed)) == text


def test_batch_deals_equal_single_deals():
    seeds = np.arange(500, 700)
    many = deals_from_seeds(seeds)
    for k, s in enumerate(seeds):
        assert many[k].tolist() == naive_deal(int(s))


def test_deal_text_round_trip_and_case():
    for seed in range(50):
        d = deal_from_seed(seed)
        text = format_deal(d)
        assert parse_deal(text).tolist() == d.tolist()
        assert parse_deal(text.lower().replace(" ", ", ")).tolist() == d.tolist()
        assert parse_deal(text.replace("T", "10")).tolist() == d.tolist()
        assert check_deal(d).tolist() == d.tolist()


def test_draw_deal_shows_rows_and_stock():
    d = deal_from_seed(3)
    lines = draw_deal(d).splitlines()
    assert len(lines) == 8 and lines[-1].startswith("stock: ")
    assert [len(line.split()) for line in lines[:7]] == [1, 2, 3, 4, 5, 6, 7]


@pytest.mark.parametrize("mutate, message", [
    (lambda t: "", "empty"),
    (lambda t: t.replace("Ac", "Xc"), "'Xc' is not a card"),
    (lambda t: t.replace("Ac", "Ad"), "duplicates token"),
    (lambda t: " ".join(t.split()[:-1]), "missing"),
    (lambda t: t + " Ac", "token 53"),
    (lambda t: t + " RJ", "jokers"),
])
def test_bad_deals_say_what_and_where(mutate, message):
    with pytest.raises(DealError, match=message):
        parse_deal(mutate(format_deal(deal_from_seed(11))))


def test_seed_range():
    check_seed(0)
    check_seed(MAX_SEED)
    for bad in [-1, MAX_SEED + 1, 1.5, "3", True]:
        with pytest.raises(ValueError):
            check_seed(bad)
