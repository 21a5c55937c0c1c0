"""Plain-Python random and greedy Pyramid players, written from docs/pyramid.md ("Players")
alone; ``solver/pyramid/analysis/playout_kernels.py`` is tested against them.

They play on ``solver.pyramid.model.replay.Position`` (the plain game model of tests/reference/pyramid.py),
reading only its state (``present``, ``waste``, ``stock``, ``recycles_used``, ``deal``,
``rules``) and ``is_won``, and moving by ``apply`` (which refuses an illegal move, so a move
listed here that the rules forbid fails loudly). The legal-move list, the geometry (which
positions cover which) and the players' rules are this module's own, from the text.

Randomness comes from any object with ``randrange(n)`` (``random.Random(seed)``; or
``SplitMix64Choice``, the docs' stream, when a test wants the kernel's exact games).
"""

from __future__ import annotations

import functools

from solver.core.cards import card_rank
from solver.pyramid.model.replay import Position
from tests.reference.rng import SplitMix64, stream_seed

ROWS = 7
"""Rows of the pyramid (row 1 the apex .. row 7 the bottom)."""
PYRAMID_SIZE = ROWS * (ROWS + 1) // 2
"""Pyramid positions, 0 (the apex) .. 27."""
PAIR_TOTAL = 13
"""Two cards pair when their values sum to this."""
KING_VALUE = 13
"""A king's value: it is removed on its own."""
GREEDY_KING_BONUS = 8
"""Added to a king's greedy score, so that every king scores above every pair (at most 7)."""

DRAW, RECYCLE, KING, PAIR = "draw", "recycle", "king", "pair"
"""Move kinds, spelled as ``replay.Position.apply`` takes them."""


def build_rows() -> tuple[int, ...]:
    rows = []
    for r in range(1, ROWS + 1):
        rows += [r] * r
    return tuple(rows)


ROW = build_rows()
"""``ROW[p]``: the row of pyramid position ``p``, 1 (apex) .. 7 (bottom)."""
COVERS = tuple(None if ROW[p] == ROWS else (p + ROW[p], p + ROW[p] + 1)
               for p in range(PYRAMID_SIZE))
"""``COVERS[p]``: the two positions covering ``p`` (row r counted from 0: ``p+r+1`` and
``p+r+2``), None on the bottom row."""
VALUE = tuple(card_rank(c) for c in range(52))
"""``VALUE[card]``: A = 1 .. K = 13."""


def is_uncovered(mask: int, p: int) -> bool:
    """Position ``p`` present in the pyramid ``mask`` with both its covers gone."""
    cov = COVERS[p]
    return bool(mask >> p & 1) and (cov is None or not (mask >> cov[0] & 1 or mask >> cov[1] & 1))


@functools.lru_cache(maxsize=1 << 16)
def uncovered_positions(mask: int) -> tuple[int, ...]:
    """The uncovered positions of the pyramid ``mask``, in order."""
    return tuple(p for p in range(PYRAMID_SIZE) if is_uncovered(mask, p))


@functools.lru_cache(maxsize=1 << 16)
def overlap_positions(mask: int) -> tuple[tuple[int, int], ...]:
    """``(p, c)`` for each present position ``p`` (in order) covered by exactly one present card,
    at ``c``, which is itself uncovered."""
    out = []
    for p in range(PYRAMID_SIZE):
        if COVERS[p] is None or not mask >> p & 1:
            continue
        on = [c for c in COVERS[p] if mask >> c & 1]
        if len(on) == 1 and is_uncovered(mask, on[0]):
            out.append((p, on[0]))
    return tuple(out)


def available(pos: Position) -> list[int]:
    """Uncovered pyramid cards by position, the waste top, the stock top under ``--stock-top``."""
    cards = [int(pos.deal[p]) for p in uncovered_positions(pos.present)]
    if pos.waste:
        cards.append(pos.waste[-1])
    if pos.rules.stock_top and pos.stock:
        cards.append(pos.stock[-1])
    return cards


def legal_moves(pos: Position) -> list[tuple]:
    """The legal-move list of docs/pyramid.md, in its order: pairs of available cards (x before
    y in the available list), overlap pairs (by the covered card's position, covered card
    first), kings (available order), the draw or else the recycle. Empty once won."""
    if pos.is_won():
        return []
    avail = available(pos)
    moves: list[tuple] = []
    for i, x in enumerate(avail):
        moves += [(PAIR, x, y) for y in avail[i + 1:] if VALUE[x] + VALUE[y] == PAIR_TOTAL]
    if pos.rules.overlap:
        for p, c in overlap_positions(pos.present):
            low, top = int(pos.deal[p]), int(pos.deal[c])
            if VALUE[low] + VALUE[top] == PAIR_TOTAL:
                moves.append((PAIR, low, top))
    moves += [(KING, c) for c in avail if VALUE[c] == KING_VALUE]
    if pos.stock:
        moves.append((DRAW,))
    elif pos.waste and (pos.rules.recycles is None or pos.recycles_used < pos.rules.recycles):
        moves.append((RECYCLE,))
    return moves


def greedy_score(pos: Position, move: tuple) -> int:
    """The lowest row of the pyramid cards a removal takes (0 for none), plus
    ``GREEDY_KING_BONUS`` for a king."""
    rows = [ROW[p] for p in range(PYRAMID_SIZE)
            if pos.present >> p & 1 and int(pos.deal[p]) in move[1:]]
    return max(rows, default=0) + (GREEDY_KING_BONUS if move[0] == KING else 0)


def random_choice(pos: Position, moves: list[tuple], rng) -> tuple:
    """Any move of the list, each with chance 1/n (no draw from ``rng`` for a single move)."""
    return moves[rng.randrange(len(moves))] if len(moves) > 1 else moves[0]


def greedy_choice(pos: Position, moves: list[tuple], rng) -> tuple:
    """A removal of the highest ``greedy_score``, ties uniformly (one draw among the tied, in
    list order; none for a single best); with no removal the draw or the recycle."""
    removals = [m for m in moves if m[0] in (PAIR, KING)]
    if not removals:
        return next(m for m in moves if m[0] in (DRAW, RECYCLE))
    scores = [greedy_score(pos, m) for m in removals]
    best = [m for m, s in zip(removals, scores) if s == max(scores)]
    return best[rng.randrange(len(best))] if len(best) > 1 else best[0]


PLAYER_CHOICES = {"random": random_choice, "greedy": greedy_choice}
"""The players of the docs by name."""


def play(start: Position, player: str, rng) -> bool:
    """One game from ``start`` (not changed) by ``player``; True when it is won.

    Won as soon as the goal is met; lost when no move is left, or (unlimited recycles only) when
    the player picks a recycle after an earlier recycle of this game with no card removed since
    (the first recycle of a game never ends it)."""
    choose = PLAYER_CHOICES[player]
    pos = start.copy()
    recycled = removed_since = False
    while True:
        moves = legal_moves(pos)
        if not moves:
            return pos.is_won()
        move = choose(pos, moves, rng)
        if move[0] == RECYCLE and pos.rules.recycles is None:
            if recycled and not removed_since:
                return False
            recycled, removed_since = True, False
        elif move[0] in (PAIR, KING):
            removed_since = True
        pos.apply(move)


class SplitMix64Choice:
    """``randrange`` by the docs' generator: ``below(n)`` of stream ``i`` of ``seed`` (the stream
    a playout of the kernels draws from), so the reference plays the kernel's very games."""

    def __init__(self, seed: int, index: int) -> None:
        self.gen = SplitMix64(stream_seed(seed, index))

    def randrange(self, n: int) -> int:
        return self.gen.below(n)


def wins(start: Position, player: str, games: int, rng) -> int:
    """Games won of ``games`` played from ``start`` by ``player``, all drawing from ``rng``."""
    return sum(play(start, player, rng) for _ in range(games))
