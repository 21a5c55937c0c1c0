"""One Card: the rules of docs/onecard.md as numba kernels over bitmask hands.

Cards use the project encoding (``solver/core/cards.py``). The deck is the euchre deck, 9 10 J Q K A of
every suit (24 cards), plus one joker: the red joker ``RJ`` (id 52), or, on a table without a
joker, the two of diamonds ``2d`` (id 14), which then is *only* the joker (it belongs to no suit).

A hand, a trick or a pile of captured cards is a ``uint64`` mask with bit ``card id`` set
(``_BIT[card]``); the 24 euchre cards of suit ``s`` are ``EUCHRE_SUIT_MASKS[s]``, which never holds
the joker. Seats are ``0 .. n-1`` clockwise; "left of" a seat is the next seat clockwise.

Strength inside a suit (``UPTOWN_STRENGTH[card]``): 9 = 0, 10 = 1, J = 2, Q = 3, K = 4, A = 5;
downtown is ``5 - uptown``. With trumps the joker is the lowest trump (below the trump 9).

Random play (every decision uniform among the legal choices, drawn from the game's SplitMix64
stream with ``below``; the plain-Python reference in tests/ consumes the stream identically):

* deal: the 25 cards in the fixed order ``DECK_ORDER`` (the 24 euchre cards by id, then the joker)
  are shuffled with ``rng.shuffle``; card ``j`` (``j < 24``) goes to seat ``dealer + 1 + j``
  (one at a time, starting left of the dealer); card 24 is the one card;
* a bid: ``below(1 + number of legal bids)``: 0 = pass, ``r`` = the ``r``-th lowest legal bid;
* a card: ``below(number of legal cards)``: the ``r``-th legal card in increasing card id;
* the downtown switch: ``below(2)``: 1 = switch to downtown.

The first dealer of a game is ``below(n)`` drawn first from the game's stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from solver.core.cards import (ACE, DIAMONDS, JOKER_RED, RANK_OF, SUIT_OF, SUITS, format_card,
                          make_card)
from solver.core.bits import deal_round_robin, popcount, random_bit
from solver.core.rng import below
from solver.core.validate import check_int

MIN_PLAYERS, MAX_PLAYERS = 2, 4
GAME_NAME = "one-card"
"""The game's name in commands and JSON."""
EUCHRE_RANKS = (9, 10, 11, 12, 13, ACE)
"""The ranks of a euchre deck from low to high uptown (9 lowest, ace highest)."""
DECK_SIZE = 25
"""24 euchre cards and one joker."""
DEALT_CARDS = 24
"""Cards dealt to the players (12 x 2, 8 x 3 or 6 x 4); the 25th is the one card."""
HAND_SIZE = {2: 12, 3: 8, 4: 6}
MIN_BID = {2: 8, 3: 7, 4: 6}
"""The lowest legal bid by number of players."""
MAX_BID = 15
TARGET = 30
"""The game ends after the round in which somebody reaches 30 points."""
JOKER_POINTS = 3
ROUND_POINTS = DEALT_CARDS + JOKER_POINTS
"""27 points in every round: 24 cards at 1 point and the joker at 3."""
NO_BID_LEAD = {2: 1, 3: 1, 4: 2}
"""Seats left of the dealer of the player who leads when nobody bids (decided): 2 players the
non-dealer, 3 players the player left of the dealer, 4 players the player across."""
JOKER_CARD = JOKER_RED
"""The joker of a table with a joker: ``RJ``."""
NO_JOKER_CARD = make_card(2, DIAMONDS)
"""The joker of a table without one: the two of diamonds."""
MAX_ROUNDS = 1000
"""Guard on the rounds of one game (ties at the top play on); never reached in practice."""
STRENGTH_LEVELS = len(EUCHRE_RANKS)

# Round result fields (``res`` array of ``play_round_kernel``).
RES_BIDDER, RES_BID, RES_TRUMP, RES_LEADER, RES_LAST_WINNER, RES_ONE_CARD, RES_SWITCH, \
    RES_NBIDS = range(8)
RES_FIELDS = 8
# Columns of one row of the trick log: the cards in play order, then leader, winner, switch flag.
TL_LEADER, TL_WINNER, TL_SWITCH = MAX_PLAYERS, MAX_PLAYERS + 1, MAX_PLAYERS + 2
TRICK_COLS = MAX_PLAYERS + 3
MAX_TRICKS = max(HAND_SIZE.values())
MAX_BID_EVENTS = 32
"""Bid log rows (seat, bid or 0 for a pass); an auction has at most 10 bids and 4 passes."""

_ZERO = np.uint64(0)


class Table(NamedTuple):
    """What the round kernels need of the rules: the number of players, the deck in its order
    before the shuffle (``OneCardRules.deck``) and the joker's card id."""
    n: int
    deck: np.ndarray
    joker: int


class RoundBuffers(NamedTuple):
    """The arrays of one round, reused round after round: the shuffle buffer, the hands in play
    and as dealt, the captured piles (masks), the captured points and the round scores by seat,
    the results (``RES_*``), the bid log and the trick log."""
    buf: np.ndarray
    hands: np.ndarray
    dealt: np.ndarray
    cap: np.ndarray
    pts: np.ndarray
    scored: np.ndarray
    res: np.ndarray
    bid_log: np.ndarray
    trick_log: np.ndarray


def _build_tables():
    bit = np.array([1 << c for c in range(64)], dtype=np.uint64)
    strength = np.full(len(RANK_OF), -1, dtype=np.int64)
    suit_masks = np.zeros(SUITS, dtype=np.uint64)
    euchre = []
    for s in range(SUITS):
        for level, rank in enumerate(EUCHRE_RANKS):
            c = make_card(rank, s)
            strength[c] = level
            suit_masks[s] |= bit[c]
            euchre.append(c)
    return bit, strength, suit_masks, np.array(sorted(euchre), dtype=np.int64)


_BIT, UPTOWN_STRENGTH, EUCHRE_SUIT_MASKS, EUCHRE_CARDS = _build_tables()
"""``_BIT[c]``: the mask of card ``c``; ``UPTOWN_STRENGTH[c]``: 0 (nine) .. 5 (ace), -1 for a card
outside the euchre deck; ``EUCHRE_SUIT_MASKS[s]``: the six euchre cards of suit ``s``;
``EUCHRE_CARDS``: the 24 euchre card ids in increasing order."""
_MIN_BID = np.array([0, 0, MIN_BID[2], MIN_BID[3], MIN_BID[4]], dtype=np.int64)
_HAND_SIZE = np.array([0, 0, HAND_SIZE[2], HAND_SIZE[3], HAND_SIZE[4]], dtype=np.int64)
_NO_BID_LEAD = np.array([0, 0, NO_BID_LEAD[2], NO_BID_LEAD[3], NO_BID_LEAD[4]], dtype=np.int64)
_SUIT_OF = SUIT_OF


@dataclass(frozen=True)
class OneCardRules:
    """One table of One Card: the number of players and whether the deck has a joker.

    players: 2 to 4.
    joker:   True (default) plays the red joker; False is the table without a joker
             (docs/onecard.md), where the two of diamonds is the joker (and only the joker).
    """

    players: int = 4
    joker: bool = True

    def __post_init__(self) -> None:
        check_int(self.players, f"players must be an integer, not {self.players!r}",
                  MIN_PLAYERS, MAX_PLAYERS,
                  f"One Card is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {self.players}")

    @property
    def joker_card(self) -> int:
        return JOKER_CARD if self.joker else NO_JOKER_CARD

    @property
    def hand_size(self) -> int:
        return HAND_SIZE[self.players]

    @property
    def min_bid(self) -> int:
        return MIN_BID[self.players]

    def deck(self) -> np.ndarray:
        """The 25 card ids in the fixed pre-shuffle order: euchre cards by id, then the joker."""
        return np.append(EUCHRE_CARDS, self.joker_card).astype(np.int64)

    def describe(self) -> str:
        j = "joker RJ" if self.joker else "no joker (2d is the joker)"
        return (f"{self.players} players, {self.hand_size} cards each, bids {self.min_bid}.."
                f"{MAX_BID}, {j}, game to {TARGET}")

    def to_dict(self) -> dict:
        return {"players": int(self.players), "joker": format_card(self.joker_card),
                "hand_size": self.hand_size, "min_bid": self.min_bid, "max_bid": MAX_BID,
                "target": TARGET}


# ---------------------------------------------------------------------------------------------
# Kernels.


@njit(cache=True)
def _legal(hand, led, trump, jbit, lead_without_joker):
    """Legal cards of ``hand``. ``led``: the suit to follow, -1 when no suit is set yet (leading, or
    following a joker led without trumps). ``trump``: -1 without trumps. ``jbit``: the joker's bit.
    ``lead_without_joker``: the bidder's lead to the first trick (the joker may not be led)."""
    if led < 0:
        if lead_without_joker:
            return hand & ~jbit
        return hand
    follow = hand & EUCHRE_SUIT_MASKS[led]
    if led == trump:
        follow |= hand & jbit
    if follow != _ZERO:
        return follow
    return hand


@njit(cache=True)
def _next_led(led, card, trump, joker):
    """The suit to follow once ``card`` is played: the first card sets it (the joker sets the
    trump suit, or nothing without trumps, so that the next card sets it)."""
    if led >= 0:
        return led
    return trump if card == joker else _SUIT_OF[card]


@njit(cache=True)
def _trick_winner(cards, n, led, trump, joker, downtown):
    """Index (play order) of the winning card of a full trick: the highest trump (the joker the
    lowest trump) if any, else the highest card of the suit led, in the current order."""
    best = -1
    best_key = -1
    for i in range(n):
        c = cards[i]
        key = -1
        if trump >= 0 and (c == joker or _SUIT_OF[c] == trump):
            key = 100 + (-1 if c == joker else UPTOWN_STRENGTH[c])
        elif c != joker and _SUIT_OF[c] == led:
            key = STRENGTH_LEVELS - 1 - UPTOWN_STRENGTH[c] if downtown else UPTOWN_STRENGTH[c]
        if key > best_key:
            best_key = key
            best = i
    return best


@njit(cache=True)
def _deal(state, n, dealer, deck, buf, hands):
    """Shuffle the 25 cards, deal 24 one at a time from left of the dealer; return the one card."""
    deal_round_robin(state, deck, buf, n, dealer, hands, DEALT_CARDS)
    return buf[DEALT_CARDS]


@njit(cache=True)
def _bidding(state, n, dealer, bid_log, res):
    """The auction from left of the dealer; passes are final. Sets bidder (-1: nobody), bid, the
    number of bid log rows (seat, bid or 0 for a pass) and the first leader in ``res``: the
    bidder, or with no bid the player ``NO_BID_LEAD`` seats left of the dealer."""
    min_bid = _MIN_BID[n]
    active = (1 << n) - 1
    high = 0
    bidder = -1
    nlog = 0
    seat = (dealer + 1) % n
    while seat != bidder:
        if active >> seat & 1:
            lo = max(min_bid, high + 1)
            r = below(state, 1 + MAX_BID - lo + 1)
            bid_log[nlog, 0] = seat
            if r == 0:
                active &= ~(1 << seat)
                bid_log[nlog, 1] = 0
                nlog += 1
                if active == 0:
                    break
            else:
                high = lo + r - 1
                bidder = seat
                bid_log[nlog, 1] = high
                nlog += 1
                if high == MAX_BID:
                    break
        seat = (seat + 1) % n
    res[RES_BIDDER] = bidder
    res[RES_BID] = high if bidder >= 0 else 0
    res[RES_NBIDS] = nlog
    res[RES_LEADER] = bidder if bidder >= 0 else (dealer + _NO_BID_LEAD[n]) % n


@njit(cache=True)
def _play_tricks(state, n, joker, hands, cap, res, trick_log):
    """Play every trick after the auction in ``res`` (its bidder and first leader); captured
    cards (with the one card ``res[RES_ONE_CARD]`` for the last trick's winner) go to ``cap``."""
    one_card = res[RES_ONE_CARD]
    jbit = _BIT[joker]
    bidder = res[RES_BIDDER]
    leader = res[RES_LEADER]
    res[RES_SWITCH] = -1
    trump = -1
    downtown = False
    tricks = _HAND_SIZE[n]
    for s in range(n):
        cap[s] = _ZERO
    for t in range(tricks):
        row = trick_log[t]
        led = -1
        mask = _ZERO
        for i in range(n):
            seat = (leader + i) % n
            first_lead = bidder >= 0 and t == 0 and i == 0
            c = random_bit(state, _legal(hands[seat], led, trump, jbit, first_lead))
            hands[seat] &= ~_BIT[c]
            mask |= _BIT[c]
            row[i] = c
            if first_lead:
                trump = _SUIT_OF[c]
            led = _next_led(led, c, trump, joker)
        winner = (leader + _trick_winner(row, n, led, trump, joker, downtown)) % n
        cap[winner] |= mask
        row[TL_LEADER] = leader
        row[TL_WINNER] = winner
        row[TL_SWITCH] = 0
        if trump < 0 and (mask & jbit) != _ZERO and t < tricks - 1:
            if below(state, 2) == 1:
                downtown = True
                res[RES_SWITCH] = t
                row[TL_SWITCH] = 1
        leader = winner
    cap[leader] |= _BIT[one_card]
    res[RES_TRUMP] = trump
    res[RES_LAST_WINNER] = leader


@njit(cache=True)
def _points(cap, n, joker, pts):
    """Captured points: 1 a card, 3 for the joker."""
    jbit = _BIT[joker]
    for s in range(n):
        pts[s] = popcount(cap[s]) + ((JOKER_POINTS - 1) if cap[s] & jbit else 0)


@njit(cache=True)
def _score(pts, n, bidder, bid, scored):
    """Round scores: what each captured, but 0 for a bidder whose points fall short of the bid."""
    for s in range(n):
        scored[s] = pts[s]
    if bidder >= 0 and pts[bidder] < bid:
        scored[bidder] = 0


@njit(cache=True)
def _game_winner(totals, n):
    """The winner once somebody has reached the target and the top total is unique; else -1."""
    top = totals[0]
    who = 0
    ties = 1
    for s in range(1, n):
        if totals[s] > top:
            top = totals[s]
            who = s
            ties = 1
        elif totals[s] == top:
            ties += 1
    if top >= TARGET and ties == 1:
        return who
    return -1


# ---------------------------------------------------------------------------------------------
# Thin checked wrappers around the kernels (tests, show, reference checks).


def _check_mask(mask: int, what: str) -> np.uint64:
    return np.uint64(check_int(mask, f"{what} must be a card bitmask (0 .. 2**64-1), not {mask!r}",
                               0, (1 << 64) - 1))


def _check_suit(suit: int, what: str) -> int:
    return check_int(suit, f"{what} must be a suit 0..3 or -1 for none, not {suit}", -1, SUITS - 1)


def legal_cards(hand: int, led: int, trump: int, joker: int = JOKER_CARD,
                first_lead: bool = False) -> int:
    """The mask of the legal cards of ``hand`` (a card bitmask). ``led``: the suit to follow
    (-1 while no suit is set); ``trump``: the trump suit (-1 without trumps); ``first_lead``: the
    bidder's lead to the first trick."""
    if joker not in (JOKER_CARD, NO_JOKER_CARD):
        raise ValueError(f"the joker is {format_card(JOKER_CARD)} or {format_card(NO_JOKER_CARD)}")
    h = _check_mask(hand, "hand")
    return int(_legal(h, _check_suit(led, "led"), _check_suit(trump, "trump"), _BIT[joker],
                      bool(first_lead)))


def led_suit(cards, trump: int, joker: int = JOKER_CARD) -> int:
    """The suit to follow after the cards played so far to a trick (-1 while none is set)."""
    led = -1
    trump = _check_suit(trump, "trump")
    for c in cards:
        led = int(_next_led(led, int(c), trump, int(joker)))
    return led


def trick_winner(cards, led: int, trump: int, joker: int = JOKER_CARD,
                 downtown: bool = False) -> int:
    """Index in play order of the card that wins a full trick (2 to 4 card ids)."""
    c = np.asarray(cards, dtype=np.int64)
    if not MIN_PLAYERS <= c.size <= MAX_PLAYERS or len(set(c.tolist())) != c.size:
        raise ValueError("a trick is 2 to 4 different cards")
    return int(_trick_winner(c, c.size, _check_suit(led, "led"), _check_suit(trump, "trump"),
                             int(joker), bool(downtown)))


def game_winner(totals) -> int:
    """The seat that has won with these totals, or -1 while the game goes on."""
    t = np.asarray(totals, dtype=np.int64)
    if not MIN_PLAYERS <= t.size <= MAX_PLAYERS:
        raise ValueError("totals of 2 to 4 players")
    return int(_game_winner(t, t.size))


def round_score(captured, bidder: int, bid: int) -> list[int]:
    """Scores of a round from the captured points (the bidder's become 0 if short of the bid)."""
    pts = np.asarray(captured, dtype=np.int64)
    out = np.zeros(pts.size, dtype=np.int64)
    if not -1 <= bidder < pts.size:
        raise ValueError(f"bidder must be a seat or -1, not {bidder}")
    _score(pts, pts.size, int(bidder), int(bid), out)
    return out.tolist()


def captured_points(masks, joker: int = JOKER_CARD) -> list[int]:
    """Points in each captured pile (card bitmasks): 1 a card, 3 for the joker."""
    caps = np.array([int(m) for m in masks], dtype=np.uint64)
    pts = np.zeros(caps.size, dtype=np.int64)
    _points(caps, caps.size, int(joker), pts)
    return pts.tolist()

