"""The score of Microsoft Solitaire Collection's Pyramid, as frozen data, and a plain scorer.

The scoring table (issue 32), ``SCORING``: 5 points for each pair removed (two cards of the
pyramid, the stock or the waste), 5 for each king removed on its own, and a bonus when a pyramid
row is emptied: 25 for the bottom row, then 50, 75, 100, 150, 250 and 500 for the apex. A deal
ends when the rules' goal is met (under goal "pyramid", the usual one and Microsoft's, when the
pyramid is clear), so a deal earns at most 1,290 points: 24 pairs and 4 kings (140) and every row
(1,150).

A score depends only on which cards are gone: a king leaves alone and every other card in a pair,
so the points for removals are ``pair`` times half the other cards gone plus ``king`` times the
kings gone, and a row is empty or not. The searches (``solver.pyramid.challenge``) maximise that
function of the removed cards; this module computes it in plain Python for the replay checker,
twice over: from a position's removed cards (``score_of``) and step by step along a replayed line
(``line_scores``: the points of each pair or king and the bonus of each row a step empties), so
that a line a search returns is scored again by code that shares nothing with it. Scores count
from the deal's start: moves made before a given start position count too.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.core.cards import KING, card_rank
from solver.pyramid.model.layout import DECK_CARDS, PYRAMID_CARDS, PYRAMID_ROWS, ROW_OF
from solver.pyramid.model.replay import STEP_KING, STEP_PAIR, IllegalMove, Position


@dataclass(frozen=True)
class Scoring:
    """A scoring table: points per pair and per king removed, and the bonus for emptying each
    pyramid row, ``row_bonus[0]`` for the bottom row (row 7) up to ``row_bonus[6]`` for the apex."""

    pair: int
    king: int
    row_bonus: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.row_bonus) != PYRAMID_ROWS or min((self.pair, self.king, *self.row_bonus)) < 0:
            raise ValueError(f"a scoring table has points >= 0 and {PYRAMID_ROWS} row bonuses")

    def bonus_of_row(self, row: int) -> int:
        """The bonus for emptying pyramid row ``row`` (0 the apex .. 6 the bottom row, the
        numbering of ``solver.pyramid.model.layout``)."""
        return self.row_bonus[PYRAMID_ROWS - 1 - row]

    @property
    def max_score(self) -> int:
        """The most one deal earns: every card removed (24 pairs, 4 kings) and every row."""
        return self.pair * DECK_PAIRS + self.king * DECK_KINGS + sum(self.row_bonus)


DECK_KINGS = 4
DECK_PAIRS = (DECK_CARDS - DECK_KINGS) // 2
"""A deck's kings, and the pairs its other 48 cards make when every card is removed."""

SCORING = Scoring(pair=5, king=5, row_bonus=(25, 50, 75, 100, 150, 250, 500))
"""Microsoft Solitaire Collection's Pyramid scoring (the score challenge's)."""


def _row_masks() -> tuple[int, ...]:
    masks = [0] * PYRAMID_ROWS
    for p in range(PYRAMID_CARDS):
        masks[int(ROW_OF[p])] |= 1 << p
    return tuple(masks)


ROW_MASKS = _row_masks()
"""``ROW_MASKS[r]``: the pyramid mask (bit = position) of row ``r``, 0 the apex."""


def gone_cards(pos: Position) -> list[int]:
    """The cards no longer in play at ``pos`` (pyramid, stock and waste), by card id."""
    in_play = set(pos.stock) | set(pos.waste) | set(pos.pyramid_cards())
    return sorted(int(c) for c in pos.deal if int(c) not in in_play)


def empty_rows(present: int) -> list[int]:
    """The pyramid rows (0 the apex .. 6 the bottom) with no card left in the mask ``present``."""
    return [r for r in range(PYRAMID_ROWS) if not present & ROW_MASKS[r]]


def score_of(pos: Position, scoring: Scoring = SCORING) -> int:
    """The points earned from the deal's start to ``pos``, from the cards gone alone."""
    gone = gone_cards(pos)
    kings = sum(card_rank(c) == KING for c in gone)
    others = len(gone) - kings
    if others % 2:
        raise ValueError("an odd number of cards other than kings is gone: not a position of play")
    return (scoring.pair * (others // 2) + scoring.king * kings
            + sum(scoring.bonus_of_row(r) for r in empty_rows(pos.present)))


def step_points(before: Position, step, scoring: Scoring = SCORING) -> int:
    """The points that playing ``step`` at ``before`` earns: the pair's or the king's, and the
    bonus of every row the step empties (``before`` is not changed; an illegal step raises
    ``IllegalMove``)."""
    after = before.copy()
    after.apply(step)
    points = {STEP_PAIR: scoring.pair, STEP_KING: scoring.king}.get(step[0], 0)
    newly = set(empty_rows(after.present)) - set(empty_rows(before.present))
    return points + sum(scoring.bonus_of_row(r) for r in newly)


def line_scores(start: Position, steps, scoring: Scoring = SCORING) -> list[int]:
    """The running score after each step of ``steps`` played from ``start``, counted step by
    step (the first entry is the score after the first step; the score at ``start`` itself is
    ``score_of(start)``). Raises ``IllegalMove`` at an illegal step."""
    pos = start.copy()
    total = score_of(start, scoring)
    out = []
    for i, step in enumerate(steps, start=1):
        try:
            total += step_points(pos, step, scoring)
        except IllegalMove as e:
            raise IllegalMove(f"step {i}: {e}") from None
        pos.apply(step)
        out.append(total)
    return out


def rank_gone(pos: Position, rank: int) -> int:
    """How many cards of ``rank`` (1..13) are gone at ``pos``, from the deal's start."""
    return sum(card_rank(c) == rank for c in gone_cards(pos))
