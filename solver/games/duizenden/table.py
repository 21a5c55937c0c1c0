"""Duizenden's table during a round: the state arrays (``RoundWork``), where each card is, the
event log, and the small kernels that move cards between hand, table and log.

State of a round (all plain arrays, reused from round to round; ``new_work`` makes them):

* ``loc[card]`` for the 108 card ids: the seat 0..5 holding it, or ``LOC_STOCK``, ``LOC_POT``,
  ``LOC_OPEN`` (the open card of the exchange phase), ``LOC_TABLE``. Every card is in exactly one
  place, which is what the invariant tests check.
* ``cnt[seat, kind]`` (53 kinds, see ``duizenden.melds``) and ``hsize[seat]``: the hands.
* ``stock[0:sc[SC_STOCK]]`` (top = last) and ``pot[0:sc[SC_POT]]`` (top = last).
* ``melds[0:sc[SC_MELDS]]`` rows as in ``duizenden.melds``; ``owner[card]`` the seat that put a
  table card there (its points count for that seat).
* ``opened[seat]``, ``penalty[seat]`` (variant 3), ``scores[seat]`` (the round's result).
* ``log``: with ``sc[SC_LOG_ON]`` set, one row per event (``EV_*``) for ``pyramid show``.
* ``ctx``, ``spec``, ``act``: the scratch arrays of the action enumerators of
  ``duizenden.melds`` (the situation ``CTX_*``, a meld ``SPEC_*``, a lay-off or joker exchange).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.core.cards import CARDS_PER_DECK, MAX_CARDS, NATURAL_CARDS
from solver.games.duizenden.melds import (
    CTX_LEN, KIND_JOKER, M_CARDS, M_HI, M_JOKERS, M_KEY, M_LO, M_N, M_OWNER, M_POS, M_TYPE,
    MAX_MELDS, MELD_RUN, MELD_WIDTH, N_KINDS, SPEC_HI, SPEC_JOKERS, SPEC_KEY, SPEC_LEN, SPEC_LO,
    SPEC_SUITS, SPEC_TYPE, run_kind)
from solver.games.duizenden.options import MAX_PLAYERS

# Explicit signatures for the helpers called with many literal arguments (see duizenden.melds).
_KIND_SIG = "int64(int64)"
_HAND_CARD_SIG = "int64(int64[::1], int64, int64, int64)"
_LOG_SIG = "int64(int64[:, ::1], int64[::1], int64, int64, int64, int64, int64)"
_LAY_MELD_SIG = ("int64(int64[::1], int64, int64, int64[::1], int64[:, ::1], int64[::1], "
                 "int64[::1], int64[:, ::1], int64[::1])")

HAND_CARDS = 13
LOC_STOCK, LOC_POT, LOC_OPEN, LOC_TABLE = 6, 7, 8, 9

SC_STOCK, SC_POT, SC_MELDS, SC_TURNS, SC_OUT, SC_LOG_ON, SC_LOG_N, SC_START = 0, 1, 2, 3, 4, 5, 6, 7
"""Fields of the scalar array ``sc``: stock size, pot size, table melds, turns played, the seat
that went out (-1), logging on, log rows used, the round's starting seat."""
SC_LEN = 8


EV_EXCHANGE, EV_DECLINE, EV_DRAW, EV_TAKE_POT, EV_MELD, EV_LAYOFF, EV_SWAP = 1, 2, 3, 4, 5, 6, 7
EV_UNDO, EV_OPENED, EV_DISCARD, EV_NO_DISCARD, EV_ANNOUNCE, EV_OUT, EV_EXHAUSTED = (
    8, 9, 10, 11, 12, 13, 14)
LOG_TYPE, LOG_SEAT, LOG_A, LOG_B, LOG_C, LOG_NCARDS, LOG_CARDS = 0, 1, 2, 3, 4, 5, 6
"""Log row: event, seat, three event fields, then a meld's cards (count, ids)."""
LOG_WIDTH = LOG_CARDS + 16
LOG_ROWS = 4096


class RoundWork(NamedTuple):
    """The state arrays of a round (see the module docstring), reused from round to round; the
    kernels take them as one argument (numba passes a named tuple of arrays as a struct)."""
    deck: np.ndarray
    loc: np.ndarray
    cnt: np.ndarray
    hsize: np.ndarray
    stock: np.ndarray
    pot: np.ndarray
    melds: np.ndarray
    owner: np.ndarray
    opened: np.ndarray
    penalty: np.ndarray
    scores: np.ndarray
    sc: np.ndarray
    log: np.ndarray
    ctx: np.ndarray
    spec: np.ndarray
    act: np.ndarray


def new_work(log_rows: int = 0) -> RoundWork:
    """Fresh state arrays for ``play_round_kernel`` / ``_play_game`` (sized for six players)."""
    return RoundWork(deck=np.arange(MAX_CARDS, dtype=np.int64),
                     loc=np.zeros(MAX_CARDS, dtype=np.int64),
                     cnt=np.zeros((MAX_PLAYERS, N_KINDS), dtype=np.int64),
                     hsize=np.zeros(MAX_PLAYERS, dtype=np.int64),
                     stock=np.zeros(MAX_CARDS, dtype=np.int64),
                     pot=np.zeros(MAX_CARDS, dtype=np.int64),
                     melds=np.zeros((MAX_MELDS, MELD_WIDTH), dtype=np.int64),
                     owner=np.zeros(MAX_CARDS, dtype=np.int64),
                     opened=np.zeros(MAX_PLAYERS, dtype=np.int64),
                     penalty=np.zeros(MAX_PLAYERS, dtype=np.int64),
                     scores=np.zeros(MAX_PLAYERS, dtype=np.int64),
                     sc=np.zeros(SC_LEN, dtype=np.int64),
                     log=np.zeros((max(log_rows, 1), LOG_WIDTH), dtype=np.int64),
                     ctx=np.zeros(CTX_LEN, dtype=np.int64),
                     spec=np.zeros(SPEC_LEN, dtype=np.int64),
                     act=np.zeros(3, dtype=np.int64))


@njit(_KIND_SIG, cache=True)
def _kind(card):
    b = card % CARDS_PER_DECK
    return KIND_JOKER if b >= NATURAL_CARDS else b


@njit(_HAND_CARD_SIG, cache=True)
def _hand_card(loc, seat, kind, prefer):
    """A physical card of ``kind`` in ``seat``'s hand (``prefer`` first if it qualifies)."""
    if prefer >= 0 and loc[prefer] == seat and _kind(prefer) == kind:
        return prefer
    if kind == KIND_JOKER:
        for c in (NATURAL_CARDS, NATURAL_CARDS + 1, CARDS_PER_DECK + NATURAL_CARDS,
                  CARDS_PER_DECK + NATURAL_CARDS + 1):
            if loc[c] == seat:
                return c
        return -1
    if loc[kind] == seat:
        return kind
    if loc[kind + CARDS_PER_DECK] == seat:
        return kind + CARDS_PER_DECK
    return -1


@njit(cache=True)
def _to_hand(card, seat, loc, cnt, hsize):
    loc[card] = seat
    cnt[seat, _kind(card)] += 1
    hsize[seat] += 1


@njit(cache=True)
def _off_hand(card, seat, cnt, hsize):
    cnt[seat, _kind(card)] -= 1
    hsize[seat] -= 1


@njit(_LOG_SIG, cache=True)
def _log(log, sc, event, seat, a, b, c):
    """Append an event row (when logging); returns its row or -1."""
    if sc[SC_LOG_ON] == 0 or sc[SC_LOG_N] >= log.shape[0]:
        return -1
    r = sc[SC_LOG_N]
    sc[SC_LOG_N] += 1
    log[r, LOG_TYPE] = event
    log[r, LOG_SEAT] = seat
    log[r, LOG_A] = a
    log[r, LOG_B] = b
    log[r, LOG_C] = c
    log[r, LOG_NCARDS] = 0
    return r


@njit(cache=True)
def _log_meld(log, row, melds, m):
    if row < 0:
        return
    n = melds[m, M_N]
    log[row, LOG_NCARDS] = n
    for i in range(n):
        log[row, LOG_CARDS + i] = melds[m, M_CARDS + i]


@njit(cache=True)
def _place(card, seat, m, pos, loc, owner, melds):
    """Put ``card`` (already off the hand) into meld ``m`` at run position ``pos``."""
    i = melds[m, M_N]
    melds[m, M_CARDS + i] = card
    melds[m, M_POS + i] = pos
    melds[m, M_N] = i + 1
    if _kind(card) == KIND_JOKER:
        melds[m, M_JOKERS] += 1
    loc[card] = LOC_TABLE
    owner[card] = seat
    if melds[m, M_TYPE] == MELD_RUN:
        if pos < melds[m, M_LO]:
            melds[m, M_LO] = pos
        if pos > melds[m, M_HI]:
            melds[m, M_HI] = pos


@njit(cache=True)
def _lay_from_hand(seat, kind, prefer, m, pos, loc, cnt, hsize, owner, melds):
    card = _hand_card(loc, seat, kind, prefer)
    _off_hand(card, seat, cnt, hsize)
    _place(card, seat, m, pos, loc, owner, melds)


@njit(_LAY_MELD_SIG, cache=True)
def _lay_meld(spec, seat, prefer, loc, cnt, hsize, owner, melds, sc):
    """Lay the meld ``spec`` from ``seat``'s hand as a new table meld; returns its index."""
    m = sc[SC_MELDS]
    sc[SC_MELDS] += 1
    melds[m, M_TYPE] = spec[SPEC_TYPE]
    melds[m, M_KEY] = spec[SPEC_KEY]
    melds[m, M_N] = 0
    melds[m, M_JOKERS] = 0
    melds[m, M_OWNER] = seat
    if spec[SPEC_TYPE] == MELD_RUN:
        melds[m, M_LO] = spec[SPEC_LO]
        melds[m, M_HI] = spec[SPEC_HI]
        for p in range(spec[SPEC_LO], spec[SPEC_HI] + 1):
            kd = KIND_JOKER if spec[SPEC_JOKERS] >> p & 1 else run_kind(spec[SPEC_KEY], p)
            _lay_from_hand(seat, kd, prefer, m, p, loc, cnt, hsize, owner, melds)
    else:
        melds[m, M_LO] = 0
        melds[m, M_HI] = 0
        for s in range(4):
            kd = s * 13 + spec[SPEC_KEY] - 1
            for _ in range(spec[SPEC_SUITS + s]):
                _lay_from_hand(seat, kd, prefer, m, 0, loc, cnt, hsize, owner, melds)
        for _ in range(spec[SPEC_JOKERS]):
            _lay_from_hand(seat, KIND_JOKER, prefer, m, 0, loc, cnt, hsize, owner, melds)
    return m
