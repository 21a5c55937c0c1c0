"""Running the real ``pyramid`` command in a subprocess and checking how it fails.

Every fault table in the tests (``test_faults_*.py``) uses these helpers, so that "a clean
failure" means one thing everywhere: the documented exit code, exactly one non-empty line on
stderr (no usage dump, no traceback, no "Exception ignored"), short enough to read, and nothing
left behind on disk.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

PYRAMID = [sys.executable, "-m", "cli"]
"""The command line that runs ``pyramid`` from this checkout's interpreter."""

def interruptible() -> None:
    """``preexec_fn`` of a child that a test stops with SIGINT: Ctrl-C reaches it as in a
    terminal. A shell without job control starts a background job (``.ci/run &``) with SIGINT
    ignored, every process inherits that, and Python then leaves SIGINT ignored: without this the
    Ctrl-C tests of such a run would see a command that never stops."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


LOADER_LIMITS_KB = (250_000, 330_000, 375_000, 400_000)
"""Address-space limits (``ulimit -v``, KiB) too small to load the engines. At 250 MB numba's
LLVM library cannot be mapped (llvmlite's "OSError: Could not find/load shared object file", once
exit 74); from about 330 to 400 MB LLVM aborted the process while mapping kernels ("LLVM ERROR:
out of memory", ``std::bad_alloc``, exit 134, or exit 70). Each must be one line about memory:
``solver.core.memory.check_room_to_load`` refuses such a limit before anything loads."""


def address_space_kb(limit_kb: int):
    """A ``preexec_fn`` that limits the child's address space to ``limit_kb`` KiB."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_kb * 1024, limit_kb * 1024))

    return limit


MAX_ERROR_CHARS = 300
"""An error line longer than this echoes too much of a bad input."""


def run_pyramid(args, *, input: str | bytes | None = None, cwd=None, env=None,
                preexec_fn=None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``pyramid ARGS`` to completion; stdout and stderr are captured as text."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    if isinstance(input, str):
        input = input.encode()
    proc = subprocess.run([*PYRAMID, *map(str, args)], input=input, capture_output=True,
                          cwd=cwd, env=full_env, preexec_fn=preexec_fn, timeout=timeout)
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    return proc


def error_lines(stderr: str) -> list[str]:
    """The lines of stderr that are not progress-bar redraws or notices of compilation."""
    lines = []
    for raw in stderr.replace("\r", "\n").splitlines():
        line = raw.strip()
        if not line or line.startswith("Compiling "):
            continue
        lines.append(line)
    return lines


def assert_clean_failure(proc: subprocess.CompletedProcess, code: int,
                         mentions: str | tuple[str, ...] = ()) -> str:
    """``proc`` exited with ``code`` and said why in one short stderr line; return that line.

    ``mentions``: text (or texts) the line must contain, case-insensitively: the file, line or
    option the error is about.
    """
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "Exception ignored" not in proc.stderr, proc.stderr[-3000:]
    lines = error_lines(proc.stderr)
    assert proc.returncode == code, (proc.returncode, proc.stderr[-2000:])
    assert len(lines) == 1, lines[:10]
    line = lines[0]
    assert len(line) <= MAX_ERROR_CHARS, line[:500]
    for text in ((mentions,) if isinstance(mentions, str) else mentions):
        assert text.lower() in line.lower(), (text, line)
    return line


def tree(path: Path) -> set[str]:
    """Every file and folder below ``path`` (relative names), to compare before and after."""
    path = Path(path)
    return {str(p.relative_to(path)) for p in path.rglob("*")}
