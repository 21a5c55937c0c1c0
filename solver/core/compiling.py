"""Saying once, on stderr, that numba is compiling: at the moment it really starts.

numba loads a kernel from its on-disk cache (``cache=True``) when it can and compiles it only
when the cache has no usable copy; every real compilation is announced on numba's event bus as
a ``numba:compile`` event, which a cache hit never sends. Listening for that event tells a cold
cache from a warm one exactly, whatever the machine's load (a timer cannot: a busy machine can
take seconds just to load the cache).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple, TextIO

COMPILE_EVENT = "numba:compile"
"""The numba event sent when a function is really compiled (not loaded from the cache)."""


@contextlib.contextmanager
def compile_notice(message: str, stream: TextIO | None = None):
    """While the block runs, print ``message`` once on ``stream`` (default stderr) as soon as
    numba starts compiling anything; print nothing when every kernel comes from the cache.

    Example::

        with compile_notice("Compiling the solver kernels..."):
            load_kernels()
    """
    def say() -> None:
        print(message, file=stream if stream is not None else sys.stderr, flush=True)

    with on_first_compile(say):
        yield


@contextlib.contextmanager
def on_first_compile(callback):
    """While the block runs, call ``callback()`` once (from the compiling thread) as soon as
    numba starts compiling anything; never when every kernel comes from the cache. The terminal
    game uses it to say so on its status line; ``compile_notice`` to say so on stderr."""
    from numba.core import event  # numba only when a kernel is about to be used

    said = False

    class _Notice(event.Listener):
        def on_start(self, ev) -> None:
            nonlocal said
            if not said:
                said = True
                callback()

        def on_end(self, ev) -> None:
            pass

    with event.install_listener(COMPILE_EVENT, _Notice()):
        yield


class CompileEvent(NamedTuple):
    """One real compilation of a kernel for one type signature (a cache miss)."""

    kernel: str
    """The kernel's module and name, e.g. ``solver.pyramid.winnable.dfs.search``."""
    signature: str
    """The argument types it was compiled for, as numba writes them."""
    seconds: float
    """Wall-clock seconds of the compilation, the kernels it compiled on the way included."""
    own_seconds: float
    """``seconds`` less the compilations nested inside it (kernels it calls, compiled first)."""
    depth: int
    """0 for a compilation started from Python, 1 + its caller's for a nested one."""


@contextlib.contextmanager
def compile_log():
    """While the block runs, record every real numba compilation (never a cache load) as a
    ``CompileEvent``, in the order they finish, in the list this yields.

    Example::

        with compile_log() as events:
            load_kernels()
        print(sum(e.own_seconds for e in events), "s compiling")
    """
    from numba.core import event  # numba only when a kernel is about to be used

    events: list[CompileEvent] = []
    stack: list[list[float]] = []  # per open compilation: [start, seconds of nested ones]

    class _Log(event.Listener):
        def on_start(self, ev) -> None:
            stack.append([time.perf_counter(), 0.0])

        def on_end(self, ev) -> None:
            start, nested = stack.pop()
            seconds = time.perf_counter() - start
            if stack:
                stack[-1][1] += seconds
            disp = ev.data["dispatcher"]
            py = disp.py_func
            args = ", ".join(str(a) for a in ev.data["args"])
            events.append(CompileEvent(f"{py.__module__}.{py.__qualname__}", f"({args})",
                                       seconds, seconds - nested, len(stack)))

    with event.install_listener(COMPILE_EVENT, _Log()):
        yield events


def index_pattern(kernel) -> str:
    """The name pattern of the numba cache index of the ``@njit(cache=True)`` ``kernel``
    (``<module file stem>.<qualname>-<line>.<python tag>.nbi``)."""
    code = kernel.py_func.__code__
    return f"{Path(code.co_filename).stem}.{kernel.py_func.__qualname__}-*.nbi"


def has_cache_entry(kernel) -> bool:
    """Whether numba's on-disk cache holds an index for the ``@njit(cache=True)`` ``kernel`` (at
    least one compiled signature; a stale one, of an older source, counts too). A guess used only
    to skip needless work: a wrong answer costs time, never a wrong result."""
    return any(Path(kernel.stats.cache_path).glob(index_pattern(kernel)))


def merge_cache(source: str | os.PathLike, target: str | os.PathLike,
                patterns: tuple[str, ...] = ("*.nbi",)) -> int:
    """Copy the numba cache entries of the directory ``source`` into ``target`` (both used as
    ``NUMBA_CACHE_DIR``) whose index names match one of ``patterns`` (``index_pattern``): for
    each such kernel whose index ``target`` lacks, its compiled files first, then its index, each
    by an atomic rename. An index ``target`` already has is kept: numba never sees a half-copied
    entry, nor an index of one process naming data of another. Returns the number of kernels
    copied."""
    source, target = Path(source), Path(target)
    copied = 0
    for index in sorted({i for pattern in patterns for i in source.rglob(pattern)}):
        dest = target / index.relative_to(source)
        if dest.exists():
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        stem = index.name[:-len(".nbi")]
        for part in [*sorted(index.parent.glob(f"{stem}.*.nbc")), index]:
            tmp = dest.parent / f".{part.name}.{os.getpid()}.tmp"
            shutil.copyfile(part, tmp)
            os.replace(tmp, dest.parent / part.name)
        copied += 1
    return copied


SAME_PACKAGE = ("-P",)
"""Python's option for a child process that must import the very ``solver`` package this one
runs (``PYTHONPATH`` names its directory): without it ``python -m`` looks in the working
directory first, and from a source checkout next to a regular (not editable) install the child
would compile the checkout's files, whose cache entries (numba keys them by the source file's
path) the installed commands never load."""


FREE_CORE_LOAD = 0.5
"""A helper compiles aside only when the 1-minute load average is below the number of cores
less this (``machine_busy``): a core must be free for it, else it only slows everything."""


def machine_busy() -> bool:
    """Whether the machine has no free core now (load average, ``FREE_CORE_LOAD``)."""
    try:
        return os.getloadavg()[0] > (os.cpu_count() or 1) - FREE_CORE_LOAD
    except OSError:
        return True


@contextlib.contextmanager
def compile_aside(module: str, kernels: tuple = (), busy: bool | None = None):
    """Compile ``kernels`` (their entry signatures) in a helper process while this one compiles
    its own kernels, in the block.

    The first time numba really compiles something inside the block (so never on a warm cache),
    and only if some of ``kernels`` has no cache entry yet (``has_cache_entry``), ``python -m
    module`` (which calls them) starts with a private, empty cache directory; at the end of the
    block this process waits for it and copies the cache entries of ``kernels`` into its own
    (``merge_cache``; a kernel's entry holds the kernels it calls, compiled in), so that they then
    load from the cache. Two processes
    never write the same cache directory at once (numba could pair one's index with the other's
    compiled code when both add a signature of the same kernel). A helper that fails or cannot
    start costs nothing but time: those kernels are then compiled here, when first called.

    On a machine with a free core this overlaps two compilations (the winnability kernels aside
    while the minimum-move kernels compile here). On a busy machine (``busy``, default
    ``machine_busy()``) no helper starts: it would add the CPU time of its own start and of the
    kernels both compile to a machine with no core to spare.
    """
    from numba.core import config, event

    root = Path(__file__).resolve().parents[2]  # the directory holding the solver package
    state: dict = {}
    needed = not all(map(has_cache_entry, kernels))

    class _Start(event.Listener):
        def on_start(self, ev) -> None:
            if state or not needed or not config.CACHE_DIR:  # no cache directory to merge into
                return
            if busy if busy is not None else machine_busy():
                state["busy"] = True
                return
            tmp = tempfile.mkdtemp(prefix="pyramid-compile-")
            env = {**os.environ, "NUMBA_CACHE_DIR": tmp,
                   "PYTHONPATH": os.pathsep.join([str(root), *filter(None, [os.environ.get(
                       "PYTHONPATH")])])}
            state["tmp"] = tmp
            try:
                state["proc"] = subprocess.Popen([sys.executable, *SAME_PACKAGE, "-m", module],
                                                 env=env,
                                                 stdin=subprocess.DEVNULL,
                                                 stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.DEVNULL)
            except OSError:
                pass

        def on_end(self, ev) -> None:
            pass

    try:
        with event.install_listener(COMPILE_EVENT, _Start()):
            yield
        proc = state.get("proc")
        if proc is not None and proc.wait() == 0:
            merge_cache(state["tmp"], config.CACHE_DIR, tuple(map(index_pattern, kernels)))
    finally:
        proc = state.get("proc")
        if proc is not None and proc.poll() is None:  # the block failed: do not leave it behind
            proc.kill()
            proc.wait()
        if "tmp" in state:
            shutil.rmtree(state["tmp"], ignore_errors=True)


LOGGED_ENTRY = "cli.main:cli"
"""The click group ``run_logged`` calls by default: the ``pyramid`` command."""


class LoggedRun(NamedTuple):
    """What ``run_logged`` saw of one child process running command lines."""

    code: int
    """The exit code of the last command line run (0 when every one ended as allowed)."""
    wall: float
    """Wall-clock seconds of the whole child process, its start and imports included."""
    events: list[CompileEvent]
    """Every real compilation in the child's own process (not in a helper it started)."""
    cpu: float
    """CPU seconds of the child process."""
    helper_cpu: float
    """CPU seconds of the processes the child started and waited for (``compile_aside``)."""
    error: str
    """The child's last line on stderr when a command line ended with a code not allowed."""


def logged_child(out: str, entry: str, argvs: list[list[str]], allowed: list[int]) -> None:
    """The child of ``run_logged``: run each command line of ``argvs`` through the click group
    ``entry`` (``module:name``) in this process, logging every compilation, and write what
    happened to the JSON file ``out`` (atomically). Stops at the first command line whose exit
    code is not in ``allowed``."""
    import importlib
    import json
    import resource

    module, name = entry.split(":")
    code = 0
    with compile_log() as events:
        group = getattr(importlib.import_module(module), name)
        for argv in argvs:
            try:
                group.main(argv, prog_name="pyramid")
            except SystemExit as e:  # the commands end with sys.exit(their exit code)
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            if code not in allowed:
                break
    own = resource.getrusage(resource.RUSAGE_SELF)
    helpers = resource.getrusage(resource.RUSAGE_CHILDREN)
    tmp = Path(f"{out}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"code": code, "events": [e._asdict() for e in events],
                               "cpu": own.ru_utime + own.ru_stime,
                               "helper_cpu": helpers.ru_utime + helpers.ru_stime}))
    os.replace(tmp, out)


def run_logged(argvs: list[tuple[str, ...]], allowed: tuple[int, ...] = (0, 1),
               entry: str = LOGGED_ENTRY, env: dict | None = None,
               cwd: str | os.PathLike | None = None) -> LoggedRun:
    """Run the command lines ``argvs`` one after the other in one fresh Python process (stdout
    discarded), logging every numba compilation there (``compile_log``): what the first run of
    those commands compiles, or nothing when numba's cache (``NUMBA_CACHE_DIR`` of ``env``,
    default this process's environment) already holds them. ``allowed`` are the exit codes a
    command line may end with (a lost deal ends with 1); the first other code stops the child and
    is returned with its last line on stderr.

    Example::

        run = run_logged([("solve", "--seed", "1")])
        print(len(run.events), "signatures compiled in", run.wall, "s")
    """
    import json

    root = Path(__file__).resolve().parents[2]  # the directory holding the solver package
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
    with tempfile.TemporaryDirectory(prefix="pyramid-logged-") as tmp:
        out = Path(tmp) / "run.json"
        t0 = time.perf_counter()
        # its own process group: on Ctrl-C (or any error) here, the child and the helper it may
        # have started (compile_aside) are stopped together
        proc = subprocess.Popen([sys.executable, *SAME_PACKAGE, "-m", __name__, str(out), entry,
                                 json.dumps([list(a) for a in argvs]), json.dumps(list(allowed))],
                                env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                errors="replace", start_new_session=True)
        try:
            _, stderr = proc.communicate()
        except BaseException:
            stop_group(proc)
            raise
        wall = time.perf_counter() - t0
        lines = stderr.strip().splitlines()
        if not out.exists():  # the child itself failed (it could not start, or was killed)
            code = proc.returncode if proc.returncode else 1
            return LoggedRun(code, wall, [], 0.0, 0.0, lines[-1] if lines else
                             f"the child process ended with exit code {proc.returncode}")
        data = json.loads(out.read_text())
    code = data["code"]
    return LoggedRun(code, wall, [CompileEvent(**e) for e in data["events"]], data["cpu"],
                     data["helper_cpu"], "" if code in allowed or not lines else lines[-1])


STOP_GRACE_SECONDS = 3.0
"""``stop_group`` gives a process group this long to end on SIGINT before it kills it."""


def stop_group(proc: subprocess.Popen) -> None:
    """End ``proc`` (started with ``start_new_session``) and every process of its group: SIGINT
    first, so that they clean up (``compile_aside`` removes its temporary cache), then SIGKILL
    after ``STOP_GRACE_SECONDS``."""
    import signal

    for sig in (signal.SIGINT, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        try:
            proc.wait(timeout=STOP_GRACE_SECONDS)
            break
        except subprocess.TimeoutExpired:
            continue
    proc.wait()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # anything of the group still running


if __name__ == "__main__":  # the child of run_logged
    import json as _json

    logged_child(sys.argv[1], sys.argv[2], _json.loads(sys.argv[3]), _json.loads(sys.argv[4]))
