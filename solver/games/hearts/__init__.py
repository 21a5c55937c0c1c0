"""Black Maria and standard Hearts (docs/hearts.md): ``rules`` (the presets, plain data),
``kernels`` (numba), ``game`` (rules object, runs, one deal traced), ``report`` (text), and
``BLACK_MARIA_GAME`` / ``HEARTS_GAME``, the declarations the command line is built from."""

from functools import partial

from solver.games import base
from solver.games.base import SHOW, SIMULATE, Game, Option
from solver.games.hearts import report
from solver.games.hearts.rules import (BLACK_MARIA, DEFAULT_TARGET, HEARTS_STANDARD, MAX_PLAYERS,
                                       MAX_TARGET, MIN_PLAYERS, Preset)


def table_options(preset: Preset) -> tuple[Option, ...]:
    """The options of ``preset``'s commands: the table (players, Spot Hearts, Omnibus, target,
    for standard Hearts the moon rule), then each command's own."""
    moon = () if len(preset.moon_rules) < 2 else (Option(
        "moon", ("--moon",), "choice", preset.moon_rules[0],
        "Shooting the moon: the shooter's points go to every other player (others) or are "
        "subtracted from the shooter's score.", choices=preset.moon_rules, show_default=True,
        rule=True),)
    return (
        base.players(MIN_PLAYERS, MAX_PLAYERS, 4, rule=True),
        Option("spot_hearts", ("--spot-hearts",), "flag", False,
               "Spot Hearts: each heart costs its rank (A 14), the queen of spades 25.",
               rule=True),
        Option("omnibus", ("--omnibus",), "flag", False,
               "Omnibus: the jack of diamonds counts -10 for whoever takes it.", rule=True),
        Option("target", ("--target",), "int", DEFAULT_TARGET,
               "Target score: the game ends after the deal in which a total reaches it.", lo=1,
               hi=MAX_TARGET, show_default=True, rule=True),
        *moon,
        base.games(100_000),
        base.seed("Seed (0 .. 2**63-1); game i uses stream i of it.", (SIMULATE,)),
        base.seed(f"Seed: shows game 0 of 'simulate {preset.name} --seed S'.", (SHOW,)),
        Option("deal", ("--deal",), "int", 1, "Which deal of game 0 to show (1 = the first).",
               lo=1, show_default=True, commands=(SHOW,)),
    )


def declare(preset: Preset, title: str, simulate_help: str,
            aliases: tuple[str, ...] = ()) -> Game:
    """The ``Game`` of one preset (the two share everything but the preset)."""
    return base.declare(
        report, name=preset.name, title=title, aliases=aliases, options=table_options(preset),
        rules_from_options=partial(report.rules_from_options, preset),
        help={SIMULATE: simulate_help,
              SHOW: f"Print one random-play {preset.title} deal: the hands, the passes and the "
                    "tricks."},
    )


BLACK_MARIA_GAME = declare(
    BLACK_MARIA, "Black Maria",
    "Random play of Black Maria games to the target score: penalties, wins, game length.",
    aliases=("blackmaria",))
HEARTS_GAME = declare(
    HEARTS_STANDARD, "Hearts (standard)",
    "Random play of standard Hearts games to the target score: penalties, wins, length, moons.")
