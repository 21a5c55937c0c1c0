"""Slow, obviously-correct reference solver for Pyramid, built only on ``solver.pyramid.model.replay.Position``.

It uses nothing but ``Position.legal_steps()``, ``apply()``, ``is_won()`` and ``key()``: a search
over positions with a visited set of keys. The fast solver (``solver/pyramid/winnable/solve.py``) is tested against
it. Full deals under the default rules have too many positions for it, so ``endgame_position``
makes small positions from seeded deals by removing cards "by fiat".

Outcomes are never ambiguous: ``True``/``False`` (winnable or not) or a move count/``"lost"``, and
``None`` only when ``max_states`` distinct positions were seen before an answer was found.
"""

from __future__ import annotations

import random

from solver.core.cards import card_rank
from solver.pyramid.model.layout import COVER_MASK, PYRAMID_CARDS
from solver.pyramid.model.replay import Position
from solver.pyramid.model.rules import Rules

LOST = "lost"
"""``reference_shortest``'s answer when no winning sequence exists."""


def reference_winnable_from(start: Position, max_states: int | None = None) -> bool | None:
    """Depth-first search from ``start``: True when a win exists, False when none does, None when
    more than ``max_states`` distinct positions were seen first."""
    if start.is_won():
        return True
    seen = {start.key()}
    stack = [start]
    while stack:
        pos = stack.pop()
        for step in pos.legal_steps():
            nxt = pos.copy()
            nxt.apply(step)
            if nxt.is_won():
                return True
            k = nxt.key()
            if k in seen:
                continue
            seen.add(k)
            if max_states is not None and len(seen) > max_states:
                return None
            stack.append(nxt)
    return False


def reference_shortest_from(start: Position, max_states: int | None = None,
                            return_path: bool = False):
    """Breadth-first search from ``start``: the minimum number of moves to a win, ``"lost"`` when
    there is none, None when more than ``max_states`` distinct positions were seen first.

    With ``return_path`` the answer is ``(result, steps)``: ``steps`` is a shortest winning list
    of steps when ``result`` is a number, else None.
    """
    def done(result, path=None):
        return (result, path) if return_path else result

    if start.is_won():
        return done(0, [])
    parent: dict = {start.key(): None}          # key -> (parent key, step), None for the start
    frontier = [start]
    depth = 0
    while frontier:
        depth += 1
        nxt_frontier = []
        for pos in frontier:
            pk = pos.key()
            for step in pos.legal_steps():
                nxt = pos.copy()
                nxt.apply(step)
                k = nxt.key()
                if k in parent:
                    continue
                parent[k] = (pk, step)
                if nxt.is_won():
                    return done(depth, _path(parent, k))
                if max_states is not None and len(parent) > max_states:
                    return done(None)
                nxt_frontier.append(nxt)
        frontier = nxt_frontier
    return done(LOST)


def _path(parent: dict, key) -> list[tuple]:
    steps = []
    while parent[key] is not None:
        key, step = parent[key]
        steps.append(step)
    return steps[::-1]


def reference_winnable(deal, rules: Rules, max_states: int | None = None) -> bool | None:
    """``reference_winnable_from`` the deal's starting position."""
    return reference_winnable_from(Position(deal, rules), max_states)


def reference_shortest(deal, rules: Rules, max_states: int | None = None, return_path: bool = False):
    """``reference_shortest_from`` the deal's starting position."""
    return reference_shortest_from(Position(deal, rules), max_states, return_path)


def endgame_position(deal, rules: Rules, seed: int, pyramid_left: int,
                     stock_left: int | None = None, drawn: int | None = None) -> Position:
    """A small position of ``deal``: pyramid cards are removed "by fiat" one at a time, each
    chosen at random among the uncovered ones (so covering is respected), until ``pyramid_left``
    remain; then only ``stock_left`` stock cards are kept (a random subset in deal order; default
    a random count 0..12), and ``drawn`` of them (default random) are turned onto the waste.
    No recycle has been used. All randomness comes from ``random.Random(seed)``.
    """
    if not 0 <= pyramid_left <= PYRAMID_CARDS:
        raise ValueError(f"pyramid_left must be 0..{PYRAMID_CARDS}, not {pyramid_left}")
    rng = random.Random(seed)
    pos = Position(deal, rules)
    while pos.pyramid_left() > pyramid_left:
        free = [p for p in range(PYRAMID_CARDS)
                if pos.present >> p & 1 and not pos.present & int(COVER_MASK[p])]
        pos.present &= ~(1 << rng.choice(free))
    if stock_left is None:
        stock_left = rng.randint(0, 12)
    if not 0 <= stock_left <= len(pos.stock):
        raise ValueError(f"stock_left must be 0..{len(pos.stock)}, not {stock_left}")
    keep = set(rng.sample(range(len(pos.stock)), stock_left))
    pos.stock = [c for i, c in enumerate(pos.stock) if i in keep]
    if drawn is None:
        drawn = rng.randint(0, stock_left)
    if not 0 <= drawn <= stock_left:
        raise ValueError(f"drawn must be 0..{stock_left}, not {drawn}")
    for _ in range(drawn):
        pos.waste.append(pos.stock.pop())
    return pos


def partner_endgame(deal, rules: Rules, seed: int, pyramid_left: int) -> Position:
    """``endgame_position`` with a stock of partners: for each pyramid card left one of the deal's
    stock cards that pair with it (if any), and two others (goal "pyramid") or a king and maybe a
    pair of stock cards (goal "all"); all in deal order, a random
    number of them already drawn onto the waste."""
    rng = random.Random(seed)
    pos = endgame_position(deal, rules, seed, pyramid_left, stock_left=0)
    pool = [int(c) for c in deal[PYRAMID_CARDS:]]
    keep: set = set()
    if rules.goal == "pyramid":
        keep |= set(rng.sample(pool, 2))
    else:
        # every stock card must go too: only partners of pyramid cards, kings, and (when the
        # stock top is available) a pair of stock cards
        keep |= set([c for c in pool if card_rank(c) == 13][:1])
        pairs = [(a, b) for a in pool for b in pool if a < b and card_rank(a) + card_rank(b) == 13]
        if rules.stock_top and pairs:
            keep |= set(rng.choice(pairs))
    for c in pos.pyramid_cards():
        mates = [m for m in pool if card_rank(m) + card_rank(c) == 13 and m not in keep]
        if mates:
            keep.add(rng.choice(mates))
    cards = [c for c in pool if c in keep]
    drawn = rng.randint(0, len(cards))
    pos.waste = cards[:drawn]
    pos.stock = cards[drawn:][::-1]
    return pos
