"""A second plain-Python Pyramid solver, fast enough for whole deals; the numba search is tested
against it.

Written from docs/pyramid.md alone; it shares no code with ``solver/pyramid/winnable/solve.py`` or
``solver/pyramid/model/state.py`` (it reads only the card values, the pyramid geometry of ``solver.pyramid.model.layout`` and
the ``Position`` of ``solver.pyramid.model.replay`` as its input format). Plain memoised depth-first searches:

* **unlimited recycles**: by drawing and recycling, any stock or waste card can be brought to the
  top of the waste without changing anything else, so only *which* cards are in play matters (the
  "free stock"; ``tests/pyramid/test_winnable.py`` checks this on small positions with the concrete
  reference). A position is (pyramid cards present, stock cards in play); every in-play stock
  card is available on its own. Under goal "pyramid" a pair of two stock cards never helps (it
  only takes partners away), so a stock card only ever pairs with a pyramid card and the stock is
  kept as a count per value (equal values are interchangeable, also checked there), capped at the
  number of pyramid partners still present (the spare ones can never be used); likewise under
  goal "all" with the stock top hidden (no cap then). Under goal "all" with the stock top shown,
  two stock cards pair when they are neighbours in the in-play order (one the waste top, the
  other the stock top), so the stock is kept as the sequence of its values.
* **limited recycles**: first the free relaxation above (lost there => lost here, since the real
  game has fewer options), then a depth-first search over concrete positions: the in-play stock
  and waste values as one sequence (waste bottom .. waste top, stock top .. stock bottom, which
  drawing and recycling never reorder), how many of them form the waste, and the recycles used.
  Every concrete node whose free relaxation is lost is cut.

Pruning, each obviously sound:

* an available pyramid king is removed at once: it pairs with nothing, and removing it only
  uncovers cards, so every line from the position stays legal after it;
* with unlimited recycles a stock king is removed at once too (it pairs with nothing and its
  removal only makes more stock cards neighbours);
* a *dead* card ends the line: a pyramid card with no partner (value summing to 13) left that
  could ever be available together with it: no partner in stock or waste, and every pyramid
  partner covers it or is covered by it (except a direct cover with overlap pairs on). With goal
  "all", also a stock card with no partner in the pyramid (nor, with the stock top available,
  in the stock);
* concrete search: a move of pyramid cards only is never tried straight after a draw or a
  recycle (the two commute, see ``_Concrete._children``); with no recycle left, a waste card that
  can never be removed buries the waste cards under it for good, so the free relaxation is asked
  without them (and under goal "all" the position is lost).

Answers: True (winnable), False (not), None (more than ``max_states`` positions expanded).
"""

from __future__ import annotations

import sys

from solver.core.cards import card_rank
from solver.pyramid.model.layout import ABOVE, BELOW, COVER_MASK, COVERED_BY, PYRAMID_CARDS
from solver.pyramid.model.replay import KING, PAIR_SUM, Position
from solver.pyramid.model.rules import Rules


class _Cap(Exception):
    """Raised inside a search when ``max_states`` is exceeded."""


class _Deal:
    """Per-deal tables: the value at each pyramid position and who can ever meet whom."""

    def __init__(self, deal, rules: Rules) -> None:
        self.rules = rules
        self.pval = [card_rank(int(c)) for c in deal[:PYRAMID_CARDS]]
        self.cover = [int(m) for m in COVER_MASK]
        self.covered_by = [(int(a), int(b)) for a, b in COVERED_BY]
        # meet[p]: pyramid positions that can be uncovered at the same time as p (or paired
        # with it as an overlap pair): not above or below it, except a direct cover with overlap.
        self.meet = []
        for p in range(PYRAMID_CARDS):
            m = 0
            for q in range(PYRAMID_CARDS):
                if q == p:
                    continue
                related = (int(ABOVE[p]) >> q & 1) or (int(BELOW[p]) >> q & 1)
                direct = q in self.covered_by[p] or p in self.covered_by[q]
                if not related or (rules.overlap and direct):
                    m |= 1 << q
            self.meet.append(m)
        self.vmask = [0] * 14
        for p, v in enumerate(self.pval):
            self.vmask[v] |= 1 << p
        self._unc: dict = {}                     # present -> uncovered positions
        self._pm: dict = {}                      # present -> pyramid-only pairs
        self._pvals: dict = {}                   # present -> values in the pyramid

    def uncovered(self, present: int) -> list[int]:
        unc = self._unc.get(present)
        if unc is None:
            unc = [p for p in range(PYRAMID_CARDS)
                   if present >> p & 1 and not present & self.cover[p]]
            self._unc[present] = unc
        return unc

    def pyramid_moves(self, present: int, unc: list[int]) -> list[tuple[int, int]]:
        """Pairs of pyramid positions removable together: two uncovered ones, and overlap pairs
        (``unc``: the uncovered positions of ``present``)."""
        out = self._pm.get(present)
        if out is None:
            out = self._pyramid_moves(present, unc)
            self._pm[present] = out
        return out

    def _pyramid_moves(self, present: int, unc: list[int]) -> list[tuple[int, int]]:
        out = []
        for i, p in enumerate(unc):
            for q in unc[i + 1:]:
                if self.pval[p] + self.pval[q] == PAIR_SUM:
                    out.append((p, q))
        if self.rules.overlap:
            for a in unc:                        # a covers low; low's other cover must be gone
                for low in range(PYRAMID_CARDS):
                    if present >> low & 1 and a in self.covered_by[low]:
                        other = self.covered_by[low][0] + self.covered_by[low][1] - a
                        if not present >> other & 1 and self.pval[a] + self.pval[low] == PAIR_SUM:
                            out.append((a, low))
        return out

    def pyramid_dead(self, present: int, stock_values) -> bool:
        """Some present pyramid card (not a king) can never meet a partner."""
        for p in range(PYRAMID_CARDS):
            if present >> p & 1:
                w = PAIR_SUM - self.pval[p]
                if w == 0 or w in stock_values:
                    continue
                if not present & self.vmask[w] & self.meet[p]:
                    return True
        return False

    def pyramid_values(self, present: int) -> set:
        vals = self._pvals.get(present)
        if vals is None:
            vals = {self.pval[p] for p in range(PYRAMID_CARDS) if present >> p & 1}
            self._pvals[present] = vals
        return vals


# --------------------------------------------------------------------------- free stock

class _Free:
    """Winnability with unlimited recycles (the free-stock search), memoised per deal."""

    def __init__(self, tables: _Deal, max_states: int | None) -> None:
        self.t = tables
        self.rules = tables.rules
        self.goal_all = tables.rules.goal == "all"
        # With goal pyramid a pair of two stock cards never helps (each stock card is available
        # on its own anyway, so the pair only takes partners away): the stock top option then
        # changes nothing and the stock is kept as counts.
        self.ordered = tables.rules.stock_top and self.goal_all
        self.lost: set = set()
        self.wins: set = set()                   # the concrete search asks again and again
        self._caps: dict = {}                    # present -> most stock cards usable per value
        self.max_states = max_states
        self.expanded = 0

    def _count(self) -> None:
        self.expanded += 1
        if self.max_states is not None and self.expanded > self.max_states:
            raise _Cap

    # The stock is either a tuple of counts by value (index 0..13; stock top hidden) or a tuple
    # of card values in the in-play order (stock top available).

    def key_of(self, present: int, stock_values: list[int]) -> tuple:
        """The free-stock position of a pyramid and the values of the stock/waste cards in play
        (in the in-play order)."""
        if self.ordered:
            return present, tuple(stock_values)
        counts = [0] * 14
        for v in stock_values:
            counts[v] += 1
        return self._canon(present, counts)

    def _canon(self, present: int, counts: list[int]) -> tuple:
        if not self.goal_all:                    # spare stock cards can never be used
            caps = self._caps.get(present)
            if caps is None:
                caps = [bin(present & self.t.vmask[PAIR_SUM - v]).count("1") if v != KING else 0
                        for v in range(14)]
                self._caps[present] = caps
            counts = [min(n, cap) for n, cap in zip(counts, caps)]
        return present, tuple(counts)

    def won(self, present: int, stock: tuple) -> bool:
        if present:
            return False
        return not self.goal_all or not any(stock)

    def winnable(self, present: int, stock: tuple) -> bool:
        if self.won(present, stock):
            return True
        key = (present, stock)
        if key in self.lost:
            return False
        if key in self.wins:
            return True
        self._count()
        for child in self._children(present, stock):
            if self.winnable(*child):
                self.wins.add(key)
                return True
        self.lost.add(key)
        return False

    def _dead(self, present: int, stock: tuple) -> bool:
        t = self.t
        if self.ordered:
            svals = set(stock)
        else:
            svals = {v for v in range(14) if stock[v]}
        if t.pyramid_dead(present, svals):
            return True
        if self.goal_all:
            pvals = t.pyramid_values(present)
            for v in svals:
                if v == KING:
                    continue
                w = PAIR_SUM - v
                if w not in pvals and not (self.ordered and w in svals):
                    return True
        return False

    def _children(self, present: int, stock: tuple):
        """Successor positions, with the forced (dominant) king removals applied alone."""
        return [c for c in self._moves(present, stock) if c is not None]

    def _moves(self, present: int, stock: tuple):
        t = self.t
        unc = t.uncovered(present)
        for p in unc:
            if t.pval[p] == KING:
                return [self._finish(present & ~(1 << p), stock)]
        if self.ordered:
            if KING in stock:
                i = stock.index(KING)
                return [self._finish(present, stock[:i] + stock[i + 1:])]
        elif stock[KING]:
            s = list(stock)
            s[KING] -= 1
            return [self._finish(present, tuple(s))]
        out = []
        for p, q in t.pyramid_moves(present, unc):
            out.append(self._finish(present & ~(1 << p) & ~(1 << q), stock))
        if self.ordered:
            for p in unc:
                w = PAIR_SUM - t.pval[p]
                for i, v in enumerate(stock):
                    if v == w and (i == 0 or stock[i - 1] != w):   # equal neighbours: one is enough
                        out.append(self._finish(present & ~(1 << p), stock[:i] + stock[i + 1:]))
            for i in range(len(stock) - 1):
                if stock[i] + stock[i + 1] == PAIR_SUM:
                    out.append(self._finish(present, stock[:i] + stock[i + 2:]))
        else:
            for p in unc:
                w = PAIR_SUM - t.pval[p]
                if stock[w]:
                    s = list(stock)
                    s[w] -= 1
                    out.append(self._finish(present & ~(1 << p), tuple(s)))
        return out

    def _finish(self, present: int, stock: tuple):
        """The child in canonical form, or None when it has a dead card."""
        if self.ordered:
            child = (present, stock)
        else:
            child = self._canon(present, list(stock))
        if not self.won(*child) and self._dead(*child):
            return None
        return child


# --------------------------------------------------------------------------- concrete

class _Concrete:
    """Winnability with a recycle limit: memoised DFS over concrete positions, cut by the free
    relaxation."""

    def __init__(self, tables: _Deal, free: _Free, max_states: int | None) -> None:
        self.t = tables
        self.rules = tables.rules
        self.goal_all = tables.rules.goal == "all"
        self.free = free
        self.lost: set = set()
        self.max_states = max_states

    def winnable(self, present: int, seq: tuple, nw: int, rec: int, drawn: bool = False) -> bool:
        """``seq``: in-play stock/waste card values (waste bottom .. waste top, stock top ..
        stock bottom); ``nw`` of them are the waste; ``rec`` recycles used; ``drawn``: the last
        move was a draw or a recycle (see ``_children``)."""
        if not present and (not self.goal_all or not seq):
            return True
        key = (present, seq, nw, rec, drawn)
        if key in self.lost:
            return False
        usable = self._usable(present, seq, nw, rec)
        if usable is None or not self.free.winnable(*self.free.key_of(present, usable)):
            self.lost.add(key)
            return False
        self.free._count()
        for child in self._children(present, seq, nw, rec, drawn):
            if self.winnable(*child):
                return True
        self.lost.add(key)
        return False

    def _usable(self, present: int, seq: tuple, nw: int, rec: int):
        """The stock and waste cards that may still be used, as a list of values; None when a
        card that must go (goal "all") never can.

        Once no recycle is left, the waste is a pile that is only ever taken from the top: a
        waste card that can never be removed (not a king, and no card of the partner value left
        in the pyramid, nor with the stock top shown in the stock) stays for good, and so do
        all the waste cards under it."""
        if rec < self.rules.recycles:
            return list(seq)
        pvals = self.t.pyramid_values(present)
        svals = set(seq[nw:]) if self.rules.stock_top else ()
        for i in range(nw - 1, -1, -1):
            w = PAIR_SUM - seq[i]
            if seq[i] != KING and w not in pvals and w not in svals:
                return None if self.goal_all else list(seq[i + 1:])
        return list(seq)

    def _children(self, present: int, seq: tuple, nw: int, rec: int, drawn: bool):
        """Successors. A move using pyramid cards only (two pyramid cards, a pyramid king) and a
        draw or recycle touch different cards and neither changes whether the other is legal,
        so they can be swapped: any winning line can be rewritten with no pyramid-only move
        straight after a draw or recycle, and only such lines are searched."""
        t = self.t
        unc = t.uncovered(present)
        for p in unc:
            if t.pval[p] == KING:
                return [(present & ~(1 << p), seq, nw, rec, False)]
        out = []
        if not drawn:
            for p, q in t.pyramid_moves(present, unc):
                out.append((present & ~(1 << p) & ~(1 << q), seq, nw, rec, False))
        # available stock/waste slots: waste top (nw-1), stock top (nw) when the rules show it
        slots = []
        if nw > 0:
            slots.append(nw - 1)
        if self.rules.stock_top and nw < len(seq):
            slots.append(nw)
        for i in slots:
            v = seq[i]
            nw_after = nw - 1 if i < nw else nw
            rest = seq[:i] + seq[i + 1:]
            if v == KING:
                out.append((present, rest, nw_after, rec, False))
                continue
            for p in unc:
                if t.pval[p] + v == PAIR_SUM:
                    out.append((present & ~(1 << p), rest, nw_after, rec, False))
        if len(slots) == 2 and seq[nw - 1] + seq[nw] == PAIR_SUM:
            out.append((present, seq[:nw - 1] + seq[nw + 1:], nw - 1, rec, False))
        if nw < len(seq):
            out.append((present, seq, nw + 1, rec, True))              # draw
        elif nw > 0 and rec < self.rules.recycles:
            out.append((present, seq, 0, rec + 1, True))               # recycle
        return out


# --------------------------------------------------------------------------- public

def fast_winnable_from(pos: Position, max_states: int | None = None) -> bool | None:
    """Winnability of ``pos`` under ``pos.rules``: True, False, or None when more than
    ``max_states`` positions were expanded first."""
    rules = pos.rules
    tables = _Deal(pos.deal, rules)
    free = _Free(tables, max_states)
    seq = tuple(card_rank(c) for c in pos.waste + pos.stock[::-1])
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        start = free.key_of(pos.present, list(seq))
        if not free.won(*start) and free._dead(*start):
            return False
        if not free.winnable(*start):
            return False
        if rules.recycles is None:
            return True
        if pos.recycles_used > rules.recycles:
            raise ValueError(f"the position used {pos.recycles_used} recycles, more than the "
                             f"{rules.recycles} allowed")
        concrete = _Concrete(tables, free, max_states)
        return concrete.winnable(pos.present, seq, len(pos.waste), pos.recycles_used)
    except _Cap:
        return None
    finally:
        sys.setrecursionlimit(limit)


def fast_winnable(deal, rules: Rules, max_states: int | None = None) -> bool | None:
    """``fast_winnable_from`` the deal's starting position."""
    return fast_winnable_from(Position(deal, rules), max_states)
