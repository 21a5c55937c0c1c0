"""What a challenge search maximises, as data: ``Objective``.

An objective is a value that depends only on which cards are gone: a weight for each card gone
(by its value, one table for pyramid cards and one for stock and waste cards) and a bonus for
each pyramid row emptied. Every weight and bonus is >= 0, so the value never falls along a line
of play (the searches' pruning rests on that). The three objectives of the project:

* ``score_objective``: the score of ``solver.pyramid.model.scoring`` in half points (``scale``
  2): a card other than a king is half a pair, so it weighs ``pair`` half points;
* ``rank_objective``: the cards of one rank gone (the card challenge);
* ``counted_objective``: the pyramid cards gone, or every card under goal "all" (the best
  partial result of ``solver.pyramid.analysis.partial``);

and ``Objective.clearing()``, any of them with a bonus on the apex row larger than every other
value together, so that a line clearing the pyramid beats every line that does not, and among
clearing lines the rest of the value decides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from solver.core.cards import KING, RANKS_PER_SUIT
from solver.pyramid.model.layout import PYRAMID_CARDS, PYRAMID_ROWS
from solver.pyramid.model.scoring import SCORING, Scoring

VALUES = RANKS_PER_SUIT + 1
"""Length of a weight table: indexed by card value 1..13 (index 0 unused)."""
APEX_ROW = 0
APEX_SLOT = 0
"""The apex: row 0, pyramid position 0."""
SUITS_PER_RANK = 4
PAIR_SUM = 13


class ObjectiveArgs(NamedTuple):
    """An ``Objective`` as the kernels take it (``Objective.args``)."""

    wp: np.ndarray
    """int64[14]: the weight of a pyramid card gone, by its value."""
    ws: np.ndarray
    """int64[14]: the weight of a stock or waste card gone, by its value."""
    bonus: np.ndarray
    """int64[7]: the bonus of an empty pyramid row, by row (0 the apex .. 6 the bottom)."""
    gain: int
    """The most card weight one move removes (a pair of two cards, or a king)."""
    full: int
    """The most there is when it needs every card gone (every card weighs), else -1."""
    grain: int
    """The step every value of a line is a multiple of (``Objective.grain``)."""


@dataclass(frozen=True)
class Objective:
    """A value of the cards gone (see the module docstring).

    name: what it counts (for messages); pyramid, stock: weights by card value (index 0..13,
    index 0 unused); rows: bonuses by row, 0 the apex .. 6 the bottom row; scale: the value of
    one of the challenge's own units (the score's half points: 2).
    """

    name: str
    pyramid: tuple[int, ...]
    stock: tuple[int, ...]
    rows: tuple[int, ...]
    scale: int = 1

    def __post_init__(self) -> None:
        if len(self.pyramid) != VALUES or len(self.stock) != VALUES or \
                len(self.rows) != PYRAMID_ROWS:
            raise ValueError(f"an objective has {VALUES} weights per table and {PYRAMID_ROWS} "
                             f"row bonuses")
        if min(self.pyramid + self.stock + self.rows) < 0 or self.scale < 1:
            raise ValueError("an objective's weights and bonuses are >= 0 and its scale >= 1")

    @property
    def stock_counts(self) -> bool:
        """Whether any stock or waste card carries weight (then when the deal ends matters)."""
        return any(self.stock)

    @property
    def weighs_every_card(self) -> bool:
        """Whether every card carries weight (then the most value needs every card gone)."""
        return min(self.pyramid[1:] + self.stock[1:]) > 0

    @property
    def gain(self) -> int:
        """The most card weight one move earns: a king, or a pair of values ``v`` and
        ``13 - v`` (each from the pyramid or the stock, whichever weighs more)."""
        best = [max(p, s) for p, s in zip(self.pyramid, self.stock)]
        pairs = [best[v] + best[PAIR_SUM - v] for v in range(1, PAIR_SUM)]
        return max(best[KING], *pairs)

    @property
    def grain(self) -> int:
        """The largest step every value of a line is a multiple of (from a deal's start): the
        greatest common divisor of what one move can earn (a king, a pair of any two cards of a
        class, each from the pyramid or the stock) and of the row bonuses; 1 when none earns."""
        gains = [self.pyramid[KING], self.stock[KING], *self.rows]
        for v in range(1, (PAIR_SUM + 1) // 2):
            for a in (self.pyramid[v], self.stock[v]):
                gains += [a + b for b in (self.pyramid[PAIR_SUM - v], self.stock[PAIR_SUM - v])]
        return math.gcd(*gains) or 1

    @property
    def most(self) -> int:
        """The value when every card is gone and every row empty."""
        cards = SUITS_PER_RANK * sum(max(p, s) for p, s in zip(self.pyramid, self.stock))
        return cards + sum(self.rows)

    def most_keeping_apex(self, values) -> int:
        """The most any position of the deal whose card values by slot are ``values`` (52: the
        pyramid from the apex, then the stock) is worth while its apex card is still there:
        every other card gone as far as pairs allow (a pair takes a card of each value of its
        class, heavier cards first), a king alone, and every row but the apex's empty."""
        kept = [(int(v), self.pyramid[int(v)] if slot < PYRAMID_CARDS else self.stock[int(v)])
                for slot, v in enumerate(values) if slot != APEX_SLOT]
        total = sum(w for v, w in kept if v == KING)
        for x in range(1, (PAIR_SUM + 1) // 2):
            heavy_x = sorted((w for v, w in kept if v == x), reverse=True)
            heavy_y = sorted((w for v, w in kept if v == PAIR_SUM - x), reverse=True)
            pairs = min(len(heavy_x), len(heavy_y))
            total += sum(heavy_x[:pairs]) + sum(heavy_y[:pairs])
        return total + sum(self.rows) - self.rows[APEX_ROW]

    @cached_property
    def args(self) -> ObjectiveArgs:
        return ObjectiveArgs(np.array(self.pyramid, dtype=np.int64),
                             np.array(self.stock, dtype=np.int64),
                             np.array(self.rows, dtype=np.int64), self.gain,
                             self.most if self.weighs_every_card else -1, self.grain)

    def clearing(self) -> "Objective":
        """The same value plus, on the apex row, a bonus above everything else it can add up
        to: the largest value of a line that clears the pyramid is that bonus plus the largest
        value of the others among such lines."""
        rows = list(self.rows)
        rows[APEX_ROW] += self.clear_bonus
        return Objective(f"{self.name}, clearing the pyramid", self.pyramid, self.stock,
                         tuple(rows), self.scale)

    def without_apex(self) -> "Objective":
        """The same value without the apex row's bonus: equal to it on every position of a deal
        whose pyramid cannot be cleared any more, and then easier to bound."""
        rows = (0,) + self.rows[APEX_ROW + 1:]
        return Objective(self.name, self.pyramid, self.stock, rows, self.scale)

    @property
    def clear_bonus(self) -> int:
        """The apex bonus ``clearing`` adds to this objective."""
        return self.most + 1


def score_objective(scoring: Scoring = SCORING) -> Objective:
    """The score of ``scoring``, in half points (``scale`` 2)."""
    weights = tuple(0 if v == 0 else 2 * scoring.king if v == KING else scoring.pair
                    for v in range(VALUES))
    rows = tuple(2 * scoring.bonus_of_row(r) for r in range(PYRAMID_ROWS))
    return Objective("score", weights, weights, rows, scale=2)


def rank_objective(rank: int) -> Objective:
    """The cards of ``rank`` (1..13) gone, from the pyramid, the stock or the waste."""
    if not 1 <= rank <= KING:
        raise ValueError(f"a rank is 1..13, not {rank!r}")
    weights = tuple(int(v == rank) for v in range(VALUES))
    return Objective(f"cards of rank {rank}", weights, weights, (0,) * PYRAMID_ROWS)


def counted_objective(goal_all: bool) -> Objective:
    """The pyramid cards gone, or under goal "all" (``goal_all``) every card gone."""
    ones = (0,) + (1,) * (VALUES - 1)
    stock = ones if goal_all else (0,) * VALUES
    return Objective("cards" if goal_all else "pyramid cards", ones, stock, (0,) * PYRAMID_ROWS)
