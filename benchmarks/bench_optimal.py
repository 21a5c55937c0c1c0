"""Minimum-move solver timings, written to the ``## Minimum-move solver`` section of RESULTS.md.

    python benchmarks/bench_optimal.py [--seeds 0:1000] [--rules standard msc]
                                       [--batch 0:1000] [--per-seed FILE] [--no-write]

After a warm-up that loads or compiles every kernel (compilation excluded), ``solve_optimal`` runs
on the seeds START..STOP-1 one deal at a time on one core (one reused workspace), timed with
``time.perf_counter`` around the call (which includes the winnability search it runs in turns
with A*). Per preset: the time of every deal (median, p95, p99, max) against the issue 15
targets, the winnable deals' time, positions expanded and solution length, the lost deals'
time, the memory of the A* arrays of the slowest deal (``OptimalWorkspace.nbytes`` after its
search: they grow with the positions stored) and the process's peak resident memory
(``ru_maxrss``). ``--per-seed`` writes one line per deal (preset, seed, outcome, moves,
positions, seconds, A* array bytes) for finding the slow ones.

``--batch START:STOP`` also times the whole command ``pyramid batch --seeds START:STOP --optimal
-q`` (all cores) as a subprocess, per preset: the optimal batch rate.

Targets (issue 15), seeds 0..9,999: ``standard`` max <= 2 s and p99 <= 0.5 s, the optimal batch
at >= 50 deals/s on 2 cores; ``msc`` max <= 0.5 s and p99 <= 0.2 s; memory per stored position
<= 33 bytes (``BYTES_PER_POSITION``, the layout of ``solver/pyramid/optimal/api.py``).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_batch import run_cli  # noqa: E402
from benchmarks.common import machine, now_utc, write_section  # noqa: E402
from solver.pyramid.model.deals import deal_from_seed  # noqa: E402
from solver.pyramid.optimal.api import (  # noqa: E402
    BYTES_PER_POSITION,
    DEFAULT_MAX_POSITIONS,
    OptimalWorkspace,
    solve_optimal,
)  # noqa: E402
from solver.pyramid.model.rules import PRESETS  # noqa: E402
from solver.pyramid.model.outcome import Outcome  # noqa: E402

TITLE = "## Minimum-move solver"
TARGETS = {"standard": {"p99": 0.5, "max": 2.0}, "msc": {"p99": 0.2, "max": 0.5}}
"""Seconds per deal over every deal of the seeds (issue 15)."""
BATCH_TARGET = {"standard": 50.0}
"""Deals per second of ``pyramid batch --optimal`` on the machine's cores (issue 15)."""


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def seed_range(text: str) -> range:
    """``START:STOP`` as a range (``argparse`` type)."""
    try:
        a, b = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected START:STOP, not {text!r}") from None
    if not 0 <= a < b:
        raise argparse.ArgumentTypeError(f"expected 0 <= START < STOP, not {text!r}")
    return range(a, b)


def run(preset: str, seeds: range, verbose: bool, per_seed) -> dict:
    rules = PRESETS[preset]
    ws = OptimalWorkspace.create()
    solve_optimal(deal_from_seed(1), rules, workspace=ws)  # warm-up: load/compile every kernel
    all_t, won_t, won_states, won_moves, lost_t, unknown = [], [], [], [], [], []
    worst = (0.0, -1, 0)
    for seed in seeds:
        deal = deal_from_seed(seed)
        t0 = time.perf_counter()
        r = solve_optimal(deal, rules, workspace=ws)
        dt = time.perf_counter() - t0
        held = ws.nbytes()
        all_t.append(dt)
        if r.outcome == Outcome.WON:
            won_t.append(dt)
            won_states.append(r.states)
            won_moves.append(len(r.solution))
        elif r.outcome == Outcome.LOST:
            lost_t.append(dt)
        else:
            unknown.append(seed)
        worst = max(worst, (dt, seed, held))
        line = f"{preset} {seed} {r.outcome.name} {r.moves} {r.states} {dt:.4f} {held}"
        if per_seed is not None:
            print(line, file=per_seed, flush=True)
        if verbose:
            print(line, file=sys.stderr, flush=True)
    return {"preset": preset, "seeds": seeds, "all_t": np.array(all_t), "won_t": np.array(won_t),
            "won_states": np.array(won_states), "won_moves": np.array(won_moves),
            "lost_t": np.array(lost_t), "unknown": unknown, "worst": worst,
            "rss": peak_rss_mb()}


def batch_rate(preset: str, seeds: range) -> tuple[float, float]:
    """``pyramid batch --optimal`` over ``seeds`` (all cores): (wall seconds, deals/s)."""
    with tempfile.TemporaryDirectory() as tmp:
        run_cli(["batch", "--seeds", "0:20", "--rules", preset, "--optimal", "-q", "-o",
                 f"{tmp}/warm.csv"])
        wall, _, _ = run_cli(["batch", "--seeds", f"{seeds.start}:{seeds.stop}", "--rules", preset,
                              "--optimal", "-q", "-o", f"{tmp}/out.csv"])
    return wall, len(seeds) / wall


def _stats(a: np.ndarray, scale: float = 1.0, fmt: str = "{:.1f}") -> str:
    if len(a) == 0:
        return "-"
    return " / ".join(fmt.format(x * scale) for x in
                      (np.median(a), np.percentile(a, 95), np.percentile(a, 99), a.max()))


def report(results: list[dict], batches: dict, command: str) -> str:
    lines = [TITLE, "",
             f"Command: `{command}` ({now_utc()}). Machine: {machine()}.", "",
             ("One core, one deal at a time after a warm-up; time per call of `solve_optimal` "
              "(winnability search and A* in turns). Figures are median / p95 / p99 / max."), "",
             ("| rules | seeds | winnable | ms per deal (all) | ms per winnable deal | "
              "positions expanded (winnable) | solution moves | ms per lost deal | unknown | "
              "peak RSS |"),
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        s = r["seeds"]
        lines.append(
            f"| {r['preset']} | {s.start}..{s.stop - 1} | {len(r['won_t'])} | "
            f"{_stats(r['all_t'], 1e3)} | {_stats(r['won_t'], 1e3)} | "
            f"{_stats(r['won_states'], 1, '{:,.0f}')} | {_stats(r['won_moves'], 1, '{:.0f}')} | "
            f"{_stats(r['lost_t'], 1e3)} | {len(r['unknown'])} | {r['rss']:.0f} MB |")
    lines += ["", "Targets (issue 15, every deal of seeds 0..9,999):", ""]
    for r in results:
        t = r["all_t"]
        got = {"p99": np.percentile(t, 99), "max": t.max()}
        for k, lim in TARGETS.get(r["preset"], {}).items():
            verdict = "met" if got[k] <= lim else "NOT met"
            lines.append(f"- {r['preset']} {k} {got[k]:.3f} s (target <= {lim} s): {verdict}")
        dt, seed, held = r["worst"]
        lines.append(f"- {r['preset']} slowest deal: seed {seed}, {dt:.2f} s; its A* arrays "
                     f"{held / 2**20:.0f} MB")
        if r["preset"] in batches:
            wall, rate = batches[r["preset"]]
            lim = BATCH_TARGET.get(r["preset"])
            verdict = "" if lim is None else \
                f" (target >= {lim:.0f}): {'met' if rate >= lim else 'NOT met'}"
            lines.append(f"- {r['preset']} `pyramid batch --optimal` over {round(wall * rate)} "
                         f"seeds, all cores: {wall:.1f} s wall, {rate:.1f} deals/s{verdict}")
    lines += ["", (f"Memory: about {BYTES_PER_POSITION} bytes per stored position (see "
              f"`solver/pyramid/optimal/api.py`); default cap {DEFAULT_MAX_POSITIONS:,} stored "
              f"positions (about {DEFAULT_MAX_POSITIONS * BYTES_PER_POSITION / 1e9:.1f} GB). Peak "
              f"RSS is the benchmark process's high-water mark so far (it runs the presets in "
              f"turn).")]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=seed_range, default=range(1000), metavar="START:STOP")
    ap.add_argument("--rules", nargs="+", default=["standard", "msc"], choices=sorted(PRESETS))
    ap.add_argument("--batch", type=seed_range, default=None, metavar="START:STOP",
                    help="also time `pyramid batch --optimal` over these seeds (all cores)")
    ap.add_argument("--per-seed", type=argparse.FileType("w"), default=None, metavar="FILE",
                    help="one line per deal: preset seed outcome moves positions seconds bytes")
    ap.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    ap.add_argument("--verbose", action="store_true", help="one line per deal on stderr")
    args = ap.parse_args()
    results = [run(p, args.seeds, args.verbose, args.per_seed) for p in args.rules]
    batches = {p: batch_rate(p, args.batch) for p in args.rules} if args.batch else {}
    command = "python benchmarks/bench_optimal.py " + " ".join(sys.argv[1:])
    text = report(results, batches, command.strip())
    print(text)
    if not args.no_write:
        write_section(TITLE, text)


if __name__ == "__main__":
    main()
