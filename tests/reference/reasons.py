"""An independent check of the loss reasons of ``solver.pyramid.analysis.reasons``.

Written apart from that module on purpose (it never calls it): the position is a
``solver.pyramid.model.replay.Position``, the geometry is worked out here from rows and columns, and the
rules are read off docs/pyramid.md again. ``verify`` re-checks a reason's proof (for
``class_order`` by playing out every order of the cards of its values alone); ``never_removed``
confirms it by brute force (every position reachable from a small position).
"""

from __future__ import annotations

from collections import deque

from solver.core.cards import card_rank
from solver.pyramid.model.layout import COL_OF, PYRAMID_CARDS, ROW_OF
from solver.pyramid.model.replay import Position

SUM = 13
KING_VALUE = 13


def _covers(a: int, b: int) -> bool:
    """Pyramid position ``a`` covers ``b``, directly or not: ``a`` is in a lower row (larger row
    number) and within the fan that widens by one column per row below ``b``."""
    dr = int(ROW_OF[a]) - int(ROW_OF[b])
    dc = int(COL_OF[a]) - int(COL_OF[b])
    return dr > 0 and 0 <= dc <= dr


def _direct(a: int, b: int) -> bool:
    return _covers(a, b) and int(ROW_OF[a]) - int(ROW_OF[b]) == 1


class _Board:
    """Where each in-play card is: ``("pyr", position)`` or ``("pile", order)``, where the order
    runs from the waste's bottom to its top and on through the stock from its top down."""

    def __init__(self, pos: Position) -> None:
        self.rules = pos.rules
        self.place: dict[int, tuple] = {}
        for p in range(PYRAMID_CARDS):
            if pos.present >> p & 1:
                self.place[int(pos.deal[p])] = ("pyr", p)
        pile = list(pos.waste) + list(reversed(pos.stock))
        for k, c in enumerate(pile):
            self.place[c] = ("pile", k)
        self.waste_size = len(pos.waste)
        self.last_pass = (pos.rules.recycles is not None
                          and pos.recycles_used >= pos.rules.recycles)

    def must_go(self, c: int) -> bool:
        return self.place[c][0] == "pyr" or self.rules.goal == "all"

    def mates(self, c: int) -> list[int]:
        return [d for d in self.place if card_rank(d) + card_rank(c) == SUM]

    def _hidden(self, c: int, group, waste_order: bool) -> bool:
        """``c`` is covered by a group card, or (``waste_order``, last pass) lies in the waste
        under a group card."""
        kind, x = self.place[c]
        for g in group:
            gk, gx = self.place[g]
            if kind == "pyr" and gk == "pyr" and _covers(gx, x):
                return True
            if (waste_order and self.last_pass and kind == "pile" and gk == "pile"
                    and x < gx < self.waste_size):
                return True
        return False

    def pair_possible(self, a: int, b: int, group, waste_order: bool) -> bool:
        """Could ``a`` and ``b`` go together while every card of ``group`` is in play?"""
        rest = [g for g in group if g not in (a, b)]
        if self._hidden(a, rest, waste_order) or self._hidden(b, rest, waste_order):
            return False
        (ka, xa), (kb, xb) = self.place[a], self.place[b]
        if ka == "pyr" and kb == "pyr":
            if _covers(xa, xb) or _covers(xb, xa):
                return self.rules.overlap and (_direct(xa, xb) or _direct(xb, xa))
            return True
        if ka == "pile" and kb == "pile":
            lo, hi = sorted((xa, xb))
            if waste_order and self.last_pass and hi < self.waste_size:
                return False  # both in the waste: waste top and stock top are never both
            between = any(self.place[g][0] == "pile" and lo < self.place[g][1] < hi for g in rest)
            return self.rules.stock_top and not between
        return True

    def may_go_first(self, c: int, group, waste_order: bool) -> bool:
        if card_rank(c) == KING_VALUE:
            return not self._hidden(c, [g for g in group if g != c], waste_order)
        return any(self.pair_possible(c, d, group, waste_order) for d in self.mates(c))


def verify(pos: Position, kind: str, card: int, partners) -> bool:
    """True when the reason (``kind``, ``card``, ``partners``, as card ids) proves ``pos`` lost."""
    board = _Board(pos)
    partners = list(partners)
    cards = [card] + partners
    if len(set(cards)) != len(cards) or any(c not in board.place for c in cards):
        return False
    if not board.must_go(card):
        return False
    v = card_rank(card)
    if kind == "dead_card":
        return (v != KING_VALUE and sorted(partners) == sorted(board.mates(card))
                and not any(board.pair_possible(card, d, [card], False) for d in partners))
    if kind == "class_exhausted":
        group = [c for c in cards if card_rank(c) == v]
        met = [c for c in cards if card_rank(c) == SUM - v]
        if v == KING_VALUE or len(group) + len(met) != len(cards):
            return False
        if not all(board.must_go(c) for c in group):
            return False
        for d in board.mates(card):
            if d not in met and any(board.pair_possible(a, d, [], False) for a in group):
                return False
        return len(met) < len(group)
    if kind in ("buried_partners", "out_of_reach"):
        waste_order = kind == "out_of_reach"
        if waste_order and not board.last_pass:
            return False
        return not any(board.may_go_first(c, cards, waste_order) for c in cards)
    if kind == "class_order":
        lows = {min(card_rank(c), SUM - card_rank(c)) for c in cards}
        cls = [c for c in board.place if min(card_rank(c), SUM - card_rank(c)) in lows]
        return (0 not in lows and sorted(cls) == sorted(cards)
                and _class_clears(board, cls) is False)
    return False


def _class_clears(board: _Board, cls: list[int], max_states: int = 100_000) -> bool | None:
    """The game of the cards ``cls`` alone (every other card gone when in the way, every pile
    card at hand when wanted): can every card of them that must go be removed? None when more
    than ``max_states`` sets of cards are reachable."""
    seen = {frozenset(cls)}
    todo = list(seen)
    while todo:
        left = todo.pop()
        if not any(board.must_go(c) for c in left):
            return True
        for a in left:
            for b in left:
                if a < b and card_rank(a) + card_rank(b) == SUM \
                        and board.pair_possible(a, b, left, False):
                    nxt = left - {a, b}
                    if nxt not in seen:
                        if len(seen) >= max_states:
                            return None
                        seen.add(nxt)
                        todo.append(nxt)
    return False


def never_removed(pos: Position, card: int | None, max_states: int = 200_000) -> bool | None:
    """Brute force: True when no position reachable from ``pos`` is won or has ``card`` gone
    (``card`` None: is won); False when one is; None when more than ``max_states`` positions are
    reachable."""
    seen = {pos.key()}
    todo = deque([pos])
    while todo:
        p = todo.popleft()
        if p.is_won() or (card is not None and card not in _Board(p).place):
            return False
        for step in p.legal_steps():
            q = p.copy()
            q.apply(step)
            k = q.key()
            if k not in seen:
                if len(seen) >= max_states:
                    return None
                seen.add(k)
                todo.append(q)
    return True
