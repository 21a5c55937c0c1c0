"""The best partial result of a deal: ``best_partial(deal, rules)``.

The most counted cards a line of play can remove (the pyramid cards under goal "pyramid", 0..28;
all cards under goal "all", 0..52), counted from the deal's start (so moves made before a given
``start`` count too), and a line from the start that reaches that count in the fewest moves
(every step counts one: draws and recycles too). A won deal's answer is the whole count and a
shortest win (``solver.pyramid.optimal.api.solve_optimal``).

Three exact steps, searches of the count as an ``Objective`` (``counted_objective``) of
``solver.pyramid.challenge``, whose searches, kernels and workspace these are:

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
   reaching the count (``run_fewest``) does it instead.

Under ``max_states`` or ``timeout`` the answer is a proven lower bound (the best count found, with
its line) and a proven upper bound; ``exact`` is False and ``reason`` names the limit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from solver.pyramid.challenge.bounds import upper_bound, value
from solver.pyramid.challenge.objective import counted_objective
from solver.pyramid.challenge.search import (MANY, MAX_ENDS, Budget, Workspace, check_limits,
                                             check_start, max_steps, run_fewest, run_max,
                                             workspace_for)
from solver.pyramid.challenge.search import load_kernels as load_objective_kernels
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.layout import DECK_CARDS, PYRAMID_CARDS
from solver.pyramid.model.outcome import REASON_STATES, REASONS, Outcome
from solver.pyramid.model.replay import format_step
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.state import FREE_TAG, PYR_MASK, STOCK_MASK
from solver.pyramid.optimal.api import load_kernels as load_optimal_kernels
from solver.pyramid.optimal.api import lower_bound, solve_optimal

UNREACHED = "unreached"
"""Not a limit: no end position of the free-stock lines can be reached by real lines."""


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


def _end_positions(ws: Workspace, deal, rules: Rules, objective, begin, target: int,
                   budget: Budget):
    """The counted cards left in play (packed pyramid bits, and stock bits under goal "all") at
    the end of the free-stock lines reaching ``target``, at most ``MAX_ENDS`` of them: ``(ends,
    reason)``; ends None when there are more or a limit stopped the search. With limited
    recycles some of them may be out of reach (the free-stock positions can do more): the
    minimum-move solver then finds them lost."""
    found = run_max(ws, deal, rules, objective, True, begin, DECK_CARDS + 1, budget,
                    collect=MAX_ENDS, floor=target - 1)
    if found.reason is not None:
        return None, found.reason
    return [int(k) & ~int(FREE_TAG) for k in ws.found if k], None


def _fewest_by_clearing(deal: Deal, rules: Rules, ends, begin, budget: Budget):
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


def _fewest_line(ws: Workspace, deal, rules: Rules, objective, begin, target: int,
                 budget: Budget):
    """Step 3 by ``run_fewest`` (``target`` is the largest count): ``(steps, reason)``; steps
    None when a limit stopped it."""
    few = run_fewest(ws, deal, rules, objective, begin, target, budget, True)
    if few.steps is None and few.reason is None:
        raise RuntimeError("fewest-moves search: the largest count was not reached (a bug)")
    return few.steps, few.reason


def load_kernels() -> None:
    """Load every kernel ``best_partial`` calls (compiling them when numba's cache is cold) by
    calling each once on a tiny input, so that the time a search reports is its own."""
    load_optimal_kernels()
    load_objective_kernels()


def best_partial(deal, rules: Rules = Rules(), start: int | None = None, max_states: int = 0,
                 timeout: float | None = None, workspace: Workspace | None = None) -> PartialResult:
    """The best partial result of ``deal`` under ``rules`` from its start or from the packed
    position ``start`` (``solver.pyramid.model.state.pack_position``); see the module docstring.

    ``max_states`` caps the positions expanded (0 = no cap), ``timeout`` the seconds.
    """
    deal = Deal.of(deal)
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a solver.pyramid.model.rules.Rules, not {type(rules).__name__}")
    check_limits(max_states, timeout)
    begin = check_start(start, rules)
    ws = workspace or workspace_for(rules)
    budget = Budget(int(max_states), timeout)
    objective = counted_objective(rules.goal == "all")
    goal_all = rules.goal == "all"
    most = DECK_CARDS if goal_all else PYRAMID_CARDS
    upper = int(upper_bound(begin, deal.tables, rules.args, objective.args))

    def result(best, line, exact, reason, proven=None):
        return PartialResult("all" if goal_all else "pyramid", most, best,
                             best if exact else (upper if proven is None else proven),
                             tuple(line), exact, budget.spent,
                             time.perf_counter() - budget.t0, reason)

    start_count = int(value(begin, deal.tables, objective.args))

    def shortest(target):
        """``(steps, status)``: a shortest line to ``target`` by the minimum-move solver, or
        None with ``MANY`` (not tried), ``UNREACHED`` or the limit that stopped it."""
        ends, why = ([0], None) if target == most else _end_positions(ws, deal, rules, objective,
                                                                       begin, target, budget)
        if why is None and goal_all and any(e & int(STOCK_MASK) for e in ends):
            why = MANY
        if why is not None:
            return None, why
        return _fewest_by_clearing(deal, rules, ends, begin, budget)

    # 2. the largest count: free-stock positions first (exact with unlimited recycles; with
    # limited recycles an upper bound, and most often the answer)
    free = run_max(ws, deal, rules, objective, True, begin, upper, budget)
    best = free.best
    if rules.recycles is None:
        if free.reason is not None:
            return result(best, max_steps(deal, free, True, begin), False, free.reason)
        if best == start_count:
            return result(best, [], True, None)
        steps, why = shortest(best)
        if why == UNREACHED:
            raise RuntimeError("best partial result: the largest count cannot be reached (a bug)")
        if why == MANY:
            steps, why = _fewest_line(ws, deal, rules, objective, begin, best, budget)
        if steps is None:
            return result(best, max_steps(deal, free, True, begin), False, why, best)
        return result(best, steps, True, None)
    if free.reason is not None:
        return result(start_count, [], False, free.reason)
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
    real = run_max(ws, deal, rules, objective, False, begin, upper, budget)
    best = real.best
    line = max_steps(deal, real, False, begin)
    if not real.moves:
        best = start_count
    if real.reason is not None:
        return result(best, line, False, real.reason)
    if best == start_count:
        return result(best, [], True, None)
    steps, why = (None, MANY) if best == upper and why == MANY else shortest(best)
    if why == MANY:
        steps, why = _fewest_line(ws, deal, rules, objective, begin, best, budget)
    if why == UNREACHED:
        raise RuntimeError("best partial result: a count reached by a real line was not (a bug)")
    if steps is None:
        return result(best, line, False, why, best)
    return result(best, steps, True, None)
