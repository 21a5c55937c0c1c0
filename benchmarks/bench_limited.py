"""Limited-recycles winnability, one row per rule combination (issue 15, item 1).

    python benchmarks/bench_limited.py [--deals 200] [--issue-deals 1000] [--repeats 1]
                                       [--only NAME] [--write | --no-write]

For every limited-recycles combination (recycles 0/1/2 x overlap on/off x stock top on/off x goal
pyramid/all) the deals of seeds 0..deals-1 are decided one kernel call at a time on one core, in
one process with one reused workspace, after a warm-up that loads or compiles the kernels. Then
the issue's two headline rows on more seeds: ``--recycles 0 --stock-top`` on seeds
0..issue-deals-1 and ``--rules msc`` on twice as many.

Each row gives deals per CPU-second of this process (``time.process_time``, so other processes
on a shared machine weigh less than on the wall clock; the load is reported with the figures),
the win rate, and the mean, p99 and max positions. With ``--repeats N`` each row is run N times
and its fastest run kept (the searches are the same every time; on a shared machine whose speed
drifts by a third from minute to minute, the fastest run is the least disturbed one). To compare
before and after, run the script
of each tree back to back (it imports the solver of the tree it lives in).

Targets (issue 15): ``--recycles 0 --stock-top`` >= 2,000 deals/s per core, ``--rules msc`` >=
5,000.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, now_utc, write_section  # noqa: E402
from solver.pyramid.model.deals import deals_from_seeds  # noqa: E402
from solver.pyramid.winnable.dfs import decide_flat  # noqa: E402
from solver.pyramid.model.rules import PRESETS, Rules  # noqa: E402
from solver.pyramid.winnable.solve import START, Workspace  # noqa: E402
from solver.pyramid.model.outcome import Outcome  # noqa: E402

TITLE = "## Limited-recycles winnability"
TARGETS = {"rec0-top-pyramid (issue)": 2_000, "msc (issue)": 5_000}
"""Deals per second per core the issue asks for, by row name."""


def combination_name(rules: Rules) -> str:
    return (f"rec{rules.recycles}-{'ov' if rules.overlap else 'noov'}-"
            f"{'top' if rules.stock_top else 'hidden'}-{rules.goal}")


COMBINATIONS = [Rules(recycles=r, overlap=o, stock_top=s, goal=g)
                for r, o, s, g in itertools.product((0, 1, 2), (True, False), (True, False),
                                                    ("pyramid", "all"))]
"""The 24 limited-recycles rule combinations."""


def measure(rules: Rules, seeds, repeats: int = 1) -> dict:
    """CPU seconds (the fastest of ``repeats`` runs), outcomes and positions of one kernel call
    per deal."""
    best = None
    for _ in range(repeats):
        m = measure_once(rules, seeds)
        if best is not None:
            assert (m["states"] == best["states"]).all(), "a search changed between runs"
        if best is None or m["seconds"] < best["seconds"]:
            best = m
    return best


def measure_once(rules: Rules, seeds) -> dict:
    """CPU seconds, outcomes and positions of one kernel call per deal."""
    ws = Workspace.create(rules)
    path = np.zeros(len(ws.counts), dtype=np.int64)
    rule = rules.args
    deals = deals_from_seeds(np.asarray(seeds))
    decide_flat(deals[0], START, *rule, 1, *ws.args(), path)  # warm-up: load the kernel
    states = np.empty(len(deals), dtype=np.int64)
    outcome = np.empty(len(deals), dtype=np.int8)
    t0 = time.process_time()
    for k in range(len(deals)):
        o, _, e = decide_flat(deals[k], START, *rule, 0, *ws.args(), path)  # the flat entry
        states[k], outcome[k] = e, o
    return {"seconds": time.process_time() - t0, "states": states, "outcome": outcome}


def row(name: str, rules: Rules, m: dict) -> str:
    n = len(m["states"])
    st = m["states"]
    return (f"| {name} | {rules.describe()} | {n:,} | {(m['outcome'] == Outcome.WON).mean():.3f} | "
            f"{n / max(m['seconds'], 1e-9):,.0f} | {st.mean():,.0f} | "
            f"{int(np.percentile(st, 99)):,} | {st.max():,} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200, help="seeds per combination row")
    ap.add_argument("--issue-deals", type=int, default=1000,
                    help="seeds of the --recycles 0 --stock-top row (msc: twice as many)")
    ap.add_argument("--repeats", type=int, default=1,
                    help="runs per row, the fastest kept (the machine's speed drifts)")
    ap.add_argument("--only", default=None, help="run only the rows whose name contains this")
    ap.add_argument("--write", action="store_true", help="write the section into RESULTS.md")
    ap.add_argument("--no-write", dest="write", action="store_false",
                    help="only print the section (the default)")
    args = ap.parse_args()

    jobs = [(combination_name(r), r, range(args.deals)) for r in COMBINATIONS]
    jobs += [("rec0-top-pyramid (issue)", Rules(recycles=0, stock_top=True),
              range(args.issue_deals)),
             ("msc (issue)", PRESETS["msc"], range(2 * args.issue_deals))]
    rows = []
    for name, rules, seeds in jobs:
        if args.only and args.only not in name:
            continue
        line = row(name, rules, measure(rules, seeds, args.repeats))
        rows.append(line)
        print(line, flush=True)
    cmd = (f"python benchmarks/bench_limited.py --deals {args.deals} --issue-deals "
           f"{args.issue_deals} --repeats {args.repeats}"
           + (f" --only {args.only}" if args.only else ""))
    text = f"""{TITLE}

`{cmd}`, {now_utc()}, kernels loaded beforehand, one process.

Machine: {machine()}.

Deals per CPU-second of the benchmark process (`time.process_time`), one kernel call per deal,
the fastest of {args.repeats} run(s) per row.
Targets: {", ".join(f"{k} >= {v:,} deals/s" for k, v in TARGETS.items())}.

| row | rules | deals | win rate | deals/s | mean positions | p99 positions | max positions |
| --- | --- | --- | --- | --- | --- | --- | --- |
""" + "\n".join(rows) + "\n"
    if args.write:
        write_section(TITLE, text)
    print(text)


if __name__ == "__main__":
    main()
