"""What the Pyramid tests share: every rule combination, a replay position packed for the
kernels, and the per-deal winnability search the whole-chunk kernels must reproduce."""

from __future__ import annotations

import itertools
import random

import numpy as np

from solver.pyramid.model.outcome import Outcome
from solver.pyramid.optimal.api import solve_optimal
from solver.pyramid.winnable.dfs import decide_batch
from solver.pyramid.model.replay import Position
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.state import pack_position
from solver.pyramid.winnable.solve import Workspace

ALL_RULES = [Rules(recycles=r, overlap=o, stock_top=s, goal=g)
             for r, o, s, g in itertools.product((None, 0, 1, 2), (True, False), (False, True),
                                                 ("pyramid", "all"))]
"""Every combination of the rule options (32): recycles unlimited/0/1/2, overlap, stock top, goal."""


def packed(pos: Position) -> int:
    """The replay checker's position ``pos`` as the kernels' packed uint64 (as an int)."""
    return pack_position(pos.deal, pos.present, pos.stock, pos.waste, pos.recycles_used,
                         pos.rules.recycles is not None)


def per_deal_outcomes(deals: np.ndarray, rules: Rules, max_states: int = 0):
    """``(outcome, states)`` of ``dfs.decide_batch``: each deal's own winnability search, the
    columns the whole-chunk kernels must reproduce."""
    ws = Workspace.create(rules)
    outcome = np.zeros(len(deals), dtype=np.int8)
    states = np.zeros(len(deals), dtype=np.int64)
    decide_batch(deals, rules.args, max_states, ws.args(), outcome, states)
    return outcome, states


def start_position(deal, rules: Rules, seed: int, pyramid_left: int = 20,
                   win_prefix: int = 10) -> Position:
    """A position of ``deal`` after a few moves: for an odd seed the first ``win_prefix`` moves
    of a shortest win (when there is one), else a seeded random line preferring removals until
    at most ``pyramid_left`` pyramid cards are left (or no move is left)."""
    pos = Position(deal, rules)
    if seed % 2:
        won = solve_optimal(deal, rules, max_states=200_000)
        if won.outcome == Outcome.WON:
            for step in won.solution[:win_prefix]:
                pos.apply(step)
            return pos
    rng = random.Random(seed)
    while pos.pyramid_left() > pyramid_left:
        steps = pos.legal_steps()
        if not steps:
            break
        removals = [s for s in steps if s[0] in ("pair", "king")]
        pos.apply(rng.choice(removals or steps))
    return pos
