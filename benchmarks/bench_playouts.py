"""Pyramid playout throughput, written to the ``## Pyramid playouts`` section of RESULTS.md.

    python benchmarks/bench_playouts.py [--deals 200] [--games 1000] [--repeats 3] [--no-write]

After a warm-up that loads or compiles the kernels (compilation excluded), on one core:

* per player and preset: ``playout_wins_many``'s kernel over seeds 0..deals-1, ``games``
  playouts per deal, one player at a time; playouts per second, best and median of ``repeats``
  runs, and the player's win rate over those playouts;
* one deal's analysis as ``pyramid analyse`` runs it: ``playout_rates`` (both players, 10,000
  playouts each, ``jobs=1``) on seeds 0..9, median seconds per deal.

Target (issue 14): at least 200,000 playouts per second per core.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, now_utc, timed, write_section  # noqa: E402
from solver.pyramid.model.deals import deal_from_seed, deals_from_seeds  # noqa: E402
from solver.pyramid.analysis.playout_kernels import PLAYER_COUNT, wins_many  # noqa: E402
from solver.pyramid.analysis.playouts import PLAYERS, playout_rates  # noqa: E402
from solver.pyramid.model.rules import PRESETS  # noqa: E402
from solver.pyramid.model.state import START  # noqa: E402

TITLE = "## Pyramid playouts"
TARGET = 200_000
ANALYSE_DEALS = 10


def player_run(deals: np.ndarray, rules, games: int, player: int) -> int:
    """Wins of ``player`` over ``games`` playouts of each deal (one kernel call)."""
    wins = np.zeros((len(deals), PLAYER_COUNT), dtype=np.int64)
    wins_many(deals, np.uint64(START), rules.args, np.uint64(0), games, player, player + 1,
              wins)
    return int(wins[:, player].sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    args = ap.parse_args()

    deals = deals_from_seeds(np.arange(args.deals))
    rows = []
    for name, rules in PRESETS.items():
        for code, player in enumerate(PLAYERS):
            player_run(deals[:2], rules, 10, code)  # warm-up
            secs, won = timed(lambda: player_run(deals, rules, args.games, code), args.repeats)
            total = args.deals * args.games
            rows.append(f"| {name} | {player} | {total:,} | {total / secs.min():,.0f} | "
                        f"{total / np.median(secs):,.0f} | {won / total:.4f} |")
    analyse = []
    for name, rules in PRESETS.items():
        playout_rates(deal_from_seed(0), rules, games=100)  # warm-up
        per = []
        for s in range(ANALYSE_DEALS):
            t0 = time.perf_counter()
            playout_rates(deal_from_seed(s), rules)
            per.append(time.perf_counter() - t0)
        analyse.append(f"| {name} | {np.median(per) * 1000:.0f} | {max(per) * 1000:.0f} |")

    cmd = (f"python benchmarks/bench_playouts.py --deals {args.deals} --games {args.games} "
           f"--repeats {args.repeats}")
    text = f"""{TITLE}

`{cmd}`, {now_utc()}, kernels compiled beforehand.

Machine: {machine()}.

One core, one player at a time, {args.games:,} playouts on each of seeds 0..{args.deals - 1}
(every deal, won or lost; the rules of the players are in solver/pyramid/analysis/playouts.py):

| preset | player | playouts | playouts/s (best) | playouts/s (median) | win rate |
| --- | --- | --- | --- | --- | --- |
{chr(10).join(rows)}

Target: at least {TARGET:,} playouts per second per core.

One deal's analysis (`playout_rates`, both players, 10,000 playouts each, one process), seeds
0..{ANALYSE_DEALS - 1}:

| preset | median ms | max ms |
| --- | --- | --- |
{chr(10).join(analyse)}
"""
    print(text)
    if not args.no_write:
        write_section(TITLE, text)


if __name__ == "__main__":
    main()
