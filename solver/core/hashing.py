"""Open-addressing hash tables of uint64 keys, shared by the searches (the numba kernels
inline them): a table length is a power of two, a key's first slot is ``mix64(key)`` masked to
it, and a probe walks on slot by slot.

* key sets (``table_*``): a uint64 array, 0 = empty slot. An entry may carry tag bits beside
  its key (``tags``: bits the hash and the comparison leave out), as the winnability search's
  lost-position table does (``solver.pyramid.winnable.lost_table``);
* node indexes (``find``, ``rehash``): an int32/int64 array of node ids (-1 = empty) into an
  array of keys, as the minimum-move search's node store (``solver.pyramid.optimal.index``) and
  the best-partial search (``solver.pyramid.analysis.partial``) keep.
"""

from __future__ import annotations

import numpy as np

from solver.core.jit import kernel, noalloc
from solver.core.rng import mix64

ONE = np.uint64(1)
ZERO = np.uint64(0)


@noalloc(inline='always')
def table_find(table, key, tags):
    """The entry of the open-addressing ``table`` that equals ``key`` outside the bits ``tags``
    (``key`` has none of them set; entries hash on ``key`` alone), tags included; 0 for none."""
    mask = np.uint64(len(table) - 1)
    i = mix64(key) & mask
    while True:
        k = table[i]
        if k == ZERO or (k & ~tags) == key:
            return k
        i = (i + ONE) & mask


@noalloc(inline='always')
def table_insert(table, key, tags, tag):
    """Store ``key | tag`` in ``table`` unless an entry equals ``key`` outside the bits ``tags``
    (as ``table_find``); returns the slot, or -1 when it was there already (its tag stays)."""
    mask = np.uint64(len(table) - 1)
    i = mix64(key) & mask
    while table[i] != ZERO:
        if (table[i] & ~tags) == key:
            return -1
        i = (i + ONE) & mask
    table[i] = key | tag
    return np.int64(i)


@noalloc(inline='always')
def table_lower(table, key, tags, tag):
    """Store ``key | tag`` unless an entry equals ``key`` outside the bits ``tags`` (as
    ``table_find``); such an entry takes ``tag`` when that is lower than its own. Returns the
    slot of a new entry, or -1."""
    mask = np.uint64(len(table) - 1)
    i = mix64(key) & mask
    while table[i] != ZERO:
        if (table[i] & ~tags) == key:
            if tag < (table[i] & tags):
                table[i] = key | tag
            return -1
        i = (i + ONE) & mask
    table[i] = key | tag
    return np.int64(i)


@noalloc
def table_put(table, key):
    """Store ``key`` in ``table``; returns the slot, or -1 when it was there already."""
    return table_insert(table, key, ZERO, ZERO)


@noalloc
def table_has(table, key):
    """True when ``key`` is in the open-addressing ``table``."""
    return table_find(table, key, ZERO) != ZERO


@noalloc
def find(index, keys, key):
    """Node id of ``key``, or ``-1 - slot`` of the empty slot where it would go."""
    mask = np.uint64(len(index) - 1)
    i = mix64(key) & mask
    while True:
        j = index[i]
        if j < 0:
            return -1 - np.int64(i)
        if keys[j] == key:
            return np.int64(j)
        i = (i + ONE) & mask


@kernel
def rehash(index, keys, n_nodes):
    """Fill the (all -1) ``index`` with the first ``n_nodes`` node ids."""
    for j in range(n_nodes):
        slot = find(index, keys, keys[j])
        index[-1 - slot] = j
