"""Old Maid throughput: complete random-play games per second on one core (jobs=1).

Run: ``python benchmarks/bench_oldmaid.py`` (``--games N`` per measurement, ``--repeats R``).
The kernels are compiled and warmed up first; each figure is the median of R timed runs of the
chunk function the simulator uses (deal, pair discards and the whole game loop; the records
included). Writes its section ``## Old Maid`` of benchmarks/RESULTS.md, other sections kept.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, write_section  # noqa: E402

from solver.games.oldmaid.engine import find_rules  # noqa: E402
from solver.games.oldmaid.sim import run_chunk, simulate_records  # noqa: E402

RESULTS = Path(__file__).with_name("RESULTS.md")
SECTION = "## Old Maid"
TARGET = 200_000
"""Issue 5: at least 200,000 complete 3-player games per second per core."""
CASES = [(3, ()), (2, ()), (4, ()), (3, ("colour",)), (3, ("joker",)), (3, ("jack",)),
         (3, ("colour", "joker"))]


def rate(players: int, variants, games: int, repeats: int, seed: int = 1) -> tuple[float, float]:
    params = {"players": players, "variants": list(variants)}
    run_chunk(seed, 0, 1000, params)  # warm-up: compile or load the cached kernels
    times = []
    for r in range(repeats):
        t = time.perf_counter()
        rec = run_chunk(seed + r, 0, games, params)
        times.append(time.perf_counter() - t)
    med = statistics.median(times)
    return games / med, float(rec["draws"].mean())


def runner_rate(games: int, jobs: int) -> float:
    simulate_records(1, 2000, 3, jobs=jobs)  # warm-up, pool start included below
    t = time.perf_counter()
    simulate_records(2, games, 3, jobs=jobs)
    return games / (time.perf_counter() - t)



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000, help="games per timed run")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs per case (median)")
    ap.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md")
    args = ap.parse_args()

    rows = []
    for players, variants in CASES:
        r, mean_draws = rate(players, variants, args.games, args.repeats)
        name = find_rules(variants).name
        rows.append((players, name, r, mean_draws))
        print(f"{players} players {name:<13} {r:>12,.0f} games/s  (mean {mean_draws:.1f} draws)",
              flush=True)
    jobs2 = runner_rate(2 * args.games, 2)
    jobs1 = runner_rate(args.games, 1)
    print(f"whole runner, 3 players: jobs=1 {jobs1:,.0f} games/s, jobs=2 {jobs2:,.0f} games/s")

    three = rows[0][2]
    verdict = "met" if three >= TARGET else "NOT met"
    lines = [SECTION, "",
             f"Complete random-play games per second on one core (jobs=1), median of "
             f"{args.repeats} runs of {args.games:,} games after warm-up (deal, pair discards, "
             "game loop, records).", "",
             "| players | rules | games/s (1 core) | mean draws/game |",
             "| ---: | --- | ---: | ---: |"]
    lines += [f"| {p} | {n} | {r:,.0f} | {d:.1f} |" for p, n, r, d in rows]
    lines += ["",
              f"Target (issue 5): {TARGET:,} complete 3-player games/s per core: **{verdict}** "
              f"({three:,.0f} games/s, {three / TARGET:.1f}x).", "",
              f"Whole simulator (`simulate_records`, process pool included), 3 players: jobs=1 "
              f"{jobs1:,.0f} games/s; jobs=2 {jobs2:,.0f} games/s.", "",
              f"Command: `python benchmarks/bench_oldmaid.py --games {args.games} "
              f"--repeats {args.repeats}`", "",
              f"Machine: {machine()}. Other work was running at the same time when the load "
              "average is above ~1; the figures are then low.", ""]
    text = "\n".join(lines) + "\n"
    if args.no_write:
        print(text)
    else:
        write_section(SECTION, text)
        print(f"wrote {SECTION} to {RESULTS}")


if __name__ == "__main__":
    main()
