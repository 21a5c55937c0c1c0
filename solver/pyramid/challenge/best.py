"""The best line for an objective: ``solve_objective``, the one search both challenges ask.

Given an ``Objective`` (a value of the cards gone) and a start position, it answers, exactly:
with a target, a line reaching at least that value in the fewest moves when one exists; without
one, or when no line reaches it, the largest value any line reaches and a line reaching it in
the fewest moves. The steps:

1. an upper bound (``upper_bound``: the cards not provably stuck, the rows whose cards can all
   find partners); when it is the most there is, every card weighs and the free-stock search
   does not settle it within ``EARLY`` positions, whether any line removes every card
   (``deck_clearable``): when none does, the most less the objective's ``grain``;
2. the largest value over the free-stock positions (``max_search``, free): with unlimited
   recycles it is the answer, with limited recycles an upper bound and most often the answer;
3. with a target no larger than that: the fewest moves to it (``fewest_search``); the search
   either finds the shortest line or proves that no line reaches the target. When only a line
   removing every card reaches the target, the minimum-move search under goal "all" is asked
   first (``whole_deck``): its shortest line is the answer when the rules let it play to its
   end (under goal "pyramid", when its last move clears the pyramid);
4. the largest value: the fewest moves to the free-stock value first (with limited recycles
   this proves it out of reach when it is); when out of reach, a branch and bound over the
   real positions (``max_search``, real) below it, then the fewest moves to what it found.

Under ``max_states`` or ``timeout`` the answer is a proven range: a lower bound reached by the
line given and an upper bound, with the limit that stopped it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from solver.pyramid.challenge.bounds import upper_bound, value
from solver.pyramid.challenge.objective import Objective
from solver.pyramid.challenge.search import (Budget, FewestFound, Workspace, max_steps,
                                             run_fewest, run_max)
from solver.pyramid.model.layout import PYRAMID_CARDS
from solver.pyramid.model.outcome import REASON_STATES, Outcome
from solver.pyramid.model.rules import Rules
from solver.pyramid.optimal.api import solve_optimal
from solver.pyramid.winnable.solve import solve_winnable


@dataclass(frozen=True)
class ObjectiveResult:
    """What ``solve_objective`` found.

    value: the value at the end of ``line`` (from the deal's start, in the objective's units);
    upper: a proven upper bound on the largest value (the largest value itself when ``exact``
    and the target, if any, was out of reach); line: replay steps from the start given;
    reached: with a target, whether ``line`` reaches it (None without one, or when a limit
    left it open); exact: the answer is proven (``reason`` None) or a limit stopped a search
    (``reason`` names it).
    """

    value: int
    upper: int
    line: tuple
    reached: bool | None
    exact: bool
    reason: str | None


def _result(value_, upper, line, reached, reason=None) -> ObjectiveResult:
    return ObjectiveResult(value_, upper, tuple(line), reached, reason is None, reason)


EARLY = 20_000
"""Positions the free-stock search may take to settle a bound of the most there is before
``deck_clearable`` is asked whether any line removes every card (most deals settle it in far
fewer, and then the question costs nothing)."""


def solve_objective(deal, rules: Rules, objective: Objective, begin, target: int | None,
                    budget: Budget, ws: Workspace) -> ObjectiveResult:
    """The best line for ``objective`` from the packed position ``begin`` (see the module
    docstring); ``target``: the value to reach, or None for the largest."""
    tabs, rule, obj = deal.tables, rules.args, objective.args
    start_value = int(value(begin, tabs, obj))
    upper = int(upper_bound(begin, tabs, rule, obj))
    if target is not None and start_value >= target:
        return _result(start_value, upper, [], True)
    free = None
    early = budget.capped(EARLY)
    if upper >= objective.most and objective.weighs_every_card and early is not None:
        free = run_max(ws, deal, rules, objective, True, begin, upper, early)
        budget.spent += early.spent
        if free.reason == REASON_STATES:  # not settled at once: can the most be had at all?
            every = deck_clearable(deal, rules, begin, budget)
            if every is None:
                return _result(start_value, upper, [], None, REASON_STATES)
            if not every:
                upper = objective.most - objective.grain
            free = None
    if free is None:
        free = run_max(ws, deal, rules, objective, True, begin, upper, budget)
    if free.reason is not None:
        return _result(start_value, upper, [], None, free.reason)
    upper = free.best
    if target is not None and target <= upper:
        few = fewest(ws, deal, rules, objective, begin, target, budget, target >= upper)
        if few.steps is not None:
            return _result(int(value(few.end, tabs, obj)), upper, few.steps, True)
        if few.reason is not None:
            return _result(start_value, upper, [], None, few.reason)
        upper = target - 1
    reached = None if target is None else False
    if upper <= start_value:
        return _result(start_value, start_value, [], reached)
    if upper == free.best:
        few = fewest(ws, deal, rules, objective, begin, upper, budget, True)
        if few.steps is not None:
            return _result(upper, upper, few.steps, reached)
        if few.reason is not None:
            return _result(start_value, upper, [], None, few.reason)
        if rules.recycles is None:
            raise RuntimeError("a free-stock value out of reach under unlimited recycles (a bug)")
        upper -= 1
    real = run_max(ws, deal, rules, objective, False, begin, upper, budget)
    if real.reason is not None:
        return _result(real.best, upper, max_steps(deal, real, False, begin), None, real.reason)
    if real.best <= start_value:
        return _result(start_value, start_value, [], reached)
    few = fewest(ws, deal, rules, objective, begin, real.best, budget, True)
    if few.reason is not None:
        return _result(real.best, real.best, max_steps(deal, real, False, begin), None,
                       few.reason)
    if few.steps is None:
        raise RuntimeError("a value a real line reached is out of reach (a bug)")
    return _result(real.best, real.best, few.steps, reached)


def fewest(ws: Workspace, deal, rules: Rules, objective: Objective, begin, target: int,
           budget: Budget, at_most: bool) -> FewestFound:
    """The fewest moves to ``target`` (``run_fewest``), or, when only a line removing every
    card reaches it (every card weighs, and the target is the most there is), the minimum-move
    search under goal "all" first (``whole_deck``)."""
    if target >= objective.most and objective.weighs_every_card:
        whole = whole_deck(deal, rules, begin, budget)
        if whole is not None:
            return whole
    return run_fewest(ws, deal, rules, objective, begin, target, budget, at_most)


def deck_clearable(deal, rules: Rules, begin, budget: Budget) -> bool | None:
    """Whether some line from ``begin`` removes every card (the winnability search under goal
    "all": under goal "pyramid" such a line ends as the pyramid's last card goes, so it is a
    line of these rules too); None when a limit left it open. When none does, no line reaches
    the objective's ``most``, and, every value of a line being a multiple of its ``grain``, none
    reaches more than ``most - grain``: the free-stock search, which cannot see that the stock
    must be gone before the pyramid's last card, need not look for it."""
    cap = budget.left()
    if cap < 0:
        return None
    won = solve_winnable(deal, rules.with_options(goal="all"), start=int(begin), max_states=cap)
    budget.spent += won.states
    return None if won.outcome == Outcome.UNKNOWN else won.outcome == Outcome.WON


def whole_deck(deal, rules: Rules, begin, budget: Budget) -> FewestFound | None:
    """A shortest line removing every card, when the minimum-move search under goal "all" gives
    one that these rules let play to its end: under goal "all" always, under goal "pyramid" when
    its last move takes the pyramid's last card (the deal ends when the pyramid is clear, so every
    line removing every card ends so, and the search's shortest is then one of them). None when
    it gives another (the fewest-moves search must decide) or a limit stopped it; a line-less
    answer when no line removes every card."""
    cap = budget.left()
    if cap < 0:
        return None
    left = None if budget.deadline is None else max(1e-3, budget.deadline - time.perf_counter())
    won = solve_optimal(deal, rules.with_options(goal="all"), start=int(begin), max_states=cap,
                        timeout=left)
    budget.spent += won.states
    if won.outcome == Outcome.LOST:
        return FewestFound(None, None, None)
    if won.outcome != Outcome.WON:
        return None
    pyramid = {int(c) for c in deal[:PYRAMID_CARDS]}
    last = won.solution[-1] if won.solution else ()
    if rules.goal == "pyramid" and not pyramid & {int(c) for c in last[1:]}:
        return None
    return FewestFound(list(won.solution), np.uint64(0), None)
