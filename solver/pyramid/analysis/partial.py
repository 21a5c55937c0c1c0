"""The best partial result of a deal: ``best_partial(deal, rules)``.

The most counted cards a line of play can remove (the pyramid cards under goal "pyramid", 0..28;
all cards under goal "all", 0..52), counted from the deal's start (so moves made before a given
``start`` count too), and a line from the start that reaches that count in the fewest moves
(every step counts one: draws and recycles too). A won deal's answer is the whole count and a
shortest win (``solver.pyramid.optimal.api.solve_optimal``).

Three exact steps (kernels in ``solver.pyramid.analysis.partial_kernels``):

1. an upper bound: the cards in play that are not provably stuck (a card none of whose possible
   partners is still in play and free is stuck, and so is every card it covers);
2. the largest count: a depth-first branch and bound over the free-stock positions (with
   unlimited recycles only the cards in play matter); it stops as soon as a line reaches the
   bound. With limited recycles the free-stock answer is an upper bound, and most often the
   answer (step 3 finds a real line to it); when step 3 proves it out of reach, or cannot tell,
   the same search runs over the real positions;
3. the fewest moves to that count: the free-stock search lists the cards left at the end of the
   lines reaching it (under goal "pyramid" only the pyramid cards left matter). Those cards
   cover none of the cards removed and never pair with them, so a line ends with exactly them
   left when it clears the pyramid of the same position with them taken away: the minimum-move
   solver (``solve_optimal``) on each such position, best lower bound first, gives the shortest
   line. With more than ``MAX_ENDS`` end positions, or stock cards left under goal "all" (taking
   them away would change the draws), an A* search over the real positions for a position
   reaching the count (``fewest_search``) does it instead.

Under ``max_states`` or ``timeout`` the answer is a proven lower bound (the best count found, with
its line) and a proven upper bound; ``exact`` is False and ``reason`` names the limit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from solver.core import memory
from solver.core.validate import check_int
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.layout import DECK_CARDS, PYRAMID_CARDS, STOCK_CARDS
from solver.pyramid.optimal.api import load_kernels as load_optimal_kernels
from solver.pyramid.optimal.api import lower_bound, solve_optimal
from solver.pyramid.analysis import partial_kernels as pk
from solver.pyramid.model.replay import format_step
from solver.pyramid.model.rules import Rules
from solver.core.hashing import rehash
from solver.pyramid.model.state import (AFTER_DRAW, FREE_TAG, MAX_MOVES, PTR_MASK, PTR_SHIFT,
                                        PYR_MASK, REC_MASK, REC_SHIFT, START, STOCK_MASK)
from solver.pyramid.winnable.solve import concrete_step, free_to_steps, max_depth
from solver.pyramid.model.outcome import (REASON_MEMORY, REASON_STATES, REASON_TIMEOUT, REASONS,
                                          Outcome)

SLICE = 20_000
"""Positions expanded per kernel call between clock checks (a few milliseconds)."""
TABLE_BITS = 14
"""The visited table of the largest-count search starts with 2**14 slots and doubles on demand."""
NODES = 1 << 13
"""The fewest-moves search starts with room for 8192 positions and doubles on demand."""
MAX_ENDS = 64
"""Most end positions of lines reaching the largest count that the fewest-moves step takes one
by one to the minimum-move solver; with more it searches all of them at once (``fewest_search``)."""
MANY = "many"
"""Not a limit: the collecting search found more than ``MAX_ENDS`` end positions."""
UNREACHED = "unreached"
"""Not a limit: no end position of the free-stock lines can be reached by real lines."""
MAX_F = 1024
"""Number of f-buckets of the fewest-moves search (no line of a deal is that long)."""


@dataclass(frozen=True)
class PartialResult:
    """The best partial result (see the module docstring).

    counted: ``"pyramid"`` (pyramid cards removed, 0..28) or ``"all"`` (cards removed, 0..52);
    most: what a win removes (28 or 52); best: cards removed at the end of ``line`` (a proven
    lower bound); upper: a proven upper bound (== best when exact); line: replay steps from the
    given start reaching ``best`` (fewest moves for that count when exact); states: positions
    expanded; reason: the limit that stopped a search that is not exact (``REASONS``).
    """

    counted: str
    most: int
    best: int
    upper: int
    line: tuple
    exact: bool
    states: int
    seconds: float
    reason: str | None

    def __post_init__(self) -> None:
        if not 0 <= self.best <= self.upper <= self.most:
            raise ValueError(f"need 0 <= best <= upper <= most, not {self.best}, {self.upper}, "
                             f"{self.most}")
        if self.exact != (self.reason is None) or (self.reason is not None
                                                   and self.reason not in REASONS):
            raise ValueError(f"reason must be one of {', '.join(REASONS)} exactly when the "
                             f"result is not exact, not {self.reason!r}")
        if self.exact and self.best != self.upper:
            raise ValueError("an exact result has best == upper")

    def to_dict(self) -> dict:
        return {"counted": self.counted, "most": self.most, "best": self.best,
                "upper": self.upper, "exact": self.exact, "moves": len(self.line),
                "line": [format_step(s) for s in self.line], "states": self.states,
                "seconds": round(self.seconds, 6), "reason": self.reason}


@dataclass
class PartialWorkspace:
    """The arrays of both searches, reused from deal to deal (grown on demand, shrunk back)."""

    depth: int
    """Rows of the depth-first stack (the longest line of the rules, plus one)."""
    table: np.ndarray = field(default_factory=lambda: np.zeros(1 << TABLE_BITS, np.uint64))
    """The largest-count search's visited table (uint64 keys, 0 = empty)."""
    nodes: dict = field(default_factory=dict)
    """The fewest-moves search's node, entry and index arrays, by their kernel names."""
    states: np.ndarray = None
    moves: np.ndarray = None
    counts: np.ndarray = None
    path: np.ndarray = None
    """The depth-first stack: positions, their moves, (generated, tried) and the best line."""
    buf: np.ndarray = None
    head: np.ndarray = None
    found: np.ndarray = None
    """One position's moves, and the f-bucket heads of the fewest-moves search."""

    @classmethod
    def create(cls, rules: Rules) -> PartialWorkspace:
        depth = max_depth(rules) + 1
        ws = cls(depth)
        ws.states = np.zeros(depth, dtype=np.uint64)
        ws.moves = np.zeros((depth, MAX_MOVES), dtype=np.int64)
        ws.counts = np.zeros((depth, 2), dtype=np.int64)
        ws.path = np.zeros(depth, dtype=np.int64)
        ws.buf = np.zeros(MAX_MOVES, dtype=np.int64)
        ws.head = np.full(MAX_F, -1, dtype=np.int32)
        ws.found = np.zeros(4 * MAX_ENDS, dtype=np.uint64)
        ws.reset_nodes(NODES)
        return ws

    def max_arrays(self, regs: np.ndarray) -> pk.MaxArrays:
        """The arrays of ``max_search`` now (the table may have grown), with ``regs``."""
        return pk.MaxArrays(self.table, self.states, self.moves, self.counts, self.path, regs,
                            self.found)

    def fewest_arrays(self, regs: np.ndarray) -> pk.FewestArrays:
        """The arrays of ``fewest_search`` now (they may have grown), with ``regs``."""
        nd = self.nodes
        return pk.FewestArrays(nd["keys"], nd["parent"], nd["gs"], nd["mv"], nd["index"],
                               nd["e_node"], nd["e_next"], self.head, regs, self.buf)

    def reset_table(self) -> None:
        if len(self.table) > 1 << (TABLE_BITS + 4):
            self.table = np.zeros(1 << TABLE_BITS, np.uint64)
        else:
            self.table.fill(0)

    def grow_table(self) -> bool:
        """Double the visited table; False when it would not fit in the memory left."""
        if not memory.fits(2 * self.table.nbytes):
            return False
        try:
            bigger = np.zeros(2 * len(self.table), np.uint64)
        except MemoryError:
            return False
        pk.rehash_table(self.table, bigger)
        self.table = bigger
        return True

    def reset_nodes(self, n: int) -> None:
        """Fresh node arrays for ``n`` positions (kept when already that size)."""
        if self.nodes and len(self.nodes["keys"]) == n:
            self.nodes["index"].fill(-1)
        else:
            self.nodes = {"keys": np.zeros(n, np.uint64), "parent": np.zeros(n, np.int32),
                          "gs": np.zeros(n, np.int32), "mv": np.zeros(n, np.int32),
                          "e_node": np.zeros(2 * n, np.int32), "e_next": np.zeros(2 * n, np.int32),
                          "index": np.full(1 << (2 * n).bit_length(), -1, np.int32)}
        self.head.fill(-1)

    def grow_nodes(self) -> bool:
        """Double the node and entry arrays; False when they would not fit in the memory left."""
        grow = ("keys", "parent", "gs", "mv", "e_node", "e_next")
        if not memory.fits(sum(self.nodes[k].nbytes for k in grow)):
            return False
        try:
            for k in grow:
                old = self.nodes[k]
                new = np.zeros(2 * len(old), old.dtype)
                new[:len(old)] = old
                self.nodes[k] = new
        except MemoryError:
            return False
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


_WORKSPACES: dict[int, PartialWorkspace] = {}


def workspace_for(rules: Rules) -> PartialWorkspace:
    """The process's reused workspace for rules of ``rules``' stack depth."""
    depth = max_depth(rules) + 1
    if depth not in _WORKSPACES:
        _WORKSPACES[depth] = PartialWorkspace.create(rules)
    return _WORKSPACES[depth]


class _Budget:
    """The states and the clock the searches of one call share."""

    def __init__(self, max_states: int, timeout: float | None) -> None:
        self.max_states = max_states
        self.t0 = time.perf_counter()
        self.deadline = None if timeout is None else self.t0 + timeout
        self.spent = 0

    def left(self) -> int:
        """The cap for the next search (0 = none); -1 when the states are used up."""
        if self.max_states == 0:
            return 0
        return self.max_states - self.spent if self.spent < self.max_states else -1

    def late(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline


def _check_start(start, rules: Rules) -> np.uint64:
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


def _run_max(ws, tabs, rule, free: bool, begin, regs, budget: _Budget):
    """Drive ``max_search`` to its end: ``None``, or the reason a limit stopped it (``"many"``
    for ``MANY``)."""
    ws.reset_table()
    ws.found.fill(0)
    reason = None
    while True:
        cap = budget.left()
        if cap < 0:
            reason = REASON_STATES
            break
        status = pk.max_search(tabs, rule, free, begin, cap, SLICE, ws.max_arrays(regs))
        if status == pk.GROW_TABLE:
            if not ws.grow_table():
                reason = REASON_MEMORY
                break
            continue
        if status == pk.LIMIT:
            reason = REASON_STATES
            break
        if status == pk.MANY:
            reason = MANY
            break
        if status == pk.DONE:
            break
        if budget.late():
            reason = REASON_TIMEOUT
            break
    budget.spent += int(regs[pk.R_EXPANDED])
    return reason


def _max_count(ws, tabs, rule, free: bool, begin, bound: int, budget: _Budget):
    """Step 2 on one kind of position: ``(best, moves of its line, finished, reason)``."""
    regs = np.zeros(pk.N_REGS, dtype=np.int64)
    regs[pk.R_BOUND] = bound
    reason = _run_max(ws, tabs, rule, free, begin, regs, budget)
    moves = [int(m) for m in ws.path[:int(regs[pk.R_BEST_LEN])]]
    return int(regs[pk.R_BEST]), moves, reason is None, reason


def _end_positions(ws, tabs, rule, begin, target: int, budget: _Budget):
    """The counted cards left in play (packed pyramid bits, and stock bits under goal "all") at
    the end of the free-stock lines reaching ``target``, at most ``MAX_ENDS`` of them: ``(ends,
    reason)``; ends None when there are more or a limit stopped the search. With limited
    recycles some of them may be out of reach (the free-stock positions can do more): the
    minimum-move solver then finds them lost."""
    regs = np.zeros(pk.N_REGS, dtype=np.int64)
    regs[pk.R_BOUND] = DECK_CARDS + 1
    regs[pk.R_BEST] = target - 1
    regs[pk.R_COLLECT] = MAX_ENDS
    reason = _run_max(ws, tabs, rule, True, begin, regs, budget)
    if reason is not None:
        return None, reason
    return [int(k) & ~int(FREE_TAG) for k in ws.found if k], None


def _fewest_by_clearing(deal: Deal, rules: Rules, ends, begin, budget: _Budget):
    """Step 3 by the minimum-move solver: a line ends with the cards of one of ``ends`` left
    exactly when it clears the pyramid of the position without them (those cards cover none of
    the others and pair with none of them in any line), so the shortest such win over all
    ``ends`` is the answer. ``(steps, reason)``; steps None when a limit stopped it, or with
    ``UNREACHED`` when no end can be reached (limited recycles)."""
    starts = sorted({int(begin) & ~(e & int(PYR_MASK)) for e in ends})
    tried = sorted((lower_bound(deal, rules, s), s) for s in starts)
    best = None
    for lower, s in tried:
        if best is not None and lower >= len(best):
            break
        cap = budget.left()
        if cap < 0:
            return None, REASON_STATES
        left = None if budget.deadline is None else max(1e-3, budget.deadline - time.perf_counter())
        won = solve_optimal(deal, rules, start=s, max_states=cap, timeout=left)
        budget.spent += won.states
        if won.outcome == Outcome.UNKNOWN:
            return None, won.reason
        if won.outcome == Outcome.WON and (best is None or len(won.solution) < len(best)):
            best = won.solution
    return best, (UNREACHED if best is None else None)


def _fewest_line(ws, deal, tabs, rule, begin, target: int, budget: _Budget):
    """Step 3 by ``fewest_search``: ``(steps, reason)``; steps None when a limit stopped it."""
    ws.reset_nodes(NODES)
    regs = np.zeros(pk.N_REGS, dtype=np.int64)
    regs[pk.A_TARGET] = target
    while True:
        cap = budget.left()
        if cap < 0:
            return None, REASON_STATES
        status = pk.fewest_search(tabs, rule, begin, cap, SLICE, ws.fewest_arrays(regs))
        if status == pk.GROW_NODES:
            if not ws.grow_nodes():
                return None, _spend(budget, regs, REASON_MEMORY)
            continue
        if status == pk.GROW_INDEX:
            if not ws.grow_index(int(regs[pk.A_NODES])):
                return None, _spend(budget, regs, REASON_MEMORY)
            continue
        if status == pk.LIMIT:
            return None, _spend(budget, regs, REASON_STATES)
        if status == pk.DONE:
            break
        if budget.late():
            return None, _spend(budget, regs, REASON_TIMEOUT)
    _spend(budget, regs, None)
    goal = int(regs[pk.A_GOAL])
    if goal < 0:
        raise RuntimeError("fewest-moves search: the largest count was not reached (a bug)")
    out = np.zeros(abs(int(ws.nodes["gs"][goal])) + 1, dtype=np.int64)
    n = pk.trace_line(ws.nodes["parent"], ws.nodes["mv"], goal, out)
    return [concrete_step(deal, int(m)) for m in out[:n]], None


def _spend(budget: _Budget, regs, reason):
    budget.spent += int(regs[pk.A_EXPANDED])
    return reason


def load_kernels() -> None:
    """Load every kernel ``best_partial`` calls (compiling them when numba's cache is cold) by
    calling each once on a tiny input, so that the time a search reports is its own."""
    load_optimal_kernels()
    deal = Deal.trusted(np.arange(DECK_CARDS, dtype=np.int64))
    rules = Rules()
    rule = rules.args
    tabs = deal.tables
    ws = workspace_for(rules)
    for free in (True, False):
        _max_count(ws, tabs, rule, free, START, PYRAMID_CARDS, _Budget(1, None))
    _end_positions(ws, tabs, rule, START, PYRAMID_CARDS, _Budget(1, None))
    _fewest_line(ws, deal, tabs, rule, START, PYRAMID_CARDS, _Budget(1, None))
    pk.rehash_table(ws.table[:2], np.zeros(4, np.uint64))
    pk.trace_line(ws.nodes["parent"], ws.nodes["mv"], 0, np.zeros(1, np.int64))


def best_partial(deal, rules: Rules = Rules(), start: int | None = None, max_states: int = 0,
                 timeout: float | None = None,
                 workspace: PartialWorkspace | None = None) -> PartialResult:
    """The best partial result of ``deal`` under ``rules`` from its start or from the packed
    position ``start`` (``solver.pyramid.model.state.pack_position``); see the module docstring.

    ``max_states`` caps the positions expanded (0 = no cap), ``timeout`` the seconds.
    """
    deal = Deal.of(deal)
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a solver.pyramid.model.rules.Rules, not {type(rules).__name__}")
    check_int(max_states, f"max_states must be an integer >= 0 (0 = no limit), not {max_states!r}",
              0)
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    begin = _check_start(start, rules)
    ws = workspace or workspace_for(rules)
    budget = _Budget(int(max_states), timeout)
    rule = rules.args
    tabs = deal.tables
    most = DECK_CARDS if rule.goal_all else PYRAMID_CARDS
    upper = int(pk.upper_bound(begin, tabs, rule))

    def result(best, line, exact, reason, proven=None):
        return PartialResult("all" if rule.goal_all else "pyramid", most, best,
                             best if exact else (upper if proven is None else proven),
                             tuple(line), exact, budget.spent,
                             time.perf_counter() - budget.t0, reason)

    start_count = int(pk.count_removed(begin, rule.goal_all))

    def shortest(target):
        """``(steps, status)``: a shortest line to ``target`` by the minimum-move solver, or
        None with ``MANY`` (not tried), ``UNREACHED`` or the limit that stopped it."""
        ends, why = ([0], None) if target == most else _end_positions(ws, tabs, rule, begin,
                                                                       target, budget)
        if why is None and rule.goal_all and any(e & int(STOCK_MASK) for e in ends):
            why = MANY
        if why is not None:
            return None, why
        return _fewest_by_clearing(deal, rules, ends, begin, budget)

    # 2. the largest count: free-stock positions first (exact with unlimited recycles; with
    # limited recycles an upper bound, and most often the answer)
    best, moves, done, reason = _max_count(ws, tabs, rule, True, begin, upper, budget)
    if rule.recycles < 0:
        if not done:
            return result(best, free_to_steps(deal, moves, begin), False, reason)
        if best == start_count:
            return result(best, [], True, None)
        steps, why = shortest(best)
        if why == UNREACHED:
            raise RuntimeError("best partial result: the largest count cannot be reached (a bug)")
        if why == MANY:
            steps, why = _fewest_line(ws, deal, tabs, rule, begin, best, budget)
        if steps is None:
            return result(best, free_to_steps(deal, moves, begin), False, why, best)
        return result(best, steps, True, None)
    if not done:
        return result(start_count, [], False, reason)
    upper = best
    if best == start_count:
        return result(best, [], True, None)
    # A free-stock win says little about a real one (proving a real loss is the winnability
    # search's hardest work), so then the real positions are searched first.
    steps, why = shortest(best) if best < most else (None, UNREACHED)
    if steps is not None:
        return result(best, steps, True, None)
    if why not in (MANY, UNREACHED):
        return result(start_count, [], False, why)
    if why == UNREACHED and best < most:
        upper -= 1
    # the real positions, below the free-stock answer when that is out of reach
    best, moves, done, reason = _max_count(ws, tabs, rule, False, begin, upper, budget)
    line = [concrete_step(deal, m) for m in moves]
    if not moves:
        best = start_count
    if not done:
        return result(best, line, False, reason)
    if best == start_count:
        return result(best, [], True, None)
    steps, why = (None, MANY) if best == upper and why == MANY else shortest(best)
    if why == MANY:
        steps, why = _fewest_line(ws, deal, tabs, rule, begin, best, budget)
    if why == UNREACHED:
        raise RuntimeError("best partial result: a count reached by a real line was not (a bug)")
    if steps is None:
        return result(best, line, False, why, best)
    return result(best, steps, True, None)
