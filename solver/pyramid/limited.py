"""The winnability search of real positions under limited recycles (``concrete_search``).

Real positions carry the stock pointer and the recycles used; the free-stock search
(``solver.pyramid.free_search``) is its relaxation and oracle, ``solver.pyramid.prune`` holds
the exact pruning rules that know the passes left, and ``solver.pyramid.pass_subgame`` the proofs
of loss by two classes of values played alone with the stock's order and the passes left.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.core.rng import shuffle, stream_seed
from solver.pyramid.free_search import LOST, UNKNOWN, WON, dead, dead_after, free_search
from solver.pyramid.lost_table import table_add, table_has
from solver.pyramid.pass_subgame import (ALL_CLASSES, grown_known, known_full, moved_classes,
                                         no_pass_buffers, pass_buffers, pass_subgame_lost,
                                         pass_subgame_triple_lost)
from solver.pyramid.prune import (LOST_STATE, bury_last_pass, forced_pair, unmatched,
                                  unmatched_after, waste_deadlock)
from solver.pyramid.state import REC_MASK, REC_SHIFT, apply_concrete, gen_concrete, is_won

ORACLE_TRIAL = 100
"""The free-stock oracle is asked about the first 100 positions of a limited-recycles search...
(1000 before the pass subgames: they now cut most of what it would, and on the slowest one-pass
deals its first 1000 answers cut nothing. Measured on the 24 combinations, 200 seeds each: fewer
positions on every row, about as many deals per second or more; ``--recycles 0 --stock-top``
seeds 0..999 250 -> 350 deals/s, mean positions 3,732 -> 1,855.)"""
ORACLE_MIN_SHARE = 10
"""...and after that only while at least 1 in 10 of its answers has cut a position (on stock-top
rules it cuts most lost lines; with the stock top hidden and few recycles it seldom does, and
asking it would only cost time)."""
MIDDLE_AFTER = 2000
"""Positions after which a child that is not on the last pass, and that the two-class subgames
do not prove lost, is also asked the three-class ones (under goal "pyramid")...
On the slowest ``msc`` deals of seeds 0..9,999 most positions lie on the middle pass, where the
two-class subgames seldom cut: 7750 went from 384,815 positions to 34,769 (0.30 -> 0.08 s),
5361 from 302,051 to 33,180, 6469 from 355,817 to 19,033, 1318 from 147,832 to 50,280. Asked
from the start they cost more than they save; asked after 2,000 positions the seeds 0..9,999
run about 7% faster in all (1,271 -> 1,368 deals/s, best of 2 alternating runs) and 0..1,999
about as fast (within the noise). Asked always after 5,000 positions, without the trial below,
they made won deals slower (327: 0.17 -> 0.34 s)."""
MIDDLE_TRIAL = 200
MIDDLE_MIN_SHARE = 10
"""...for its first 200 children, and after that only while at least 1 in 10 of them was cut."""
SUBGAME_AFTER = 64
"""Positions the search expands before it starts the pass-subgame proofs
(``solver.pyramid.pass_subgame``): most won deals finish sooner and never pay for its tables.
Not under rules without a recycle: there every position is on the last pass, where the
three-class proofs cut most, and they start at once. Measured (``--recycles 0 --stock-top``,
seeds 0..999): mean positions 680 -> 480, about 10% more deals per second; under ``msc`` starting
at once doubled the median won deal's time and cut almost nothing."""

RESTART_AFTER = 1000
"""Positions after which the search starts again from the top with the moves of every position
in another order, then again after twice as many, and so on (``RESTART_GROWTH``), under rules
with a recycle...

Why: on a won deal the first move tried can lead into a large lost subtree, searched to the end
before the next move; another order often finds a win at once (``msc``, seeds 0..1,999: seed
327 went from 174,462 positions to 1,601, the most positions of a deal from 174,462 to 55,300;
mean positions of the won deals 913 -> 724, of all deals 949 -> 824; about 25% more deals per
second, best of 3 alternating runs of 2 repetitions each: 1,424 -> 1,779).
What the search proved before a restart stays proved: every position it stored as lost had all
its moves searched, which no order changes, so a restart only walks again the positions that
were open on its stack. The order at a position is a shuffle seeded by the position and the
restart's number (``solver.core.rng``), so a search is the same every time. Without a recycle
the won deals gained nothing (``--recycles 0 --stock-top``, seeds 0..999: mean positions of the
won deals 516 -> 528) and the lost ones would pay for the walks again, so there it never
restarts. A first restart after 250, 500 or 2,000 positions, or a growth of 4, measured within
3% of this (mean positions under ``msc``, with a hand-written shuffle of the same kind tried
before this one)."""
RESTART_GROWTH = 2


@njit(cache=True, inline='always')
def reordered(state, restart, moves, n, rng):
    """``n``, after shuffling ``moves[:n]`` (the moves of ``state``) for the search's
    ``restart``-th start (none for the first, 0); ``rng`` is a one-element uint64 array."""
    if restart > 0 and n > 1:
        rng[0] = stream_seed(state, restart)
        shuffle(rng, moves[:n])
    return n


@njit(cache=True)
def concrete_search(tabs, start, rule, max_states, ws, lost, free_base, path):
    """Depth-first search of the real positions (limited recycles) from ``start``.

    The free-stock search serves as an oracle: a position whose pyramid and in-play cards lose
    even with unlimited recycles is lost, so before a position is expanded its free-stock
    answer is looked up (and searched for once, then remembered), for as long as the oracle
    earns its keep (``ORACLE_TRIAL``, ``ORACLE_MIN_SHARE``). The rules of ``solver.pyramid.prune``
    cut first: burial, the partner count and the waste deadlock on the last pass, and a forced
    pair is searched alone. After ``SUBGAME_AFTER`` positions (at once without a recycle) the
    pass-subgame proofs start:
    every position then on the stack is tried with the subgames of all pairs of classes, and
    every child after that with those of the classes its move changed (``moved_classes``: the
    others are the same subgames as its parent's, already won); on the last pass under goal
    "pyramid" with those of three classes instead (under goal "all" they cut few more positions
    and cost more than they save). A lost subgame of two classes makes every subgame of three
    holding them lost too (a win of the three, kept to the two, would win the two), and each of
    those has a changed class too, so the three-class ones alone cut every child the two-class
    ones would (unless a search gives up first: the positions expanded on seeds 0..999 of
    ``--recycles 0 --stock-top`` stay within 0.1%), with a third fewer subgames asked. On the
    earlier passes, once a search has expanded ``MIDDLE_AFTER`` positions, the children the
    two-class subgames leave open are asked the three-class ones too, while those cut
    (``MIDDLE_TRIAL``, ``MIDDLE_MIN_SHARE``). Their answers are kept for the whole search, in a
    set that grows when half full (``pass_subgame.grown_known``). Under rules with a recycle the
    search starts again from the top in another order after ``RESTART_AFTER`` positions, twice as
    many, and so on, keeping what it proved lost. Concrete positions use rows
    ``0..free_base-1``; the oracle the rows from ``free_base``. Returns ``(outcome, length,
    expanded, lost)``.
    """
    moves = ws.moves
    counts = ws.counts
    start = bury_last_pass(start, tabs, rule)
    if start == LOST_STATE:
        return LOST, 0, 0, lost
    o, _, expanded, lost = free_search(tabs, start, rule, max_states, ws, lost, free_base, path)
    if o != WON:
        return o, 0, expanded, lost
    if max_states > 0 and expanded >= max_states:
        return UNKNOWN, 0, expanded, lost
    pb = no_pass_buffers()  # the pass-subgame proofs start after SUBGAME_AFTER positions
    proving = False
    probes = 0
    prunes = 0
    middle_probes = 0
    middle_prunes = 0
    stack = np.empty(free_base, dtype=np.uint64)
    stack[0] = start
    counts[0, 0] = forced_pair(start, tabs, rule, moves[0],
                               gen_concrete(start, tabs, rule, moves[0]))
    counts[0, 1] = 0
    expanded += 1
    concrete = 1
    depth = 0
    rng = np.zeros(1, dtype=np.uint64)
    restart = 0
    next_restart = RESTART_AFTER if rule.recycles > 0 else -1
    since = 0  # positions expanded since the last (re)start
    while depth >= 0:
        if since == next_restart:  # again from the top, in another order (RESTART_AFTER)
            restart += 1
            next_restart *= RESTART_GROWTH
            since = 0
            depth = 0
            counts[0, 0] = reordered(start, restart, moves[0], forced_pair(
                start, tabs, rule, moves[0], gen_concrete(start, tabs, rule, moves[0])), rng)
            counts[0, 1] = 0
        if counts[depth, 1] < counts[depth, 0]:
            m = moves[depth, counts[depth, 1]]
            counts[depth, 1] += 1
            moved = apply_concrete(stack[depth], m)
            child = moved
            if is_won(child, rule.goal_all):
                for d in range(depth + 1):
                    path[d] = moves[d, counts[d, 1] - 1]
                return WON, depth + 1, expanded, lost
            buried = bury_last_pass(child, tabs, rule)
            if buried == LOST_STATE:
                continue
            if buried != child:  # cards left the game: any class may have lost its last partner
                child = buried
                if table_has(lost.table, child):
                    continue
                if dead(child, tabs, rule) or unmatched(child, tabs):
                    lost = table_add(lost, child, ws)
                    continue
            elif table_has(lost.table, child):
                continue
            elif dead_after(child, m, tabs, rule) or unmatched_after(child, m, tabs):
                lost = table_add(lost, child, ws)
                continue
            if np.int64((child & REC_MASK) >> REC_SHIFT) >= rule.recycles and \
                    waste_deadlock(child, tabs, rule):
                lost = table_add(lost, child, ws)
                continue
            if proving:
                classes = moved_classes(m, moved, child, tabs)
                if classes and not rule.goal_all and \
                        np.int64((child & REC_MASK) >> REC_SHIFT) >= rule.recycles:
                    # last pass: the three-class subgames alone (each holds two-class ones)
                    if pass_subgame_triple_lost(child, classes, tabs, rule, pb):
                        lost = table_add(lost, child, ws)
                        continue
                elif classes and pass_subgame_lost(child, classes, tabs, rule, pb):
                    lost = table_add(lost, child, ws)
                    continue
                elif classes and not rule.goal_all and concrete >= MIDDLE_AFTER and \
                        (middle_probes < MIDDLE_TRIAL or
                         middle_prunes * MIDDLE_MIN_SHARE >= middle_probes):
                    middle_probes += 1
                    if pass_subgame_triple_lost(child, classes, tabs, rule, pb):
                        middle_prunes += 1
                        lost = table_add(lost, child, ws)
                        continue
                if known_full(pb):
                    pb = grown_known(pb)
            elif concrete >= SUBGAME_AFTER or rule.recycles == 0:
                # from now on: every position on the stack gets its subgames tried once, the
                # children only those of the classes their move changed
                proving = True
                pb = pass_buffers(rule.recycles)
                cut = False
                for d in range(depth + 1):
                    if pass_subgame_lost(stack[d], ALL_CLASSES, tabs, rule, pb):
                        counts[d, 1] = counts[d, 0]  # lost: popped next, stored as lost
                        depth = d
                        cut = True
                        break
                if cut:
                    continue
                if pass_subgame_lost(child, ALL_CLASSES, tabs, rule, pb):
                    lost = table_add(lost, child, ws)
                    continue
            left = max_states - expanded if max_states > 0 else 0
            if max_states > 0 and left <= 0:
                return UNKNOWN, 0, expanded, lost
            if probes < ORACLE_TRIAL or prunes * ORACLE_MIN_SHARE >= probes:
                probes += 1
                o, _, e, lost = free_search(tabs, child, rule, left, ws, lost, free_base, path)
                expanded += e
                if o == UNKNOWN:
                    return UNKNOWN, 0, expanded, lost
                if o == LOST:
                    prunes += 1
                    lost = table_add(lost, child, ws)
                    continue
                if max_states > 0 and expanded >= max_states:
                    return UNKNOWN, 0, expanded, lost
            expanded += 1
            concrete += 1
            since += 1
            depth += 1
            stack[depth] = child
            counts[depth, 0] = reordered(child, restart, moves[depth], forced_pair(
                child, tabs, rule, moves[depth], gen_concrete(child, tabs, rule, moves[depth])),
                rng)
            counts[depth, 1] = 0
        else:
            lost = table_add(lost, stack[depth], ws)
            depth -= 1
    return LOST, 0, expanded, lost
