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
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import glob
import json
import logging
import math
import multiprocessing as mp
import os
import queue
import re
import shutil
import signal
import socket
import sys
import time
import uuid
from dataclasses import dataclass
from typing import Iterable, Iterator

from tqdm import tqdm

from solver.batch.io import (LineSource, SeedSource, assemble, check_writable, clip,
                             output_format, require_pyarrow, write_part, write_text_atomic)
from solver.batch.summary import NS_PER_MS, Summary
from solver.batch.work import ChunkResult, ChunkTask, optimal_available, solve_chunk
from solver.pyramid.deals import DealError, format_deal
from solver.pyramid.rules import Rules
from solver.core.runner import check_jobs

MANIFEST_VERSION = 2
"""2: chunk summaries keep whole nanoseconds (``ns_total``)."""
MAX_STATES = 2 ** 63 - 1
"""The largest ``max_states`` (the kernels count positions in int64)."""
WORKER_NOTICE_SECONDS = 3.0
"""With no Dask worker after this long, say on stderr that the run waits for one."""
SCHEDULER_CONNECT_SECONDS = 5.0
"""How long the first TCP connection to a Dask scheduler, and its greeting, may take (a
scheduler sends its handshake as soon as it accepts a connection)."""
CLOSE_SECONDS = 5
"""How long closing the Dask client may take (the scheduler may be gone)."""
WINNABLE_CHUNK = 10_000
"""Deals per chunk when deciding winnability (~0.3-0.5 s of work)."""
OPTIMAL_CHUNK = 250
"""Deals per chunk with ``optimal`` (minimum moves take far longer per deal)."""
PARTS_SUFFIX = ".parts"
"""The directory of a run's finished chunks is the output's name plus this."""
MANIFEST = "manifest.json"


class BatchInterrupted(Exception):
    """Ctrl-C stopped the run; finished chunks are kept and ``resume`` continues."""

    def __init__(self, done: int, total: int | None, parts: str) -> None:
        self.done, self.total, self.parts = done, total, parts
        of = f" of {total}" if total is not None else ""
        if not done:
            super().__init__("interrupted before any deal was finished; nothing is kept")
            return
        super().__init__(f"interrupted: {done}{of} deals are done and kept in {parts}; "
                         f"run the same command with --resume to continue")


class BatchFailed(Exception):
    """A fault stopped the run (disk full, the Dask scheduler lost, out of memory, the output in
    use by another run); the message says why and what is kept. Finished chunks stay on disk."""


class SchedulerLost(Exception):
    """The Dask scheduler stopped answering during a run."""


class WorkerDied(Exception):
    """A worker process of the local pool died (killed by a signal, e.g. by the kernel for lack
    of memory); its chunk would never finish."""


def _kept(done: int, parts: str, total: int | None = None) -> str:
    """The end of a failure message: what is kept and how to continue."""
    if not done:
        return "no deal was finished and nothing is kept"
    of = f" of {total}" if total is not None else ""
    return (f"the {done}{of} finished deals are kept in {parts}: run the same command with "
            f"--resume to continue")


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
        return self.out + PARTS_SUFFIX

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
               chunk: int | None = None, force: bool = False) -> BatchPlan:
    """Check the settings of a run before any work. Raises ``ValueError`` naming the option.

    ``out`` must be a new file (or, with ``force``, an existing regular file to replace, or the
    output of an interrupted run) in a directory where files can be written; its suffix gives
    the format unless ``fmt`` does (``batch_io.output_format``).
    """
    if not isinstance(source, (SeedSource, LineSource)):
        raise ValueError("source must be a SeedSource or a LineSource")
    if isinstance(source, LineSource):
        source.check()
    check_output(out, force)
    fmt = output_format(out, fmt)
    if fmt == "parquet":
        require_pyarrow()
    if optimal and not optimal_available():
        raise ValueError("--optimal is not available yet (solver/pyramid/optimal/api.py is missing)")
    if isinstance(max_states, bool) or not 0 <= max_states <= MAX_STATES:
        raise ValueError(f"--max-states must be 0 (no limit) .. 2**63-1, not {clip(max_states)}")
    if timeout is not None and not optimal:
        raise ValueError("--timeout applies to --optimal only (winnability has --max-states)")
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"--timeout must be a positive, finite number of seconds, not {timeout}")
    chunk = chunk or (OPTIMAL_CHUNK if optimal else WINNABLE_CHUNK)
    if chunk <= 0:
        raise ValueError(f"--chunk must be positive, not {chunk}")
    return BatchPlan(source, out, rules, fmt, optimal, max_states, timeout, chunk)


def check_output(out: str, force: bool = False) -> None:
    """Refuse an ``out`` that cannot be written, or whose finished results would be overwritten
    without ``force`` (the output of an interrupted run may be: ``resume`` writes it again)."""
    check_writable(out, "--out")
    if os.path.lexists(out):
        if not os.path.isfile(out):
            raise ValueError(f"--out {clip(out)} exists and is not a regular file")
        unfinished = os.path.exists(os.path.join(out + PARTS_SUFFIX, MANIFEST))
        if not force and not unfinished:
            raise ValueError(f"--out {clip(out)} already exists: give --force to replace it, or "
                             f"another --out")


# --------------------------------------------------------------------------- the parts directory

def _lock_parts(plan: BatchPlan) -> int:
    """Create ``<out>.parts`` if needed and lock it for this run; the lock's file descriptor.
    Raises ``BatchFailed`` when another run holds it."""
    d = plan.parts_dir
    try:
        os.makedirs(d, exist_ok=True)
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as e:
        raise BatchFailed(f"cannot create {d}: {e.strerror or e}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        os.close(fd)
        if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise
        raise BatchFailed(f"another pyramid batch run is writing {plan.out} (it holds {d}): "
                          f"wait for it to end, or stop it and run again with --resume") from None
    return fd


_JOIN_TMP = re.compile(r"\.tmp-\d+$")


def _open_parts(plan: BatchPlan, resume: bool) -> dict[int, dict]:
    """Reopen the (locked) ``<out>.parts`` or start a run in it; the done chunks' records by
    index. Temporary files of writes cut short by a kill are removed, the join's included."""
    d = plan.parts_dir
    manifest_path = os.path.join(d, MANIFEST)
    if os.path.exists(manifest_path):
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
        stale = glob.glob(os.path.join(d, "*.tmp-*")) + [
            p for p in glob.glob(glob.escape(plan.out) + ".tmp-*") if _JOIN_TMP.search(p)]
        for tmp in stale:
            os.unlink(tmp)  # we hold the lock: no other run is writing them
    else:
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
    return clip(json.dumps(v, separators=(",", ":")))


def _save_chunk(plan: BatchPlan, r: ChunkResult, digest: str) -> dict:
    """Write a finished chunk: its rows, then its record (which marks it done)."""
    id_column = plan.source.id_column
    write_part(plan.part(r.index, plan.fmt), r, plan.fmt, id_column)
    s = Summary(id_column)
    s.add(r.ids, lambda i: format_deal(r.deals[i]), r.outcome, r.moves, r.states, r.ns / NS_PER_MS,
          r.reason)
    rec = {"index": r.index, "rows": len(r), "digest": digest, "summary": s.state()}
    write_text_atomic(plan.part(r.index, "json"), json.dumps(rec))
    return rec


# --------------------------------------------------------------------------- executors

def _worker_init(lock: int | None) -> None:
    """Pool workers leave Ctrl-C to the parent, and die with it (Linux) rather than linger.

    A forked worker closes its copy of the run's lock (``lock``, a file descriptor), so that
    the lock ends with the parent alone: a run killed with -9 can be resumed at once."""
    if lock is not None:
        with contextlib.suppress(OSError):
            os.close(lock)
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


def _run_pool(tasks: Iterable[ChunkTask], jobs: int, lock: int) -> Iterator[ChunkResult]:
    """Chunks over ``jobs`` processes, at most ``2 * jobs`` in flight (the input is read lazily).
    ``lock``: the run's lock, which forked workers close."""
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    before = set(mp.active_children())
    pool = mp.get_context(method).Pool(jobs, initializer=_worker_init,
                                       initargs=(lock if method == "fork" else None,))
    workers = [p for p in mp.active_children() if p not in before]
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
                    _check_workers(workers)
            in_flight -= 1
            if isinstance(item, BaseException):
                raise item
            yield item
        pool.close()
        pool.join()
    finally:
        pool.terminate()


def _check_workers(workers: list) -> None:
    """Raise ``WorkerDied`` if one of the pool's processes has died: the pool would start a new
    one, but the chunk it was scoring would never come back."""
    for w in workers:
        if not w.is_alive():
            how = (f"killed by {signal.Signals(-w.exitcode).name}" if w.exitcode and w.exitcode < 0
                   else f"exit code {w.exitcode}")
            raise WorkerDied(f"a worker process died ({how}; the system may have run out of "
                             f"memory)")


@contextlib.contextmanager
def _quiet_logging():
    """No log records at all while a Dask client runs: distributed logs every lost connection
    to stderr, where a run's failure is said once, in one line."""
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(previous)


def _connect(scheduler: str):
    """A Dask client of ``scheduler``, or a ``ValueError`` at once for a malformed or unreachable
    address, or one where something else than a Dask scheduler listens. A TCP connection is
    tried first (the client itself would wait forever for a handshake that never comes, and a
    half-made client prints "Exception ignored" when collected)."""
    try:
        from distributed import Client
        from distributed.comm import parse_address
        from distributed.comm.addressing import parse_host_port
        from distributed.comm.registry import get_backend
    except ImportError:
        raise ValueError("--scheduler needs dask.distributed, which is not installed "
                         "(pip install 'pyramid[cluster]')") from None
    try:
        scheme, location = parse_address(scheduler)
        get_backend(scheme)  # an unknown scheme is a ValueError
        if scheme in ("tcp", "tls"):
            host, port = parse_host_port(location)
    except ValueError as e:
        raise ValueError(f"--scheduler {clip(scheduler)} is not a Dask scheduler address like "
                         f"tcp://HOST:8786 ({clip(e, quote=False)})") from None
    if scheme in ("tcp", "tls"):
        _probe(scheduler, host, port, greeting=scheme == "tcp")
    try:
        return Client(scheduler, set_as_default=False, timeout=SCHEDULER_CONNECT_SECONDS)
    except (OSError, TimeoutError, ValueError) as e:
        raise ValueError(f"cannot reach the Dask scheduler at {clip(scheduler)} "
                         f"({clip(e, quote=False)})") from None


def _probe(scheduler: str, host: str, port: int, greeting: bool) -> None:
    """Connect to ``host:port`` and, with ``greeting``, wait for the first byte of the
    scheduler's handshake; a ``ValueError`` if either does not come."""
    try:
        with socket.create_connection((host, port), timeout=SCHEDULER_CONNECT_SECONDS) as s:
            if greeting and not s.recv(1):
                raise ConnectionResetError(errno.ECONNRESET, "it closed the connection")
    except TimeoutError:
        raise ValueError(f"{clip(scheduler)} does not answer as a Dask scheduler (nothing within "
                         f"{SCHEDULER_CONNECT_SECONDS:g} s)") from None
    except OSError as e:
        raise ValueError(f"cannot reach the Dask scheduler at {clip(scheduler)} "
                         f"({e.strerror or e})") from None


def _wait_for_workers(client, scheduler: str) -> None:
    """Block until the cluster has a worker; say so on stderr (once) if none comes soon."""
    from distributed.client import WorkerStartTimeoutError

    try:
        client.wait_for_workers(1, timeout=WORKER_NOTICE_SECONDS)
    except WorkerStartTimeoutError:
        print(f"waiting for Dask workers at {scheduler} (none is connected yet)",
              file=sys.stderr, flush=True)
        client.wait_for_workers(1)


class _TaskFailed(Exception):
    """A chunk's task raised ``error`` on a worker (as opposed to the cluster failing)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def _run_dask(tasks: Iterable[ChunkTask], scheduler: str) -> Iterator[ChunkResult]:
    """Chunks as tasks on the Dask cluster at ``scheduler``, a bounded number in flight.

    A task's own error (a malformed deal) is raised as it is; the scheduler failing in any way
    raises ``SchedulerLost``."""
    with _quiet_logging():
        client = _connect(scheduler)
        futures = []
        try:
            yield from _dask_results(client, tasks, scheduler, futures)
        except _TaskFailed as e:
            raise e.error from None
        except Exception as e:  # noqa: BLE001 - whatever the client raises, the cluster is gone
            raise SchedulerLost(f"lost the Dask scheduler at {scheduler} "
                                f"({type(e).__name__})") from None
        finally:
            with contextlib.suppress(Exception):
                if futures and client.status == "running":
                    client.cancel(futures)
            with contextlib.suppress(Exception):
                client.close(timeout=CLOSE_SECONDS)


def _dask_results(client, tasks, scheduler: str, futures: list) -> Iterator[ChunkResult]:
    from distributed import as_completed

    _wait_for_workers(client, scheduler)
    window = 2 * max(1, sum(client.nthreads().values()))
    tasks = iter(tasks)
    pending = as_completed(loop=client.loop)
    run = uuid.uuid4().hex[:8]

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
        if fut.status == "error":
            raise _TaskFailed(fut.exception())
        result = fut.result()
        futures.remove(fut)
        fut.release()
        yield result
        submit()


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


def _fault(e: BaseException, parts: str) -> str | None:
    """What stopped the run, for a fault (not bad input, not a bug); ``None`` otherwise. A file
    of the ``parts`` directory is named by its base name (the message names the directory)."""
    if isinstance(e, (SchedulerLost, WorkerDied)):
        return str(e)
    if isinstance(e, MemoryError):
        return "out of memory"
    if isinstance(e, OSError):
        name = e.filename
        if name and os.path.dirname(os.path.abspath(name)) == os.path.abspath(parts):
            name = os.path.basename(name)
        where = f"cannot write {name}: " if name else ""
        return f"{where}{e.strerror or e}"
    return None


def run_batch(plan: BatchPlan, jobs: int | None = None, resume: bool = False,
              progress: bool = True, scheduler: str | None = None) -> dict:
    """Score every deal of ``plan`` into ``plan.out``; returns the summary (``Summary.to_dict``)
    plus ``run`` facts. Raises ``ValueError`` for bad input (a malformed deal line names its
    line), ``BatchFailed`` for a fault that stopped the run (disk full, the scheduler lost, the
    output in use by another run) and ``BatchInterrupted`` on Ctrl-C."""
    jobs = check_jobs(jobs)
    lock = _lock_parts(plan)
    try:
        return _run_locked(plan, jobs, resume, progress, scheduler, lock)
    finally:
        os.close(lock)


def _run_locked(plan: BatchPlan, jobs: int, resume: bool, progress: bool,
                scheduler: str | None, lock: int) -> dict:
    fresh = not os.path.exists(os.path.join(plan.parts_dir, MANIFEST))
    try:
        done = _open_parts(plan, resume)
    except OSError as e:
        if fresh:
            shutil.rmtree(plan.parts_dir, ignore_errors=True)
        raise BatchFailed(f"{_fault(e, plan.parts_dir)}; {_kept(0, plan.parts_dir)}") from None
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
            results = _run_pool(tasks, jobs, lock)
            where = f"{jobs} processes"
        bar = tqdm(total=total, initial=already, desc="deals", unit="deal", disable=not progress,
                   leave=False, dynamic_ncols=True, smoothing=0.1, file=sys.stderr)
        for r in results:
            done[r.index] = _save_chunk(plan, r, digests.pop(r.index))
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
        cause = _fault(e, plan.parts_dir)
        if cause is None:
            raise
        kept = sum(rec["rows"] for rec in done.values())
        raise BatchFailed(f"{cause}; {_kept(kept, plan.parts_dir, total)}") from None
    bar.close()
    n_chunks = seen[0]
    extra = sorted(k for k in done if k >= n_chunks)
    if extra:
        raise ValueError(f"cannot resume: the interrupted run had chunk {extra[0]}, beyond the "
                         f"end of the input ({n_chunks} chunks)")
    wall = time.perf_counter() - t0
    _join(plan, n_chunks, already + scored)
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


def _stop(results, bar) -> None:
    """Stop the executor (its workers or its Dask tasks) and the progress bar."""
    close = getattr(results, "close", None)
    if close is not None:
        close()
    if bar is not None:
        bar.close()


def _join(plan: BatchPlan, n_chunks: int, deals: int) -> None:
    """Join the chunk files into ``plan.out``; a fault or Ctrl-C keeps them for ``--resume``."""
    try:
        assemble(plan.out, [plan.part(k, plan.fmt) for k in range(n_chunks)], plan.fmt,
                 plan.source.id_column)
    except KeyboardInterrupt:
        raise BatchInterrupted(deals, deals, plan.parts_dir) from None
    except (OSError, MemoryError) as e:
        raise BatchFailed(f"{_fault(e, plan.parts_dir)}; all {deals} deals are scored and kept in "
                          f"{plan.parts_dir}: run the same command with --resume to write "
                          f"{plan.out}") from None


def summarise_file(path: str, fmt: str | None = None) -> dict:
    """The summary of an existing results file (CSV or Parquet), read block by block and checked
    row by row (``batch_io.read_results``)."""
    from solver.batch.io import read_results

    id_column, blocks = read_results(path, fmt)
    summary = Summary(id_column)
    for b in blocks:
        summary.add(b["ids"], b["deal"].__getitem__, b["outcome"], b["moves"], b["states"],
                    b["ms"], b["reason"])
    return summary.to_dict()
