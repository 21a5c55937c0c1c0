"""Duizenden's table options and limits as plain data (no numba), so that the command line can
build its options and help without loading the kernels; ``solver.games.duizenden.game`` and
``solver.games.duizenden.play`` take these names from here.
"""

from __future__ import annotations

GAME_NAME = "duizenden"
"""The game's name in commands and JSON."""
MIN_PLAYERS, MAX_PLAYERS = 2, 6
TARGET_POINTS = 1000
"""A game ends after the round in which a total reaches this."""
DEFAULT_MAX_ROUNDS = 500
"""A game that has not reached 1000 after this many rounds is reported unfinished."""
MAX_MAX_ROUNDS = 100_000
"""The largest ``max_rounds`` a simulation accepts."""
DEFAULT_PENALTY = 50
"""Variant 3: points lost for a forgotten "last card"."""

VARIANT_NAMES = {
    "no-out-on-opening": "no_out_on_opening",
    "joker-exchange": "joker_exchange",
    "last-card": "last_card",
    "discard-last": "discard_last",
    "queen-kept": "queen_kept",
}
"""Command-line names of the variants, in the order of docs/duizenden.md (1..5)."""
