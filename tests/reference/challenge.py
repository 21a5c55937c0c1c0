"""Plain reference for the score and card challenges (``solver.pyramid.challenge``).

A breadth-first search over every position reachable from the start, with no pruning, no move
reductions and no bounds: every legal move of docs/pyramid.md, from the plain BFS's own
generator (``reference.bfs``), over the packed positions of ``solver.pyramid.model.state``
(without bit 63; the recycle count dropped under unlimited recycles). A position where the
rules' goal is met is not expanded (the deal is over). Breadth-first order makes the depth at
which a position is first stored the fewest moves reaching it, so one search gives, for every
score and for every count of cards of each rank, the fewest moves to a position with exactly
that; the challenges' answers follow (``Profile``).

The score is computed here again, from the cards gone, with the scoring table written out from
the challenge's statement (issue 32), not read from ``solver.pyramid.model.scoring``: 5 points a
pair, 5 a king, 25 for emptying the bottom row, then 50, 75, 100, 150, 250, 500 for the apex.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from reference.bfs import gen_all, plain_key
from solver.core.bits import popcount
from solver.core.hashing import table_put
from solver.pyramid.model.deals import check_deal
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.state import (AFTER_DRAW, MAX_MOVES, START, apply_concrete,
                                        deal_tables, is_won)

PAIR_POINTS = 5
KING_POINTS = 5
BONUS_BOTTOM_UP = (25, 50, 75, 100, 150, 250, 500)
"""The scoring table of the score challenge, from its statement."""
MOST_POINTS = 1290
ROWS = 7
RANKS = 13
SUITS = 4

_ONE = np.uint64(1)
ALL_CARDS = np.uint64((1 << 52) - 1)


def _row_bits() -> np.ndarray:
    """Pyramid bits of each row, 0 the apex (row r holds positions r(r+1)/2 .. r(r+1)/2 + r)."""
    out = np.zeros(ROWS, dtype=np.uint64)
    for r in range(ROWS):
        first = r * (r + 1) // 2
        for c in range(r + 1):
            out[r] |= _ONE << np.uint64(first + c)
    return out


ROW_BITS = _row_bits()
BONUS_BY_ROW = np.array(BONUS_BOTTOM_UP[::-1], dtype=np.int64)
"""The bonus of each row, 0 the apex."""


@njit(cache=True)
def _points(state, rank_bits):
    """The score of ``state``: 5 per pair and per king gone, and the bonus of each empty row."""
    kings = popcount(~state & rank_bits[RANKS])
    others = popcount(~state & ALL_CARDS) - kings
    points = PAIR_POINTS * (others // 2) + KING_POINTS * kings
    for r in range(ROWS):
        if not state & ROW_BITS[r]:
            points += BONUS_BY_ROW[r]
    return points


@njit(cache=True)
def _profile(deal, start, recycles, overlap, stock_top_on, goal_all, max_states, table, frontier,
             nxt, score_first, rank_first, clear_first):
    """Fill the profiles (-1: never) by breadth-first search; returns the positions stored, or
    -1 when more than ``max_states`` were needed."""
    rank_of_slot = deal_tables(deal).val
    rank_bits = np.zeros(RANKS + 1, dtype=np.uint64)
    for slot in range(52):
        rank_bits[rank_of_slot[slot]] |= _ONE << np.uint64(slot)
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    start = plain_key(start, recycles)
    table_put(table, start | AFTER_DRAW)  # bit 63 keeps every stored key non-zero
    stored = 1
    frontier[0] = start
    nf = 1
    depth = 0
    while nf > 0:
        nn = 0
        for k in range(nf):
            s = frontier[k]
            points = _points(s, rank_bits)
            if score_first[points] < 0:
                score_first[points] = depth
            clear = (s & ROW_BITS[0]) == 0
            for rank in range(1, RANKS + 1):
                gone = popcount(~s & rank_bits[rank])
                if rank_first[rank, gone] < 0:
                    rank_first[rank, gone] = depth
                if clear and clear_first[rank, gone] < 0:
                    clear_first[rank, gone] = depth
            if is_won(s, goal_all):
                continue
            n = gen_all(s, rank_of_slot, recycles, overlap, stock_top_on, moves)
            for q in range(n):
                child = plain_key(apply_concrete(s, moves[q]), recycles)
                if table_put(table, child | AFTER_DRAW) < 0:
                    continue
                stored += 1
                if stored > max_states:
                    return -1
                nxt[nn] = child
                nn += 1
        for k in range(nn):
            frontier[k] = nxt[k]
        nf = nn
        depth += 1
    return stored


@dataclass(frozen=True)
class Profile:
    """The fewest moves from the start to a position with each score (``score_first[points]``),
    each count of cards of each rank gone (``rank_first[rank, count]``), and the same with the
    pyramid clear (``clear_first``); -1 where no line gets there. Counts are from the deal's
    start."""

    score_first: np.ndarray
    rank_first: np.ndarray
    clear_first: np.ndarray
    states: int

    def best_score(self) -> tuple[int, int]:
        """``(points, moves)``: the highest score and the fewest moves earning it."""
        points = int(np.flatnonzero(self.score_first >= 0).max())
        return points, int(self.score_first[points])

    def fewest_to_score(self, points: int) -> int | None:
        """The fewest moves to a score of at least ``points`` (None: no line earns it)."""
        found = self.score_first[max(points, 0):]
        found = found[found >= 0]
        return int(found.min()) if found.size else None

    def best_count(self, rank: int, clearing: bool = False) -> tuple[int, int] | None:
        """``(count, moves)``: the most cards of ``rank`` gone and the fewest moves to that,
        among all lines or (``clearing``) those that clear the pyramid (None: no such line)."""
        first = (self.clear_first if clearing else self.rank_first)[rank]
        reached = np.flatnonzero(first >= 0)
        if not reached.size:
            return None
        return int(reached.max()), int(first[reached.max()])

    def fewest_to_count(self, rank: int, count: int) -> int | None:
        """The fewest moves to at least ``count`` cards of ``rank`` gone (None: never)."""
        found = self.rank_first[rank, max(count, 0):]
        found = found[found >= 0]
        return int(found.min()) if found.size else None


def reference_profile(deal, rules: Rules, start: int | None = None,
                      max_states: int = 2_000_000) -> Profile | None:
    """The ``Profile`` of ``deal`` from its start (or the packed ``start``) under ``rules``;
    None when more than ``max_states`` positions are reachable."""
    deal = check_deal(deal)
    table = np.zeros(1 << (2 * max_states).bit_length(), dtype=np.uint64)
    frontier = np.empty(max_states + 1, dtype=np.uint64)
    nxt = np.empty(max_states + 1, dtype=np.uint64)
    score_first = np.full(MOST_POINTS + 1, -1, dtype=np.int64)
    rank_first = np.full((RANKS + 1, SUITS + 1), -1, dtype=np.int64)
    clear_first = np.full((RANKS + 1, SUITS + 1), -1, dtype=np.int64)
    rec, overlap, stock_top_on, goal_all = rules.args
    begin = START if start is None else np.uint64(start)
    stored = _profile(deal, begin, rec, overlap, stock_top_on, goal_all, max_states, table,
                      frontier, nxt, score_first, rank_first, clear_first)
    if stored < 0:
        return None
    return Profile(score_first, rank_first, clear_first, int(stored))
