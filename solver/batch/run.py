"""Batch scoring of Pyramid deals: many deals, one row each, run so that no work is ever lost.

``run_batch(source, out, rules, ...)`` cuts the deals into fixed chunks (their size never depends
on the job count), scores them in worker processes (or as tasks on a Dask cluster), and writes
every finished chunk at once as a file of its own in ``<out>.parts/``:

    manifest.json          the run's parameters; ``resume`` refuses a run with different ones
    part-000012.csv        chunk 12's rows (or .parquet), written to a temp file + os.replace
    part-000012.json       written after the rows: chunk 12 is done. Holds the row count, the
                           SHA-256 of the part file, the digest of the chunk's input lines (a
                           resumed run re-reads its input and checks it) and the chunk's summary

A run killed at any point (Ctrl-C, kill -9, a crash) leaves complete chunk files only; run again
with ``resume=True`` and it scores exactly the missing chunks. At the end the chunks are joined in
order into ``out`` (streaming, one chunk in memory at a time, atomically) and the directory is
removed. Nothing is joined unchecked (``solver.batch.parts``, ``solver.batch.verify``): a part
that is not the file its record describes is scored again, and the joined file must hold the
input's seeds or lines, each once, in order, before it replaces ``out``.

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
from dataclasses import dataclass
from typing import Iterable, Iterator


from solver.batch.challenge import block_challenge, challenge_facts
from solver.batch.cluster import run_dask
from solver.batch.parts import (Notice, drop_part, join_parts, lock_parts, open_parts,
                                save_chunk)
from solver.batch.plan import (MANIFEST, BatchFailed, BatchInterrupted, BatchPlan, fault_message,
                               kept_message)
from solver.batch.sources import LineSource
from solver.batch.summary import Summary
from solver.batch.verify import Planned, planned_chunk
from solver.batch.work import ChunkTask, solve_chunk
from solver.core.progress import progress_bar
from solver.core.runner import check_jobs, run_tasks
from solver.pyramid.model.deals import DealError

STREAM_WAIT_SECONDS = 0.2
"""How long a run with worker processes waits for a stream's next chunk before it collects the
chunks finished meanwhile (and writes them); then it waits again."""
WAITING = None
"""The task that is no task: handed to an idle worker while a stream's next chunk has not
arrived, so that the pool collects the finished chunks instead of waiting for the stream."""
JOIN_ROUNDS = 3
"""Times the chunks of parts found damaged at the join are scored again before the run gives up
(a part damaged again each time points at a failing disk)."""


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
           planned: list[Planned], notice: Notice) -> Iterator[ChunkTask | None]:
    """Tasks for the chunks not done yet (``WAITING`` passed on); records what every chunk of
    the input must give in ``planned`` and checks the done chunks' input against their digest
    (and their row count: a record that disagrees is dropped and its chunk scored again)."""
    for item in chunks:
        if item is WAITING:
            yield WAITING
            continue
        index, payload, digest = item
        want = planned_chunk(index, plan.source.chunk_ids(payload))
        planned.append(want)
        rec = done.get(index)
        if rec is not None:
            if rec["digest"] != digest:
                raise ValueError(f"cannot resume: the input differs from the interrupted run's "
                                 f"in chunk {index} (deals {index * plan.chunk + 1}.."
                                 f"{(index + 1) * plan.chunk})")
            if rec["rows"] == want.rows:
                continue
            drop_part(plan, rec, f"is recorded with {rec['rows']} rows where its chunk has "
                                 f"{want.rows}", notice)
            del done[index]
        digests[index] = digest
        yield plan.task(index, payload)


def done_deals(done: dict[int, dict]) -> int:
    """The deals of the chunks ``done`` holds the records of."""
    return sum(rec["rows"] for rec in done.values())


def say(line: str) -> None:
    """The default ``Notice``: one line on stderr."""
    print(line, file=sys.stderr, flush=True)


def run_batch(plan: BatchPlan, jobs: int | None = None, resume: bool = False,
              progress: bool | None = True, scheduler: str | None = None, force: bool = False,
              notice: Notice = say) -> dict:
    """Score every deal of ``plan`` into ``plan.out``; returns the summary (``Summary.to_dict``)
    plus ``run`` facts. ``force`` throws away the parts of an interrupted run and starts again;
    ``notice`` is told, a line each, of damaged parts found and scored again. Raises
    ``ValueError`` for bad input (a malformed deal line names its line; a manifest or part
    record that cannot be read names its file), ``BatchFailed`` for a fault that stopped the run
    (disk full, the scheduler lost, the output in use by another run) and ``BatchInterrupted``
    on Ctrl-C."""
    jobs = check_jobs(jobs)
    if force and resume:
        raise ValueError("--force starts the run again and --resume continues it: give one")
    lock = lock_parts(plan)
    try:
        return _run_locked(plan, jobs, resume, progress, scheduler, lock, force, notice)
    finally:
        os.close(lock)


@dataclass
class Scored:
    """One scoring pass over the input: what each chunk must give (``planned``, in order), the
    deals scored, the seconds it took and where it ran."""

    planned: list[Planned]
    deals: int
    seconds: float
    executor: str


def _run_locked(plan: BatchPlan, jobs: int, resume: bool, progress: bool | None,
                scheduler: str | None, lock: int, force: bool, notice: Notice) -> dict:
    fresh = force or not os.path.exists(os.path.join(plan.parts_dir, MANIFEST))
    try:
        done = open_parts(plan, resume, notice, force)
    except (OSError, ValueError) as e:
        if fresh:
            shutil.rmtree(plan.parts_dir, ignore_errors=True)
        if isinstance(e, ValueError):
            raise
        raise BatchFailed(f"{fault_message(e, plan.parts_dir)}; "
                          f"{kept_message(0, plan.parts_dir)}") from None
    scored = 0
    wall = 0.0
    for _ in range(JOIN_ROUNDS):
        scoring = score_missing(plan, jobs, progress, scheduler, lock, done, notice)
        scored += scoring.deals
        wall += scoring.seconds
        damaged = join_parts(plan, scoring.planned, done, notice)
        if not damaged:
            break
        for k in damaged:
            del done[k]
        kept = kept_message(done_deals(done), plan.parts_dir)
        if plan.deals is None:
            raise BatchFailed(f"damaged parts were dropped, and {plan.source.name()} cannot be "
                              f"read again to score them now; {kept}")
    else:
        raise BatchFailed(f"parts were found damaged each of the {JOIN_ROUNDS} times they were "
                          f"joined: is the disk of {plan.parts_dir} failing? {kept}")
    deals = sum(want.rows for want in scoring.planned)
    summary = Summary(plan.source.id_column)
    for want in scoring.planned:
        summary.merge(Summary.from_state(done[want.index]["summary"]))
    shutil.rmtree(plan.parts_dir, ignore_errors=True)
    d = summary.to_dict()
    d["run"] = {"out": plan.out, "format": plan.fmt, "rules": plan.rules.to_dict(),
                "optimal": plan.optimal, "max_states": plan.max_states, "timeout": plan.timeout,
                "analyse": plan.analyse, "playouts": plan.playouts if plan.analyse else None,
                **challenge_facts(plan.challenge),
                "executor": scoring.executor, "resumed_deals": deals - scored,
                "scored_deals": scored,
                "wall_seconds": wall, "deals_per_second": scored / wall if wall > 0 else 0.0}
    return d


def score_missing(plan: BatchPlan, jobs: int, progress: bool | None, scheduler: str | None,
                  lock: int, done: dict[int, dict], notice: Notice) -> Scored:
    """Score every chunk of the input that ``done`` lacks, saving each as it finishes (its
    record goes into ``done``)."""
    total = None
    results = iter(())
    bar = None
    scored = 0
    planned: list[Planned] = []
    t0 = time.perf_counter()
    try:
        total = plan.deals
        digests: dict[int, str] = {}
        already = done_deals(done)
        if total is not None:  # no more processes than chunks left to score
            jobs = max(1, min(jobs, -(-(total - already) // plan.chunk)))
        chunks = plan.source.chunks(plan.chunk)
        if scheduler:
            results = run_dask(_tasks(plan, chunks, done, digests, planned, notice), scheduler)
            where = f"Dask cluster {scheduler}"
        else:
            if total is None and jobs > 1:  # a stream: never wait on it with chunks finished
                chunks = arriving(chunks)
            tasks = _tasks(plan, chunks, done, digests, planned, notice)
            results = run_tasks(solve_or_wait, ((t,) for t in tasks), jobs, close_fds=(lock,))
            where = "1 process" if jobs == 1 else f"{jobs} processes"
        bar = progress_bar(progress, total=total, initial=already, desc="deals", unit="deal",
                           smoothing=0.1)
        for r in results:
            if r is None:  # a worker's WAITING answered
                continue
            done[r.index] = save_chunk(plan, r, digests.pop(r.index), planned[r.index])
            scored += len(r)
            bar.update(len(r))
    except KeyboardInterrupt:
        _stop(results, bar)
        if not done:
            shutil.rmtree(plan.parts_dir, ignore_errors=True)
        raise BatchInterrupted(done_deals(done), total,
                               plan.parts_dir) from None
    except Exception as e:
        _stop(results, bar)
        if not done:  # nothing to keep: do not leave a run behind that asks for --resume
            shutil.rmtree(plan.parts_dir, ignore_errors=True)
        if isinstance(e, DealError) and isinstance(plan.source, LineSource):
            kept = done_deals(done)
            if kept:  # a stream, checked as it arrives: the chunks before the bad line stay
                raise ValueError(f"{plan.source.name()} {e}; the {kept} deals scored before it "
                                 f"are kept in {plan.parts_dir}: correct the line and run again "
                                 f"with --resume") from None
            raise ValueError(f"{plan.source.name()} {e}") from None
        cause = fault_message(e, plan.parts_dir)
        if cause is None:
            raise
        kept = done_deals(done)
        raise BatchFailed(f"{cause}; {kept_message(kept, plan.parts_dir, total)}") from None
    bar.close()
    extra = sorted(k for k in done if k >= len(planned))
    if extra:
        raise ValueError(f"cannot resume: the interrupted run had chunk {extra[0]}, beyond the "
                         f"end of the input ({len(planned)} chunks)")
    return Scored(planned, scored, time.perf_counter() - t0, where)


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
                    b["ms"], b["reason"], b["analysis"], block_challenge(b))
    return summary.to_dict()
