"""Duizenden melds for the kernels: card kinds, card points, and the exhaustive action enumerators.

Kinds. Inside the kernels a hand is a count array over 53 *kinds*: kinds 0..51 are the natural base
cards of ``solver.core.cards`` (``card % 54``; the two identical copies of a card share their kind) and
kind 52 (``KIND_JOKER``) is any of the four jokers (red or black, either deck: they play alike).
A count is 0..2 for a natural and 0..4 for the jokers.

Run positions. A run of suit ``s`` covers consecutive positions ``lo..hi`` of 1..14, where position
``p`` (1..13) is rank ``p`` and position 14 is the ace played high. A run has 3..13 cards, so it can
never hold the ace at both ends (K-A-2 is never a run).

Every enumerator works in two modes with one code path, so counting and choosing always agree:
``target < 0`` counts the legal actions; ``target >= 0`` stops at the action of that index, writes
it to the output array and returns ``target + 1``.

Legality filter (``_can_end``): an action is legal only if the player can still finish the turn
legally afterwards, given in ``ctx`` (fields ``CTX_*``): either the hand is empty and going out is
allowed now, or a card remains that may be discarded (see docs/duizenden.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.core.cards import ACE, NATURAL_CARDS, QUEEN, RANKS_PER_SUIT, SPADES, SUITS, make_card

# Explicit signatures: compiled once each (at import, or from the cache). Without them numba
# compiles a separate copy for every combination of literal arguments at the call sites (the
# enumerators were compiled eight times over), which made the first run slow.
_RUN_KIND_SIG = "int64(int64, int64)"
_CAN_END_SIG = "boolean(int64[::1], int64, int64, int64)"
_NEXT_SUBSET_SIG = "int64(int64)"
_SUIT_RUNS_SIG = "int64(int64[::1], int64, int64, int64[::1], int64, int64[::1], int64)"
_RANK_SETS_SIG = "int64(int64[::1], int64, int64, int64[::1], int64, int64[::1], int64)"
_HAND_MELDS_SIG = "int64(int64[::1], int64, int64[::1], int64, int64[::1])"
_PUT_SIG = "int64(int64, int64, int64[::1], int64, int64, int64)"
_LAYOFFS_SIG = "int64(int64[::1], int64[:, ::1], int64, int64[::1], int64, int64[::1])"
_SWAPS_SIG = "int64(int64[::1], int64[:, ::1], int64, int64[::1], int64, int64[::1])"

KIND_JOKER = NATURAL_CARDS
"""Kind 52: any joker."""
N_KINDS = NATURAL_CARDS + 1
QS_KIND = make_card(QUEEN, SPADES)
"""Kind 50: the queen of spades (100 points, may not be discarded mid-round)."""
ACE_HIGH = RANKS_PER_SUIT + 1
"""Run position 14: the ace above the king."""
MAX_RUN = RANKS_PER_SUIT
"""A run holds at most 13 cards (A..K or 2..A)."""
MIN_MELD = 3
OPENING_POINTS = 30
JOKER_POINTS = 25

MELD_RUN = 0
MELD_SET = 1

# ctx fields: the situation an action is judged in.
CTX_POOL = 0
"""Cards available to lay: the hand (plus the top discard when taking the pot)."""
CTX_QUEENS = 1
"""Queens of spades among the hand cards."""
CTX_OPENED = 2
"""1 once the player has opened (including earlier in this turn)."""
CTX_PROV = 3
"""Points laid provisionally this turn by a player who has not opened yet."""
CTX_OPENING_TURN = 4
"""1 when the player had not opened at the start of this turn."""
CTX_EXTRA = 5
"""Cards entering the hand after the action (the rest of the pot when taking it)."""
CTX_EXTRA_QUEENS = 6
"""Queens of spades among those cards."""
CTX_FLAGS = 7
"""Variant bits ``FLAG_*``."""
CTX_LEN = 8

FLAG_NO_OUT_ON_OPENING = 1
"""Variant 1: no going out in the turn of opening."""
FLAG_JOKER_EXCHANGE = 2
"""Variant 2: a joker on the table may be exchanged for the natural card it stands for."""
FLAG_LAST_CARD = 4
"""Variant 3: "last card" must be announced (penalty when forgotten)."""
FLAG_DISCARD_LAST = 8
"""Variant 4: the last card must be discarded, never melded or laid off."""
FLAG_QUEEN_KEPT = 16
"""Variant 5: the queen of spades may not be discarded even as the last card."""

# spec: one meld chosen by hand_melds.
SPEC_TYPE, SPEC_KEY, SPEC_LO, SPEC_HI, SPEC_JOKERS = 0, 1, 2, 3, 4
SPEC_SUITS, SPEC_N, SPEC_POINTS = 5, 9, 10
"""Run: key = suit, lo..hi positions, SPEC_JOKERS = bit mask of the joker positions.
Set: key = rank, SPEC_SUITS.. = naturals of each suit (0..2), SPEC_JOKERS = number of jokers."""
SPEC_SCRATCH = 16
"""``spec[16:]`` is the enumerators' scratch space (so that no call allocates)."""
SPEC_LEN = SPEC_SCRATCH + ACE_HIGH + 2 * SUITS


def _build_points() -> np.ndarray:
    pts = np.zeros(N_KINDS, dtype=np.int64)
    for k in range(NATURAL_CARDS):
        rank = k % RANKS_PER_SUIT + 1
        pts[k] = 20 if rank == ACE else (5 if rank <= 9 else 10)
    pts[QS_KIND] = 100
    pts[KIND_JOKER] = JOKER_POINTS
    return pts


POINTS = _build_points()
"""``POINTS[kind]``: 2..9 = 5, 10/J/Q/K = 10, A = 20, joker = 25, queen of spades = 100."""


@njit(_RUN_KIND_SIG, cache=True)
def run_kind(suit, pos):
    """The kind at run position ``pos`` (1..14) of ``suit``: position 14 is the ace."""
    return suit * RANKS_PER_SUIT + (0 if pos == ACE_HIGH else pos - 1)


@njit(_CAN_END_SIG, cache=True)
def _can_end(ctx, n_laid, queens_laid, points):
    """True if, after laying ``n_laid`` pool cards (``queens_laid`` of them queens of spades, worth
    ``points``), the player can still end the turn legally (see the module docstring)."""
    flags = ctx[CTX_FLAGS]
    opening_turn = ctx[CTX_OPENING_TURN] == 1
    h = ctx[CTX_POOL] - n_laid + ctx[CTX_EXTRA]
    q = ctx[CTX_QUEENS] - queens_laid + ctx[CTX_EXTRA_QUEENS]
    if h == 0:
        if flags & FLAG_DISCARD_LAST:
            return False
        if opening_turn and flags & FLAG_NO_OUT_ON_OPENING:
            return False
        return ctx[CTX_OPENED] == 1 or ctx[CTX_PROV] + points >= OPENING_POINTS
    others = h - q
    if opening_turn and flags & FLAG_NO_OUT_ON_OPENING:
        return h >= 2 and others >= 1
    if others >= 1:
        return True
    return h == 1 and not flags & FLAG_QUEEN_KEPT


@njit(_NEXT_SUBSET_SIG, cache=True)
def _next_subset(sub):
    """Gosper's hack: the next larger integer with the same number of set bits."""
    c = sub & -sub
    r = sub + c
    return (((r ^ sub) >> 2) // c) | r


@njit(_SUIT_RUNS_SIG, cache=True)
def _suit_runs(cnt, suit, must, ctx, target, spec, idx):
    """Runs of ``suit`` (all windows, all joker placements); see ``hand_melds``. Scratch: the
    run positions a joker may take, in ``spec``'s scratch fields."""
    opt = spec[SPEC_SCRATCH:SPEC_SCRATCH + ACE_HIGH]
    jokers = cnt[KIND_JOKER]
    must_a = -1
    must_b = -1
    if 0 <= must < NATURAL_CARDS:
        if must // RANKS_PER_SUIT != suit:
            return idx
        must_a = must % RANKS_PER_SUIT + 1
        if must_a == ACE:
            must_b = ACE_HIGH
    for lo in range(1, ACE_HIGH - MIN_MELD + 2):
        missing = 0
        for hi in range(lo, min(lo + MAX_RUN - 1, ACE_HIGH) + 1):
            if cnt[run_kind(suit, hi)] == 0:
                missing += 1
                if missing > jokers:
                    break
            length = hi - lo + 1
            if length < MIN_MELD:
                continue
            jmax = min(jokers, (length - 1) // 2)
            if missing > jmax:
                continue
            forced = -1
            if must_a >= 0:
                if lo <= must_a <= hi:
                    forced = must_a
                elif must_b >= 0 and lo <= must_b <= hi:
                    forced = must_b
                else:
                    continue
            k = 0
            miss_mask = 0
            nat_points = 0
            for p in range(lo, hi + 1):
                kd = run_kind(suit, p)
                if cnt[kd] == 0:
                    miss_mask |= 1 << p
                else:
                    nat_points += POINTS[kd]
                    if p != forced:
                        opt[k] = p
                        k += 1
            tmin = 1 if must == KIND_JOKER and missing == 0 else 0
            for t in range(tmin, min(jmax - missing, k) + 1):
                sub = (1 << t) - 1
                while sub < (1 << k):
                    jmask = miss_mask
                    points = nat_points + JOKER_POINTS * (missing + t)
                    for i in range(k):
                        if sub >> i & 1:
                            jmask |= 1 << opt[i]
                            points -= POINTS[run_kind(suit, opt[i])]
                    queens = 1 if (suit == SPADES and lo <= QUEEN <= hi
                                   and not jmask >> QUEEN & 1) else 0
                    if _can_end(ctx, length, queens, points):
                        if idx == target:
                            spec[SPEC_TYPE] = MELD_RUN
                            spec[SPEC_KEY] = suit
                            spec[SPEC_LO] = lo
                            spec[SPEC_HI] = hi
                            spec[SPEC_JOKERS] = jmask
                            spec[SPEC_N] = length
                            spec[SPEC_POINTS] = points
                            return idx + 1
                        idx += 1
                    if t == 0:
                        break
                    sub = _next_subset(sub)
    return idx


@njit(_RANK_SETS_SIG, cache=True)
def _rank_sets(cnt, rank, must, ctx, target, spec, idx):
    """Sets of ``rank``: every multiset of its naturals (duplicates allowed) with 0.. jokers.
    Scratch: the naturals held and taken by suit, in ``spec``'s scratch fields."""
    avail = spec[SPEC_SCRATCH + ACE_HIGH:SPEC_SCRATCH + ACE_HIGH + SUITS]
    take = spec[SPEC_SCRATCH + ACE_HIGH + SUITS:SPEC_LEN]
    jokers = cnt[KIND_JOKER]
    total = 0
    for s in range(SUITS):
        avail[s] = cnt[s * RANKS_PER_SUIT + rank - 1]
        total += avail[s]
    if total == 0 or total + jokers < MIN_MELD:
        return idx
    must_suit = -1
    if 0 <= must < NATURAL_CARDS:
        if must % RANKS_PER_SUIT != rank - 1:
            return idx
        must_suit = must // RANKS_PER_SUIT
    n_choices = (avail[0] + 1) * (avail[1] + 1) * (avail[2] + 1) * (avail[3] + 1)
    for code in range(n_choices):
        rest = code
        nat = 0
        points = 0
        for s in range(SUITS):
            take[s] = rest % (avail[s] + 1)
            rest //= avail[s] + 1
            nat += take[s]
            points += take[s] * POINTS[s * RANKS_PER_SUIT + rank - 1]
        if nat == 0 or (must_suit >= 0 and take[must_suit] == 0):
            continue
        queens = take[SPADES] if rank == QUEEN else 0
        for j in range(jokers + 1):
            n = nat + j
            if 2 * j >= n:
                break
            if n < MIN_MELD or (must == KIND_JOKER and j == 0):
                continue
            if _can_end(ctx, n, queens, points + JOKER_POINTS * j):
                if idx == target:
                    spec[SPEC_TYPE] = MELD_SET
                    spec[SPEC_KEY] = rank
                    spec[SPEC_JOKERS] = j
                    for s in range(SUITS):
                        spec[SPEC_SUITS + s] = take[s]
                    spec[SPEC_N] = n
                    spec[SPEC_POINTS] = points + JOKER_POINTS * j
                    return idx + 1
                idx += 1
    return idx


@njit(_HAND_MELDS_SIG, cache=True)
def hand_melds(cnt, must, ctx, target, spec):
    """Every distinct meld the pool ``cnt`` (53 kind counts) can lay: runs then sets.

    Distinct means a different multiset of kinds or a different joker assignment (a run's joker
    positions). ``must`` >= 0: only melds holding at least one card of that kind (taking the pot).
    Only melds passing ``_can_end`` count. Returns the count, or ``target + 1`` once found."""
    idx = 0
    for suit in range(SUITS):
        idx = _suit_runs(cnt, suit, must, ctx, target, spec, idx)
        if 0 <= target < idx:
            return idx
    jokers = cnt[KIND_JOKER]
    for rank in range(1, RANKS_PER_SUIT + 1):
        naturals = (cnt[rank - 1] + cnt[RANKS_PER_SUIT + rank - 1]
                    + cnt[2 * RANKS_PER_SUIT + rank - 1] + cnt[3 * RANKS_PER_SUIT + rank - 1])
        if naturals == 0 or naturals + jokers < MIN_MELD:
            continue  # cheap test first: most ranks of a hand cannot make a set
        idx = _rank_sets(cnt, rank, must, ctx, target, spec, idx)
        if 0 <= target < idx:
            return idx
    return idx


# Table melds: one row of ``melds`` per meld.
M_TYPE, M_KEY, M_LO, M_HI, M_N, M_JOKERS, M_OWNER = 0, 1, 2, 3, 4, 5, 6
"""Header: type, suit (run) or rank (set), run positions lo..hi, cards, jokers, creator seat."""
M_CARDS = 8
"""``M_CARDS + i``: card id of the meld's i-th card."""
MELD_SLOTS = 16
"""Slots per meld: a run holds at most 13 cards, a set at most 12 (8 naturals and 4 jokers)."""
M_POS = M_CARDS + MELD_SLOTS
"""``M_POS + i``: run position of the i-th card (0 in a set)."""
MELD_WIDTH = M_POS + MELD_SLOTS
MAX_MELDS = 40
"""108 cards make at most 36 melds of three."""


@njit(_PUT_SIG, cache=True)
def _put(target, idx, out, a, b, c):
    if idx == target:
        out[0] = a
        out[1] = b
        out[2] = c
    return idx + 1


@njit(_LAYOFFS_SIG, cache=True)
def _layoffs(cnt, melds, n_melds, ctx, target, out):
    """Every lay-off of one hand card onto a table meld: ``out = (meld, kind, run position or 0)``.

    A run grows at either end (the ace at position 1 or 14, at most 13 cards); a set takes any
    natural of its rank. A joker may be laid off only if jokers stay fewer than half the meld."""
    jokers = cnt[KIND_JOKER]
    idx = 0
    for m in range(n_melds):
        n = melds[m, M_N]
        joker_ok = jokers > 0 and 2 * (melds[m, M_JOKERS] + 1) < n + 1
        if melds[m, M_TYPE] == MELD_RUN:
            if n >= MAX_RUN:
                continue
            suit = melds[m, M_KEY]
            for end in range(2):
                pos = melds[m, M_LO] - 1 if end == 0 else melds[m, M_HI] + 1
                if pos < 1 or pos > ACE_HIGH:
                    continue
                kd = run_kind(suit, pos)
                if cnt[kd] > 0 and _can_end(ctx, 1, 1 if kd == QS_KIND else 0, 0):
                    idx = _put(target, idx, out, m, kd, pos)
                    if idx > target >= 0:
                        return idx
                if joker_ok and _can_end(ctx, 1, 0, 0):
                    idx = _put(target, idx, out, m, KIND_JOKER, pos)
                    if idx > target >= 0:
                        return idx
        else:
            rank = melds[m, M_KEY]
            for s in range(SUITS):
                kd = s * RANKS_PER_SUIT + rank - 1
                if cnt[kd] > 0 and _can_end(ctx, 1, 1 if kd == QS_KIND else 0, 0):
                    idx = _put(target, idx, out, m, kd, 0)
                    if idx > target >= 0:
                        return idx
            if joker_ok and _can_end(ctx, 1, 0, 0):
                idx = _put(target, idx, out, m, KIND_JOKER, 0)
                if idx > target >= 0:
                    return idx
    return idx


@njit(_SWAPS_SIG, cache=True)
def _swaps(cnt, melds, n_melds, ctx, target, out):
    """Variant 2, every joker exchange: ``out = (meld, natural kind, slot of the joker)``.

    In a run a joker stands for the one card of its position; in a set for any natural of the
    set's rank (one action per natural kind held, whichever joker)."""
    idx = 0
    for m in range(n_melds):
        if melds[m, M_JOKERS] == 0:
            continue
        n = melds[m, M_N]
        if melds[m, M_TYPE] == MELD_RUN:
            for i in range(n):
                if melds[m, M_CARDS + i] % 54 < NATURAL_CARDS:
                    continue
                kd = run_kind(melds[m, M_KEY], melds[m, M_POS + i])
                if cnt[kd] > 0 and _can_end(ctx, 0, 1 if kd == QS_KIND else 0, 0):
                    idx = _put(target, idx, out, m, kd, i)
                    if idx > target >= 0:
                        return idx
        else:
            slot = 0
            while melds[m, M_CARDS + slot] % 54 < NATURAL_CARDS:
                slot += 1
            for s in range(SUITS):
                kd = s * RANKS_PER_SUIT + melds[m, M_KEY] - 1
                if cnt[kd] > 0 and _can_end(ctx, 0, 1 if kd == QS_KIND else 0, 0):
                    idx = _put(target, idx, out, m, kd, slot)
                    if idx > target >= 0:
                        return idx
    return idx
