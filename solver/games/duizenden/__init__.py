"""Duizenden (docs/duizenden.md): ``options`` (limits and variant names, plain data), ``melds``,
``play`` (numba kernels), ``rules`` (the reference rules), ``game`` (variants, one round, runs),
``report`` (text), and ``GAME``, the declaration the command line is built from."""

from solver.games import base
from solver.games.base import SHOW, SIMULATE, Option
from solver.games.duizenden import report
from solver.games.duizenden.options import (DEFAULT_MAX_ROUNDS, DEFAULT_PENALTY, GAME_NAME,
                                            MAX_MAX_ROUNDS, MAX_PLAYERS, MIN_PLAYERS,
                                            TARGET_POINTS, VARIANT_NAMES)

OPTIONS = (
    base.seed("Seed: the first round of game 0 of 'simulate duizenden --seed'.", (SHOW,)),
    base.players(MIN_PLAYERS, MAX_PLAYERS, 2),
    base.games(2_000),
    base.seed("Seed of the run (0 .. 2**63-1); game i uses stream i.", (SIMULATE,)),
    Option("start", ("--start",), "int", 0, "Seat of the starting player.", lo=0,
           show_default=True, commands=(SHOW,)),
    Option("variants", ("--variant", "-V"), "text", help=(
        "Rule variant (repeat or comma-separate; names or numbers 1..5 as listed in "
        "docs/duizenden.md): " + ", ".join(f"{i} {n}" for i, n in enumerate(VARIANT_NAMES, start=1))
        + "."), multiple=True, metavar="NAME[,NAME]", rule=True,
           completions=tuple(VARIANT_NAMES)),
    Option("penalty", ("--penalty",), "int", DEFAULT_PENALTY,
           "Points lost for a forgotten \"last card\" (variant last-card).", lo=0,
           hi=TARGET_POINTS, show_default=True, rule=True),
    Option("max_rounds", ("--max-rounds",), "int", DEFAULT_MAX_ROUNDS,
           f"Stop a game that has not reached {TARGET_POINTS} after this many rounds.", lo=1,
           hi=MAX_MAX_ROUNDS, show_default=True, commands=(SIMULATE,)),
)

GAME = base.declare(
    report, name=GAME_NAME, title="Duizenden", options=OPTIONS,
    help={SIMULATE: "Random-play Duizenden games to 1000: rounds, turns, round ends, scores and "
                    "wins by seat.\n\nEvery decision is uniform among the legal actions "
                    "(docs/duizenden.md). Game i takes all its randomness from stream i of the "
                    "seed, so results do not depend on --jobs.",
          SHOW: "Print a Duizenden deal and one random-play round of it, turn by turn."},
)
