"""Options shared by the four games' commands (Old Maid, Black Maria/Hearts, One Card, Duizenden).

Light to import (no numba): the command modules build their options from this at import time,
which ``pyramid --help`` and shell completion pay for.
"""

from __future__ import annotations

import click

from cli.common import seed_option
from solver.core.runner import MAX_GAMES

DEFAULT_SHOW_SEED = 0
"""``show GAME`` without ``--seed`` shows seed 0, the default seed of ``simulate GAME`` too."""

GAME_INDEX = click.IntRange(0, MAX_GAMES - 1)
"""Game I of a simulation run (a run plays at most ``MAX_GAMES`` games)."""


def games_option(default: int, what: str = "games", name: str = "--games", short: str = "-n",
                 help: str = "Number of games to simulate."):
    """``--games`` (or ``--trials``): 1 .. ``MAX_GAMES``, every game's record is kept in memory."""
    return click.option(name, short, what, type=click.IntRange(1, MAX_GAMES), default=default,
                        show_default=True, help=f"{help} (1 .. {MAX_GAMES:,})")


def show_seed_option(help: str):
    """``--seed`` of a ``show GAME`` command: the same default (0) for every game."""
    return seed_option(default=DEFAULT_SHOW_SEED, help=f"{help} [default: {DEFAULT_SHOW_SEED}]")


def choice(values) -> click.Choice:
    """A case-insensitive choice among ``values`` (``--moon Others`` works)."""
    return click.Choice(list(values), case_sensitive=False)
