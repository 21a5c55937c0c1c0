"""Per-deal tables of the minimum-move bound: the pyramid shapes play can reach, the fewest
pyramid-removing moves per shape (``pyramid_moves``) and the per-class matchings
(``class_tables``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.core.bits import popcount
from solver.core.cards import RANK_OF
from solver.core.jit import kernel
from solver.pyramid.model.layout import ABOVE, BELOW, COVER_MASK, DIRECT, PYRAMID_CARDS
from solver.pyramid.model.state import (MAX_MOVES, deal_tables, lowest_bit_index, move_a, move_b,
                                  push_pyramid_pairs, uncovered_mask)

_ONE = np.uint64(1)

CLASS_SLOTS = 8
"""A value class {v, 13-v} (v = 1..6) has at most 4 + 4 pyramid cards: slots 0..3 hold the
positions of its v cards, 4..7 those of its 13-v cards (-1 when fewer)."""


def _pyramid_configs() -> np.ndarray:
    """Every pyramid mask that play can reach (a card goes only once the cards covering it are
    gone, so the cards left always include everything below a card left): 1430 of them (the
    Catalan number C(8)), fewest cards first."""
    full = (1 << PYRAMID_CARDS) - 1
    seen = {full}
    todo = [full]
    while todo:
        m = todo.pop()
        for p in range(PYRAMID_CARDS):
            if m >> p & 1 and not m & int(COVER_MASK[p]):
                n = m & ~(1 << p)
                if n not in seen:
                    seen.add(n)
                    todo.append(n)
    return np.array(sorted(seen, key=lambda m: (bin(m).count("1"), m)), dtype=np.int64)


CONFIGS = _pyramid_configs()
N_CONFIGS = len(CONFIGS)
_CFG_BITS = 12
_CFG_SHIFT = np.uint64(64 - _CFG_BITS)
_CFG_MUL = np.uint64(0x9E3779B97F4A7C15)


def _config_index() -> tuple[np.ndarray, np.ndarray]:
    """Open-addressing table (4096 slots) from a pyramid mask to its index in ``CONFIGS``."""
    key = np.full(1 << _CFG_BITS, -1, dtype=np.int64)
    ident = np.zeros(1 << _CFG_BITS, dtype=np.int64)
    mask = (1 << _CFG_BITS) - 1
    for i, m in enumerate(CONFIGS):
        j = ((int(m) * int(_CFG_MUL)) & 0xFFFFFFFFFFFFFFFF) >> int(_CFG_SHIFT)
        while key[j] >= 0:
            j = (j + 1) & mask
        key[j] = m
        ident[j] = i
    return key, ident


CFG_KEY, CFG_ID = _config_index()


@kernel
def config_id(pyr):
    """Index in ``CONFIGS`` of the pyramid mask ``pyr``, or -1 when play cannot reach it (a mask
    made up by hand, with a card left whose covered cards are gone)."""
    m = np.int64(pyr)
    j = np.int64((np.uint64(m) * _CFG_MUL) >> _CFG_SHIFT)
    while True:
        k = CFG_KEY[j]
        if k == m:
            return CFG_ID[j]
        if k < 0:
            return -1
        j = (j + 1) & ((1 << _CFG_BITS) - 1)


PYR_INF = 1000
"""``pyramid_moves`` of a pyramid that can never be cleared, even with every stock card at hand."""


@kernel
def pyramid_moves(deal, overlap, dp, moves):
    """For each pyramid mask of ``CONFIGS``: the fewest moves that remove pyramid cards needed to
    clear it, in a relaxed game where every stock card of the deal is always at hand (so any
    uncovered card whose partner value is among the deal's 24 stock cards can go on its own).

    Every real move that removes pyramid cards (a pair of uncovered cards, an overlap pair, a
    king, a pair with a stock or waste card) is a move of the relaxed game, so this never
    exceeds the real count, and one real move lowers it by at most one. Unlike the per-class
    matching of ``class_tables`` it knows the order in which covering forces the cards out.
    A pyramid that cannot be cleared even so gets ``PYR_INF``. Fills ``dp`` (``N_CONFIGS``
    int64, index ``config_id``) and returns it; ``moves`` is scratch (``MAX_MOVES`` int64)."""
    tabs = deal_tables(deal)
    val = tabs.val
    sval = tabs.sval
    dp[0] = 0  # CONFIGS[0] is the empty pyramid
    for k in range(1, N_CONFIGS):
        m = np.uint64(CONFIGS[k])
        unc = uncovered_mask(m)
        best = PYR_INF
        u = unc
        while u:  # one card alone: a king, or with a stock card
            p = lowest_bit_index(u)
            u &= u - _ONE
            if val[p] == 13 or sval[13 - val[p]]:
                best = min(best, 1 + dp[config_id(m & ~(_ONE << np.uint64(p)))])
        n = push_pyramid_pairs(m, unc, tabs, overlap, moves, 0)
        for q in range(n):
            two = m & ~(_ONE << np.uint64(move_a(moves[q]))) & ~(_ONE << np.uint64(move_b(moves[q])))
            best = min(best, 1 + dp[config_id(two)])
        dp[k] = min(best, PYR_INF)
    return dp


class ClassTables(NamedTuple):
    """The per-deal tables of the bound (``class_tables``; the fields are described there)."""

    cpos: np.ndarray
    cmoves: np.ndarray
    cneed: np.ndarray
    csub: np.ndarray
    cdp: np.ndarray


def class_tables(deal, overlap: bool) -> ClassTables:
    """The ``ClassTables`` of ``deal`` (52 card ids, int64; ``overlap``: the overlap-pairs rule),
    its arrays allocated here and filled by the kernel ``fill_class_tables`` (a kernel that
    allocates compiles numba's allocation code for each shape: about half a second of the first
    run)."""
    ctab = ClassTables(cpos=np.full((6, CLASS_SLOTS), -1, dtype=np.int64),
                       cmoves=np.zeros((6, 256), dtype=np.int64),
                       cneed=np.zeros((6, 256, 2), dtype=np.int64),
                       csub=np.zeros((4, 128), dtype=np.int64),
                       cdp=np.full(N_CONFIGS, PYR_INF, dtype=np.int64))
    fill_class_tables(deal, bool(overlap), ctab, np.zeros(256, dtype=np.int64),
                      np.zeros(4, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64))
    return ctab


@kernel
def fill_class_tables(deal, overlap, ctab, match, adj, moves):
    """Fill the ``ClassTables`` ``ctab`` of ``deal`` (fresh: ``cpos`` and ``cdp`` all -1 and
    ``PYR_INF``, the others 0; ``match`` (256), ``adj`` (4) and ``moves`` (``MAX_MOVES``) are
    scratch). For each class c
    (v = c + 1) and each subset ``x`` (8 bits, one per class slot) of its pyramid cards still
    present:

    * ``cpos[c, k]``: the pyramid position of class slot ``k`` (-1 when empty);
    * ``cmoves[c, x]``: moves the class still needs at least, ``#v + #w - M`` where ``M`` is the
      largest number of disjoint v/w pairs of present pyramid cards that can ever meet (neither
      covers the other, or, with overlap pairs, one covers the other directly): every other
      pyramid card of the class needs a move with a stock or waste card;
    * ``cneed[c, x, 0]``: stock/waste cards of value 13-v needed at least (``#v - M``), and
      ``cneed[c, x, 1]`` those of value v (``#w - M``);
    * ``csub``: lookup tables giving the six subsets of a pyramid mask at once (``solver.pyramid.optimal.bound``);
    * ``cdp``: ``pyramid_moves`` by pyramid mask (index ``config_id``).
    """
    cpos, cmoves, cneed, csub = ctab.cpos, ctab.cmoves, ctab.cneed, ctab.csub
    for c in range(6):
        nv = 0
        nw = 0
        for p in range(PYRAMID_CARDS):
            v = RANK_OF[deal[p]]
            if v == c + 1:
                cpos[c, nv] = p
                nv += 1
            elif v == 12 - c:
                cpos[c, 4 + nw] = p
                nw += 1
    for c in range(6):
        # adj[a]: bit b set when v card a and w card b can ever be paired
        for a in range(4):
            adj[a] = 0
        for a in range(4):
            pa = cpos[c, a]
            if pa < 0:
                continue
            for b in range(4):
                pb = cpos[c, 4 + b]
                if pb < 0:
                    continue
                apart = not ((BELOW[pa] >> pb) & 1) and not ((ABOVE[pa] >> pb) & 1)
                direct = (DIRECT[pa] >> pb) & 1
                if apart or (overlap and direct):
                    adj[a] |= 1 << b
        # match[x]: largest matching within subset x, from smaller subsets: the lowest v card
        # of x is either left unmatched or matched to one of its w cards in x
        for x in range(256):
            if x & 0xF == 0:
                match[x] = 0
            else:
                a = 0
                while not (x >> a) & 1:
                    a += 1
                rest = x & ~(1 << a)
                best = match[rest]
                for b in range(4):
                    if (adj[a] >> b) & 1 and (x >> (4 + b)) & 1:
                        best = max(best, 1 + match[rest & ~(1 << (4 + b))])
                match[x] = best
            nv = popcount(np.uint64(x & 0xF))  # uint64, as everywhere else: one compile
            nw = popcount(np.uint64(x >> 4))
            cmoves[c, x] = nv + nw - match[x]
            cneed[c, x, 0] = nv - match[x]
            cneed[c, x, 1] = nw - match[x]
    # csub[k, b]: the class subsets (8 bits per class, class c at bits 8c) of the pyramid cards
    # at positions 7k .. 7k+6 given by the 7 bits b; OR-ing four lookups gives all six subsets
    for c in range(6):
        for k in range(CLASS_SLOTS):
            p = cpos[c, k]
            if p < 0:
                continue
            for b in range(128):
                if (b >> (p % 7)) & 1:
                    csub[p // 7, b] |= np.int64(1) << (8 * c + k)
    pyramid_moves(deal, overlap, ctab.cdp, moves)

