"""A plain version of ``solver.pyramid.challenge.apex.apex_last_possible`` (lists of card
values, counted one by one), for the tests to compare the kernel with."""

from __future__ import annotations

from solver.pyramid.model.layout import PYRAMID_CARDS, STOCK_CARDS

KING = 13
PAIR_SUM = 13


def apex_last_possible(values, overlap: bool, goal: str, state: int) -> bool:
    """False when no line from the packed position ``state`` (bit p: pyramid position p, bit
    28 + i: stock card i) can remove every card with the apex last; ``values``: the card values
    by slot. True when the test does not apply (goal "all", overlap pairs, the apex gone or a
    king) or some partner of the apex outside the pyramid leaves a pairing of the rest."""
    state = int(state)
    if goal != "pyramid" or overlap or not state & 1:
        return True
    apex = int(values[0])
    if apex == KING:
        return True
    pyramid = [int(values[p]) for p in range(1, PYRAMID_CARDS) if state >> p & 1]
    pile = [int(values[PYRAMID_CARDS + i]) for i in range(STOCK_CARDS)
            if state >> (PYRAMID_CARDS + i) & 1]
    return any(v + apex == PAIR_SUM and pairs_off(pyramid, pile[:k], pile[k + 1:])
               for k, v in enumerate(pile))


def pairs_off(pyramid: list[int], left: list[int], right: list[int]) -> bool:
    """Whether the cards can all be paired off (values making 13, kings alone) with no pair of
    a left and a right card: tried exhaustively, class by class, as a bipartite matching by
    augmenting paths (no counting argument)."""
    cards = [("p", v) for v in pyramid] + [("l", v) for v in left] + [("r", v) for v in right]
    for v in range(1, (PAIR_SUM + 1) // 2):
        xs = [side for side, x in cards if x == v]
        ys = [side for side, y in cards if y == PAIR_SUM - v]
        if len(xs) != len(ys):
            return False
        match: dict[int, int] = {}

        def augment(i: int, seen: set) -> bool:
            for j, side in enumerate(ys):
                if j in seen or {xs[i], side} == {"l", "r"}:
                    continue
                seen.add(j)
                if j not in match or augment(match[j], seen):
                    match[j] = i
                    return True
            return False

        if not all(augment(i, set()) for i in range(len(xs))):
            return False
    return True
