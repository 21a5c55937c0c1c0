"""The lost-position table of the winnability searches: an open-addressing hash set of packed
positions (uint64 keys, 0 = empty slot) kept in a reused workspace (``WorkspaceArgs``), and
``LostTable``, the table as one search carries it (it may move to a private, bigger table).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.core.jit import noalloc
from solver.core.rng import mix64

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


class WorkspaceArgs(NamedTuple):
    """The kernels' workspace (``solver.pyramid.winnable.Workspace.args``)."""

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


class LostTable(NamedTuple):
    """The lost-position table as a search carries it: the table in use (the workspace's or a
    private grown one), its keys stored and whether it grew."""

    table: np.ndarray
    n: int
    grown: bool


@noalloc(inline='always')
def table_find(table, key, tags):
    """The entry of the open-addressing ``table`` that equals ``key`` outside the bits ``tags``
    (``key`` has none of them set; entries hash on ``key`` alone), tags included; 0 for none."""
    mask = np.uint64(len(table) - 1)
    i = mix64(key) & mask
    while True:
        k = table[i]
        if k == _ZERO or (k & ~tags) == key:
            return k
        i = (i + _ONE) & mask


@noalloc(inline='always')
def table_insert(table, key, tags, tag):
    """Store ``key | tag`` in ``table`` unless an entry equals ``key`` outside the bits ``tags``
    (as ``table_find``); returns the slot, or -1 when it was there already (its tag stays)."""
    mask = np.uint64(len(table) - 1)
    i = mix64(key) & mask
    while table[i] != _ZERO:
        if (table[i] & ~tags) == key:
            return -1
        i = (i + _ONE) & mask
    table[i] = key | tag
    return np.int64(i)


@noalloc
def table_has(table, key):
    """True when ``key`` is in the open-addressing ``table``."""
    return table_find(table, key, _ZERO) != _ZERO


@noalloc
def table_put(table, key):
    """Store ``key`` in ``table``; returns the slot, or -1 when it was there already."""
    return table_insert(table, key, _ZERO, _ZERO)


@njit(cache=True, inline='always')
def table_add(lost, key, ws):
    """Insert ``key`` into the lost-position table ``lost`` (a ``LostTable``), growing it when 3/4
    full; returns the new ``LostTable``. Inlined: with room in the table (nearly always) it
    allocates nothing and hands no array to a call that counts references
    (``table_grow_add`` does the rest)."""
    if 4 * (lost.n + 1) <= 3 * len(lost.table):
        return LostTable(lost.table, table_put_counted(lost.table, lost.n, lost.grown, key,
                                                       ws.touched), lost.grown)
    return table_grow_add(lost, key, ws)


@noalloc
def table_put_counted(table, n, grown, key, touched):
    """``n`` plus one if ``key`` was new to ``table`` (its slot listed in ``touched`` unless the
    table is a grown private one)."""
    slot = table_put(table, key)
    if slot >= 0:
        if not grown:
            touched[n] = slot
        n += 1
    return n


@njit(cache=True)
def table_grow_add(lost, key, ws):
    """Insert ``key`` into the lost-position table ``lost`` (a ``LostTable``), growing it when 3/4
    full; returns the new ``LostTable``.

    The workspace's own table is reused from search to search, so its used slots are listed in
    ``ws.touched`` for a cheap clean-up. When it fills up, the keys move to a private table twice
    the size (and the workspace table is cleaned at once); private tables double again up to
    ``ws.max_table`` slots, after which the search goes on without storing more: slower, still
    exact.
    """
    table, n, grown = lost.table, lost.n, lost.grown
    if 4 * (n + 1) > 3 * len(table):
        if 2 * len(table) > ws.max_table:
            return lost
        bigger = np.zeros(2 * len(table), dtype=np.uint64)
        for k in range(len(table)):
            if table[k] != _ZERO:
                table_put(bigger, table[k])
        if not grown:
            table_clear(table, ws.touched, n)
        table = bigger
        grown = True
    return LostTable(table, table_put_counted(table, n, grown, key, ws.touched), grown)


@noalloc
def table_clear(table, touched, n_touched):
    for k in range(n_touched):
        table[touched[k]] = _ZERO
