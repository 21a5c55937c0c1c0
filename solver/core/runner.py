"""The shared random-play runner: one parallel, reproducible loop for every game engine.

A game engine supplies a *chunk function*: a picklable top-level callable
``run_chunk(seed, first_game, n_games, params) -> dict[str, np.ndarray]`` that plays games
``first_game .. first_game + n_games - 1`` and returns per-game records (arrays whose first axis is
the game). Game ``i`` must draw all its randomness from ``rng.stream_seed(seed, i)``, so a game's
result depends only on the seed and its index. The runner cuts the games into fixed-size chunks
(independent of the job count), runs them in worker processes, and concatenates the records in
game order: the same seed gives the same records whatever ``jobs`` is.

``run_tasks`` is the process pool underneath, the only one in the project (batch scoring runs
its chunks on it too): a bounded number of tasks in flight, results as they finish or in order,
Ctrl-C or an error ends the workers at once, and a worker killed by a signal (the out-of-memory
killer) raises ``WorkerDied`` instead of leaving its task unanswered for ever.

A worker's own stderr (file descriptor 2, where C libraries write) goes to a file of its own,
never to the terminal: a worker dying of memory (LLVM says "LLVM ERROR: out of memory" and aborts)
raises ``WorkerOutOfMemory`` with what it said, instead of printing lines of noise before the
error. A task's exception comes back pickled, as it is (a ``MemoryError`` when memory running
out is behind it: ``solver.core.memory.as_memory_error``).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
from multiprocessing.connection import wait as wait_for_any
import os
import signal
import sys
import tempfile
import threading
from typing import Callable, Iterable, Iterator

import numpy as np

from solver.core.memory import as_memory_error, says_out_of_memory
from solver.core.progress import progress_bar
from solver.core.validate import check_int

ChunkFn = Callable[[int, int, int, dict], dict]

DEFAULT_CHUNK = 20_000
"""Games per chunk: large enough to amortise process hand-off, small enough for a smooth bar."""
MAX_GAMES = 100_000_000
"""Most games one run may play: every game's record is kept in memory until the summary."""
IN_FLIGHT_PER_WORKER = 2
"""Chunks started or finished but not yet handed on, per worker: each worker runs one chunk at a
time, and this bounds the finished chunks held back while an earlier one (in task order) is
still running, so memory stays bounded and Ctrl-C has little to throw away."""
PR_SET_PDEATHSIG = 1
"""Linux ``prctl`` option: the signal a process gets when its parent dies."""
STDERR_FD = 2
STDERR_TAIL_BYTES = 4096
"""How much of a dead worker's stderr is read, from its end, to say why it died."""


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
    return check_int(games, f"the number of {what} must be an integer, not {games!r}", 1, MAX_GAMES,
                     f"the number of {what} must be 1 .. {MAX_GAMES:,}, not {games}")


class WorkerDied(RuntimeError):
    """A worker process of the pool died (killed by a signal, e.g. by the kernel's out-of-memory
    killer); the task it was running would never finish."""


class WorkerOutOfMemory(WorkerDied, MemoryError):
    """A worker process died of memory running out, as its stderr said (LLVM aborts the process
    on "LLVM ERROR: out of memory"): a ``MemoryError`` too."""


def _start_worker(stderr_fd: int | None, close_fds: tuple, initializer: Callable | None,
                  initargs: tuple) -> None:
    """Every pool worker's initializer: it writes its stderr to ``stderr_fd`` (the parent reads
    it if the worker dies), leaves Ctrl-C to the parent (which cancels the queued tasks and ends
    the workers), dies with the parent (Linux) rather than linger, closes the inherited file
    descriptors ``close_fds`` (a forked worker must not keep, say, the parent's lock alive),
    then runs ``initializer(*initargs)``."""
    if stderr_fd is not None:
        os.dup2(stderr_fd, STDERR_FD)
        os.close(stderr_fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for fd in close_fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):  # pragma: no cover - best effort
            pass
    if initializer is not None:
        initializer(*initargs)


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


def _run_inline(fn: Callable, tasks: Iterable[tuple]) -> Iterator:
    """``fn(*task)`` for each task in this process; Ctrl-C is raised between tasks
    (``deferred_interrupts``)."""
    with deferred_interrupts() as check_interrupt:
        for args in tasks:
            check_interrupt()  # a Ctrl-C that came while the caller used the last result
            result = fn(*args)
            check_interrupt()
            yield result
        check_interrupt()


def _worker_loop(conn, fn: Callable, stderr_fd: int | None, close_fds: tuple,
                 initializer: Callable | None, initargs: tuple) -> None:
    """A pool worker: set up (``_start_worker``), then answer ``(k, args)`` messages on its own
    pipe with ``(k, True, fn(*args))`` or ``(k, False, exception)`` until told to stop (``None``)
    or the pipe closes."""
    _start_worker(stderr_fd, close_fds, initializer, initargs)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        k, args = msg
        try:
            reply = (k, True, fn(*args))
        except Exception as e:  # noqa: BLE001 - handed to the parent, which raises it
            reply = (k, False, as_memory_error(e))
        try:
            conn.send(reply)
        except Exception as e:  # noqa: BLE001 - an unpicklable result or exception
            failed = as_memory_error(e)
            conn.send((k, False, failed if isinstance(failed, MemoryError) else RuntimeError(
                f"a task's result could not be sent back: {type(e).__name__}: {e}")))


def _died(process, stderr) -> WorkerDied:
    """The ``WorkerDied`` error for a worker ``process`` that ended while running a task (a
    ``WorkerOutOfMemory`` when ``stderr``, the file of its stderr, says memory ran out)."""
    process.join(timeout=1)
    code = process.exitcode
    how = (f"killed by {signal.Signals(-code).name}" if code is not None and code < 0
           else f"exit code {code}")
    said = _last_words(stderr)
    memory = [line for line in said if says_out_of_memory(line)]
    if memory:
        return WorkerOutOfMemory(f"out of memory in a worker process ({memory[0]})")
    return WorkerDied(f"a worker process died ({how}; "
                      f"{said[-1] if said else 'the system may have run out of memory'})")


def _stderr_file():
    """A new anonymous file for a worker's stderr; ``None`` when none can be made (the worker's
    stderr is then left as it is)."""
    try:
        return tempfile.TemporaryFile()
    except OSError:
        return None


def _last_words(stderr) -> list[str]:
    """The non-empty lines at the end of what a dead worker wrote on its stderr (``stderr``: its
    file, or ``None``), ``STDERR_TAIL_BYTES`` at most."""
    if stderr is None:
        return []
    try:
        size = os.fstat(stderr.fileno()).st_size
        text = os.pread(stderr.fileno(), STDERR_TAIL_BYTES, max(0, size - STDERR_TAIL_BYTES))
    except OSError:
        return []
    return [line.strip() for line in text.decode("utf-8", "replace").splitlines() if line.strip()]


def _run_pool(fn: Callable, tasks: Iterable[tuple], jobs: int, ordered: bool, close_fds: tuple,
              initializer: Callable | None, initargs: tuple) -> Iterator:
    """``run_tasks`` over ``jobs`` worker processes (see there).

    Each worker has a pipe of its own and runs one task at a time, so no lock or queue is shared
    between processes: a worker killed at any moment (by Ctrl-C's clean-up, or the out-of-memory
    killer) cannot leave a lock held that the others, or this process, would wait on for ever,
    and its death is seen at once through its sentinel."""
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    ctx = mp.get_context(method)
    procs, conns, stderrs = [], [], []
    tasks = iter(tasks)
    ready: dict[int, object] = {}
    busy: dict[int, int] = {}  # worker -> the task it runs
    submitted = yielded = 0
    more = True
    try:
        for _ in range(jobs):
            mine, theirs = ctx.Pipe(duplex=True)
            forked = method == "fork"  # a spawned worker inherits no file but its pipe
            stderr = _stderr_file() if forked else None
            stderrs.append(stderr)
            p = ctx.Process(target=_worker_loop, daemon=True,
                            args=(theirs, fn, None if stderr is None else stderr.fileno(),
                                  close_fds if forked else (), initializer, initargs))
            p.start()
            theirs.close()
            procs.append(p)
            conns.append(mine)
        idle = list(range(jobs))
        failure: WorkerDied | None = None
        while True:
            while more and idle and submitted - yielded < IN_FLIGHT_PER_WORKER * jobs:
                args = next(tasks, None)
                if args is None:
                    more = False
                    break
                w = idle.pop()
                try:
                    conns[w].send((submitted, args))
                except OSError:  # it died while idle
                    failure = failure or _died(procs[w], stderrs[w])
                    more = False
                    break
                busy[w] = submitted
                submitted += 1
            if not busy:
                break
            waiting = {conns[w]: w for w in busy}
            ended = {procs[w].sentinel: w for w in busy}
            signalled = wait_for_any([*waiting, *ended])
            for obj in signalled:
                w = waiting.get(obj)
                if w is None:
                    continue
                try:
                    k, ok, item = obj.recv()
                except (EOFError, OSError):
                    continue  # the worker died: its sentinel is signalled too
                del busy[w]
                idle.append(w)
                if not ok:
                    raise item
                ready[k] = item
            for obj in signalled:
                w = ended.get(obj)
                if w is not None and w in busy:
                    # Its task is lost; the others' running tasks still finish and are handed
                    # on (finished work is never dropped), then the error is raised.
                    del busy[w]
                    failure = failure or _died(procs[w], stderrs[w])
                    more = False
            while ready:
                k = yielded if ordered else next(iter(ready))
                if k not in ready:
                    break
                yielded += 1
                yield ready.pop(k)
        if failure is not None:
            raise failure
        for conn in conns:
            conn.send(None)
        for p in procs:
            p.join()
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
        for p in procs:
            p.join()
        for conn in conns:
            conn.close()
        for stderr in stderrs:
            if stderr is not None:
                stderr.close()


def run_tasks(fn: Callable, tasks: Iterable[tuple], jobs: int = 1, *, ordered: bool = False,
              close_fds: tuple = (), initializer: Callable | None = None,
              initargs: tuple = ()) -> Iterator:
    """``fn(*task)`` for every task of ``tasks``, run by ``jobs`` worker processes; yields the
    results as they finish (in task order with ``ordered``).

    ``fn`` must be a picklable top-level function. ``tasks`` is read lazily: at most
    ``IN_FLIGHT_PER_WORKER * jobs`` tasks are queued or waiting to be yielded at a time. With
    ``jobs == 1`` the tasks run in this process (``initializer`` is not called). Workers ignore
    Ctrl-C, die with this process (Linux), close the inherited file descriptors ``close_fds``
    (when forked) and then run ``initializer(*initargs)``.

    A task's exception is raised here as it is (a ``MemoryError`` when memory running out is
    behind it). A worker that dies (killed by a signal, as the out-of-memory killer does) raises
    ``WorkerDied`` at once, ``WorkerOutOfMemory`` when its stderr (never shown) said memory ran
    out. On Ctrl-C,
    an error, or when the caller stops iterating (``close()``), the queued tasks are dropped and
    the workers ended at once, not after their tasks.
    """
    jobs = check_jobs(jobs)
    if jobs == 1:
        return _run_inline(fn, tasks)
    return _run_pool(fn, tasks, jobs, ordered, tuple(close_fds), initializer, initargs)


def run_games(run_chunk: ChunkFn, seed: int, games: int, params: dict, jobs: int | None = 1,
              progress: bool | None = True, chunk: int = DEFAULT_CHUNK,
              desc: str = "games") -> dict:
    """Play ``games`` games through ``run_chunk`` and return the per-game records in game order;
    ``progress`` is a ``solver.core.progress`` setting (True, False or ``PROGRESS_AUTO``).

    Ctrl-C raises ``KeyboardInterrupt`` within a chunk's time (one process) or at once (worker
    processes, which are ended); nothing is left running."""
    games = check_games(games)
    jobs = check_jobs(jobs)
    spans = [(start, min(chunk, games - start)) for start in range(0, games, chunk)]
    parts: list[dict | None] = [None] * len(spans)
    bar = progress_bar(progress, total=games, desc=desc, unit="game")
    try:
        results = run_tasks(run_chunk, ((seed, start, n, params) for start, n in spans),
                            min(jobs, len(spans)), ordered=True)
        try:
            for k, part in enumerate(results):
                parts[k] = part
                bar.update(spans[k][1])
        finally:
            results.close()
    finally:
        bar.close()
    keys = parts[0].keys()
    return {key: np.concatenate([p[key] for p in parts]) for key in keys}
