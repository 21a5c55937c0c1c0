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
removed. Results are the same for the same input whatever the job count or executor, except the
measured ``ms`` column (and ``--timeout``, which depends on the machine's speed).
"""

from __future__ import annotations

import glob
import json
import multiprocessing as mp
import os
import queue
import shutil
import signal
import sys
import time
import uuid
from dataclasses import dataclass
from typing import Iterable, Iterator

from tqdm import tqdm

from solver.batch_io import (LineSource, SeedSource, assemble, output_format, require_pyarrow,
                             write_part, write_text_atomic)
from solver.batch_summary import Summary
from solver.batch_work import ChunkResult, ChunkTask, optimal_available, solve_chunk
from solver.deals import DealError, format_deal
from solver.rules import Rules
from solver.simulate import check_jobs

MANIFEST_VERSION = 1
WINNABLE_CHUNK = 10_000
"""Deals per chunk when deciding winnability (~0.3-0.5 s of work)."""
OPTIMAL_CHUNK = 250
"""Deals per chunk with ``optimal`` (minimum moves take far longer per deal)."""


class BatchInterrupted(Exception):
    """Ctrl-C stopped the run; finished chunks are kept and ``resume`` continues."""

    def __init__(self, done: int, total: int | None, parts: str) -> None:
        self.done, self.total, self.parts = done, total, parts
        of = f" of {total}" if total is not None else ""
        super().__init__(f"interrupted: {done}{of} deals are done and kept in {parts}; "
                         f"run the same command with --resume to continue")


@dataclass
class BatchPlan:
    """Validated settings of one run (what ``manifest.json`` records)."""

    source: SeedSource | LineSource
    out: str
    rules: Rules
    fmt: str
    optimal: bool
    max_states: int
    timeout: float | None
    chunk: int

    @property
    def parts_dir(self) -> str:
        return self.out + ".parts"

    def manifest(self) -> dict:
        return {"version": MANIFEST_VERSION, "source": self.source.describe(),
                "rules": self.rules.to_dict(), "format": self.fmt, "optimal": self.optimal,
                "max_states": self.max_states, "timeout": self.timeout, "chunk": self.chunk}

    def part(self, index: int, ext: str) -> str:
        return os.path.join(self.parts_dir, f"part-{index:06d}.{ext}")

    def task(self, index: int, payload) -> ChunkTask:
        common = dict(index=index, rules=self.rules, optimal=self.optimal,
                      max_states=self.max_states, timeout=self.timeout)
        if isinstance(self.source, SeedSource):
            return ChunkTask(seeds=payload, **common)
        return ChunkTask(lines=payload, **common)


def plan_batch(source, out: str, rules: Rules = Rules(), fmt: str | None = None,
               optimal: bool = False, max_states: int = 0, timeout: float | None = None,
               chunk: int | None = None) -> BatchPlan:
    """Check the settings of a run. Raises ``ValueError`` with a message for the user."""
    if not isinstance(source, (SeedSource, LineSource)):
        raise ValueError("source must be a SeedSource or a LineSource")
    if isinstance(source, LineSource) and source.path != "-" and not os.path.isfile(source.path):
        raise ValueError(f"cannot read the deal file {source.path}: no such file")
    fmt = output_format(out, fmt)
    if fmt == "parquet":
        require_pyarrow()
    if optimal and not optimal_available():
        raise ValueError("--optimal is not available yet (solver/optimal.py is missing)")
    if max_states < 0:
        raise ValueError(f"max_states must be >= 0 (0 = no limit), not {max_states}")
    if timeout is not None and not optimal:
        raise ValueError("--timeout applies to --optimal only (winnability has --max-states)")
    if timeout is not None and timeout <= 0:
        raise ValueError(f"timeout must be positive, not {timeout}")
    chunk = chunk or (OPTIMAL_CHUNK if optimal else WINNABLE_CHUNK)
    if chunk <= 0:
        raise ValueError(f"chunk must be positive, not {chunk}")
    out_dir = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(out_dir):
        raise ValueError(f"the output directory {out_dir} does not exist")
    return BatchPlan(source, out, rules, fmt, optimal, max_states, timeout, chunk)


# --------------------------------------------------------------------------- the parts directory

def _open_parts(plan: BatchPlan, resume: bool) -> dict[int, dict]:
    """Create or reopen ``<out>.parts``; the done chunks' records by index."""
    d = plan.parts_dir
    manifest_path = os.path.join(d, "manifest.json")
    if os.path.isdir(d) and os.path.exists(manifest_path):
        if not resume:
            raise ValueError(f"{d} holds an unfinished run: continue it with --resume, or "
                             f"delete that directory to start again")
        with open(manifest_path, encoding="utf-8") as f:
            old = json.load(f)
        new = plan.manifest()
        diff = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
        if diff:
            raise ValueError("cannot resume: the interrupted run had different "
                             + ", ".join(f"{k} ({_short(old.get(k))} there, {_short(new.get(k))} "
                                         f"now)" for k in diff))
        for tmp in glob.glob(os.path.join(d, "*.tmp-*")):
            os.unlink(tmp)  # a write cut short by a kill
    else:
        os.makedirs(d, exist_ok=True)
        write_text_atomic(manifest_path, json.dumps(plan.manifest(), indent=1))
    done = {}
    ext = plan.fmt
    for path in glob.glob(os.path.join(d, "part-*.json")):
        with open(path, encoding="utf-8") as f:
            rec = json.load(f)
        if os.path.exists(plan.part(rec["index"], ext)):
            done[rec["index"]] = rec
    return done


def _short(v) -> str:
    return json.dumps(v, separators=(",", ":"))


def _save_chunk(plan: BatchPlan, r: ChunkResult, digest: str) -> dict:
    """Write a finished chunk: its rows, then its record (which marks it done)."""
    id_column = plan.source.id_column
    write_part(plan.part(r.index, plan.fmt), r, plan.fmt, id_column)
    s = Summary(id_column)
    s.add(r.ids, lambda i: format_deal(r.deals[i]), r.outcome, r.moves, r.states, r.ns / 1e6)
    rec = {"index": r.index, "rows": len(r), "digest": digest, "summary": s.state()}
    write_text_atomic(plan.part(r.index, "json"), json.dumps(rec))
    return rec


# --------------------------------------------------------------------------- executors

def _worker_init() -> None:
    """Pool workers leave Ctrl-C to the parent, and die with it (Linux) rather than linger."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            PR_SET_PDEATHSIG = 1
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):  # pragma: no cover - best effort
            pass


def _run_inline(tasks: Iterable[ChunkTask]) -> Iterator[ChunkResult]:
    for t in tasks:
        yield solve_chunk(t)


def _run_pool(tasks: Iterable[ChunkTask], jobs: int) -> Iterator[ChunkResult]:
    """Chunks over ``jobs`` processes, at most ``2 * jobs`` in flight (the input is read lazily)."""
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    pool = mp.get_context(method).Pool(jobs, initializer=_worker_init)
    done: queue.Queue = queue.Queue()
    tasks = iter(tasks)
    in_flight = 0
    more = True
    try:
        while True:
            while more and in_flight < 2 * jobs:
                t = next(tasks, None)
                if t is None:
                    more = False
                    break
                pool.apply_async(solve_chunk, (t,), callback=done.put, error_callback=done.put)
                in_flight += 1
            if in_flight == 0:
                break
            while True:
                try:
                    item = done.get(timeout=0.2)
                    break
                except queue.Empty:
                    continue
            in_flight -= 1
            if isinstance(item, BaseException):
                raise item
            yield item
        pool.close()
        pool.join()
    finally:
        pool.terminate()


def _run_dask(tasks: Iterable[ChunkTask], scheduler: str) -> Iterator[ChunkResult]:
    """Chunks as tasks on the Dask cluster at ``scheduler``, a bounded number in flight."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ValueError("--scheduler needs dask.distributed, which is not installed "
                         "(pip install 'pyramid[cluster]')") from None
    try:
        client = Client(scheduler, set_as_default=False)  # timeout: distributed.comm.timeouts
    except (OSError, TimeoutError, ValueError) as e:
        raise ValueError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    run = uuid.uuid4().hex[:8]
    futures = []
    try:
        window = 2 * max(1, sum(client.nthreads().values()))
        tasks = iter(tasks)
        pending = as_completed(loop=client.loop)

        def submit() -> bool:
            t = next(tasks, None)
            if t is None:
                return False
            fut = client.submit(solve_chunk, t, key=f"pyramid-batch-{run}-{t.index}", pure=False)
            futures.append(fut)
            pending.add(fut)
            return True

        for _ in range(window):
            if not submit():
                break
        for fut in pending:
            result = fut.result()
            futures.remove(fut)
            fut.release()
            yield result
            submit()
    finally:
        if futures:
            client.cancel(futures)
        client.close()


# --------------------------------------------------------------------------- the run

def _tasks(plan: BatchPlan, done: dict[int, dict], digests: dict[int, str],
           seen: list) -> Iterator[ChunkTask]:
    """Tasks for the chunks not done yet; checks the done chunks' input against their digest."""
    for index, payload, digest in plan.source.chunks(plan.chunk):
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
    line) and ``BatchInterrupted`` on Ctrl-C."""
    jobs = check_jobs(jobs)
    done = _open_parts(plan, resume)
    total = plan.source.total()
    already = sum(rec["rows"] for rec in done.values())
    digests: dict[int, str] = {}
    seen = [0]
    tasks = _tasks(plan, done, digests, seen)
    if total is not None:  # no more processes than chunks left to score
        jobs = max(1, min(jobs, -(-(total - already) // plan.chunk)))
    if scheduler:
        results = _run_dask(tasks, scheduler)
        where = f"Dask cluster {scheduler}"
    elif jobs == 1:
        results = _run_inline(tasks)
        where = "1 process"
    else:
        results = _run_pool(tasks, jobs)
        where = f"{jobs} processes"
    bar = tqdm(total=total, initial=already, desc="deals", unit="deal", disable=not progress,
               leave=False, dynamic_ncols=True, smoothing=0.1, file=sys.stderr)
    t0 = time.perf_counter()
    scored = 0
    try:
        for r in results:
            done[r.index] = _save_chunk(plan, r, digests.pop(r.index))
            scored += len(r)
            bar.update(len(r))
    except KeyboardInterrupt:
        results.close()
        bar.close()
        raise BatchInterrupted(sum(rec["rows"] for rec in done.values()), total,
                               plan.parts_dir) from None
    except Exception as e:
        results.close()
        bar.close()
        if not done:  # nothing to keep: do not leave a run behind that asks for --resume
            shutil.rmtree(plan.parts_dir, ignore_errors=True)
        if isinstance(e, DealError) and isinstance(plan.source, LineSource):
            raise ValueError(f"{plan.source.name()} {e}") from None
        raise
    bar.close()
    n_chunks = seen[0]
    extra = sorted(k for k in done if k >= n_chunks)
    if extra:
        raise ValueError(f"cannot resume: the interrupted run had chunk {extra[0]}, beyond the "
                         f"end of the input ({n_chunks} chunks)")
    wall = time.perf_counter() - t0
    assemble(plan.out, [plan.part(k, plan.fmt) for k in range(n_chunks)], plan.fmt,
             plan.source.id_column)
    summary = Summary(plan.source.id_column)
    for k in range(n_chunks):
        summary.merge(Summary.from_state(done[k]["summary"]))
    shutil.rmtree(plan.parts_dir, ignore_errors=True)
    d = summary.to_dict()
    d["run"] = {"out": plan.out, "format": plan.fmt, "rules": plan.rules.to_dict(),
                "optimal": plan.optimal, "max_states": plan.max_states, "timeout": plan.timeout,
                "executor": where, "resumed_deals": already, "scored_deals": scored,
                "wall_seconds": wall, "deals_per_second": scored / wall if wall > 0 else 0.0}
    return d


def summarise_file(path: str, fmt: str | None = None) -> dict:
    """The summary of an existing results file (CSV or Parquet), read block by block."""
    from solver.batch_io import read_results

    id_column, blocks = read_results(path, fmt)
    summary = Summary(id_column)
    for b in blocks:
        summary.add(b["ids"], b["deal"].__getitem__, b["outcome"], b["moves"], b["states"],
                    b["ms"])
    return summary.to_dict()
