"""Duizenden random-play throughput on one core; writes the ``## Duizenden`` section of RESULTS.md.

Measures (after compiling every kernel): the round kernel alone (rounds back to back on one
stream), the full simulation (``solver.games.duizenden.game.simulate`` with jobs=1, games to 1000, every round
recorded) for 2, 4 and 6 players, and two parts of a round timed alone: the shuffle and deal,
and one enumeration of every meld of a random hand (the work the meld step repeats at every
decision). The kernels keep no counters for the benchmark: it measures by timing only.

Run: ``python benchmarks/bench_duizenden.py [--games N] [--rounds N] [--repeats N]``.
"""

from __future__ import annotations

import argparse

import numpy as np
from numba import njit

from solver.games.duizenden.game import simulate
from solver.games.duizenden.melds import CTX_LEN, CTX_OPENED, CTX_POOL, SPEC_LEN, hand_melds
from solver.games.duizenden.play import RoundRules, deal_round, play_round_kernel
from solver.games.duizenden.table import LOG_ROWS, SC_TURNS, new_work
from solver.core.rng import new_state, shuffle

from common import machine, now_utc, timed, write_section  # benchmarks/common.py, beside this script

SECTION = "## Duizenden"
TARGET = 3_000
"""Rounds per second per core with 2 players: ten times OpenSpiel's C++ gin rummy (about 320)."""
ENUM_HAND = 8
"""Cards of the random hands whose meld enumeration is timed: about the mean pool the meld step
enumerated in a 2-player round (7.7 cards, counted by the kernel until issue 13)."""


@njit(cache=True)
def _rounds_only(seed, n_rounds, rules, work):
    """``n_rounds`` rounds on one stream, the starter moving left; returns the turns played."""
    rng = new_state(seed)
    turns = 0
    for r in range(n_rounds):
        play_round_kernel(rng, rules, r % rules.players, work)
        turns += work.sc[SC_TURNS]
    return turns


@njit(cache=True)
def _deals_only(seed, n_rounds, n_players, work):
    """Only the shuffle and deal of ``n_rounds`` rounds."""
    rng = new_state(seed)
    total = 0
    for _ in range(n_rounds):
        total += deal_round(rng, n_players, work)
    return total


@njit(cache=True)
def _random_hands(seed, n_hands, size):
    """Kind counts (53 a row) of ``n_hands`` random ``size``-card hands of the 108 cards."""
    rng = new_state(seed)
    deck = np.arange(108)
    hands = np.zeros((n_hands, 53), dtype=np.int64)
    for h in range(n_hands):
        shuffle(rng, deck)
        for i in range(size):
            b = deck[i] % 54
            hands[h, 52 if b >= 52 else b] += 1
    return hands


@njit(cache=True)
def _enumerations(hands, size):
    """One count-mode meld enumeration of each hand (an opened player); returns the melds."""
    ctx = np.zeros(CTX_LEN, dtype=np.int64)
    spec = np.zeros(SPEC_LEN, dtype=np.int64)
    ctx[CTX_POOL] = size
    ctx[CTX_OPENED] = 1
    total = 0
    for h in range(hands.shape[0]):
        total += hand_melds(hands[h], -1, ctx, -1, spec)
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3_000, help="games per simulation run")
    ap.add_argument("--rounds", type=int, default=20_000, help="rounds per kernel-only run")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    work = new_work(LOG_ROWS)
    _rounds_only(1, 10, RoundRules(2, 0, 50), work)  # warm-up: compile everything first
    _deals_only(1, 10, 2, work)
    _enumerations(_random_hands(1, 10, 14), 14)
    for p in (2, 4, 6):
        simulate(1, 20, p, jobs=1)

    rows = []
    t, turns = timed(lambda: _rounds_only(7, args.rounds, RoundRules(2, 0, 50), work),
                                          args.repeats)
    kernel_rate = args.rounds / np.median(t)
    rows.append(("round kernel only", 2, args.rounds, "-", t, kernel_rate))
    sim_rate2 = 0.0
    for p in (2, 4, 6):
        t, res = timed(lambda: simulate(7, args.games, p, jobs=1), args.repeats)
        rate = res["rounds"] / np.median(t)
        rows.append(("simulate, jobs=1", p, res["rounds"], args.games, t, rate))
        if p == 2:
            sim_rate2 = rate
    # Two parts of a round timed alone: the deal, and one meld enumeration of a random hand.
    round_us = 1e6 / kernel_rate
    t_deal, _ = timed(lambda: _deals_only(7, args.rounds, 2, work), args.repeats)
    deal_us = np.median(t_deal) / args.rounds * 1e6
    size = ENUM_HAND
    hands = 100_000
    sample = _random_hands(3, hands, size)
    t_enum, _ = timed(lambda: _enumerations(sample, size), args.repeats)
    enum_us = np.median(t_enum) / hands * 1e6

    lines = [SECTION, "",
             f"`python benchmarks/bench_duizenden.py --games {args.games} --rounds {args.rounds} "
             f"--repeats {args.repeats}`, {now_utc()}, one core (jobs=1), kernels compiled "
             "beforehand.", "",
             f"Machine: {machine()}.", "",
             "| what | players | rounds | games | median s | p95 s | max s | rounds/s (median) |"
             " games/s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for what, p, rounds, games, t, rate in rows:
        gps = "-" if games == "-" else f"{games / np.median(t):,.0f}"
        lines.append(f"| {what} | {p} | {rounds:,} | {games if games == '-' else f'{games:,}'} | "
                     f"{np.median(t):.3f} | {np.percentile(t, 95):.3f} | {t.max():.3f} | "
                     f"{rate:,.0f} | {gps} |")
    verdict = "Met" if min(kernel_rate, sim_rate2) >= TARGET else "Not met"
    lines += [
        "", f"Target: at least {TARGET:,} random rounds per second per core with 2 players (ten "
        f"times OpenSpiel's C++ gin rummy, about 320 random hands per second). {verdict}: "
        f"{sim_rate2:,.0f} rounds/s through the full simulation, {kernel_rate:,.0f} rounds/s for "
        f"the round kernel alone ({turns / args.rounds:.1f} turns a round, "
        f"{turns / args.rounds * kernel_rate:,.0f} turns/s).",
        "",
        f"What limits it: the meld step. Random play needs the exact number of legal actions at "
        f"every decision, so each meld-step decision enumerates every meld of the hand (all run "
        f"windows of the four suits with every joker placement, every multiset of each rank's "
        f"naturals with 0..4 jokers) plus every lay-off and exchange, and enumerates again to "
        f"find the chosen action. A 2-player round takes {round_us:.0f} us; one enumeration of "
        f"a random {size}-card hand takes {enum_us:.2f} us alone (a round makes dozens: 92 over "
        f"7.7 cards on average when the kernel still counted them, about three quarters of a "
        f"round; pools vary, a hand that took the pot holds 20 or 30 cards, and the cost of an "
        f"enumeration grows faster than the pool). The shuffle and "
        f"deal take {deal_us:.1f} us ({deal_us / round_us:.0%}); the rest is the lay-off and "
        f"exchange enumerations, the draw and discard steps and the bookkeeping.", ""]
    text = "\n".join(lines) + "\n"
    write_section(SECTION, text)
    print(text)


if __name__ == "__main__":
    main()
