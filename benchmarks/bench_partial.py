"""Best partial result timings of lost deals (issue 14).

    python benchmarks/bench_partial.py [--seeds 10000] [--rules standard msc] [--no-write] [--verbose]

After a warm-up that loads or compiles every kernel (compilation excluded), the lost deals among
seeds 0..seeds-1 (found by ``winnable_many``) each get one ``best_partial`` call on one core
(one reused workspace), timed with ``time.perf_counter`` around the call. Per preset: median,
p95, p99 and max milliseconds and positions expanded, deals not exact, and the histogram of the
best count. The figures go to the ``## Best partial result`` section of RESULTS.md.

Targets (issue 14), lost deals among seeds 0..9,999, default rules and ``msc``: median <= 20 ms,
p99 <= 1 s per deal.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, now_utc, time_target_lines, write_section  # noqa: E402
from solver.pyramid.model.deals import deal_from_seed, deals_from_seeds  # noqa: E402
from solver.pyramid.analysis.partial import best_partial  # noqa: E402
from solver.pyramid.model.rules import PRESETS  # noqa: E402
from solver.pyramid.winnable.solve import winnable_many  # noqa: E402
from solver.pyramid.model.outcome import Outcome  # noqa: E402

TITLE = "## Best partial result"
TARGETS = {"median": 0.020, "p99": 1.0}
"""Seconds per lost deal (issue 14), for both presets."""


def lost_seeds(preset: str, seeds: int) -> np.ndarray:
    outcome, _ = winnable_many(deals_from_seeds(np.arange(seeds)), PRESETS[preset])
    return np.flatnonzero(outcome == Outcome.LOST)


def run(preset: str, seeds: int, verbose: bool) -> dict:
    rules = PRESETS[preset]
    best_partial(deal_from_seed(0), rules)  # warm-up: load/compile every kernel
    best_partial(deal_from_seed(1), rules)
    times, states, best, slow = [], [], Counter(), []
    inexact = []
    for seed in lost_seeds(preset, seeds):
        t0 = time.perf_counter()
        r = best_partial(deal_from_seed(int(seed)), rules)
        dt = time.perf_counter() - t0
        times.append(dt)
        states.append(r.states)
        best[r.best] += 1
        slow.append((dt, int(seed)))
        if not r.exact:
            inexact.append(int(seed))
        if verbose:
            print(f"{preset} {seed} best {r.best} moves {len(r.line)} states {r.states} "
                  f"{dt * 1e3:.1f} ms", file=sys.stderr, flush=True)
    return {"preset": preset, "seeds": seeds, "t": np.array(times), "states": np.array(states),
            "best": best, "slowest": sorted(slow)[-3:][::-1], "inexact": inexact}


def _q(a: np.ndarray, scale: float, fmt: str) -> str:
    return " / ".join(fmt.format(x * scale) for x in
                      (np.median(a), np.percentile(a, 95), np.percentile(a, 99), a.max()))


def report(results: list[dict], command: str) -> str:
    lines = [TITLE, "", f"Command: `{command}` ({now_utc()}). Machine: {machine()}.", "",
             ("One core, one lost deal at a time after a warm-up; time per `best_partial` call. "
              "Figures are median / p95 / p99 / max."), "",
             "| rules | seeds | lost deals | ms per deal | positions expanded | not exact |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in results:
        lines.append(f"| {r['preset']} | 0..{r['seeds'] - 1} | {len(r['t'])} | "
                     f"{_q(r['t'], 1e3, '{:.1f}')} | {_q(r['states'], 1, '{:,.0f}')} | "
                     f"{len(r['inexact'])} |")
    lines += ["", "Pyramid cards removed at best (lost deals: count of deals):", ""]
    for r in results:
        hist = ", ".join(f"{k}: {v}" for k, v in sorted(r["best"].items()))
        lines.append(f"- {r['preset']}: {hist}")
    lines += ["", "Targets (issue 14): median <= 20 ms, p99 <= 1 s per lost deal.", ""]
    for r in results:
        lines += time_target_lines(r["preset"], r["t"], TARGETS, r["slowest"])
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10_000)
    ap.add_argument("--rules", nargs="+", default=["standard", "msc"], choices=sorted(PRESETS))
    ap.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    ap.add_argument("--verbose", action="store_true", help="one line per deal on stderr")
    args = ap.parse_args()
    results = [run(p, args.seeds, args.verbose) for p in args.rules]
    command = "python benchmarks/bench_partial.py " + " ".join(sys.argv[1:])
    text = report(results, command.strip())
    print(text)
    if not args.no_write:
        write_section(TITLE, text)


if __name__ == "__main__":
    main()
