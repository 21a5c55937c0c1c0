"""Proofs of loss and lower bounds that other tests check against the fast searches, here checked
against the plain concrete reference (``tests/reference/pyramid.py``) on seeded endgames and the
positions along a random line from each (``test_generator_rules.positions``).

* the dead-card test (``winnable.free_search.dead``, which every search uses): where it fires,
  the reference finds the position lost, under all 32 combinations of the rule options;
* the free-stock search as the relaxation the limited-recycles search asks first
  (``free_search_proving``, called as ``limited.concrete_search`` calls it): where it finds a
  position lost, the reference finds it lost under the limit too (the 24 limited combinations);
* the minimum-move bound's claim of loss (``bound >= FAR_BOUND``): the reference finds the
  position lost (the 16 combinations of goal "pyramid": under goal "all" it claims none);
* the proofs of ``optimal.passes`` (default rules): ``pass_lost``, ``two_passes_lost`` and
  ``free_lost`` give the reference's verdict with no recycle, one recycle and unlimited recycles;
  where ``pass_dead`` fires the reference finds no win within the pass; the proofs hold one move
  on (a ``pass_lost`` proof for every move but a recycle, a ``two_passes_lost`` proof for those
  and, through the recycle, as a proof for the next pass); and the pass term
  (``bound.pass_floor``) and the two-pass term (``bound.two_passes_floor``) never exceed the
  reference's shortest win where their proofs hold.

Each check counts the positions where its rule fired, and the test fails when it fired too
seldom to tell a sound rule from one that prunes too much.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from reference.pyramid import LOST, reference_shortest_from
from solver.pyramid.model.replay import Position
from solver.pyramid.model.rules import Rules
from solver.pyramid.optimal import passes
from solver.pyramid.optimal.bound import FAR_BOUND, pass_floor, start_bound, two_passes_floor
from solver.pyramid.optimal.tables import class_tables
from solver.pyramid.model.outcome import LOST as LOST_OUTCOME
from solver.pyramid.winnable.free_search import FREE_DEPTH, PROOF_AFTER, dead, free_search_proving
from solver.pyramid.winnable.lost_table import LostTable, table_clear
from solver.pyramid.winnable.solve import Workspace
from tests.pyramid.cases import ALL_RULES, packed
from tests.pyramid.test_generator_rules import CAP, RULE_IDS, positions, won
from tests.pyramid.test_optimal_passes import ask, scratch

POSITIONS = 60
"""Seeded endgames per rule combination (and the positions along a random line from each)."""
FIRST = 60_000
"""The first seed of the endgames (``test_generator_rules.endgame``; others than its tests')."""
LIMITED = [r for r in ALL_RULES if r.recycles is not None]
LIMITED_IDS = [RULE_IDS[ALL_RULES.index(r)] for r in LIMITED]
PYRAMID_GOAL = [r for r in ALL_RULES if r.goal == "pyramid"]
PYRAMID_GOAL_IDS = [RULE_IDS[ALL_RULES.index(r)] for r in PYRAMID_GOAL]
STANDARD = Rules()


def under(pos: Position, rules: Rules, recycles_used: int = 0) -> Position:
    """``pos`` as a position of ``rules`` (same cards, ``recycles_used`` recycles spent)."""
    new = Position(pos.deal, rules)
    new.present = pos.present
    new.stock = list(pos.stock)
    new.waste = list(pos.waste)
    new.recycles_used = recycles_used
    return new


@functools.lru_cache(maxsize=None)
def verdicts(rules: Rules) -> tuple:
    """``(label, position, the reference's verdict)`` of the seeded endgames of ``rules`` and
    the positions along a random line from each (``test_generator_rules.positions``), once per
    test run."""
    return tuple((label, pos, won(pos)) for label, pos in positions(rules, POSITIONS, FIRST))


def claims(rules: Rules, claim) -> dict:
    """Where ``claim(pos)`` says ``pos`` is lost, the reference agrees; counts of the positions
    where it fired and of the others, won and lost."""
    counts = {"fired": 0, "quiet won": 0, "quiet lost": 0}
    for label, pos, truth in verdicts(rules):
        if claim(pos):
            assert not truth, (label, rules)
            counts["fired"] += 1
        else:
            counts["quiet won" if truth else "quiet lost"] += 1
    print(f"{rules.describe()}: {counts}")
    return counts


def dead_claim(pos: Position) -> bool:
    return bool(dead(np.uint64(packed(pos)), pos.deal.tables, pos.rules.args))


def far_claim(pos: Position) -> bool:
    rule = pos.rules.args
    ctab = pos.deal.built(class_tables, rule.overlap)
    return int(start_bound(pos.deal.cards, ctab, np.uint64(packed(pos)), rule)) >= FAR_BOUND


@functools.lru_cache(maxsize=None)
def workspace(rules: Rules) -> Workspace:
    return Workspace.create(rules)


def free_stock_claim(pos: Position) -> bool:
    """The free-stock search of ``pos`` called as ``limited.concrete_search`` calls it first (its
    relaxation), in a workspace of the limited rules left clean."""
    ws = workspace(pos.rules)
    args = ws.args()
    lost = LostTable(ws.table, 0, False)
    path = np.zeros(len(ws.counts), dtype=np.int64)
    outcome, _, _, lost = free_search_proving(
        pos.deal.tables, np.uint64(packed(pos)), pos.rules.args, 0, args, lost,
        np.int64(len(ws.counts) - FREE_DEPTH), path, PROOF_AFTER)
    if not lost.grown:
        table_clear(ws.table, ws.touched, lost.n)
    return outcome == LOST_OUTCOME


@pytest.mark.parametrize("rules", ALL_RULES, ids=RULE_IDS)
def test_dead_card_only_on_lost_positions(rules):
    counts = claims(rules, dead_claim)
    assert counts["fired"] >= 30 and counts["quiet won"] >= 3, counts


@pytest.mark.parametrize("rules", PYRAMID_GOAL, ids=PYRAMID_GOAL_IDS)
def test_bound_claims_loss_only_on_lost_positions(rules):
    """Goal "pyramid" only: under goal "all" the bound never claims a loss."""
    counts = claims(rules, far_claim)
    assert counts["fired"] >= 30 and counts["quiet won"] >= 3, counts


@pytest.mark.parametrize("rules", LIMITED, ids=LIMITED_IDS)
def test_free_stock_loss_is_a_loss_under_the_limit(rules):
    counts = claims(rules, free_stock_claim)
    assert counts["fired"] >= 30 and counts["quiet won"] >= 3, counts


# --------------------------------------------------------------------------- the pass proofs

NO_RECYCLE = Rules(recycles=0)
ONE_RECYCLE = Rules(recycles=1)
PASS_POSITIONS = 200
"""Seeded endgames of the default rules for the pass proofs (and the positions along a random
line from each: ``test_generator_rules.positions``)."""


@functools.lru_cache(maxsize=None)
def pass_answers() -> tuple:
    """``(position, pass_lost, two_passes_lost, free_lost, pass_dead)`` for the ``positions`` of
    the default rules (answers left open are None; the proofs of one deal share the cache, as in
    a search), once per test run."""
    arrays = scratch()
    out = []
    for _, pos in positions(STANDARD, PASS_POSITIONS, FIRST):
        state = packed(pos)
        answers = [ask(kernel, pos.deal, state, arrays)
                   for kernel in (passes.pass_lost, passes.two_passes_lost, passes.free_lost)]
        answers = [None if a == passes.OPEN else a == passes.LOST for a in answers]
        lost_in_pass = bool(passes.pass_dead(np.uint64(state), pos.deal.tables))
        out.append((pos, *answers, lost_in_pass))
    return tuple(out)


def test_pass_proofs_give_the_verdicts_of_the_reference():
    """``pass_lost``, ``two_passes_lost`` and ``free_lost`` against the reference with no recycle,
    one recycle and unlimited recycles; ``pass_dead`` fires only where there is no win within
    the pass. Both answers of each occur often."""
    seen = {}
    for pos, *answers, lost_in_pass in pass_answers():
        for name, answer, rules in zip(("pass", "two passes", "free"), answers,
                                       (NO_RECYCLE, ONE_RECYCLE, STANDARD)):
            if answer is None:
                continue
            assert answer == (not won(under(pos, rules))), (name, pos)
            seen[name, answer] = seen.get((name, answer), 0) + 1
        if lost_in_pass:
            assert not won(under(pos, NO_RECYCLE)), pos
            seen["dead"] = seen.get("dead", 0) + 1
    print(seen)
    assert min(seen.get((name, a), 0) for name in ("pass", "two passes", "free")
               for a in (True, False)) >= 30, seen
    assert seen.get("dead", 0) >= 30, seen


def test_pass_proofs_hold_for_the_positions_they_lead_to():
    """A position proven not winnable within its pass leads by every move but a recycle to
    positions not winnable within their pass (the A* search hands the proof down to them, and
    the cache answers for a later pointer of the same cards); one proven not winnable with one
    more recycle leads by every move but a recycle to positions of which that holds too, and by
    the recycle to one not winnable within its pass."""
    checked = {"pass": 0, "two passes": 0, "recycle": 0}
    for pos, lost_pass, lost_two, _, _ in pass_answers():
        for step in pos.legal_steps():
            child = pos.copy()
            child.apply(step)
            recycle = step[0] == "recycle"
            if lost_pass and not recycle:
                assert not won(under(child, NO_RECYCLE)), (pos, step)
                checked["pass"] += 1
            if lost_two:
                assert not won(under(child, NO_RECYCLE if recycle else ONE_RECYCLE)), (pos, step)
                checked["recycle" if recycle else "two passes"] += 1
    print(checked)
    assert checked["pass"] >= 200 and checked["two passes"] >= 100 and checked["recycle"] >= 5, \
        checked


def test_pass_terms_never_exceed_the_shortest_win():
    """Where ``pass_lost`` (``two_passes_lost``) proves a position that the reference can win,
    the pass term (the two-pass term) is at most the reference's shortest win. The pass term
    meets the shortest win on some of them, the two-pass term comes within a few moves."""
    slack = {"pass": [], "two passes": []}
    for pos, lost_pass, lost_two, _, _ in pass_answers():
        if not (lost_pass or lost_two):
            continue
        length = reference_shortest_from(pos, CAP)
        assert length is not None
        if length == LOST:
            continue
        state = np.uint64(packed(pos))
        ctab = pos.deal.built(class_tables, True)
        tabs = pos.deal.tables
        if lost_pass:
            slack["pass"].append(length - int(pass_floor(state, ctab, tabs)))
        if lost_two:
            slack["two passes"].append(length - int(two_passes_floor(state, ctab, tabs)))
    print({name: sorted(s)[:10] for name, s in slack.items()},
          {name: len(s) for name, s in slack.items()})
    assert min(slack["pass"] + slack["two passes"]) >= 0, slack
    assert len(slack["pass"]) >= 30 and len(slack["two passes"]) >= 8, slack
    assert min(slack["pass"]) == 0, slack  # sharp: a pass term one move too high fails here
