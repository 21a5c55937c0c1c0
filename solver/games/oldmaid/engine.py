"""Old Maid (docs/oldmaid.md): the deck, the deal, the pair discards and random play.

Hands are one-deck card bitmasks (``uint64``, bit = card id of ``solver.core.cards``; the joker of the
joker variant is bit 52), so a hand's suit ``s`` is the 13-bit field ``hand >> 13*s``.

*Pair classes.* Two cards pair when they have the same rank (standard) or the same rank and the
same colour (colour variant: clubs+spades, diamonds+hearts). The joker pairs with nothing. After
the deal every player discards pairs until at most one card of each class is left; with three of
a class the card of the highest suit (spades > hearts > diamonds > clubs) is kept. From then on a
hand never holds two cards of one class, so a drawn card pairs with at most one card.

*Randomness.* A game played from seed ``s`` takes everything from ``rng.new_state(s)``: first
``rng.shuffle`` of the variant's deck in ascending card-id order, then one ``rng.below(size)`` per
draw, which picks the ``k``-th card (ascending card id) of the hand drawn from
(``bits.random_bit``). Picking a uniform
position in a hand that is "shuffled before every draw" is the same as this. Game ``i`` of a
simulation with seed ``S`` is the game of seed ``rng.stream_seed(S, i)`` with dealer ``i mod n``,
so ``show old-maid --seed S --game i`` replays exactly that game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, NamedTuple

import numpy as np
from numba import njit

from solver.core.cards import (CLUBS, JACK, JOKER_RED, NATURAL_CARDS, QUEEN, RANKS_PER_SUIT,
                          card_rank, format_card, is_joker, is_red, make_card)
from solver.core.bits import deal_round_robin, lowest_bit, popcount, random_bit
from solver.core.rng import check_seed, new_state, stream_seed
from solver.core.validate import check_int

GAME_NAME = "old-maid"
"""The game's name in commands and JSON."""
MIN_PLAYERS, MAX_PLAYERS = 2, 4
VARIANTS = ("colour", "joker", "jack")
"""Option names of the variants (docs/oldmaid.md) (``color`` is accepted for ``colour``)."""
_ALIASES = {"color": "colour", "colours": "colour", "colors": "colour"}

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_RANK_FIELD = np.uint64((1 << RANKS_PER_SUIT) - 1)
"""13 bits: one suit's field of a hand, bit r-1 = rank r."""
_S13, _S26, _S39 = np.uint64(13), np.uint64(26), np.uint64(39)
_CLUB_BITS = _RANK_FIELD
_DIAMOND_BITS = _RANK_FIELD << _S13
_HEART_BITS = _RANK_FIELD << _S26
_SPADE_BITS = _RANK_FIELD << _S39
_NATURAL_BITS = np.uint64((1 << NATURAL_CARDS) - 1)
"""Bits 0..51: the natural cards; anything above (the joker) never pairs."""

LOG_FIELDS = ("drawer", "drawn_from", "card", "paired")
"""Columns of a draw log row: absolute seats, the card id, 1 if it made a pair."""


# --------------------------------------------------------------------------------------------
# Rules as data


@dataclass(frozen=True)
class OldMaidRules:
    """One rule set of docs/oldmaid.md.

    colour: pairs must also share colour (red with red, black with black).
    joker:  keep all 52 cards and add the red joker (``RJ``) as the odd card (53 cards).
    jack:   remove the jack of clubs instead of the queen of clubs; the odd jack loses.
    """

    colour: bool = False
    joker: bool = False
    jack: bool = False

    def __post_init__(self) -> None:
        if self.joker and self.jack:
            raise ValueError("the joker and jack variants cannot be combined: both decide what "
                             "the odd card is (joker: add a joker; jack: remove a jack)")

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(v for v in VARIANTS if getattr(self, v))

    @property
    def name(self) -> str:
        return "+".join(self.variants) or "standard"

    def to_dict(self, players: int) -> dict:
        """The rules as JSON: the rule set's name, its variants and the number of players."""
        return {"name": self.name, "variants": list(self.variants), "players": int(players)}

    @property
    def removed_card(self) -> int | None:
        """The card taken out of the 52 (``None`` in the joker variant)."""
        if self.joker:
            return None
        return make_card(JACK if self.jack else QUEEN, CLUBS)

    def deck(self) -> np.ndarray:
        """The cards in play, ascending card id (the order before the shuffle)."""
        cards = [c for c in range(NATURAL_CARDS) if c != self.removed_card]
        if self.joker:
            cards.append(JOKER_RED)
        return np.array(cards, dtype=np.int64)

    def pair_class(self, card: int) -> tuple:
        """Cards pair exactly when they are different and share this class."""
        if is_joker(card):
            return ("joker", card)
        return (card_rank(card), is_red(card)) if self.colour else (card_rank(card),)

    def is_odd_card(self, card: int) -> bool:
        """True if ``card`` can be the card left at the end (the Old Maid)."""
        if self.joker:
            return card == JOKER_RED
        rank = JACK if self.jack else QUEEN
        if card_rank(card) != rank or is_joker(card):
            return False
        # With colour pairs only the partner of the removed club (the spade) stays unpaired.
        return not self.colour or not is_red(card)

    def describe(self) -> str:
        deck = f"{len(self.deck())} cards"
        odd = "the red joker" if self.joker else f"the odd {'jack' if self.jack else 'queen'}"
        removed = "" if self.removed_card is None else f", {format_card(self.removed_card)} removed"
        pairs = "same rank and colour" if self.colour else "same rank"
        return f"{self.name}: {deck}{removed}; pairs of {pairs}; {odd} loses"


def find_rules(variants: Iterable[str] | str | None = ()) -> OldMaidRules:
    """Rules for a list of variant names (each may be a comma-separated list; ``standard`` and
    empty names are ignored). Raises ``ValueError`` for unknown names or impossible combinations."""
    if isinstance(variants, str):
        variants = [variants]
    chosen: set[str] = set()
    for item in variants or ():
        for raw in str(item).split(","):
            key = raw.strip().lower()
            key = _ALIASES.get(key, key)
            if key in ("", "standard", "none"):
                continue
            if key not in VARIANTS:
                raise ValueError(f"unknown Old Maid variant {raw.strip()!r} "
                                 f"(choose from {', '.join(VARIANTS)})")
            chosen.add(key)
    return OldMaidRules(**{v: True for v in chosen})


def check_players(players: int) -> int:
    return check_int(players, f"players must be an integer, not {players!r}",
                     MIN_PLAYERS, MAX_PLAYERS,
                     f"Old Maid is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")


def check_count(value: int, what: str) -> int:
    return check_int(value, f"{what} must be a positive integer, not {value!r}", 1)


def check_dealer(dealer: int, players: int) -> int:
    return check_int(dealer, f"dealer must be a seat 0..{players - 1}, not {dealer!r}", 0, players - 1)


# --------------------------------------------------------------------------------------------
# Kernels


class Table(NamedTuple):
    """Who plays one game and how its cards pair: the number of players, the dealer's seat
    (absolute) and the colour rule; the kernels take it as one argument."""
    n: int
    dealer: int
    colour: bool


class Outcome(NamedTuple):
    """How a random play ended (``_play``): the loser's absolute seat, the draws, the pairs made
    by draws and the card left (the Old Maid)."""
    loser: int
    draws: int
    pairs: int
    last_card: int


class GameColumns(NamedTuple):
    """Per-game outputs of ``_play_games``, row ``g`` for the ``g``-th game of the chunk: the loser
    relative to the dealer, the draws, the card left, and the pairs discarded after the deal
    (column 0) and during play (column 1)."""
    loser: np.ndarray
    draws: np.ndarray
    last_card: np.ndarray
    pairs: np.ndarray


@njit(cache=True)
def _partners(b, colour):
    """Mask of the cards that pair with the single card ``b`` (0 for the joker)."""
    if colour:
        # Clubs pair with spades (39 bits up), diamonds with hearts (13 bits up).
        return (((b & _CLUB_BITS) << _S39) | ((b & _SPADE_BITS) >> _S39)
                | ((b & _DIAMOND_BITS) << _S13) | ((b & _HEART_BITS) >> _S13))
    f = (b | (b >> _S13) | (b >> _S26) | (b >> _S39)) & _RANK_FIELD
    return (f | (f << _S13) | (f << _S26) | (f << _S39)) & ~b


@njit(cache=True)
def _discard_pairs(hand, colour):
    """The hand after discarding all pairs: one card of each class with an odd count stays,
    the one of the highest suit."""
    kept = hand & ~_NATURAL_BITS
    f0 = hand & _RANK_FIELD
    f1 = (hand >> _S13) & _RANK_FIELD
    f2 = (hand >> _S26) & _RANK_FIELD
    f3 = (hand >> _S39) & _RANK_FIELD
    if colour:
        kept |= (f0 & ~f3) | ((f3 & ~f0) << _S39) | ((f1 & ~f2) << _S13) | ((f2 & ~f1) << _S26)
        return kept
    odd = f0 ^ f1 ^ f2 ^ f3
    kept |= (f3 & odd) << _S39
    odd &= ~f3
    kept |= (f2 & odd) << _S26
    odd &= ~f2
    kept |= (f1 & odd) << _S13
    odd &= ~f1
    kept |= f0 & odd
    return kept


@njit(cache=True)
def _discard_all(hands, sizes, n, colour):
    """Every player discards pairs; returns the number of pairs discarded."""
    pairs = 0
    for p in range(n):
        before = popcount(hands[p])
        hands[p] = _discard_pairs(hands[p], colour)
        sizes[p] = popcount(hands[p])
        pairs += (before - sizes[p]) // 2
    return pairs


@njit(cache=True)
def _play(state, hands, sizes, table, log):
    """Random play from the hands after the discards until one card is left.

    Returns the ``Outcome`` (the loser's seat absolute). Writes one row per draw to ``log``
    (``LOG_FIELDS``) while rows are left (pass a 0-row array for none)."""
    n, colour = table.n, table.colour
    total = 0
    for p in range(n):
        total += sizes[p]
    turn = table.dealer + 1
    if turn == n:
        turn = 0
    while sizes[turn] == 0 and total > 0:
        turn = turn + 1 if turn + 1 < n else 0
    draws = 0
    pairs = 0
    while total > 1:
        src = turn + 1 if turn + 1 < n else 0
        while sizes[src] == 0:
            src = src + 1 if src + 1 < n else 0
        c = random_bit(state, hands[src])
        b = _U1 << np.uint64(c)
        hands[src] ^= b
        sizes[src] -= 1
        mate = hands[turn] & _partners(b, colour)
        if mate != _U0:
            hands[turn] ^= mate
            sizes[turn] -= 1
            total -= 2
            pairs += 1
        else:
            hands[turn] |= b
            sizes[turn] += 1
        if draws < log.shape[0]:
            log[draws, 0] = turn
            log[draws, 1] = src
            log[draws, 2] = c
            log[draws, 3] = 1 if mate != _U0 else 0
        draws += 1
        turn = src
        while sizes[turn] == 0:
            turn = turn + 1 if turn + 1 < n else 0
    loser = 0
    while sizes[loser] == 0:
        loser += 1
    return Outcome(loser, draws, pairs, lowest_bit(hands[loser]))


@njit(cache=True)
def _play_games(seed, first, count, n, deck, colour, out):
    """Games ``first .. first+count-1`` of a run: game ``i`` from stream ``i``, dealer ``i % n``;
    row ``g`` of the ``GameColumns`` ``out`` gets game ``first + g``."""
    state = new_state(0)
    work = np.empty_like(deck)
    hands = np.zeros(n, dtype=np.uint64)
    sizes = np.zeros(n, dtype=np.int64)
    no_log = np.empty((0, 4), dtype=np.int64)
    for g in range(count):
        i = first + g
        state[0] = stream_seed(seed, i)
        dealer = i % n
        deal_round_robin(state, deck, work, n, dealer, hands, deck.size)
        out.pairs[g, 0] = _discard_all(hands, sizes, n, colour)
        end = _play(state, hands, sizes, Table(n, dealer, colour), no_log)
        out.loser[g] = (end.loser - dealer) % n
        out.draws[g] = end.draws
        out.pairs[g, 1] = end.pairs
        out.last_card[g] = end.last_card


@njit(cache=True)
def _play_trials(seed, first, count, table, start_hands, loser, draws):
    """Trials ``first ..`` of one fixed deal: every trial from the same hands, its own stream."""
    n = table.n
    state = new_state(0)
    hands = np.zeros(n, dtype=np.uint64)
    sizes = np.zeros(n, dtype=np.int64)
    no_log = np.empty((0, 4), dtype=np.int64)
    for g in range(count):
        state[0] = stream_seed(seed, first + g)
        for p in range(n):
            hands[p] = start_hands[p]
            sizes[p] = popcount(start_hands[p])
        end = _play(state, hands, sizes, table, no_log)
        loser[g] = (end.loser - table.dealer) % n
        draws[g] = end.draws


@njit(cache=True)
def _discard_and_play(state, table, kept, log):
    """Discard pairs from the dealt hands ``kept`` (in place), then play on with a copy."""
    sizes = np.zeros(table.n, dtype=np.int64)
    _discard_all(kept, sizes, table.n, table.colour)
    hands = kept.copy()
    return _play(state, hands, sizes, table, log)


@njit(cache=True)
def _deal_and_play(seed, table, deck, dealt, kept, log):
    """One whole game from ``seed`` with its deal, discards and draw log (for ``show``)."""
    state = new_state(seed)
    work = np.empty_like(deck)
    deal_round_robin(state, deck, work, table.n, table.dealer, dealt, deck.size)
    for p in range(table.n):
        kept[p] = dealt[p]
    return _discard_and_play(state, table, kept, log)


@njit(cache=True)
def _play_dealt(seed, table, kept, log):
    """Play from hands as dealt (``kept``, discarded in place) with randomness from ``seed``."""
    return _discard_and_play(new_state(seed), table, kept, log)


# --------------------------------------------------------------------------------------------
# Public API

_LOG_ROWS = 4096
"""Draw-log rows tried first by ``play_game`` (a longer game is replayed with a larger log)."""


def sort_hand(cards) -> list[int]:
    """Cards by rank then suit (the joker last), as a player would hold them."""
    return sorted(cards, key=lambda c: (card_rank(c) or 99, c))


def hand_cards(mask: int) -> list[int]:
    """Card ids of a hand mask (natural cards and the joker bit), lowest first."""
    return [c for c in range(JOKER_RED + 1) if int(mask) >> c & 1]


@dataclass(frozen=True)
class OldMaidGame:
    """One seeded game: the deal, the hands after the discards, the draw log and the loser.

    Seats are absolute (0..n-1); ``loser_seat`` is the loser relative to the dealer."""

    seed: int
    players: int
    dealer: int
    rules: OldMaidRules
    dealt: list[list[int]]
    hands: list[list[int]]
    log: np.ndarray
    loser: int
    last_card: int

    @property
    def loser_seat(self) -> int:
        return (self.loser - self.dealer) % self.players

    @property
    def draws(self) -> int:
        return len(self.log)


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a simulation run with ``seed``."""
    check_seed(seed)
    index = check_int(index, f"game index must be a non-negative integer, not {index!r}", 0)
    return int(stream_seed(seed, index))


def _logged(play, n: int) -> tuple:
    """Run ``play(dealt, kept, log)`` with a log large enough for the whole game."""
    rows = _LOG_ROWS
    while True:
        dealt = np.zeros(n, dtype=np.uint64)
        kept = np.zeros(n, dtype=np.uint64)
        log = np.zeros((rows, len(LOG_FIELDS)), dtype=np.int64)
        end = play(dealt, kept, log)
        if end.draws <= rows:
            return dealt, kept, log[:end.draws].copy(), int(end.loser), int(end.last_card)
        rows = int(end.draws)


def play_game(seed: int, players: int, rules: OldMaidRules | None = None,
              dealer: int = 0) -> OldMaidGame:
    """Deal and play the game of ``seed`` (deal and draws from one stream) with its full log."""
    return _play_seeded(check_seed(seed), check_players(players), rules or OldMaidRules(),
                        check_dealer(dealer, check_players(players)))


def _play_seeded(seed: int, n: int, rules: OldMaidRules, dealer: int) -> OldMaidGame:
    """``play_game`` for checked input; ``seed`` may be any 64-bit stream seed."""
    deck = rules.deck()
    dealt, kept, log, loser, last = _logged(
        lambda d, k, g: _deal_and_play(np.uint64(seed), Table(n, dealer, rules.colour), deck, d, k,
                                       g), n)
    return OldMaidGame(seed, n, dealer, rules, [hand_cards(h) for h in dealt],
                       [hand_cards(h) for h in kept], log, loser, last)


def check_hands(hands, rules: OldMaidRules) -> list[list[int]]:
    """Validate hands given as lists of card ids: 2..4 hands, cards of the rules' deck, no card
    twice, and exactly one pair class with an odd number of cards, the odd card's (otherwise
    the game could not end with one card left). Returns the hands as lists of ints."""
    hands = [[int(c) for c in h] for h in hands]
    check_players(len(hands))
    deck = set(rules.deck().tolist())
    seen: set[int] = set()
    counts: dict[tuple, int] = {}
    for p, h in enumerate(hands):
        for c in h:
            if c not in deck:
                text = format_card(c) if 0 <= c < 108 else str(c)
                raise ValueError(f"player {p}: {text} is not in the {rules.name} deck")
            if c in seen:
                raise ValueError(f"{format_card(c)} is dealt twice")
            seen.add(c)
            counts[rules.pair_class(c)] = counts.get(rules.pair_class(c), 0) + 1
    odd = [k for k, v in counts.items() if v % 2]
    if len(odd) != 1 or not any(rules.is_odd_card(c) for c in seen if rules.pair_class(c) in odd):
        raise ValueError("the hands must hold complete pairs plus exactly one odd card "
                         f"({rules.describe().split('; ')[-1]})")
    return hands


def play_hands(hands, rules: OldMaidRules | None = None, dealer: int = 0,
               seed: int = 0) -> OldMaidGame:
    """Play from given hands as dealt (``hands[p]``: card ids of player ``p``): pair discards,
    then random play with draws from ``rng.new_state(seed)``. For constructed situations."""
    rules = rules or OldMaidRules()
    hands = check_hands(hands, rules)
    n = len(hands)
    dealer = check_dealer(dealer, n)
    seed = check_seed(seed)
    masks = np.array([sum(1 << c for c in h) for h in hands], dtype=np.uint64)

    def play(d, k, g):
        d[:] = masks
        k[:] = masks
        return _play_dealt(np.uint64(seed), Table(n, dealer, rules.colour), k, g)

    dealt, kept, log, loser, last = _logged(play, n)
    return OldMaidGame(seed, n, dealer, rules, [hand_cards(h) for h in dealt],
                       [hand_cards(h) for h in kept], log, loser, last)


def simulation_game(seed: int, index: int, players: int,
                    rules: OldMaidRules | None = None) -> OldMaidGame:
    """Game ``index`` of ``simulate(seed, ...)``, replayed with its log."""
    n = check_players(players)
    return _play_seeded(game_seed(seed, index), n, rules or OldMaidRules(), index % n)
