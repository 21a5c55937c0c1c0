"""A game in progress and what the solver says about it: the model ``pyramid play`` is built on.

* ``Game``: a deal, its rules and the moves played, checked by the replay checker, with undo and
  redo; ``saved_line`` is the moves as ``pyramid check``, ``--after`` and ``--html`` take them.
* ``assess``: the position's status, exactly: ``won``, ``winnable`` with the fewest moves left
  (the minimum-move search), ``lost`` with the most pyramid cards (or cards, under goal "all")
  any line can still clear (the best partial result), or ``unknown`` when a limit stopped the
  search (``reason`` names it, as everywhere).
* ``move_loses``: whether a move turns a winnable position into a lost one (the winnability
  search on the position and on the one the move reaches): the warning before a losing move.
* ``hint``: the next move of a shortest win, or of the best partial line when the position is
  lost.

Nothing here knows a screen: the terminal game calls these from a worker thread and shows the
answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.pyramid.model.outcome import Outcome
from solver.pyramid.model.replay import (STEP_KING, STEP_PAIR, STEP_RECYCLE, Position,
                                         format_solution, parse_solution, replay)
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.sentences import LIMIT_TEXT
from solver.pyramid.model.state import packed_position

WON, WINNABLE, LOST, UNKNOWN = "won", "winnable", "lost", "unknown"
"""The kinds of ``Status``."""


class Game:
    """A deal under ``rules`` with the moves played (``played``, replay steps) and the moves
    undone (``undone``, the most recent last), from the deal's start or after ``moves``."""

    def __init__(self, deal, rules: Rules, moves=()) -> None:
        start = Position(deal, rules)
        self.deal = start.deal
        self.rules = rules
        self.start = start
        self.played: list = []
        self.undone: list = []
        self.position = start.copy()
        for step in moves:
            self.play(step)

    @classmethod
    def after(cls, deal, rules: Rules, text: str) -> "Game":
        """The game after the moves of ``text`` (``pyramid check``'s notation); ``ValueError``
        naming the first move that does not parse or is illegal."""
        steps = parse_solution(text)
        result = replay(deal, rules, steps)
        if not result.ok:
            raise ValueError(f"move {result.failed_step} is illegal: {result.reason}")
        return cls(deal, rules, steps)

    def legal(self) -> list:
        """The legal moves now (none once the deal is won)."""
        return self.position.legal_steps()

    def step_with(self, cards) -> tuple | None:
        """The legal move that removes exactly the cards ``cards`` (card ids: a king, or the two
        cards of a pair in either order), or None."""
        wanted = sorted(int(c) for c in cards)
        for step in self.legal():
            if step[0] in (STEP_PAIR, STEP_KING) and sorted(step[1:]) == wanted:
                return step
        return None

    def play(self, step) -> None:
        """Play ``step`` (``ValueError`` when it is illegal); it clears the moves to redo."""
        if step not in self.legal():
            same = self.step_with(step[1:]) if step and step[0] == STEP_PAIR else None
            if same is None:
                raise ValueError(f"{format_solution([step])} is not a legal move here")
            step = same
        self.position.apply(step)
        self.played.append(step)
        self.undone.clear()

    def undo(self) -> bool:
        """Take back the last move; False when there is none."""
        if not self.played:
            return False
        self.undone.append(self.played.pop())
        self.position = self.start.copy()
        for step in self.played:
            self.position.apply(step)
        return True

    def redo(self) -> bool:
        """Play again the last move taken back; False when there is none."""
        if not self.undone:
            return False
        step = self.undone.pop()
        self.position.apply(step)
        self.played.append(step)
        return True

    def is_won(self) -> bool:
        return self.position.is_won()

    def legal_recycle(self) -> bool:
        """Whether turning the waste over is a legal move now."""
        return any(step[0] == STEP_RECYCLE for step in self.legal())

    def is_stuck(self) -> bool:
        """No legal move and not won: the game is over."""
        return not self.is_won() and not self.legal()

    def saved_line(self) -> str:
        """The moves played as one line, as ``pyramid check`` and ``--after`` read them."""
        return format_solution(self.played)


@dataclass(frozen=True)
class Status:
    """What the solver says about a position.

    kind: ``WON``, ``WINNABLE``, ``LOST`` or ``UNKNOWN``; moves: the fewest moves left to win
    (``WINNABLE``); cleared: the most cards any line can have cleared at its end, counting those
    already gone, out of ``most`` (``LOST``: 28 pyramid cards, 52 under goal "all"); line: a
    shortest win or the best partial line from the position (replay steps); reason: the limit
    that stopped a search (``UNKNOWN``); states: positions explored; seconds: search time.
    """

    kind: str
    moves: int | None = None
    cleared: int | None = None
    most: int | None = None
    line: tuple = ()
    reason: str | None = None
    states: int = 0
    seconds: float = 0.0

    def text(self) -> str:
        """The status line: "winnable — 31 moves at best", "lost — at most 14 of the 28
        pyramid cards can still be cleared", "won", "unknown (--timeout reached)"."""
        if self.kind == WON:
            return "won"
        if self.kind == WINNABLE:
            word = "move" if self.moves == 1 else "moves"
            return f"winnable — {self.moves} {word} at best"
        if self.kind == LOST:
            cards = "pyramid cards" if self.most == 28 else "cards"
            return f"lost — at most {self.cleared} of the {self.most} {cards} can still be cleared"
        return f"unknown ({LIMIT_TEXT[self.reason]})"


def shortest(deal, rules: Rules, start: int, max_states: int = 0,
             timeout: float | None = None):
    """The minimum-move search from the packed position ``start`` (a ``SolveResult``)."""
    from solver.pyramid.optimal.api import solve_optimal

    return solve_optimal(deal, rules, start=start, max_states=max_states, timeout=timeout)


def assess(position: Position, max_states: int = 0, timeout: float | None = None) -> Status:
    """The status of ``position`` (see the module docstring), under the limits ``max_states``
    (positions, 0 = none) and ``timeout`` (seconds) for each search it runs."""
    from solver.pyramid.analysis.partial import best_partial

    if position.is_won():
        return Status(WON)
    start = packed_position(position)
    result = shortest(position.deal, position.rules, start, max_states, timeout)
    if result.outcome == Outcome.WON:
        return Status(WINNABLE, moves=result.moves, line=tuple(result.solution),
                      states=result.states, seconds=result.seconds)
    if result.outcome == Outcome.UNKNOWN:
        return Status(UNKNOWN, reason=result.reason, states=result.states,
                      seconds=result.seconds)
    partial = best_partial(position.deal, position.rules, start=start, max_states=max_states,
                           timeout=timeout)
    states = result.states + partial.states
    seconds = result.seconds + partial.seconds
    if not partial.exact:
        return Status(UNKNOWN, reason=partial.reason, states=states, seconds=seconds)
    return Status(LOST, cleared=partial.best, most=partial.most, line=tuple(partial.line),
                  states=states, seconds=seconds)


def winnable(position: Position, max_states: int = 0) -> bool | None:
    """Whether ``position`` can still be won (the winnability search); None when the cap on
    positions stopped it."""
    from solver.pyramid.winnable.solve import solve_winnable

    if position.is_won():
        return True
    result = solve_winnable(position.deal, position.rules, start=packed_position(position),
                            max_states=max_states)
    return result.winnable


def move_loses(position: Position, step, max_states: int = 0) -> bool | None:
    """Whether playing ``step`` turns the winnable ``position`` into a lost one: False when the
    position is lost already (no move can lose it again) or the move keeps a win; None when a
    limit left it open."""
    now = winnable(position, max_states)
    if not now:
        return None if now is None else False
    child = position.copy()
    child.apply(step)
    then = winnable(child, max_states)
    return None if then is None else not then


def hint(status: Status):
    """The move to play next by ``status`` (from ``assess``): the first of a shortest win, or of
    the best partial line when lost; None when there is none (won, unknown, or no move helps)."""
    return status.line[0] if status.line else None


def load_kernels(rules: Rules) -> None:
    """Load (or compile) every kernel ``assess``, ``move_loses`` and ``summary`` use under
    ``rules``, so that the first answer comes as fast as the others (they serve every deal;
    the playouts' are loaded on deal 0)."""
    from solver.pyramid.model.deals import Deal
    from solver.pyramid.analysis.partial import load_kernels as load_partial
    from solver.pyramid.analysis.playouts import playout_rates
    from solver.pyramid.optimal.api import OptimalWorkspace
    from solver.pyramid.optimal.api import load_kernels as load_optimal
    from solver.pyramid.winnable.solve import Workspace

    Workspace.create(rules)
    load_optimal()
    OptimalWorkspace.create().winnability(rules)
    load_partial()
    playout_rates(Deal.from_seed(0), rules, games=1)


def summary(game: Game, max_states: int = 0, timeout: float | None = None) -> list[str]:
    """The end of a game in sentences: the moves played against the fewest that win the deal
    from its start, the first move that lost it (``pyramid check``'s answer) or that it can
    still be won, and for a winnable deal its difficulty figures as ``pyramid analyse`` gives
    them (``difficulty_lines``)."""
    played = len(game.played)
    best = shortest(game.deal, game.rules, packed_position(game.start), max_states, timeout)
    least = (f"the fewest that win are {best.moves}" if best.outcome == Outcome.WON else
             "no line wins this deal" if best.outcome == Outcome.LOST else
             "the fewest that win are unknown (a limit was reached)")
    lines = [f"{'Won' if game.is_won() else 'Played'} in {played} move{'s' if played != 1 else ''}; "
             f"{least}."]
    if not game.is_won():
        lines.append(where_lost(game, max_states, timeout))
    if best.outcome == Outcome.WON:
        lines += difficulty_lines(game.deal, game.rules)
    return lines


def difficulty_lines(deal, rules: Rules) -> list[str]:
    """The difficulty figures of a winnable deal from its start, as ``pyramid analyse`` gives
    them by default (its playouts, seed 0, and its rank among the table's deals): the same
    functions, the same sentences."""
    from solver.pyramid.analysis.deal import difficulty_of, playout_lines

    rates, rank = difficulty_of(deal, rules, None)
    return playout_lines(rates, rank, rules, from_start=True)


def where_lost(game: Game, max_states: int = 0, timeout: float | None = None) -> str:
    """The sentence on the first move of ``game`` that lost the deal, as ``pyramid check``
    finds it, or that the deal can still be won, or could never be."""
    from solver.pyramid.analysis.losing_move import first_losing_move
    from solver.pyramid.model.outcome import STATUS_LOST_AT, STATUS_NEVER, STATUS_STILL

    where = first_losing_move(game.deal, game.rules, game.played, game.start,
                              max_states=max_states, timeout=timeout)
    if where.status == STATUS_LOST_AT:
        return (f"Move {where.move}, {format_solution([where.played])}, lost the deal: "
                f"{format_solution([where.instead])} instead kept it winnable.")
    if where.status == STATUS_NEVER:
        return "The deal could not be won from the start."
    if where.status == STATUS_STILL:
        at_best = " at best" if where.optimal else ""
        return f"It can still be won: in {len(where.win_from_there)} moves{at_best} from here."
    return "Where it was lost is unknown (a limit was reached)."
