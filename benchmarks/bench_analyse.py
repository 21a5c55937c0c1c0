"""Deal analysis timings, written to the ``## Deal analysis`` section of RESULTS.md.

    python benchmarks/bench_analyse.py [--deals 200] [--rules standard msc] [--cli 5] [--no-write]

``pyramid analyse --seed N`` (without ``--all-rules``) is ``analyse_deal`` after the start-up
(importing, loading the kernels from the numba cache). After a warm-up that loads every kernel,
``analyse_deal`` runs on seeds 0..deals-1 one deal at a time on one core with the command's
defaults (10,000 playouts per player, one process), timed with ``time.perf_counter`` around the
call: median, p95 and max over all deals, and separately over the won and the lost ones. Then
``--cli`` runs of the real command (``python -m cli analyse --seed N -q``) give the wall time
including start-up, and the start-up alone (``pyramid analyse --help`` does not load the
engines, so the start-up is taken as a run's wall time less the analysis time it reports).

Target (issue 14): median <= 0.5 s wall after start-up.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, now_utc, write_section  # noqa: E402
from solver.pyramid.analysis.deal import analyse_deal  # noqa: E402
from solver.pyramid.model.deals import deal_from_seed  # noqa: E402
from solver.pyramid.optimal.api import OptimalWorkspace, load_kernels  # noqa: E402
from solver.pyramid.model.rules import PRESETS  # noqa: E402
from solver.pyramid.model.outcome import Outcome  # noqa: E402

TITLE = "## Deal analysis"
TARGET_MEDIAN = 0.5
ROOT = Path(__file__).resolve().parents[1]


def run(preset: str, deals: int, verbose: bool) -> dict:
    rules = PRESETS[preset]
    load_kernels()
    ws = OptimalWorkspace.create()
    analyse_deal(deal_from_seed(1), rules, workspace=ws, playouts=100)  # warm-up
    analyse_deal(deal_from_seed(7), rules, workspace=ws, playouts=100)
    times = {"won": [], "lost": [], "unknown": []}
    worst = (0.0, -1)
    for seed in range(deals):
        t0 = time.perf_counter()
        a = analyse_deal(deal_from_seed(seed), rules, workspace=ws)
        dt = time.perf_counter() - t0
        times[{Outcome.WON: "won", Outcome.LOST: "lost"}.get(a.verdict.outcome, "unknown")].append(dt)
        worst = max(worst, (dt, seed))
        if verbose:
            print(f"{preset} {seed} {a.verdict.outcome.name} {dt:.3f}", file=sys.stderr,
                  flush=True)
    return {"preset": preset, "deals": deals, "times": {k: np.array(v) for k, v in times.items()},
            "worst": worst}


def cli_runs(seeds: list[int]) -> list[float]:
    """Wall seconds of ``python -m cli analyse --seed N -q`` (start-up included)."""
    out = []
    for seed in seeds:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "cli", "analyse", "--seed", str(seed), "-q"],
                       cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
        out.append(time.perf_counter() - t0)
    return out


def fmt(a: np.ndarray) -> str:
    if len(a) == 0:
        return "-"
    return " / ".join(f"{x * 1e3:.0f}" for x in (np.median(a), np.percentile(a, 95), a.max()))


def report(results: list[dict], walls: list[float], command: str) -> str:
    lines = [TITLE, "",
             f"Command: `{command}` ({now_utc()}). Machine: {machine()}.", "",
             "One core, one deal at a time after a warm-up; time per call of `analyse_deal` "
             "(what `pyramid analyse --seed N` does after start-up: the minimum-move search; "
             "for a lost deal the reason and the best partial result; for a won deal the "
             "choices at each step of the line and 10,000 playouts per player). "
             "Figures in ms: median / p95 / max.", "",
             "| rules | deals | all deals | won | lost | slowest |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in results:
        t = r["times"]
        every = np.concatenate([t["won"], t["lost"], t["unknown"]])
        lines.append(f"| {r['preset']} | {r['deals']} | {fmt(every)} | {fmt(t['won'])} "
                     f"({len(t['won'])}) | {fmt(t['lost'])} ({len(t['lost'])}) | seed "
                     f"{r['worst'][1]}, {r['worst'][0]:.2f} s |")
    lines += ["", "Target (issue 14): median <= 0.5 s after start-up."]
    for r in results:
        t = r["times"]
        med = float(np.median(np.concatenate([t["won"], t["lost"], t["unknown"]])))
        lines.append(f"- {r['preset']}: median {med * 1e3:.0f} ms: "
                     f"{'met' if med <= TARGET_MEDIAN else 'NOT met'}")
    if walls:
        lines += ["", f"The whole command (`python -m cli analyse --seed N -q`, warm numba "
                      f"cache, start-up included), seeds 0..{len(walls) - 1}: median "
                      f"{np.median(walls):.2f} s, max {max(walls):.2f} s."]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--rules", nargs="+", default=["standard", "msc"], choices=sorted(PRESETS))
    ap.add_argument("--cli", type=int, default=5, help="whole-command runs (0 = none)")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    results = [run(p, args.deals, args.verbose) for p in args.rules]
    walls = cli_runs(list(range(args.cli)))
    text = report(results, walls, "python benchmarks/bench_analyse.py " + " ".join(sys.argv[1:]))
    print(text)
    if not args.no_write:
        write_section(TITLE, text)


if __name__ == "__main__":
    main()
