"""Challenge batch throughput (issue 32 item 5), written to the ``## Batch challenges`` section
of RESULTS.md only with ``--write``.

    python benchmarks/bench_batch_challenge.py [--deals 2000] [--challenge score|cards]
        [--rank A] [--jobs 0] [--write]

The whole command ``pyramid batch --challenge score --seeds 0:DEALS -q --json`` (the challenge's
default rules, ``msc``; the default workers, one process per core) runs as a subprocess after a
warm-up run of a few deals (so that compiling the kernels, if numba's cache is cold, is not
timed). Reported: the command's wall time (start-up and the join included), the scoring time and
deals per second that the command itself reports (its ``run``), the CPU seconds of the run and
its workers, the mean search time per deal, and the headline of the summary (deals reaching the
full 1,290 points, the median best score, the outcomes), so that a run on another machine can be
checked against these figures.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, now_utc, write_section  # noqa: E402

TITLE = "## Batch challenges"
ROOT = Path(__file__).resolve().parents[1]
WARM_UP_DEALS = 4


def pyramid(args: list[str]) -> tuple[float, float, dict]:
    """Run ``pyramid ARGS --json`` in a subprocess: its wall seconds, the CPU seconds of it and
    its workers, and the JSON it printed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "cli", *args, "--json"], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"pyramid {' '.join(args)} failed (exit {proc.returncode}): "
                         f"{proc.stderr.strip()}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, json.loads(proc.stdout)


def challenge_args(challenge: str, rank: str | None) -> list[str]:
    return ["--challenge", challenge] + (["--rank", rank] if challenge == "cards" else [])


def report(deals: int, wall: float, cpu: float, d: dict, command: str, batch: str) -> str:
    run = d["run"]
    c = d["challenge"]
    best = c["max_score"] if c["challenge"] == "score" else c["max_removed"]
    full, med = best["full"], best["median"]
    interval = "n/a" if med["lo"] is None else f"{med['lo']:g} .. {med['hi']:g}"
    outcomes = ", ".join(f"{k} {v:,}" for k, v in d["outcomes"].items())
    lines = [TITLE, "", f"Command: `{command}` ({now_utc()}). Machine: "
             f"{machine(own=int(run['executor'].split()[0]))}.", "",
             f"`{batch}` (rules {json.dumps(run['rules'], separators=(',', ':'))}), after a "
             f"warm-up run of {WARM_UP_DEALS} deals:", "",
             "| deals | wall, whole command | scoring | deals/s | executor | CPU s | search ms per "
             "deal (mean) |",
             "| ---: | ---: | ---: | ---: | --- | ---: | ---: |",
             f"| {deals:,} | {wall:.1f} s | {run['wall_seconds']:.1f} s | "
             f"{run['deals_per_second']:.1f} | {run['executor']} | {cpu:.0f} | "
             f"{d['ms']['mean']:.1f} |", "",
             f"Outcomes: {outcomes}. Over the {c['decided']:,} decided deals: the full "
             f"{best['most']:,} in {full['deals']:,} ({100 * (full['share']['p'] or 0):.1f}%, 95% "
             f"interval {100 * (full['share']['lo'] or 0):.1f} .. "
             f"{100 * (full['share']['hi'] or 0):.1f}%); median best {med['median']:g} "
             f"(95% interval {interval}); best lines clearing the pyramid "
             f"{100 * (c['clears_pyramid']['p'] or 0):.1f}%."]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000, help="seeds 0 .. DEALS-1")
    ap.add_argument("--challenge", default="score", choices=["score", "cards"])
    ap.add_argument("--rank", default="A", help="the card challenge's rank")
    ap.add_argument("--jobs", type=int, default=0, help="worker processes (0 = all cores)")
    ap.add_argument("--write", action="store_true", help="write the section of RESULTS.md")
    args = ap.parse_args()
    what = challenge_args(args.challenge, args.rank)
    with tempfile.TemporaryDirectory() as tmp:
        pyramid(["batch", "--seeds", f"0:{WARM_UP_DEALS}", *what, "-j", "1", "-q", "-o",
                 os.path.join(tmp, "warm.csv")])
        batch = ["batch", "--seeds", f"0:{args.deals}", *what, "-j", str(args.jobs), "-q",
                 "-o", os.path.join(tmp, "r.csv")]
        wall, cpu, d = pyramid(batch)
    shown = "pyramid " + " ".join(batch[:-1] + ["r.csv", "--json"])
    command = "python benchmarks/bench_batch_challenge.py " + " ".join(sys.argv[1:])
    text = report(args.deals, wall, cpu, d, command.strip(), shown)
    print(text)
    if args.write:
        write_section(TITLE, text)


if __name__ == "__main__":
    main()
