"""The worker side of batch scoring: one chunk of deals in, one ``ChunkResult`` out.

A chunk is a ``ChunkTask``: either a range of seeds or a list of ``(line number, text)`` deal
lines, plus the settings of the run. ``solve_chunk`` is a plain top-level function (picklable for
process pools and Dask), deterministic apart from the measured milliseconds: a deal's outcome,
states and minimum moves depend only on the deal and the settings, never on which worker or chunk
ran it.

Unlimited recycles (the default rules). A chunk's deals (dealt from their seeds in one
``deals_from_seeds`` call) are tabled and searched in one numba call
(``solver.pyramid.winnable.chunk.decide_deal_chunk``: no array allocated and no Python run per
deal, a lost-position table that stays in cache). Limited recycles take ``chunk.decide_timed``,
one numba call per chunk around ``dfs.decide``.

Timing. Each kernel reads the monotonic clock around every deal itself: ``clock_ns`` calls libc's ``clock_gettime(CLOCK_MONOTONIC)`` from
nopython code (an LLVM declaration of the C function, so unlike a ctypes pointer it keeps
``cache=True`` working). One clock read costs 30-60 ns against ~35 us a deal, so the timed kernel
runs as fast as the untimed one; a Python loop with ``time.perf_counter_ns`` around a per-deal
kernel call measured 0-10% slower (benchmarks/RESULTS.md, "Batch scoring"). Minimum-move solving
(``optimal``) is a Python call per deal anyway and is timed with ``time.perf_counter`` around it.

Times are search times only: the first time a thread needs a workspace (``workspace_for``,
``optimal_workspace``) it runs a throw-away search with it, which loads (or compiles) every
kernel the timed searches call and touches the fresh memory, before any deal is timed. This
holds in pool processes and in each thread of a Dask worker alike.

Challenges (``--challenge``, ``solver.batch.challenge``): one ``score_challenge`` or
``card_challenge`` call per deal, timed with ``time.perf_counter_ns`` around it, in the
thread's reused search arrays (``challenge_workspace``), after a warm-up per thread as for the
other searches.

Memory. A deal whose minimum-move search or challenge runs out of memory (``MemoryError``, numpy's
``_ArrayMemoryError`` included) is ``unknown``; its workspace is dropped and the next deal starts
with a fresh, small one, so a chunk always finishes and a resumed run never fails again on it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from solver.batch.analysis import DEFAULT_PLAYOUTS, AnalysisColumns, analyse_chunk
from solver.batch.challenge import CHALLENGE_OUTCOMES, NO_FLAG, NO_VALUE, Challenge, \
    ChallengeColumns, ask_challenge
from solver.batch.summary import NO_MOVES, REASON_NAMES
from solver.pyramid.winnable.chunk import IN_KERNEL_CLOCK, decide_deal_chunk, decide_timed
from solver.pyramid.model.deals import deal_from_seed, deals_from_seeds
from solver.pyramid.model.rules import Rules
from solver.pyramid.winnable.solve import Workspace, winnable_many
from solver.pyramid.model.outcome import REASON_MEMORY, REASON_STATES, Outcome
from solver.pyramid.model.sources import parse_lines

WARM_UP_SEED = 0
"""The deal of the throw-away searches: under the standard rules its minimum-move search runs
winnability, A* and the path trace in a few milliseconds, so every kernel is loaded."""
WARM_UP_STATES = 1000
"""State cap of the winnability warm-up search."""


@dataclass(frozen=True)
class ChunkTask:
    """One chunk of a batch: ``seeds`` (first, stop) or ``lines`` [(line number, text)];
    ``analyse``: add the analysis columns, with ``playouts`` playouts per won deal;
    ``challenge``: answer that challenge instead of the winnability."""

    index: int
    rules: Rules
    optimal: bool = False
    max_states: int = 0
    timeout: float | None = None
    seeds: tuple[int, int] | None = None
    lines: tuple = ()
    analyse: bool = False
    playouts: int = DEFAULT_PLAYOUTS
    challenge: Challenge | None = None


@dataclass
class ChunkResult:
    """Per-deal columns of one chunk, in input order.

    ids: the seed, or the line number in the deal file; deals: (n, 52) int8 card ids;
    outcome: ``Outcome`` values; moves: minimum moves or ``NO_MOVES``; states: positions
    expanded; ns: wall time of the deal's search in nanoseconds; reason: codes of
    ``REASON_NAMES``, the limit that left a deal unknown (0 for a decided deal); analysis: the
    analysis columns (``--analyse``), else None; challenge: a challenge's own columns
    (``--challenge``: then ``outcome`` holds ``CHALLENGE_OUTCOMES`` codes and ``moves`` the
    fewest moves of the best line), else None.
    """

    index: int
    ids: np.ndarray
    deals: np.ndarray
    outcome: np.ndarray
    moves: np.ndarray
    states: np.ndarray
    ns: np.ndarray
    reason: np.ndarray
    analysis: AnalysisColumns | None = None
    challenge: ChallengeColumns | None = None

    def __len__(self) -> int:
        return len(self.ids)


_local = threading.local()


def _thread_cache() -> dict:
    cache = getattr(_local, "workspaces", None)
    if cache is None:
        cache = _local.workspaces = {}
    return cache


def _per_thread(key, make):
    cache = _thread_cache()
    if key not in cache:
        cache[key] = make()
    return cache[key]


def workspace_for(rules: Rules) -> Workspace:
    """This thread's search workspace for ``rules``, created once and reused for every chunk.

    Per thread, not per process: Dask runs several tasks in threads of one worker process, and a
    workspace must never be shared by two searches at once.
    """
    def make() -> Workspace:
        ws = Workspace.create(rules)
        for a in (ws.table, ws.touched, ws.moves, ws.counts):
            a.fill(0)  # fault every page in now (np.zeros maps them lazily); searches leave zeros
        _warm_up(rules, ws)
        return ws

    return _per_thread(rules, make)


OPTIMAL_KEY = "optimal"
PARTIAL_KEY = "partial"
CHALLENGE_KEY = "challenge"
WARM_UP_CHALLENGE_STATES = 20_000
"""State cap of the challenge warm-up (a few milliseconds)."""


def optimal_workspace(rules: Rules):
    """This thread's minimum-move search arrays (``solver.pyramid.optimal.api.OptimalWorkspace``),
    warmed up with a throw-away search under ``rules`` when created."""
    from solver.pyramid.optimal.api import OptimalWorkspace, solve_optimal

    def make():
        ws = OptimalWorkspace.create()
        solve_optimal(deal_from_seed(WARM_UP_SEED), rules, workspace=ws)
        return ws

    return _per_thread(OPTIMAL_KEY, make)


def partial_workspace(rules: Rules):
    """This thread's best-partial search arrays (``solver.pyramid.challenge.search.Workspace``)
    for ``rules`` (that module's own reused workspace is one per process, which two threads of
    a Dask worker must not share)."""
    from solver.pyramid.challenge.search import Workspace

    return _per_thread((PARTIAL_KEY, rules), lambda: Workspace.create(rules))


def _drop_optimal_workspace() -> None:
    """Forget this thread's minimum-move arrays (after they ran out of memory)."""
    _thread_cache().pop(OPTIMAL_KEY, None)


def _warm_up(rules: Rules, ws: Workspace) -> None:
    """Throw-away searches, so the first deal a worker times does not also pay for loading the
    kernels or the first touch of fresh memory."""
    _chunk_winnability(deals_from_seeds([WARM_UP_SEED]), rules, WARM_UP_STATES, ws)


class Scored(NamedTuple):
    """A chunk's per-deal search columns (those of ``ChunkResult`` between ``deals`` and
    ``analysis``)."""

    outcome: np.ndarray
    moves: np.ndarray
    states: np.ndarray
    ns: np.ndarray
    reason: np.ndarray


def _chunk_winnability(deals: np.ndarray, rules: Rules, max_states: int,
                       ws: Workspace) -> Scored:
    """The winnability of a chunk's ``deals``: one ``decide_deal_chunk`` call under unlimited
    recycles, one ``decide_timed`` call otherwise; no moves, and the reason of an unknown deal
    is always the positions cap (the kernels stop early only there)."""
    n = len(deals)
    outcome = np.zeros(n, dtype=np.int8)
    states = np.zeros(n, dtype=np.int64)
    ns = np.zeros(n, dtype=np.int64)
    if rules.recycles is None and IN_KERNEL_CLOCK:
        decide_deal_chunk(deals, rules.args, max_states, ws.args(), outcome, states, ns)
    else:
        _winnability(deals, rules, max_states, ws, outcome, states, ns)
    reason = np.where(outcome == Outcome.UNKNOWN, REASON_NAMES.index(REASON_STATES),
                      0).astype(np.int8)
    return Scored(outcome, np.full(n, NO_MOVES, dtype=np.int16), states, ns, reason)


def _winnability(deals: np.ndarray, rules: Rules, max_states: int, ws: Workspace,
                 outcome: np.ndarray, states: np.ndarray, ns: np.ndarray) -> None:
    """Fill ``outcome``, ``states`` and ``ns`` of ``deals`` with the timed kernel (per-deal
    calls timed in Python where the kernel cannot read the clock)."""
    n = len(deals)
    if IN_KERNEL_CLOCK:
        decide_timed(deals, rules.args, max_states, ws.args(), outcome, states, ns)
    else:  # pragma: no cover - other platforms time in Python around a per-deal call
        for k in range(n):
            t0 = time.perf_counter_ns()
            one_outcome, one_states = winnable_many(deals[k:k + 1], rules, max_states, ws)
            ns[k] = time.perf_counter_ns() - t0
            outcome[k], states[k] = one_outcome[0], one_states[0]


def _each_deal(deals: np.ndarray, solve, workspace, drop) -> tuple[Scored, list]:
    """Each deal's answer ``solve(deal, ws)``, timed (``ws = workspace()`` is fetched before the
    clock starts: a new one is warmed up first): the ``Scored`` columns with ``ns`` filled, every
    deal unknown and no moves (the callers fill in the answers), and the answers. A deal whose
    search runs out of memory (its arrays did not fit) stays unknown, reason ``memory``, its
    answer None; ``drop()`` forgets the workspace, and the next deal starts with a fresh one."""
    n = len(deals)
    scored = Scored(np.full(n, int(Outcome.UNKNOWN), dtype=np.int8),
                    np.full(n, NO_MOVES, dtype=np.int16), np.zeros(n, dtype=np.int64),
                    np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int8))
    answers = []
    for k in range(n):
        ws = workspace()
        t0 = time.perf_counter_ns()
        try:
            answers.append(solve(deals[k], ws))
        except MemoryError:
            ws = None  # (its arrays go before the next deal's are made)
            drop()
            answers.append(None)
            scored.reason[k] = REASON_NAMES.index(REASON_MEMORY)
        scored.ns[k] = time.perf_counter_ns() - t0
    return scored, answers


def _optimal(deals: np.ndarray, rules: Rules, max_states: int,
             timeout: float | None) -> Scored:
    from solver.pyramid.optimal.api import solve_optimal

    scored, answers = _each_deal(
        deals, lambda deal, ws: solve_optimal(deal, rules, max_states=max_states,
                                              timeout=timeout, workspace=ws),
        lambda: optimal_workspace(rules), _drop_optimal_workspace)
    for k, r in enumerate(answers):
        if r is None:
            continue
        scored.outcome[k] = int(r.outcome)
        scored.states[k] = r.states
        if r.outcome == Outcome.WON:
            scored.moves[k] = r.moves
        elif r.outcome == Outcome.UNKNOWN:
            scored.reason[k] = REASON_NAMES.index(r.reason)
    return scored


def challenge_workspace(rules: Rules, challenge: Challenge):
    """This thread's challenge search arrays (``solver.pyramid.challenge.search.Workspace``) for
    ``rules``, reused from deal to deal: a search's positions do not depend on the sizes earlier
    deals grew its tables to, so a row's ``states``, and its outcome under ``--max-states``, are
    the deal's alone. The first time a thread asks, every objective-search kernel is loaded and
    a throw-away challenge of ``WARM_UP_SEED`` (capped at ``WARM_UP_CHALLENGE_STATES``) is run
    in them first."""
    from solver.pyramid.challenge.search import Workspace, load_kernels

    def warm_up() -> Workspace:
        load_kernels()
        ws = Workspace.create(rules)
        ask_challenge(challenge, deal_from_seed(WARM_UP_SEED), rules,
                      max_states=WARM_UP_CHALLENGE_STATES, workspace=ws)
        return ws

    return _per_thread((CHALLENGE_KEY, rules), warm_up)


def _drop_challenge_workspace(rules: Rules) -> None:
    """Forget this thread's challenge arrays for ``rules`` (after they ran out of memory): the
    next deal warms up new ones."""
    _thread_cache().pop((CHALLENGE_KEY, rules), None)


def _challenge(deals: np.ndarray, rules: Rules, challenge: Challenge, max_states: int,
               timeout: float | None) -> tuple[Scored, ChallengeColumns]:
    """Each deal's challenge (``ask_challenge``): the search columns (``outcome`` in
    ``CHALLENGE_OUTCOMES`` codes, ``moves`` those of the best line) and the challenge's own."""
    scored, answers = _each_deal(
        deals, lambda deal, ws: ask_challenge(challenge, deal, rules, max_states=max_states,
                                              timeout=timeout, workspace=ws),
        lambda: challenge_workspace(rules, challenge), lambda: _drop_challenge_workspace(rules))
    value = np.full(len(deals), NO_VALUE, dtype=np.int16)
    clears = np.full(len(deals), NO_FLAG, dtype=np.int8)
    for k, r in enumerate(answers):
        if r is None:
            continue
        scored.outcome[k] = CHALLENGE_OUTCOMES.index(r.outcome)
        scored.states[k] = r.states
        if r.reason is not None:
            scored.reason[k] = REASON_NAMES.index(r.reason)
            continue
        value[k] = r.best.value
        scored.moves[k] = r.best.moves
        clears[k] = int(r.best.clears_pyramid)
    return scored, ChallengeColumns(challenge.kind, value, clears)


def solve_chunk(task: ChunkTask) -> ChunkResult:
    """Score every deal of ``task``. Raises ``DealError`` naming the line of a malformed deal."""
    if task.seeds is not None:
        first, stop = task.seeds
        ids = np.arange(first, stop, dtype=np.int64)
        deals = deals_from_seeds(ids)  # one kernel call for the chunk
    else:
        ids, deals = parse_lines(task.lines)
    challenge = None
    if task.challenge is not None:
        scored, challenge = _challenge(deals, task.rules, task.challenge, task.max_states,
                                       task.timeout)
    elif task.optimal:
        scored = _optimal(deals, task.rules, task.max_states, task.timeout)
    else:
        scored = _chunk_winnability(deals, task.rules, task.max_states,
                                    workspace_for(task.rules))
    analysis = None
    if task.analyse:
        analysis = analyse_chunk(ids, deals, scored.outcome, task.rules, task.playouts,
                                 task.max_states, task.timeout, partial_workspace(task.rules))
    return ChunkResult(task.index, ids, deals.astype(np.int8, copy=False), scored.outcome,
                       scored.moves, scored.states, scored.ns, scored.reason, analysis,
                       challenge)

