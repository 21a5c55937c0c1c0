"""A solution explained: each step with where its cards come from, and the text that says so.

Pure Python, no numba. ``explain_steps`` replays the steps from a position and returns one
``ExplainedStep`` per step (structured data a caller can inspect, e.g. the first step for a
hint); ``step_note`` and ``describe_steps`` turn them into the text ``pyramid solve`` prints::

    >>> from solver.pyramid.model.deals import deal_from_seed
    >>> from solver.pyramid.model.rules import Rules
    >>> from solver.pyramid.model.replay import parse_solution
    >>> deal = deal_from_seed(1)
    >>> first = explain_steps(deal, Rules(), parse_solution("draw"))[0]
    >>> first.number, first.notation, first.cards[0].place
    (1, 'draw', 'stock')

``result_dict`` and ``outcome_name`` give a search's result as plain data, ``hint_dict`` and
``check_dict`` the answers of ``pyramid hint`` and ``pyramid check`` (the JSON documents of
docs/json.md, "Pyramid commands").
"""

from __future__ import annotations

from typing import NamedTuple

from solver.core.cards import format_card
from solver.pyramid.model.deals import format_deal
from solver.pyramid.model.layout import COL_OF, PYRAMID_CARDS, ROW_OF
from solver.pyramid.model.outcome import STATUS_LOST_AT
from solver.pyramid.model.replay import (STEP_DRAW, STEP_KING, STEP_RECYCLE, Position, Step,
                                         format_step, replay)
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.scoring import line_scores, score_of

PLACE_PYRAMID, PLACE_WASTE, PLACE_STOCK = "pyramid", "waste", "stock"
"""Where a card of a step comes from."""
NOTATION_WIDTH = 8
"""Steps are padded to this many characters before their note (``6h+7c   pair ...``)."""
SCORE_WIDTH = 5
"""The running score column of ``describe_steps(scored=True)`` is at least this wide (``1,290``,
a deal's most)."""
OUTCOME_NAMES = ("lost", "won", "unknown")
"""The JSON name of each ``Outcome`` value (``Outcome.LOST`` = 0, ``WON`` = 1, ``UNKNOWN`` = 2)."""


class CardSource(NamedTuple):
    """One card of a step and where it is when the step is played.

    ``place`` is ``"pyramid"``, ``"waste"`` or ``"stock"``; ``row`` and ``column`` (1-based, row 1
    the apex) are set for a pyramid card only.
    """

    card: int
    place: str
    row: int | None = None
    column: int | None = None

    def describe(self) -> str:
        """``6h (pyramid row 7, card 3)``, ``6h (waste)`` or ``6h (stock)``."""
        name = format_card(self.card)
        if self.place == PLACE_PYRAMID:
            return f"{name} (pyramid row {self.row}, card {self.column})"
        return f"{name} ({self.place})"


class ExplainedStep(NamedTuple):
    """One step of a line of play, explained.

    ``number`` counts from 1; ``step`` is the step tuple (``solver.pyramid.model.replay``), ``notation``
    its text (``draw``, ``Kd``, ``6h+7c``), ``kind`` its first field; ``cards`` says where each
    card it moves comes from (a draw: the stock card it turns over; a recycle: none).
    """

    number: int
    step: Step
    notation: str
    kind: str
    cards: tuple[CardSource, ...]


def _source(pos: Position, where_pyr: dict[int, int], card: int) -> CardSource:
    """Where ``card`` is in ``pos``: a present pyramid card, the waste's top card, or the stock."""
    p = where_pyr.get(card)
    if p is not None and pos.present >> p & 1:
        return CardSource(card, PLACE_PYRAMID, int(ROW_OF[p]) + 1, int(COL_OF[p]) + 1)
    if pos.waste and pos.waste[-1] == card:
        return CardSource(card, PLACE_WASTE)
    return CardSource(card, PLACE_STOCK)


def explain_steps(deal, rules: Rules, steps, start: Position | None = None) -> list[ExplainedStep]:
    """Each of ``steps`` played from ``start`` (the deal's start by default), explained.

    The steps must be legal (``solver.pyramid.model.replay.IllegalMove`` otherwise); ``start`` is not
    changed.
    """
    pos = start.copy() if start is not None else Position(deal, rules)
    where_pyr = {int(c): p for p, c in enumerate(pos.deal[:PYRAMID_CARDS])}
    out = []
    for number, step in enumerate(steps, start=1):
        if step[0] == STEP_DRAW:
            cards = (CardSource(int(pos.stock[-1]), PLACE_STOCK),)
        elif step[0] == STEP_RECYCLE:
            cards = ()
        else:
            cards = tuple(_source(pos, where_pyr, int(c)) for c in step[1:])
        out.append(ExplainedStep(number, tuple(step), format_step(step), step[0], cards))
        pos.apply(step)
    return out


def step_note(step: ExplainedStep) -> str:
    """What a step does, for people: ``turn Kd onto the waste``, ``pair 6h (waste) with 7c
    (pyramid row 7, card 2)``, ..."""
    if step.kind == STEP_DRAW:
        return f"turn {format_card(step.cards[0].card)} onto the waste"
    if step.kind == STEP_RECYCLE:
        return "turn the waste over into the stock"
    verb = "remove " if step.kind == STEP_KING else "pair "
    return verb + " with ".join(source.describe() for source in step.cards)


def step_line(step: ExplainedStep) -> str:
    """The notation padded to ``NOTATION_WIDTH`` and the note: ``draw     turn Kd onto ...``."""
    return f"{step.notation:<{NOTATION_WIDTH}} {step_note(step)}"


def describe_steps(deal, rules: Rules, steps, start: Position | None = None,
                   scored: bool = False) -> list[str]:
    """One numbered, readable line per step, saying where each card comes from; ``scored``:
    each line ends in a column with the running score after the step, counted from the deal's
    start (moves before ``start`` included) by the replay scorer, ``scoring.line_scores``."""
    width = len(str(len(steps)))
    texts = [f"{s.number:>{width}}. {step_line(s)}"
             for s in explain_steps(deal, rules, steps, start)]
    if not scored or not texts:
        return texts
    scores = line_scores(start if start is not None else Position(deal, rules), steps)
    text_width = max(len(t) for t in texts)
    return [f"{t:<{text_width}}  {score:>{SCORE_WIDTH},}" for t, score in zip(texts, scores)]


def outcome_name(outcome) -> str:
    """``"won"``, ``"lost"`` or ``"unknown"``: an ``Outcome`` as the JSON output names it."""
    return OUTCOME_NAMES[int(outcome)]


def result_dict(deal, rules: Rules, result) -> dict:
    """A search's result (``SolveResult``) as plain data: the deal and rules, the outcome and
    why, the solution's steps as text, moves, whether minimal, the lower bound, states, seconds.
    """
    return {
        "deal": format_deal(deal),
        "rules": rules.to_dict(),
        "outcome": outcome_name(result.outcome),
        "reason": result.reason,
        "winnable": result.winnable,
        "solution": [format_step(s) for s in result.solution],
        "moves": result.moves,
        "optimal": result.optimal,
        "lower_bound": result.lower_bound,
        "states": result.states,
        "seconds": round(result.seconds, 6),
    }


def hint_dict(deal, rules: Rules, result, played) -> dict:
    """``pyramid hint``'s answer as plain data: ``result_dict`` of the search from the position
    the ``played`` steps reach, its solution and moves given as the next move (None when there
    is none) and the moves left to win."""
    doc = result_dict(deal, rules, result)
    doc.pop("solution")
    doc.pop("moves")
    doc.update({"after": [format_step(s) for s in played],
                "next": format_step(result.solution[0]) if result.solution else None,
                "moves_left": result.moves})
    return doc


CHECK_WON, CHECK_INCOMPLETE, CHECK_ILLEGAL = "won", "incomplete", "illegal"
"""``pyramid check``'s outcomes: the moves win; they are all legal but do not win; one is
illegal."""


def check_outcome(replayed) -> str:
    """The ``CHECK_*`` outcome of a replay (``solver.pyramid.model.replay.replay``'s result)."""
    if replayed.ok and replayed.won:
        return CHECK_WON
    return CHECK_INCOMPLETE if replayed.ok else CHECK_ILLEGAL


def check_dict(deal, rules: Rules, steps, replayed, losing) -> dict:
    """``pyramid check``'s answer as plain data: the replay (of ``steps``)'s outcome, where it
    failed and what is left, the score of its legal moves (the score after them, from the cards
    gone, and the running score after each, step by step) and ``losing``
    (``solver.pyramid.analysis.losing_move.first_losing_move``'s answer, or None) with the
    running score along its win from there."""
    legal = list(steps[:replayed.moves])
    doc = {"deal": format_deal(deal), "rules": rules.to_dict(),
           "outcome": check_outcome(replayed), "moves": replayed.moves,
           "failed_step": replayed.failed_step, "error": replayed.reason,
           "pyramid_left": replayed.position.pyramid_left(),
           "pile_left": replayed.position.pile_left(),
           "score": score_of(replayed.position),
           "scores": line_scores(Position(deal, rules), legal),
           "losing": None if losing is None else losing.to_dict()}
    if losing is not None:
        doc["losing"]["win_scores"] = line_scores(losing_start(deal, rules, steps, losing),
                                                  losing.win_from_there)
    return doc


def losing_start(deal, rules: Rules, steps, losing) -> Position:
    """Where the win of a ``LosingMove`` (``win_from_there``) starts: the position before the
    move that lost the deal, or where the moves stop when it can still be won (the position
    after them all, otherwise)."""
    before = losing.move - 1 if losing.status == STATUS_LOST_AT else len(steps)
    return replay(deal, rules, steps[:before]).position
