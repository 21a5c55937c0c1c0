"""The lost-position table of the winnability searches: an open-addressing hash set of packed
positions (uint64 keys, 0 = empty slot) kept in a reused workspace (``WorkspaceArgs``), and
``LostTable``, the table as one search carries it (it may move to a private, bigger table).

**Later on the same cards is lost too.** The search of real positions (limited recycles) keeps
one entry per pyramid, in-play stock cards and after-draw bit: the earliest recycle count and
pointer (``PASS_BITS``) at which it has proved them lost (``pass_lost``, ``pass_lost_put``). The
argument: from a position with the waste pointer at ``a`` and ``r`` recycles used, draws alone
reach, on the same cards, every pointer ``b >= a`` of the same pass (a canonical pointer is one
past an in-play card, and each draw moves it past the next one), and once the stock is empty a
recycle (when one is left) and draws reach every pointer of a later pass. So a position lost at
``(r, a)`` makes every position of the same cards at a later ``(r', b)`` lost: all of those are
positions it can reach. The after-draw bit (``state.AFTER_DRAW``, which forbids pyramid-only
moves) stays part of the entry: every position so reached comes after a draw or a recycle, so it
carries the bit, and a position without it, having more moves, is only cut by an entry without
it. With the recycle count above the pointer in the packing, ``(r, a) <= (r', b)`` in that
order is a plain comparison of the ``PASS_BITS``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.core.hashing import table_find, table_insert, table_lower, table_put
from solver.core.jit import kernel, noalloc
from solver.pyramid.model.state import PTR_MASK, REC_MASK

_ZERO = np.uint64(0)
PASS_BITS = REC_MASK | PTR_MASK
"""The bits of an entry of the real-positions search that say from when on its cards are lost
(recycles used, then the pointer: see the module docstring). The table hashes every entry on its
other bits (a free-stock entry has none of these set)."""


class WorkspaceArgs(NamedTuple):
    """The kernels' workspace (``solver.pyramid.winnable.solve.Workspace.args``)."""

    max_table: int
    """Most slots the lost-position table may grow to."""
    table: np.ndarray
    """The reused lost-position table (uint64 keys, 0 = empty)."""
    touched: np.ndarray
    """Slots of ``table`` used by the current search, for a cheap clean-up."""
    moves: np.ndarray
    """The DFS stack's moves, one row of ``MAX_MOVES`` per depth."""
    counts: np.ndarray
    """Per depth: moves generated, moves tried."""


class Searched(NamedTuple):
    """What a search kernel of this package returns: the ``Outcome`` value, the length of the
    winning path it wrote (0 unless won), the positions it expanded, and the lost-position table
    it leaves (``LostTable``)."""

    outcome: int
    length: int
    states: int
    lost: "LostTable"


class LostTable(NamedTuple):
    """The lost-position table as a search carries it: the table in use (the workspace's or a
    private grown one), its keys stored and whether it grew."""

    table: np.ndarray
    n: int
    grown: bool





@noalloc(inline='always')
def pass_lost(table, state):
    """True when ``table`` holds the cards of ``state`` (with its after-draw bit) lost at its
    recycle count and pointer or earlier (see the module docstring)."""
    e = table_find(table, state & ~PASS_BITS, PASS_BITS)
    return e != _ZERO and (e & PASS_BITS) <= (state & PASS_BITS)


@noalloc(inline='always')
def pass_lost_put(table, n, grown, state, touched):
    """``lost_put`` of a real position (``pass_lost``): its entry records the earliest recycle
    count and pointer proved lost."""
    if has_room(table, n, 1):
        return counted(table_lower(table, state & ~PASS_BITS, PASS_BITS, state & PASS_BITS), n,
                       grown, touched)
    return n




GROW_TABLE = 3
"""What a suspended search kernel returns when its lost-position table must grow before it can
go on (never an ``Outcome``): the kernels allocate nothing, so their Python-compiled drivers grow
the table (``grown_table``) and call them again, and they resume where they stopped."""


@noalloc(inline='always')
def has_room(table, n, extra):
    """True when ``table``, holding ``n`` keys, stays within 3/4 full with ``extra`` more."""
    return 4 * (n + extra) <= 3 * len(table)


@noalloc(inline='always')
def must_grow(table, n, extra, max_table):
    """True when ``extra`` more keys would fill ``table`` past 3/4 and it may still double (up
    to ``max_table`` slots): a search kernel then suspends with ``GROW_TABLE``."""
    return not has_room(table, n, extra) and 2 * len(table) <= max_table


@noalloc(inline='always')
def lost_put(table, n, grown, key, touched):
    """``lost_table``'s insertion for a kernel that asked ``must_grow`` first: ``n`` plus one if
    ``key`` was new to ``table``. A table at its cap that has no room keeps no more: the search
    goes on without storing them, slower and still exact."""
    if has_room(table, n, 1):
        return table_put_counted(table, n, grown, key, touched)
    return n


@noalloc
def table_put_counted(table, n, grown, key, touched):
    """``n`` plus one if ``key`` was new to ``table`` (its slot listed in ``touched`` unless the
    table is a grown private one)."""
    return counted(table_put(table, key), n, grown, touched)


@noalloc(inline='always')
def counted(slot, n, grown, touched):
    """``n`` plus one after an insertion that took ``slot`` (-1: the key was there already), the
    slot listed in ``touched`` unless the table is a grown private one."""
    if slot >= 0:
        if not grown:
            touched[n] = slot
        n += 1
    return n


@kernel
def grown_table(lost, ws):
    """``lost`` (a ``LostTable``) moved to a table twice the size, or as it is when that would
    pass ``ws.max_table`` slots.

    The workspace's own table is reused from search to search, so its used slots are listed in
    ``ws.touched`` for a cheap clean-up. When it fills up, the keys move to a private table twice
    the size (and the workspace table is cleaned at once); private tables double again up to
    ``ws.max_table`` slots, after which the search goes on without storing more (``lost_put``).
    """
    table = lost.table
    if 2 * len(table) > ws.max_table:
        return lost
    bigger = np.zeros(2 * len(table), dtype=np.uint64)
    for k in range(len(table)):
        entry = table[k]
        if entry != _ZERO:
            table_insert(bigger, entry & ~PASS_BITS, PASS_BITS, entry & PASS_BITS)
    if not lost.grown:
        table_clear(table, ws.touched, lost.n)
    return LostTable(bigger, lost.n, True)


@noalloc
def table_clear(table, touched, n_touched):
    for k in range(n_touched):
        table[touched[k]] = _ZERO
