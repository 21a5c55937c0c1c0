"""Running a batch's chunks as tasks on a Dask distributed cluster (``--scheduler``).

The address is checked before the client is made (a malformed or unreachable address, or one
where something else than a Dask scheduler listens, is a ``ValueError`` at once); a bounded number
of chunks is in flight; a task's own error is raised as it is, the cluster failing in any way
raises ``SchedulerLost``.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import socket
import sys
import uuid
from typing import Iterable, Iterator

from solver.core.text import clip
from solver.batch.work import ChunkResult, ChunkTask, solve_chunk
from solver.core.extras import install_hint

WORKER_NOTICE_SECONDS = 3.0
"""With no Dask worker after this long, say on stderr that the run waits for one."""
SCHEDULER_CONNECT_SECONDS = 5.0
"""How long the first TCP connection to a Dask scheduler, and its greeting, may take (a
scheduler sends its handshake as soon as it accepts a connection)."""
CLOSE_SECONDS = 5
"""How long closing the Dask client may take (the scheduler may be gone)."""


class SchedulerLost(Exception):
    """The Dask scheduler stopped answering during a run."""

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
                         f"({install_hint('cluster')})") from None
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


def run_dask(tasks: Iterable[ChunkTask], scheduler: str) -> Iterator[ChunkResult]:
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
