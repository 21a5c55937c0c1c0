"""The A* search's memory: the node store with its open-addressing hash index, the bucket queue,
and the registers (``regs``) that keep the search's scalars between kernel calls.

* node store: ``keys`` (uint64 packed position), ``parent`` (int32 node id of the parent) and
  ``gs`` (uint16: moves from the start in ``G_MASK``, flags ``CLOSED``, ``PASS_PROVEN``,
  ``PASS_ASKED``, ``TWO_PROVEN``, ``TWO_ASKED`` above), indexed by insertion order, and an
  open-addressing ``index`` (int32 node ids, -1 = empty, kept at most 3/4 full) that maps a packed
  position to its node (``solver.core.hashing.find``, ``rehash``). The A* search tags its index entries
  (``find_tagged``, ``rehash_tagged``): bits ``TAG_SHIFT``.. of an entry hold 5 bits of the
  key's hash and the bits below the node id (so at most ``MAX_TAGGED_NODES`` nodes), and a
  probe reads ``keys`` only when the tag matches: a lookup of a new position walks its probe run
  in the index alone instead of fetching a key (a cache miss) per occupied slot;
* bucket queue: one LIFO list per f-value and bound value (``head[f, h]``), its entries in two
  int32 arrays (``e_node``, ``e_next``) with a free list, so memory follows the open list, not
  the pushes (``queue_push``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.core.jit import kernel, noalloc
from solver.core.rng import mix64

_ONE = np.uint64(1)

CLOSED = 0x8000
"""Bit 15 of ``gs[i]``: node ``i`` has been expanded (its g-value is final unless a shorter line
reopens it)."""
PASS_PROVEN = 0x4000
"""Bit 14 of ``gs[i]``: node ``i`` is proven not winnable within its pass
(``solver.pyramid.optimal.passes``); so is every position it leads to without a recycle."""
PASS_ASKED = 0x2000
"""Bit 13 of ``gs[i]``: node ``i`` was asked about its pass and not proven (it is expanded)."""
TWO_PROVEN = 0x1000
"""Bit 12 of ``gs[i]``: node ``i`` is proven not winnable with fewer than two recycles
(``solver.pyramid.optimal.passes.two_passes_lost``); so is every position it leads to without a
recycle, and a position it leads to through one recycle is not winnable within its pass."""
TWO_ASKED = 0x0800
"""Bit 11 of ``gs[i]``: node ``i`` was asked about two passes and not proven."""
G_MASK = 0x07FF
"""Bits 0..10 of ``gs[i]``: node ``i``'s moves from the start (below ``api.MAX_F`` = 2048, the
f-values the queue has)."""

R_F, R_NODES, R_EXPANDED, R_FREE, R_BUMP, R_NFREE, R_GOAL_PARENT, R_GOAL_MOVE, R_GOAL_LEN, R_UB, \
    R_STARTED, R_INCOMPLETE, R_HMIN, R_PASS, R_CREDIT, R_ASKED_FROM, R_PASS_ASKED, R_PASS_LOST, \
    R_TWO_ASKED, R_TWO_LOST = range(20)
"""Indices into the int64 ``regs`` array the kernel keeps its scalars in between calls: the
f-value being expanded, nodes stored, nodes expanded, the queue's free list head, next fresh
entry and free entries, the goal's parent, move and length, the upper bound, whether the search
started, whether some line was cut short (so "exhausted" proves nothing), the lowest
non-empty h list at f, whether the proofs are on (``solver.pyramid.optimal.passes``), the
positions their searches may still take (``astar.PASS_CREDIT``), the nodes stored before they came
on (node ids are in insertion order: below it, never asked whether lost), and how often the pass
and the two-pass questions were asked and proven (``astar.worth_asking``; each count of proofs
right after its count of questions)."""
N_REGS = 20


class AStarArrays(NamedTuple):
    """The arrays an A* kernel call works in (``solver.pyramid.optimal.api.OptimalWorkspace``
    owns and grows them; the module docstring describes each)."""

    keys: np.ndarray
    parent: np.ndarray
    gs: np.ndarray
    index: np.ndarray
    e_node: np.ndarray
    e_next: np.ndarray
    head: np.ndarray
    scr: np.ndarray
    """Scratch of ``bound`` (``SCRATCH`` int64)."""
    moves: np.ndarray
    """The moves of the position being expanded (``MAX_MOVES`` int64)."""
    line: np.ndarray
    """A forced line's moves (``MAX_FORCED`` int64)."""
    kids: np.ndarray
    """The children of the position being expanded (``MAX_MOVES`` uint64) ..."""
    kid_g: np.ndarray
    """... and their moves from the start (``MAX_MOVES`` int64)."""
    memo: np.ndarray
    """The cache of positions proven not winnable within their pass (uint64, a power of two;
    ``solver.pyramid.optimal.passes``) ..."""
    p_stack: np.ndarray
    p_moves: np.ndarray
    p_kids: np.ndarray
    p_nexts: np.ndarray
    p_counts: np.ndarray
    p_tally: np.ndarray
    """... and the scratch arrays of ``passes.pass_lost``."""
    regs: np.ndarray



TAG_SHIFT = 26
"""First bit of the tag in a tagged index entry (``find_tagged``)."""
MAX_TAGGED_NODES = 1 << TAG_SHIFT
"""Most nodes a tagged index can name (67 million: above the A* cap on stored positions)."""
_NODE_MASK = np.int64(MAX_TAGGED_NODES - 1)
_TAG_FROM = np.uint64(59)
"""The tag is the top 5 bits of ``mix64(key)`` (the slot comes from the low bits)."""


@noalloc
def tag_of(key):
    """The tag of ``key`` in place (bits ``TAG_SHIFT``..), to OR into its node id."""
    return np.int64(mix64(key) >> _TAG_FROM) << TAG_SHIFT


@noalloc
def find_tagged(index, keys, key):
    """``find`` in a tagged index: the node id of ``key``, or ``-1 - slot`` of the empty slot
    where its entry (``id | tag_of(key)``) would go."""
    mask = np.uint64(len(index) - 1)
    h = mix64(key)
    i = h & mask
    tag = np.int64(h >> _TAG_FROM) << TAG_SHIFT
    while True:
        e = np.int64(index[i])
        if e < 0:
            return -1 - np.int64(i)
        if (e & ~_NODE_MASK) == tag and keys[e & _NODE_MASK] == key:
            return e & _NODE_MASK
        i = (i + _ONE) & mask


@kernel
def rehash_tagged(index, keys, n_nodes):
    """``rehash`` into a tagged index."""
    for j in range(n_nodes):
        slot = find_tagged(index, keys, keys[j])
        index[-1 - slot] = j | tag_of(keys[j])



@noalloc
def queue_push(head, e_node, e_next, regs, f, h, node):
    """Put ``node`` on the list of f-value ``f`` and bound ``h`` (h above the last list shares
    it), taking an entry from the free list or a fresh one."""
    if regs[R_FREE] >= 0:
        e = regs[R_FREE]
        regs[R_FREE] = e_next[e]
        regs[R_NFREE] -= 1
    else:
        e = regs[R_BUMP]
        regs[R_BUMP] += 1
    h = min(h, head.shape[1] - 1)
    e_node[e] = node
    e_next[e] = head[f, h]
    head[f, h] = e
    if f == regs[R_F] and h < regs[R_HMIN]:
        regs[R_HMIN] = h
