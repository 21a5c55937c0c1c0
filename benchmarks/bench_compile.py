"""The first run after installing: numba compile time of the README's first commands, written to
the ``## First run (cold numba cache)`` section of RESULTS.md.

    python benchmarks/bench_compile.py [--repeats 2] [--no-write] [--json OUT]

Each command runs in a fresh process with a fresh, empty ``NUMBA_CACHE_DIR`` (what a first run
after installing sees), ``repeats`` times, one command after the other. For each run it reports
the wall-clock seconds of the whole process (interpreter start and imports included) and the
seconds spent compiling; for the first run of each command, every kernel compiled with its type
signature and its own compile seconds (``solver.core.compiling.compile_log``: numba's
``numba:compile`` events, which a cache load never sends), and the kernels compiled for more
than one signature (duplicates). The load average is given with every run (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TITLE = "## First run (cold numba cache)"
COMMANDS = (
    ("solve", "--seed", "1"),
    ("solve", "--seed", "1", "--any"),
    ("analyse", "--seed", "1"),
)
"""The README's first commands: each is timed on a cold cache of its own."""
TARGET = 10.0
"""Seconds the first ``pyramid solve --seed 1`` may take on an idle machine (issue 15)."""


def child(argv: list[str], out: str) -> None:
    """Run the CLI with ``argv`` in this process, logging every compilation to ``out`` (JSON)."""
    from solver.core.compiling import compile_log

    code = 0
    with compile_log() as events:
        from cli.main import cli

        try:
            cli.main(argv, prog_name="pyramid")
        except SystemExit as e:  # the commands end with sys.exit(their exit code)
            code = e.code or 0
    own = resource.getrusage(resource.RUSAGE_SELF)
    helpers = resource.getrusage(resource.RUSAGE_CHILDREN)  # helper processes it waited for
    Path(out).write_text(json.dumps({"code": code, "events": [e._asdict() for e in events],
                                     "cpu": own.ru_utime + own.ru_stime,
                                     "helper_cpu": helpers.ru_utime + helpers.ru_stime}))


def run_cold(argv: tuple[str, ...]) -> dict:
    """One run of ``argv`` on a fresh, empty numba cache: wall seconds, load, compile events."""
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as tmp:
        out = Path(tmp) / "events.json"
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "cache")}
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, __file__, "--child", str(out), *argv], env=env,
                              cwd=ROOT, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        if proc.returncode not in (0, 1) or not out.exists():
            raise RuntimeError(f"{' '.join(argv)} failed: {proc.stderr[-2000:]}")
        data = json.loads(out.read_text())
    return {"argv": argv, "wall": wall, "load": os.getloadavg()[0], "events": data["events"],
            "cpu": data["cpu"], "helper_cpu": data["helper_cpu"]}


def kernel_table(events: list[dict]) -> list[str]:
    """Markdown rows: every compilation, slowest own time first."""
    rows = []
    for e in sorted(events, key=lambda e: -e["own_seconds"]):
        name = e["kernel"].removeprefix("solver.")
        rows.append(f"| `{name}` | `{e['signature']}` | {e['own_seconds']:.2f} | {e['depth']} |")
    return rows


def duplicates(events: list[dict]) -> list[str]:
    """Kernels compiled for more than one signature: ``name: n signatures``."""
    sigs = defaultdict(list)
    for e in events:
        sigs[e["kernel"]].append(e["signature"])
    return [f"`{k}`: {len(v)} ({'; '.join(v)})" for k, v in sigs.items() if len(v) > 1]


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[3:], sys.argv[2])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--json", default=None, help="also write every run's events here")
    args = ap.parse_args()
    from benchmarks.common import machine, now_utc, write_section

    runs = []
    for r in range(args.repeats):
        for argv in COMMANDS:
            run = run_cold(argv)
            runs.append(run)
            comp = sum(e["own_seconds"] for e in run["events"])
            print(f"run {r + 1}: pyramid {' '.join(argv)}: {run['wall']:.1f} s wall, "
                  f"{comp:.1f} s compiling {len(run['events'])} signatures, CPU "
                  f"{run['cpu']:.1f} s + {run['helper_cpu']:.1f} s in a helper, "
                  f"load {run['load']:.2f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1))

    lines = [TITLE, "", f"`python benchmarks/bench_compile.py --repeats {args.repeats}`, "
             f"{now_utc()}: each command in a fresh process on a fresh, empty numba cache.", "",
             f"Machine: {machine()}.", "",
             "CPU s: of the command's process, and of the helper process compiling aside "
             "(``solver.core.compiling.compile_aside``); on an idle machine with a free core "
             "the wall time is about the command's CPU time.", "",
             "| command | run | wall s | compiling s | signatures compiled here | CPU s | "
             "helper CPU s | load (1 min) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for i, run in enumerate(runs):
        comp = sum(e["own_seconds"] for e in run["events"])
        lines.append(f"| `pyramid {' '.join(run['argv'])}` | {i // len(COMMANDS) + 1} | "
                     f"{run['wall']:.1f} | {comp:.1f} | {len(run['events'])} | "
                     f"{run['cpu']:.1f} | {run['helper_cpu']:.1f} | {run['load']:.2f} |")
    first = runs[0]["wall"]
    lines += ["", f"Target: the first `pyramid solve --seed 1` in at most {TARGET:.0f} s on an "
              f"idle machine. {'Met' if first <= TARGET else 'NOT met'} in the first run "
              f"({first:.1f} s, load {runs[0]['load']:.2f}).", ""]
    for run in runs[:len(COMMANDS)]:
        lines += [f"Kernels compiled by `pyramid {' '.join(run['argv'])}` (first run; own "
                  "seconds exclude the kernels compiled inside, depth 0 = called from Python):",
                  "", "| kernel | signature | own s | depth |", "| --- | --- | --- | --- |",
                  *kernel_table(run["events"]), ""]
        dup = duplicates(run["events"])
        lines += ["Compiled for more than one signature: " + ("; ".join(dup) if dup else "none")
                  + ".", ""]
    text = "\n".join(lines)
    if not args.no_write:
        write_section(TITLE, text)
    print(text)


if __name__ == "__main__":
    main()
