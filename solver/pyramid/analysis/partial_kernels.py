"""Kernels of the best partial result (``solver.pyramid.analysis.partial`` is the Python side: it validates
input, owns every array and the clock, and calls these kernels in slices).

*Counted cards*: the pyramid cards under goal "pyramid", all 52 under goal "all"; a position's
*count* is how many counted cards are gone (from the deal's start).

* ``upper_bound``: the count plus the counted cards still in play that are not provably stuck.
  A card is stuck when no card that could ever pair with it is still in play and not stuck
  itself (a king is never stuck on its own); a stuck pyramid card never leaves, so every card it
  covers (``BELOW``) is stuck too. Repeated until nothing changes.
* ``max_search``: a resumable depth-first branch and bound for the largest count, over the
  free-stock positions (unlimited recycles) or the concrete ones (limited recycles) of
  ``solver.pyramid.model.state``, with a visited table. It stops as soon as a line reaches the bound
  it is given (a line cannot do better), and never enters a position whose ``upper_bound`` is no
  better than the best count found (best counts only grow, so a position seen before needs no
  second visit).
* ``fewest_search``: a resumable A* over concrete positions for the fewest moves to a position
  whose count reaches a target, with h = ceil(counted cards still to remove / 2) (a move removes at
  most two cards, so h is admissible and consistent), leaving out positions whose
  ``upper_bound`` falls below the target.

The generators' reductions are sound for counts as for wins: a king available on its own is
removed alone (every line reaching the largest count removes it some time, and earlier keeps the
later moves legal), and moves using only pyramid cards commute with draws (bit 63). For the
fewest moves under goal "pyramid" a king on the waste or stock top is offered, never forced
(``gen_fewest``), as in ``solver.pyramid.optimal.moves``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solver.core.bits import popcount
from solver.pyramid.model.layout import BELOW, DIRECT, PYRAMID_CARDS, STOCK_CARDS
from solver.core.hashing import find, table_put
from solver.pyramid.model.state import (AFTER_DRAW, FREE_TAG, MOVE_KING, MOVE_PAIR, NO_SLOT,
                                        PYR_MASK, REC_MASK, STOCK_MASK, apply_concrete, apply_free,
                                        encode_move, gen_concrete, gen_free, is_won,
                                        lowest_bit_index, push_draw_or_recycle, push_pyramid_pairs,
                                        push_with_card, stock_top, uncovered_mask, waste_top)

DONE, PAUSED, LIMIT, GROW_TABLE, GROW_NODES, GROW_INDEX, MANY = range(7)
"""Kernel results: finished (the answer is in the registers), paused at the end of a slice, the
cap on positions expanded reached, an array must be enlarged by the caller before resuming, or
(collecting) more end positions than the caller wants."""

R_DEPTH, R_EXPANDED, R_BEST, R_BEST_LEN, R_STORED, R_BOUND, R_STARTED, R_COLLECT, R_FOUND = \
    range(9)
"""Registers (int64 array) of ``max_search``: stack depth, positions expanded, best count and its
line's length (``path``), table keys stored, the bound that ends the search, started flag; when
collecting, the most end positions wanted and those found."""
A_NODES, A_EXPANDED, A_F, A_ENTRIES, A_GOAL, A_TARGET, A_STARTED = range(7)
"""Registers of ``fewest_search``: nodes stored, nodes expanded, f being expanded, queue entries
used, the goal node (-1 until found), the target count, started flag."""
N_REGS = 9

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_PAIR_SUM = 13


@njit(cache=True)
def count_removed(state, goal_all):
    """Counted cards gone from ``state`` (pyramid cards; with ``goal_all`` stock cards too)."""
    n = PYRAMID_CARDS - popcount(state & PYR_MASK)
    if goal_all:
        n += STOCK_CARDS - popcount(state & STOCK_MASK)
    return np.int64(n)


@njit(cache=True)
def _stock_live(stock, pyr, tabs, stock_top_on):
    """The stock cards of ``stock`` that still have a partner among ``pyr`` and ``stock`` (kings
    always)."""
    live = np.uint64(stock & np.uint64(tabs.skings))
    for v in range(1, 13):
        cards = np.uint64(stock & tabs.sval[v])
        if cards and ((pyr & tabs.vmask[13 - v]) or
                      (stock_top_on and (stock & tabs.sval[13 - v]))):
            live |= cards
    return live


@njit(cache=True)
def upper_bound(state, tabs, rule):
    """Largest count any line from ``state`` could reach (see the module docstring)."""
    pyr = np.uint64(state) & PYR_MASK
    stock = np.uint64(state) & STOCK_MASK
    changed = True
    while changed:
        changed = False
        stock = _stock_live(stock, pyr, tabs, rule.stock_top)
        x = pyr & ~tabs.pkings
        while x:
            p = lowest_bit_index(x)
            x &= x - _ONE
            if not (pyr >> np.uint64(p)) & _ONE:
                continue
            mates = tabs.reach[p]
            if not rule.overlap:
                mates &= ~np.uint64(DIRECT[p])
            if (mates & pyr) or (stock & tabs.sval[13 - tabs.val[p]]):
                continue
            pyr &= ~((_ONE << np.uint64(p)) | np.uint64(BELOW[p]))
            changed = True
    live = popcount(pyr)
    if rule.goal_all:
        live += popcount(stock)
    return count_removed(state, rule.goal_all) + live


@njit(cache=True)
def _norm(state, rule):
    """A concrete position as a key: the recycle count dropped when recycles are unlimited."""
    if rule.recycles < 0:
        return state & ~REC_MASK
    return state


@njit(cache=True)
def _gen(state, tabs, rule, free, out):
    if free:
        return gen_free(state, tabs, rule, out)
    return gen_concrete(state, tabs, rule, out)


@njit(cache=True)
def _apply(state, m, rule, free):
    if free:
        return apply_free(state, m)
    return _norm(apply_concrete(state, m), rule)


class MaxArrays(NamedTuple):
    """The arrays ``max_search`` keeps between calls (``PartialWorkspace.max_arrays``)."""

    table: np.ndarray
    """The visited table (uint64 keys, 0 = empty)."""
    states: np.ndarray
    moves: np.ndarray
    counts: np.ndarray
    """The depth-first stack: positions, their moves, (generated, tried) per depth."""
    path: np.ndarray
    """The best line's moves."""
    regs: np.ndarray
    """The search's registers (``R_*``)."""
    found: np.ndarray
    """The end positions collected (an open-addressing table)."""


class FewestArrays(NamedTuple):
    """The arrays ``fewest_search`` keeps between calls (``PartialWorkspace.fewest_arrays``)."""

    keys: np.ndarray
    parent: np.ndarray
    gs: np.ndarray
    mv: np.ndarray
    """The nodes: position, parent node, moves from the start, the move that reached it."""
    index: np.ndarray
    """The nodes' hash index (``solver.core.hashing.find``)."""
    e_node: np.ndarray
    e_next: np.ndarray
    head: np.ndarray
    """The open list: one LIFO list per f-value (``head[f]``) of entries ``e_node``/``e_next``."""
    regs: np.ndarray
    """The search's registers (``A_*``)."""
    buf: np.ndarray
    """One position's moves."""


@njit(cache=True)
def max_search(tabs, rule, free, start, max_states, slice_states, arrays):
    """Depth-first branch and bound for the largest count from ``start`` (see the module
    docstring), resumable: ``arrays`` (``MaxArrays``: the registers ``regs``, ``R_*``, and the
    stack arrays ``states``, ``moves``, ``counts``) keep the search between calls. ``regs[R_BOUND]`` must hold the bound that ends
    it. The best line's moves are in ``path[:regs[R_BEST_LEN]]`` (free-stock moves when
    ``free``). Returns ``DONE``, ``PAUSED``, ``LIMIT`` or ``GROW_TABLE`` (double ``table``,
    re-insert its keys, call again).

    Collecting (``regs[R_COLLECT]`` > 0, ``regs[R_BEST]`` = the largest count less one, set by
    the caller): every position from which the largest count can still be reached is visited,
    and the counted cards in play of each end position reaching it (its pyramid bits, and under
    goal "all" its stock bits, tagged with ``FREE_TAG`` to be non-zero) go into the
    open-addressing table ``found`` (``regs[R_FOUND]`` of them), ``MANY`` when more than
    ``regs[R_COLLECT]``."""
    table, states, moves, counts = arrays.table, arrays.states, arrays.moves, arrays.counts
    path, regs, found = arrays.path, arrays.regs, arrays.found
    goal_all = rule.goal_all
    collect = regs[R_COLLECT] > 0
    end_mask = PYR_MASK | STOCK_MASK if goal_all else PYR_MASK
    if not regs[R_STARTED]:
        regs[R_STARTED] = 1
        if free:
            start &= PYR_MASK | STOCK_MASK
        if not collect:
            regs[R_BEST] = count_removed(start, goal_all)
        regs[R_BEST_LEN] = 0
        regs[R_EXPANDED] = 1
        regs[R_DEPTH] = 0
        states[0] = start
        counts[0, 0] = 0 if is_won(start, goal_all) else _gen(start, tabs, rule, free, moves[0])
        counts[0, 1] = 0
        if table_put(table, start) >= 0:
            regs[R_STORED] += 1
    best = regs[R_BEST]
    if best >= regs[R_BOUND]:
        return DONE
    depth = regs[R_DEPTH]
    expanded = regs[R_EXPANDED]
    stop = expanded + slice_states
    status = DONE
    while depth >= 0:
        if counts[depth, 1] >= counts[depth, 0]:
            depth -= 1
            continue
        if expanded >= stop:
            status = PAUSED
            break
        if 4 * (regs[R_STORED] + 1) > 3 * len(table):
            status = GROW_TABLE
            break
        m = moves[depth, counts[depth, 1]]
        counts[depth, 1] += 1
        child = _apply(states[depth], m, rule, free)
        c = count_removed(child, goal_all)
        if collect and c > best:
            if table_put(found, (child & end_mask) | FREE_TAG) >= 0:
                regs[R_FOUND] += 1
                if regs[R_FOUND] > regs[R_COLLECT]:
                    status = MANY
                    break
            continue
        if c > best:
            best = c
            for d in range(depth + 1):
                path[d] = moves[d, counts[d, 1] - 1]
            regs[R_BEST_LEN] = depth + 1
            if best >= regs[R_BOUND]:
                break
        if is_won(child, goal_all) or upper_bound(child, tabs, rule) <= best:
            continue
        if table_put(table, child) < 0:
            continue
        regs[R_STORED] += 1
        if max_states > 0 and expanded >= max_states:
            status = LIMIT
            break
        expanded += 1
        depth += 1
        states[depth] = child
        counts[depth, 0] = _gen(child, tabs, rule, free, moves[depth])
        counts[depth, 1] = 0
    regs[R_DEPTH] = depth
    regs[R_EXPANDED] = expanded
    regs[R_BEST] = best
    return status


@njit(cache=True)
def rehash_table(old, new):
    """Re-insert the keys of the open-addressing table ``old`` into the empty ``new``."""
    for k in range(len(old)):
        if old[k] != _ZERO:
            table_put(new, old[k])


@njit(cache=True)
def gen_fewest(state, tabs, rule, out):
    """The moves of the fewest-moves search: ``gen_concrete``, except that under goal "pyramid"
    a king on the waste or stock top is offered among the other moves instead of alone (removing
    it costs a move and counts nothing; drawing over it may be shorter)."""
    if rule.goal_all:
        return gen_concrete(state, tabs, rule, out)
    pyr = state & PYR_MASK
    unc = uncovered_mask(pyr)
    k = unc & tabs.pkings
    if k:
        out[0] = encode_move(MOVE_KING, lowest_bit_index(k), NO_SLOT)
        return 1
    val = tabs.val
    vmask = tabs.vmask
    w = waste_top(state)
    s = stock_top(state)
    n = 0
    if not state & AFTER_DRAW:
        n = push_pyramid_pairs(pyr, unc, tabs, rule.overlap, out, 0)
    for slot in (w, s if rule.stock_top else -1):
        if slot >= 0:
            card = PYRAMID_CARDS + slot
            if val[card] == 13:
                out[n] = encode_move(MOVE_KING, card, NO_SLOT)
                n += 1
            else:
                n = push_with_card(card, unc, vmask[13 - val[card]], out, n)
    if rule.stock_top and w >= 0 and s >= 0 and \
            val[PYRAMID_CARDS + w] + val[PYRAMID_CARDS + s] == _PAIR_SUM:
        out[n] = encode_move(MOVE_PAIR, PYRAMID_CARDS + w, PYRAMID_CARDS + s)
        n += 1
    return push_draw_or_recycle(state, w, s, rule.recycles, out, n)


@njit(cache=True)
def _h(count, target):
    """Admissible moves still needed: a move removes at most two counted cards."""
    return (target - count + 1) // 2


@njit(cache=True)
def fewest_search(tabs, rule, start, max_states, slice_states, arrays):
    """A* for the fewest moves from ``start`` to a count of ``regs[A_TARGET]`` (see the module
    docstring), resumable through ``arrays`` (``FewestArrays``: the registers ``regs``, ``A_*``,
    the nodes, their index and the open list). Returns ``DONE`` (goal node in ``regs[A_GOAL]``, -1 when
    the target cannot be reached), ``PAUSED``, ``LIMIT``, ``GROW_NODES`` (enlarge the node and
    entry arrays) or ``GROW_INDEX`` (double the index and rehash)."""
    keys, parent, gs, mv, index = arrays.keys, arrays.parent, arrays.gs, arrays.mv, arrays.index
    e_node, e_next, head = arrays.e_node, arrays.e_next, arrays.head
    regs, buf = arrays.regs, arrays.buf
    target = regs[A_TARGET]
    goal_all = rule.goal_all
    if not regs[A_STARTED]:
        regs[A_STARTED] = 1
        start = _norm(start & ~AFTER_DRAW, rule)
        keys[0] = start
        parent[0] = -1
        gs[0] = 0
        mv[0] = -1
        index[-1 - find(index, keys, start)] = 0
        regs[A_NODES] = 1
        regs[A_GOAL] = -1
        c = count_removed(start, goal_all)
        if c >= target:
            regs[A_GOAL] = 0
            return DONE
        f0 = _h(c, target)
        regs[A_F] = f0
        e_node[0] = 0
        e_next[0] = head[f0]
        head[f0] = 0
        regs[A_ENTRIES] = 1
    expanded = regs[A_EXPANDED]
    stop = expanded + slice_states
    f = regs[A_F]
    nf = len(head)
    while f < nf:
        e = head[f]
        if e < 0:
            f += 1
            continue
        if expanded >= stop:
            regs[A_F] = f
            regs[A_EXPANDED] = expanded
            return PAUSED
        if max_states > 0 and expanded >= max_states:
            regs[A_F] = f
            regs[A_EXPANDED] = expanded
            return LIMIT
        n_nodes = regs[A_NODES]
        if n_nodes + len(buf) > len(keys) or regs[A_ENTRIES] + len(buf) > len(e_node):
            regs[A_F] = f
            regs[A_EXPANDED] = expanded
            return GROW_NODES
        if 4 * (n_nodes + len(buf)) > 3 * len(index):
            regs[A_F] = f
            regs[A_EXPANDED] = expanded
            return GROW_INDEX
        head[f] = e_next[e]
        node = e_node[e]
        state = keys[node]
        g = gs[node]
        if g < 0 or g + _h(count_removed(state, goal_all), target) != f:
            continue  # closed, or a stale entry (the node was reached again more cheaply)
        gs[node] = -1 - g
        expanded += 1
        nm = gen_fewest(state, tabs, rule, buf)
        for k in range(nm):
            m = buf[k]
            child = _norm(apply_concrete(state, m), rule)
            c = count_removed(child, goal_all)
            if c < target and (is_won(child, goal_all) or upper_bound(child, tabs, rule) < target):
                continue
            slot = find(index, keys, child)
            if slot >= 0:
                j = slot
                if gs[j] < 0 or gs[j] <= g + 1:
                    continue
            else:
                j = regs[A_NODES]
                regs[A_NODES] += 1
                index[-1 - slot] = j
                keys[j] = child
            parent[j] = node
            gs[j] = g + 1
            mv[j] = m
            if c >= target:
                regs[A_GOAL] = j
                regs[A_F] = f
                regs[A_EXPANDED] = expanded
                return DONE
            fc = g + 1 + _h(c, target)
            if fc < nf:
                en = regs[A_ENTRIES]
                regs[A_ENTRIES] += 1
                e_node[en] = j
                e_next[en] = head[fc]
                head[fc] = en
    regs[A_F] = f
    regs[A_EXPANDED] = expanded
    return DONE


@njit(cache=True)
def trace_line(parent, mv, node, out):
    """The moves from the root to ``node``, into ``out``; returns their number."""
    n = 0
    j = node
    while parent[j] >= 0:
        out[n] = mv[j]
        n += 1
        j = parent[j]
    for i in range(n // 2):  # reverse in place: a slice copy would compile array allocation
        out[i], out[n - 1 - i] = out[n - 1 - i], out[i]
    return n
