"""Minimum-move solver timings, written to the ``## Minimum-move solver`` section of RESULTS.md.

    python benchmarks/bench_optimal.py [--deals 1000] [--rules standard msc] [--no-write]

After a warm-up that loads or compiles every kernel (compilation excluded), ``solve_optimal`` runs
on seeds 0..deals-1 one deal at a time on one core (one reused workspace), timed with
``time.perf_counter`` around the call (which includes the winnability search it runs first).
Per preset: the winnable deals' time, positions expanded and solution length (median, p95, max),
the lost deals' time, and the process's peak resident memory (``ru_maxrss``).

Targets (issue 3), winnable deals among seeds 0..999: ``standard`` median <= 50 ms, p95 <= 1 s,
max <= 10 s, peak memory <= 2 GB; ``msc`` median <= 20 ms.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, now_utc, write_section
from solver.pyramid.deals import deal_from_seed
from solver.pyramid.optimal.api import (
    BYTES_PER_POSITION,
    DEFAULT_MAX_POSITIONS,
    OptimalWorkspace,
    solve_optimal,
)
from solver.pyramid.rules import PRESETS
from solver.pyramid.winnable import Outcome

TITLE = "## Minimum-move solver"
TARGETS = {"standard": {"median": 0.050, "p95": 1.0, "max": 10.0}, "msc": {"median": 0.020}}


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(preset: str, deals: int, verbose: bool) -> dict:
    rules = PRESETS[preset]
    ws = OptimalWorkspace.create()
    solve_optimal(deal_from_seed(1), rules, workspace=ws)  # warm-up: load/compile every kernel
    won_t, won_states, won_moves, lost_t, unknown = [], [], [], [], []
    worst = (0.0, -1)
    for seed in range(deals):
        deal = deal_from_seed(seed)
        t0 = time.perf_counter()
        r = solve_optimal(deal, rules, workspace=ws)
        dt = time.perf_counter() - t0
        if r.outcome == Outcome.WON:
            won_t.append(dt)
            won_states.append(r.states)
            won_moves.append(len(r.solution))
            worst = max(worst, (dt, seed))
        elif r.outcome == Outcome.LOST:
            lost_t.append(dt)
        else:
            unknown.append(seed)
        if verbose:
            print(f"{preset} {seed} {r.outcome.name} {r.moves} {r.states} {dt:.3f}",
                  file=sys.stderr, flush=True)
    return {"preset": preset, "deals": deals, "won_t": np.array(won_t),
            "won_states": np.array(won_states), "won_moves": np.array(won_moves),
            "lost_t": np.array(lost_t), "unknown": unknown, "worst": worst,
            "rss": peak_rss_mb()}


def _stats(a: np.ndarray, scale: float = 1.0, fmt: str = "{:.1f}") -> str:
    if len(a) == 0:
        return "-"
    return " / ".join(fmt.format(x * scale) for x in
                      (np.median(a), np.percentile(a, 95), a.max()))


def report(results: list[dict], command: str) -> str:
    lines = [TITLE, "",
             f"Command: `{command}` ({now_utc()}). Machine: {machine()}.", "",
             ("One core, one deal at a time after a warm-up; time per call of `solve_optimal` "
             "(winnability search first, then A*). Figures are median / p95 / max over the "
             "winnable deals."), "",
             ("| rules | deals | winnable | ms per winnable deal | positions expanded | "
             "solution moves | ms per lost deal (median / max) | unknown | peak RSS |"),
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        lost = "-" if len(r["lost_t"]) == 0 else \
            f"{np.median(r['lost_t']) * 1e3:.1f} / {r['lost_t'].max() * 1e3:.1f}"
        lines.append(
            f"| {r['preset']} | {r['deals']} | {len(r['won_t'])} | {_stats(r['won_t'], 1e3)} | "
            f"{_stats(r['won_states'], 1, '{:,.0f}')} | {_stats(r['won_moves'], 1, '{:.0f}')} | "
            f"{lost} | {len(r['unknown'])} | {r['rss']:.0f} MB |")
    lines += ["", "Targets (issue 3, winnable deals among seeds 0..999):", ""]
    for r in results:
        target = TARGETS.get(r["preset"])
        if not target or len(r["won_t"]) == 0:
            continue
        t = r["won_t"]
        got = {"median": np.median(t), "p95": np.percentile(t, 95), "max": t.max()}
        for k, lim in target.items():
            verdict = "met" if got[k] <= lim else "NOT met"
            lines.append(f"- {r['preset']} {k} {got[k] * 1e3:.1f} ms (target <= {lim * 1e3:.0f} ms): "
                         f"{verdict}")
        if r["preset"] == "standard":
            verdict = "met" if r["rss"] <= 2048 else "NOT met"
            lines.append(f"- standard peak memory {r['rss']:.0f} MB (target <= 2048 MB): {verdict}")
        lines.append(f"- {r['preset']} slowest deal: seed {r['worst'][1]}, "
                     f"{r['worst'][0]:.2f} s")
    lines += ["", (f"Memory: about {BYTES_PER_POSITION} bytes per stored position (see "
              f"`solver/pyramid/optimal/api.py`); default cap {DEFAULT_MAX_POSITIONS:,} stored positions "
              f"(about {DEFAULT_MAX_POSITIONS * BYTES_PER_POSITION / 1e9:.1f} GB). Peak RSS is the "
              f"benchmark process's high-water mark so far (it runs the presets in turn).")]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--rules", nargs="+", default=["standard", "msc"], choices=sorted(PRESETS))
    ap.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    ap.add_argument("--verbose", action="store_true", help="one line per deal on stderr")
    args = ap.parse_args()
    results = [run(p, args.deals, args.verbose) for p in args.rules]
    command = "python benchmarks/bench_optimal.py " + " ".join(sys.argv[1:])
    text = report(results, command.strip())
    print(text)
    if not args.no_write:
        write_section(TITLE, text)


if __name__ == "__main__":
    main()
