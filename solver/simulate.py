"""The shared random-play runner: one parallel, reproducible loop for every game engine.

A game engine supplies a *chunk function*: a picklable top-level callable
``run_chunk(seed, first_game, n_games, params) -> dict[str, np.ndarray]`` that plays games
``first_game .. first_game + n_games - 1`` and returns per-game records (arrays whose first axis is
the game). Game ``i`` must draw all its randomness from ``rng.stream_seed(seed, i)``, so a game's
result depends only on the seed and its index. The runner cuts the games into fixed-size chunks
(independent of the job count), runs them in worker processes, and concatenates the records in
game order: the same seed gives the same records whatever ``jobs`` is.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Callable

import numpy as np
from tqdm import tqdm

ChunkFn = Callable[[int, int, int, dict], dict]

DEFAULT_CHUNK = 20_000
"""Games per chunk: large enough to amortise process hand-off, small enough for a smooth bar."""


def default_jobs() -> int:
    """Worker processes by default: every core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def check_jobs(jobs: int | None) -> int:
    """``None`` or 0 means all cores; otherwise a positive count. Raises ``ValueError``."""
    if jobs is None or jobs == 0:
        return default_jobs()
    if jobs < 0:
        raise ValueError(f"--jobs must be positive (or 0 for all cores), not {jobs}")
    return jobs


def _pool(jobs: int) -> ProcessPoolExecutor:
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context(method))


def run_games(run_chunk: ChunkFn, seed: int, games: int, params: dict, jobs: int | None = 1,
              progress: bool = True, chunk: int = DEFAULT_CHUNK, desc: str = "games") -> dict:
    """Play ``games`` games through ``run_chunk`` and return the per-game records in game order."""
    if games <= 0:
        raise ValueError(f"the number of games must be positive, not {games}")
    jobs = check_jobs(jobs)
    spans = [(start, min(chunk, games - start)) for start in range(0, games, chunk)]
    parts: list[dict | None] = [None] * len(spans)
    bar = tqdm(total=games, desc=desc, unit="game", disable=not progress, leave=False,
               dynamic_ncols=True)
    try:
        if jobs == 1 or len(spans) == 1:
            for k, (start, n) in enumerate(spans):
                parts[k] = run_chunk(seed, start, n, params)
                bar.update(n)
        else:
            with _pool(min(jobs, len(spans))) as pool:
                futures = {pool.submit(run_chunk, seed, start, n, params): k
                           for k, (start, n) in enumerate(spans)}
                from concurrent.futures import as_completed
                for fut in as_completed(futures):
                    k = futures[fut]
                    parts[k] = fut.result()
                    bar.update(spans[k][1])
    finally:
        bar.close()
    keys = parts[0].keys()
    return {key: np.concatenate([p[key] for p in parts]) for key in keys}
