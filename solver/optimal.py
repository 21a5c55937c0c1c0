"""Minimum-move solutions: ``solve_optimal(deal, rules)``, an exact A* search.

Every move counts one (draw, recycle, pair, overlap pair, king), under any rule variant. The
kernels are in ``solver.optimal_kernel``; this module validates input, runs the winnability search
first (``solver.search``: it proves lost deals far faster, and the length of its solution is an
upper bound that keeps A* from storing longer lines), drives the A* kernel in slices (to check
the clock and to enlarge its arrays), and turns the move list into steps.

Memory: a stored position costs about ``BYTES_PER_POSITION`` bytes (8 packed position, 4 parent,
2 moves so far, 5.3 to 10.7 in the hash index of int32 slots kept at most 3/4 full, and 8 for a
queue entry while it is open; the arrays grow by doubling, so up to twice that just after a
growth), and the default cap ``DEFAULT_MAX_POSITIONS`` on stored positions keeps a search below
about 1.5 GB (when a cap is reached the answer is "unknown" with the best lower bound proven,
never a wrong one).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from solver import optimal_kernel as K
from solver.deals import check_deal
from solver.rules import PRESETS, Rules
from solver.search import (
    Outcome,
    SolveResult,
    Workspace,
    _concrete_step,
    max_depth,
    rule_args,
    solve_winnable,
)
from solver.state import MAX_MOVES, PTR_MASK, REC_MASK, START

BYTES_PER_POSITION = 33
"""Memory per stored position with full arrays: key 8 + parent 4 + moves so far 2 + hash index
<= 10.7 (int32 slots, at most 3/4 full) + queue entry 8 (two int32, while the position is open)."""
DEFAULT_MAX_POSITIONS = 40_000_000
"""Default cap on stored positions: the node arrays stop at 40 million (560 MB), the index at 2**26
slots (256 MB) and the queue entries at most 512 MB: about 1.3 GB, 1.5 GB with the brief overlap of
old and new arrays while one grows."""
DEFAULT_WINNABILITY_STATES = 3_000_000
"""The winnability search that runs first gets at most this many positions (it settles nearly
every deal far below it); if it runs out, A* goes on without its upper bound."""
SLICE = 5_000
"""Expansions per kernel call between clock checks (a few milliseconds)."""
MAX_F = 2048
"""Number of f-buckets; a line longer than this is never needed (G stays below 2**15 too)."""
H_BUCKETS = 64
"""Bound values with a list of their own in each f-bucket (tie-breaking only)."""
_INITIAL = 1 << 14
_NO_BOUND = 1 << 40

DEFAULT_RULES = PRESETS["standard"]
"""The rules used when none are given (the rules file's defaults)."""


@dataclass
class OptimalWorkspace:
    """The A* arrays, reused across searches (they grow on demand, see ``solver.optimal_kernel``)."""

    keys: np.ndarray
    parent: np.ndarray
    gs: np.ndarray
    index: np.ndarray
    e_node: np.ndarray
    e_next: np.ndarray
    head: np.ndarray
    dfs: dict = field(default_factory=dict)

    @classmethod
    def create(cls, capacity: int = _INITIAL) -> OptimalWorkspace:
        capacity = max(int(capacity), 2 * MAX_MOVES)
        slots = 1 << (4 * capacity // 3).bit_length()
        return cls(keys=np.zeros(capacity, dtype=np.uint64),
                   parent=np.zeros(capacity, dtype=np.int32),
                   gs=np.zeros(capacity, dtype=np.uint16),
                   index=np.full(slots, -1, dtype=np.int32),
                   e_node=np.zeros(capacity, dtype=np.int32),
                   e_next=np.zeros(capacity, dtype=np.int32),
                   head=np.full((MAX_F, H_BUCKETS), -1, dtype=np.int32))

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.keys, self.parent, self.gs, self.index, self.e_node,
                                      self.e_next, self.head))

    def winnability(self, rules: Rules) -> Workspace:
        """The winnability search's workspace for ``rules``, created once (it costs ~10 ms)."""
        key = max_depth(rules)
        if key not in self.dfs:
            self.dfs[key] = Workspace.create(rules)
        return self.dfs[key]

    def reset(self) -> None:
        """Ready for a new search; arrays that grew large are given back."""
        if len(self.keys) > 16 * _INITIAL:
            fresh = OptimalWorkspace.create()
            fresh.dfs = self.dfs
            self.__dict__.update(fresh.__dict__)
        else:
            self.index.fill(-1)
            self.head.fill(-1)

    def grow_nodes(self, limit: int) -> bool:
        n = len(self.keys)
        new = min(2 * n, limit + MAX_MOVES)
        if new <= n:
            return False
        self.keys = _grown(self.keys, new)
        self.parent = _grown(self.parent, new)
        self.gs = _grown(self.gs, new)
        return True

    def grow_index(self, n_nodes: int) -> None:
        self.index = np.full(2 * len(self.index), -1, dtype=np.int32)
        K.rehash(self.index, self.keys, n_nodes)

    def grow_entries(self, limit: int) -> bool:
        """Double the queue entries, up to ``limit`` + room for one expansion; False at the cap."""
        n = len(self.e_node)
        new = min(2 * n, limit + MAX_MOVES)
        if new <= n:
            return False
        self.e_node = _grown(self.e_node, new)
        self.e_next = _grown(self.e_next, new)
        return True


def _grown(a: np.ndarray, n: int) -> np.ndarray:
    b = np.empty(n, dtype=a.dtype)
    b[:len(a)] = a
    return b


def _check_start(start, rules: Rules) -> np.uint64:
    if start is None:
        return START
    s = int(start)
    if not 0 <= s < 1 << 64:
        raise ValueError(f"start {start!r} is not a packed position (a uint64)")
    s &= ~(1 << 63)
    if rules.recycles is None:
        s &= ~int(REC_MASK)
    elif (s & int(REC_MASK)) >> 57 > rules.recycles:
        raise ValueError(f"start has used {(s & int(REC_MASK)) >> 57} recycles, more than the "
                         f"{rules.recycles} these rules allow")
    if (s & int(PTR_MASK)) >> 52 > 24:
        raise ValueError("start has a waste pointer beyond the stock")
    return np.uint64(s)


def solve_optimal(deal, rules: Rules = DEFAULT_RULES, start: int | None = None,
                  max_states: int = 0,
                  timeout: float | None = None, workspace: OptimalWorkspace | None = None,
                  max_positions: int = DEFAULT_MAX_POSITIONS) -> SolveResult:
    """A minimum-move solution of ``deal`` under ``rules``, from its start or from the packed
    position ``start`` (``solver.state.pack_position``).

    ``max_states`` caps the positions expanded (0 = no cap), ``timeout`` the seconds, and
    ``max_positions`` the positions stored (memory). When a limit stops the search first the
    outcome is ``UNKNOWN`` and ``lower_bound`` the best lower bound proven (the A* f-value
    reached); on a win ``solution`` is a shortest list of steps, ``optimal`` is True and
    ``lower_bound`` is the bound at the start.
    """
    deal = check_deal(deal)
    if not isinstance(rules, Rules):
        raise ValueError(  # noqa: TRY004 (the project's input errors are ValueErrors)
            f"rules must be a solver.rules.Rules, not {type(rules).__name__}")
    if isinstance(max_states, bool) or not isinstance(max_states, (int, np.integer)) or max_states < 0:
        raise ValueError(f"max_states must be an integer >= 0 (0 = no limit), not {max_states!r}")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    if max_positions < 4 * MAX_MOVES:
        raise ValueError(f"max_positions must be at least {4 * MAX_MOVES}, not {max_positions}")
    begin = _check_start(start, rules)
    rec, overlap, stock_top_on, goal_all = rule_args(rules)
    t0 = time.perf_counter()
    deadline = None if timeout is None else t0 + timeout
    ctab = K.class_tables(deal, overlap)
    h0 = int(K.start_bound(deal, *ctab, begin, rec, stock_top_on, goal_all))

    # 1. winnability: proves lost deals, and gives an upper bound for the others
    dfs_cap = DEFAULT_WINNABILITY_STATES if max_states == 0 else min(max_states,
                                                                      DEFAULT_WINNABILITY_STATES)
    ws = workspace or OptimalWorkspace.create()
    first = solve_winnable(deal, rules, max_states=dfs_cap, start=int(begin),
                           workspace=ws.winnability(rules))
    spent = first.states
    if first.outcome == Outcome.LOST:
        return SolveResult(Outcome.LOST, states=spent, seconds=time.perf_counter() - t0,
                           optimal=True)
    upper = _NO_BOUND
    if first.outcome == Outcome.WON:
        upper = len(first.solution)
        if upper <= h0:
            return SolveResult(Outcome.WON, list(first.solution), states=spent,
                               seconds=time.perf_counter() - t0, optimal=True, lower_bound=h0)

    # 2. A*
    ws.reset()
    regs = np.zeros(K.N_REGS, dtype=np.int64)
    regs[K.R_FREE] = -1
    regs[K.R_UB] = upper
    a_cap = 0 if max_states == 0 else max(1, max_states - spent)
    while True:
        status = K.astar_run(deal, *ctab, begin, rec, overlap, stock_top_on, goal_all, a_cap, SLICE,
                             ws.keys, ws.parent, ws.gs, ws.index, ws.e_node, ws.e_next, ws.head,
                             regs)
        if status == K.GROW_NODES:
            if not ws.grow_nodes(max_positions):
                break
        elif status == K.GROW_INDEX:
            ws.grow_index(int(regs[K.R_NODES]))
        elif status == K.GROW_ENTRIES:
            if not ws.grow_entries(max_positions):
                break
        elif status == K.PAUSED:
            if deadline is not None and time.perf_counter() >= deadline:
                break
        else:
            break
    states = spent + int(regs[K.R_EXPANDED])
    seconds = time.perf_counter() - t0
    if status == K.WON:
        length = int(regs[K.R_GOAL_LEN])
        out = np.zeros(length + 1, dtype=np.int64)
        n = K.trace(deal, rec, overlap, stock_top_on, goal_all, ws.keys, ws.parent,
                    int(regs[K.R_GOAL_PARENT]), int(regs[K.R_GOAL_MOVE]), out)
        if n != length or (out[:n] < 0).any():
            raise RuntimeError("minimum-move search: the path could not be traced (a bug)")
        steps = [_concrete_step(deal, int(m)) for m in out[:n]]
        return SolveResult(Outcome.WON, steps, states=states, seconds=seconds, optimal=True,
                           lower_bound=h0)
    if status == K.EXHAUSTED and not regs[K.R_INCOMPLETE]:
        if upper != _NO_BOUND:
            raise RuntimeError("minimum-move search exhausted below a known solution (a bug)")
        return SolveResult(Outcome.LOST, states=states, seconds=seconds, optimal=True)
    lower = max(h0, int(regs[K.R_F]))
    if upper != _NO_BOUND:
        lower = min(lower, upper)
    return SolveResult(Outcome.UNKNOWN, states=states, seconds=seconds, optimal=False,
                       lower_bound=lower)
