"""The score and card challenges of Microsoft Solitaire Collection, exactly:
``score_challenge`` and ``card_challenge``.

* Score: the most points a line of play earns in this deal (the scoring of
  ``solver.pyramid.model.scoring``) and a line earning them in the fewest moves; with a target
  ``T`` and the points ``C`` already earned in earlier deals, the fewest-moves line earning
  ``T - C``, or, when no line does, the most and how far short it falls.
* Cards: a line removing ``N - K`` cards of one rank in the fewest moves (``N`` the challenge's
  count, ``K`` those already cleared in earlier deals); when no line does, the most cards of that
  rank any line removes, in the fewest moves, and, when the best line that clears the pyramid
  removes fewer than that (clearing the pyramid ends the deal), that line too: which is better
  depends on the next deal, so the player chooses.

Challenges are Microsoft's, so their rules default to the ``msc`` preset. Points and cards count
from the deal's start, so moves made before a given start position count too. Each answer is a
named, frozen result; under ``max_states`` or ``timeout`` the outcome is ``unknown`` with the
limit that stopped it (and the best line proven so far).
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.core.cards import RANK_CHARS
from solver.core.validate import check_int
from solver.pyramid.challenge.best import ObjectiveResult, solve_objective
from solver.pyramid.challenge.objective import Objective, rank_objective, score_objective
from solver.pyramid.challenge.search import (Budget, Workspace, check_limits, check_start,
                                             workspace_for)
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.outcome import REASON_STATES, REASONS, Outcome
from solver.pyramid.model.replay import format_step
from solver.pyramid.model.rules import PRESETS, Rules, find_rules
from solver.pyramid.model.scoring import SCORING
from solver.pyramid.model.layout import PYRAMID_CARDS
from solver.pyramid.model.state import PYR_MASK
from solver.pyramid.winnable.solve import solve_winnable

CHALLENGE_RULES = PRESETS["msc"]
"""The rules of a challenge unless others are given: Microsoft Solitaire Collection's."""
REACHED, BEST, UNKNOWN = "reached", "best", "unknown"
"""Outcomes: the target is reached (by the line given, in the fewest moves); the best any line
does (no target, or the target is out of reach); a limit stopped a search first."""
OUTCOMES = (REACHED, BEST, UNKNOWN)
DEFAULT_COUNT = 4
"""Cards of a rank a card challenge asks for unless told: all four of the deal."""
SUITS = 4


@dataclass(frozen=True)
class ChallengeLine:
    """A line of play and what it earns by its end: ``value`` (points, or cards of the rank)
    counted from the deal's start, its ``line`` of replay steps, and whether it clears the
    pyramid."""

    value: int
    line: tuple
    clears_pyramid: bool

    @property
    def moves(self) -> int:
        return len(self.line)

    def to_dict(self, key: str) -> dict:
        return {key: self.value, "moves": self.moves, "line": [format_step(s) for s in self.line],
                "clears_pyramid": self.clears_pyramid}


@dataclass(frozen=True)
class ChallengeResult:
    """What both challenges answer: the ``rules`` used; ``outcome``, ``reached``, ``best`` or
    ``unknown`` (``reason`` names the limit); ``best``, the line (reaching the target when
    ``reached``, else the most any line does, or under a limit the best line proven); ``most``,
    a proven upper bound on what any line earns (equal to ``best.value`` when the outcome is
    ``best``); ``states``, the positions the searches expanded, and ``seconds``, their time."""

    rules: Rules
    outcome: str
    best: ChallengeLine
    most: int
    states: int
    seconds: float
    reason: str | None

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}, not "
                             f"{self.outcome!r}")
        if (self.outcome == UNKNOWN) != (self.reason is not None) or (
                self.reason is not None and self.reason not in REASONS):
            raise ValueError(f"reason must be one of {', '.join(REASONS)} exactly when the "
                             f"outcome is unknown, not {self.reason!r}")
        if self.best.value > self.most or (self.outcome == BEST
                                           and self.best.value != self.most):
            raise ValueError(f"need value <= most (equal for the best), not {self.best.value} "
                             f"and {self.most}")

    def record(self, challenge: str, head: dict, key: str, tail: dict) -> dict:
        """The JSON record: the challenge, the rules and the outcome, ``head``, the line (its
        value under ``key``), ``tail``, then the counters."""
        d = {"challenge": challenge, "rules": self.rules.to_dict(), "outcome": self.outcome}
        d.update(head)
        d.update(self.best.to_dict(key))
        d.update(tail)
        d.update({"states": self.states, "seconds": round(self.seconds, 6),
                  "reason": self.reason})
        return d


@dataclass(frozen=True)
class ScoreChallenge(ChallengeResult):
    """A score challenge's answer (``ChallengeResult``, values in points from the deal's start):
    ``target`` and ``current``, the challenge's goal and the points earned before this deal
    (target None: the most points)."""

    target: int | None
    current: int

    @property
    def score(self) -> int:
        return self.best.value

    @property
    def needed(self) -> int | None:
        """The points this deal must earn: ``target - current``, 0 when the earlier deals met the
        target (None without a target)."""
        return None if self.target is None else max(0, self.target - self.current)

    @property
    def short(self) -> int | None:
        """How far the most points fall short of the target (None unless out of reach)."""
        if self.outcome != BEST or self.needed is None:
            return None
        return self.needed - self.score

    def to_dict(self) -> dict:
        return self.record("score", {"target": self.target, "current": self.current}, "score",
                           {"most": self.most, "short": self.short})


@dataclass(frozen=True)
class CardChallenge(ChallengeResult):
    """A card challenge's answer (``ChallengeResult``, values in cards of ``rank`` gone from the
    deal's start): ``rank`` 1..13; ``count`` and ``current``, the cards of that rank the
    challenge asks for and those cleared before this deal; ``clearing``: when the outcome is
    ``best`` and the best line that clears the pyramid removes fewer cards of the rank than
    ``best``, that line (else None)."""

    rank: int
    count: int
    current: int
    clearing: ChallengeLine | None

    @property
    def removed(self) -> int:
        return self.best.value

    @property
    def needed(self) -> int:
        """The cards of the rank this deal must remove: ``count - current``, 0 when the earlier
        deals removed enough."""
        return max(0, self.count - self.current)

    def to_dict(self) -> dict:
        return self.record("cards", {"rank": RANK_CHARS[self.rank - 1], "count": self.count,
                                     "current": self.current}, "removed",
                           {"most": self.most, "clearing": None if self.clearing is None
                            else self.clearing.to_dict("removed")})


def _rules(rules) -> Rules:
    if rules is None:
        return CHALLENGE_RULES
    if isinstance(rules, str):
        return find_rules(rules)
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a Rules or a preset name, not {type(rules).__name__}")
    return rules


class _Search:
    """One challenge's deal, rules, start, limits and workspace, checked once."""

    def __init__(self, deal, rules, start, max_states, timeout, workspace) -> None:
        self.deal = Deal.of(deal)
        self.rules = _rules(rules)
        check_limits(max_states, timeout)
        self.begin = check_start(start, self.rules)
        self.budget = Budget(int(max_states), timeout)
        self.ws = workspace if isinstance(workspace, Workspace) else workspace_for(self.rules)

    def clearable(self) -> bool | None:
        """Whether some line from the start clears the pyramid (None: a limit left it open):
        the winnability search, under goal "pyramid" whatever the rules' goal."""
        left = self.budget.left()
        if left < 0:
            return None
        won = solve_winnable(self.deal, self.rules.with_options(goal="pyramid"),
                             start=int(self.begin), max_states=left)
        self.budget.spent += won.states
        return None if won.outcome == Outcome.UNKNOWN else won.outcome == Outcome.WON

    def solve(self, objective: Objective, target: int | None) -> ObjectiveResult:
        return solve_objective(self.deal, self.rules, objective, self.begin, target, self.budget,
                               self.ws)

    def line(self, found: ObjectiveResult, objective: Objective, offset: int = 0) -> ChallengeLine:
        """``found``'s line, its value in the challenge's units less ``offset``."""
        return ChallengeLine((found.value - offset) // objective.scale, found.line,
                             self.clears(found.line))

    def clears(self, line) -> bool:
        """Whether the pyramid is clear at the end of ``line``: every pyramid card present at
        the start is among the cards its steps remove."""
        present = int(self.begin) & int(PYR_MASK)
        left = {int(self.deal[p]) for p in range(PYRAMID_CARDS) if present >> p & 1}
        return left <= {int(c) for step in line for c in step[1:]}


def score_challenge(deal, rules: Rules | str | None = None, *, target: int | None = None,
                    current: int = 0, start: int | None = None, max_states: int = 0,
                    timeout: float | None = None, workspace=None) -> ScoreChallenge:
    """The score challenge of ``deal`` (a ``Deal``, a deal number, deal text or card ids) under
    ``rules`` (default ``msc``), from its start or the packed position ``start``: see the module
    docstring. ``target``, ``current``: the challenge's goal and the points already earned in
    earlier deals; ``max_states`` caps the positions expanded (0 = none), ``timeout`` the
    seconds."""
    search = _Search(deal, rules, start, max_states, timeout, workspace)
    check_int(current, f"current must be an integer >= 0, not {current!r}", 0)
    if target is not None:
        check_int(target, f"target must be an integer >= 0, not {target!r}", 0)
    objective = score_objective(SCORING)
    if search.rules.goal == "pyramid" and search.clearable() is False:
        objective = objective.without_apex()
    needed = None if target is None else max(0, target - current) * objective.scale
    found = search.solve(objective, needed)
    outcome = UNKNOWN if not found.exact else REACHED if found.reached else BEST
    return ScoreChallenge(rules=search.rules, outcome=outcome, best=search.line(found, objective),
                          most=found.upper // objective.scale, states=search.budget.spent,
                          seconds=search.budget.seconds(), reason=found.reason, target=target,
                          current=current)


def card_challenge(deal, rank: int, rules: Rules | str | None = None, *, count: int = DEFAULT_COUNT,
                   current: int = 0, start: int | None = None, max_states: int = 0,
                   timeout: float | None = None, workspace=None) -> CardChallenge:
    """The card challenge of ``deal`` for ``rank`` (1..13) under ``rules`` (default ``msc``):
    see the module docstring. ``count``, ``current``: the cards of the rank the challenge asks
    for and those already cleared in earlier deals."""
    search = _Search(deal, rules, start, max_states, timeout, workspace)
    check_int(rank, f"rank must be 1..13, not {rank!r}", 1, 13)
    check_int(count, f"count must be an integer >= 1, not {count!r}", 1)
    check_int(current, f"current must be an integer >= 0, not {current!r}", 0)
    objective = rank_objective(rank)
    found = search.solve(objective, max(0, count - current))
    best = search.line(found, objective)
    outcome = UNKNOWN if not found.exact else REACHED if found.reached else BEST
    clearing = None
    reason = found.reason
    if outcome == BEST and not best.clears_pyramid:
        clearing, reason = _clearing_line(search, objective, best)
        if reason is not None:
            outcome = UNKNOWN
    return CardChallenge(rules=search.rules, outcome=outcome, best=best,
                         most=found.upper // objective.scale, states=search.budget.spent,
                         seconds=search.budget.seconds(), reason=reason, rank=rank, count=count,
                         current=current, clearing=clearing)


def _clearing_line(search: _Search, objective: Objective, best: ChallengeLine):
    """``(line, reason)``: the best line that clears the pyramid when it removes fewer cards than
    ``best`` (else None), or the limit that stopped the search."""
    clearable = search.clearable()
    if clearable is None:
        return None, REASON_STATES
    if not clearable:
        return None, None
    clearing = objective.clearing()
    found = search.solve(clearing, None)
    if not found.exact:
        return None, found.reason
    if found.value < objective.clear_bonus:
        raise RuntimeError("a winnable position has no line clearing the pyramid (a bug)")
    line = search.line(found, clearing, objective.clear_bonus)
    return (line if line.value < best.value else None), None
