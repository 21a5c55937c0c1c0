"""Black Maria and standard Hearts as data: the two presets, the table limits, pass names and
the display order of cards. Plain Python (no numba), so the command line can build its options
and help from it without loading the kernels (``solver.games.hearts.game`` builds on it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from solver.core.cards import (ACE, CLUBS, DIAMONDS, HEARTS, JACK, KING, QUEEN, RANKS_PER_SUIT,
                          SPADES, card_rank, card_suit, make_card)

MIN_PLAYERS, MAX_PLAYERS = 3, 6
DEFAULT_TARGET = 100
MAX_TARGET = 10_000
MAX_DEALS = 100_000
"""Safety cap on deals per game; a capped game is reported (random play never comes near it)."""
MOON_RULES = ("none", "others", "subtract")
"""``none``: no moon. ``others``: the shooter's points go to every other player instead.
``subtract``: the shooter's points are subtracted from the shooter's score instead."""

LEFT, RIGHT, NO_PASS = 1, -1, 0
"""Pass offsets: seat ``s`` passes to seat ``s + offset`` (left is the next seat clockwise)."""

QUEEN_OF_SPADES = make_card(QUEEN, SPADES)
KING_OF_SPADES = make_card(KING, SPADES)
ACE_OF_SPADES = make_card(ACE, SPADES)
JACK_OF_DIAMONDS = make_card(JACK, DIAMONDS)
OMNIBUS_POINTS = -10
"""What the Omnibus jack of diamonds counts for whoever takes it."""
SPOT_QUEEN_POINTS = 25


def _cards(*names: tuple[int, int]) -> tuple[int, ...]:
    return tuple(make_card(rank, suit) for rank, suit in names)


@dataclass(frozen=True)
class Preset:
    """What one game of the family fixes.

    removed:       cards taken out of the deck, by player count.
    spade_points:  penalty cards besides hearts: card -> points (the queen is re-priced by Spot
                   Hearts; the others keep their value).
    pass_cycle:    pass offsets by player count, used in rotation deal by deal.
    lowest_club:   the first trick is led with the lowest club in play by whoever holds it;
                   otherwise the player left of the dealer leads any card.
    must_break:    hearts may not be led before a heart has been played (unless only hearts held).
    first_trick_ban: penalty cards may not go to the first trick while another legal card is held.
    moon_rules:    the moon rules this game allows; the first is its default.
    """

    name: str
    title: str
    removed: dict[int, tuple[int, ...]]
    spade_points: dict[int, int]
    pass_cycle: dict[int, tuple[int, ...]]
    lowest_club: bool
    must_break: bool
    first_trick_ban: bool
    moon_rules: tuple[str, ...] = field(default=("none",))


BLACK_MARIA = Preset(
    name="black-maria", title="Black Maria",
    removed={3: _cards((2, CLUBS)), 4: (), 5: _cards((2, CLUBS), (2, DIAMONDS)),
             6: _cards((2, CLUBS), (2, DIAMONDS), (2, HEARTS), (2, SPADES))},
    spade_points={QUEEN_OF_SPADES: 13, KING_OF_SPADES: 10, ACE_OF_SPADES: 7},
    pass_cycle={n: (RIGHT,) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)},
    lowest_club=False, must_break=False, first_trick_ban=False, moon_rules=("none",))

HEARTS_STANDARD = Preset(
    name="hearts", title="Hearts",
    removed={3: _cards((2, DIAMONDS)), 4: (), 5: _cards((2, CLUBS), (2, DIAMONDS)),
             6: _cards((2, CLUBS), (2, DIAMONDS), (2, SPADES), (3, CLUBS))},
    spade_points={QUEEN_OF_SPADES: 13},
    pass_cycle={3: (LEFT, RIGHT, NO_PASS), 4: (LEFT, RIGHT, 2, NO_PASS),
                5: (LEFT, RIGHT, NO_PASS), 6: (LEFT, RIGHT, 3, NO_PASS)},
    lowest_club=True, must_break=True, first_trick_ban=True, moon_rules=("others", "subtract"))

PRESETS: dict[str, Preset] = {p.name: p for p in (BLACK_MARIA, HEARTS_STANDARD)}


def find_preset(name: str) -> Preset:
    """The preset called ``name`` (case-insensitive). Raises ``ValueError`` naming the choices."""
    key = name.strip().lower()
    if key not in PRESETS:
        raise ValueError(f"unknown game {name!r} (choose from {', '.join(PRESETS)})")
    return PRESETS[key]


def pass_name(offset: int, players: int) -> str:
    """``left``, ``right``, ``across`` or ``none`` for a pass offset."""
    if offset == NO_PASS:
        return "none"
    if offset == LEFT:
        return "left"
    if offset == RIGHT:
        return "right"
    return "across" if 2 * offset == players else f"{offset} seats left"


def trick_rank(card: int) -> int:
    """Rank in play order, ace high: two = 2 .. king = 13, ace = 14."""
    rank = card_rank(card)
    return RANKS_PER_SUIT + 1 if rank == ACE else rank


def hand_order(cards) -> list[int]:
    """Cards sorted for display: by suit (clubs .. spades), then two .. ace."""
    return sorted((int(c) for c in cards), key=lambda c: (card_suit(c), trick_rank(c)))
