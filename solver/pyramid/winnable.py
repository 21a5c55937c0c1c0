"""Winnability: a numba depth-first search with a transposition table of positions proven lost.

``solve_winnable(deal, rules)`` decides a deal exactly under any rule variant and returns a winning
move list (not necessarily the shortest) when there is one. With unlimited recycles it searches the
free-stock abstraction of ``solver.pyramid.state`` (then converts the abstract win back into real draws and
recycles); with limited recycles it searches the concrete positions, with the free-stock search
as an oracle.

Pruning, all exact:

* moves that never hurt are played alone (kings; see ``solver.pyramid.state``);
* a *dead card* ends the line: a pyramid card none of whose partners (cards making 13 with it)
  is still in play and able to meet it (``reach`` of the per-deal tables; any stock or waste card
  still in play may yet come to the top), or with goal "all" a stock card with no partner left.
  Partners only ever disappear, so after the full check at the start only the two classes of
  values a pair touches need checking again;
* with limited recycles the free-stock search is an oracle: a position that loses even with
  unlimited recycles is lost, so every position is looked up there before it is expanded (its
  answer searched for once and remembered); this also settles most lost deals at the root;
* positions proven lost are remembered in an open-addressing hash table of packed positions
  (free-stock answers in the same table, tagged). When the table fills up the search goes on
  without storing more: slower, still exact.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np
from numba import njit

from solver.core import memory
from solver.pyramid.deals import check_deal
from solver.pyramid.layout import PYRAMID_CARDS, STOCK_CARDS
from solver.core.rng import mix64
from solver.pyramid.rules import Rules
from solver.pyramid.state import (DRAW, KING, MAX_MOVES, PAIR, PTR_MASK, PTR_SHIFT, PYR_MASK, RECYCLE,
                          START, STOCK_MASK, _tables_kernel, apply_concrete, apply_free,
                          gen_concrete, gen_free, is_won, lowest_bit_index, move_a, move_kind)


class Outcome(IntEnum):
    """What a search found: the deal is lost, won, or a limit stopped it first."""

    LOST = 0
    WON = 1
    UNKNOWN = 2


DEFAULT_TABLE_BITS = 20
"""The reused lost-position table starts with 2**20 slots (8 MiB) per search process."""
DEFAULT_MAX_TABLE_BITS = 26
"""It may grow to 2**26 slots (512 MiB, 8 bytes a position) on the hardest deals."""
DEFAULT_MAX_STATES = 0
"""0 = no limit on positions expanded."""
TABLE_SLOT_BYTES = 8
"""One slot of the lost-position table: a packed position (uint64)."""
MEMORY_CHECK_SECONDS = 0.5
"""A search may size its table by a reading of the memory left up to this old (reading it costs
tens of microseconds, as much as an easy deal's whole search)."""

FREE_TAG = np.uint64(1 << 62)
"""Marks a free-stock position in the shared table (concrete keys never use bit 62)."""
WON_TAG = np.uint64(1 << 63)
"""With ``FREE_TAG``: a free-stock position known to be won (cached answers of the oracle)."""
ORACLE_TRIAL = 1000
"""The free-stock oracle is asked about the first 1000 positions of a limited-recycles search..."""
ORACLE_MIN_SHARE = 10
"""...and after that only while at least 1 in 10 of its answers has cut a position (on stock-top
rules it cuts most lost lines; with the stock top hidden and few recycles it seldom does, and
asking it would only cost time)."""
FREE_DEPTH = PYRAMID_CARDS + STOCK_CARDS + 2
"""Deepest free-stock line: every card removed once, plus slack."""

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


def max_depth(rules: Rules) -> int:
    """Longest possible line of play: every card removed, every draw of every pass, every recycle."""
    if rules.recycles is None:
        return FREE_DEPTH
    return PYRAMID_CARDS + STOCK_CARDS + (STOCK_CARDS + 1) * (rules.recycles + 1) + 2


@dataclass
class Workspace:
    """Buffers reused across searches: the lost-position table and the DFS stack."""

    table: np.ndarray
    touched: np.ndarray
    moves: np.ndarray
    counts: np.ndarray
    max_table: int

    @classmethod
    def create(cls, rules: Rules, table_bits: int = DEFAULT_TABLE_BITS,
               max_table_bits: int = DEFAULT_MAX_TABLE_BITS) -> "Workspace":
        if not 10 <= table_bits <= max_table_bits <= 34:
            raise ValueError(f"need 10 <= table_bits <= max_table_bits <= 34, not "
                             f"{table_bits}, {max_table_bits}")
        size = 1 << table_bits
        depth = max_depth(rules) + (FREE_DEPTH if rules.recycles is not None else 0)
        ws = cls(table=np.zeros(size, dtype=np.uint64),
                 touched=np.zeros(size * 3 // 4 + 1, dtype=np.int64),
                 moves=np.zeros((depth, MAX_MOVES), dtype=np.int64),
                 counts=np.zeros((depth, 2), dtype=np.int64),
                 max_table=1 << max_table_bits)
        # Load the compiled kernel now (a one-state search), so that a search's reported time
        # is the search and not the loading of the numba cache.
        _decide(np.arange(52, dtype=np.int64), START, *rule_args(rules), 1, *ws.args(),
                np.zeros(depth, dtype=np.int64))
        return ws

    def args(self) -> tuple:
        """The kernels' workspace arguments: the table cap (``max_table``, or less when the
        memory left would not hold it: ``table_cap``), the table, and the stack arrays."""
        return table_cap(self.max_table), self.table, self.touched, self.moves, self.counts


@njit(cache=True)
def _table_has(table, key):
    mask = np.uint64(len(table) - 1)
    i = mix64(key) & mask
    while True:
        k = table[i]
        if k == key:
            return True
        if k == _ZERO:
            return False
        i = (i + _ONE) & mask


@njit(cache=True)
def _table_put(table, key):
    """Store ``key`` in ``table``; returns the slot, or -1 when it was there already."""
    mask = np.uint64(len(table) - 1)
    i = mix64(key) & mask
    while table[i] != _ZERO:
        if table[i] == key:
            return -1
        i = (i + _ONE) & mask
    table[i] = key
    return np.int64(i)


@njit(cache=True)
def _table_add(table, touched, n, grown, key, max_size):
    """Insert ``key`` into the lost-position table, growing it when 3/4 full.

    The workspace's own table is reused from search to search, so its used slots are listed in
    ``touched`` for a cheap clean-up. When it fills up, the keys move to a private table twice
    the size (and the workspace table is cleaned at once); private tables double again up to
    ``max_size`` slots, after which the search goes on without storing more: slower, still exact.
    Returns ``(table, n, grown)``.
    """
    if 4 * (n + 1) > 3 * len(table):
        if 2 * len(table) > max_size:
            return table, n, grown
        bigger = np.zeros(2 * len(table), dtype=np.uint64)
        for k in range(len(table)):
            if table[k] != _ZERO:
                _table_put(bigger, table[k])
        if not grown:
            _table_clear(table, touched, n)
        table = bigger
        grown = True
    slot = _table_put(table, key)
    if slot >= 0:
        if not grown:
            touched[n] = slot
        n += 1
    return table, n, grown


@njit(cache=True)
def _table_clear(table, touched, n_touched):
    for k in range(n_touched):
        table[touched[k]] = _ZERO


@njit(cache=True)
def _class_dead(state, v, val, reach, sval, vmask, stock_top_on, goal_all):
    """True when an in-play card of value ``v`` (1..12) can never meet a partner again."""
    pyr = state & PYR_MASK
    stock = state & STOCK_MASK
    w = 13 - v
    x = pyr & vmask[v]
    if x and not (stock & sval[w]):
        while x:
            p = lowest_bit_index(x)
            x &= x - _ONE
            if not (reach[p] & pyr):
                return True
    if goal_all and (stock & sval[v]) and not (pyr & vmask[w]) and \
            not (stock_top_on and (stock & sval[w])):
        return True
    return False


@njit(cache=True)
def _dead(state, val, reach, sval, vmask, stock_top_on, goal_all):
    """True when some card still in play can never be removed (see the module docstring)."""
    for v in range(1, 13):
        if _class_dead(state, v, val, reach, sval, vmask, stock_top_on, goal_all):
            return True
    return False


@njit(cache=True)
def _dead_after(child, m, val, reach, sval, vmask, stock_top_on, goal_all):
    """``_dead`` for a child whose parent had no dead card: only the partners of the cards that
    move ``m`` removed can have lost their last partner."""
    kind = move_kind(m)
    if kind != PAIR:
        return False  # draws, recycles and kings take no partner away from anybody
    va = val[move_a(m)]
    return _class_dead(child, 13 - va, val, reach, sval, vmask, stock_top_on, goal_all) or \
        _class_dead(child, va, val, reach, sval, vmask, stock_top_on, goal_all)


@njit(cache=True)
def _gen(state, free, val, pmates, vmask, sval, pkings, skings, recycles, overlap, stock_top_on,
         goal_all, out):
    if free:
        return gen_free(state, val, pmates, sval, pkings, skings, overlap, stock_top_on, goal_all,
                        out)
    return gen_concrete(state, val, pmates, vmask, pkings, recycles, overlap, stock_top_on, out)


@njit(cache=True)
def _free_search(deal_tabs, start, overlap, stock_top_on, goal_all, max_states, max_table, table,
                 touched, n, grown, moves, counts, base, path):
    """Depth-first search of the free-stock abstraction from ``start`` (its pointer ignored).

    Uses rows ``base..`` of ``moves``/``counts``. Positions proven lost are stored as
    ``key | FREE_TAG``, and a won start as ``key | FREE_TAG | WON_TAG``, so the table doubles as
    the memory of the limited-recycles search's oracle. Returns ``(outcome, path_length,
    expanded, table, n, grown)``; on a fresh win ``path[:length]`` holds the moves (a win found in
    the table has length -1: no moves known).
    """
    val, pmates, reach, sval, vmask, pkings, skings = deal_tabs
    start &= PYR_MASK | STOCK_MASK
    if is_won(start, goal_all):
        return 1, 0, 0, table, n, grown
    if _table_has(table, start | FREE_TAG):
        return 0, 0, 0, table, n, grown
    if _table_has(table, start | FREE_TAG | WON_TAG):
        return 1, -1, 0, table, n, grown
    if _dead(start, val, reach, sval, vmask, stock_top_on, goal_all):
        table, n, grown = _table_add(table, touched, n, grown, start | FREE_TAG, max_table)
        return 0, 0, 0, table, n, grown
    stack = np.empty(FREE_DEPTH, dtype=np.uint64)
    stack[0] = start
    counts[base, 0] = gen_free(start, val, pmates, sval, pkings, skings, overlap, stock_top_on,
                               goal_all, moves[base])
    counts[base, 1] = 0
    expanded = 1
    depth = 0
    while depth >= 0:
        row = base + depth
        if counts[row, 1] < counts[row, 0]:
            m = moves[row, counts[row, 1]]
            counts[row, 1] += 1
            child = apply_free(stack[depth], m)
            if is_won(child, goal_all):
                for d in range(depth + 1):
                    path[d] = moves[base + d, counts[base + d, 1] - 1]
                table, n, grown = _table_add(table, touched, n, grown,
                                             start | FREE_TAG | WON_TAG, max_table)
                return 1, depth + 1, expanded, table, n, grown
            if _table_has(table, child | FREE_TAG):
                continue
            if _dead_after(child, m, val, reach, sval, vmask, stock_top_on, goal_all):
                table, n, grown = _table_add(table, touched, n, grown, child | FREE_TAG,
                                             max_table)
                continue
            if max_states > 0 and expanded >= max_states:
                return 2, 0, expanded, table, n, grown
            expanded += 1
            depth += 1
            stack[depth] = child
            counts[row + 1, 0] = gen_free(child, val, pmates, sval, pkings, skings, overlap,
                                          stock_top_on, goal_all, moves[row + 1])
            counts[row + 1, 1] = 0
        else:
            table, n, grown = _table_add(table, touched, n, grown, stack[depth] | FREE_TAG,
                                         max_table)
            depth -= 1
    return 0, 0, expanded, table, n, grown


@njit(cache=True)
def _concrete_search(deal_tabs, start, recycles, overlap, stock_top_on, goal_all, max_states,
                     max_table, table, touched, n, grown, moves, counts, free_base, path):
    """Depth-first search of the real positions (limited recycles) from ``start``.

    The free-stock search serves as an oracle: a position whose pyramid and in-play cards lose
    even with unlimited recycles is lost, so before a position is expanded its free-stock
    answer is looked up (and searched for once, then remembered), for as long as the oracle
    earns its keep (``ORACLE_TRIAL``, ``ORACLE_MIN_SHARE``). Concrete positions use rows
    ``0..free_base-1``; the oracle the rows from ``free_base``. Returns ``(outcome, length,
    expanded, table, n, grown)``.
    """
    val, pmates, reach, sval, vmask, pkings, skings = deal_tabs
    o, _, expanded, table, n, grown = _free_search(deal_tabs, start, overlap, stock_top_on,
                                                   goal_all, max_states, max_table, table,
                                                   touched, n, grown, moves, counts, free_base,
                                                   path)
    if o != 1:
        return o, 0, expanded, table, n, grown
    if max_states > 0 and expanded >= max_states:
        return 2, 0, expanded, table, n, grown
    probes = 0
    prunes = 0
    stack = np.empty(free_base, dtype=np.uint64)
    stack[0] = start
    counts[0, 0] = gen_concrete(start, val, pmates, vmask, pkings, recycles, overlap,
                                stock_top_on, moves[0])
    counts[0, 1] = 0
    expanded += 1
    depth = 0
    while depth >= 0:
        if counts[depth, 1] < counts[depth, 0]:
            m = moves[depth, counts[depth, 1]]
            counts[depth, 1] += 1
            child = apply_concrete(stack[depth], m)
            if is_won(child, goal_all):
                for d in range(depth + 1):
                    path[d] = moves[d, counts[d, 1] - 1]
                return 1, depth + 1, expanded, table, n, grown
            if _table_has(table, child):
                continue
            if _dead_after(child, m, val, reach, sval, vmask, stock_top_on, goal_all):
                table, n, grown = _table_add(table, touched, n, grown, child, max_table)
                continue
            left = max_states - expanded if max_states > 0 else 0
            if max_states > 0 and left <= 0:
                return 2, 0, expanded, table, n, grown
            if probes < ORACLE_TRIAL or prunes * ORACLE_MIN_SHARE >= probes:
                probes += 1
                o, _, e, table, n, grown = _free_search(deal_tabs, child, overlap, stock_top_on,
                                                        goal_all, left, max_table, table,
                                                        touched, n, grown, moves, counts,
                                                        free_base, path)
                expanded += e
                if o == 2:
                    return 2, 0, expanded, table, n, grown
                if o == 0:
                    prunes += 1
                    table, n, grown = _table_add(table, touched, n, grown, child, max_table)
                    continue
                if max_states > 0 and expanded >= max_states:
                    return 2, 0, expanded, table, n, grown
            expanded += 1
            depth += 1
            stack[depth] = child
            counts[depth, 0] = gen_concrete(child, val, pmates, vmask, pkings, recycles, overlap,
                                            stock_top_on, moves[depth])
            counts[depth, 1] = 0
        else:
            table, n, grown = _table_add(table, touched, n, grown, stack[depth], max_table)
            depth -= 1
    return 0, 0, expanded, table, n, grown


@njit(cache=True)
def _decide(deal, start, recycles, overlap, stock_top_on, goal_all, max_states, max_table, table,
            touched, moves, counts, path):
    """Winnability of ``deal`` from the packed position ``start`` under any rules.

    Returns ``(outcome, path_length, states_expanded)``; on a win ``path[:length]`` holds the
    moves (free-stock moves when ``recycles < 0``, real moves otherwise). The workspace table is
    left clean.
    """
    tabs = _tables_kernel(deal)
    if recycles < 0:
        o, length, e, t, n, grown = _free_search(tabs, start, overlap, stock_top_on, goal_all,
                                                 max_states, max_table, table, touched, 0, False,
                                                 moves, counts, 0, path)
    else:
        o, length, e, t, n, grown = _concrete_search(tabs, start, recycles, overlap,
                                                     stock_top_on, goal_all, max_states,
                                                     max_table, table, touched, 0, False, moves,
                                                     counts, len(counts) - FREE_DEPTH, path)
    if not grown:
        _table_clear(table, touched, n)
    return o, length, e


@njit(cache=True)
def _decide_batch(deals, recycles, overlap, stock_top_on, goal_all, max_states, max_table, table,
                  touched, moves, counts, out_outcome, out_states):
    """Winnability of many deals in one call (no move lists): fills ``out_outcome``/``out_states``."""
    path = np.empty(len(counts), dtype=np.int64)
    for k in range(deals.shape[0]):
        o, _, e = _decide(deals[k], START, recycles, overlap, stock_top_on, goal_all, max_states,
                          max_table, table, touched, moves, counts, path)
        out_outcome[k] = o
        out_states[k] = e


REASON_STATES = "states"
"""An ``UNKNOWN`` search stopped at its cap on positions expanded (``max_states``)."""
REASON_TIMEOUT = "timeout"
"""An ``UNKNOWN`` search stopped at its time limit."""
REASON_MEMORY = "memory"
"""An ``UNKNOWN`` search stopped because it had no memory left to store more positions."""
REASON_DEPTH = "depth"
"""An ``UNKNOWN`` minimum-move search met lines longer than its move counter can hold (not seen
in practice: every line of a Pyramid deal is far shorter)."""
REASONS = (REASON_STATES, REASON_TIMEOUT, REASON_MEMORY, REASON_DEPTH)


@dataclass
class SolveResult:
    """The outcome of one search, with a move list on a win and the counters.

    ``reason`` says which limit stopped an ``UNKNOWN`` search (one of ``REASONS``); it is None
    for every other outcome.
    """

    outcome: Outcome
    solution: list = field(default_factory=list)
    states: int = 0
    seconds: float = 0.0
    optimal: bool = False
    lower_bound: int | None = None
    reason: str | None = None

    def __post_init__(self) -> None:
        if (self.outcome == Outcome.UNKNOWN) != (self.reason is not None):
            raise ValueError(f"reason must be given exactly when the outcome is unknown, not "
                             f"{self.reason!r} with {Outcome(self.outcome).name}")
        if self.reason is not None and self.reason not in REASONS:
            raise ValueError(f"reason must be one of {', '.join(REASONS)}, not {self.reason!r}")

    @property
    def winnable(self) -> bool | None:
        return None if self.outcome == Outcome.UNKNOWN else self.outcome == Outcome.WON

    @property
    def moves(self) -> int | None:
        return len(self.solution) if self.outcome == Outcome.WON else None


def rule_args(rules: Rules) -> tuple:
    """The kernels' rule arguments: (recycles or -1, overlap, stock_top, goal_all)."""
    return (-1 if rules.recycles is None else rules.recycles, rules.overlap, rules.stock_top,
            rules.goal == "all")


def decode_move(m: int) -> tuple[int, int, int]:
    """``(kind, a, b)`` of a move int, in plain Python (no kernel call from Python code)."""
    m = int(m)
    return m & 0xF, (m >> 4) & 0x3F, (m >> 10) & 0x3F


def _concrete_step(deal, m) -> tuple:
    kind, a, b = decode_move(m)
    if kind == DRAW:
        return ("draw",)
    if kind == RECYCLE:
        return ("recycle",)
    if kind == KING:
        return ("king", int(deal[a]))
    return ("pair", int(deal[a]), int(deal[b]))


def free_to_steps(deal, free_moves, start=START) -> list:
    """Turn a free-stock win into real steps: draw (and recycle) until each stock card used is
    the waste top (for a pair of two stock cards, the first is the waste top and its neighbour the
    stock top), then play the move."""
    start = int(start)
    in_play = [i for i in range(STOCK_CARDS) if start >> (PYRAMID_CARDS + i) & 1]
    ptr = (start & int(PTR_MASK)) >> int(PTR_SHIFT)  # in-play cards with index < ptr: the waste
    steps: list = []

    def bring(i: int) -> None:
        nonlocal ptr
        while True:
            waste = [j for j in in_play if j < ptr]
            if waste and waste[-1] == i:
                return
            stock = [j for j in in_play if j >= ptr]
            if stock:
                steps.append(("draw",))
                ptr = stock[0] + 1
            else:
                steps.append(("recycle",))
                ptr = 0

    for m in free_moves:
        kind, a, b = decode_move(m)
        slots = (a,) if kind == KING else (a, b)
        used = [x - PYRAMID_CARDS for x in slots if PYRAMID_CARDS <= x < PYRAMID_CARDS + STOCK_CARDS]
        if used:
            bring(min(used))
        steps.append(_concrete_step(deal, m))
        for i in used:
            in_play.remove(i)
    return steps


def table_cap(max_table: int) -> int:
    """The largest lost-position table (slots) a search may grow to now: ``max_table``, or less
    when the memory left (``solver.core.memory``) would not hold it. While the biggest table is being
    doubled the old one is alive too, so a cap of ``n`` slots needs about ``2 * 8 * n`` bytes."""
    budget = memory.budget_bytes(max_age=MEMORY_CHECK_SECONDS)
    fit = budget // (2 * TABLE_SLOT_BYTES)
    if fit >= max_table:
        return max_table
    return 1 << max(0, fit.bit_length() - 1)


def solve_winnable(deal, rules: Rules = Rules(), max_states: int = DEFAULT_MAX_STATES,
                   workspace: Workspace | None = None, start: int | None = None) -> SolveResult:
    """Decide ``deal`` (52 card ids) under ``rules`` from its start, or from the packed position
    ``start`` (see ``solver.pyramid.state``); a winning move list when there is one.

    ``UNKNOWN`` outcomes carry a ``reason``: ``"states"`` when ``max_states`` stopped the search,
    ``"memory"`` when an allocation failed (the table stops growing before the memory left runs
    out, so this is rare: a full table only makes the search slower).
    """
    deal = check_deal(deal)
    if max_states < 0:
        raise ValueError(f"max_states must be >= 0 (0 = no limit), not {max_states}")
    try:
        ws = workspace or Workspace.create(rules)
        path = np.zeros(len(ws.counts), dtype=np.int64)
    except MemoryError:
        return SolveResult(Outcome.UNKNOWN, reason=REASON_MEMORY)
    rec, overlap, stock_top_on, goal_all = rule_args(rules)
    t0 = time.perf_counter()
    begin = START if start is None else np.uint64(start)
    try:
        outcome, length, expanded = _decide(deal, begin, rec, overlap, stock_top_on, goal_all,
                                            max_states, *ws.args(), path)
    except MemoryError:
        ws.table.fill(0)  # the kernel stopped before cleaning the reused table
        return SolveResult(Outcome.UNKNOWN, seconds=time.perf_counter() - t0, reason=REASON_MEMORY)
    seconds = time.perf_counter() - t0
    result = SolveResult(Outcome(outcome), states=int(expanded), seconds=seconds,
                         reason=REASON_STATES if outcome == Outcome.UNKNOWN else None)
    if result.outcome == Outcome.WON:
        moves = [int(m) for m in path[:length]]
        result.solution = (free_to_steps(deal, moves, begin) if rec < 0
                           else [_concrete_step(deal, m) for m in moves])
    return result


def winnable_many(deals: np.ndarray, rules: Rules = Rules(), max_states: int = DEFAULT_MAX_STATES,
                  workspace: Workspace | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Outcomes (``Outcome`` values) and positions expanded for an ``(n, 52)`` array of deals."""
    deals = np.ascontiguousarray(deals, dtype=np.int64)
    if deals.ndim != 2 or deals.shape[1] != 52:
        raise ValueError(f"deals must be an (n, 52) array, not {deals.shape}")
    ws = workspace or Workspace.create(rules)
    outcome = np.zeros(len(deals), dtype=np.int8)
    states = np.zeros(len(deals), dtype=np.int64)
    rec, overlap, stock_top_on, goal_all = rule_args(rules)
    try:
        _decide_batch(deals, rec, overlap, stock_top_on, goal_all, max_states, *ws.args(),
                      outcome, states)
    except MemoryError:
        ws.table.fill(0)  # the kernel stopped before cleaning the reused table
        raise
    return outcome, states
