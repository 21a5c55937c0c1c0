"""Plain reference for the best partial result (``solver.pyramid.analysis.partial.best_partial``).

Built on ``solver.pyramid.model.replay.Position`` alone: a breadth-first search over every position
reachable from the start (no pruning, no move reductions, no bounds), keeping the largest count
of cards removed seen and the depth at which it was first seen. Breadth-first order makes that
depth the fewest moves reaching the count. The count is the fast solver's: pyramid cards gone
(goal "pyramid") or all cards gone (goal "all"), from the deal's start, so cards removed before
``start`` (or "by fiat" in an endgame) count too.
"""

from __future__ import annotations

from solver.pyramid.model.layout import DECK_CARDS, PYRAMID_CARDS
from solver.pyramid.model.replay import Position


def removed(pos: Position) -> int:
    """Counted cards gone from ``pos``."""
    if pos.rules.goal == "pyramid":
        return PYRAMID_CARDS - pos.pyramid_left()
    return DECK_CARDS - pos.pyramid_left() - len(pos.stock) - len(pos.waste)


def reference_partial_from(start: Position, max_states: int | None = None):
    """``(best, moves, steps)``: the largest count reachable from ``start``, the fewest moves that
    reach it and such a line; None when more than ``max_states`` positions were seen first."""
    parent: dict = {start.key(): None}
    best, best_key, best_depth = removed(start), start.key(), 0
    frontier = [start]
    depth = 0
    while frontier:
        depth += 1
        nxt_frontier = []
        for pos in frontier:
            key = pos.key()
            for step in pos.legal_steps():
                nxt = pos.copy()
                nxt.apply(step)
                k = nxt.key()
                if k in parent:
                    continue
                parent[k] = (key, step)
                if max_states is not None and len(parent) > max_states:
                    return None
                c = removed(nxt)
                if c > best:
                    best, best_key, best_depth = c, k, depth
                nxt_frontier.append(nxt)
        frontier = nxt_frontier
    steps = []
    k = best_key
    while parent[k] is not None:
        k, step = parent[k]
        steps.append(step)
    steps.reverse()
    assert len(steps) == best_depth
    return best, best_depth, steps
