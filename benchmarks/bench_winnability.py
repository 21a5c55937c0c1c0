"""Pyramid winnability throughput, written to the ``## Pyramid winnability`` section of RESULTS.md.

    python benchmarks/bench_winnability.py [--deals 200000] [--sample 20000] [--jobs 2] [--no-write]

After a warm-up that loads or compiles every kernel (compilation excluded):

* throughput: ``winnable_many`` over seeds 0..deals-1 under the default rules on one core
  (one process, one reused workspace), and over both cores (``--jobs`` processes, each taking
  every other chunk);
* per deal: seeds 0..sample-1 one call at a time, timed with ``time.perf_counter`` around the
  kernel call (so each figure includes a few microseconds of Python call overhead): median, p99
  and max milliseconds, and positions explored;
* the same per-deal figures for the other presets and rule options on seeds 0..999.

Target (issue 2): at least 20,000 deals per second per core under the default rules.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, now_utc, write_section  # noqa: E402
from solver.pyramid.model.deals import deals_from_seeds  # noqa: E402
from solver.pyramid.winnable.dfs import decide_flat  # noqa: E402
from solver.pyramid.model.rules import PRESETS, Rules  # noqa: E402
from solver.pyramid.winnable.solve import START, Workspace, winnable_many  # noqa: E402
from solver.pyramid.model.outcome import Outcome  # noqa: E402

TITLE = "## Pyramid winnability"
TARGET = 20_000
CHUNK = 10_000


def _worker(args):
    lo, hi, rules = args
    ws = Workspace.create(rules)
    won = 0
    for start in range(lo, hi, CHUNK):
        o, _ = winnable_many(deals_from_seeds(np.arange(start, min(hi, start + CHUNK))), rules,
                             workspace=ws)
        won += int((o == Outcome.WON).sum())
    return won


def throughput(n: int, rules: Rules, jobs: int) -> tuple[float, int]:
    """Seconds for seeds 0..n-1 (deal generation included) and the number won."""
    spans = [(lo, min(n, lo + CHUNK), rules) for lo in range(0, n, CHUNK)]
    t0 = time.perf_counter()
    if jobs == 1:
        won = sum(_worker(s) for s in spans)
    else:
        with mp.get_context("fork").Pool(jobs) as pool:
            won = sum(pool.map(_worker, spans, chunksize=1))
    return time.perf_counter() - t0, won


def per_deal(seeds, rules: Rules):
    """Per-deal seconds and states, one kernel call each."""
    ws = Workspace.create(rules)
    path = np.zeros(len(ws.counts), dtype=np.int64)
    rule = rules.args
    deals = deals_from_seeds(seeds)
    secs = np.empty(len(seeds))
    states = np.empty(len(seeds), dtype=np.int64)
    outcome = np.empty(len(seeds), dtype=np.int8)
    for k in range(len(seeds)):
        t0 = time.perf_counter()
        o, _, e = decide_flat(deals[k], START, *rule, 0, *ws.args(), path)  # the flat entry
        secs[k] = time.perf_counter() - t0
        states[k], outcome[k] = e, o
    return secs, states, outcome


def row(name: str, rules: Rules, secs, states, outcome) -> str:
    ms = secs * 1000
    return (f"| {name} | {rules.describe()} | {len(secs):,} | {(outcome == Outcome.WON).mean():.3f} | "
            f"{len(secs) / secs.sum():,.0f} | {np.median(ms):.3f} | {np.percentile(ms, 99):.3f} | "
            f"{ms.max():.1f} | {int(np.median(states)):,} | {int(np.percentile(states, 99)):,} | "
            f"{states.max():,} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--sample", type=int, default=20_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    args = ap.parse_args()

    std = PRESETS["standard"]
    variants = [("msc", PRESETS["msc"]), ("0 recycles", Rules(recycles=0)),
                ("2 recycles", Rules(recycles=2)), ("no overlap", Rules(overlap=False)),
                ("stock top", Rules(stock_top=True)), ("goal all", Rules(goal="all"))]
    for _, r in [("standard", std)] + variants:  # warm-up: load or compile the kernels
        winnable_many(deals_from_seeds(np.arange(3)), r)
        per_deal(np.arange(2), r)

    one_s, won = throughput(args.deals, std, 1)
    many_s, won2 = throughput(args.deals, std, args.jobs)
    assert won == won2
    rate1 = args.deals / one_s
    rows = [row("standard", std, *per_deal(np.arange(args.sample), std))]
    for name, r in variants:
        rows.append(row(name, r, *per_deal(np.arange(1000), r)))

    cmd = (f"python benchmarks/bench_winnability.py --deals {args.deals} --sample {args.sample} "
           f"--jobs {args.jobs}")
    text = f"""{TITLE}

`{cmd}`, {now_utc()}, kernels compiled beforehand.

Machine: {machine()}.

Throughput under the default rules (seeds 0..{args.deals - 1:,}, deal generation included):

| processes | seconds | deals/s | deals/s per core | win rate |
| --- | --- | --- | --- | --- |
| 1 | {one_s:.2f} | {rate1:,.0f} | {rate1:,.0f} | {won / args.deals:.4f} |
| {args.jobs} | {many_s:.2f} | {args.deals / many_s:,.0f} | {args.deals / many_s / args.jobs:,.0f} | {won2 / args.deals:.4f} |

Target: at least {TARGET:,} deals per second per core. {"Met" if rate1 >= TARGET else "NOT met"}: {rate1:,.0f} deals/s on one core; a million deals take about {1e6 / (args.deals / many_s):.0f} s on {args.jobs} cores.

Per deal, one kernel call at a time (times include ~2-5 us of Python call overhead each):

| sample | rules | deals | win rate | deals/s | median ms | p99 ms | max ms | median states | p99 states | max states |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
""" + "\n".join(rows) + "\n"
    if not args.no_write:
        write_section(TITLE, text)
    print(text)


if __name__ == "__main__":
    main()
