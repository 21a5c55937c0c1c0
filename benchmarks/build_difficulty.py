"""Rebuild data/difficulty.json, the random-play win-rate table of ``pyramid analyse``'s
difficulty rank (layout and meaning: ``solver/pyramid/analysis/difficulty.py``).

    python benchmarks/build_difficulty.py [--jobs 2] [--last-seed 99999] [--out data/difficulty.json]

For each preset (``standard``, ``msc``): decide every deal of seeds 0..last-seed
(``winnable_many``, no state limit, so none is left unknown), then play ``PLAYOUTS_PER_DEAL``
random playouts (seed ``TABLE_SEED``) from each winnable deal, and store the histogram of wins.
The seeds are cut into chunks run on ``--jobs`` processes by the shared runner.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import now_utc  # noqa: E402
from solver.core.runner import run_tasks  # noqa: E402
from solver.pyramid.model.deals import deals_from_seeds  # noqa: E402
from solver.pyramid.analysis.difficulty import (PLAYOUTS_PER_DEAL, TABLE_PATH, TABLE_SEED,
                                                TABLE_SEEDS)  # noqa: E402
from solver.pyramid.analysis.playouts import PLAYERS, playout_wins_many  # noqa: E402
from solver.pyramid.model.rules import PRESETS  # noqa: E402
from solver.pyramid.winnable.solve import Workspace, winnable_many  # noqa: E402
from solver.pyramid.model.outcome import Outcome  # noqa: E402

CHUNK = 2_000
"""Seeds per task."""
PERCENTILES = np.linspace(0, 100, 101)

_workspaces: dict[str, Workspace] = {}


def chunk_wins(preset: str, lo: int, hi: int) -> tuple[str, int, int, np.ndarray]:
    """For seeds ``lo .. hi - 1`` under ``preset``: (preset, deals, undecided, wins of the random
    player on each winnable deal)."""
    rules = PRESETS[preset]
    ws = _workspaces.setdefault(preset, Workspace.create(rules))
    deals = deals_from_seeds(np.arange(lo, hi))
    outcome, _ = winnable_many(deals, rules, workspace=ws)
    won = outcome == Outcome.WON
    undecided = int((outcome == Outcome.UNKNOWN).sum())
    wins = playout_wins_many(deals[won], rules, PLAYOUTS_PER_DEAL, TABLE_SEED, greedy=False).random
    return preset, hi - lo, undecided, wins


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--last-seed", type=int, default=TABLE_SEEDS[1])
    ap.add_argument("--out", type=Path, default=TABLE_PATH)
    args = ap.parse_args()

    t0 = time.perf_counter()
    tasks = [(p, lo, min(args.last_seed + 1, lo + CHUNK)) for p in PRESETS
             for lo in range(TABLE_SEEDS[0], args.last_seed + 1, CHUNK)]
    parts: dict[str, list] = {p: [] for p in PRESETS}
    counts = {p: [0, 0] for p in PRESETS}
    for preset, deals, undecided, wins in run_tasks(chunk_wins, tasks, args.jobs, ordered=True):
        parts[preset].append(wins)
        counts[preset][0] += deals
        counts[preset][1] += undecided
        print(f"{preset}: {counts[preset][0]:,} deals", file=sys.stderr, end="\r")
    tables = []
    for preset, rules in PRESETS.items():
        if counts[preset][1]:
            raise SystemExit(f"{preset}: {counts[preset][1]} deals undecided")
        wins = np.concatenate(parts[preset])
        rates = wins / PLAYOUTS_PER_DEAL
        tables.append({
            "preset": preset, "rules": rules.to_dict(), "deals": counts[preset][0],
            "winnable": int(wins.size), "mean_rate": float(rates.mean()),
            "percentiles": [round(float(x), 6) for x in np.percentile(rates, PERCENTILES)],
            "wins_histogram": np.bincount(wins, minlength=PLAYOUTS_PER_DEAL + 1).tolist(),
        })
    seconds = time.perf_counter() - t0
    data = {
        "about": "Random-play win rates of the winnable deals, for pyramid analyse's difficulty "
                 "rank; see solver/pyramid/analysis/difficulty.py",
        "built": now_utc(),
        "command": f"python benchmarks/build_difficulty.py --jobs {args.jobs} "
                   f"--last-seed {args.last_seed}",
        "seconds": round(seconds, 1),
        "seeds": {"first": TABLE_SEEDS[0], "last": args.last_seed},
        "player": PLAYERS[0], "playouts": PLAYOUTS_PER_DEAL, "seed": TABLE_SEED,
        "tables": tables,
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"\nwrote {args.out} in {seconds:.1f} s: "
          + ", ".join(f"{t['preset']} {t['winnable']:,} winnable of {t['deals']:,}, mean rate "
                      f"{t['mean_rate']:.4f}" for t in tables), file=sys.stderr)


if __name__ == "__main__":
    main()
