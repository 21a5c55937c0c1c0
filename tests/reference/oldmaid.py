"""Slow, plain references for Old Maid, written from docs/oldmaid.md only.

* ``reference_game``: the whole game with lists of card ids and the plain SplitMix64 of
  ``naive_rng`` (same documented stream use as the engine: shuffle the deck in ascending card-id
  order, deal from the dealer's left, then one ``below(size)`` per draw picking that position of
  the drawn-from hand sorted by card id).
* ``exact_two_player``: the exact chance that each seat loses a 2-player game, from the
  distribution of the deal and a recursion over the Markov chain of hand sizes.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb

from reference.rng import SplitMix64

QC, JC, RJ = 11, 10, 52  # queen of clubs, jack of clubs, red joker: ids of solver/core/cards.py


def reference_deck(colour=False, joker=False, jack=False) -> list[int]:
    if joker:
        return list(range(52)) + [RJ]
    removed = JC if jack else QC
    return [c for c in range(52) if c != removed]


def pair_class(card, colour):
    """Rank (0..12), with the colour in the colour variant; the joker is a class of its own."""
    if card == RJ:
        return "joker"
    suit, rank = divmod(card, 13)
    return (rank, suit in (1, 2)) if colour else rank


def discard_pairs(hand, colour):
    """Within each class, throw away the two lowest suits while two or more are left."""
    by_class = {}
    for c in sorted(hand):
        by_class.setdefault(pair_class(c, colour), []).append(c)
    kept = []
    for cards in by_class.values():
        while len(cards) >= 2:
            cards = cards[2:]
        kept += cards
    return sorted(kept)


def next_with_cards(hands, seat):
    n = len(hands)
    seat = (seat + 1) % n
    while not hands[seat]:
        seat = (seat + 1) % n
    return seat


def reference_play(hands, dealer, colour, rng):
    """Play on from hands after the discards; returns (log rows, loser)."""
    hands = [sorted(h) for h in hands]
    n = len(hands)
    log = []
    turn = (dealer + 1) % n
    while not hands[turn]:
        turn = (turn + 1) % n
    while sum(len(h) for h in hands) > 1:
        src = next_with_cards(hands, turn)
        card = hands[src][rng.below(len(hands[src]))]
        hands[src].remove(card)
        mates = [c for c in hands[turn] if pair_class(c, colour) == pair_class(card, colour)]
        assert len(mates) <= 1
        if mates:
            hands[turn].remove(mates[0])
        else:
            hands[turn] = sorted(hands[turn] + [card])
        log.append((turn, src, card, 1 if mates else 0))
        turn = src if hands[src] else next_with_cards(hands, src)
    loser = next(p for p in range(n) if hands[p])
    return log, loser, hands[loser][0]


def reference_game(seed, n, dealer=0, colour=False, joker=False, jack=False):
    """(dealt hands, hands after discards, draw log, loser seat, last card) of one game."""
    rng = SplitMix64(seed)
    deck = reference_deck(colour, joker, jack)
    rng.shuffle(deck)
    dealt = [[] for _ in range(n)]
    for j, c in enumerate(deck):
        dealt[(dealer + 1 + j) % n].append(c)
    kept = [discard_pairs(h, colour) for h in dealt]
    log, loser, last = reference_play(kept, dealer, colour, rng)
    return [sorted(h) for h in dealt], kept, log, loser, last


# ------------------------------------------------------------------------------------------------
# Exact 2-player result.
#
# After the discards each hand holds at most one card of a class. Every class with cards left,
# but the odd card's, has one card in each hand ("matched"); the odd card is in one hand. So a
# position is (m matched classes, does the player to move hold the odd card). The mover draws
# uniformly from the other hand: a matched card makes a pair (m - 1), the odd card just moves over;
# the turn passes to the player drawn from. m = 0 ends the game: the odd card's holder loses.


@lru_cache(maxsize=None)
def mover_loses(m: int, holds_odd: bool) -> Fraction:
    """Exact chance that the player to move loses, from (m, holds_odd)."""
    if m == 0:
        return Fraction(int(holds_odd))
    if holds_odd:
        # The other hand holds m matched cards: a pair for sure; the other moves without the odd.
        return 1 - mover_loses(m - 1, False)
    # The other hand holds m matched cards and the odd card (m + 1 cards):
    #   f = 1/(m+1) * (1 - f) + m/(m+1) * (1 - f(m-1, other holds odd))
    # solved for f.
    return (1 + m * (1 - mover_loses(m - 1, True))) / Fraction(m + 2)


def deal_distribution(colour=False, joker=False, jack=False) -> dict:
    """Exact P(m, the starter holds the odd card) after the deal and discards of 2 players.

    The dealer deals alternately starting with the other player (the starter), who so gets a
    uniformly random ceil(N/2)-subset of the N cards. A class of size s split k : s-k leaves one
    card in the starter's hand exactly when k is odd."""
    deck = reference_deck(colour, joker, jack)
    sizes: dict = {}
    for c in deck:
        sizes[pair_class(c, colour)] = sizes.get(pair_class(c, colour), 0) + 1
    odd_class = [k for k, v in sizes.items() if v % 2]
    assert len(odd_class) == 1
    # ways[(cards to the starter, matched classes, starter holds the odd card)]
    ways = {(0, 0, 0): 1}
    for cls, s in sizes.items():
        new: dict = {}
        for (x, m, q), w in ways.items():
            for k in range(s + 1):
                odd_k = k % 2
                key = (x + k, m + (odd_k if cls != odd_class[0] else 0),
                       q + (odd_k if cls == odd_class[0] else 0))
                new[key] = new.get(key, 0) + w * comb(s, k)
        ways = new
    starter_cards = (len(deck) + 1) // 2
    total = comb(len(deck), starter_cards)
    out = {(m, bool(q)): Fraction(w, total) for (x, m, q), w in ways.items() if x == starter_cards}
    assert sum(out.values()) == 1
    return out


def exact_two_player(colour=False, joker=False, jack=False, dealer_starts=False) -> Fraction:
    """Exact chance that the dealer loses a 2-player game (the player left of the dealer starts;
    ``dealer_starts`` computes the same for a wrong rule, to show the test can tell them apart)."""
    p = Fraction(0)
    for (m, starter_odd), w in deal_distribution(colour, joker, jack).items():
        # The starter is the non-dealer; with dealer_starts the dealer moves first instead.
        if dealer_starts:
            p += w * mover_loses(m, not starter_odd)
        else:
            p += w * (1 - mover_loses(m, starter_odd))
    return p
