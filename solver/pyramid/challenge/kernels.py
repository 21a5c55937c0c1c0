"""The searches for the most value and for the fewest moves to a value, as resumable numba
kernels (``solver.pyramid.challenge.search`` is the Python side: it owns every array and the
clock, and calls these kernels in slices).

* ``max_search``: a depth-first branch and bound for the largest value, over the free-stock
  positions or the real ones (``solver.pyramid.model.state``), with a visited table. It stops
  as soon as a line reaches the bound it is given (no line does better) and never enters a
  position whose ``upper_bound`` is no better than the best value found (the best only grows,
  so a position seen before needs no second visit: its value and its future are the same
  whichever way it was reached, the value being one of the cards gone). A position where the
  deal is over (the rules' goal met) has no moves.
* ``fewest_search``: an A* over real positions for the fewest moves to a position of value at
  least a target, with ``moves_lower_bound`` as its estimate (consistent: a closed position is
  never reopened), each position's estimate kept beside it and computed only when the position's
  turn comes; positions from which no line reaches the target are dropped then.

Both use the moves of ``solver.pyramid.challenge.moves`` under a ``Forcing``, and the value of
an ``ObjectiveArgs`` (``solver.pyramid.challenge.objective``). Neither allocates: every array,
the registers included, comes from the caller.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.core.hashing import find, table_find, table_has, table_insert, table_put
from solver.core.jit import kernel
from solver.pyramid.challenge.bounds import (FAR, moves_lower_bound, upper_bound, value)
from solver.pyramid.challenge.moves import gen_free_moves, gen_moves
from solver.pyramid.optimal.bound import FAR_BOUND
from solver.pyramid.optimal.bound import bound as win_bound
from solver.pyramid.model.state import (AFTER_DRAW, PYR_MASK, REC_MASK, STOCK_MASK, apply_concrete,
                                        apply_free, is_won)

DONE, PAUSED, LIMIT, GROW_TABLE, GROW_NODES, GROW_INDEX, MANY, GROW_MEMO = range(8)
"""Kernel results: finished (the answer is in the registers), paused at the end of a slice, the
cap on positions expanded reached, an array must be enlarged by the caller before resuming
(``GROW_*``), or (collecting) more end positions than the caller wants."""
FREE_DEPTH = 64
"""Rows of the free-stock test's stack: a free-stock line removes a card or two a move, so it is
at most 52 moves long."""
FREE_CAP = 2000
"""Most positions one free-stock test expands; past it the test gives up (the position is
kept, exactly as without the test)."""
MEMO_ROOM = 16 * FREE_CAP
"""Free entries ``memo`` must have before an expansion (one expansion runs a few tests)."""
SETTLED = np.uint64(1) << np.uint64(62)
REACHES = np.uint64(1) << np.uint64(63)
"""Tags of a ``memo`` entry: bit 62 on every entry (a position with no card in play is key 0),
bit 63 on a free-stock position from which the target is reached (else it is not)."""
REACHED, NOT_REACHED, GAVE_UP = 1, 0, -1
"""Answers of ``free_reaches``."""

R_DEPTH, R_EXPANDED, R_BEST, R_BEST_LEN, R_STORED, R_BOUND, R_STARTED, R_COLLECT, R_FOUND = \
    range(9)
"""Registers (int64 array) of ``max_search``: stack depth, positions expanded, best value and
its line's length (``path``), table keys stored, the bound that ends the search, started flag;
when collecting, the most end positions wanted and those found."""
A_NODES, A_EXPANDED, A_F, A_ENTRIES, A_GOAL, A_TARGET, A_STARTED, A_MEMO, A_TESTED = range(9)
"""Registers of ``fewest_search``: nodes stored, nodes expanded, f being expanded, queue entries
used, the goal node (-1 until found), the target value, started flag, free-stock positions
settled in ``memo``, free-stock positions the tests expanded."""
N_REGS = 10

_ZERO = np.uint64(0)


class MaxArrays(NamedTuple):
    """The arrays ``max_search`` keeps between calls."""

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
    """The arrays ``fewest_search`` keeps between calls."""

    keys: np.ndarray
    parent: np.ndarray
    gs: np.ndarray
    hs: np.ndarray
    mv: np.ndarray
    """The nodes: position, parent node, moves from the start (``-1 - g`` once expanded), the
    estimate of the moves left, the move that reached it."""
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
    acc: np.ndarray
    weight_by_time: np.ndarray
    picks: np.ndarray
    scr: np.ndarray
    """Scratch of ``moves_lower_bound`` and of the minimum-move bound."""
    memo: np.ndarray
    """Free-stock positions settled by ``free_reaches`` (an open-addressing table, tags
    ``SETTLED`` and ``REACHES``)."""
    fstates: np.ndarray
    fmoves: np.ndarray
    fcounts: np.ndarray
    """The stack of ``free_reaches``: positions, their moves, (generated, tried) per depth."""


class WinBound(NamedTuple):
    """The minimum-move search's bound (``solver.pyramid.optimal.bound.bound``: no line clears
    the pyramid in fewer moves), for a target that no position keeping the apex reaches: then
    every line to it clears the pyramid, and the larger of the two bounds is a bound."""

    on: bool
    ctab: object
    """The deal's ``ClassTables`` (``solver.pyramid.optimal.tables``)."""
    rule: object
    """The rules with goal "pyramid" (the bound of clearing the pyramid)."""


@kernel
def norm(state, rule):
    """A real position as a key: the recycle count dropped when recycles are unlimited."""
    if rule.recycles < 0:
        return state & ~REC_MASK
    return state


@kernel
def stock_counts(obj, rule):
    """Whether stock cards matter to the free-stock moves: some carry weight, or goal "all"."""
    if rule.goal_all:
        return True
    for x in range(len(obj.ws)):
        if obj.ws[x]:
            return True
    return False


@kernel
def _gen(state, tabs, rule, forcing, free, pile, out):
    if free:
        return gen_free_moves(state, tabs, rule, forcing, pile, out)
    return gen_moves(state, tabs, rule, forcing, out)


@kernel
def _apply(state, m, rule, free):
    if free:
        return apply_free(state, m)
    return norm(apply_concrete(state, m), rule)


@kernel
def max_search(tabs, rule, obj, forcing, free, start, max_states, slice_states, arrays):
    """Depth-first branch and bound for the largest value from ``start`` (see the module
    docstring), resumable: ``arrays`` (``MaxArrays``) keep the search between calls.
    ``regs[R_BOUND]`` must hold the bound that ends it. The best line's moves are in
    ``path[:regs[R_BEST_LEN]]`` (free-stock moves when ``free``). Returns ``DONE``, ``PAUSED``,
    ``LIMIT`` or ``GROW_TABLE`` (double ``table``, re-insert its keys, call again).

    Collecting (``regs[R_COLLECT]`` > 0, ``regs[R_BEST]`` = the largest value less one, set by
    the caller): every position from which the largest value can still be reached is visited,
    and the cards in play that carry weight at the end of each line reaching it (its pyramid
    bits, and its stock bits when stock cards count, tagged with bit 62 to be non-zero) go into
    the open-addressing table ``found`` (``regs[R_FOUND]`` of them), ``MANY`` when more than
    ``regs[R_COLLECT]``."""
    table, states, moves, counts = arrays.table, arrays.states, arrays.moves, arrays.counts
    path, regs, found = arrays.path, arrays.regs, arrays.found
    goal_all = rule.goal_all
    pile = stock_counts(obj, rule)
    collect = regs[R_COLLECT] > 0
    end_mask = PYR_MASK | STOCK_MASK if pile else PYR_MASK
    tag = np.uint64(1) << np.uint64(62)
    if not regs[R_STARTED]:
        regs[R_STARTED] = 1
        if free:
            start &= PYR_MASK | STOCK_MASK
        if not collect:
            regs[R_BEST] = value(start, tabs, obj)
        regs[R_BEST_LEN] = 0
        regs[R_EXPANDED] = 1
        regs[R_DEPTH] = 0
        states[0] = start
        counts[0, 0] = 0 if is_won(start, goal_all) else _gen(start, tabs, rule, forcing, free,
                                                               pile, moves[0])
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
        c = value(child, tabs, obj)
        if collect and c > best:
            if table_put(found, (child & end_mask) | tag) >= 0:
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
        if is_won(child, goal_all) or table_has(table, child):
            continue  # a position seen before is not visited again (see the docstring)
        if upper_bound(child, tabs, rule, obj) <= best:
            continue
        table_put(table, child)
        regs[R_STORED] += 1
        if max_states > 0 and expanded >= max_states:
            status = LIMIT
            break
        expanded += 1
        depth += 1
        states[depth] = child
        counts[depth, 0] = _gen(child, tabs, rule, forcing, free, pile, moves[depth])
        counts[depth, 1] = 0
    regs[R_DEPTH] = depth
    regs[R_EXPANDED] = expanded
    regs[R_BEST] = best
    return status


@kernel
def rehash_table(old, new, tags):
    """Re-insert the entries of the open-addressing table ``old`` into the empty ``new``, each
    where ``table_find`` looks for it: at the hash of the entry without its bits ``tags`` (the
    free-stock memo's ``REACHES``; none for the visited table). Hashed with them, a tagged entry
    lands where no lookup goes and is lost to the search."""
    for k in range(len(old)):
        if old[k] != _ZERO:
            table_insert(new, old[k] & ~tags, tags, old[k] & tags)


@kernel
def _estimate(state, tabs, rule, obj, target, win, arrays):
    h = moves_lower_bound(state, tabs, rule, obj, target, arrays.acc,
                          arrays.weight_by_time, arrays.picks)
    if win.on and 0 < h < FAR:
        clear = win_bound(state, win.ctab, tabs, win.rule, arrays.scr)
        h = FAR if clear >= FAR_BOUND else max(h, clear)
    return h


@kernel
def _pause(regs, f, expanded, status):
    regs[A_F] = f
    regs[A_EXPANDED] = expanded
    return status


@kernel
def free_reaches(state, tabs, rule, obj, forcing, target, arrays, regs):
    """Whether some free-stock line from the cards in play of ``state`` reaches a value of
    ``target`` (``REACHED``, ``NOT_REACHED``, or ``GAVE_UP`` past ``FREE_CAP`` positions): if
    none does, no real line does either (every real line is a free-stock line). A depth-first
    search that settles each position for good in ``memo`` (the free-stock game has no cycles:
    every move removes a card): a position whose moves all lead to positions that do not reach
    the target does not; one on a line that does, does."""
    memo, fstates, fmoves, fcounts = arrays.memo, arrays.fstates, arrays.fmoves, arrays.fcounts
    pile = stock_counts(obj, rule)
    key = state & (PYR_MASK | STOCK_MASK)
    found = table_find(memo, key | SETTLED, REACHES)
    if found:
        return REACHED if found & REACHES else NOT_REACHED
    depth = 0
    fstates[0] = key
    fcounts[0, 0] = _gen(key, tabs, rule, forcing, True, pile, fmoves[0])
    fcounts[0, 1] = 0
    expanded = 1
    while depth >= 0:
        if fcounts[depth, 1] >= fcounts[depth, 0]:
            if table_insert(memo, fstates[depth] | SETTLED, REACHES, SETTLED) >= 0:
                regs[A_MEMO] += 1
            depth -= 1
            continue
        m = fmoves[depth, fcounts[depth, 1]]
        fcounts[depth, 1] += 1
        child = apply_free(fstates[depth], m)
        if value(child, tabs, obj) >= target:
            regs[A_TESTED] += expanded
            return _settle_line(memo, fstates, depth, regs)
        if is_won(child, rule.goal_all) or upper_bound(child, tabs, rule, obj) < target:
            continue
        found = table_find(memo, child | SETTLED, REACHES)
        if found:
            if found & REACHES:
                regs[A_TESTED] += expanded
                return _settle_line(memo, fstates, depth, regs)
            continue
        if expanded >= FREE_CAP:
            regs[A_TESTED] += expanded
            return GAVE_UP
        expanded += 1
        depth += 1
        fstates[depth] = child
        fcounts[depth, 0] = _gen(child, tabs, rule, forcing, True, pile, fmoves[depth])
        fcounts[depth, 1] = 0
    regs[A_TESTED] += expanded
    return NOT_REACHED


@kernel
def _settle_line(memo, fstates, depth, regs):
    """Settle the positions of the stack down to ``depth`` as reaching the target (they are on a
    line that does); returns ``REACHED``."""
    for d in range(depth + 1):
        if table_insert(memo, fstates[d] | SETTLED, REACHES, SETTLED | REACHES) >= 0:
            regs[A_MEMO] += 1
    return REACHED


@kernel
def _known(h):
    """The estimate a node's entry was filed under: its own, or (``h`` < 0) ``-1 - h``, a
    provisional one from its parent's (one less: the estimate is consistent)."""
    return h if h >= 0 else -1 - h


@kernel
def _push(arrays, node, f):
    """File ``node`` in the open list under ``f``."""
    regs = arrays.regs
    en = regs[A_ENTRIES]
    regs[A_ENTRIES] += 1
    arrays.e_node[en] = node
    arrays.e_next[en] = arrays.head[f]
    arrays.head[f] = en


@kernel
def fewest_search(tabs, rule, obj, forcing, free_forcing, win, start, max_states, slice_states,
                  arrays):
    """A* for the fewest moves from ``start`` to a value of ``regs[A_TARGET]`` (see the module
    docstring), with the minimum-move bound too when ``win`` (``WinBound``) is on, resumable
    through ``arrays`` (``FewestArrays``). A new position is filed under its parent's estimate
    less one (a bound on its own, the estimate being consistent) and gets its own estimate only
    when its turn comes, then filed again under it when that is larger: the many positions the
    search stores but never reaches cost no estimate. Returns ``DONE`` (goal node in
    ``regs[A_GOAL]``, -1 when no line reaches the target), ``PAUSED``, ``LIMIT``,
    ``GROW_NODES`` (enlarge the node and entry arrays) or ``GROW_INDEX`` (double the index and
    rehash)."""
    keys, parent, gs, hs, mv = arrays.keys, arrays.parent, arrays.gs, arrays.hs, arrays.mv
    index, e_node, e_next, head = arrays.index, arrays.e_node, arrays.e_next, arrays.head
    regs, buf = arrays.regs, arrays.buf
    target = regs[A_TARGET]
    goal_all = rule.goal_all
    nf = len(head)
    if not regs[A_STARTED]:
        regs[A_STARTED] = 1
        start = norm(start & ~AFTER_DRAW, rule)
        keys[0] = start
        parent[0] = -1
        gs[0] = 0
        mv[0] = -1
        index[-1 - find(index, keys, start)] = 0
        regs[A_NODES] = 1
        regs[A_GOAL] = -1
        if value(start, tabs, obj) >= target:
            regs[A_GOAL] = 0
            return DONE
        h0 = _estimate(start, tabs, rule, obj, target, win, arrays)
        hs[0] = min(h0, nf)
        if h0 >= nf:
            regs[A_F] = nf
            return DONE
        regs[A_F] = h0
        e_node[0] = 0
        e_next[0] = head[h0]
        head[h0] = 0
        regs[A_ENTRIES] = 1
    expanded = regs[A_EXPANDED]
    stop = expanded + slice_states
    f = regs[A_F]
    while f < nf:
        e = head[f]
        if e < 0:
            f += 1
            continue
        if expanded >= stop:
            return _pause(regs, f, expanded, PAUSED)
        if max_states > 0 and expanded + regs[A_TESTED] >= max_states:
            return _pause(regs, f, expanded, LIMIT)
        n_nodes = regs[A_NODES]
        if n_nodes + len(buf) > len(keys) or regs[A_ENTRIES] + len(buf) > len(e_node):
            return _pause(regs, f, expanded, GROW_NODES)
        if 4 * (n_nodes + len(buf)) > 3 * len(index):
            return _pause(regs, f, expanded, GROW_INDEX)
        if 4 * (regs[A_MEMO] + MEMO_ROOM) > 3 * len(arrays.memo):
            return _pause(regs, f, expanded, GROW_MEMO)
        head[f] = e_next[e]
        node = e_node[e]
        g = gs[node]
        if g < 0 or g + _known(hs[node]) != f:
            continue  # closed, or a stale entry (the node was reached again in fewer moves)
        state = keys[node]
        h = hs[node]
        if h < 0:  # a provisional estimate: the node's own, now that it is its turn
            h = _estimate(state, tabs, rule, obj, target, win, arrays)
            hs[node] = min(h, nf)
            if g + h > f:
                if g + h < nf:
                    _push(arrays, node, g + h)
                else:
                    gs[node] = -1 - g  # no line from it reaches the target in time
                continue
        gs[node] = -1 - g
        expanded += 1
        nm = 0 if is_won(state, goal_all) else gen_moves(state, tabs, rule, forcing, buf)
        for k in range(nm):
            m = buf[k]
            child = norm(apply_concrete(state, m), rule)
            slot = find(index, keys, child)
            if slot >= 0:
                j = slot
                if gs[j] < 0 or gs[j] <= g + 1:
                    continue
            else:
                j = regs[A_NODES]
                won = value(child, tabs, obj) >= target
                if not won and (is_won(child, goal_all)
                                or upper_bound(child, tabs, rule, obj) < target
                                or free_reaches(child, tabs, rule, obj, free_forcing, target,
                                                arrays, regs) == NOT_REACHED):
                    continue  # the deal is over short of the target, or never gets there
                regs[A_NODES] += 1
                index[-1 - slot] = j
                keys[j] = child
                hs[j] = 0 if won else -1 - max(h - 1, 1)
            parent[j] = node
            gs[j] = g + 1
            mv[j] = m
            if hs[j] == 0:
                regs[A_GOAL] = j
                return _pause(regs, f, expanded, DONE)
            fc = g + 1 + _known(hs[j])
            if fc < nf:
                _push(arrays, j, fc)
    return _pause(regs, f, expanded, DONE)


@kernel
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
