"""What every benchmark script shares: the machine description and RESULTS.md section writing."""

from __future__ import annotations

import datetime
import os
import platform
import re
from pathlib import Path

import numba
import numpy as np

RESULTS = Path(__file__).with_name("RESULTS.md")


def machine(own: int = 1) -> str:
    """Cores, CPU model, Python/numba/numpy versions and the load average, noting a busy machine:
    one whose load is above the ``own`` busy processes of the benchmark itself."""
    cpu = "unknown"
    try:
        m = re.search(r"model name\s*:\s*(.*)", Path("/proc/cpuinfo").read_text())
        cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass
    load = os.getloadavg()
    return (f"{os.cpu_count()} cores (nproc), CPU {cpu}, Python {platform.python_version()}, "
            f"numba {numba.__version__}, numpy {np.__version__}; load average at the end "
            f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}, the benchmark's own {own} busy "
            f"process{'es' if own > 1 else ''} included"
            + (" (taken under load: other processes were running)" if load[0] > own + 0.5
               else ""))


def now_utc() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def write_section(title: str, text: str) -> None:
    """Replace (or append) the section headed ``title`` (``## ...``), leaving the others intact."""
    old = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    pattern = re.compile(rf"^{re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    body = text if text.startswith(title) else f"{title}\n\n{text}"
    body = body.rstrip("\n") + "\n\n"
    new = pattern.sub(lambda _: body, old) if pattern.search(old) else old.rstrip("\n") + "\n\n" + body
    RESULTS.write_text(new.rstrip("\n") + "\n")


TIME_STATS = {"median": np.median, "p99": lambda t: np.percentile(t, 99), "max": np.max}
"""The per-deal time figures a target may name."""


def time_target_lines(label: str, t, targets: dict, slowest) -> list[str]:
    """The verdict lines of per-deal time targets: one per ``targets`` entry (a ``TIME_STATS``
    name -> seconds) on the times ``t`` (seconds), then the slowest deals (``(seconds, seed)``
    pairs), each line starting with ``label``."""
    lines = []
    for k, lim in targets.items():
        got = TIME_STATS[k](t)
        verdict = "met" if got <= lim else "NOT met"
        lines.append(f"- {label} {k} {got * 1e3:.1f} ms (target <= {lim * 1e3:.0f} ms): {verdict}")
    worst = ", ".join(f"seed {s} {dt:.2f} s" for dt, s in slowest)
    lines.append(f"- {label} slowest: {worst}")
    return lines


def timed(fn, repeats: int):
    """Run ``fn`` ``repeats`` times: the wall-clock seconds of each run (array) and the last result."""
    import time

    secs = []
    out = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        secs.append(time.perf_counter() - t0)
    return np.array(secs), out
