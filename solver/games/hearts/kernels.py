"""Numba kernels of the trick-taking engine behind Black Maria and standard Hearts.

Everything rule-specific arrives as one ``KernelArgs`` (a named tuple of plain arrays and ints,
built by ``solver.games.hearts.game`` from a ``HeartsRules`` object), so one set of kernels plays
both presets:

* ``deck``:          int64 ids of the cards in play (the removals already taken out), ascending.
* ``points``:        int64[52], what each card costs the player who takes it (0 for most cards,
                     negative for the Omnibus jack of diamonds).
* ``pass_offsets``:  the pass cycle by deal: seat ``s`` passes to ``(s + off) % n`` in deal ``d``
                     with ``off = pass_offsets[d % len]``; ``0`` is a deal without passing.
* ``lead_card``:     ``-1``: the player left of the dealer leads any card (Black Maria); otherwise
                     the card id the first trick must be led with, by whoever holds it (Hearts).
* ``must_break``:    hearts may not be led before a heart has been played, unless the leader holds
                     only hearts.
* ``ban_mask``:      cards that may not be played to the first trick while the player has another
                     legal card (``0``: no such rule).
* ``moon_mask``, ``moon_points``, ``moon_rule``: a player who takes every card of ``moon_mask``
                     shoots the moon; ``moon_rule`` 0 = no moon, 1 = ``moon_points`` go to every
                     other player instead, 2 = ``moon_points`` are subtracted from the shooter.

A hand is a ``uint64`` bitmask over the 52 natural card ids of ``solver.core.cards`` (bit ``c`` = card
``c``; suit ``s`` is the 13-bit field ``SUIT_MASKS[s]``). Random play: every choice (each of the
three cards passed, each card played) is uniform over the legal cards, drawn with ``rng.below`` as
"the k-th set bit of the legal mask, lowest card id first".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.core.cards import HEARTS, NATURAL_CARDS, RANKS_PER_SUIT, SUIT_MASKS
from solver.core.bits import deal_round_robin, random_bit
from solver.core.rng import new_state, stream_seed

PASS_CARDS = 3
"""Cards every player passes in a deal with passing."""
MOON_NONE, MOON_OTHERS, MOON_SUBTRACT = 0, 1, 2
"""``moon_rule`` codes: no moon; the shooter's points go to every other player; subtracted."""

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_HEARTS_BITS = np.uint64(SUIT_MASKS[HEARTS])
_SUIT_BITS = SUIT_MASKS.copy()
_STRENGTH = np.array([(c % RANKS_PER_SUIT + RANKS_PER_SUIT - 1) % RANKS_PER_SUIT
                      for c in range(NATURAL_CARDS)], dtype=np.int64)
"""Trick strength within a suit, A high: two = 0 .. king = 11, ace = 12."""


class KernelArgs(NamedTuple):
    """A rules object as the kernels take it (the fields of the module docstring): one argument
    ``rules`` of every kernel that plays."""
    n: int
    deck: np.ndarray
    points: np.ndarray
    pass_offsets: np.ndarray
    lead_card: int
    must_break: bool
    ban_mask: np.uint64
    moon_mask: np.uint64
    moon_points: int
    moon_rule: int


class GameRecords(NamedTuple):
    """What ``_play_games`` returns: per game the deals played, the final scores and whether the
    deal cap stopped it; per deal (all deals of all games, in order) the points of each seat and
    the moon shooter (-1: none)."""
    length: np.ndarray
    final: np.ndarray
    capped: np.ndarray
    deal_points: np.ndarray
    shooter: np.ndarray


class DealArrays(NamedTuple):
    """The work and trace arrays of ``play_deal`` (``new_trace`` makes them, reused deal after
    deal): the deal's shuffle buffer, the hands in play, the hands as dealt and the cards each
    seat passed (masks), the cards played (trick x turn), each trick's leader and winner, the
    cards each seat took (masks) and the deal's points by seat."""
    work: np.ndarray
    hands: np.ndarray
    dealt: np.ndarray
    passed: np.ndarray
    plays: np.ndarray
    leaders: np.ndarray
    winners: np.ndarray
    taken: np.ndarray
    deal_points: np.ndarray


class DealRecord(NamedTuple):
    """What ``_trace_deal`` returns: one deal's ``DealArrays`` as played, the moon shooter (-1),
    the scores before the deal and the number of deals after which the game had already ended
    (-1: it had not)."""
    trace: DealArrays
    shooter: int
    before: np.ndarray
    ended: int


@njit(cache=True)
def _legal(hand, led_suit, first_trick, hearts_broken, lead_card, must_break, ban_mask):
    """Mask of the cards of ``hand`` that may be played; ``led_suit`` is -1 for a lead."""
    if led_suit < 0:
        if first_trick and lead_card >= 0:
            legal = hand & (_ONE << np.uint64(lead_card))
        elif must_break and not hearts_broken and (hand & ~_HEARTS_BITS) != _ZERO:
            legal = hand & ~_HEARTS_BITS
        else:
            legal = hand
    else:
        legal = hand & _SUIT_BITS[led_suit]
        if legal == _ZERO:
            legal = hand
    if first_trick and ban_mask != _ZERO and (legal & ~ban_mask) != _ZERO:
        legal &= ~ban_mask
    return legal


@njit(cache=True)
def _pass_cards(state, n, offset, hands, passed):
    """Each seat in turn picks ``PASS_CARDS`` cards uniformly, then all pass at once."""
    for s in range(n):
        h = hands[s]
        pick = _ZERO
        for _ in range(PASS_CARDS):
            bit = _ONE << np.uint64(random_bit(state, h))
            pick |= bit
            h &= ~bit
        passed[s] = pick
    for s in range(n):
        hands[s] &= ~passed[s]
    for s in range(n):
        hands[(s + offset) % n] |= passed[s]


@njit(cache=True)
def _first_leader(n, dealer, lead_card, hands):
    if lead_card < 0:
        return (dealer + 1) % n
    bit = _ONE << np.uint64(lead_card)
    for s in range(n):
        if (hands[s] & bit) != _ZERO:
            return s
    return -1


@njit(cache=True)
def _score_moon(n, taken, moon_mask, moon_points, moon_rule, deal_points):
    """Apply the moon rule to ``deal_points``; return the shooter's seat or -1."""
    if moon_rule == MOON_NONE:
        return -1
    for s in range(n):
        if (taken[s] & moon_mask) == moon_mask:
            deal_points[s] -= moon_points
            if moon_rule == MOON_OTHERS:
                for o in range(n):
                    if o != s:
                        deal_points[o] += moon_points
            else:
                deal_points[s] -= moon_points
            return s
    return -1


@njit(cache=True)
def play_deal(state, rules, dealer, deal_index, work, hands, dealt, passed, plays, leaders,
              winners, taken, deal_points):
    """Play one deal at random under ``rules`` (``KernelArgs``); fill the arrays of a
    ``DealArrays`` (its fields in order after ``deal_index``), ``deal_points`` too; return the
    shooter.

    The one kernel that takes its arrays one by one: numba increfs every array read out of a
    named tuple, at each call, and reading the nine of a ``DealArrays`` here at every deal made
    the simulations 3-4% slower (benchmarks/bench_hearts.py, CPU time); the loops over deals
    read them once."""
    n, deck, points = rules.n, rules.deck, rules.points
    lead_card, must_break, ban_mask = rules.lead_card, rules.must_break, rules.ban_mask
    deal_round_robin(state, deck, work, n, dealer, hands, len(deck))
    for s in range(n):
        dealt[s] = hands[s]
        passed[s] = _ZERO
        taken[s] = _ZERO
        deal_points[s] = 0
    cycle = rules.pass_offsets
    offset = cycle[deal_index % len(cycle)]
    if offset != 0:
        _pass_cards(state, n, offset, hands, passed)
    leader = _first_leader(n, dealer, lead_card, hands)
    broken = False
    for t in range(len(deck) // n):
        leaders[t] = leader
        led = -1
        best = leader
        best_strength = -1
        trick = _ZERO
        trick_points = 0
        seat = leader
        for j in range(n):
            legal = _legal(hands[seat], led, t == 0, broken, lead_card, must_break, ban_mask)
            c = random_bit(state, legal)
            bit = _ONE << np.uint64(c)
            hands[seat] &= ~bit
            plays[t, j] = c
            suit = c // RANKS_PER_SUIT
            if j == 0:
                led = suit
            if suit == led and _STRENGTH[c] > best_strength:
                best = seat
                best_strength = _STRENGTH[c]
            if suit == HEARTS:
                broken = True
            trick |= bit
            trick_points += points[c]
            seat = seat + 1 if seat + 1 < n else 0
        winners[t] = best
        taken[best] |= trick
        deal_points[best] += trick_points
        leader = best
    return _score_moon(n, taken, rules.moon_mask, rules.moon_points, rules.moon_rule,
                       deal_points)


@njit(cache=True)
def new_trace(n, cards):
    """A ``DealArrays`` for deals of ``n`` players with ``cards`` cards in play."""
    tricks = cards // n
    return DealArrays(np.empty(cards, np.int64), np.zeros(n, np.uint64), np.zeros(n, np.uint64),
                     np.zeros(n, np.uint64), np.zeros((tricks, n), np.int64),
                     np.zeros(tricks, np.int64), np.zeros(tricks, np.int64),
                     np.zeros(n, np.uint64), np.zeros(n, np.int64))


@njit(cache=True)
def _play_games(seed, first_game, n_games, rules, target, max_deals):
    """Play games ``first_game ..`` to the target score; game ``g`` uses stream ``g`` of ``seed``.

    Returns the ``GameRecords``: per game the deals played, final scores, whether the deal cap
    stopped it; per deal (all deals of all games, in order) the points of each seat and the moon
    shooter (-1 none). Seat 0 deals the first deal of every game; the deal passes one seat left
    after each deal.
    """
    n = rules.n
    length = np.zeros(n_games, np.int64)
    final = np.zeros((n_games, n), np.int64)
    capped = np.zeros(n_games, np.bool_)
    cap = 8 * n_games + 16
    deal_pts = np.empty((cap, n), np.int16)
    shooters = np.empty(cap, np.int8)
    pos = 0
    trace = new_trace(n, len(rules.deck))
    work, hands, dealt, passed = trace.work, trace.hands, trace.dealt, trace.passed
    plays, leaders, winners, taken, dp = (trace.plays, trace.leaders, trace.winners, trace.taken,
                                          trace.deal_points)
    for g in range(n_games):
        state = new_state(stream_seed(seed, first_game + g))
        scores = final[g]
        d = 0
        while True:
            if pos == cap:
                cap *= 2
                grown = np.empty((cap, n), np.int16)
                grown[:pos] = deal_pts[:pos]
                deal_pts = grown
                grown_s = np.empty(cap, np.int8)
                grown_s[:pos] = shooters[:pos]
                shooters = grown_s
            shooter = play_deal(state, rules, d % n, d, work, hands, dealt, passed, plays, leaders,
                                winners, taken, dp)
            top = scores[0] + dp[0]
            for s in range(n):
                scores[s] += dp[s]
                deal_pts[pos, s] = dp[s]
                top = max(top, scores[s])
            shooters[pos] = shooter
            pos += 1
            d += 1
            if top >= target:
                break
            if d >= max_deals:
                capped[g] = True
                break
        length[g] = d
    return GameRecords(length, final, capped, deal_pts[:pos].copy(), shooters[:pos].copy())


@njit(cache=True)
def _trace_deal(seed, game, deal_no, rules, target):
    """Replay game ``game`` of ``seed`` up to deal ``deal_no`` (0-based) exactly as
    ``_play_games`` plays it; return that deal's ``DealRecord``: its trace, its shooter, the
    scores before it and the number of deals after which the game had already ended (-1 if it
    had not)."""
    n = rules.n
    trace = new_trace(n, len(rules.deck))
    work, hands, dealt, passed = trace.work, trace.hands, trace.dealt, trace.passed
    plays, leaders, winners, taken, dp = (trace.plays, trace.leaders, trace.winners, trace.taken,
                                          trace.deal_points)
    state = new_state(stream_seed(seed, game))
    before = np.zeros(n, np.int64)
    shooter = -1
    ended = -1
    for d in range(deal_no + 1):
        for s in range(n):
            before[s] += dp[s]
        if ended < 0 and d > 0 and before.max() >= target:
            ended = d
        shooter = play_deal(state, rules, d % n, d, work, hands, dealt, passed, plays, leaders,
                            winners, taken, dp)
    return DealRecord(trace, shooter, before, ended)


def play_game_records(seed: int, first_game: int, n_games: int, args: KernelArgs, target: int,
                      max_deals: int) -> GameRecords:
    """Games ``first_game ..`` of ``seed`` played to ``target`` (see ``_play_games``)."""
    return _play_games(seed, first_game, n_games, args, target, max_deals)


def deal_record(seed: int, game: int, deal_no: int, args: KernelArgs, target: int) -> DealRecord:
    """Deal ``deal_no`` (0-based) of game ``game`` of ``seed`` (see ``_trace_deal``)."""
    return _trace_deal(seed, game, deal_no, args, target)


def legal_mask(hand: int, led_suit: int, first_trick: bool, hearts_broken: bool,
               args: KernelArgs) -> int:
    """Mask of the cards of the mask ``hand`` that may be played (``led_suit`` -1 for a lead)."""
    return int(_legal_kernel(np.uint64(hand), led_suit, first_trick, hearts_broken, args))


@njit(cache=True)
def _legal_kernel(hand, led_suit, first_trick, hearts_broken, rules):
    """``_legal`` with plain int arguments, for the Python-side legal-move query."""
    return _legal(np.uint64(hand), led_suit, first_trick, hearts_broken, rules.lead_card,
                  rules.must_break, rules.ban_mask)
