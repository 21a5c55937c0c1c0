"""Black Maria / Hearts random-play throughput on one core, written to the
``## Black Maria / Hearts`` section of benchmarks/RESULTS.md.

    python benchmarks/bench_hearts.py [--games 50000] [--deals 300000] [--repeats 5]
                                      [--openspiel-python PATH] [--openspiel-deals 20000]

After a warm-up that compiles every kernel (compilation excluded) it measures, for both presets:

* the deal kernel alone (shuffle, deal, pass, all tricks, scoring; 4 players, nothing recorded),
* whole simulations of games to 100 through the shared runner with ``jobs=1`` (every deal
  recorded, as ``pyramid simulate black-maria|hearts -j 1`` runs them), for 3 to 6 players.

Optional comparison with OpenSpiel's C++ ``hearts``: if ``pyspiel`` imports in this interpreter,
or ``--openspiel-python`` (or the ``OPENSPIEL_PYTHON`` environment variable) names an interpreter
where it does, random four-player deals are played there with ``pyspiel.evaluate_bots`` and C++
uniform random bots (one Python call per deal), with ``qs_breaks_hearts=False`` so both engines
play the Hearts of docs/hearts.md; the mean points per seat and the moon rate of both are compared.

Target (issue 6): at least 100,000 random deals per second per core for both presets with four
players (OpenSpiel's C++ Hearts: about 23,000 on one core of a similar machine).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, timed, write_section  # noqa: E402

from solver.games.hearts.game import HeartsRules, play_games  # noqa: E402
from solver.games.hearts.kernels import new_trace, play_deal  # noqa: E402
from solver.core.rng import new_state  # noqa: E402
from solver.core.stats import fmt_mean, fmt_p, mean_ci, wilson  # noqa: E402

RESULTS = Path(__file__).with_name("RESULTS.md")
HEADING = "## Black Maria / Hearts"
TARGET = 100_000
OPENSPIEL_REFERENCE = 23_000

_OPENSPIEL_SCRIPT = r"""
import json, sys, time
import pyspiel
deals = int(sys.argv[1])
game = pyspiel.load_game("hearts", {"qs_breaks_hearts": False})
bots = [pyspiel.make_uniform_random_bot(i, 1000 + i) for i in range(4)]
for k in range(200):
    pyspiel.evaluate_bots(game.new_initial_state(), bots, k)
t = time.perf_counter()
returns = [pyspiel.evaluate_bots(game.new_initial_state(), bots, 10_000 + k) for k in range(deals)]
dt = time.perf_counter() - t
print(json.dumps({"seconds": dt, "returns": returns,
                  "version": getattr(pyspiel, "__version__", "")}))
"""


@njit(cache=True)
def _deals_only(seed, n_deals, rules):
    """``n_deals`` deals from one stream, the dealer moving left each deal; returns the sum of all
    points and the number of moons, so nothing is optimised away and the invariant can be held."""
    state = new_state(seed)
    n = rules.n
    trace = new_trace(n, len(rules.deck))
    work, hands, dealt, passed = trace.work, trace.hands, trace.dealt, trace.passed
    plays, leaders, winners, taken, dp = (trace.plays, trace.leaders, trace.winners, trace.taken,
                                          trace.deal_points)
    total = 0
    moons = 0
    for d in range(n_deals):
        shooter = play_deal(state, rules, d % n, d, work, hands, dealt, passed, plays, leaders,
                            winners, taken, dp)
        for s in range(n):
            total += dp[s]
        moons += shooter >= 0
    return total, moons


def openspiel_python(arg: str | None) -> str | None:
    """The interpreter to run OpenSpiel in, or None if none is available."""
    candidates = [arg, os.environ.get("OPENSPIEL_PYTHON"), sys.executable]
    for py in candidates:
        if py and subprocess.run([py, "-c", "import pyspiel"], capture_output=True).returncode == 0:
            return py
    return None


def openspiel_comparison(py: str, deals: int, ours: dict) -> list[str]:
    out = subprocess.run([py, "-c", _OPENSPIEL_SCRIPT, str(deals)], capture_output=True,
                         text=True, check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    ret = np.array(res["returns"], dtype=np.int64)
    pts = 26 - ret                       # OpenSpiel's return is 26 minus the points taken
    moon = ret.sum(axis=1) == 26          # a moon: the shooter returns 26, the others 0
    rate = deals / res["seconds"]
    lines = ["", "### OpenSpiel comparison (optional)", "",
             f"OpenSpiel {res['version'] or '(version unknown)'} `hearts` with "
             "`qs_breaks_hearts=False`, in `" + py + "`: " + f"{deals:,} random four-player deals "
             "through `pyspiel.evaluate_bots` (C++ game and C++ uniform random bots, one Python "
             f"call per deal): **{rate:,.0f} deals/s** on one core, against "
             f"**{ours['rate']:,.0f} deals/s** for this engine's Hearts deal kernel "
             f"({ours['rate'] / rate:.1f} x). This engine's column comes from all deals of 20,000 "
             "games (about 230,000 deals). OpenSpiel draws the pass direction at random each "
             "deal, this engine rotates it; the per-deal figures below average over both.", "",
             "| per deal, 4 players | OpenSpiel | this engine |", "| --- | --- | --- |"]
    for s in range(4):
        lines.append(f"| seat {s} points | {fmt_mean(mean_ci(pts[:, s]))} | "
                     f"{fmt_mean(ours['seat'][s])} |")
    lines.append(f"| moon rate | {fmt_p(wilson(int(moon.sum()), deals), 5)} | "
                 f"{fmt_p(ours['moon'], 5)} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=50_000, help="games per simulation run")
    ap.add_argument("--deals", type=int, default=300_000, help="deals per kernel-only run")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--openspiel-python", help="interpreter where pyspiel imports")
    ap.add_argument("--openspiel-deals", type=int, default=20_000)
    args = ap.parse_args()

    presets = ("black-maria", "hearts")
    for game in presets:                                  # warm-up: compile every kernel
        for p in range(3, 7):
            play_games(HeartsRules(game, p), 50, 1)
        _deals_only(1, 10, HeartsRules(game, 4).kernel_args())

    rows = []
    kernel_rate = {}
    sim_rate = {}
    for game in presets:
        rules = HeartsRules(game, 4)
        secs, (total, moons) = timed(lambda: _deals_only(7, args.deals, rules.kernel_args()),
                                      args.repeats)
        expected = (args.deals - moons) * rules.deal_total() + \
            (moons * rules.deal_total(moon=True) if moons else 0)
        if total != expected:
            raise SystemExit(f"{game}: the deal kernel broke the invariant ({total} != {expected})")
        kernel_rate[game] = args.deals / np.median(secs)
        rows.append((rules.preset.title, "deal kernel only", 4, args.deals, "-", secs))
        for p in (4, 3, 5, 6):
            r = HeartsRules(game, p)
            secs, rec = timed(lambda: play_games(r, args.games, 7, jobs=1), args.repeats)
            deals = len(rec["shooter"])
            rows.append((rules.preset.title, "simulate, jobs=1", p, deals, args.games, secs))
            if p == 4:
                sim_rate[game] = deals / np.median(secs)

    stamp = f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC"
    cmd = (f"python benchmarks/bench_hearts.py --games {args.games} --deals {args.deals} "
           f"--repeats {args.repeats}")
    lines = [HEADING, "", f"`{cmd}`, {stamp}, one core (jobs=1), kernels compiled beforehand.",
             "", f"Machine: {machine()}.", "",
             "| game | what | players | deals | games | median s | p95 s | max s |"
             " deals/s (median) | games/s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for title, what, p, deals, games, secs in rows:
        med = np.median(secs)
        gps = "-" if games == "-" else f"{games / med:,.0f}"
        gtxt = "-" if games == "-" else f"{games:,}"
        lines.append(f"| {title} | {what} | {p} | {deals:,} | {gtxt} | {med:.3f} | "
                     f"{np.percentile(secs, 95):.3f} | {secs.max():.3f} | {deals / med:,.0f} | "
                     f"{gps} |")
    worst = min(min(kernel_rate.values()), min(sim_rate.values()))
    verdict = "Met" if worst >= TARGET else "Not met"
    lines += ["", f"Target: at least {TARGET:,} random four-player deals per second per core for "
              f"both presets (OpenSpiel's C++ Hearts: about {OPENSPIEL_REFERENCE:,}). {verdict}: "
              + "; ".join(f"{g} {kernel_rate[g]:,.0f} deals/s for the deal kernel, "
                          f"{sim_rate[g]:,.0f} deals/s through the full simulation"
                          for g in presets) + "."]

    py = openspiel_python(args.openspiel_python)
    if py is None:
        lines += ["", "OpenSpiel comparison: skipped (`pyspiel` does not import here; pass "
                  "`--openspiel-python PATH` to an interpreter where `open_spiel` is installed)."]
    else:
        rules = HeartsRules("hearts", 4)
        rec = play_games(rules, 20_000, 7, jobs=1)     # about 230,000 deals: a tight interval
        ours = {"rate": kernel_rate["hearts"],
                "seat": [mean_ci(rec["deal_points"][:, s]) for s in range(4)],
                "moon": wilson(int((rec["shooter"] >= 0).sum()), len(rec["shooter"]))}
        lines += openspiel_comparison(py, args.openspiel_deals, ours)
    text = "\n".join(lines) + "\n"
    write_section(HEADING, text)
    print(text)


if __name__ == "__main__":
    main()
