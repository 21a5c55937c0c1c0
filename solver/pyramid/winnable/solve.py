"""Winnability: a numba depth-first search with a transposition table of positions proven lost.

``solve_winnable(deal, rules)`` decides a deal exactly under any rule variant and returns a winning
move list (not necessarily the shortest) when there is one. With unlimited recycles it searches the
free-stock abstraction of ``solver.pyramid.model.state`` (then converts the abstract win back into real draws and
recycles); with limited recycles it searches the concrete positions, with the free-stock search
as an oracle.

Pruning, all exact:

* moves that never hurt are played alone (kings; see ``solver.pyramid.model.state``);
* a *dead card* ends the line: a pyramid card none of whose partners (cards making 13 with it)
  is still in play and able to meet it (``reach`` of the per-deal tables; any stock or waste card
  still in play may yet come to the top), or with goal "all" a stock card with no partner left.
  Partners only ever disappear, so after the full check at the start only the two classes of
  values a pair touches need checking again;
* with limited recycles the free-stock search is an oracle for the start: a deal that loses
  even with unlimited recycles is lost, which settles many lost deals at once;
* on the last pass (no recycle left) the waste is a stack that only shrinks from the top: a
  waste card with no partner left that could meet it there (no king, no pyramid card of the
  partner value, no partner still ahead in the stock when the stock top is shown) stays for
  good, and it and every card under it take part in no move again. Under goal "pyramid" the
  search clears them (an equivalent position), under goal "all" the position is lost. Once
  cards have left the game that way, a class of values (v and 13 - v) whose pyramid cards
  outnumber the partners left to them, counted, is lost too (``solver.pyramid.winnable.prune``);
* positions proven lost are remembered in an open-addressing hash table of packed positions
  (free-stock answers in the same table, tagged). Under limited recycles an entry holds the
  earliest recycle count and pointer at which its cards were proven lost, and answers for every
  later one (``solver.pyramid.winnable.lost_table``). When the table reaches its cap the search goes on
  without storing more: slower, still exact;
* with limited recycles, the pass subgames of two or three classes of values played with the
  stock's order and the passes left prove positions lost (``solver.pyramid.winnable.pass_subgame``).

The kernels are in ``solver.pyramid.winnable.dfs``; this module validates input, owns the reused
workspace and turns a win into steps.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from solver.core import memory
from solver.pyramid.model.deals import Deal
from solver.pyramid.winnable.dfs import (Decided, decide_batch, decide_flat, decide_free_flat,
                                         decide_turn)
from solver.pyramid.winnable.free_search import FREE_DEPTH
from solver.pyramid.model.outcome import REASON_MEMORY, REASON_STATES, Outcome, SolveResult
from solver.pyramid.winnable.lost_table import LostTable, WorkspaceArgs, table_clear
from solver.pyramid.model.layout import PYRAMID_CARDS, STOCK_CARDS
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.state import (MAX_MOVES, MOVE_DRAW, MOVE_KING, MOVE_RECYCLE, PTR_MASK,
                                  PTR_SHIFT, START, decode_move)


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


def max_depth(rules: Rules) -> int:
    """Longest possible line of play: every card removed, every draw of every pass, every recycle."""
    if rules.recycles is None:
        return FREE_DEPTH
    return PYRAMID_CARDS + STOCK_CARDS + (STOCK_CARDS + 1) * (rules.recycles + 1) + 2


WARM_KERNELS = (decide_free_flat,)
"""The kernels ``solve_winnable`` calls under the default (unlimited) rules, the ones
``solver.pyramid.optimal.warm`` compiles aside on a cold cache."""


def entry_kernel(rules: Rules):
    """The kernel ``solve_winnable`` calls under ``rules``: the free-stock search alone under
    unlimited recycles (so the default rules never compile the limited-recycles search), else
    the dispatching ``decide_flat``."""
    return decide_free_flat if rules.recycles is None else decide_flat


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
        entry_kernel(rules)(np.arange(52, dtype=np.int64), START, *rules.args, 1,
                            *ws.args(), np.zeros(depth, dtype=np.int64))
        return ws

    def args(self) -> WorkspaceArgs:
        """The kernels' workspace: the table cap (``max_table``, or less when the memory left
        would not hold it: ``table_cap``), the table, and the stack arrays."""
        return WorkspaceArgs(table_cap(self.max_table), self.table, self.touched, self.moves,
                             self.counts)


def concrete_step(deal, m) -> tuple:
    """The step (``("draw",)``, ``("recycle",)``, ``("king", card)``, ``("pair", card, card)``)
    of the real move ``m`` of ``deal``."""
    kind, a, b = decode_move(m)
    if kind == MOVE_DRAW:
        return ("draw",)
    if kind == MOVE_RECYCLE:
        return ("recycle",)
    if kind == MOVE_KING:
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
        slots = (a,) if kind == MOVE_KING else (a, b)
        used = [x - PYRAMID_CARDS for x in slots if PYRAMID_CARDS <= x < PYRAMID_CARDS + STOCK_CARDS]
        if used:
            bring(min(used))
        steps.append(concrete_step(deal, m))
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
    """Decide ``deal`` (a ``Deal``, or any form ``Deal.of`` takes) under ``rules`` from its
    start, or from the packed position ``start`` (see ``solver.pyramid.model.state``); a winning
    move list when there is one.

    ``UNKNOWN`` outcomes carry a ``reason``: ``"states"`` when ``max_states`` stopped the search,
    ``"memory"`` when an allocation failed (the table stops growing before the memory left runs
    out, so this is rare: a full table only makes the search slower).
    """
    deal = Deal.of(deal)
    if max_states < 0:
        raise ValueError(f"max_states must be >= 0 (0 = no limit), not {max_states}")
    try:
        ws = workspace or Workspace.create(rules)
        path = np.zeros(len(ws.counts), dtype=np.int64)
    except MemoryError:
        return SolveResult(Outcome.UNKNOWN, reason=REASON_MEMORY)
    rule = rules.args
    t0 = time.perf_counter()
    begin = START if start is None else np.uint64(start)
    try:
        found = Decided(*entry_kernel(rules)(deal.cards, begin, *rule, max_states, *ws.args(),
                                             path))
    except MemoryError:
        ws.table.fill(0)  # the kernel stopped before cleaning the reused table
        return SolveResult(Outcome.UNKNOWN, seconds=time.perf_counter() - t0, reason=REASON_MEMORY)
    seconds = time.perf_counter() - t0
    result = SolveResult(Outcome(found.outcome), states=int(found.states), seconds=seconds,
                         reason=REASON_STATES if found.outcome == Outcome.UNKNOWN else None)
    if result.outcome == Outcome.WON:
        moves = [int(m) for m in path[:found.length]]
        result.solution = (free_to_steps(deal, moves, begin) if rule.recycles < 0
                           else [concrete_step(deal, m) for m in moves])
    return result


class WinnabilityTurns:
    """The winnability search of one deal from one start in turns, each of at most so many
    positions (``run``): the minimum-move search runs it between turns of A*
    (``solver.pyramid.optimal.api``).

    Under limited recycles a turn goes on from the turns before it: the positions they proved
    lost stay in the lost-position table, so a turn walks again only the line the last one
    stopped on. Measured on the slowest lost ``msc`` deals: seed 8060 took three turns of 20,000,
    200,000 and 321,567 positions from scratch (0.40 s of its 0.57 s minimum-move time), and now
    two of 20,000 and about 98,000 (0.21 s in all); seed 8557 0.46 -> 0.16 s. Under unlimited
    recycles each turn searches afresh (``solve_winnable``: it nearly always settles the deal in
    its first turn). ``close`` (or leaving the ``with`` block) hands the workspace back clean.
    """

    def __init__(self, deal, rules: Rules, start: int, workspace: Workspace) -> None:
        self.deal = Deal.of(deal)
        self.rules = rules
        self.start = int(start)
        self.ws = workspace
        self.path = np.zeros(len(workspace.counts), dtype=np.int64)
        self.lost = LostTable(workspace.table, 0, False)  # what the turns so far proved lost

    def __enter__(self) -> WinnabilityTurns:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, max_states: int) -> SolveResult:
        """The next turn, at most ``max_states`` positions (0 = no limit)."""
        if self.rules.recycles is None:
            return solve_winnable(self.deal, self.rules, max_states=max_states,
                                  start=self.start, workspace=self.ws)
        t0 = time.perf_counter()
        try:
            found = decide_turn(self.deal.cards, np.uint64(self.start), self.rules.args,
                                max_states, self.ws.args(), self.path, self.lost)
        except MemoryError:
            self.ws.table.fill(0)  # the kernel stopped before it could hand its table back
            self.lost = LostTable(self.ws.table, 0, False)
            return SolveResult(Outcome.UNKNOWN, seconds=time.perf_counter() - t0,
                               reason=REASON_MEMORY)
        self.lost = LostTable(*found.lost)  # numba hands a named tuple back as a plain tuple
        result = SolveResult(Outcome(found.outcome), states=int(found.states),
                             seconds=time.perf_counter() - t0,
                             reason=REASON_STATES if found.outcome == Outcome.UNKNOWN else None)
        if result.outcome == Outcome.WON:
            result.solution = [concrete_step(self.deal, int(m))
                               for m in self.path[:found.length]]
        return result

    def close(self) -> None:
        """Clean the workspace's table (a table that grew was private, and the workspace's own
        was cleaned when it did)."""
        if not self.lost.grown:
            table_clear(self.ws.table, self.ws.touched, self.lost.n)
        self.lost = LostTable(self.ws.table, 0, False)


def winnable_many(deals: np.ndarray, rules: Rules = Rules(), max_states: int = DEFAULT_MAX_STATES,
                  workspace: Workspace | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Outcomes (``Outcome`` values) and positions expanded for an ``(n, 52)`` array of deals."""
    deals = np.ascontiguousarray(deals, dtype=np.int64)
    if deals.ndim != 2 or deals.shape[1] != 52:
        raise ValueError(f"deals must be an (n, 52) array, not {deals.shape}")
    ws = workspace or Workspace.create(rules)
    outcome = np.zeros(len(deals), dtype=np.int8)
    states = np.zeros(len(deals), dtype=np.int64)
    try:
        decide_batch(deals, rules.args, max_states, ws.args(), outcome, states)
    except MemoryError:
        ws.table.fill(0)  # the kernel stopped before cleaning the reused table
        raise
    return outcome, states
