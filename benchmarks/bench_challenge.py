"""Score and card challenge timings (issue 32).

    python benchmarks/bench_challenge.py [--seeds 0:2000] [--rules msc] [--rank A]
        [--challenges score cards] [--per-seed FILE] [--write] [--verbose]

After a warm-up that loads or compiles every kernel (compilation excluded), each deal of the
seeds gets one ``score_challenge`` call (no target) and one ``card_challenge`` call (the rank,
four cards), on one core with one reused workspace, timed with ``time.perf_counter`` around
the call. Per challenge: median, p95, p99 and max milliseconds and positions expanded, the
outcomes, and the slowest deals; for the score, how many deals give the full 1,290 points and
the median best score. ``--per-seed FILE`` writes one line per deal (seed, challenge, value,
moves, states, ms), to compare two versions deal by deal. The figures go to the
``## Score and card challenges`` section of RESULTS.md only with ``--write``.

Targets (issue 32), ``msc``, seeds 0..1,999, per deal after start-up: median <= 50 ms,
p99 <= 1 s, max <= 5 s, for the score challenge and for the card challenge of the aces.
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
from solver.pyramid.challenge.api import card_challenge, score_challenge  # noqa: E402
from solver.pyramid.challenge.search import load_kernels  # noqa: E402
from solver.pyramid.model.deals import Deal  # noqa: E402
from solver.pyramid.model.rules import PRESETS  # noqa: E402
from solver.core.cards import parse_rank  # noqa: E402
from solver.pyramid.model.scoring import SCORING  # noqa: E402

TITLE = "## Score and card challenges"
TARGETS = {"median": 0.050, "p99": 1.0, "max": 5.0}
"""Seconds per deal (issue 32), for each challenge."""
WARM_SEEDS = (1, 3)
"""Deals solved once before timing: every kernel loaded (or compiled) by then."""


def seed_range(text: str) -> range:
    """``"A:B"`` -> ``range(A, B)``; ``"N"`` -> ``range(N)``."""
    if ":" in text:
        first, last = text.split(":")
        return range(int(first), int(last))
    return range(int(text))


def ask(challenge: str, deal: Deal, preset: str, rank: int):
    if challenge == "score":
        return score_challenge(deal, preset)
    return card_challenge(deal, rank, preset)


def run(challenge: str, preset: str, seeds: range, rank: int, verbose: bool, per_seed) -> dict:
    load_kernels()
    for seed in WARM_SEEDS:
        ask(challenge, Deal.from_seed(seed), preset, rank)
    times, states, values, outcomes, slow = [], [], [], Counter(), []
    for seed in seeds:
        deal = Deal.from_seed(seed)
        t0 = time.perf_counter()
        r = ask(challenge, deal, preset, rank)
        dt = time.perf_counter() - t0
        times.append(dt)
        states.append(r.states)
        values.append(r.best.value)
        outcomes[r.outcome] += 1
        slow.append((dt, seed))
        line = f"{seed} {challenge} {r.best.value} {r.best.moves} {r.states} {dt * 1e3:.2f}"
        if per_seed is not None:
            print(line, file=per_seed, flush=True)
        if verbose:
            print(f"{preset} {line} ms", file=sys.stderr, flush=True)
    return {"challenge": challenge, "preset": preset, "seeds": seeds, "t": np.array(times),
            "states": np.array(states), "values": np.array(values), "outcomes": outcomes,
            "slowest": sorted(slow)[-3:][::-1]}


def _q(a: np.ndarray, scale: float, fmt: str) -> str:
    return " / ".join(fmt.format(x * scale) for x in
                      (np.median(a), np.percentile(a, 95), np.percentile(a, 99), a.max()))


def report(results: list[dict], command: str, rank: int) -> str:
    lines = [TITLE, "", f"Command: `{command}` ({now_utc()}). Machine: {machine()}.", "",
             ("One core, one deal at a time after a warm-up; time per call (the score without a "
              f"target; the cards of rank {rank}, all four). Figures are median / p95 / p99 / "
              "max."), "",
             "| challenge | rules | seeds | ms per deal | positions expanded | outcomes |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in results:
        seeds = r["seeds"]
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(r["outcomes"].items()))
        lines.append(f"| {r['challenge']} | {r['preset']} | {seeds.start}..{seeds.stop - 1} | "
                     f"{_q(r['t'], 1e3, '{:.1f}')} | {_q(r['states'], 1, '{:,.0f}')} | "
                     f"{outcomes} |")
    lines += [""]
    for r in results:
        if r["challenge"] == "score":
            v = r["values"]
            lines.append(f"- {r['preset']} score: {int((v == SCORING.max_score).sum())} of "
                         f"{len(v)} deals give the full {SCORING.max_score:,} points; median "
                         f"best score {np.median(v):.0f}")
    lines += ["", "Targets (issue 32): median <= 50 ms, p99 <= 1 s, max <= 5 s per deal.", ""]
    for r in results:
        lines += time_target_lines(f"{r['challenge']} {r['preset']}", r["t"], TARGETS,
                                   r["slowest"])
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=seed_range, default=range(2000), help="N or A:B")
    ap.add_argument("--rules", nargs="+", default=["msc"], choices=sorted(PRESETS))
    ap.add_argument("--rank", default="A", help="the card challenge's rank (A, 2..10, J, Q, K)")
    ap.add_argument("--challenges", nargs="+", default=["score", "cards"],
                    choices=["score", "cards"])
    ap.add_argument("--per-seed", type=argparse.FileType("w"), default=None,
                    help="write one line per deal to this file")
    ap.add_argument("--write", action="store_true", help="write the section of RESULTS.md")
    ap.add_argument("--verbose", action="store_true", help="one line per deal on stderr")
    args = ap.parse_args()
    rank = parse_rank(args.rank)
    results = [run(c, p, args.seeds, rank, args.verbose, args.per_seed)
               for p in args.rules for c in args.challenges]
    command = "python benchmarks/bench_challenge.py " + " ".join(sys.argv[1:])
    text = report(results, command.strip(), rank)
    print(text)
    if args.write:
        write_section(TITLE, text)


if __name__ == "__main__":
    main()
