"""The column-wise CSV writer (``solver.batch.csv_kernel`` through ``io.csv_bytes``) against the
row-at-a-time Python writer (``io.csv_rows``), byte for byte."""

from __future__ import annotations

import numpy as np

from solver.batch.io import csv_bytes, csv_rows
from solver.batch.summary import NO_MOVES, REASON_NAMES
from solver.batch.work import ChunkResult, ChunkTask, solve_chunk
from solver.pyramid.model.deals import deals_from_seeds
from solver.pyramid.model.rules import Rules

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def chunk(n: int, seed: int = 7) -> ChunkResult:
    """Random columns of ``n`` rows covering every outcome, reason, missing and extreme values."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, 10**12, n)
    ids[:4] = [0, 1, INT64_MAX, INT64_MIN]
    moves = rng.integers(0, 200, n).astype(np.int16)
    moves[rng.random(n) < 0.5] = NO_MOVES
    moves[4] = np.iinfo(np.int16).max
    states = rng.integers(0, 10**9, n)
    states[:3] = [0, 9, INT64_MAX]
    ns = rng.integers(0, 10**10, n)
    ns[:8] = [0, 1, 999_999, 1_000_000, 1_000_001, 123_456_789, INT64_MAX, -1]
    return ChunkResult(3, ids, deals_from_seeds(np.arange(n)).astype(np.int8),
                       rng.integers(0, 3, n).astype(np.int8), moves, states, ns,
                       rng.integers(0, len(REASON_NAMES), n).astype(np.int8))


def test_kernel_rows_are_the_python_rows():
    r = chunk(3000)
    assert csv_bytes(r) == csv_rows(r).encode("ascii")


def test_kernel_rows_of_a_scored_chunk():
    r = solve_chunk(ChunkTask(0, Rules(), max_states=25, seeds=(100, 600)))
    assert (r.outcome == 2).any() and (r.outcome == 0).any() and (r.outcome == 1).any()
    assert csv_bytes(r) == csv_rows(r).encode("ascii")


def test_an_empty_chunk_has_no_rows():
    r = chunk(10)
    empty = ChunkResult(0, *(a[:0] for a in (r.ids, r.deals, r.outcome, r.moves, r.states,
                                             r.ns, r.reason)))
    assert csv_bytes(empty) == b""
