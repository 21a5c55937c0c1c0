"""Difficulty rank of a deal: where its random-play win rate falls among the winnable deals.

The table ``data/difficulty.json`` (rebuilt by ``benchmarks/build_difficulty.py``) holds, for
each rule set it covers (at least the presets ``standard`` and ``msc``), the distribution of the
random player's win rate (``solver.pyramid.analysis.playouts``) over every *winnable* deal among seeds
0..99,999: for each winnable deal ``PLAYOUTS_PER_DEAL`` playouts seeded with ``TABLE_SEED`` from
the deal's start, and ``wins_histogram[k]`` = the number of winnable deals won exactly ``k``
times. With a fixed number of playouts per deal a rate is one of ``k / playouts``, so this
histogram is the exact distribution (finer than any list of quantiles); ``percentiles`` repeats
it as 101 points for people reading the file.

``difficulty_rank(rate, rules)`` is the share of those deals that are *easier* than a deal won
at ``rate``: their rate is higher, ties counting half. It is printed as "harder than 93% of
winnable deals".

JSON layout::

    {"about": str, "built": "YYYY-MM-DD HH:MM UTC", "command": str, "seconds": float,
     "seeds": {"first": 0, "last": 99999}, "player": "random", "playouts": 1000, "seed": 0,
     "tables": [{"preset": "standard", "rules": Rules.to_dict(), "deals": 100000,
                 "winnable": int, "mean_rate": float, "percentiles": [101 floats],
                 "wins_histogram": [playouts + 1 ints]}, ...]}
"""

from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np

from solver.pyramid.model.rules import UNLIMITED, Rules

TABLE_NAME = "difficulty.json"
TABLE_PATH = Path(__file__).resolve().parents[3] / "data" / TABLE_NAME
"""The table in the repository's data/ (where ``benchmarks/build_difficulty.py`` writes it, and
where a checkout or an editable install reads it)."""
INSTALLED_TABLE = Path(sys.prefix) / "share" / "pyramid-solitaire" / TABLE_NAME
"""Where a regular install (``pip install .``) puts the table: pyproject.toml ships data/'s
file there as a data file, since data/ is not inside the ``solver`` package."""


def table_path() -> Path | None:
    """The difficulty table to read: the repository's, else the installed copy; None when
    neither exists."""
    for path in (TABLE_PATH, INSTALLED_TABLE):
        if path.exists():
            return path
    return None
TABLE_SEEDS = (0, 99_999)
"""First and last deal seed the table covers."""
PLAYOUTS_PER_DEAL = 1_000
"""Random playouts per winnable deal in the table (a deal's analysis uses 10,000)."""
TABLE_SEED = 0
"""Playout seed of the table's playouts."""
TIE_WEIGHT = 0.5
"""Weight of the deals whose rate equals the one ranked."""
RATE_TOLERANCE = 1e-12
"""Two rates closer than this are equal (``k / 1000`` against ``j / 10000``)."""


class RateTable(NamedTuple):
    """One rule set's entry: ``wins_histogram[k]`` winnable deals won ``k`` of ``playouts``."""

    rules: Rules
    playouts: int
    wins_histogram: np.ndarray


def rules_from_dict(d: dict) -> Rules:
    """The ``Rules`` of ``Rules.to_dict()``'s output."""
    rec = d["recycles"]
    return Rules(recycles=None if rec == UNLIMITED else int(rec), overlap=bool(d["overlap"]),
                 stock_top=bool(d["stock_top"]), goal=str(d["goal"]))


def histogram_rank(wins_histogram, playouts: int, rate: float) -> float | None:
    """Share of the deals of ``wins_histogram`` (deals won ``k`` of ``playouts``) whose rate is
    above ``rate``, ties counting ``TIE_WEIGHT``; None for an empty histogram."""
    hist = np.asarray(wins_histogram, dtype=np.int64)
    total = int(hist.sum())
    if total == 0:
        return None
    rates = np.arange(hist.size) / playouts
    above = int(hist[rates > rate + RATE_TOLERANCE].sum())
    ties = int(hist[np.abs(rates - rate) <= RATE_TOLERANCE].sum())
    return (above + TIE_WEIGHT * ties) / total


@lru_cache(maxsize=1)
def load_tables(path: Path | None = None) -> tuple[RateTable, ...]:
    """The table's entries (read once; ``path`` None: ``table_path()``); empty when the file is
    missing."""
    import json

    path = table_path() if path is None else path
    if path is None or not path.exists():
        return ()
    data = json.loads(path.read_text())
    return tuple(RateTable(rules_from_dict(t["rules"]), int(data["playouts"]),
                           np.asarray(t["wins_histogram"], dtype=np.int64))
                 for t in data["tables"])


def table_rules() -> list[Rules]:
    """The rule sets the table covers."""
    return [t.rules for t in load_tables()]


def difficulty_rank(random_rate: float, rules: Rules) -> float | None:
    """Share (0..1) of the table's winnable deals under ``rules`` that are easier than a deal whose
    random-play win rate is ``random_rate`` (a higher rate; ties count half); None when the table
    has no entry for these rules. Raises ``ValueError`` for a rate outside 0..1."""
    try:
        rate = float(random_rate)
    except (TypeError, ValueError):
        raise ValueError(f"the win rate must be a number, not {random_rate!r}") from None
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"the win rate must be within 0..1, not {random_rate!r}")
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a solver.pyramid.model.rules.Rules, not {type(rules).__name__}")
    for t in load_tables():
        if t.rules == rules:
            return histogram_rank(t.wins_histogram, t.playouts, rate)
    return None
