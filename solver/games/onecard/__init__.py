"""One Card (docs/onecard.md): ``engine`` (rules, numba kernels), ``sim`` (seeded runs, one round
logged), ``report`` (text), and ``GAME``, the declaration the command line is built from."""

from solver.games import base
from solver.games.base import SHOW, SIMULATE, Option
from solver.games.onecard import report

OPTIONS = (
    base.seed("Seed of a simulation run: shows round 1 of one of its games.", (SHOW,)),
    base.players(2, 4, 4, rule=True),
    base.games(100_000),
    base.seed("Seed of the run (0 .. 2**63-1); game i uses stream i.", (SIMULATE,)),
    base.game_index("Which game of the run (game I uses stream I of the seed).", default=0),
    Option("no_joker", ("--no-joker",), "flag", False,
           "A table without a joker: the two of diamonds is the joker.", rule=True),
)

GAME = base.declare(
    report, name=report.GAME_NAME, title="One Card", aliases=("onecard",), options=OPTIONS,
    help={SIMULATE: "Random-play One Card games to 30: win rate, points per round and bids "
                    "made by place from the dealer, rounds without a bid and game length, with 95% intervals.\n\nGame i "
                    "takes everything (its first dealer, every deal, bid, card and switch) from "
                    "stream i of the seed, so the results do not depend on --jobs.",
          SHOW: "Print a One Card deal and one random-play round trick by trick: the first round "
                "of game I (default 0) of 'simulate one-card' with the same seed, players and "
                "joker."},
)
