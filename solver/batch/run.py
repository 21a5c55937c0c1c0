"""Batch scoring of Pyramid deals: many deals, one row each, run so that no work is ever lost.

``run_batch(source, out, rules, ...)`` cuts the deals into fixed chunks (their size never depends
on the job count), scores them in worker processes (or as tasks on a Dask cluster), and writes
every finished chunk at once as a file of its own in ``<out>.parts/``:

    manifest.json          the run's parameters; ``resume`` refuses a run with different ones
    part-000012.csv        chunk 12's rows (or .parquet), written to a temp file + os.replace
    part-000012.json       written after the rows: chunk 12 is done. Holds the row count, the
                           digest of the chunk's input lines (a resumed run re-reads its input and
                           checks it) and the chunk's summary

A run killed at any point (Ctrl-C, kill -9, a crash) leaves complete chunk files only; run again
with ``resume=True`` and it scores exactly the missing chunks. At the end the chunks are joined in
order into ``out`` (streaming, one chunk in memory at a time, atomically) and the directory is
removed.

One run at a time: a run holds an exclusive ``flock`` on ``<out>.parts`` from start to end, and a
second run of the same output (resumed or not) refuses at once. The lock dies with its process,
so a run killed with -9 never leaves a stale lock behind.

Failures: bad input raises ``ValueError`` (before any scoring where it can be known then);
a fault that stops the run (disk full, the Dask scheduler lost, out of memory outside a deal's
search, a worker process killed, the output in use) raises ``BatchFailed``, whose message says
what is kept and that ``resume`` continues; Ctrl-C raises ``BatchInterrupted``.

Results are the same for the same input whatever the job count or executor, except the measured
``ms`` column (and ``--timeout``, which depends on the machine's speed).

Streams. A deal file that is not a regular file (stdin, a FIFO, a pipe) is read as its lines
arrive: a chunk is handed to a worker as soon as its last line is read (chunks are still cut by
count alone), and its rows are written as soon as it is scored, while the later lines are still
on their way; the progress bar counts deals without a total. With worker processes the stream is
read in a thread (``arriving``), so that a slow stream never holds a finished chunk back: when
the next chunk is not there within ``STREAM_WAIT_SECONDS`` an idle worker is handed ``WAITING``
(no work) and the finished chunks are collected meanwhile. ``resume`` reads a stream again from
its start: pipe the same deals in, the chunks done are checked against their digests and skipped.
"""

from __future__ import annotations

import os
import queue
import shutil
import sys
import threading
import time
from typing import Iterable, Iterator

from tqdm import tqdm

from solver.batch.cluster import run_dask
from solver.batch.parts import join_parts, lock_parts, open_parts, save_chunk
from solver.batch.plan import (MANIFEST, BatchFailed, BatchInterrupted, BatchPlan, fault_message,
                               kept_message)
from solver.batch.sources import LineSource
from solver.batch.summary import Summary
from solver.batch.work import ChunkTask, solve_chunk
from solver.core.runner import check_jobs, run_tasks
from solver.pyramid.deals import DealError

STREAM_WAIT_SECONDS = 0.2
"""How long a run with worker processes waits for a stream's next chunk before it collects the
chunks finished meanwhile (and writes them); then it waits again."""
WAITING = None
"""The task that is no task: handed to an idle worker while a stream's next chunk has not
arrived, so that the pool collects the finished chunks instead of waiting for the stream."""


def solve_or_wait(task: ChunkTask | None):
    """``solve_chunk(task)``, or ``None`` for ``WAITING`` (the pool's worker function)."""
    return None if task is WAITING else solve_chunk(task)


def arriving(items: Iterable, wait: float = STREAM_WAIT_SECONDS) -> Iterator:
    """``items``, read by a thread of their own; ``WAITING`` whenever ``wait`` seconds pass
    without the next one. The reader's exception is raised here, in order. At most one item is
    read ahead (a stream is read as slowly as the chunks are taken)."""
    ready: queue.Queue = queue.Queue(maxsize=1)

    def read() -> None:
        try:
            for item in items:
                ready.put((True, item))
            ready.put((True, StopIteration))
        except BaseException as e:  # noqa: BLE001 - handed to the consumer, which raises it
            ready.put((False, e))

    threading.Thread(target=read, name="deal stream", daemon=True).start()
    while True:
        try:
            ok, item = ready.get(timeout=wait)
        except queue.Empty:
            yield WAITING
            continue
        if not ok:
            raise item
        if item is StopIteration:
            return
        yield item


def _tasks(plan: BatchPlan, chunks: Iterable, done: dict[int, dict], digests: dict[int, str],
           seen: list) -> Iterator[ChunkTask | None]:
    """Tasks for the chunks not done yet (``WAITING`` passed on); checks the done chunks' input
    against their digest."""
    for item in chunks:
        if item is WAITING:
            yield WAITING
            continue
        index, payload, digest = item
        seen[0] = index + 1
        rec = done.get(index)
        if rec is not None:
            if rec["digest"] != digest:
                raise ValueError(f"cannot resume: the input differs from the interrupted run's "
                                 f"in chunk {index} (deals {index * plan.chunk + 1}.."
                                 f"{(index + 1) * plan.chunk})")
            continue
        digests[index] = digest
        yield plan.task(index, payload)


def run_batch(plan: BatchPlan, jobs: int | None = None, resume: bool = False,
              progress: bool = True, scheduler: str | None = None) -> dict:
    """Score every deal of ``plan`` into ``plan.out``; returns the summary (``Summary.to_dict``)
    plus ``run`` facts. Raises ``ValueError`` for bad input (a malformed deal line names its
    line), ``BatchFailed`` for a fault that stopped the run (disk full, the scheduler lost, the
    output in use by another run) and ``BatchInterrupted`` on Ctrl-C."""
    jobs = check_jobs(jobs)
    lock = lock_parts(plan)
    try:
        return _run_locked(plan, jobs, resume, progress, scheduler, lock)
    finally:
        os.close(lock)


def _run_locked(plan: BatchPlan, jobs: int, resume: bool, progress: bool,
                scheduler: str | None, lock: int) -> dict:
    fresh = not os.path.exists(os.path.join(plan.parts_dir, MANIFEST))
    try:
        done = open_parts(plan, resume)
    except OSError as e:
        if fresh:
            shutil.rmtree(plan.parts_dir, ignore_errors=True)
        raise BatchFailed(f"{fault_message(e, plan.parts_dir)}; "
                          f"{kept_message(0, plan.parts_dir)}") from None
    already = sum(rec["rows"] for rec in done.values())
    total = None
    results = iter(())
    bar = None
    scored = 0
    t0 = time.perf_counter()
    try:
        total = plan.source.total()
        digests: dict[int, str] = {}
        seen = [0]
        if total is not None:  # no more processes than chunks left to score
            jobs = max(1, min(jobs, -(-(total - already) // plan.chunk)))
        chunks = plan.source.chunks(plan.chunk)
        if scheduler:
            results = run_dask(_tasks(plan, chunks, done, digests, seen), scheduler)
            where = f"Dask cluster {scheduler}"
        else:
            if total is None and jobs > 1:  # a stream: never wait on it with chunks finished
                chunks = arriving(chunks)
            tasks = _tasks(plan, chunks, done, digests, seen)
            results = run_tasks(solve_or_wait, ((t,) for t in tasks), jobs, close_fds=(lock,))
            where = "1 process" if jobs == 1 else f"{jobs} processes"
        bar = tqdm(total=total, initial=already, desc="deals", unit="deal", disable=not progress,
                   leave=False, dynamic_ncols=True, smoothing=0.1, file=sys.stderr)
        for r in results:
            if r is None:  # a worker's WAITING answered
                continue
            done[r.index] = save_chunk(plan, r, digests.pop(r.index))
            scored += len(r)
            bar.update(len(r))
    except KeyboardInterrupt:
        _stop(results, bar)
        if not done:
            shutil.rmtree(plan.parts_dir, ignore_errors=True)
        raise BatchInterrupted(sum(rec["rows"] for rec in done.values()), total,
                               plan.parts_dir) from None
    except Exception as e:
        _stop(results, bar)
        if not done:  # nothing to keep: do not leave a run behind that asks for --resume
            shutil.rmtree(plan.parts_dir, ignore_errors=True)
        if isinstance(e, DealError) and isinstance(plan.source, LineSource):
            raise ValueError(f"{plan.source.name()} {e}") from None
        cause = fault_message(e, plan.parts_dir)
        if cause is None:
            raise
        kept = sum(rec["rows"] for rec in done.values())
        raise BatchFailed(f"{cause}; {kept_message(kept, plan.parts_dir, total)}") from None
    bar.close()
    n_chunks = seen[0]
    extra = sorted(k for k in done if k >= n_chunks)
    if extra:
        raise ValueError(f"cannot resume: the interrupted run had chunk {extra[0]}, beyond the "
                         f"end of the input ({n_chunks} chunks)")
    wall = time.perf_counter() - t0
    join_parts(plan, n_chunks, already + scored)
    summary = Summary(plan.source.id_column)
    for k in range(n_chunks):
        summary.merge(Summary.from_state(done[k]["summary"]))
    shutil.rmtree(plan.parts_dir, ignore_errors=True)
    d = summary.to_dict()
    d["run"] = {"out": plan.out, "format": plan.fmt, "rules": plan.rules.to_dict(),
                "optimal": plan.optimal, "max_states": plan.max_states, "timeout": plan.timeout,
                "analyse": plan.analyse, "playouts": plan.playouts if plan.analyse else None,
                "executor": where, "resumed_deals": already, "scored_deals": scored,
                "wall_seconds": wall, "deals_per_second": scored / wall if wall > 0 else 0.0}
    return d


def _stop(results, bar) -> None:
    """Stop the executor (its workers or its Dask tasks) and the progress bar."""
    close = getattr(results, "close", None)
    if close is not None:
        close()
    if bar is not None:
        bar.close()


def summarise_file(path: str, fmt: str | None = None) -> dict:
    """The summary of an existing results file (CSV or Parquet), read block by block and checked
    row by row (``solver.batch.results.read_results``)."""
    from solver.batch.results import read_results

    id_column, blocks = read_results(path, fmt)
    summary = Summary(id_column)
    for b in blocks:
        summary.add(b["ids"], b["deal"].__getitem__, b["outcome"], b["moves"], b["states"],
                    b["ms"], b["reason"], b["analysis"])
    return summary.to_dict()
