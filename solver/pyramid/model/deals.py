"""Pyramid deals: parse and format the deal text, and the seeded deal generator.

A deal is 52 card ids: ``deal[0:28]`` the pyramid from the apex row by row, ``deal[28:52]`` the
stock, top card first (the text format of docs/pyramid.md, "Deals").

Seeded deals (``deal_from_seed``): start from the ordered deck of card ids 0..51 (Ac 2c .. Kc,
Ad .. Kd, Ah .. Kh, As .. Ks), shuffle it with ``rng.shuffle`` from a generator state holding the
seed, and read the result as the deal text order. The algorithm is in ``solver/core/rng.py`` and
docs/pyramid.md ("Seeded deals"); the deal for a seed never changes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from solver.core.cards import (NATURAL_CARDS, NATURAL_TOKENS, format_card, is_red, parse_card,
                               split_tokens)
from solver.core.jit import kernel
from solver.pyramid.model.layout import DECK_CARDS, PYRAMID_CARDS, PYRAMID_ROWS
from solver.core.rng import check_seed, new_state, shuffle
from solver.core.text import quoted


class DealError(ValueError):
    """A malformed deal; the message names the token, its position and what is wrong."""


PLAIN_DEAL_CHARS = 3 * DECK_CARDS - 1
"""Characters of a deal as ``format_deal`` writes it: 52 two-character cards, a space between."""
SPACE = ord(" ")
WHOLE_DECK = (1 << DECK_CARDS) - 1
"""The bitmask (bit = card id) of a deal that holds every card once."""


def _two_char_cards() -> np.ndarray:
    table = np.full((256, 256), -1, dtype=np.int8)
    for token, card in NATURAL_TOKENS.items():
        if len(token) == 2:
            table[ord(token[0]), ord(token[1])] = card
    return table


TWO_CHAR_CARDS = _two_char_cards()
"""``TWO_CHAR_CARDS[b0, b1]``: the card the two bytes ``b0 b1`` spell (any case), or -1."""


def plain_deals(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Read many deal lines at once: ``rows`` is an ``(n, PLAIN_DEAL_CHARS)`` uint8 array of
    lines of that length. Returns the ``(n, 52)`` int64 card ids and a boolean mask of the lines
    that are well-formed deals in the plain spelling (two characters a card, any case, one space
    between); the ids of the other lines mean nothing, and ``parse_deal`` says what is wrong
    with them (or reads another spelling: ``10h``, commas, more spaces)."""
    cards = TWO_CHAR_CARDS[rows[:, 0::3], rows[:, 1::3]].astype(np.int64)
    ok = (rows[:, 2::3] == SPACE).all(axis=1) & (cards >= 0).all(axis=1)
    bits = np.bitwise_or.reduce(np.left_shift(np.int64(1), np.maximum(cards, 0)), axis=1)
    return cards, ok & (bits == WHOLE_DECK)


def parse_deal(text: str) -> np.ndarray:
    """Parse deal text into an int64 array of 52 card ids. Raises ``DealError``.

    A well-formed deal is read by dictionary look-ups (``NATURAL_TOKENS``, about 20 times faster
    than a regular expression per token, which matters for deal files of a million lines); any
    other text goes through ``parse_deal_exactly``, which finds what is wrong and says so."""
    cards = list(map(NATURAL_TOKENS.get, text.replace(",", " ").split()))  # None: not a card
    if len(cards) == DECK_CARDS and None not in cards and len(set(cards)) == DECK_CARDS:
        return np.fromiter(cards, dtype=np.int64, count=DECK_CARDS)
    return parse_deal_exactly(text)


def parse_deal_exactly(text: str) -> np.ndarray:
    """``parse_deal`` a token at a time, every token checked in order: the first fault found
    is the one the ``DealError`` names."""
    tokens = split_tokens(text)
    if not tokens:
        raise DealError("the deal is empty (expected 52 cards)")
    cards: list[int] = []
    seen: dict[int, int] = {}
    for i, tok in enumerate(tokens, start=1):
        try:
            c = deal_card(tok)
        except DealError as e:
            raise DealError(f"token {i} {e}") from None
        if c in seen:
            raise DealError(f"token {i} {quoted(tok)} duplicates token {seen[c]} "
                            f"({format_card(c)} appears twice)")
        seen[c] = i
        cards.append(c)
    if len(cards) != DECK_CARDS:
        missing = [format_card(c) for c in range(NATURAL_CARDS) if c not in seen]
        if len(cards) > DECK_CARDS:
            raise DealError(f"too many cards: {len(cards)} tokens, a deal has {DECK_CARDS}")
        raise DealError(f"too few cards: {len(cards)} of {DECK_CARDS}; missing "
                        + " ".join(missing))
    return np.array(cards, dtype=np.int64)


def deal_card(token: str) -> int:
    """The card one token of deal text spells (``parse_card``: ``Td``, ``10d``, any case), one
    of the 52 of a deal; a ``DealError`` quoting the token and saying what is wrong (how
    ``parse_deal`` reads each token, and the deal entry of ``pyramid play`` each card typed)."""
    try:
        c = parse_card(token)
    except ValueError:
        raise DealError(f"{quoted(token)} is not a card (expected a rank A23456789TJQK or 10 and "
                        f"a suit cdhs, e.g. 'Td')") from None
    if c >= NATURAL_CARDS:
        raise DealError(f"{quoted(token)}: Pyramid plays one deck without jokers")
    return c


class Deal(Sequence):
    """A Pyramid deal, checked once: ``cards``, its 52 card ids (an int64 array, the pyramid from
    the apex, then the stock from its top card), and the per-deal tables the searches need, each
    built the first time a search asks for it (``tables``, ``built``).

    Made at the edge, where a deal comes in: ``Deal(cards)`` checks card ids,
    ``Deal.parse(text)`` reads deal text, ``Deal.from_seed(seed)`` deals a seeded deal, and
    ``Deal.of`` takes any of the three forms (and a ``Deal`` as it is). Everything below takes
    the ``Deal`` and never checks it again; ``cards`` must not be changed (the tables were built
    from it). A ``Deal`` is also a sequence of its 52 card ids, and an array to numpy
    (``np.asarray(deal)`` is ``deal.cards``).

    >>> deal = Deal.from_seed(1)
    >>> deal.text().split()[:3], len(deal), int(deal[0])
    (['7d', '9c', '4d'], 52, 20)
    """

    __slots__ = ("cards", "_built")

    def __init__(self, cards) -> None:
        self.cards = np.array(check_deal(cards))  # a copy: the caller's array may change
        self._built: dict = {}

    @classmethod
    def trusted(cls, cards: np.ndarray) -> "Deal":
        """A ``Deal`` of card ids already checked (a seeded deal, a row of a checked deal file):
        ``cards`` (int64) is kept as it is, not copied nor checked again."""
        deal = cls.__new__(cls)
        deal.cards = cards
        deal._built = {}
        return deal

    @classmethod
    def from_seed(cls, seed: int) -> "Deal":
        """The deal numbered ``seed`` (``deal_from_seed``)."""
        return cls.trusted(deal_from_seed(seed))

    @classmethod
    def parse(cls, text: str) -> "Deal":
        """The deal of deal text (``parse_deal``). Raises ``DealError``."""
        return cls.trusted(parse_deal(text))

    @classmethod
    def of(cls, deal) -> "Deal":
        """``deal`` as a ``Deal``: a ``Deal`` as it is, a deal number (``int``) dealt, a string
        parsed, anything else checked as card ids. Raises ``DealError`` (a ``ValueError``)."""
        if isinstance(deal, Deal):
            return deal
        if isinstance(deal, bool):
            raise DealError("a deal is a deal number, deal text or 52 card ids, not a bool")
        if isinstance(deal, (int, np.integer)):
            return cls.from_seed(int(deal))
        if isinstance(deal, str):
            return cls.parse(deal)
        return cls(deal)

    @property
    def tables(self):
        """The deal's ``DealTables`` (``solver.pyramid.model.state``), built on first use."""
        from solver.pyramid.model.state import kernel_tables

        return self.built(kernel_tables)

    def built(self, build, *options):
        """``build(self.cards, *options)``, built the first time it is asked for and kept: the
        per-deal tables of a search (``build`` a function of the card ids and hashable options,
        e.g. ``solver.pyramid.optimal.tables.class_tables`` and the overlap rule)."""
        key = (build, *options)
        found = self._built.get(key)
        if found is None:
            found = self._built[key] = build(self.cards, *options)
        return found

    def text(self) -> str:
        """Deal text (``format_deal``)."""
        return format_deal(self.cards)

    def __len__(self) -> int:
        return DECK_CARDS

    def __getitem__(self, index):
        return self.cards[index]

    def __iter__(self):
        return iter(self.cards)

    def __array__(self, dtype=None, copy=None):
        return self.cards if dtype is None else self.cards.astype(dtype)

    def __eq__(self, other) -> bool:
        return isinstance(other, Deal) and bool(np.array_equal(self.cards, other.cards))

    def __hash__(self) -> int:
        return hash(self.cards.tobytes())

    def __repr__(self) -> str:
        return f"Deal.parse({self.text()!r})"


def format_deal(deal) -> str:
    """Deal text: 52 cards on one line, pyramid apex first, then the stock top first."""
    return " ".join(format_card(int(c)) for c in deal)


def check_deal(deal) -> np.ndarray:
    """Validate a deal given as card ids; return it as an int64 array. Raises ``DealError``."""
    a = np.asarray(deal, dtype=np.int64)
    if a.shape != (DECK_CARDS,):
        raise DealError(f"a deal has {DECK_CARDS} cards, not {a.size}")
    counts = Counter(a.tolist())
    bad = [c for c in counts if not 0 <= c < NATURAL_CARDS]
    if bad:
        raise DealError(f"card id {bad[0]} is not one of the 52 cards")
    dup = [c for c, n in counts.items() if n > 1]
    if dup:
        raise DealError(f"{format_card(dup[0])} appears {counts[dup[0]]} times")
    return a


@kernel
def _deal_kernel(seed, out):
    state = new_state(seed)
    for i in range(DECK_CARDS):
        out[i] = i
    shuffle(state, out)


@kernel
def _deals_kernel(seeds, out):
    for k in range(len(seeds)):
        _deal_kernel(seeds[k], out[k])


def deal_from_seed(seed: int) -> np.ndarray:
    """The deal numbered ``seed`` (0 .. 2**63-1), as 52 card ids."""
    out = np.empty(DECK_CARDS, dtype=np.int64)
    _deal_kernel(check_seed(seed), out)
    return out


def deals_from_seeds(seeds) -> np.ndarray:
    """Deals for many seeds at once: an ``(n, 52)`` int64 array (rows in seed order)."""
    s = np.asarray(seeds, dtype=np.int64)
    if s.size and (s.min() < 0):
        raise ValueError(f"seed {int(s.min())} is out of range")
    out = np.empty((s.size, DECK_CARDS), dtype=np.int64)
    _deals_kernel(s, out)
    return out


RED_ON = "\x1b[31m"
"""ANSI escape that turns the text red (hearts and diamonds in ``draw_deal(color=True)``)."""
COLOR_OFF = "\x1b[0m"
"""ANSI escape back to the terminal's own colour."""


def card_text(card: int, color: bool = False) -> str:
    """``format_card(card)``, in red for hearts and diamonds when ``color`` (ANSI escapes: for a
    terminal only; the caller decides, ``cli.common.want_color``)."""
    text = format_card(card)
    return f"{RED_ON}{text}{COLOR_OFF}" if color and is_red(card) else text


GONE = "--"
"""How ``draw_pyramid`` shows a pyramid place whose card is gone."""


def draw_pyramid(cards, width: int = 3, color: bool = False) -> list[str]:
    """The pyramid as a triangle of card texts, one line per row: ``cards`` holds the 28 cards
    from the apex row by row, None for a place whose card is gone (drawn as ``GONE``).
    ``color``: hearts and diamonds in red (ANSI escapes add no visible width)."""
    lines = []
    k = 0
    for r in range(PYRAMID_ROWS):
        row = []
        for c in cards[k:k + r + 1]:
            text = GONE if c is None else card_text(int(c), color)
            shown = GONE if c is None else format_card(int(c))
            row.append(text + " " * (width - 1 - len(shown)))
        k += r + 1
        pad = " " * ((PYRAMID_ROWS - 1 - r) * (width + 1) // 2)
        lines.append((pad + " ".join(row)).rstrip())
    return lines


def draw_deal(deal, width: int = 3, color: bool = False) -> str:
    """The pyramid as a triangle of card texts, then the stock (top first) on one line.

    ``color``: hearts and diamonds in red (ANSI escapes, for a terminal); the layout is the same
    either way, the escapes add no visible width."""
    lines = draw_pyramid([int(c) for c in deal[:PYRAMID_CARDS]], width, color)
    lines.append("stock: " + " ".join(card_text(int(c), color) for c in deal[PYRAMID_CARDS:]))
    return "\n".join(lines)
