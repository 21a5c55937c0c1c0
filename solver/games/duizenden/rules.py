"""Duizenden legal actions of a given situation, in plain Python terms, through the kernels.

``Situation`` describes one moment of a round in card ids (a hand, the table melds, the pot, the
player's state and the variants); the functions list the legal actions there exactly as random
play sees them, by running the kernels' enumerators in count mode and then decoding each index.
This is what ``pyramid`` shows and what the rule tests construct.

Melds are returned in one canonical form:
``("run", suit, lo, hi, joker_positions)`` (positions 1..14, 14 = ace high) or
``("set", rank, (clubs, diamonds, hearts, spades), jokers)`` (naturals per suit, joker count).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.core.cards import CARDS_PER_DECK, NATURAL_CARDS, RANKS_PER_SUIT, parse_card
from solver.games.duizenden.melds import (
    ACE_HIGH, CTX_EXTRA, CTX_EXTRA_QUEENS, CTX_FLAGS, CTX_LEN, CTX_OPENED, CTX_OPENING_TURN,
    CTX_POOL, CTX_PROV, CTX_QUEENS, FLAG_JOKER_EXCHANGE, KIND_JOKER, M_CARDS, M_HI, M_JOKERS,
    M_KEY, M_LO, M_N, M_OWNER, M_POS, M_TYPE, MAX_MELDS, MAX_RUN, MELD_RUN, MELD_SET, MELD_WIDTH,
    MIN_MELD, N_KINDS, QS_KIND, SPEC_HI, SPEC_JOKERS, SPEC_KEY, SPEC_LEN, SPEC_LO, SPEC_SUITS,
    SPEC_TYPE, hand_melds, _layoffs, _swaps, run_kind)
from solver.games.duizenden.play import _may_discard


def kind_of(card: int) -> int:
    """The kernels' kind of a card id: its base 0..51, or 52 for any joker."""
    b = card % CARDS_PER_DECK
    return KIND_JOKER if b >= NATURAL_CARDS else b


def kind_counts(cards) -> np.ndarray:
    """Count array over the 53 kinds of a list of card ids."""
    cnt = np.zeros(N_KINDS, dtype=np.int64)
    for c in cards:
        cnt[kind_of(c)] += 1
    return cnt


def cards_arg(cards) -> list[int]:
    """Card ids from ids or text (``"5h 6h RJ"``), through the one card parser."""
    if isinstance(cards, str):
        return [parse_card(t) for t in cards.split()]
    return [int(c) for c in cards]


def meld_row(cards, lo: int | None = None, owner: int = 0) -> np.ndarray:
    """A table meld row. A run is given in position order from ``lo`` (jokers where they stand);
    without ``lo`` the cards are a set. Raises ``ValueError`` if the cards do not form that meld."""
    cards = cards_arg(cards)
    row = np.zeros(MELD_WIDTH, dtype=np.int64)
    n = len(cards)
    jokers = sum(1 for c in cards if kind_of(c) == KIND_JOKER)
    if n < MIN_MELD or 2 * jokers >= n:
        raise ValueError(f"a meld needs 3+ cards with jokers fewer than half, not {cards}")
    naturals = [kind_of(c) for c in cards if kind_of(c) != KIND_JOKER]
    row[M_N], row[M_JOKERS], row[M_OWNER] = n, jokers, owner
    row[M_CARDS:M_CARDS + n] = cards
    if lo is None:
        ranks = {k % RANKS_PER_SUIT for k in naturals}
        if len(ranks) != 1:
            raise ValueError(f"a set needs one rank: {cards}")
        row[M_TYPE], row[M_KEY] = MELD_SET, ranks.pop() + 1
        return row
    suits = {k // RANKS_PER_SUIT for k in naturals}
    hi = lo + n - 1
    if len(suits) != 1 or lo < 1 or hi > ACE_HIGH or n > MAX_RUN:
        raise ValueError(f"not a run from position {lo}: {cards}")
    suit = suits.pop()
    for i, c in enumerate(cards):
        if kind_of(c) != KIND_JOKER and kind_of(c) != run_kind(suit, lo + i):
            raise ValueError(f"card {i + 1} of {cards} does not fit position {lo + i}")
    row[M_TYPE], row[M_KEY], row[M_LO], row[M_HI] = MELD_RUN, suit, lo, hi
    row[M_POS:M_POS + n] = range(lo, hi + 1)
    return row


@dataclass
class Situation:
    """One player's moment in a round.

    hand:         the player's cards (ids or text).
    table:        table melds as ``meld_row`` arrays.
    opened:       the player has opened (before this turn, or already in it).
    opening_turn: the player had not opened at the start of this turn.
    provisional:  points melded so far this turn by a player who has not opened.
    pot:          the discard pile, bottom first (top = last).
    flags:        ``Variants.flags``.
    """

    hand: list = field(default_factory=list)
    table: list = field(default_factory=list)
    opened: bool = False
    opening_turn: bool | None = None
    provisional: int = 0
    pot: list = field(default_factory=list)
    flags: int = 0

    def __post_init__(self) -> None:
        self.hand = cards_arg(self.hand)
        self.pot = cards_arg(self.pot)
        if self.opening_turn is None:
            self.opening_turn = not self.opened

    def ctx(self) -> np.ndarray:
        c = np.zeros(CTX_LEN, dtype=np.int64)
        c[CTX_POOL] = len(self.hand)
        c[CTX_QUEENS] = sum(1 for x in self.hand if kind_of(x) == QS_KIND)
        c[CTX_OPENED] = int(self.opened)
        c[CTX_PROV] = self.provisional
        c[CTX_OPENING_TURN] = int(self.opening_turn)
        c[CTX_FLAGS] = self.flags
        return c

    def melds_array(self) -> tuple[np.ndarray, int]:
        arr = np.zeros((MAX_MELDS, MELD_WIDTH), dtype=np.int64)
        for i, row in enumerate(self.table):
            arr[i] = row
        return arr, len(self.table)


def decode_spec(spec: np.ndarray) -> tuple:
    """The canonical form of a kernel meld spec."""
    if spec[SPEC_TYPE] == MELD_RUN:
        jm = int(spec[SPEC_JOKERS])
        return ("run", int(spec[SPEC_KEY]), int(spec[SPEC_LO]), int(spec[SPEC_HI]),
                tuple(p for p in range(1, ACE_HIGH + 1) if jm >> p & 1))
    return ("set", int(spec[SPEC_KEY]), tuple(int(x) for x in spec[SPEC_SUITS:SPEC_SUITS + 4]),
            int(spec[SPEC_JOKERS]))


def _melds_of(cnt, must, ctx) -> list[tuple]:
    spec = np.zeros(SPEC_LEN, dtype=np.int64)
    n = hand_melds(cnt, must, ctx, -1, spec)
    out = []
    for i in range(n):
        hand_melds(cnt, must, ctx, i, spec)
        out.append(decode_spec(spec))
    return out


def meld_actions(s: Situation) -> list[tuple]:
    """Every new meld the hand may lay now (meld step)."""
    return _melds_of(kind_counts(s.hand), -1, s.ctx())


def pot_actions(s: Situation) -> list[tuple]:
    """Every meld that takes the pot: the top discard with at least two hand cards (empty unless
    the player has opened and the pot is not empty)."""
    if not s.opened or not s.pot:
        return []
    top = kind_of(s.pot[-1])
    cnt = kind_counts(s.hand)
    cnt[top] += 1
    ctx = s.ctx()
    ctx[CTX_POOL] += 1
    ctx[CTX_OPENING_TURN] = 0
    ctx[CTX_EXTRA] = len(s.pot) - 1
    ctx[CTX_EXTRA_QUEENS] = sum(1 for c in s.pot[:-1] if kind_of(c) == QS_KIND)
    return _melds_of(cnt, top, ctx)


def _listed(fn, s: Situation) -> list[tuple]:
    if not s.opened:
        return []
    cnt = kind_counts(s.hand)
    arr, n_melds = s.melds_array()
    ctx = s.ctx()
    out3 = np.zeros(3, dtype=np.int64)
    n = fn(cnt, arr, n_melds, ctx, -1, out3)
    res = []
    for i in range(n):
        fn(cnt, arr, n_melds, ctx, i, out3)
        res.append(tuple(int(x) for x in out3))
    return res


def layoff_actions(s: Situation) -> list[tuple]:
    """Every lay-off ``(meld index, kind, run position or 0)``; none before opening."""
    return _listed(_layoffs, s)


def swap_actions(s: Situation) -> list[tuple]:
    """Variant 2: every joker exchange ``(meld index, natural kind, joker slot)`` (none without
    the variant, as in the kernels' meld step)."""
    if not s.flags & FLAG_JOKER_EXCHANGE:
        return []
    return _listed(_swaps, s)


def discard_actions(s: Situation) -> list[int]:
    """The kinds the hand may discard now (``opened_now``: opened in this very turn)."""
    opened_now = s.opened and s.opening_turn
    h = len(s.hand)
    kinds = sorted({kind_of(c) for c in s.hand})
    return [k for k in kinds if _may_discard(k, h, s.flags, opened_now)]

