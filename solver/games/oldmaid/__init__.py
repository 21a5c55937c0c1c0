"""Old Maid (docs/oldmaid.md): ``engine`` (rules, the numba kernels, one game with its log),
``sim`` (seeded runs, the analysis of one deal), ``report`` (text), and ``GAME``, the declaration
the command line is built from."""

from solver.games import base
from solver.games.base import ANALYSE, SHOW, SIMULATE, Option
from solver.games.oldmaid import report

VARIANTS = ("colour", "joker", "jack")
"""The variant names, for completion (``engine.VARIANTS``, which loads numba; a test checks
that the two agree)."""

OPTIONS = (
    base.seed("Seed of the deal (or, with --game, of a simulation run).", (SHOW,)),
    base.seed("Seed of the deal to analyse (as in 'show old-maid').", (ANALYSE,)),
    base.players(2, 4, 3),
    base.games(100_000),
    base.seed("Seed of the run (0 .. 2**63-1); game i uses stream i.", (SIMULATE,)),
    base.game_index("Show game I of 'simulate old-maid --seed SEED' (its dealer is I mod "
                    "PLAYERS)."),
    base.trials(100_000, "Random-play trials of the deal (trial t draws from stream t of the "
                         "seed)."),
    Option("dealer", ("--dealer",), "int", 0, "Seat of the dealer (0..players-1).", lo=0,
           show_default=True, commands=(SHOW, ANALYSE)),
    Option("variants", ("--variant", "-V"), "text", help=(
        "Rule variant: colour (pairs share colour), joker (a joker is the odd card), jack (a jack "
        "is removed, not a queen). Repeat or comma-separate; colour combines with joker or "
        "jack."), multiple=True, metavar="NAME[,NAME]", rule=True, completions=VARIANTS),
    Option("events", ("--draws/--no-draws",), "flag", True,
           "Print the random-play game draw by draw.", show_default=True, commands=(SHOW,),
           render=True),
)

GAME = base.declare(
    report, name=report.GAME_NAME, title="Old Maid", aliases=("oldmaid",), options=OPTIONS,
    help={SIMULATE: "Random-play Old Maid: loss probability by place from the dealer and the game length, from "
                    "a seed.\n\nGame i of the run is dealt by seat i mod PLAYERS and takes all its "
                    "randomness (deal and draws) from stream i of the seed, so results do not "
                    "depend on --jobs.",
          SHOW: "Print an Old Maid deal, the hands after the pair discards, and its random-play "
                "game.",
          ANALYSE: "Each seat's chance of losing one particular deal, the draws random over "
                   "many trials."},
)
