"""Minimum-move solutions: ``solve_optimal(deal, rules)``, an exact A* search.

Every move counts one (draw, recycle, pair, overlap pair, king), under any rule variant. The
kernels are in ``solver.pyramid.optimal`` (``tables``, ``bound``, ``index``, ``moves``,
``astar``); this module validates input, runs the winnability search and A* in turns
(``solver.pyramid.winnable.solve``: it proves lost deals far faster, and the length of its solution is
an upper bound that keeps A* from storing longer lines; but under limited recycles A* often
finds a shortest win sooner than it finds any), drives the A* kernel in slices (to check the
clock and to enlarge its arrays), and turns the move list into steps.

Memory: a stored position costs about ``BYTES_PER_POSITION`` bytes (8 packed position, 4 parent,
2 moves so far, 5.3 to 10.7 in the hash index of int32 slots kept at most 3/4 full, and 8 for a
queue entry while it is open; the arrays grow by doubling, so up to twice that just after a
growth). The default cap on stored positions is the smaller of ``DEFAULT_MAX_POSITIONS`` (about
1.5 GB) and what fits in the memory this process may still allocate (``solver.core.memory``: the
address-space limit, the machine's available memory and a cgroup limit, less a margin), and each
growth of the arrays is checked against that memory again. When the cap is reached, or an
allocation fails anyway, the answer is "unknown" with reason "memory" and the best lower bound
proven, never a wrong one and never a crash.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from solver.core import memory
from solver.core.compiling import compile_aside
from solver.core.validate import check_int
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.layout import DECK_CARDS, STOCK_CARDS
from solver.pyramid.optimal import astar, passes
from solver.pyramid.optimal.index import (N_REGS, R_ASKED_FROM, R_EXPANDED, R_F, R_FREE,
                                          R_GOAL_LEN, R_GOAL_MOVE, R_GOAL_PARENT, R_INCOMPLETE,
                                          R_NODES, R_PASS, R_UB, AStarArrays, MAX_TAGGED_NODES,
                                          rehash_tagged)
from solver.pyramid.optimal.tables import class_tables
from solver.pyramid.optimal.bound import SCRATCH, start_bound
from solver.pyramid.optimal.moves import MAX_FORCED
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.model.state import (AFTER_DRAW, FREE_TAG, MAX_MOVES, PTR_MASK, PTR_SHIFT,
                                        REC_MASK, REC_SHIFT, START)
from solver.pyramid.winnable.solve import (WARM_KERNELS, WinnabilityTurns, Workspace,
                                           concrete_step, max_depth, solve_winnable)
from solver.pyramid.model.outcome import (REASON_DEPTH, REASON_MEMORY, REASON_STATES,
                                          REASON_TIMEOUT, Outcome, SolveResult)

BYTES_PER_POSITION = 33
"""Memory per stored position with full arrays: key 8 + parent 4 + moves so far 2 + hash index
<= 10.7 (int32 slots, at most 3/4 full) + queue entry 8 (two int32, while the position is open)."""
DEFAULT_MAX_POSITIONS = 40_000_000
"""Most positions stored by default, however much memory there is: the node arrays stop at 40
million (560 MB), the index at 2**26 slots (256 MB) and the queue entries at most 512 MB: about
1.3 GB, 1.5 GB with the brief overlap of old and new arrays while one grows."""
PEAK_BYTES_PER_POSITION = 40
"""Memory budgeted per stored position when the default cap is fitted to the memory available:
``BYTES_PER_POSITION`` plus the old copy of the index while it is being doubled."""
DEFAULT_WINNABILITY_STATES = 3_000_000
"""The winnability search that runs first gets at most this many positions (it settles nearly
every deal far below it); if it runs out, A* goes on without its upper bound."""
SLICE = 5_000
"""Expansions per kernel call between clock checks (a few milliseconds)."""
MAX_F = 2048
"""Number of f-buckets; a line longer than this is never needed (moves so far stay within
``index.G_MASK`` too)."""
H_BUCKETS = 64
"""Bound values with a list of their own in each f-bucket (tie-breaking only)."""
LOST_AFTER = 300_000
PASS_AFTER = 300_000
"""A* expansions before the proofs of ``solver.pyramid.optimal.passes`` come on: lost children
dropped from ``LOST_AFTER`` on, the pass and two-pass terms from ``PASS_AFTER`` on (the 16 MB
cache is allocated at the first). Measured on the 59 standard deals of seeds 0..9,999 that expand
900,000 positions or more, one after another: from a million expansions (the setting before the
two-pass term) they took 47.2 s in all, the slowest 3.43 s (seed 1834); from 300,000 with the
two-pass term 44.5 s, the slowest 1.53 s (7593), and from 500,000 52.3 s, slowest 1.85 s; a sample
of 72 deals of 150,000 to 900,000 expansions 11.4 s before, 10.1 s with either. Deals below
300,000 expansions (98.5% of them) run the search without the proofs."""
_INITIAL = 1 << 14
MIN_POSITIONS = 4 * MAX_MOVES
"""The smallest cap on stored positions a search accepts."""
_NO_BOUND = 1 << 40

WARM_MODULE = "solver.pyramid.optimal.warm"
"""The module run aside to compile the winnability kernels while A*'s compile (``load_kernels``)."""

DEFAULT_RULES = PRESETS["standard"]
"""The rules used when none are given (the standard rules' defaults, docs/pyramid.md)."""


WORKSPACE_ARRAYS = AStarArrays._fields[:-1]
"""The arrays an ``OptimalWorkspace`` owns: every field of ``AStarArrays`` but the registers."""


@dataclass
class OptimalWorkspace:
    """The A* arrays, reused across searches (the node store, index and queue grow on demand,
    see ``solver.pyramid.optimal.index``; the scratch arrays of an expansion have fixed sizes)."""

    keys: np.ndarray
    parent: np.ndarray
    gs: np.ndarray
    index: np.ndarray
    e_node: np.ndarray
    e_next: np.ndarray
    head: np.ndarray
    scr: np.ndarray
    moves: np.ndarray
    line: np.ndarray
    kids: np.ndarray
    kid_g: np.ndarray
    memo: np.ndarray
    p_stack: np.ndarray
    p_moves: np.ndarray
    p_kids: np.ndarray
    p_nexts: np.ndarray
    p_counts: np.ndarray
    p_tally: np.ndarray
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
                   head=np.full((MAX_F, H_BUCKETS), -1, dtype=np.int32),
                   scr=np.zeros(SCRATCH, dtype=np.int64),
                   moves=np.zeros(MAX_MOVES, dtype=np.int64),
                   line=np.zeros(MAX_FORCED, dtype=np.int64),
                   kids=np.zeros(MAX_MOVES, dtype=np.uint64),
                   kid_g=np.zeros(MAX_MOVES, dtype=np.int64),
                   memo=np.zeros(2, dtype=np.uint64),
                   p_stack=np.zeros(passes.DEPTH, dtype=np.uint64),
                   p_moves=np.zeros(MAX_MOVES, dtype=np.int64),
                   p_kids=np.zeros((passes.DEPTH, MAX_MOVES), dtype=np.uint64),
                   p_nexts=np.zeros(passes.DEPTH, dtype=np.int64),
                   p_counts=np.zeros(passes.DEPTH, dtype=np.int64),
                   p_tally=np.zeros(1, dtype=np.int64))

    def nbytes(self) -> int:
        """Bytes held by the A* arrays."""
        return sum(getattr(self, name).nbytes for name in WORKSPACE_ARRAYS)

    def winnability(self, rules: Rules) -> Workspace:
        """The winnability search's workspace for ``rules``, created once (it costs ~10 ms)."""
        key = max_depth(rules)
        if key not in self.dfs:
            self.dfs[key] = Workspace.create(rules)
        return self.dfs[key]

    def reset(self) -> None:
        """Ready for a new search; arrays that grew large are given back, and so is the cache of
        the pass term (its positions are this deal's)."""
        self.memo = np.zeros(2, dtype=np.uint64)
        if len(self.keys) > 16 * _INITIAL:
            fresh = OptimalWorkspace.create()
            fresh.dfs = self.dfs
            self.__dict__.update(fresh.__dict__)
        else:
            self.index.fill(-1)
            self.head.fill(-1)

    def start_pass_term(self) -> bool:
        """Allocate the cache of the pass term (``passes.MEMO_BITS``); False when it would not fit
        in the memory left (the search then goes on without the term)."""
        size = 1 << passes.MEMO_BITS
        if not memory.fits(8 * size):
            return False
        try:
            self.memo = np.zeros(size, dtype=np.uint64)
        except MemoryError:
            return False
        return True

    def grow_nodes(self, limit: int) -> bool:
        """Double the node arrays, up to ``limit`` + room for one expansion; False at the cap or
        when the new arrays would not fit in the memory left (the arrays are then unchanged)."""
        return self._grow(("keys", "parent", "gs"), limit)

    def grow_index(self, n_nodes: int) -> bool:
        """Double the hash index and re-insert the ``n_nodes`` stored positions; False when it
        would not fit in the memory left (the index is then unchanged)."""
        if not memory.fits(2 * self.index.nbytes):
            return False
        try:
            index = np.full(2 * len(self.index), -1, dtype=np.int32)
        except MemoryError:
            return False
        rehash_tagged(index, self.keys, n_nodes)
        self.index = index
        return True

    def grow_entries(self, limit: int) -> bool:
        """Double the queue entries, up to ``limit`` + room for one expansion; False at the cap or
        when they would not fit in the memory left (the arrays are then unchanged)."""
        return self._grow(("e_node", "e_next"), limit)

    def _grow(self, names: tuple[str, ...], limit: int) -> bool:
        """Enlarge the same-length arrays ``names`` together: all of them or none (the kernel
        trusts the first one's length for all)."""
        old = [getattr(self, name) for name in names]
        n = len(old[0])
        new = min(2 * n, limit + MAX_MOVES)
        if new <= n or not memory.fits(sum(a.itemsize for a in old) * new):
            return False
        try:
            grown = [np.empty(new, dtype=a.dtype) for a in old]
        except MemoryError:
            return False
        for a, b in zip(old, grown):
            b[:n] = a
        for name, b in zip(names, grown):
            setattr(self, name, b)
        return True

    def arrays(self, regs: np.ndarray) -> AStarArrays:
        """The arrays of one ``astar_run`` call (taken afresh: growing replaces them)."""
        return AStarArrays(*(getattr(self, name) for name in WORKSPACE_ARRAYS), regs)

    def pass_arrays(self) -> passes.PassArrays:
        """The arrays of the proof searches of ``passes`` (``pass_lost`` and the others)."""
        return passes.PassArrays(self.memo, self.p_stack, self.p_moves, self.p_kids,
                                 self.p_nexts, self.p_counts, self.p_tally)


def _new_regs(upper: int) -> np.ndarray:
    """The A* registers of a fresh search with the upper bound ``upper`` (``R_UB``)."""
    regs = np.zeros(N_REGS, dtype=np.int64)
    regs[R_FREE] = -1
    regs[R_UB] = upper
    return regs


def default_max_positions() -> int:
    """The default cap on stored positions: ``DEFAULT_MAX_POSITIONS``, or fewer when the memory
    this process may still allocate holds fewer (``PEAK_BYTES_PER_POSITION`` each)."""
    fit = memory.budget_bytes() // PEAK_BYTES_PER_POSITION
    return max(MIN_POSITIONS, min(DEFAULT_MAX_POSITIONS, fit))


def load_kernels() -> None:
    """Load every kernel the searches call (compiling them when numba's cache is cold) by
    calling each once on a tiny input, so that the time a search reports is its own.

    The argument types are those ``solve_optimal`` passes under any rules (the kernels are
    compiled once per argument types, not per rule values).
    """
    deal = Deal.trusted(np.arange(DECK_CARDS, dtype=np.int64))
    rules = DEFAULT_RULES
    rule = rules.args
    ws = OptimalWorkspace.create(MIN_POSITIONS)
    # on a cold cache the winnability kernels compile in a helper process meanwhile
    with compile_aside(WARM_MODULE, WARM_KERNELS):
        ctab = deal.built(class_tables, rule.overlap)
        start_bound(deal.cards, ctab, START, rule)
        astar.astar_run(deal.tables, ctab, START, rule, 0, 1, ws.arrays(_new_regs(_NO_BOUND)))
        rehash_tagged(ws.index, ws.keys, 0)
        astar.trace(deal.cards, rule, ws.keys, ws.parent, -1, 0, np.zeros(1, dtype=np.int64))
    solve_winnable(deal, rules, max_states=1, workspace=ws.winnability(rules))  # its kernel too


def _check_start(start, rules: Rules) -> np.uint64:
    if start is None:
        return START
    s = int(start)
    if not 0 <= s < 1 << 64:
        raise ValueError(f"start {start!r} is not a packed position (a uint64)")
    s &= ~int(AFTER_DRAW)
    if rules.recycles is None:
        s &= ~int(REC_MASK | FREE_TAG)
    else:
        if s & int(FREE_TAG):
            raise ValueError("start has bit 62 set, which no packed position uses")
        used = (s & int(REC_MASK)) >> int(REC_SHIFT)
        if used > rules.recycles:
            raise ValueError(f"start has used {used} recycles, more than the {rules.recycles} "
                             f"these rules allow")
    if (s & int(PTR_MASK)) >> int(PTR_SHIFT) > STOCK_CARDS:
        raise ValueError("start has a waste pointer beyond the stock")
    return np.uint64(s)


def solve_optimal(deal, rules: Rules = DEFAULT_RULES, start: int | None = None,
                  max_states: int = 0,
                  timeout: float | None = None, workspace: OptimalWorkspace | None = None,
                  max_positions: int | None = None) -> SolveResult:
    """A minimum-move solution of ``deal`` (a ``Deal``, or any form ``Deal.of`` takes) under
    ``rules``, from its start or from the packed position ``start`` (``solver.pyramid.model.state.pack_position``).

    ``max_states`` caps the positions expanded (0 = no cap), ``timeout`` the seconds, and
    ``max_positions`` the positions stored (memory; None = ``default_max_positions()``, fitted
    to the memory available). When a limit stops the search first the outcome is ``UNKNOWN``,
    ``reason`` names the limit (``"states"``, ``"timeout"``, ``"memory"``, also when an
    allocation fails) and ``lower_bound`` is the best lower bound proven (the A* f-value
    reached); on a win ``solution`` is a shortest list of steps, ``optimal`` is True and
    ``lower_bound`` is the bound at the start.
    """
    deal = Deal.of(deal)
    if not isinstance(rules, Rules):
        raise ValueError(  # noqa: TRY004 (the project's input errors are ValueErrors)
            f"rules must be a solver.pyramid.model.rules.Rules, not {type(rules).__name__}")
    check_int(max_states, f"max_states must be an integer >= 0 (0 = no limit), not {max_states!r}",
              0)
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    if max_positions is not None:
        check_int(max_positions, f"max_positions must be an integer >= {MIN_POSITIONS} or None, "
                  f"not {max_positions!r}", MIN_POSITIONS)
    begin = _check_start(start, rules)
    t0 = time.perf_counter()
    try:
        return _search(deal, rules, begin, max_states, timeout, workspace, max_positions, t0)
    except MemoryError:
        # an allocation outside the growth points (a workspace, a table): nothing was decided
        return SolveResult(Outcome.UNKNOWN, seconds=time.perf_counter() - t0,
                           reason=REASON_MEMORY)


def lower_bound(deal, rules: Rules, start: int | None = None) -> int:
    """The minimum-move search's admissible bound at the packed position ``start`` (the deal's
    start by default): no line from there wins in fewer moves (``bound.start_bound``; its
    tables are built once per deal, ``Deal.built``)."""
    deal = Deal.of(deal)
    rule = rules.args
    return int(start_bound(deal.cards, deal.built(class_tables, rule.overlap),
                           _check_start(start, rules), rule))


WINNABILITY_TURNS = (20_000, 200_000)
"""The winnability search's first turns (``_search``), each followed by an A* turn of as many
expansions in all; then it runs to ``DEFAULT_WINNABILITY_STATES`` and A* goes on alone. Under
limited recycles each turn goes on from what the turns before proved
(``winnable.WinnabilityTurns``); under unlimited recycles each starts afresh, so the turns are
few and far apart."""


def _rounds(max_states: int):
    """The turns of ``_search``: ``(winnability positions, A* expansions in all)``, the last one
    ``(DEFAULT_WINNABILITY_STATES or max_states, 0)``: A* without a cap."""
    cap = DEFAULT_WINNABILITY_STATES if max_states == 0 else min(max_states,
                                                                  DEFAULT_WINNABILITY_STATES)
    total = 0
    for dfs in WINNABILITY_TURNS:
        if dfs >= cap:
            break
        total += dfs
        yield dfs, total
    yield cap, 0


def _drive(ws: OptimalWorkspace, tabs, ctab, begin, rule, regs: np.ndarray, a_cap: int,
           deadline: float | None, max_positions: int) -> tuple[int, str | None]:
    """Run A* (resuming from ``regs``) until it settles, reaches ``a_cap`` expansions in all
    (``astar.LIMIT``; 0 = no cap), or a limit stops it; returns ``(status, reason)``, the reason
    set only for a limit of the caller's (memory, clock)."""
    while True:
        done = int(regs[R_EXPANDED])
        if regs[R_PASS] == astar.PROOFS_OFF and done >= LOST_AFTER and ws.start_pass_term():
            regs[R_PASS] = astar.LOST_ONLY
            regs[R_ASKED_FROM] = regs[R_NODES]
        if regs[R_PASS] == astar.LOST_ONLY and done >= PASS_AFTER:
            regs[R_PASS] = astar.LOST_AND_PASS
        status = astar.astar_run(tabs, ctab, begin, rule, a_cap, SLICE, ws.arrays(regs))
        if status == astar.GROW_NODES:
            if not ws.grow_nodes(max_positions):
                return status, REASON_MEMORY
        elif status == astar.GROW_INDEX:
            if not ws.grow_index(int(regs[R_NODES])):
                return status, REASON_MEMORY
        elif status == astar.GROW_ENTRIES:
            if not ws.grow_entries(max_positions):
                return status, REASON_MEMORY
        elif status == astar.PAUSED:
            if deadline is not None and time.perf_counter() >= deadline:
                return status, REASON_TIMEOUT
        else:
            return status, None


def _search(deal: Deal, rules: Rules, begin: np.uint64, max_states: int, timeout: float | None,
            workspace: OptimalWorkspace | None, max_positions: int | None,
            t0: float) -> SolveResult:
    """``solve_optimal`` on checked arguments, its clock started at ``t0``.

    The winnability search and A* take turns (``_rounds``): the winnability search proves lost
    deals far faster, and its solution's length is an upper bound for A*; but under limited
    recycles it can take far longer to find a win than A* takes to find a shortest one. So it gets
    the positions of ``WINNABILITY_TURNS`` in turn, each followed by A* (resumed) up to as many
    expansions in all, until either settles the deal; then the winnability search gets
    ``DEFAULT_WINNABILITY_STATES`` and A* goes on alone. Under unlimited recycles the winnability
    search nearly always settles the deal in its first turn; a lost deal that needs the last turn
    pays at most 220,000 positions of each search more than with one turn. Under limited recycles
    the winnability turns go on from each other (``WinnabilityTurns``), so such a deal pays for
    the A* turns and a walk down the line each turn stopped on."""
    rule = rules.args
    deadline = None if timeout is None else t0 + timeout
    ctab = deal.built(class_tables, rule.overlap)
    h0 = int(start_bound(deal.cards, ctab, begin, rule))
    ws = workspace or OptimalWorkspace.create()
    if max_positions is None:
        max_positions = default_max_positions()
    max_positions = min(max_positions, MAX_TAGGED_NODES - 2 * MAX_MOVES)  # ids fit the index
    ws.reset()
    with WinnabilityTurns(deal, rules, begin, ws.winnability(rules)) as turns:
        return _turns(deal, rules, rule, begin, max_states, deadline, ws, max_positions, ctab, h0,
                      turns, t0)


def _turns(deal: Deal, rules: Rules, rule, begin: np.uint64, max_states: int, deadline: float | None,
           ws: OptimalWorkspace, max_positions: int, ctab, h0: int, turns: WinnabilityTurns,
           t0: float) -> SolveResult:
    """The turns of ``_search`` (its docstring), the winnability search's in ``turns``."""
    regs = _new_regs(_NO_BOUND)
    tabs = deal.tables
    spent = 0  # positions of the winnability search, all turns
    upper = _NO_BOUND
    reason = None
    status = astar.PAUSED
    for dfs_cap, a_cap in _rounds(max_states):
        if max_states > 0:
            dfs_cap = min(dfs_cap, max_states - spent - int(regs[R_EXPANDED]))
            if dfs_cap <= 0:
                reason = REASON_STATES
                break
        # 1. winnability: proves lost deals, and gives an upper bound for the others
        if upper == _NO_BOUND:
            first = turns.run(dfs_cap)
            spent += first.states
            if first.outcome == Outcome.LOST:
                return SolveResult(Outcome.LOST, states=spent, seconds=time.perf_counter() - t0,
                                   optimal=True)
            if first.reason == REASON_MEMORY:
                return SolveResult(Outcome.UNKNOWN, states=spent,
                                   seconds=time.perf_counter() - t0, lower_bound=h0,
                                   reason=REASON_MEMORY)
            if first.outcome == Outcome.WON:
                upper = len(first.solution)
                if upper <= h0:
                    return SolveResult(Outcome.WON, list(first.solution), states=spent,
                                       seconds=time.perf_counter() - t0, optimal=True,
                                       lower_bound=h0)
                regs[R_UB] = min(int(regs[R_UB]), upper)
        # 2. A*, up to a_cap expansions in all (0: no cap; none once a solution is known)
        if upper != _NO_BOUND:
            a_cap = 0
        if max_states > 0:
            left = max_states - spent  # A* expansions in all that still fit the cap
            if left <= 0:  # the winnability search used every position the cap allows
                reason = REASON_STATES
                break
            a_cap = left if a_cap == 0 else min(a_cap, left)
        status, reason = _drive(ws, tabs, ctab, begin, rule, regs, a_cap, deadline,
                                max_positions)
        if reason is not None or status != astar.LIMIT:
            break
        if max_states > 0 and spent + int(regs[R_EXPANDED]) >= max_states:
            reason = REASON_STATES
            break
    states = spent + int(regs[R_EXPANDED])
    seconds = time.perf_counter() - t0
    if status == astar.WON:
        length = int(regs[R_GOAL_LEN])
        out = np.zeros(length + 1, dtype=np.int64)
        n = astar.trace(deal.cards, rule, ws.keys, ws.parent, int(regs[R_GOAL_PARENT]),
                        int(regs[R_GOAL_MOVE]), out)
        if n != length or (out[:n] < 0).any():
            raise RuntimeError("minimum-move search: the path could not be traced (a bug)")
        steps = [concrete_step(deal, int(m)) for m in out[:n]]
        return SolveResult(Outcome.WON, steps, states=states, seconds=seconds, optimal=True,
                           lower_bound=h0)
    if status == astar.EXHAUSTED and not regs[R_INCOMPLETE]:
        if upper != _NO_BOUND:
            raise RuntimeError("minimum-move search exhausted below a known solution (a bug)")
        return SolveResult(Outcome.LOST, states=states, seconds=seconds, optimal=True)
    lower = max(h0, int(regs[R_F]))
    if upper != _NO_BOUND:
        lower = min(lower, upper)
    return SolveResult(Outcome.UNKNOWN, states=states, seconds=seconds, optimal=False,
                       lower_bound=lower, reason=reason or REASON_DEPTH)
