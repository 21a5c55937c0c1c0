"""Duizenden random play: the round and game kernels (numba), uniform over the legal actions.

The state of a round is ``solver.games.duizenden.table.RoundWork`` (see that module). One "legal
action" is defined in docs/duizenden.md; each decision draws one uniformly with ``rng.below``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.core.cards import MAX_CARDS
from solver.games.duizenden.melds import (
    CTX_EXTRA, CTX_EXTRA_QUEENS, CTX_FLAGS, CTX_OPENED, CTX_OPENING_TURN, CTX_POOL,
    CTX_PROV, CTX_QUEENS, FLAG_JOKER_EXCHANGE, FLAG_LAST_CARD, FLAG_NO_OUT_ON_OPENING,
    FLAG_QUEEN_KEPT, M_CARDS, M_JOKERS, M_N, N_KINDS, OPENING_POINTS, POINTS, QS_KIND,
    SPEC_POINTS, hand_melds, _layoffs, _swaps)
from solver.games.duizenden.options import MAX_PLAYERS, TARGET_POINTS
from solver.games.duizenden.table import (
    EV_ANNOUNCE, EV_DECLINE, EV_DISCARD, EV_DRAW, EV_EXCHANGE, EV_EXHAUSTED, EV_LAYOFF,
    EV_MELD, EV_NO_DISCARD, EV_OPENED, EV_OUT, EV_SWAP, EV_TAKE_POT, EV_UNDO, HAND_CARDS,
    LOC_OPEN, LOC_POT, LOC_STOCK, LOC_TABLE, SC_LOG_N, SC_MELDS, SC_OUT, SC_POT,
    SC_START, SC_STOCK, SC_TURNS, _hand_card, _kind, _lay_meld, _log, _log_meld, _off_hand,
    _place, _to_hand)
from solver.core.rng import below, new_state, shuffle, stream_seed

END_OUT, END_EXHAUSTED, END_TURN_LIMIT = 0, 1, 2
"""How a round ends: a player went out; the stock ran out (rules: scored as is); the safety cap
``TURN_LIMIT`` (never reached: every turn draws from the stock or lays at least three cards)."""
TURN_LIMIT = 10_000

STEP_ON, STEP_OUT, STEP_STUCK = 0, 1, -1
"""What a step of a turn (draw, meld, discard) returns: play goes on; the player's hand is empty
(out); the player can neither draw nor take the pot (the stock is exhausted)."""


@njit(cache=True)
def game_rng(seed, game):
    """The generator state of game ``game`` of a run seeded ``seed`` (uint64 inside numba)."""
    return new_state(stream_seed(seed, game))


class RoundRecords(NamedTuple):
    """Per-round results of one game, row ``r`` for round ``r``: the round's scores by seat,
    its turns, how it ended (``END_*``) and the seat that went out (-1)."""
    scores: np.ndarray
    turns: np.ndarray
    end: np.ndarray
    out: np.ndarray


def new_records(max_rounds: int) -> RoundRecords:
    """Zeroed ``RoundRecords`` for games of at most ``max_rounds`` rounds."""
    return RoundRecords(scores=np.zeros((max_rounds, MAX_PLAYERS), dtype=np.int64),
                        turns=np.zeros(max_rounds, dtype=np.int64),
                        end=np.zeros(max_rounds, dtype=np.int64),
                        out=np.zeros(max_rounds, dtype=np.int64))


class RoundRules(NamedTuple):
    """The rules of a table as the kernels take them: the number of players, the variant bits
    (``FLAG_*``) and the points lost for a forgotten "last card" (variant 3)."""
    players: int
    flags: int
    penalty: int


# The turn steps below (draw, meld, discard and the helpers they call once per card or per
# decision) take the round's arrays one by one, not the ``RoundWork``: numba increfs every array
# read out of a named tuple, at each call, and those reads, repeated at each step of each turn,
# made a round 15% slower (7% with the steps inlined: benchmarks/bench_duizenden.py, CPU time);
# ``play_round_kernel`` reads them once per round.


@njit(cache=True)
def _fill_ctx(ctx, pool, queens, opened, prov, opening_turn, flags):
    """The situation of a hand of ``pool`` cards (``queens`` queens of spades) in ``ctx``."""
    ctx[CTX_POOL] = pool
    ctx[CTX_QUEENS] = queens
    ctx[CTX_OPENED] = opened
    ctx[CTX_PROV] = prov
    ctx[CTX_OPENING_TURN] = opening_turn
    ctx[CTX_EXTRA] = 0
    ctx[CTX_EXTRA_QUEENS] = 0
    ctx[CTX_FLAGS] = flags


@njit(cache=True)
def _draw_step(rng, seat, flags, loc, cnt, hsize, stock, pot, melds, owner, opened, sc, log,
               ctx, spec):
    """Draw from the stock or take the pot (each half the time when both are legal; then one
    pot meld uniformly). Returns 1 if the hand is then empty (out), -1 if the player can do
    neither (stock exhausted), else 0."""
    n_stock = 1 if sc[SC_STOCK] > 0 else 0
    n_pot = 0
    top = -1
    tk = -1
    if opened[seat] == 1 and sc[SC_POT] > 0:
        top = pot[sc[SC_POT] - 1]
        tk = _kind(top)
        _fill_ctx(ctx, hsize[seat], cnt[seat, QS_KIND], opened[seat], 0, 0, flags)
        ctx[CTX_POOL] += 1
        ctx[CTX_EXTRA] = sc[SC_POT] - 1
        for i in range(sc[SC_POT] - 1):
            if _kind(pot[i]) == QS_KIND:
                ctx[CTX_EXTRA_QUEENS] += 1
        cnt[seat, tk] += 1
        n_pot = hand_melds(cnt[seat], tk, ctx, -1, spec)
        cnt[seat, tk] -= 1
    if n_stock + n_pot == 0:
        return STEP_STUCK
    # Two decisions: draw or take the pot (when both are legal), then which pot meld.
    take = n_stock == 0 or (n_pot > 0 and below(rng, 2) == 1)
    if not take:
        sc[SC_STOCK] -= 1
        card = stock[sc[SC_STOCK]]
        _to_hand(card, seat, loc, cnt, hsize)
        _log(log, sc, EV_DRAW, seat, card, 0, 0)
        return STEP_ON
    cnt[seat, tk] += 1
    hand_melds(cnt[seat], tk, ctx, below(rng, n_pot), spec)
    cnt[seat, tk] -= 1
    sc[SC_POT] -= 1
    _to_hand(top, seat, loc, cnt, hsize)
    m = _lay_meld(spec, seat, top, loc, cnt, hsize, owner, melds, sc)
    row = _log(log, sc, EV_TAKE_POT, seat, top, m, sc[SC_POT])
    _log_meld(log, row, melds, m)
    for i in range(sc[SC_POT]):
        _to_hand(pot[i], seat, loc, cnt, hsize)
    sc[SC_POT] = 0
    return STEP_OUT if hsize[seat] == 0 else STEP_ON


@njit(cache=True)
def _undo(seat, first, loc, cnt, hsize, owner, melds, sc):
    """Take the provisional melds ``first..`` back into the hand (an opening below 30)."""
    for m in range(first, sc[SC_MELDS]):
        for i in range(melds[m, M_N]):
            card = melds[m, M_CARDS + i]
            owner[card] = -1
            _to_hand(card, seat, loc, cnt, hsize)
    sc[SC_MELDS] = first


@njit(cache=True)
def _swap(seat, m, kind, slot, loc, cnt, hsize, owner, melds, log, sc):
    """Variant 2: the natural ``kind`` from hand replaces the joker in ``slot`` of meld ``m``."""
    card = _hand_card(loc, seat, kind, -1)
    joker = melds[m, M_CARDS + slot]
    _off_hand(card, seat, cnt, hsize)
    melds[m, M_CARDS + slot] = card
    melds[m, M_JOKERS] -= 1
    loc[card] = LOC_TABLE
    owner[card] = seat
    owner[joker] = -1
    _to_hand(joker, seat, loc, cnt, hsize)
    _log(log, sc, EV_SWAP, seat, card, m, joker)


@njit(cache=True)
def _meld_step(rng, seat, flags, loc, cnt, hsize, melds, owner, opened, sc, log, ctx, spec, act):
    """Lay melds, lay-offs and (variant 2) joker exchanges until "stop". Returns 1 if out."""
    opening_turn = 1 - opened[seat]
    first = sc[SC_MELDS]
    prov = 0
    while True:
        _fill_ctx(ctx, hsize[seat], cnt[seat, QS_KIND], opened[seat], prov, opening_turn, flags)
        n_m = hand_melds(cnt[seat], -1, ctx, -1, spec)
        n_l = 0
        n_s = 0
        if opened[seat] == 1:
            n_l = _layoffs(cnt[seat], melds, sc[SC_MELDS], ctx, -1, act)
            if flags & FLAG_JOKER_EXCHANGE:
                n_s = _swaps(cnt[seat], melds, sc[SC_MELDS], ctx, -1, act)
        a = below(rng, n_m + n_l + n_s + 1)
        if a == n_m + n_l + n_s:
            if opened[seat] == 0 and sc[SC_MELDS] > first:
                _log(log, sc, EV_UNDO, seat, sc[SC_MELDS] - first, prov, 0)
                _undo(seat, first, loc, cnt, hsize, owner, melds, sc)
            return STEP_ON
        if a < n_m:
            hand_melds(cnt[seat], -1, ctx, a, spec)
            m = _lay_meld(spec, seat, -1, loc, cnt, hsize, owner, melds, sc)
            _log_meld(log, _log(log, sc, EV_MELD, seat, spec[SPEC_POINTS], m, 0), melds, m)
            if opened[seat] == 0:
                prov += spec[SPEC_POINTS]
                if prov >= OPENING_POINTS:
                    opened[seat] = 1
                    _log(log, sc, EV_OPENED, seat, prov, 0, 0)
        elif a < n_m + n_l:
            _layoffs(cnt[seat], melds, sc[SC_MELDS], ctx, a - n_m, act)
            card = _hand_card(loc, seat, act[1], -1)
            _off_hand(card, seat, cnt, hsize)
            _place(card, seat, act[0], act[2], loc, owner, melds)
            _log(log, sc, EV_LAYOFF, seat, card, act[0], 0)
        else:
            _swaps(cnt[seat], melds, sc[SC_MELDS], ctx, a - n_m - n_l, act)
            _swap(seat, act[0], act[1], act[2], loc, cnt, hsize, owner, melds, log, sc)
        if hsize[seat] == 0:
            return STEP_OUT


@njit(cache=True)
def _may_discard(kind, h, flags, opened_now):
    """The queen of spades only as the last card (not under variant 5); under variant 1 the last
    card may not be discarded in the turn of opening."""
    if h == 1 and opened_now and flags & FLAG_NO_OUT_ON_OPENING:
        return False
    if kind != QS_KIND:
        return True
    return h == 1 and not flags & FLAG_QUEEN_KEPT


@njit(cache=True)
def _discard_step(rng, seat, flags, opened_now, pen_points, loc, cnt, hsize, pot, penalty, sc,
                  log):
    """Discard one card uniformly among the legal kinds. Returns 1 if the hand is then empty."""
    h = hsize[seat]
    n = 0
    for k in range(N_KINDS):
        if cnt[seat, k] > 0 and _may_discard(k, h, flags, opened_now):
            n += 1
    if n == 0:
        _log(log, sc, EV_NO_DISCARD, seat, 0, 0, 0)
        return STEP_ON
    a = below(rng, n)
    for k in range(N_KINDS):
        if cnt[seat, k] > 0 and _may_discard(k, h, flags, opened_now):
            if a == 0:
                card = _hand_card(loc, seat, k, -1)
                _off_hand(card, seat, cnt, hsize)
                loc[card] = LOC_POT
                pot[sc[SC_POT]] = card
                sc[SC_POT] += 1
                _log(log, sc, EV_DISCARD, seat, card, 0, 0)
                break
            a -= 1
    if hsize[seat] == 0:
        return STEP_OUT
    if hsize[seat] == 1 and flags & FLAG_LAST_CARD:
        announced = below(rng, 2)
        if announced == 0:
            penalty[seat] += pen_points
        _log(log, sc, EV_ANNOUNCE, seat, announced, 0, 0)
    return STEP_ON


@njit(cache=True)
def _exchange_phase(rng, n_players, start, w, open_card):
    """Each player from the starter on takes the open card for a hand card or declines (two
    decisions: exchange or decline, half each; then which card to put back, uniformly); after
    one full round of exchanges the starter must decline. Returns (decliner, open card)."""
    loc, cnt, hsize = w.loc, w.cnt, w.hsize
    seat = start
    exchanged = 0
    while exchanged < n_players:
        n = 0
        for k in range(N_KINDS):
            if cnt[seat, k] > 0 and k != QS_KIND:
                n += 1
        if below(rng, 2) == 0:  # decline
            break
        a = below(rng, n)
        for k in range(N_KINDS):
            if cnt[seat, k] > 0 and k != QS_KIND:
                if a == 0:
                    card = _hand_card(loc, seat, k, -1)
                    _off_hand(card, seat, cnt, hsize)
                    _to_hand(open_card, seat, loc, cnt, hsize)
                    loc[card] = LOC_OPEN
                    _log(w.log, w.sc, EV_EXCHANGE, seat, open_card, card, 0)
                    open_card = card
                    break
                a -= 1
        exchanged += 1
        seat = (seat + 1) % n_players
    return seat, open_card


@njit(cache=True)
def _score(n_players, loc, cnt, owner, penalty, scores):
    """Table points laid by each seat minus its hand points minus its penalties."""
    for p in range(n_players):
        s = -penalty[p]
        for k in range(N_KINDS):
            s -= cnt[p, k] * POINTS[k]
        scores[p] = s
    for c in range(MAX_CARDS):
        if loc[c] == LOC_TABLE:
            scores[owner[c]] += POINTS[_kind(c)]


@njit(cache=True)
def deal_round(rng, n_players, w):
    """Shuffle ``w.deck`` and deal a round into the ``RoundWork`` ``w``; returns the open card."""
    deck, loc, cnt, hsize, stock, sc = w.deck, w.loc, w.cnt, w.hsize, w.stock, w.sc
    for i in range(MAX_CARDS):
        deck[i] = i
    shuffle(rng, deck)
    cnt[:, :] = 0
    hsize[:] = 0
    w.opened[:] = 0
    w.penalty[:] = 0
    w.owner[:] = -1
    for p in range(n_players):
        for i in range(HAND_CARDS):
            _to_hand(deck[p * HAND_CARDS + i], p, loc, cnt, hsize)
    open_card = deck[n_players * HAND_CARDS]
    loc[open_card] = LOC_OPEN
    n = 0
    for i in range(n_players * HAND_CARDS + 1, MAX_CARDS):
        stock[n] = deck[i]
        loc[deck[i]] = LOC_STOCK
        n += 1
    sc[SC_STOCK] = n
    sc[SC_POT] = 0
    sc[SC_MELDS] = 0
    sc[SC_TURNS] = 0
    sc[SC_OUT] = -1
    return open_card


@njit(cache=True)
def play_round_kernel(rng, rules, start, work):
    """Deal and play one round from ``start`` under ``rules`` (``RoundRules``) with the
    ``RoundWork`` arrays ``work``; fills its ``scores`` and ``sc``; returns END_*."""
    n_players, flags, pen_points = rules.players, rules.flags, rules.penalty
    loc, cnt, hsize = work.loc, work.cnt, work.hsize
    stock, pot, melds, owner = work.stock, work.pot, work.melds, work.owner
    opened, penalty, scores, sc, log = work.opened, work.penalty, work.scores, work.sc, work.log
    ctx, spec, act = work.ctx, work.spec, work.act
    ctx[:] = 0
    spec[:] = 0
    act[:] = 0
    sc[SC_START] = start
    sc[SC_LOG_N] = 0
    open_card = deal_round(rng, n_players, work)
    seat, open_card = _exchange_phase(rng, n_players, start, work, open_card)
    # The decliner draws from the stock; the open card turned face down starts the pot.
    loc[open_card] = LOC_POT
    pot[0] = open_card
    sc[SC_POT] = 1
    sc[SC_STOCK] -= 1
    card = stock[sc[SC_STOCK]]
    _to_hand(card, seat, loc, cnt, hsize)
    _log(log, sc, EV_DECLINE, seat, card, open_card, 0)
    end = END_TURN_LIMIT
    sc[SC_TURNS] = 1
    d = STEP_ON  # the decliner's turn goes on from its draw
    while True:
        # The rest of ``seat``'s turn (unless the draw emptied the hand): melds, then a discard.
        out = STEP_OUT
        if d != STEP_OUT:
            was_open = opened[seat]
            if _meld_step(rng, seat, flags, loc, cnt, hsize, melds, owner, opened, sc, log, ctx,
                          spec, act) != STEP_OUT:
                opened_now = 1 if was_open == 0 and opened[seat] == 1 else 0
                out = _discard_step(rng, seat, flags, opened_now, pen_points, loc, cnt, hsize,
                                    pot, penalty, sc, log)
        if sc[SC_TURNS] >= TURN_LIMIT:
            break
        if out == STEP_OUT:
            end = END_OUT
            sc[SC_OUT] = seat
            _log(log, sc, EV_OUT, seat, 0, 0, 0)
            break
        seat = (seat + 1) % n_players
        d = _draw_step(rng, seat, flags, loc, cnt, hsize, stock, pot, melds, owner, opened, sc,
                       log, ctx, spec)
        if d == STEP_STUCK:
            end = END_EXHAUSTED
            _log(log, sc, EV_EXHAUSTED, seat, 0, 0, 0)
            break
        sc[SC_TURNS] += 1
    _score(n_players, loc, cnt, owner, penalty, scores)
    return end


@njit(cache=True)
def _play_game(rng, rules, max_rounds, work, rec, totals):
    """Rounds until a total reaches 1000 after a round (or ``max_rounds``). The highest total wins;
    a tie goes to the player who went out in the last round if tied, else the lowest seat.
    Fills ``rec`` (``RoundRecords``) and ``totals``; returns (rounds played, winner or -1 if
    unfinished)."""
    n_players = rules.players
    totals[:] = 0
    for r in range(max_rounds):
        end = play_round_kernel(rng, rules, r % n_players, work)
        scores, sc = work.scores, work.sc
        best = -1 << 40
        for p in range(n_players):
            totals[p] += scores[p]
            rec.scores[r, p] = scores[p]
            best = max(best, totals[p])
        rec.turns[r] = sc[SC_TURNS]
        rec.end[r] = end
        rec.out[r] = sc[SC_OUT]
        if best >= TARGET_POINTS:
            return r + 1, _winner(totals, n_players, sc[SC_OUT])
    return max_rounds, -1


@njit(cache=True)
def _winner(totals, n_players, out_seat):
    """The highest total wins; a tie goes to ``out_seat`` (who went out in the last round, -1 if
    nobody) if tied, else to the lowest tied seat."""
    best = totals[0]
    for p in range(1, n_players):
        best = max(best, totals[p])
    if out_seat >= 0 and totals[out_seat] == best:
        return out_seat
    for p in range(n_players):
        if totals[p] == best:
            return p
    return -1
