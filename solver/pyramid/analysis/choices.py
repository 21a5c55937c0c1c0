"""How many moves keep a deal winnable at each point of a line: ``line_choices(deal, rules, steps)``.

At each point of a line of play (before its first move, after each move) every legal move of
``solver.pyramid.model.replay.Position.legal_steps`` is counted (no pruning: moves that lead to the same
position count apart), and so is each move whose resulting position is still winnable, decided
exactly by the winnability search (``solver.pyramid.analysis.losing_move.WinnabilityProbe``: one reused
workspace, answers remembered by position). A point where only one move keeps the deal winnable
is *narrow*: a player must find that move.
"""

from __future__ import annotations

from typing import NamedTuple

from solver.pyramid.analysis.losing_move import WinnabilityProbe, after, check_limits, check_line
from solver.pyramid.optimal.api import OptimalWorkspace
from solver.pyramid.model.replay import Position
from solver.pyramid.model.rules import Rules


class StepChoices(NamedTuple):
    """The choice at one point of a line.

    ``number``: moves played before this point (0 = the start); ``legal``: legal moves here;
    ``winning``: how many of them keep the deal winnable; ``narrow``: exactly one does;
    ``played``: the line's move at this point (None after its last move).
    """

    number: int
    legal: int
    winning: int
    narrow: bool
    played: tuple | None


class SearchLimitReached(RuntimeError):
    """``line_choices`` could not decide a position within its ``max_states``."""


def line_choices(deal, rules: Rules, steps, start: Position | None = None, max_states: int = 0,
                 workspace: OptimalWorkspace | None = None) -> list[StepChoices]:
    """The choices at each point of the legal line ``steps`` (from ``start``, a
    ``solver.pyramid.model.replay.Position``, or the deal's start): one ``StepChoices`` per point before
    each move, and one more for the end when the line does not end in a win (a won position has
    no moves to choose from).

    ``max_states`` (0 = no limit) caps the positions expanded by all the searches together;
    reaching it raises ``SearchLimitReached``. ``ValueError`` for an illegal step.
    """
    check_limits(max_states, None)
    steps = list(steps)
    line = check_line(deal, rules, steps, start)
    probe = WinnabilityProbe(deal, rules, max_states, workspace=workspace)
    points = line if not line[-1].is_won() else line[:-1]
    out = []
    for number, pos in enumerate(points):
        legal = pos.legal_steps()
        winning = 0
        for step in legal:
            verdict = probe.winnable(after(pos, step))
            if verdict is None:
                raise SearchLimitReached(f"more than {max_states} positions needed (point "
                                         f"{number} of the line)")
            winning += verdict
        played = steps[number] if number < len(steps) else None
        out.append(StepChoices(number, len(legal), winning, winning == 1, played))
    return out
