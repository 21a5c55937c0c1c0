"""The rules matrix: one deal's verdict under every combination of the rule options.

``rules_matrix(deal)`` settles the deal under each of the 32 combinations of ``MATRIX_RECYCLES``
(0, 1, 2, unlimited) x overlap pairs on/off x stock top on/off x goal pyramid/all, with the exact
winnability search, and for the winnable ones tries the minimum-move search under a small time
limit (``QUICK_SECONDS``): the minimum is printed when it is found that fast, and left out (not
guessed) when it is not. ``matrix_findings`` then says what each option changes for this deal
("winnable with overlap pairs, lost without"), by comparing the rows that differ in that option
only.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from solver.pyramid.model.rules import GOALS, Rules
from solver.pyramid.model.outcome import Outcome, SolveResult

MATRIX_RECYCLES = (0, 1, 2, None)
"""The recycle limits of the matrix (``None``: unlimited)."""
QUICK_SECONDS = 1.0
"""Time the minimum-move search gets per winnable combination."""


def matrix_rules() -> list[Rules]:
    """The 32 rule combinations, in the order of the table: recycles, then overlap (on first),
    stock top (hidden first), goal (pyramid first)."""
    return [Rules(recycles=r, overlap=o, stock_top=s, goal=g)
            for r, o, s, g in itertools.product(MATRIX_RECYCLES, (True, False), (False, True),
                                                GOALS)]


@dataclass(frozen=True)
class MatrixRow:
    """One combination: its rules, the exact verdict, and the minimum number of moves when the
    quick minimum-move search found it (None otherwise)."""

    rules: Rules
    outcome: Outcome
    reason: str | None
    """Which limit left the verdict unknown (``SolveResult.reason``), else None."""
    moves: int | None
    states: int
    seconds: float

    def to_dict(self) -> dict:
        from solver.pyramid.model.explain import outcome_name

        return {"rules": self.rules.to_dict(), "outcome": outcome_name(self.outcome),
                "reason": self.reason, "moves": self.moves, "states": self.states,
                "seconds": round(self.seconds, 6)}


def matrix_row(deal, rules: Rules, start=None, max_states: int = 0,
               quick_seconds: float = QUICK_SECONDS, workspace=None) -> MatrixRow:
    """One row of the matrix (``workspace``: an ``OptimalWorkspace`` to reuse)."""
    from solver.pyramid.optimal.api import OptimalWorkspace, solve_optimal
    from solver.pyramid.winnable.solve import solve_winnable

    ws = workspace or OptimalWorkspace.create()
    verdict: SolveResult = solve_winnable(deal, rules, max_states=max_states, start=start,
                                          workspace=ws.winnability(rules))
    moves = None
    states, seconds = verdict.states, verdict.seconds
    if verdict.outcome == Outcome.WON:
        best = solve_optimal(deal, rules, start=start, max_states=max_states,
                             timeout=quick_seconds, workspace=ws)
        states += best.states
        seconds += best.seconds
        if best.outcome == Outcome.WON:
            moves = best.moves
    return MatrixRow(rules, verdict.outcome, verdict.reason, moves, states, seconds)


def rules_matrix(deal, start=None, max_states: int = 0, quick_seconds: float = QUICK_SECONDS,
                 progress=None) -> list[MatrixRow]:
    """Every row of the matrix for ``deal`` (from the packed position ``start``, if given);
    ``progress`` is called after each row (a progress bar's update)."""
    from solver.pyramid.optimal.api import OptimalWorkspace

    ws = OptimalWorkspace.create()
    rows = []
    for rules in matrix_rules():
        rows.append(matrix_row(deal, rules, start, max_states, quick_seconds, ws))
        if progress is not None:
            progress()
    return rows


OPTION_NAMES = {
    "overlap": ("overlap pairs", True),
    "stock_top": ("the stock top available", True),
    "goal": ("goal pyramid", "pyramid"),
}
"""The two-valued options, how the findings name them, and the value named "with"."""
OTHER_VALUE = {True: False, "pyramid": "all"}
"""The "without" value of each option's "with" value."""


def _pairs(rows: list[MatrixRow], option: str):
    """Pairs of rows (with the named value, without) that differ in ``option`` only."""
    by_rules = {row.rules: row for row in rows}
    _, with_value = OPTION_NAMES[option]
    for row in rows:
        if getattr(row.rules, option) != with_value:
            continue
        other = by_rules.get(replace(row.rules, **{option: OTHER_VALUE[with_value]}))
        if other is not None:
            yield row, other


def matrix_findings(rows: list[MatrixRow]) -> list[str]:
    """What each option changes for this deal, one line per option: ``overlap pairs: winnable
    with, lost without (in 3 of 16 combinations of the other options)``, or that it changes
    nothing. Fewer recycles can only make a deal harder, so recycles are summed up by the fewest
    that win under each combination of the other options."""
    lines = []
    for option, (name, _) in OPTION_NAMES.items():
        pairs = list(_pairs(rows, option))
        decided = [(a, b) for a, b in pairs if Outcome.UNKNOWN not in (a.outcome, b.outcome)]
        helps = sum(a.outcome == Outcome.WON and b.outcome == Outcome.LOST for a, b in decided)
        hurts = sum(a.outcome == Outcome.LOST and b.outcome == Outcome.WON for a, b in decided)
        if not helps and not hurts:
            lines.append(f"{name}: no difference ({len(decided)} of {len(pairs)} pairs decided)")
            continue
        parts = []
        if helps:
            parts.append(f"winnable with, lost without in {helps} of {len(pairs)} combinations "
                         f"of the other options")
        if hurts:
            parts.append(f"lost with, winnable without in {hurts} of {len(pairs)}")
        lines.append(f"{name}: " + "; ".join(parts))
    lines.append(_recycle_finding(rows))
    return lines


def _recycle_finding(rows: list[MatrixRow]) -> str:
    """``recycles: 0 recycles win in 4 of 8 combinations, 1 more wins 2, ...``: how many of the
    8 combinations of the other options the deal is won with each recycle limit."""
    counts = []
    for rec in MATRIX_RECYCLES:
        won = sum(row.outcome == Outcome.WON for row in rows if row.rules.recycles == rec)
        total = sum(row.rules.recycles == rec for row in rows)
        unknown = sum(row.outcome == Outcome.UNKNOWN for row in rows if row.rules.recycles == rec)
        label = "unlimited" if rec is None else str(rec)
        counts.append(f"{label}: {won} of {total}" + (f" ({unknown} unknown)" if unknown else ""))
    return "recycles, combinations won with each limit: " + ", ".join(counts)
