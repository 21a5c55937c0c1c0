"""Where a deal's time goes in ``pyramid batch --seeds`` (winnability, default rules), one core.

    python benchmarks/profile_batch.py [--deals 50000] [--rounds 5]

Each stage of a chunk's path is timed on its own over seeds 0..deals-1 (best of ``rounds``,
kernels loaded first) and given in microseconds per deal: dealing (``deals_from_seeds``),
per-deal tables (``deal_tables_into``), the search (the whole-chunk kernel minus the tables),
of which the subgame proofs (``subgame_lost``, on the deals that reach ``PROOF_AFTER``
positions) and the rest per position, result transfer from a worker (pickling the
``ChunkResult``), the CSV rows (``csv_bytes``), the part file (``write_part`` minus the rows:
open, write, fsync, rename, and its SHA-256), the chunk's summary, joining the parts into the
output (``assemble``), and the checks of the join (each part's SHA-256 against its record, and
the joined file read back and its ids checked against the input: ``solver.batch.verify``). ``bench_batch.py`` prints the same table into its RESULTS.md section.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from solver.batch.io import assemble, csv_bytes, csv_header, write_part  # noqa: E402
from solver.batch.summary import NS_PER_MS, Summary  # noqa: E402
from solver.batch.verify import csv_output_problem, planned_chunk, sha256  # noqa: E402
from solver.batch.work import ChunkResult, workspace_for  # noqa: E402
from solver.pyramid.winnable.chunk import chunk_buffers, decide_deal_chunk  # noqa: E402
from solver.pyramid.model.deals import deals_from_seeds, format_deal  # noqa: E402
from solver.pyramid.winnable.free_search import PROOF_AFTER  # noqa: E402
from solver.pyramid.winnable.subgame import subgame_lost  # noqa: E402
from solver.pyramid.model.rules import Rules  # noqa: E402
from solver.pyramid.model.state import START, deal_tables_into  # noqa: E402

PART_ROWS = 10_000
"""Rows per part file when timing the writing (a batch chunk's size)."""


@njit(cache=True)
def table_all(deals, buf):
    """Table every deal into ``buf`` (``ChunkBuffers``); a checksum so nothing is optimised away."""
    x = 0
    for k in range(deals.shape[0]):
        tabs = deal_tables_into(deals[k], buf.val, buf.vmask, buf.pmates, buf.reach, buf.sval)
        x += tabs.val[0]
    return x


@njit(cache=True)
def prove_all(deals, which, rule, buf):
    """``subgame_lost`` of the start of ``deals[which]``; how many were proven lost."""
    lost = 0
    for k in which:
        tabs = deal_tables_into(deals[k], buf.val, buf.vmask, buf.pmates, buf.reach, buf.sval)
        lost += subgame_lost(START, tabs, rule, buf.sub)
    return lost


def best_seconds(fn, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def breakdown(n: int, rounds: int = 5) -> tuple[list[tuple[str, float]], dict]:
    """``[(stage, us per deal)]`` for seeds 0..n-1 and a few counts (mean positions, proofs)."""
    rules = Rules()
    ws = workspace_for(rules)
    args = rules.args
    seeds = np.arange(n, dtype=np.int64)
    deals = deals_from_seeds(seeds)
    buf = chunk_buffers(len(ws.counts))
    outcome = np.empty(n, np.int8)
    states = np.empty(n, np.int64)
    ns = np.empty(n, np.int64)
    table_all(deals[:10], buf)
    decide_deal_chunk(deals[:10], args, 0, ws.args(), outcome[:10], states[:10], ns[:10])
    us = 1e6 / n
    dealing = best_seconds(lambda: deals_from_seeds(seeds), rounds) * us
    tables = best_seconds(lambda: table_all(deals, buf), rounds) * us
    search = best_seconds(lambda: decide_deal_chunk(deals, args, 0, ws.args(), outcome, states,
                                                    ns), rounds) * us - tables
    which = np.nonzero(states >= PROOF_AFTER)[0]
    prove_all(deals, which[:10], args, buf)
    proofs = best_seconds(lambda: prove_all(deals, which, args, buf), rounds) * us - \
        tables * len(which) / n
    r = ChunkResult(0, seeds, deals.astype(np.int8), outcome, np.full(n, -1, np.int16), states,
                    ns, np.zeros(n, np.int8))
    transfer = best_seconds(lambda: pickle.loads(pickle.dumps(r)), rounds) * us
    rows = best_seconds(lambda: csv_bytes(r), rounds) * us

    def summary():
        s = Summary("seed")
        s.add(r.ids, lambda i: format_deal(r.deals[i]), r.outcome, r.moves, r.states,
              r.ns / NS_PER_MS, r.reason, r.analysis)

    summary_us = best_seconds(summary, rounds) * us
    with tempfile.TemporaryDirectory() as tmp:
        parts = [os.path.join(tmp, f"part-{k}.csv") for k in range((n + PART_ROWS - 1)
                                                                  // PART_ROWS)]
        shas = {}
        planned = [planned_chunk(k, r.ids[k * PART_ROWS:(k + 1) * PART_ROWS])
                   for k in range(len(parts))]

        def write_parts():
            for k, p in enumerate(parts):
                sl = slice(k * PART_ROWS, (k + 1) * PART_ROWS)
                shas[p] = write_part(p, ChunkResult(k, *(a[sl] for a in (
                    r.ids, r.deals, r.outcome, r.moves, r.states, r.ns, r.reason))), "csv", "seed")

        part_files = best_seconds(write_parts, rounds) * us - rows
        out = os.path.join(tmp, "out.csv")

        def part_bytes(checked: bool):
            for p in parts:
                with open(p, "rb") as f:
                    data = f.read()
                if checked and sha256(data) != shas[p]:
                    raise RuntimeError(f"{p} changed")
                yield data

        def check_output(path):
            if csv_output_problem(path, csv_header("seed"), planned) is not None:
                raise RuntimeError("the joined file is not the plan")

        join = best_seconds(lambda: assemble(out, part_bytes(False), "csv", "seed"), rounds) * us
        checked = best_seconds(lambda: assemble(out, part_bytes(True), "csv", "seed",
                                                check=check_output), rounds) * us
    stages = [
        ("dealing (deals_from_seeds)", dealing),
        ("per-deal tables (deal_tables_into)", tables),
        ("search, of which:", search),
        (f"  subgame proofs ({len(which) / n:.1%} of deals reach {PROOF_AFTER} positions)",
         proofs),
        (f"  positions ({states.mean():.1f} a deal, "
         f"{(search - proofs) / states.mean() * 1000:.0f} ns each)", search - proofs),
        ("result transfer from a worker (pickle)", transfer),
        ("CSV rows (csv_bytes)", rows),
        ("part file (write, fsync, rename)", part_files),
        ("chunk summary (Summary.add)", summary_us),
        ("joining the parts (assemble)", join),
        ("checking parts and output (part SHA-256, joined ids read back)", checked - join),
    ]
    counts = {"positions": float(states.mean()), "proof_share": len(which) / n}
    return stages, counts


def table_lines(stages) -> list[str]:
    total = sum(v for name, v in stages if not name.startswith("  "))
    lines = ["| stage | us per deal | share |", "| --- | ---: | ---: |"]
    for name, v in stages:
        lines.append(f"| {name} | {v:.2f} | {v / total:.0%} |")
    lines.append(f"| total (one core) | {total:.2f} | {1e6 / total:,.0f} deals/s |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=50_000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    stages, _ = breakdown(a.deals, a.rounds)
    print(f"seeds 0..{a.deals - 1}, default rules, best of {a.rounds}; load average "
          f"{os.getloadavg()[0]:.2f}")
    print("\n".join(table_lines(stages)))


if __name__ == "__main__":
    main()
