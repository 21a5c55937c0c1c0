"""The first run after installing: numba compile time of the README's first commands, with and
without ``pyramid warmup``, written to the ``## First run (cold numba cache)`` section of
RESULTS.md.

    python benchmarks/bench_compile.py [--repeats 2] [--no-write] [--json OUT]

Each command runs in a fresh process with a fresh, empty ``NUMBA_CACHE_DIR`` (what a first run
after installing sees), ``repeats`` times, one command after the other. For each run it reports
the wall-clock seconds of the whole process (interpreter start and imports included) and the
seconds spent compiling; for the first run of each command, every kernel compiled with its type
signature and its own compile seconds (``solver.core.compiling.compile_log``: numba's
``numba:compile`` events, which a cache load never sends), and the kernels compiled for more
than one signature (duplicates). The load average is given with every run (the machine is shared).

Then the README's install command's warm-up: ``pyramid warmup`` on a fresh, empty cache (its wall
time), and each command once more on the cache it filled: the first run after installing as the
README installs, which should compile nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.core.compiling import run_logged  # noqa: E402

TITLE = "## First run (cold numba cache)"
COMMANDS = (
    ("solve", "--seed", "1"),
    ("solve", "--seed", "1", "--any"),
    ("analyse", "--seed", "1"),
)
"""The README's first commands: each is timed on a cold cache of its own."""
TARGET = 10.0
"""Seconds the first ``pyramid solve --seed 1`` may take on an idle machine (issue 15)."""


def run_cold(argv: tuple[str, ...], cache: str | None = None) -> dict:
    """One run of ``argv`` in a fresh process on the numba cache ``cache`` (default a fresh,
    empty one): wall seconds, load, compile events (``solver.core.compiling.run_logged``)."""
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache or str(Path(tmp) / "cache")}
        run = run_logged([argv], env=env, cwd=ROOT)
    if run.error:
        raise RuntimeError(f"{' '.join(argv)} failed: {run.error}")
    return {"argv": argv, "wall": run.wall, "load": os.getloadavg()[0],
            "events": [e._asdict() for e in run.events], "cpu": run.cpu,
            "helper_cpu": run.helper_cpu}


def warm_then_first(cache: str) -> tuple[dict, list[dict]]:
    """``pyramid warmup`` (its default commands) on the empty cache ``cache``, then each of
    ``COMMANDS`` once on the cache it filled: (the warm-up run, the runs after it)."""
    warm = run_cold(("warmup", "--quiet"), cache)
    return warm, [run_cold(argv, cache) for argv in COMMANDS]


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
    with tempfile.TemporaryDirectory(prefix="bench-warmup-") as tmp:
        warm, after = warm_then_first(str(Path(tmp) / "cache"))
    print(f"pyramid warmup: {warm['wall']:.1f} s wall on an empty cache, load {warm['load']:.2f}",
          flush=True)
    for run in after:
        print(f"after it, pyramid {' '.join(run['argv'])}: {run['wall']:.1f} s wall, "
              f"{len(run['events'])} signatures compiled", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"cold": runs, "warmup": warm, "after": after},
                                              indent=1))

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
    lines += ["", "With the warm-up the README's install command runs (`pyramid warmup`, its "
              "default commands, on an empty cache), then each command once on the cache it "
              "filled:", "", "| run | wall s | signatures compiled | CPU s | helper CPU s | "
              "load (1 min) |", "| --- | --- | --- | --- | --- | --- |"]
    for run in [warm, *after]:
        compiled = "in its children" if run is warm else len(run["events"])
        lines.append(f"| `pyramid {' '.join(run['argv'])}` | {run['wall']:.1f} | "
                     f"{compiled} | {run['cpu']:.1f} | {run['helper_cpu']:.1f} | "
                     f"{run['load']:.2f} |")
    solve_after = after[0]
    lines += ["", f"Target: the first `pyramid solve --seed 1` after installing in at most "
              f"{TARGET:.0f} s on an idle machine. After the install command's warm-up: "
              f"{solve_after['wall']:.1f} s, {len(solve_after['events'])} signatures compiled "
              f"({'met' if solve_after['wall'] <= TARGET else 'NOT met'}; load "
              f"{solve_after['load']:.2f}). Without it (a cold cache): {first:.1f} s in the "
              f"first run, load {runs[0]['load']:.2f} "
              f"({'met' if first <= TARGET else 'NOT met'}).", ""]
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
