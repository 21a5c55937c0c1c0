"""Every verdict of the default rules stays what it was before issue 15's pruning: seeds
0..199,999 pinned in ``tests/golden/winnable_standard_seeds.txt`` (written by the search of commit
c0ef3fb), checked through the whole-chunk kernel the batch uses and through ``dfs.decide_batch``
(20,000 seeds by default, all of them in the slow run)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver.pyramid.winnable.chunk import decide_seed_chunk
from solver.pyramid.model.deals import deals_from_seeds
from solver.pyramid.winnable.dfs import decide_batch
from solver.pyramid.model.rules import Rules
from solver.pyramid.winnable.solve import Workspace

PINNED = Path(__file__).resolve().parents[1] / "golden" / "winnable_standard_seeds.txt"
QUICK_SEEDS = 20_000


def pinned_won() -> np.ndarray:
    """The pinned verdicts: True where the seed is winnable."""
    hexits = "".join(line.strip() for line in PINNED.read_text().splitlines()
                     if not line.startswith("#"))
    return np.unpackbits(np.frombuffer(bytes.fromhex(hexits), dtype=np.uint8)).astype(bool)


def chunk_outcomes(n: int) -> np.ndarray:
    ws = Workspace.create(Rules())
    out = np.empty(n, dtype=np.int8)
    decide_seed_chunk(np.arange(n, dtype=np.int64), Rules().args, 0, ws.args(),
                      np.empty((n, 52), dtype=np.int8), out, np.empty(n, dtype=np.int64),
                      np.empty(n, dtype=np.int64))
    return out


def batch_outcomes(n: int) -> np.ndarray:
    ws = Workspace.create(Rules())
    out = np.empty(n, dtype=np.int8)
    decide_batch(deals_from_seeds(np.arange(n)), Rules().args, 0, ws.args(), out,
                 np.empty(n, dtype=np.int64))
    return out


def check(n: int) -> None:
    want = np.where(pinned_won()[:n], 1, 0)
    assert len(want) == n
    assert (chunk_outcomes(n) == want).all()
    assert (batch_outcomes(n) == want).all()


def test_pinned_file_holds_both_verdicts():
    won = pinned_won()
    assert len(won) == 200_000 and 0.8 < won.mean() < 0.86


def test_verdicts_of_the_first_seeds_are_pinned():
    check(QUICK_SEEDS)


@pytest.mark.slow
def test_verdicts_of_200000_seeds_are_pinned():
    check(200_000)
