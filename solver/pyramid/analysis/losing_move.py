"""Where a game went wrong: ``first_losing_move(deal, rules, steps)``.

A line of play can only lose the deal, never win it back: a position is winnable when one of its
moves leads to a winnable position, so the position before a move is winnable whenever the one
after it is. Along a legal move list the winnability of the prefixes is therefore a run of
"winnable" followed by a run of "lost", and the first losing move is found by a binary search over
the prefixes, each decided exactly by the winnability search (``solver.pyramid.winnable.solve``, one
reused workspace). At the position before that move, a shortest win (``solver.pyramid.optimal``)
names the move that would have kept the deal winnable: its first step, which is therefore the
legal move with the shortest remaining win of all (ties go to whichever the minimum-move search
finds first).

Limits: ``max_states`` caps the positions expanded by all the searches together, ``timeout`` the
seconds (checked between searches and passed on to the minimum-move search; a single
winnability search is bounded by ``max_states`` only). A limit reached while deciding
winnability gives ``STATUS_UNKNOWN``, never a guess; one reached only by the minimum-move search
keeps the exact verdict and gives the winnability search's winning line instead, with
``optimal`` False.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from solver.core.validate import check_int
from solver.pyramid.optimal.api import OptimalWorkspace, solve_optimal
from solver.pyramid.model.replay import Position, format_step, replay_from
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.state import packed_position
from solver.pyramid.winnable.solve import solve_winnable
from solver.pyramid.model.outcome import (STATUS_LOST_AT, STATUS_NEVER, STATUS_STILL,
                                          STATUS_UNKNOWN, STATUS_WON, Outcome)

STATUSES = (STATUS_WON, STATUS_NEVER, STATUS_LOST_AT, STATUS_STILL, STATUS_UNKNOWN)
WITH_WIN = (STATUS_LOST_AT, STATUS_STILL)
"""The statuses that come with a win from some position (``win_from_there``)."""


@dataclass(frozen=True)
class LosingMove:
    """Where a line of play lost the deal (``first_losing_move``).

    ``move`` (1-based), ``played`` (its step) and ``instead`` (a legal move at the position
    before it whose result is still winnable) are set for ``STATUS_LOST_AT`` only.
    ``win_from_there`` is a win from the position before ``move`` starting with ``instead``
    (``STATUS_LOST_AT``) or from the end of the line (``STATUS_STILL``), empty otherwise;
    ``optimal`` says it is proven shortest. ``states`` and ``seconds`` count all the searches.
    """

    status: str
    move: int | None = None
    played: tuple | None = None
    instead: tuple | None = None
    win_from_there: tuple = ()
    optimal: bool = False
    states: int = 0
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}, not {self.status!r}")
        if (self.status == STATUS_LOST_AT) != (self.move is not None):
            raise ValueError("move is given exactly for the status lost_at")
        if (self.status in WITH_WIN) != bool(self.win_from_there):
            raise ValueError("a win from there is given exactly for lost_at and still_winnable")

    def to_dict(self) -> dict:
        """Plain data (docs/json.md): steps as text, ``moves_to_win`` the length of the win
        (None when there is none)."""
        return {
            "status": self.status,
            "move": self.move,
            "played": None if self.played is None else format_step(self.played),
            "instead": None if self.instead is None else format_step(self.instead),
            "win_from_there": [format_step(s) for s in self.win_from_there],
            "moves_to_win": len(self.win_from_there) if self.status in WITH_WIN else None,
            "optimal": self.optimal,
        }


def after(pos: Position, step: tuple) -> Position:
    """A copy of ``pos`` with ``step`` played (``IllegalMove`` when it is not legal)."""
    nxt = pos.copy()
    nxt.apply(step)
    return nxt


class WinnabilityProbe:
    """Exact winnability of replay positions, one reused workspace, a shared budget.

    ``max_states`` (0 = none) caps the positions expanded by all the probe's searches together
    and ``deadline`` (a ``time.perf_counter`` value or None) is checked before each search; a
    search a limit stops answers None. Answers are remembered by packed position.
    """

    def __init__(self, deal, rules: Rules, max_states: int = 0, deadline: float | None = None,
                 workspace: OptimalWorkspace | None = None) -> None:
        self.deal, self.rules = deal, rules
        self.max_states, self.deadline = max_states, deadline
        self.workspace = workspace or OptimalWorkspace.create()
        self.states = 0
        self.known: dict[int, bool] = {}

    def budget(self) -> int | None:
        """Positions the next search may expand (0 = no cap), None when a limit is reached."""
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            return None
        if not self.max_states:
            return 0
        left = self.max_states - self.states
        return left if left > 0 else None

    def winnable(self, pos: Position) -> bool | None:
        """True when ``pos`` can still be won, False when not, None when a limit stopped it."""
        if pos.is_won():
            return True
        key = packed_position(pos)
        if key in self.known:
            return self.known[key]
        cap = self.budget()
        if cap is None:
            return None
        result = solve_winnable(self.deal, self.rules, max_states=cap, start=key,
                                workspace=self.workspace.winnability(self.rules))
        self.states += result.states
        if result.winnable is not None:
            self.known[key] = result.winnable
        return result.winnable

    def shortest_win(self, pos: Position) -> tuple[tuple, bool] | None:
        """A win from the winnable ``pos``: ``(steps, proven shortest)``; the shortest when the
        minimum-move search finishes within the limits, else the winnability search's line;
        None when a limit stopped even that."""
        cap = self.budget()
        if cap is not None:
            timeout = None if self.deadline is None else self.deadline - time.perf_counter()
            if timeout is None or timeout > 0:
                result = solve_optimal(self.deal, self.rules, start=packed_position(pos),
                                       max_states=cap, timeout=timeout, workspace=self.workspace)
                self.states += result.states
                if result.outcome == Outcome.WON:
                    return tuple(result.solution), True
                if result.outcome == Outcome.LOST:
                    raise RuntimeError("a position proven winnable has no win (a bug)")
        result = solve_winnable(self.deal, self.rules, start=packed_position(pos),
                                max_states=self.max_states and max(1, self.max_states - self.states),
                                workspace=self.workspace.winnability(self.rules))
        self.states += result.states
        return (tuple(result.solution), False) if result.outcome == Outcome.WON else None


def check_line(deal, rules: Rules, steps, start: Position | None) -> list[Position]:
    """The positions along ``steps`` from ``start`` (the deal's start by default): ``len(steps)
    + 1`` of them. ``ValueError`` naming the first illegal step."""
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a solver.pyramid.model.rules.Rules, not {type(rules).__name__}")
    if start is None:
        start = Position(deal, rules)
    elif not isinstance(start, Position) or start.rules != rules:
        raise ValueError("start must be a solver.pyramid.model.replay.Position under the same rules")
    steps = list(steps)
    result = replay_from(start, steps)
    if not result.ok:
        raise ValueError(f"step {result.failed_step} ({steps[result.failed_step - 1]!r}) is "
                         f"illegal: {result.reason}")
    line = [start.copy()]
    for step in steps:
        line.append(after(line[-1], step))
    return line


def check_limits(max_states: int, timeout: float | None) -> float | None:
    """Validate the limits; the deadline (``time.perf_counter``) for ``timeout``."""
    check_int(max_states, f"max_states must be an integer >= 0 (0 = no limit), not {max_states!r}",
              0)
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    return None if timeout is None else time.perf_counter() + timeout


def same_step(pos: Position, step: tuple) -> tuple:
    """``step`` as ``pos.legal_steps()`` names it (a pair's cards in its order)."""
    for legal in pos.legal_steps():
        if legal[0] == step[0] and set(legal[1:]) == set(step[1:]):
            return legal
    raise RuntimeError(f"{step!r} is not a legal step here (a bug)")


def first_losing_move(deal, rules: Rules, steps, start: Position | None = None,
                      max_states: int = 0, timeout: float | None = None,
                      workspace: OptimalWorkspace | None = None) -> LosingMove:
    """Where the legal move list ``steps`` (from ``start``, a ``solver.pyramid.model.replay.Position``,
    or the deal's start) lost the deal, and a move that would have kept it winnable there.

    ``steps`` must be legal (``ValueError`` naming the first illegal one). ``workspace`` lets a
    caller load the kernels beforehand and reuse the arrays.
    """
    deadline = check_limits(max_states, timeout)
    steps = list(steps)
    line = check_line(deal, rules, steps, start)
    steps = [(step[0], *(int(c) for c in step[1:])) for step in steps]
    t0 = time.perf_counter()
    if line[-1].is_won():
        return LosingMove(STATUS_WON, seconds=time.perf_counter() - t0)
    try:
        probe = WinnabilityProbe(deal, rules, max_states, deadline, workspace)
        return _locate(probe, line, steps, t0)
    except MemoryError:
        return LosingMove(STATUS_UNKNOWN, seconds=time.perf_counter() - t0)


def _locate(probe: WinnabilityProbe, line: list[Position], steps: list, t0: float) -> LosingMove:
    """``first_losing_move`` on a checked line that does not win."""
    def done(status, **fields):
        return LosingMove(status, **fields, states=probe.states, seconds=time.perf_counter() - t0)

    def win_from(k: int, move: int | None = None) -> LosingMove:
        found = probe.shortest_win(line[k])
        if found is None:
            return done(STATUS_UNKNOWN)
        win, optimal = found
        if move is None:
            return done(STATUS_STILL, win_from_there=win, optimal=optimal)
        return done(STATUS_LOST_AT, move=move, played=steps[k], instead=same_step(line[k], win[0]),
                    win_from_there=win, optimal=optimal)

    first, last = probe.winnable(line[0]), probe.winnable(line[-1])
    if first is None or last is None:
        return done(STATUS_UNKNOWN)
    if not first:
        return done(STATUS_NEVER)
    if last:
        return win_from(len(line) - 1)
    lo, hi = 0, len(line) - 1          # line[lo] winnable, line[hi] lost
    while hi - lo > 1:
        mid = (lo + hi) // 2
        verdict = probe.winnable(line[mid])
        if verdict is None:
            return done(STATUS_UNKNOWN)
        lo, hi = (mid, hi) if verdict else (lo, mid)
    return win_from(lo, move=hi)
