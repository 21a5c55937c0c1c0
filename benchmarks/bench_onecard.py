"""One Card random-play throughput on one core, written to the ``## One Card`` section of
benchmarks/RESULTS.md.

    python benchmarks/bench_onecard.py [--games 100000] [--repeats 5]

Measures, after a warm-up that compiles every kernel (compilation excluded):

* the round kernel alone (deal, auction, tricks, scoring; 4 players, no records kept), and
* whole simulations through the shared runner with ``jobs=1`` (games to 30 with every round
  recorded, as ``pyramid simulate one-card -j 1`` runs them), for 2, 3 and 4 players.

Target (issue 7): at least 150,000 random rounds per second per core with 4 players (OpenSpiel's
C++ euchre plays about 77,000 random deals per second on one core of a similar machine).
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, timed, write_section  # noqa: E402

from solver.games.onecard.engine import OneCardRules, Table  # noqa: E402
from solver.games.onecard.sim import new_round_buffers, play_round_kernel, simulate_records  # noqa: E402
from solver.core.rng import new_state  # noqa: E402

RESULTS = Path(__file__).with_name("RESULTS.md")
SECTION = "## One Card"
TARGET = 150_000


@njit(cache=True)
def _rounds_only(seed, n_rounds, n, deck, joker):
    """``n_rounds`` rounds from one stream, the dealer moving left each round; returns the sum
    of the captured points (27 a round) so nothing is optimised away."""
    state = new_state(seed)
    table = Table(n, deck, joker)
    rb = new_round_buffers()
    buf, hands, dealt, cap, pts, scored = rb.buf, rb.hands, rb.dealt, rb.cap, rb.pts, rb.scored
    res, bid_log, trick_log = rb.res, rb.bid_log, rb.trick_log
    total = 0
    dealer = 0
    for _ in range(n_rounds):
        play_round_kernel(state, table, dealer, buf, hands, dealt, cap, pts, scored, res, bid_log,
                          trick_log)
        for s in range(n):
            total += pts[s]
        dealer = (dealer + 1) % n
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000, help="games per simulation run")
    ap.add_argument("--rounds", type=int, default=500_000, help="rounds per kernel-only run")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()

    rules = OneCardRules(4)
    _rounds_only(1, 100, 4, rules.deck(), rules.joker_card)          # warm-up (compile)
    for p in (2, 3, 4):
        simulate_records(1, 200, p, jobs=1)

    rows = []
    t, total = timed(lambda: _rounds_only(7, args.rounds, 4, rules.deck(), rules.joker_card),
                     args.repeats)
    if total != 27 * args.rounds:
        raise SystemExit(f"round kernel lost points: {total} != {27 * args.rounds}")
    rate = args.rounds / np.median(t)
    rows.append(("round kernel only", 4, args.rounds, "-", t, rate))
    kernel_rate = rate
    sim_rate4 = 0.0
    for p in (4, 3, 2):
        t, rec = timed(lambda: simulate_records(7, args.games, p, jobs=1), args.repeats)
        rounds = int(rec["rounds"].sum())
        rate = rounds / np.median(t)
        rows.append(("simulate, jobs=1", p, rounds, args.games, t, rate))
        if p == 4:
            sim_rate4 = rate

    lines = [SECTION, "",
             f"`python benchmarks/bench_onecard.py --games {args.games} --rounds {args.rounds} "
             f"--repeats {args.repeats}`, {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} "
             "UTC, one core (jobs=1), kernels compiled beforehand.", "",
             f"Machine: {machine()}.", "",
             "| what | players | rounds | games | median s | p95 s | max s | rounds/s (median) |"
             " games/s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for what, p, rounds, games, t, rate in rows:
        gps = "-" if games == "-" else f"{games / np.median(t):,.0f}"
        lines.append(f"| {what} | {p} | {rounds:,} | {games if games == '-' else f'{games:,}'} | "
                     f"{np.median(t):.3f} | {np.percentile(t, 95):.3f} | {t.max():.3f} | "
                     f"{rate:,.0f} | {gps} |")
    verdict = "Met" if min(kernel_rate, sim_rate4) >= TARGET else "Not met"
    lines += ["", f"Target: at least {TARGET:,} random rounds per second per core with 4 players "
              f"(OpenSpiel's C++ euchre: about 77,000 random deals per second). {verdict}: "
              f"{sim_rate4:,.0f} rounds/s through the full simulation (every round recorded), "
              f"{kernel_rate:,.0f} rounds/s for the round kernel alone.", ""]
    text = "\n".join(lines) + "\n"
    write_section(SECTION, text)
    print(text)


if __name__ == "__main__":
    main()
