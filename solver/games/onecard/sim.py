"""One Card random play: whole games in a numba loop, the shared runner's chunk function, the
statistics of a simulation, and the trick-by-trick log of one round for ``pyramid show``.

Game ``i`` of a run with ``seed`` draws everything from ``new_state(stream_seed(seed, i))``: first
the first dealer (``below(n)``), then each round's deal, auction, cards and switches in turn (see
``solver/games/onecard/engine.py``). Records use seats *relative to a dealer*: per round relative to that
round's dealer (0 = dealer, 1 = left of the dealer, ...), per game relative to the game's first
dealer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from solver.core.cards import format_card, format_cards
from solver.games.onecard.engine import GAME_NAME
from solver.games.onecard.engine import (_BIT, _ZERO, DECK_SIZE, MAX_BID, MAX_BID_EVENTS, MAX_PLAYERS,
                            MAX_ROUNDS, MAX_TRICKS, RES_BID, RES_BIDDER, RES_FIELDS,
                            RES_LAST_WINNER, RES_LEADER, RES_NBIDS, RES_ONE_CARD, RES_SWITCH,
                            RES_TRUMP, TL_LEADER, TL_SWITCH, TL_WINNER, TRICK_COLS, OneCardRules,
                            RoundBuffers, Table, _bidding, _deal, _game_winner, _play_tricks,
                            _points, _score)
from solver.core.bits import popcount
from solver.core.rng import below, check_seed, new_state, stream_seed
from solver.core.runner import DEFAULT_CHUNK, run_games
from solver.core.stats import mean_ci, wilson
from solver.core.validate import check_int

# Columns of a round record (int16), seats relative to the round's dealer.
RC_DEALER, RC_BIDDER, RC_BID, RC_TRUMP, RC_LEADER, RC_SWITCH, RC_LAST, RC_ONE_CARD, \
    RC_LEFT = range(9)
"""Round record columns: absolute dealer; bidder (-1: nobody bid), bid, trump (-1: none), first
leader, last trick's winner, all relative to the dealer; the trick after which the order switched
to downtown (-1: never); the one card; cards left in hands after the round (always 0)."""
RC_CAPTURED = 9
"""Captured points of the dealer-relative seats 0..3 (columns 9..12; 0 beyond the players)."""
RC_SCORED = RC_CAPTURED + MAX_PLAYERS
"""Round scores of the dealer-relative seats 0..3 (columns 13..16)."""
ROUND_COLS = RC_SCORED + MAX_PLAYERS
# Columns of a game record (int64), seats relative to the game's first dealer.
GC_FIRST_DEALER, GC_ROUNDS, GC_WINNER = range(3)
GC_TOTALS = 3
GAME_COLS = GC_TOTALS + MAX_PLAYERS
UNFINISHED = -2
"""Winner field of a game stopped by the ``MAX_ROUNDS`` guard."""
ROUNDS_PER_GAME_GUESS = 8


class ChunkRecords(NamedTuple):
    """The record arrays a chunk of games fills: one row a game (``GC_*``), one row a round
    (``RC_*``, all rounds of the chunk in game order) and the cards of each round (a mask)."""
    games: np.ndarray
    rounds: np.ndarray
    masks: np.ndarray


@njit(cache=True)
def new_round_buffers():
    """Fresh ``RoundBuffers`` for tables of up to ``MAX_PLAYERS``."""
    return RoundBuffers(np.empty(DECK_SIZE, dtype=np.int64),
                        np.zeros(MAX_PLAYERS, dtype=np.uint64),
                        np.zeros(MAX_PLAYERS, dtype=np.uint64),
                        np.zeros(MAX_PLAYERS, dtype=np.uint64),
                        np.zeros(MAX_PLAYERS, dtype=np.int64),
                        np.zeros(MAX_PLAYERS, dtype=np.int64),
                        np.zeros(RES_FIELDS, dtype=np.int64),
                        np.zeros((MAX_BID_EVENTS, 2), dtype=np.int64),
                        np.zeros((MAX_TRICKS, TRICK_COLS), dtype=np.int64))


@njit(cache=True)
def play_round_kernel(state, table, dealer, buf, hands, dealt, cap, pts, scored, res, bid_log,
                      trick_log):
    """Deal, bid and play one round; fills the arrays of a ``RoundBuffers`` (its fields in order
    after ``dealer``): the hands as dealt, the captured piles, points and scores, ``res``, the
    logs.

    The one kernel of a round that takes the buffers one by one: numba increfs every array read
    out of a named tuple, and reading the eight here at every round made it 10% slower (measured
    with ``benchmarks/bench_onecard.py``); the game loop reads them once per game."""
    n = table.n
    one_card = _deal(state, n, dealer, table.deck, buf, hands)
    for s in range(n):
        dealt[s] = hands[s]
    res[RES_ONE_CARD] = one_card
    _bidding(state, n, dealer, bid_log, res)
    _play_tricks(state, n, table.joker, hands, cap, res, trick_log)
    _points(cap, n, table.joker, pts)
    _score(pts, n, res[RES_BIDDER], res[RES_BID], scored)


@njit(cache=True)
def _record_round(n, dealer, pts, scored, res, out):
    """The round's record row ``out`` (``RC_*``) but the cards left (``_round_cards``)."""
    out[RC_DEALER] = dealer
    bidder = res[RES_BIDDER]
    out[RC_BIDDER] = -1 if bidder < 0 else (bidder - dealer) % n
    out[RC_BID] = res[RES_BID]
    out[RC_TRUMP] = res[RES_TRUMP]
    out[RC_LEADER] = (res[RES_LEADER] - dealer) % n
    out[RC_SWITCH] = res[RES_SWITCH]
    out[RC_LAST] = (res[RES_LAST_WINNER] - dealer) % n
    out[RC_ONE_CARD] = res[RES_ONE_CARD]
    for rel in range(MAX_PLAYERS):
        out[RC_CAPTURED + rel] = 0
        out[RC_SCORED + rel] = 0
    for rel in range(n):
        seat = (dealer + rel) % n
        out[RC_CAPTURED + rel] = pts[seat]
        out[RC_SCORED + rel] = scored[seat]


@njit(cache=True)
def _round_cards(n, hands, cap):
    """The cards of a played round (the union of the captured piles) and the cards left in
    the hands (always 0)."""
    union = _ZERO
    left = 0
    for seat in range(n):
        union |= cap[seat]
        left += popcount(hands[seat])
    return union, left


@njit(cache=True)
def _play_game(state, table, rec, g, r0):
    """Game ``g`` of the chunk to 30 from a fresh stream: its row of ``rec.games``, its rounds
    rows ``r0..`` of ``rec.rounds`` and ``rec.masks``."""
    n = table.n
    rb = new_round_buffers()
    buf, hands, dealt, cap, pts, scored = rb.buf, rb.hands, rb.dealt, rb.cap, rb.pts, rb.scored
    res, bid_log, trick_log = rb.res, rb.bid_log, rb.trick_log
    rounds_out, masks_out = rec.rounds, rec.masks
    totals = np.zeros(n, dtype=np.int64)
    dealer = below(state, n)
    first = dealer
    winner = UNFINISHED
    rounds = 0
    while rounds < MAX_ROUNDS:
        play_round_kernel(state, table, dealer, buf, hands, dealt, cap, pts, scored, res, bid_log,
                          trick_log)
        row = rounds_out[r0 + rounds]
        _record_round(n, dealer, pts, scored, res, row)
        masks_out[r0 + rounds], row[RC_LEFT] = _round_cards(n, hands, cap)
        for s in range(n):
            totals[s] += scored[s]
        rounds += 1
        w = _game_winner(totals, n)
        if w >= 0:
            winner = (w - first) % n
            break
        dealer = (dealer + 1) % n
    game_out = rec.games[g]
    game_out[GC_FIRST_DEALER] = first
    game_out[GC_ROUNDS] = rounds
    game_out[GC_WINNER] = winner
    for rel in range(MAX_PLAYERS):
        game_out[GC_TOTALS + rel] = totals[(first + rel) % n] if rel < n else 0
    return rounds


@njit(cache=True)
def _play_games(seed, first_game, g0, n_games, table, rec, r0):
    """Games ``g0 ..`` of the chunk while room for a longest game is left; returns (games, rows)."""
    g = g0
    r = r0
    while g < n_games and r + MAX_ROUNDS <= rec.rounds.shape[0]:
        state = new_state(stream_seed(seed, first_game + g))
        r += _play_game(state, table, rec, g, r)
        g += 1
    return g, r


def _params(players: int, joker: bool) -> dict:
    rules = OneCardRules(players, joker)
    return {"players": rules.players, "joker": rules.joker}


def run_chunk(seed: int, first_game: int, n_games: int, params: dict) -> dict:
    """The shared runner's chunk function: games ``first_game ..`` as per-game and per-round
    records (``round_*`` arrays hold every round of the chunk's games in game order)."""
    rules = OneCardRules(params["players"], params["joker"])
    n = rules.players
    table = Table(n, rules.deck(), rules.joker_card)
    games = np.zeros((n_games, GAME_COLS), dtype=np.int64)
    rounds = np.zeros((n_games * ROUNDS_PER_GAME_GUESS + MAX_ROUNDS, ROUND_COLS), dtype=np.int16)
    masks = np.zeros(rounds.shape[0], dtype=np.uint64)
    g, r = 0, 0
    while True:
        g, r = _play_games(np.uint64(seed), first_game, g, n_games, table,
                           ChunkRecords(games, rounds, masks), r)
        if g == n_games:
            break
        grow = rounds.shape[0] * 2
        rounds = np.concatenate([rounds, np.zeros((grow - rounds.shape[0], ROUND_COLS),
                                                  dtype=np.int16)])
        masks = np.concatenate([masks, np.zeros(grow - masks.size, dtype=np.uint64)])
    if np.any(games[:, GC_WINNER] == UNFINISHED):
        raise RuntimeError(f"a One Card game passed {MAX_ROUNDS} rounds without a winner")
    return {"first_dealer": games[:, GC_FIRST_DEALER].astype(np.int8),
            "rounds": games[:, GC_ROUNDS].astype(np.int32),
            "winner": games[:, GC_WINNER].astype(np.int8),
            "totals": games[:, GC_TOTALS:GC_TOTALS + n].astype(np.int32),
            "round_record": rounds[:r, :], "round_cards": masks[:r]}


def simulate_records(seed: int, games: int, players: int = 4, joker: bool = True,
                     jobs: int | None = 1, progress: bool = False,
                     chunk: int = DEFAULT_CHUNK) -> dict:
    """Per-game and per-round records of ``games`` random-play games (see ``run_chunk``)."""
    seed = check_seed(seed)
    params = _params(players, joker)
    return run_games(run_chunk, seed, games, params, jobs=jobs, progress=progress, chunk=chunk,
                     desc="one-card games")


def summarise(records: dict, players: int, joker: bool = True, seed: int | None = None) -> dict:
    """The statistics of a simulation, every rate and mean with its 95% interval."""
    rules = OneCardRules(players, joker)
    n = rules.players
    rr = records["round_record"]
    n_games = int(records["rounds"].size)
    n_rounds = int(rr.shape[0])
    bidder = rr[:, RC_BIDDER].astype(np.int64)
    bid_rounds = bidder >= 0
    rows = np.nonzero(bid_rounds)[0]
    bidder_pts = rr[rows, RC_CAPTURED + bidder[rows]].astype(np.int64)
    bids = rr[rows, RC_BID].astype(np.int64)
    made = bidder_pts >= bids
    seats = []
    for rel in range(n):
        seats.append({
            "seat": rel,
            "win_rate": wilson(int(np.sum(records["winner"] == rel)), n_games),
            "points_per_round": mean_ci(rr[:, RC_SCORED + rel]),
            "captured_per_round": mean_ci(rr[:, RC_CAPTURED + rel]),
            "bids_won": wilson(int(np.sum(bidder == rel)), n_rounds),
            "bid_made": wilson(int(np.sum(made[bidder[rows] == rel])),
                               int(np.sum(bidder[rows] == rel))),
        })
    by_bid = {str(b): wilson(int(np.sum(made[bids == b])), int(np.sum(bids == b)))
              for b in range(rules.min_bid, MAX_BID + 1)}
    no_trump = ~bid_rounds
    return {
        "game": GAME_NAME, "seed": seed, "rules": rules.to_dict(),
        "games": n_games, "rounds": n_rounds,
        "seats": seats,
        "bid_made": wilson(int(made.sum()), int(rows.size)),
        "bid_made_by_bid": by_bid,
        "winning_bid": mean_ci(bids),
        "no_bid": wilson(int(no_trump.sum()), n_rounds),
        "downtown_switch": wilson(int(np.sum(rr[no_trump, RC_SWITCH] >= 0)),
                                  int(no_trump.sum())),
        "game_length": mean_ci(records["rounds"]),
        "longest_game": int(records["rounds"].max()),
    }


def simulate(seed: int, games: int, players: int = 4, joker: bool = True,
             jobs: int | None = 1, progress: bool = False) -> dict:
    """Simulate ``games`` random-play games of One Card and return ``summarise``'s statistics."""
    records = simulate_records(seed, games, players, joker, jobs, progress)
    return summarise(records, players, joker, seed)


# ---------------------------------------------------------------------------------------------
# One round, logged trick by trick (pyramid show one-card).


@dataclass
class RoundLog:
    """The first round of game ``game`` of a run with ``seed``, as ``simulate`` plays it (seats
    absolute, 0..n-1 clockwise)."""

    rules: OneCardRules
    seed: int
    game: int
    dealer: int
    hands: list[list[int]]
    one_card: int
    bids: list[tuple[int, int]]
    """(seat, bid) in order; bid 0 is a pass."""
    bidder: int
    bid: int
    trump: int
    leader: int
    tricks: list[dict]
    """Each: leader, cards [(seat, card)] in play order, winner, switch (to downtown after it)."""
    captured: list[int]
    scored: list[int]

    @property
    def made(self) -> bool | None:
        return None if self.bidder < 0 else self.captured[self.bidder] >= self.bid

    def to_dict(self) -> dict:
        return {
            "seed": self.seed, "game_index": self.game, "rules": self.rules.to_dict(),
            "dealer": self.dealer,
            "hands": [format_cards(h) for h in self.hands],
            "one_card": format_card(self.one_card),
            "bids": [{"seat": s, "bid": b if b else "pass"} for s, b in self.bids],
            "bidder": self.bidder if self.bidder >= 0 else None,
            "bid": self.bid if self.bidder >= 0 else None,
            "trump": "cdhs"[self.trump] if self.trump >= 0 else None,
            "leader": self.leader,
            "tricks": [{"leader": t["leader"], "winner": t["winner"], "switch": t["switch"],
                        "cards": [[s, format_card(c)] for s, c in t["cards"]]}
                       for t in self.tricks],
            "captured": self.captured, "scored": self.scored, "made": self.made,
        }


@njit(cache=True)
def _first_round(seed, game, table, rb):
    """The first round of game ``game`` into ``rb``, exactly as ``_play_game`` plays it; returns
    the dealer."""
    state = new_state(stream_seed(seed, game))
    dealer = below(state, table.n)
    play_round_kernel(state, table, dealer, rb.buf, rb.hands, rb.dealt, rb.cap, rb.pts, rb.scored,
                      rb.res, rb.bid_log, rb.trick_log)
    return dealer


def first_round(seed: int, players: int = 4, joker: bool = True, game: int = 0) -> RoundLog:
    """The deal and the random play of the first round of game ``game`` of ``simulate(seed, ...)``."""
    seed = check_seed(seed)
    game = check_int(game, f"the game number must be a non-negative integer, not {game!r}", 0)
    rules = OneCardRules(players, joker)
    n = rules.players
    rb = new_round_buffers()
    res, bid_log, trick_log, hands0 = rb.res, rb.bid_log, rb.trick_log, rb.dealt
    dealer = int(_first_round(np.uint64(seed), int(game), Table(n, rules.deck(), rules.joker_card),
                              rb))
    hands = [[c for c in rules.deck().tolist() if int(hands0[s]) & int(_BIT[c])]
             for s in range(n)]
    tricks = []
    for t in range(rules.hand_size):
        row = trick_log[t]
        leader = int(row[TL_LEADER])
        tricks.append({"leader": leader, "winner": int(row[TL_WINNER]),
                       "switch": bool(row[TL_SWITCH]),
                       "cards": [((leader + i) % n, int(row[i])) for i in range(n)]})
    return RoundLog(rules=rules, seed=seed, game=int(game), dealer=dealer, hands=hands,
                    one_card=int(res[RES_ONE_CARD]),
                    bids=[(int(s), int(b)) for s, b in bid_log[:res[RES_NBIDS]]],
                    bidder=int(res[RES_BIDDER]), bid=int(res[RES_BID]),
                    trump=int(res[RES_TRUMP]), leader=int(res[RES_LEADER]), tricks=tricks,
                    captured=rb.pts[:n].tolist(), scored=rb.scored[:n].tolist())
