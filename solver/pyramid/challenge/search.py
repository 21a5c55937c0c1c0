"""The Python side of the objective searches: their arrays (``Workspace``), their shared limits
(``Budget``) and one driver per kernel (``run_max``, ``run_fewest``), each turning a kernel's
status into an answer or the reason a limit stopped it.

The kernels (``solver.pyramid.challenge.kernels``) allocate nothing: every array lives here,
is reused from search to search, grows when a kernel asks (each growth checked against the
memory the process may still take, ``solver.core.memory``; a growth that would not fit, or an
allocation that fails anyway, ends the search with reason ``memory``, never a crash) and
shrinks back when a search left it large. The clock is checked between slices of
``SLICE`` positions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from solver.core import memory
from solver.core.hashing import rehash
from solver.core.validate import check_int
from solver.pyramid.challenge import kernels as ck
from solver.pyramid.challenge.bounds import MAX_PICKS, MAX_TIME, SLOTS
from solver.pyramid.challenge.moves import ALWAYS, COVERING, NEVER, Forcing
from solver.pyramid.challenge.objective import Objective
from solver.pyramid.model.outcome import REASON_MEMORY, REASON_STATES, REASON_TIMEOUT
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.state import (AFTER_DRAW, FREE_TAG, MAX_MOVES, PTR_MASK, PTR_SHIFT,
                                        REC_MASK, REC_SHIFT, START)
from solver.pyramid.model.layout import STOCK_CARDS
from solver.pyramid.optimal.bound import SCRATCH
from solver.pyramid.optimal.tables import class_tables
from solver.pyramid.winnable.solve import concrete_step, free_to_steps, max_depth

SLICE = 2_000
"""Positions expanded per kernel call between clock checks: a few milliseconds (an expansion of
the fewest-moves search, its free-stock tests included, takes up to about 10 us; 20,000 let a
``--timeout`` of 1 ms run 250 ms)."""
TABLE_BITS = 14
"""The visited table of ``max_search`` starts with 2**14 slots and doubles on demand."""
MEMO_BITS = 17
"""The free-stock memo of ``fewest_search`` starts with 2**17 slots (room for the tests of a few
expansions, ``kernels.MEMO_ROOM``) and doubles on demand."""
NODES = 1 << 13
"""``fewest_search`` starts with room for 8192 positions and doubles on demand."""
MAX_F = 1024
"""Number of f-buckets of ``fewest_search`` (no line of a deal is that long: at most 829 moves
under 30 recycles)."""
MAX_ENDS = 64
"""Room for end positions when ``run_max`` collects them."""
MANY = "many"
"""Not a limit: a collecting search found more end positions than asked for."""
SHRINK = 4
"""A table or node array more than 2**SHRINK times its starting size is dropped after a search
(the next starts small again) rather than cleared."""
NODE_ARRAYS = ("keys", "parent", "gs", "hs", "mv", "e_node", "e_next")
"""The node arrays ``fewest_search`` fills, doubled together (the index apart)."""


@dataclass
class Workspace:
    """The arrays of both searches, reused from search to search (grown on demand, shrunk
    back)."""

    depth: int
    """Rows of the depth-first stack (the longest line of the rules, plus one)."""
    table: np.ndarray = field(default_factory=lambda: np.zeros(1 << TABLE_BITS, np.uint64))
    """``max_search``'s visited table (uint64 keys, 0 = empty)."""
    nodes: dict = field(default_factory=dict)
    """``fewest_search``'s node, entry and index arrays, by their kernel names."""
    states: np.ndarray = None
    moves: np.ndarray = None
    counts: np.ndarray = None
    path: np.ndarray = None
    """The depth-first stack: positions, their moves, (generated, tried) and the best line."""
    buf: np.ndarray = None
    head: np.ndarray = None
    found: np.ndarray = None
    """One position's moves, the f-bucket heads, the end positions collected."""
    acc: np.ndarray = None
    weight_by_time: np.ndarray = None
    picks: np.ndarray = None
    scr: np.ndarray = None
    """Scratch of the moves lower bounds."""
    memo: np.ndarray = field(default_factory=lambda: np.zeros(1 << MEMO_BITS, np.uint64))
    """The free-stock positions the fewest-moves search has settled (``free_reaches``)."""
    fstates: np.ndarray = None
    fmoves: np.ndarray = None
    fcounts: np.ndarray = None
    """The stack of ``free_reaches``."""

    @classmethod
    def create(cls, rules: Rules) -> Workspace:
        depth = max_depth(rules) + 1
        ws = cls(depth)
        ws.states = np.zeros(depth, dtype=np.uint64)
        ws.moves = np.zeros((depth, MAX_MOVES), dtype=np.int64)
        ws.counts = np.zeros((depth, 2), dtype=np.int64)
        ws.path = np.zeros(depth, dtype=np.int64)
        ws.buf = np.zeros(MAX_MOVES, dtype=np.int64)
        ws.head = np.full(MAX_F, -1, dtype=np.int32)
        ws.found = np.zeros(4 * MAX_ENDS, dtype=np.uint64)
        ws.acc = np.zeros(SLOTS, dtype=np.int64)
        ws.weight_by_time = np.zeros(MAX_TIME + 1, dtype=np.int64)
        ws.picks = np.zeros(2 * MAX_PICKS, dtype=np.int64)
        ws.scr = np.zeros(SCRATCH, dtype=np.int64)
        ws.fstates = np.zeros(ck.FREE_DEPTH, dtype=np.uint64)
        ws.fmoves = np.zeros((ck.FREE_DEPTH, MAX_MOVES), dtype=np.int64)
        ws.fcounts = np.zeros((ck.FREE_DEPTH, 2), dtype=np.int64)
        ws.reset_nodes()
        return ws

    def max_arrays(self, regs: np.ndarray) -> ck.MaxArrays:
        """The arrays of ``max_search`` now (the table may have grown), with ``regs``."""
        return ck.MaxArrays(self.table, self.states, self.moves, self.counts, self.path, regs,
                            self.found)

    def fewest_arrays(self, regs: np.ndarray) -> ck.FewestArrays:
        """The arrays of ``fewest_search`` now (they may have grown), with ``regs``."""
        nd = self.nodes
        return ck.FewestArrays(nd["keys"], nd["parent"], nd["gs"], nd["hs"], nd["mv"],
                               nd["index"], nd["e_node"], nd["e_next"], self.head, regs,
                               self.buf, self.acc, self.weight_by_time,
                               self.picks, self.scr, self.memo, self.fstates, self.fmoves,
                               self.fcounts)

    def reset_table(self) -> None:
        self.table = cleared(self.table, TABLE_BITS)

    def grow_table(self) -> bool:
        """Double the visited table; False when it would not fit in the memory left."""
        self.table, grown = doubled(self.table, np.uint64(0))
        return grown

    def reset_nodes(self) -> None:
        """Node arrays for a new search: kept (the index cleared) at their starting size, else
        made anew at it."""
        n = NODES
        if self.nodes and len(self.nodes["keys"]) == n:
            self.nodes["index"].fill(-1)
        else:
            self.nodes = {"keys": np.zeros(n, np.uint64), "parent": np.zeros(n, np.int32),
                          "gs": np.zeros(n, np.int32), "hs": np.zeros(n, np.int32),
                          "mv": np.zeros(n, np.int32), "e_node": np.zeros(2 * n, np.int32),
                          "e_next": np.zeros(2 * n, np.int32),
                          "index": np.full(1 << (2 * n).bit_length(), -1, np.int32)}
        self.head.fill(-1)

    def reset_memo(self) -> None:
        self.memo = cleared(self.memo, MEMO_BITS)

    def grow_memo(self) -> bool:
        """Double the free-stock memo; False when it would not fit in the memory left."""
        self.memo, grown = doubled(self.memo, ck.REACHES)
        return grown

    def grow_nodes(self) -> bool:
        """Double the node and entry arrays; False when they would not fit in the memory left."""
        if not memory.fits(sum(self.nodes[k].nbytes for k in NODE_ARRAYS)):
            return False
        try:
            grown = {}
            for k in NODE_ARRAYS:
                old = self.nodes[k]
                grown[k] = np.zeros(2 * len(old), old.dtype)
                grown[k][:len(old)] = old
        except MemoryError:
            return False
        self.nodes.update(grown)
        return True

    def grow_index(self, n_nodes: int) -> bool:
        """Double the hash index of the node arrays and re-insert the ``n_nodes`` nodes."""
        if not memory.fits(2 * self.nodes["index"].nbytes):
            return False
        try:
            index = np.full(2 * len(self.nodes["index"]), -1, np.int32)
        except MemoryError:
            return False
        rehash(index, self.nodes["keys"], n_nodes)
        self.nodes["index"] = index
        return True


def cleared(table: np.ndarray, bits: int) -> np.ndarray:
    """An empty open-addressing ``table``: itself cleared, or anew with 2**``bits`` slots when
    a search left it more than 2**``SHRINK`` times that."""
    if len(table) > 1 << (bits + SHRINK):
        return np.zeros(1 << bits, np.uint64)
    table.fill(0)
    return table


def doubled(table: np.ndarray, tags: np.uint64) -> tuple[np.ndarray, bool]:
    """``(table with twice the slots and the same entries, True)``, or ``(table, False)`` when
    the larger one would not fit in the memory left; ``tags``: the bits of an entry that are not
    part of its key (``ck.rehash_table``)."""
    if not memory.fits(2 * table.nbytes):
        return table, False
    try:
        bigger = np.zeros(2 * len(table), np.uint64)
    except MemoryError:
        return table, False
    ck.rehash_table(table, bigger, tags)
    return bigger, True


_WORKSPACES: dict[int, Workspace] = {}


def workspace_for(rules: Rules) -> Workspace:
    """The process's reused workspace for rules of ``rules``' stack depth."""
    depth = max_depth(rules) + 1
    if depth not in _WORKSPACES:
        _WORKSPACES[depth] = Workspace.create(rules)
    return _WORKSPACES[depth]


class Budget:
    """The positions and the clock the searches of one call share."""

    def __init__(self, max_states: int, timeout: float | None) -> None:
        self.max_states = max_states
        self.t0 = time.perf_counter()
        self.deadline = None if timeout is None else self.t0 + timeout
        self.spent = 0

    def left(self) -> int:
        """The cap for the next search (0 = none); -1 when the positions are used up."""
        if self.max_states == 0:
            return 0
        return self.max_states - self.spent if self.spent < self.max_states else -1

    def capped(self, n: int) -> Budget | None:
        """A budget for one search of at most ``n`` positions, on this one's clock (its
        positions are not counted here: the caller adds its ``spent``); None when this one's
        own cap comes first."""
        left = self.left()
        if left != 0 and left <= n:
            return None
        sub = Budget(n, None)
        sub.t0, sub.deadline = self.t0, self.deadline
        return sub

    def late(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def seconds(self) -> float:
        return time.perf_counter() - self.t0


def check_limits(max_states, timeout) -> None:
    """Refuse a cap on positions that is not an integer >= 0, or a timeout that is not > 0."""
    check_int(max_states, f"max_states must be an integer >= 0 (0 = no limit), not {max_states!r}",
              0)
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")


def check_start(start, rules: Rules) -> np.uint64:
    """The packed position ``start`` (None: the deal's start) checked and made a search's key:
    bit 63 cleared, the recycle count dropped under unlimited recycles."""
    if start is None:
        return START
    check_int(start, f"start must be a packed position (an integer), not {start!r}", 0,
              (1 << 64) - 1)
    s = int(start) & ~int(AFTER_DRAW)
    if s & int(FREE_TAG):
        raise ValueError("start has bit 62 set, which no packed position uses")
    if rules.recycles is None:
        s &= ~int(REC_MASK)
    elif (s & int(REC_MASK)) >> int(REC_SHIFT) > rules.recycles:
        raise ValueError(f"start has used more recycles than the {rules.recycles} these rules "
                         f"allow")
    if (s & int(PTR_MASK)) >> int(PTR_SHIFT) > STOCK_CARDS:
        raise ValueError("start has a waste pointer beyond the stock")
    return np.uint64(s)


def max_forcing(objective: Objective, rules: Rules) -> Forcing:
    """The kings the largest-value search removes alone: every available one, but a pyramid
    king only when it covers a card or the deal's end cannot cut a line short of value
    (``solver.pyramid.challenge.moves``)."""
    free_end = not objective.stock_counts or rules.goal == "all"
    return Forcing(ALWAYS if free_end else COVERING, True)


def fewest_forcing(objective: Objective, rules: Rules, at_most: bool) -> Forcing:
    """The kings the fewest-moves search removes alone: none, unless the value asked for is the
    largest reachable (``at_most``: no line reaches more), and then those that weigh."""
    if not at_most:
        return Forcing(NEVER, False)
    free_end = not objective.stock_counts or rules.goal == "all"
    pyramid = NEVER if not objective.pyramid[-1] else ALWAYS if free_end else COVERING
    return Forcing(pyramid, bool(objective.stock[-1]))


def drive(step, grow: dict, budget: Budget) -> str | None:
    """Call ``step(cap)`` (a kernel's slice under the cap on positions ``cap``) until the kernel
    is done: enlarge its arrays when it asks (``grow``: status -> a call that does it, False when
    the memory left is too small). Returns None when done, else the reason it stopped:
    ``states``, ``timeout``, ``memory``, or ``MANY`` (too many end positions collected)."""
    while True:
        cap = budget.left()
        if cap < 0:
            return REASON_STATES
        status = step(cap)
        if status in grow:
            if not grow[status]():
                return REASON_MEMORY
            continue
        if status == ck.DONE:
            return None
        if status in (ck.LIMIT, ck.MANY):
            return REASON_STATES if status == ck.LIMIT else MANY
        if budget.late():
            return REASON_TIMEOUT


@dataclass(frozen=True)
class MaxFound:
    """What ``run_max`` found: the best value, the moves of a line reaching it (free-stock
    moves for a free search), and the reason a limit stopped it (None: the best is the largest
    value, or the bound was reached)."""

    best: int
    moves: tuple
    reason: str | None


def run_max(ws: Workspace, deal, rules: Rules, objective: Objective, free: bool, begin,
            bound: int, budget: Budget, collect: int = 0, floor: int = 0) -> MaxFound:
    """Drive ``max_search`` from ``begin`` to its end (``bound``: it stops when a line reaches
    it). Collecting (``collect`` > 0, ``floor`` = the largest value less one): the end positions
    reaching more than ``floor`` are left in ``ws.found`` (reason ``MANY`` when there are more
    than ``collect``)."""
    ws.reset_table()
    ws.found.fill(0)
    regs = np.zeros(ck.N_REGS, dtype=np.int64)
    regs[ck.R_BOUND] = bound
    if collect:
        regs[ck.R_BEST] = floor
        regs[ck.R_COLLECT] = collect
    tabs, rule, obj = deal.tables, rules.args, objective.args
    forcing = max_forcing(objective, rules)
    reason = drive(lambda cap: ck.max_search(tabs, rule, obj, forcing, free, begin, cap, SLICE,
                                             ws.max_arrays(regs)),
                   {ck.GROW_TABLE: ws.grow_table}, budget)
    budget.spent += int(regs[ck.R_EXPANDED])
    moves = tuple(int(m) for m in ws.path[:int(regs[ck.R_BEST_LEN])])
    return MaxFound(int(regs[ck.R_BEST]), moves, reason)


def max_steps(deal, found: MaxFound, free: bool, begin) -> list:
    """The replay steps of ``found``'s line from ``begin``."""
    if free:
        return free_to_steps(deal, list(found.moves), begin)
    return [concrete_step(deal, m) for m in found.moves]


def win_bound_for(deal, rules: Rules, objective: Objective, target: int) -> ck.WinBound:
    """The minimum-move bound for ``fewest_search``: on when no position keeping the apex is
    worth ``target`` (every line to it clears the pyramid)."""
    on = target > objective.most_keeping_apex(deal.tables.val)
    ctab = deal.built(class_tables, rules.overlap)
    return ck.WinBound(on, ctab, rules.with_options(goal="pyramid").args)


@dataclass(frozen=True)
class FewestFound:
    """What ``run_fewest`` found: a shortest line's steps and the packed position it ends in
    (None when no line reaches the target, or a limit stopped the search: then ``reason`` names
    it)."""

    steps: list | None
    end: np.uint64 | None
    reason: str | None


def run_fewest(ws: Workspace, deal, rules: Rules, objective: Objective, begin, target: int,
               budget: Budget, at_most: bool) -> FewestFound:
    """Drive ``fewest_search`` from ``begin`` to a value of ``target`` (``at_most``: no line
    reaches more, see ``fewest_forcing``)."""
    ws.reset_nodes()
    ws.reset_memo()
    regs = np.zeros(ck.N_REGS, dtype=np.int64)
    regs[ck.A_TARGET] = target
    tabs, rule, obj = deal.tables, rules.args, objective.args
    forcing = fewest_forcing(objective, rules, at_most)
    free_forcing = max_forcing(objective, rules)
    win = win_bound_for(deal, rules, objective, target)
    reason = drive(lambda cap: ck.fewest_search(tabs, rule, obj, forcing, free_forcing, win, begin,
                                                cap, SLICE, ws.fewest_arrays(regs)),
                   {ck.GROW_NODES: ws.grow_nodes,
                    ck.GROW_INDEX: lambda: ws.grow_index(int(regs[ck.A_NODES])),
                    ck.GROW_MEMO: ws.grow_memo}, budget)
    budget.spent += int(regs[ck.A_EXPANDED]) + int(regs[ck.A_TESTED])
    goal = int(regs[ck.A_GOAL])
    if reason is not None or goal < 0:
        return FewestFound(None, None, reason)
    out = np.zeros(abs(int(ws.nodes["gs"][goal])) + 1, dtype=np.int64)
    n = ck.trace_line(ws.nodes["parent"], ws.nodes["mv"], goal, out)
    return FewestFound([concrete_step(deal, int(m)) for m in out[:n]], ws.nodes["keys"][goal], None)


def load_kernels() -> None:
    """Load every kernel of the objective searches (compiling them when numba's cache is cold)
    by calling each once on a tiny input, so that the time a search reports is its own."""
    from solver.pyramid.challenge.objective import counted_objective
    from solver.pyramid.model.deals import Deal
    from solver.pyramid.model.layout import DECK_CARDS

    deal = Deal.trusted(np.arange(DECK_CARDS, dtype=np.int64))
    rules = Rules()
    ws = workspace_for(rules)
    objective = counted_objective(False)
    for free in (True, False):
        run_max(ws, deal, rules, objective, free, START, 1, Budget(1, None))
    run_max(ws, deal, rules, objective, True, START, 1, Budget(1, None), collect=1, floor=0)
    run_fewest(ws, deal, rules, objective, START, 1, Budget(1, None), False)
    ck.rehash_table(ws.table[:2], np.zeros(4, np.uint64), ck.REACHES)
    ck.trace_line(ws.nodes["parent"], ws.nodes["mv"], 0, np.zeros(1, np.int64))
