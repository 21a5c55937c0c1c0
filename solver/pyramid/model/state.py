"""Packed Pyramid positions and their move generation, as numba kernels over per-deal tables.

A position is one ``uint64``; the deal itself stays outside it (in the per-deal tables,
``DealTables``). ``STATE_FIELDS`` holds this layout as data, the masks below are built from it,
and a test checks this table against both::

    bits  0..27  pyramid: bit p set while the card at position p (apex 0 .. 27) is still there
    bits 28..51  stock: bit 28+i set while the i-th stock card of the deal (i = 0 is the stock's
                 top at the start) is still in play, in the stock or in the waste
    bits 52..56  pointer: the in-play cards with index < pointer form the waste (the highest of
                 them is the waste top), the others the stock (the lowest is the stock top)
    bits 57..61  recycles: recycles used so far (only counted when recycles are limited; at most
                 ``MAX_RECYCLES`` = 30 of ``solver.pyramid.model.rules``)
    bit  62      free_tag: never set in a position; the winnability search's lost-position table
                 marks its free-stock keys with it (``FREE_TAG``)
    bit  63      after_draw: the last move was a draw or a recycle (concrete moves only)

Equal positions pack identically: the pointer is kept canonical, ``1 + index of the waste top``
(0 with an empty waste), so two ways of reaching the same stock, waste and pyramid give one key;
with unlimited recycles the recycle count stays 0 in every key: ``apply_concrete`` counts every
recycle (it does not know the rules), so the searches that use it under unlimited recycles clear
the field after each move (``REC_MASK``); should a caller not, the count stops at
``MAX_RECYCLES_USED`` (31) instead of carrying into bits 62 and 63, and no limited search
reaches it (at most ``MAX_RECYCLES`` = 30 recycles are ever allowed).

Bit 63 serves a partial-order reduction in the concrete search: a move that uses only pyramid
cards (a pair of two pyramid cards, an overlap pair, a pyramid king) commutes with a draw or a
recycle, so every line of play can be reordered to play such moves before the draws around them.
The concrete generator therefore offers no pyramid-only move straight after a draw or a recycle.
The bit is part of the key, so a position reached both ways is remembered separately for each.

Two move generators work on this packing:

* *concrete* (``gen_concrete``): the real moves of docs/pyramid.md with the pointer and the
  recycle count; used whenever recycles are limited, and by the minimum-move search.
* *free-stock* (``gen_free``), for deciding winnability with unlimited recycles: then any stock or
  waste card can be brought to the top of the waste by drawing and recycling, so the pointer does
  not matter (it stays 0) and every in-play stock card is available on its own. With goal "all"
  and the stock top available, two stock cards can be paired exactly when they are neighbours in
  the in-play order (waste top and stock top). Otherwise stock cards only ever pair with pyramid
  cards, so stock cards of equal value are interchangeable: only the lowest-index one of each
  value is offered, which keeps the packed set canonical. ``tests/`` checks these claims against
  the plain reference solver.

A move is an int laid out by ``MOVE_FIELDS``: ``kind | a << MOVE_A_SHIFT | b << MOVE_B_SHIFT``
with slots ``a``, ``b`` (0..27 pyramid positions, 28+i stock card i; ``NO_SLOT`` when unused).
``encode_move``, ``move_kind``, ``move_a``, ``move_b`` (kernels) and ``decode_move`` (Python) are
the only code that knows this layout.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from solver.core.cards import RANK_OF
from solver.core.jit import kernel, noalloc
from solver.pyramid.model.layout import (ABOVE, BELOW, COVERED_BY, DIRECT, PYRAMID_CARDS,
                                         PYRAMID_ROWS, STOCK_CARDS)

STATE_FIELDS = (
    ("pyramid", 0, PYRAMID_CARDS),
    ("stock", PYRAMID_CARDS, STOCK_CARDS),
    ("pointer", 52, 5),
    ("recycles", 57, 5),
    ("free_tag", 62, 1),
    ("after_draw", 63, 1),
)
"""The packed position's fields as ``(name, first bit, width)``, lowest bits first (the module
docstring describes each); every mask and shift below is built from this table."""


def field_shift(name: str) -> int:
    """First bit of field ``name`` of ``STATE_FIELDS``."""
    for n, first, _width in STATE_FIELDS:
        if n == name:
            return first
    raise ValueError(f"no packed-position field {name!r}")


def field_mask(name: str) -> int:
    """The bits of field ``name`` of ``STATE_FIELDS``, in place (a Python int)."""
    for n, first, width in STATE_FIELDS:
        if n == name:
            return ((1 << width) - 1) << first
    raise ValueError(f"no packed-position field {name!r}")


PYR_MASK = np.uint64(field_mask("pyramid"))
"""Bits 0..27 of a packed position: the pyramid."""
STOCK_SHIFT = np.uint64(field_shift("stock"))
STOCK_MASK = np.uint64(field_mask("stock"))
"""Bits 28..51: the stock and waste cards still in play."""
PTR_SHIFT = np.uint64(field_shift("pointer"))
PTR_MASK = np.uint64(field_mask("pointer"))
"""Bits 52..56: the canonical pointer (1 + index of the waste top; 0 for an empty waste)."""
REC_SHIFT = np.uint64(field_shift("recycles"))
REC_MASK = np.uint64(field_mask("recycles"))
"""Bits 57..61: recycles used."""
MAX_RECYCLES_USED = field_mask("recycles") >> field_shift("recycles")
"""The largest recycle count the field holds (31)."""
FREE_TAG = np.uint64(field_mask("free_tag"))
"""Bit 62: not part of a position; marks the free-stock keys of the winnability search's table."""
AFTER_DRAW = np.uint64(field_mask("after_draw"))
"""Bit 63: the last move was a draw or a recycle (see the module docstring)."""
START = np.uint64(field_mask("pyramid") | field_mask("stock"))
"""The position at the start of every deal: all 52 cards in play, empty waste, no recycles."""

MOVE_DRAW, MOVE_RECYCLE, MOVE_KING, MOVE_PAIR = (np.int64(k) for k in range(4))
"""Move kinds (``MOVE_KING``: a king removed alone; the rank is ``solver.core.cards.KING``). A
``MOVE_PAIR`` of two pyramid slots is an overlap pair when one covers the other. int64, like
``NO_SLOT``: a plain int constant would make numba compile ``encode_move`` once per literal
value its callers pass (four kinds, and 63), where int64 arguments give one compile."""
MOVE_FIELDS = (("kind", 0, 4), ("a", 4, 6), ("b", 10, 6))
"""A move's fields as ``(name, first bit, width)``: its kind and its two slots."""
MOVE_KIND_MASK = (1 << MOVE_FIELDS[0][2]) - 1
MOVE_A_SHIFT = MOVE_FIELDS[1][1]
MOVE_B_SHIFT = MOVE_FIELDS[2][1]
SLOT_MASK = (1 << MOVE_FIELDS[1][2]) - 1
"""A slot field, shifted down (slots 0..51, and ``NO_SLOT``)."""
NO_SLOT = np.int64(SLOT_MASK)
MAX_MOVES = 256
"""Room for the moves of one position (at most 28 kings/pairs per card class, far below this)."""

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


def _row_masks() -> np.ndarray:
    rows = np.zeros(PYRAMID_ROWS, dtype=np.uint64)
    for r in range(PYRAMID_ROWS):
        start = r * (r + 1) // 2
        rows[r] = np.uint64(((1 << (r + 1)) - 1) << start)
    return rows


ROW_MASKS = _row_masks()
"""``ROW_MASKS[r]``: the pyramid bits of row ``r``."""


@noalloc
def encode_move(kind, a, b):
    """The move int of kind ``kind`` with slots ``a`` and ``b`` (``MOVE_FIELDS``)."""
    return kind | (a << MOVE_A_SHIFT) | (b << MOVE_B_SHIFT)


@noalloc
def move_kind(m):
    """The kind (``MOVE_DRAW`` .. ``MOVE_PAIR``) of move ``m``."""
    return m & MOVE_KIND_MASK


@noalloc
def move_a(m):
    """The first slot of move ``m``."""
    return (m >> MOVE_A_SHIFT) & SLOT_MASK


@noalloc
def move_b(m):
    """The second slot of move ``m`` (``NO_SLOT`` for a king)."""
    return (m >> MOVE_B_SHIFT) & SLOT_MASK


def decode_move(m: int) -> tuple[int, int, int]:
    """``(kind, a, b)`` of a move int, in plain Python (no kernel call from Python code)."""
    m = int(m)
    return m & MOVE_KIND_MASK, (m >> MOVE_A_SHIFT) & SLOT_MASK, (m >> MOVE_B_SHIFT) & SLOT_MASK


@noalloc
def uncovered_mask(pyr):
    """Pyramid bits of the present cards that no present card covers (row shifts, no loop per card)."""
    covered = _ZERO
    for r in range(PYRAMID_ROWS - 1):
        nxt = pyr & ROW_MASKS[r + 1]
        covered |= ((nxt >> np.uint64(r + 1)) | (nxt >> np.uint64(r + 2))) & ROW_MASKS[r]
    return pyr & ~covered


@noalloc
def lowest_bit_index(x):
    """Index of the lowest set bit of a non-zero uint64 (one count-trailing-zeros instruction)."""
    return np.int64(trailing_zeros(np.uint64(x)))


@noalloc
def highest_bit_below(x, n):
    """Index of the highest set bit of ``x`` below bit ``n`` (0 <= n <= 63), or -1."""
    y = np.uint64(x) & ((_ONE << np.uint64(n)) - _ONE)
    if y == _ZERO:
        return -1
    return 63 - np.int64(leading_zeros(y))


@noalloc
def lowest_bit_from(x, n, limit):
    """Index of the lowest set bit of ``x`` at or above ``n`` and below ``limit`` (<= 63), or -1."""
    y = (np.uint64(x) >> np.uint64(n)) << np.uint64(n)
    y &= (_ONE << np.uint64(limit)) - _ONE
    if y == _ZERO:
        return -1
    return np.int64(trailing_zeros(y))


class DealTables(NamedTuple):
    """Per-deal tables of the move generators and searches (``deal_tables``):

    * ``val[s]``: value 1..13 of the card in slot ``s`` (0..27 pyramid, 28..51 stock).
    * ``pmates[p]``: pyramid positions holding a card whose value makes 13 with ``p``'s.
    * ``reach[p]``: those of ``pmates[p]`` that can ever be paired with ``p``: not covered by ``p``
      and not covering ``p`` (except one directly covering the other: a possible overlap pair).
    * ``sval[v]``: stock bits (already shifted to bits 28..51) of the stock cards of value ``v``.
    * ``vmask[v]``: pyramid bits of the cards of value ``v``.
    * ``pkings``: pyramid bits holding kings; ``skings``: stock bits holding kings.
    """

    val: np.ndarray
    pmates: np.ndarray
    reach: np.ndarray
    sval: np.ndarray
    vmask: np.ndarray
    pkings: np.uint64
    skings: np.uint64


@kernel
def deal_tables(deal):
    """The ``DealTables`` of ``deal`` (52 card ids), in new arrays."""
    return deal_tables_into(deal, np.empty(52, dtype=np.int64), np.empty(14, dtype=np.uint64),
                            np.empty(PYRAMID_CARDS, dtype=np.uint64),
                            np.empty(PYRAMID_CARDS, dtype=np.uint64),
                            np.empty(14, dtype=np.uint64))


def kernel_tables(deal) -> DealTables:
    """``deal_tables(deal)`` as the kernels type it inside numba, for a kernel called from
    Python: the king masks come back to Python as plain ints, which numba would type int64 and
    so compile every kernel taking the tables a second time; they go back as uint64."""
    tabs = deal_tables(deal)
    return tabs._replace(pkings=np.uint64(tabs.pkings), skings=np.uint64(tabs.skings))


@kernel
def deal_tables_into(deal, val, vmask, pmates, reach, sval):
    """The ``DealTables`` of ``deal`` written into the given arrays (``val`` 52 int64, ``vmask``
    and ``sval`` 14 uint64, ``pmates`` and ``reach`` 28 uint64): no allocation, for kernels that
    table deal after deal (``solver.pyramid.winnable.chunk``)."""
    vmask[:] = _ZERO
    sval[:] = _ZERO
    for s in range(52):
        val[s] = RANK_OF[deal[s]]
    for p in range(PYRAMID_CARDS):
        vmask[val[p]] |= _ONE << np.uint64(p)
    skings = _ZERO
    for i in range(STOCK_CARDS):
        b = _ONE << np.uint64(PYRAMID_CARDS + i)
        sval[val[PYRAMID_CARDS + i]] |= b
        if val[PYRAMID_CARDS + i] == 13:
            skings |= b
    for p in range(PYRAMID_CARDS):
        pmates[p] = _ZERO
        reach[p] = _ZERO
        if val[p] < 13:
            pmates[p] = vmask[13 - val[p]]
            apart = ~(np.uint64(BELOW[p]) | np.uint64(ABOVE[p])) | np.uint64(DIRECT[p])
            reach[p] = pmates[p] & apart
    return DealTables(val, pmates, reach, sval, vmask, vmask[13], skings)


@noalloc
def remove_slot(state, slot):
    """Clear the bit of ``slot`` (pyramid position or stock card 28+i)."""
    return state & ~(_ONE << np.uint64(slot))


@noalloc
def canon_pointer(state, ptr):
    """Set the pointer field to ``1 + highest in-play index below ptr`` (0 if none)."""
    stock = (state & STOCK_MASK) >> STOCK_SHIFT
    w = highest_bit_below(stock, np.int64(ptr))  # one compile, whatever int the caller has
    return (state & ~PTR_MASK) | (np.uint64(w + 1) << PTR_SHIFT)


@noalloc
def pointer(state):
    return np.int64((state & PTR_MASK) >> PTR_SHIFT)


@noalloc
def recycles_used(state):
    return np.int64((state & REC_MASK) >> REC_SHIFT)


@noalloc
def waste_top(state):
    """Index (0..23) of the waste top, or -1 for an empty waste."""
    return pointer(state) - 1


@noalloc
def stock_top(state):
    """Index (0..23) of the stock top, or -1 for an empty stock."""
    stock = (state & STOCK_MASK) >> STOCK_SHIFT
    return lowest_bit_from(stock, pointer(state), STOCK_CARDS)


@noalloc
def apply_concrete(state, m):
    """The position after move ``m`` (assumed legal) under the concrete rules. A recycle adds one
    to the recycle count, saturating at ``MAX_RECYCLES_USED`` (see the module docstring)."""
    kind = move_kind(m)
    if kind == MOVE_DRAW:
        s = stock_top(state)
        return (state & ~PTR_MASK) | (np.uint64(s + 1) << PTR_SHIFT) | AFTER_DRAW
    if kind == MOVE_RECYCLE:
        if (state & REC_MASK) != REC_MASK:  # saturates: never carries into bits 62 and 63
            state += _ONE << REC_SHIFT
        return (state & ~PTR_MASK) | AFTER_DRAW
    ptr = pointer(state)
    state = remove_slot(state & ~AFTER_DRAW, move_a(m))
    if kind == MOVE_PAIR:
        state = remove_slot(state, move_b(m))
    return canon_pointer(state, ptr)


@noalloc
def is_won(state, goal_all):
    """True when ``state`` meets the goal (pyramid cleared; with ``goal_all`` the stock too)."""
    if goal_all:
        return (state & (PYR_MASK | STOCK_MASK)) == _ZERO
    return (state & PYR_MASK) == _ZERO


@noalloc
def push_pyramid_pairs(pyr, unc, tabs, overlap, out, n):
    """Pairs of two uncovered pyramid cards, then overlap pairs, into ``out`` from ``n``; returns
    the new count."""
    val = tabs.val
    pmates = tabs.pmates
    u = unc
    while u:
        p = lowest_bit_index(u)
        u &= u - _ONE
        mates = pmates[p] & u
        while mates:
            q = lowest_bit_index(mates)
            mates &= mates - _ONE
            out[n] = encode_move(MOVE_PAIR, p, q)
            n += 1
    if overlap:
        # present cards one of whose two covers is uncovered and the other gone, by row shifts
        # (the cover at row r+1, column j or j+1 of a card at row r, column j, shifted onto it)
        left = _ZERO
        right = _ZERO
        for r in range(PYRAMID_ROWS - 1):
            u = unc & ROW_MASKS[r + 1]
            gone = ~pyr & ROW_MASKS[r + 1]
            s1 = np.uint64(r + 1)
            s2 = np.uint64(r + 2)
            left |= (u >> s1) & (gone >> s2) & ROW_MASKS[r]
            right |= (u >> s2) & (gone >> s1) & ROW_MASKS[r]
        cand = (left | right) & pyr
        while cand:
            p = lowest_bit_index(cand)
            cand &= cand - _ONE
            c = COVERED_BY[p, 0] if (left >> np.uint64(p)) & _ONE else COVERED_BY[p, 1]
            if val[p] + val[c] == 13:
                out[n] = encode_move(MOVE_PAIR, c, p)
                n += 1
    return n


@noalloc
def push_with_card(slot, unc, mates_of_value, out, n):
    """Pairs of stock/waste card ``slot`` with every uncovered pyramid card making 13 with it
    (``mates_of_value``: the pyramid bits of that partner value)."""
    mates = unc & mates_of_value
    while mates:
        p = lowest_bit_index(mates)
        mates &= mates - _ONE
        out[n] = encode_move(MOVE_PAIR, p, slot)
        n += 1
    return n


@noalloc
def push_draw_or_recycle(state, w, s, recycles, out, n):
    """A draw while the stock (top ``s``) is not empty, else a recycle of a non-empty waste (top
    ``w``) while recycles are left (``recycles`` = -1: unlimited)."""
    if s >= 0:
        out[n] = encode_move(MOVE_DRAW, NO_SLOT, NO_SLOT)
        n += 1
    elif w >= 0 and (recycles < 0 or recycles_used(state) < recycles):
        out[n] = encode_move(MOVE_RECYCLE, NO_SLOT, NO_SLOT)
        n += 1
    return n


@noalloc
def gen_concrete(state, tabs, rule, out):
    """The legal moves of ``state`` under the concrete rules, into ``out``; returns their number.

    ``tabs`` are the deal's ``DealTables``, ``rule`` its ``RuleArgs`` (``solver.pyramid.model.rules``;
    recycles -1 = unlimited). Moves that can never hurt winnability come alone: an uncovered
    pyramid king, a king on the waste or (stock top available) on the stock. (Not so for move
    counts: the minimum-move search has its own generator, where a king on the waste or stock top
    is only offered under goal "pyramid", as drawing over it can be shorter.) Straight after a
    draw or recycle, pyramid-only moves are left out (the partial-order reduction).
    """
    val = tabs.val
    vmask = tabs.vmask
    pyr = state & PYR_MASK
    unc = uncovered_mask(pyr)
    k = unc & tabs.pkings
    if k:
        out[0] = encode_move(MOVE_KING, lowest_bit_index(k), NO_SLOT)
        return 1
    w = waste_top(state)
    s = stock_top(state)
    if w >= 0 and val[PYRAMID_CARDS + w] == 13:
        out[0] = encode_move(MOVE_KING, PYRAMID_CARDS + w, NO_SLOT)
        return 1
    if rule.stock_top and s >= 0 and val[PYRAMID_CARDS + s] == 13:
        out[0] = encode_move(MOVE_KING, PYRAMID_CARDS + s, NO_SLOT)
        return 1
    n = 0
    if not state & AFTER_DRAW:
        n = push_pyramid_pairs(pyr, unc, tabs, rule.overlap, out, 0)
    if w >= 0:
        n = push_with_card(PYRAMID_CARDS + w, unc, vmask[13 - val[PYRAMID_CARDS + w]], out, n)
    if rule.stock_top and s >= 0:
        n = push_with_card(PYRAMID_CARDS + s, unc, vmask[13 - val[PYRAMID_CARDS + s]], out, n)
        if w >= 0 and val[PYRAMID_CARDS + w] + val[PYRAMID_CARDS + s] == 13:
            out[n] = encode_move(MOVE_PAIR, PYRAMID_CARDS + w, PYRAMID_CARDS + s)
            n += 1
    return push_draw_or_recycle(state, w, s, rule.recycles, out, n)


@noalloc(inline='always')
def gen_free(state, tabs, rule, out):
    """Moves in the free-stock abstraction (unlimited recycles; see the module docstring).

    With goal "pyramid" stock cards matter only as partners of pyramid cards, and every one of
    them is available on its own, so removing stock cards among themselves (a pair of two stock
    cards, a stock king) can never help: those moves are left out, the stock top option changes
    nothing, and stock cards of equal value are interchangeable. With goal "all" they are needed.
    """
    stock_pairs = rule.stock_top and rule.goal_all
    pyr = state & PYR_MASK
    stock = state & STOCK_MASK
    unc = uncovered_mask(pyr)
    k = unc & tabs.pkings
    if k:
        out[0] = encode_move(MOVE_KING, lowest_bit_index(k), NO_SLOT)
        return 1
    if rule.goal_all and (stock & tabs.skings):
        out[0] = encode_move(MOVE_KING, lowest_bit_index(stock & tabs.skings), NO_SLOT)
        return 1
    n = push_pyramid_pairs(pyr, unc, tabs, rule.overlap, out, 0)
    return push_free_stock(stock, unc, tabs, stock_pairs, out, n)


@noalloc(inline='always')
def push_free_stock(stock, unc, tabs, stock_pairs, out, n):
    """The free-stock moves with stock cards, into ``out`` from ``n``: each uncovered pyramid card
    with each stock card in play it pairs with (only the lowest-index one of each value unless
    ``stock_pairs``: equal values are interchangeable when stock cards pair only with pyramid
    cards), then with ``stock_pairs`` the pairs of two stock cards neighbouring in the order of
    play. Returns the new count."""
    val = tabs.val
    sval = tabs.sval
    u = unc
    while u:
        p = lowest_bit_index(u)
        u &= u - _ONE
        cand = stock & sval[13 - val[p]]
        if not stock_pairs and cand:
            cand &= ~cand + _ONE  # equal values are interchangeable: offer the lowest only
        while cand:
            i = lowest_bit_index(cand)
            cand &= cand - _ONE
            out[n] = encode_move(MOVE_PAIR, p, i)
            n += 1
    if stock_pairs:
        st = stock >> STOCK_SHIFT
        prev = -1
        while st:
            i = lowest_bit_index(st)
            st &= st - _ONE
            if prev >= 0 and val[PYRAMID_CARDS + prev] + val[PYRAMID_CARDS + i] == 13:
                out[n] = encode_move(MOVE_PAIR, PYRAMID_CARDS + prev, PYRAMID_CARDS + i)
                n += 1
            prev = i
    return n


@noalloc
def apply_free(state, m):
    """The position after move ``m`` in the free-stock abstraction (pointer stays 0)."""
    state = remove_slot(state, move_a(m))
    if move_kind(m) == MOVE_PAIR:
        state = remove_slot(state, move_b(m))
    return state


def pack_position(deal, present: int, stock_cards, waste_cards, recycles_used: int,
                  limited: bool) -> int:
    """Pack a position given as plain data (pyramid mask, stock and waste card lists in any
    order, recycles used) into the ``uint64`` layout above. ``limited`` says whether the rules
    count recycles (with unlimited recycles the count is dropped, as in the search)."""
    index = {int(c): i for i, c in enumerate(deal[PYRAMID_CARDS:])}
    state = int(present) & int(PYR_MASK)
    for c in list(stock_cards) + list(waste_cards):
        if int(c) not in index:
            raise ValueError(f"card id {c} is not a stock card of this deal")
        state |= 1 << (PYRAMID_CARDS + index[int(c)])
    waste_idx = [index[int(c)] for c in waste_cards]
    stock_idx = [index[int(c)] for c in stock_cards]
    if waste_idx and stock_idx and max(waste_idx) > min(stock_idx):
        raise ValueError("the waste holds a card dealt after a card still in the stock")
    ptr = max(waste_idx) + 1 if waste_idx else 0
    state |= ptr << int(PTR_SHIFT)
    if limited:
        if not 0 <= recycles_used <= MAX_RECYCLES_USED:
            raise ValueError(f"recycles used {recycles_used} out of range")
        state |= recycles_used << int(REC_SHIFT)
    return state


def packed_position(pos) -> int:
    """A ``solver.pyramid.model.replay.Position`` (the plain checker's position, which knows
    nothing of this packing) as the packed position the searches start from."""
    return pack_position(pos.deal, pos.present, pos.stock, pos.waste, pos.recycles_used,
                         pos.rules.recycles is not None)
