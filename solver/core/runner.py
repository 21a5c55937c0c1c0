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

import contextlib
import multiprocessing as mp
import os
import signal
import threading
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Callable

import numpy as np

ChunkFn = Callable[[int, int, int, dict], dict]

DEFAULT_CHUNK = 20_000
"""Games per chunk: large enough to amortise process hand-off, small enough for a smooth bar."""
MAX_GAMES = 100_000_000
"""Most games one run may play: every game's record is kept in memory until the summary."""
IN_FLIGHT_PER_WORKER = 2
"""Chunks handed to the pool per worker at a time: enough to keep every worker busy, few enough
that Ctrl-C (or an error) has almost nothing queued to cancel."""


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


def check_games(games: int, what: str = "games") -> int:
    """``games`` as an int in 1 .. ``MAX_GAMES``. Raises ``ValueError`` naming the bounds."""
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)):
        raise ValueError(f"the number of {what} must be an integer, not {games!r}")
    if not 1 <= games <= MAX_GAMES:
        raise ValueError(f"the number of {what} must be 1 .. {MAX_GAMES:,}, not {games}")
    return int(games)


def ignore_interrupts() -> None:
    """Worker initializer: Ctrl-C reaches the whole process group, but only the parent acts on
    it (it cancels the queued chunks and ends the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def deferred_interrupts():
    """Hold Ctrl-C back while a chunk runs in this process; yields a function that raises the
    ``KeyboardInterrupt`` between chunks if one came.

    A KeyboardInterrupt raised in the middle of numba loading or running a kernel can leave the
    process to die of a segmentation fault on the way out; between chunks it is safe. A chunk
    takes well under a second, so Ctrl-C still answers at once. Outside the main thread, or when
    SIGINT is not Python's usual handler (ignored, say), nothing changes.
    """
    pending: list[int] = []

    def check() -> None:
        if pending:
            raise KeyboardInterrupt

    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield check
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pending.append(signum))
    try:
        yield check
    finally:
        signal.signal(signal.SIGINT, previous)


def make_pool(jobs: int) -> ProcessPoolExecutor:
    """A pool of ``jobs`` worker processes that leave Ctrl-C to the parent."""
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    return ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context(method),
                               initializer=ignore_interrupts)


def stop_pool(pool: ProcessPoolExecutor, before: set) -> None:
    """Cancel every queued chunk and end the pool's workers at once (not after their chunks)."""
    pool.shutdown(wait=False, cancel_futures=True)
    workers = [p for p in mp.active_children() if p not in before]
    for p in workers:
        p.terminate()
    for p in workers:
        p.join()


def run_in_pool(run_chunk: ChunkFn, seed: int, params: dict, spans: list[tuple[int, int]],
                jobs: int, parts: list, bar) -> None:
    """Play ``spans`` in ``jobs`` worker processes, at most ``IN_FLIGHT_PER_WORKER * jobs``
    chunks queued at a time, filling ``parts`` in span order. On Ctrl-C or any error the queued
    chunks are cancelled and the workers ended before the exception goes on."""
    before = set(mp.active_children())
    pool = make_pool(jobs)
    try:
        todo = iter(enumerate(spans))
        running: dict = {}
        limit = IN_FLIGHT_PER_WORKER * jobs
        while True:
            for k, (start, n) in todo:
                running[pool.submit(run_chunk, seed, start, n, params)] = k
                if len(running) >= limit:
                    break
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                k = running.pop(fut)
                parts[k] = fut.result()
                bar.update(spans[k][1])
    except BaseException:
        stop_pool(pool, before)
        raise
    pool.shutdown(wait=True)


def run_games(run_chunk: ChunkFn, seed: int, games: int, params: dict, jobs: int | None = 1,
              progress: bool = True, chunk: int = DEFAULT_CHUNK, desc: str = "games") -> dict:
    """Play ``games`` games through ``run_chunk`` and return the per-game records in game order.

    Ctrl-C raises ``KeyboardInterrupt`` within a chunk's time (one process) or at once (worker
    processes, which are ended); nothing is left running."""
    from tqdm import tqdm  # the progress bar's import is not paid by commands that never run

    games = check_games(games)
    jobs = check_jobs(jobs)
    spans = [(start, min(chunk, games - start)) for start in range(0, games, chunk)]
    parts: list[dict | None] = [None] * len(spans)
    bar = tqdm(total=games, desc=desc, unit="game", disable=not progress, leave=False,
               dynamic_ncols=True)
    try:
        if jobs == 1 or len(spans) == 1:
            with deferred_interrupts() as check_interrupt:
                for k, (start, n) in enumerate(spans):
                    parts[k] = run_chunk(seed, start, n, params)
                    bar.update(n)
                    check_interrupt()
        else:
            run_in_pool(run_chunk, seed, params, spans, min(jobs, len(spans)), parts, bar)
    finally:
        bar.close()
    keys = parts[0].keys()
    return {key: np.concatenate([p[key] for p in parts]) for key in keys}
