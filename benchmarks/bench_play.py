"""``pyramid play`` timings (issue 33): the status after a move, a keypress while a long search
runs, and the start-up to the first frame.

    python benchmarks/bench_play.py [--seeds 0:1000] [--timeout 10] [--presses 20]
        [--starts 5] [--parts status keys startup] [--write] [--verbose]

Default rules (``standard``: unlimited recycles, overlap pairs, stock top hidden, goal pyramid),
kernels loaded by ``session.load_kernels`` before any timing (load and compile excluded).

1. **Status after a move.** Per deal of the seeds, a seeded line a player might play: at each
   position, with ``random.Random(seed)``, the hint move (the first move of the status's line:
   a shortest win, or the best partial line when lost) with probability 1/2, else a move drawn
   at random among the legal ones; the line ends when the deal is won or stuck, after
   ``MAX_MOVES`` moves, or on a recycle with no pair or king played since the previous one (the
   player only turns the stock over). After each move the app's worker calls
   ``assess(position)`` (app.py ``ask_solver``): that call is timed, on every position the line
   reaches. Before each move the app calls ``move_loses(position, step)`` on the event loop
   (``try_move``, the warning, on by default; with ``--no-warn`` the same call in ``play``):
   timed separately, since it runs before the move and holds the screen while it runs. The
   status of each deal's first position (asked on start-up, not after a move) is reported apart.
   ``--timeout`` is a safety limit passed to ``assess`` only (the app has none by default): a
   position that reaches it counts at the limit and is reported as censored.
2. **A keypress drawn while a long search runs.** ``PlayApp`` under Textual's pilot
   (``run_test``) on ``KEYS_SEED`` from its start, whose status (``assess`` from the deal's
   start) takes seconds; sessions repeat until ``--presses`` presses are made. While the worker runs, the pilot
   presses ``right`` (the cursor moves: the board redraws another card highlighted) every
   ``PRESS_GAP`` seconds. The app's ``post_display_hook`` (Textual calls it after every frame
   it composes and hands to the driver, also headless) stamps each frame; a press's latency is
   the time from just before ``pilot.press`` until the first frame after the cursor changed
   (``pilot.press`` itself returns only once the process is idle, which a running search never
   is, so its return is not the measure).
   Only presses made while the status was still "working…" count. The pilot runs in the app's
   event loop, so a GIL held by a numba kernel in the worker thread delays the press and the
   frame alike, and shows in the figure.
3. **Start-up to the first frame.** The real command ``python -m cli play --seed 1`` in a
   pseudo-terminal of 100x30 (``tests.play_pilot.PtyCommand``), the numba cache warm (one run
   before the timed ones): from just before the fork until the text ``moves played`` (the info
   line under the board) is in what the command wrote; then ``q`` quits it.

The figures go to the ``## pyramid play`` section of RESULTS.md only with ``--write``.
Targets (issue 33): status median <= 50 ms and p99 <= 0.5 s; a keypress drawn within 50 ms
while a long search runs; start-up to the first frame <= 1.5 s with the kernels cached.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_challenge import seed_range  # noqa: E402
from benchmarks.common import machine, now_utc, write_section  # noqa: E402
from solver.pyramid.model.deals import Deal  # noqa: E402
from solver.pyramid.model.replay import STEP_DRAW, STEP_RECYCLE  # noqa: E402
from solver.pyramid.model.rules import PRESETS  # noqa: E402
from solver.pyramid.play.session import (UNKNOWN, WON, Game, assess, hint,  # noqa: E402
                                         load_kernels, move_loses)

TITLE = "## pyramid play"
RULES = PRESETS["standard"]
MAX_MOVES = 150
"""The longest line played per deal."""
KEYS_SEED = 1190
"""The slowest status from a deal's start among seeds 0..1460 (about 1.8 s: the minimum-move
search, 930,000 positions)."""
PRESS_GAP = 0.1
"""Seconds between the presses while the search runs."""
STARTUP_ARGS = ["play", "--seed", "1"]
TARGETS = {"status median": 0.050, "status p99": 0.5, "keypress": 0.050, "startup": 1.5}


def stats(t) -> dict:
    t = np.asarray(t, dtype=float)
    return {"n": len(t), "median": float(np.median(t)), "p95": float(np.percentile(t, 95)),
            "p99": float(np.percentile(t, 99)), "max": float(t.max())}


def choose(rng: random.Random, status, legal: list):
    """The next move of the line: the hint with probability 1/2, else a random legal move."""
    step = hint(status)
    if step is not None and rng.random() < 0.5:
        return step
    return rng.choice(legal)


def play_line(seed: int, timeout: float, out: dict) -> None:
    """Play the seeded line of ``seed`` (module docstring), timing the app's calls into ``out``."""
    game = Game(Deal.from_seed(seed), RULES)
    rng = random.Random(seed)
    t0 = time.perf_counter()
    status = assess(game.position, timeout=timeout)
    out["first"].append((time.perf_counter() - t0, seed))
    removed_since_recycle = True
    while status.kind != WON and len(game.played) < MAX_MOVES:
        legal = game.legal()
        if not legal:
            break
        step = choose(rng, status, legal)
        if step[0] == STEP_RECYCLE:
            if not removed_since_recycle:
                break
            removed_since_recycle = False
        elif step[0] != STEP_DRAW:
            removed_since_recycle = True
        t0 = time.perf_counter()
        move_loses(game.position, step)
        out["warn"].append((time.perf_counter() - t0, seed))
        game.play(step)
        t0 = time.perf_counter()
        status = assess(game.position, timeout=timeout)
        out["after"].append((time.perf_counter() - t0, seed))
        out["kinds"][status.kind] = out["kinds"].get(status.kind, 0) + 1
        if status.kind == UNKNOWN:
            out["censored"].append(seed)


def run_status(seeds: range, timeout: float, verbose: bool) -> dict:
    out = {"first": [], "warn": [], "after": [], "kinds": {}, "censored": []}
    for seed in seeds:
        n = len(out["after"])
        play_line(seed, timeout, out)
        if verbose:
            worst = max((t for t, _ in out["after"][n:]), default=0.0)
            print(f"seed {seed}: {len(out['after']) - n} moves, slowest status "
                  f"{worst * 1e3:.1f} ms", file=sys.stderr, flush=True)
    return out


async def press_session(presses: int) -> tuple[list[float], bool]:
    """One app on ``KEYS_SEED``: the latencies of the presses made while the search ran, and
    whether the search was still running after the last of them."""
    from solver.pyramid.play.app import PlayApp

    frames: list[float] = []
    app = PlayApp(Deal.from_seed(KEYS_SEED), RULES, f"Seed {KEYS_SEED}")
    app.post_display_hook = lambda: frames.append((time.perf_counter(), app.cursor))
    latencies, pressing = [], []
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        for _ in range(presses):
            if app.status is not None:
                break
            before = app.cursor
            t0 = time.perf_counter()
            press = asyncio.create_task(pilot.press("right"))  # done once the app idles
            while not any(t >= t0 and c != before for t, c in frames):
                await asyncio.sleep(0.001)
            latencies.append(min(t for t, c in frames if t >= t0 and c != before) - t0)
            pressing.append(press)
            await pilot.pause(PRESS_GAP)
        await asyncio.gather(*pressing)
        running = app.status is None
        await pilot.press("q")
    return latencies, running


def run_keys(presses: int) -> dict:
    latencies, running = [], True
    while len(latencies) < presses:
        got, running = asyncio.run(press_session(presses - len(latencies)))
        latencies += got
    return {"t": latencies, "search_outlived": running}


def run_startup(starts: int) -> list[float]:
    from tests.play_pilot import PtyCommand

    os.chdir(ROOT)
    times = []
    for i in range(starts + 1):  # the first run warms the numba cache and the file cache
        t0 = time.perf_counter()
        command = PtyCommand(STARTUP_ARGS)
        screen = command.read_until(rb"moves played", 60)
        dt = time.perf_counter() - t0
        command.write(b"q")
        command.close()
        if b"moves played" not in screen:
            raise SystemExit(f"pyramid play drew no board in 60 s: {screen[-400:]!r}")
        if i:
            times.append(dt)
    return times


def ms(x: float) -> str:
    return f"{x * 1e3:.1f}"


def verdict(got: float, target: str) -> str:
    return "met" if got <= TARGETS[target] else "NOT met"


def status_lines(r: dict, seeds: range, timeout: float) -> list[str]:
    lines = ["### Status after a move", "",
             f"Seeds {seeds.start}..{seeds.stop - 1}, a seeded line per deal (hint move or "
             f"random legal move, 1/2 each; at most {MAX_MOVES} moves); `assess` timed on every "
             "position a move reaches, `move_loses` (the warning, before the move, on the event "
             "loop) on every move played. Figures in ms: median / p95 / p99 / max.", "",
             "| call | positions | median | p95 | p99 | max |", "| --- | --- | --- | --- | --- | --- |"]
    names = {"after": "`assess` after a move (worker thread)",
             "warn": "`move_loses` before a move (event loop)",
             "first": "`assess` of the deal's start (start-up)"}
    for key, name in names.items():
        s = stats([t for t, _ in r[key]])
        lines.append(f"| {name} | {s['n']:,} | {ms(s['median'])} | {ms(s['p95'])} | "
                     f"{ms(s['p99'])} | {ms(s['max'])} |")
    kinds = ", ".join(f"{k} {v:,}" for k, v in sorted(r["kinds"].items()))
    after = stats([t for t, _ in r["after"]])
    worst = ", ".join(f"seed {s} {t:.2f} s" for t, s in sorted(r["after"])[-3:][::-1])
    lines += ["", f"- statuses after a move: {kinds}; {len(r['censored'])} reached the safety "
                  f"timeout of {timeout:g} s (counted at it)",
              f"- status median {ms(after['median'])} ms (target <= 50 ms): "
              f"{verdict(after['median'], 'status median')}",
              f"- status p99 {ms(after['p99'])} ms (target <= 500 ms): "
              f"{verdict(after['p99'], 'status p99')}",
              f"- slowest statuses after a move: {worst}"]
    return lines


def keys_lines(r: dict) -> list[str]:
    s = stats(r["t"])
    return ["### A keypress while a long search runs", "",
            f"Seed {KEYS_SEED} from its start under the pilot, `right` pressed every "
            f"{PRESS_GAP:g} s while the status search runs; press to the first frame showing "
            f"the moved cursor: {s['n']} presses, median {ms(s['median'])} ms, p95 "
            f"{ms(s['p95'])} ms, max {ms(s['max'])} ms.", "",
            f"- keypress drawn, max {ms(s['max'])} ms (target <= 50 ms): "
            f"{verdict(s['max'], 'keypress')}"]


def startup_lines(t: list[float]) -> list[str]:
    s = stats(t)
    return ["### Start-up to the first frame", "",
            f"`python -m cli {' '.join(STARTUP_ARGS)}` in a 100x30 pseudo-terminal, numba cache "
            f"warm, fork to `moves played` on the screen: {s['n']} runs, median "
            f"{s['median']:.2f} s, max {s['max']:.2f} s.", "",
            f"- start-up max {s['max']:.2f} s (target <= 1.5 s): {verdict(s['max'], 'startup')}"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=seed_range, default=range(1000), help="N or A:B")
    ap.add_argument("--timeout", type=float, default=10.0,
                    help="safety limit of each assess call, seconds")
    ap.add_argument("--presses", type=int, default=20)
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--parts", nargs="+", default=["status", "keys", "startup"],
                    choices=["status", "keys", "startup"])
    ap.add_argument("--write", action="store_true", help="write the section of RESULTS.md")
    ap.add_argument("--verbose", action="store_true", help="one line per deal on stderr")
    args = ap.parse_args()
    command = ("python benchmarks/bench_play.py " + " ".join(sys.argv[1:])).strip()
    lines = [TITLE, "", f"Command: `{command}` ({now_utc()}). Rules: {RULES.describe()}. "
             "Kernels loaded before timing.", ""]
    t0 = time.perf_counter()
    load_kernels(RULES)
    print(f"kernels loaded in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if "status" in args.parts:
        lines += status_lines(run_status(args.seeds, args.timeout, args.verbose), args.seeds,
                              args.timeout) + [""]
    if "keys" in args.parts:
        lines += keys_lines(run_keys(args.presses)) + [""]
    if "startup" in args.parts:
        lines += startup_lines(run_startup(args.starts)) + [""]
    lines += [f"Machine: {machine()}."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        write_section(TITLE, text)


if __name__ == "__main__":
    main()
