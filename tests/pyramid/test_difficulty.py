"""The difficulty rank: brute force on small histograms, monotone, 0..1, None without a table,
and the shipped table's consistency."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from solver.pyramid.analysis.difficulty import (PLAYOUTS_PER_DEAL, TABLE_PATH, TABLE_SEEDS,
                                       difficulty_rank, histogram_rank, load_tables,
                                       rules_from_dict, table_rules)
from solver.pyramid.model.rules import PRESETS, Rules


def brute_rank(rates: list[float], rate: float) -> float:
    """Share of ``rates`` above ``rate``, ties counting half, by counting."""
    easier = sum(1 for r in rates if r > rate)
    ties = sum(1 for r in rates if r == rate)
    return (easier + ties / 2) / len(rates)


def test_histogram_rank_equals_brute_force():
    rnd = random.Random(1)
    for _ in range(200):
        playouts = rnd.choice([4, 10, 1000])
        wins = [rnd.randrange(playouts + 1) for _ in range(rnd.randrange(1, 30))]
        hist = np.bincount(wins, minlength=playouts + 1)
        rates = [w / playouts for w in wins]
        for rate in rates + [0.0, 1.0, rnd.random()]:
            assert histogram_rank(hist, playouts, rate) == pytest.approx(brute_rank(rates, rate))


def test_ties_count_half():
    hist = np.array([0, 2, 0, 0])  # two deals, both at rate 1/3
    assert histogram_rank(hist, 3, 1 / 3) == 0.5
    assert histogram_rank(hist, 3, 0.0) == 1.0
    assert histogram_rank(hist, 3, 1.0) == 0.0
    assert histogram_rank(np.zeros(4), 3, 0.5) is None
    # a rate from 10,000 playouts equal to one from 3 or 1,000 counts as a tie
    assert histogram_rank(np.bincount([124], minlength=1001), 1000, 1230 / 10000) == 1.0
    assert histogram_rank(np.bincount([123], minlength=1001), 1000, 1230 / 10000) == 0.5


def test_table_covers_the_presets():
    assert PRESETS["standard"] in table_rules() and PRESETS["msc"] in table_rules()


@pytest.mark.parametrize("preset", ["standard", "msc"])
def test_rank_monotone_and_within_bounds(preset):
    rules = PRESETS[preset]
    ranks = [difficulty_rank(r, rules) for r in np.linspace(0, 1, 2001)]
    assert all(0.0 <= x <= 1.0 for x in ranks)
    assert all(a >= b for a, b in zip(ranks, ranks[1:]))  # a higher rate: an easier deal
    assert ranks[0] > 0.5 > ranks[-1]


def test_rank_none_without_table_and_bad_input():
    other = Rules(recycles=7, overlap=False)
    assert other not in table_rules()
    assert difficulty_rank(0.1, other) is None
    for bad in (-0.1, 1.5, "x", None):
        with pytest.raises(ValueError):
            difficulty_rank(bad, PRESETS["standard"])
    with pytest.raises(ValueError):
        difficulty_rank(0.5, "standard")


def test_table_file_is_consistent():
    data = json.loads(TABLE_PATH.read_text())
    assert data["playouts"] == PLAYOUTS_PER_DEAL and data["player"] == "random"
    assert (data["seeds"]["first"], data["seeds"]["last"]) == TABLE_SEEDS
    for t in data["tables"]:
        hist = t["wins_histogram"]
        assert len(hist) == PLAYOUTS_PER_DEAL + 1
        assert sum(hist) == t["winnable"] <= t["deals"] == TABLE_SEEDS[1] - TABLE_SEEDS[0] + 1
        mean = sum(k * c for k, c in enumerate(hist)) / t["winnable"] / PLAYOUTS_PER_DEAL
        assert mean == pytest.approx(t["mean_rate"])
        assert len(t["percentiles"]) == 101 and t["percentiles"] == sorted(t["percentiles"])
        assert rules_from_dict(t["rules"]).to_dict() == t["rules"]
    assert len(load_tables()) == len(data["tables"])


def test_a_regular_install_finds_the_shipped_table(tmp_path, monkeypatch):
    """pyproject.toml ships data/difficulty.json as a data file, and the reader falls back to
    that copy when there is no repository around it (``pip install .``)."""
    import tomllib
    from pathlib import Path

    from solver.pyramid.analysis import difficulty

    root = Path(difficulty.__file__).resolve().parents[3]
    shipped = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "data-files"]
    assert shipped == {"share/pyramid-solitaire": ["data/difficulty.json"]}
    copy = tmp_path / "share" / "pyramid-solitaire" / "difficulty.json"
    copy.parent.mkdir(parents=True)
    copy.write_bytes(difficulty.TABLE_PATH.read_bytes())
    monkeypatch.setattr(difficulty, "TABLE_PATH", tmp_path / "no-repo" / "difficulty.json")
    monkeypatch.setattr(difficulty, "INSTALLED_TABLE", copy)
    assert difficulty.table_path() == copy
    difficulty.load_tables.cache_clear()
    try:
        assert len(difficulty.load_tables()) == 2
        monkeypatch.setattr(difficulty, "INSTALLED_TABLE", tmp_path / "none.json")
        difficulty.load_tables.cache_clear()
        assert difficulty.table_path() is None and difficulty.load_tables() == ()
        assert difficulty.difficulty_rank(0.1, Rules()) is None
    finally:
        difficulty.load_tables.cache_clear()
