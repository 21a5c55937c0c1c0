"""The forced-pair and waste-deadlock rules of the limited-recycles search
(``solver.pyramid.winnable.prune.forced_pair``, ``waste_deadlock``) against the plain concrete reference,
on seeded positions where they fire.

Where the rule keeps one move of several (a pair whose card must leave and has no other partner
left), the reference must give the position the same verdict as the position after that move,
and the fast search (which uses the rule) must agree with the reference on the position. The
positions are the seeded endgames of ``test_limited_pruning`` (most on the last pass, some with
recycles left), under every limited-recycles rule combination. Where the waste deadlock fires
(last pass only), the reference must find the position lost.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from reference.pyramid import reference_winnable_from
from solver.pyramid.winnable.prune import forced_pair, waste_deadlock
from solver.pyramid.model.state import MAX_MOVES, gen_concrete
from solver.pyramid.winnable.solve import Workspace, concrete_step, solve_winnable
from tests.pyramid.test_limited_pruning import (LIMITED_RULES, REFERENCE_CAP, RULE_IDS,
                                                last_pass_endgame, packed, rule_fired)

POSITIONS_PER_RULES = 40
"""Seeded endgames tried per rule combination (the rule fires on a share of them)."""


def forced_move(pos) -> tuple[int | None, int]:
    """The move ``forced_pair`` keeps in ``pos`` (None when it keeps them all) and how many moves
    the concrete generator offered."""
    tabs = pos.deal.tables
    rule = pos.rules.args
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    n = gen_concrete(np.uint64(packed(pos)), tabs, rule, moves)
    kept = forced_pair(np.uint64(packed(pos)), tabs, rule, moves, n)
    return (int(moves[0]) if kept == 1 and n > 1 else None), n


@functools.lru_cache(maxsize=None)
def forced_checks(rules) -> dict:
    """Every seeded endgame of ``rules`` where the rule fires, checked against the reference;
    returns counts (once per test run)."""
    counts = {"fired": 0, "won": 0, "lost": 0}
    ws = Workspace.create(rules)
    first = 5000 + 1000 * LIMITED_RULES.index(rules)
    for seed in range(first, first + POSITIONS_PER_RULES):
        pos = last_pass_endgame(rules, seed)
        if seed % 4 == 0 and rules.recycles > 0:
            pos.recycles_used = rules.recycles - 1  # a pass left: the rule holds there too
        m, _ = forced_move(pos)
        if m is None:
            continue
        truth = reference_winnable_from(pos, REFERENCE_CAP)
        if truth is None:
            continue
        counts["fired"] += 1
        after = pos.copy()
        after.apply(concrete_step(pos.deal, m))
        assert reference_winnable_from(after, REFERENCE_CAP) == truth, (seed, rules)
        fast = solve_winnable(pos.deal, rules, workspace=ws, start=packed(pos))
        assert fast.winnable == truth, (seed, rules)
        counts["won" if truth else "lost"] += 1
    return counts


@pytest.mark.parametrize("rules", LIMITED_RULES, ids=RULE_IDS)
def test_forced_pair_keeps_the_verdict(rules):
    rule_fired(forced_checks, rules)


def test_forced_pair_fires_on_both_verdicts():
    total = {k: sum(forced_checks(r)[k] for r in LIMITED_RULES) for k in ("fired", "won", "lost")}
    print(total)
    assert total["won"] >= 20 and total["lost"] >= 60, total


DEADLOCK_POSITIONS = 120
"""Seeded last-pass endgames tried per rule combination for the waste deadlock."""


@functools.lru_cache(maxsize=None)
def deadlock_checks(rules) -> dict:
    """Every seeded last-pass endgame of ``rules`` where the waste deadlock fires: the reference
    must find it lost (once per test run)."""
    counts = {"fired": 0, "tried": 0}
    tabs_rule = rules.args
    first = 9000 + 1000 * LIMITED_RULES.index(rules)
    for seed in range(first, first + DEADLOCK_POSITIONS):
        pos = last_pass_endgame(rules, seed)
        counts["tried"] += 1
        if not waste_deadlock(np.uint64(packed(pos)), pos.deal.tables, tabs_rule):
            continue
        truth = reference_winnable_from(pos, REFERENCE_CAP)
        assert truth is not None and not truth, (seed, rules)
        counts["fired"] += 1
    return counts


@pytest.mark.parametrize("rules", LIMITED_RULES, ids=RULE_IDS)
def test_waste_deadlock_only_on_lost_positions(rules):
    rule_fired(deadlock_checks, rules)
