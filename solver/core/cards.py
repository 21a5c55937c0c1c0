"""One card encoding for every game in the project.

A card is a plain ``int`` (``Card``), small enough to index numpy tables inside numba kernels::

    card = deck * CARDS_PER_DECK + base
    base = suit * 13 + (rank - 1)      for the 52 natural cards (0..51)
    base = JOKER_RED (52) or JOKER_BLACK (53) for the two jokers of a deck

* ``rank`` is 1..13 (ace = 1, jack = 11, queen = 12, king = 13); it is also the card's Pyramid value.
* ``suit`` is 0..3 in the order clubs, diamonds, hearts, spades (``CLUBS`` .. ``SPADES``).
* ``deck`` is 0 for the first deck and 1 for the second (Duizenden plays two decks).

So the 52 natural cards of the first deck are 0..51 (Ac=0, Kc=12, Ad=13, ..., Ks=51), which makes a
hand of one deck a 52-bit mask in a ``uint64`` with each suit a contiguous 13-bit field
(``SUIT_MASKS``). Jokers and a second deck stay in the same numbering (``MAX_CARDS`` = 108 ids).

Text notation: rank ``A23456789TJQK`` (``10`` is accepted for ``T``) followed by suit ``cdhs``, any
case on input; printed with the rank upper case and the suit lower case (``Td``). Jokers are
``RJ`` (red) and ``BJ`` (black). A card of the second deck carries a trailing apostrophe (``Kd'``).
"""

from __future__ import annotations

import re
from typing import Iterable

import numpy as np

Card = int
Rank = int
Suit = int

RANKS_PER_SUIT = 13
"""Ranks ace (1) .. king (13)."""
SUITS = 4
NATURAL_CARDS = SUITS * RANKS_PER_SUIT
"""52 natural cards per deck: ids 0..51."""
JOKER_RED: Card = 52
"""The first joker of deck 0 (text ``RJ``)."""
JOKER_BLACK: Card = 53
"""The second joker of deck 0 (text ``BJ``)."""
CARDS_PER_DECK = 54
"""Ids per deck: 52 naturals and two jokers. Deck ``d`` starts at ``d * CARDS_PER_DECK``."""
MAX_DECKS = 2
MAX_CARDS = MAX_DECKS * CARDS_PER_DECK
"""Size of every card-indexed table: 108 ids (two full decks with jokers)."""

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
ACE, JACK, QUEEN, KING = 1, 11, 12, 13

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "cdhs"
JOKER_TEXT = {JOKER_RED: "RJ", JOKER_BLACK: "BJ"}
SECOND_DECK_MARK = "'"

FULL_DECK_MASK = (1 << NATURAL_CARDS) - 1
"""Bits 0..51 set: every natural card of one deck as a uint64 bitmask."""
SUIT_MASKS = np.array([((1 << RANKS_PER_SUIT) - 1) << (s * RANKS_PER_SUIT) for s in range(SUITS)],
                      dtype=np.uint64)
"""``SUIT_MASKS[s]``: the 13 bits of suit ``s`` in a one-deck card bitmask (bit = card id)."""


def make_card(rank: Rank, suit: Suit, deck: int = 0) -> Card:
    """The card of ``rank`` (1..13) and ``suit`` (0..3) in ``deck`` (0 or 1)."""
    if not 1 <= rank <= RANKS_PER_SUIT or not 0 <= suit < SUITS or not 0 <= deck < MAX_DECKS:
        raise ValueError(f"no card with rank {rank}, suit {suit}, deck {deck}")
    return deck * CARDS_PER_DECK + suit * RANKS_PER_SUIT + rank - 1


def base_card(card: Card) -> Card:
    """The card with its deck stripped (0..53): the two copies of a card share their base."""
    return card % CARDS_PER_DECK


def card_deck(card: Card) -> int:
    """0 for the first deck, 1 for the second."""
    return card // CARDS_PER_DECK


def is_joker(card: Card) -> bool:
    """True for either joker of either deck."""
    return base_card(card) >= NATURAL_CARDS


def card_rank(card: Card) -> Rank:
    """Rank 1..13 (ace low, king 13; the Pyramid value); 0 for a joker."""
    b = base_card(card)
    return 0 if b >= NATURAL_CARDS else b % RANKS_PER_SUIT + 1


def card_suit(card: Card) -> Suit:
    """Suit 0..3 (clubs, diamonds, hearts, spades); -1 for a joker."""
    b = base_card(card)
    return -1 if b >= NATURAL_CARDS else b // RANKS_PER_SUIT


def is_red(card: Card) -> bool:
    """Diamonds, hearts and the red joker are red."""
    b = base_card(card)
    return b == JOKER_RED or card_suit(card) in (DIAMONDS, HEARTS)


def format_card(card: Card) -> str:
    """Text of a card: ``Td``, ``RJ``, or ``Kd'`` for the second deck's king of diamonds."""
    if not 0 <= card < MAX_CARDS:
        raise ValueError(f"no card has id {card}")
    b = base_card(card)
    text = JOKER_TEXT[b] if b >= NATURAL_CARDS else RANK_CHARS[b % 13] + SUIT_CHARS[b // 13]
    return text + SECOND_DECK_MARK * card_deck(card)


def parse_rank(text: str) -> int:
    """A rank's text: ``A``, ``2`` .. ``9``, ``T`` or ``10``, ``J``, ``Q``, ``K`` (any case) ->
    1..13, as in a card token. Raises ``ValueError``."""
    t = text.strip().upper()
    if t == "10":
        t = "T"
    if len(t) != 1 or t not in RANK_CHARS:
        raise ValueError(f"{text!r} is not a rank (A, 2..9, T or 10, J, Q, K)")
    return RANK_CHARS.index(t) + 1


_TOKEN = re.compile(r"^(10|[a2-9tjqk])([cdhs])('?)$", re.IGNORECASE)
_JOKER_TOKEN = re.compile(r"^(rj|bj)('?)$", re.IGNORECASE)


def parse_card(token: str) -> Card:
    """Parse one card token (any case; ``10`` for ``T``). Raises ``ValueError`` naming the token."""
    t = token.strip()
    m = _TOKEN.match(t)
    if m:
        return make_card(parse_rank(m.group(1)), SUIT_CHARS.index(m.group(2).lower()),
                         1 if m.group(3) else 0)
    m = _JOKER_TOKEN.match(t)
    if m:
        base = JOKER_RED if m.group(1).lower() == "rj" else JOKER_BLACK
        return base + (CARDS_PER_DECK if m.group(2) else 0)
    raise ValueError(f"{token!r} is not a card (expected a rank A23456789TJQK or 10 "
                     f"followed by a suit cdhs, e.g. 'Td')")


def _natural_tokens() -> dict[str, Card]:
    """Every spelling ``parse_card`` accepts for the 52 cards of one deck (any case, ``10`` for
    ``T``), mapped to its card id: a dictionary look-up instead of a regular expression for the
    common case (parsing whole deal files)."""
    table: dict[str, Card] = {}
    for card in range(NATURAL_CARDS):
        rank, suit = format_card(card)
        for rank_text in ({rank, "10"} if rank == "T" else {rank}):
            for r in {rank_text, rank_text.lower()}:
                for s in {suit, suit.upper()}:
                    table[r + s] = card
    return table


NATURAL_TOKENS = _natural_tokens()
"""``NATURAL_TOKENS[token]``: the card of deck 0 a token spells (``'Td'``, ``'td'``, ``'10D'``, ...);
tokens of jokers and of the second deck are not in it (``parse_card`` reads those)."""


def split_tokens(text: str) -> list[str]:
    """Split card text on white space and commas, dropping empty pieces."""
    return [t for t in re.split(r"[\s,]+", text) if t]


def parse_cards(text: str) -> list[Card]:
    """Parse white-space or comma separated card tokens (no checks for duplicates)."""
    return [parse_card(t) for t in split_tokens(text)]


def format_cards(cards: Iterable[Card], sep: str = " ") -> str:
    """Text of a sequence of cards joined by ``sep``."""
    return sep.join(format_card(c) for c in cards)


def mask_of(cards: Iterable[Card]) -> int:
    """One-deck bitmask (bit = card id) of natural cards of deck 0."""
    m = 0
    for c in cards:
        if not 0 <= c < NATURAL_CARDS:
            raise ValueError(f"{format_card(c)} has no bit in a one-deck mask")
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[Card]:
    """The card ids whose bits are set in a one-deck bitmask, lowest first."""
    return [c for c in range(NATURAL_CARDS) if mask >> c & 1]


def _build_tables() -> tuple[np.ndarray, np.ndarray]:
    ranks = np.array([card_rank(c) for c in range(MAX_CARDS)], dtype=np.int64)
    suits = np.array([card_suit(c) for c in range(MAX_CARDS)], dtype=np.int64)
    return ranks, suits


RANK_OF, SUIT_OF = _build_tables()
"""``RANK_OF[card]`` (0 for jokers) and ``SUIT_OF[card]`` (-1 for jokers) for all 108 ids, for kernels."""
