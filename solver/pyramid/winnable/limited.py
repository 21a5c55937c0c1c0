"""The winnability search of real positions under limited recycles (``concrete_search``).

Real positions carry the stock pointer and the recycles used; the free-stock search
(``solver.pyramid.winnable.free_search``), its relaxation, is asked about the start first,
``solver.pyramid.winnable.prune`` holds
the exact pruning rules that know the passes left, and ``solver.pyramid.winnable.pass_subgame`` the proofs
of loss by two classes of values played alone with the stock's order and the passes left.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.core.rng import shuffle, stream_seed
from solver.core.jit import kernel, noalloc
from solver.pyramid.winnable.free_search import (NOT_STARTED, PROOF_AFTER, dead, dead_after,
                                        free_search_proving)
from solver.pyramid.model.outcome import LOST, UNKNOWN, WON
from solver.pyramid.winnable.lost_table import (GROW_TABLE, LostTable, Searched, grown_table,
                                                must_grow, pass_lost, pass_lost_put)
from solver.pyramid.winnable.pass_subgame import (ALL_CLASSES, grown_known, known_full,
                                                  moved_classes, no_pass_buffers, pass_buffers,
                                                  pass_subgame_lost, pass_subgame_triple_lost)
from solver.pyramid.winnable.prune import (LOST_STATE, bury_last_pass, forced_pair, unmatched,
                                  unmatched_after, waste_deadlock)
from solver.pyramid.model.state import REC_MASK, REC_SHIFT, apply_concrete, gen_concrete, is_won

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
(``solver.pyramid.winnable.pass_subgame``): most won deals finish sooner and never pay for its tables.
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


START_PROVING = 5
GROW_KNOWN = 6
"""What ``concrete_walk`` returns when it suspends for memory (never an ``Outcome``; beside
``lost_table.GROW_TABLE``): its driver makes the pass-subgame buffers (``START_PROVING``) or
grows their set of known answers (``GROW_KNOWN``), then calls it again."""

(R_DEPTH, R_EXPANDED, R_CONCRETE, R_SINCE, R_RESTART, R_NEXT_RESTART, R_MIDDLE_PROBES,
 R_MIDDLE_PRUNES, R_PROVING, R_LOST_N, R_GROWN, R_LENGTH) = range(12)
"""Registers of ``concrete_walk`` (an int64 array of ``N_REGS``, ``concrete_regs``): its depth
(``NOT_STARTED`` before it begins), positions expanded (the free-stock search's of the start
included) and real positions expanded, positions since the last restart, the restart's number
and the positions it runs for, the middle-pass subgames' questions and cuts, whether the
pass-subgame proofs run (``PROVING_OFF``, ``PROVING_SWEEP``, ``PROVING_ON``), the lost table's
keys and whether it grew, and the length of a win."""
N_REGS = 12
PROVING_OFF, PROVING_SWEEP, PROVING_ON = 0, 1, 2
"""``R_PROVING``: not yet; starting (every position on the stack is asked its subgames first);
running."""


@kernel
def concrete_regs(lost, rule, expanded):
    """Fresh registers of ``concrete_walk`` for the lost table ``lost`` (a ``LostTable``), after
    ``expanded`` positions of the free-stock search."""
    regs = np.zeros(N_REGS, dtype=np.int64)
    regs[R_DEPTH] = NOT_STARTED
    regs[R_EXPANDED] = expanded
    regs[R_NEXT_RESTART] = RESTART_AFTER if rule.recycles > 0 else -1
    regs[R_LOST_N] = lost.n
    regs[R_GROWN] = lost.grown
    return regs


@kernel
def concrete_search(tabs, start, rule, max_states, ws, lost, free_base, path):
    """Depth-first search of the real positions (limited recycles) from ``start``.

    The free-stock search of the start comes first (``free_search.free_search_proving``, with the
    subgame proofs of ``solver.pyramid.winnable.subgame`` after ``PROOF_AFTER`` positions): a start that
    loses even with unlimited recycles is lost, which settles nearly every lost ``msc`` deal (660
    of the 666 of seeds 0..1,999). Then ``concrete_walk``: this driver owns the memory (the
    stack, the pass-subgame buffers, a lost table that grows) and calls the kernel again after
    each suspension. Concrete positions use rows ``0..free_base-1`` of the workspace, the
    free-stock search the rows from ``free_base``. Returns a ``Searched``.
    """
    start = bury_last_pass(start, tabs, rule)
    if start == LOST_STATE:
        return Searched(LOST, 0, 0, lost)
    free = free_search_proving(tabs, start, rule, max_states, ws, lost, free_base, path,
                               PROOF_AFTER)
    expanded, lost = free.states, free.lost
    if free.outcome != WON:
        return Searched(free.outcome, 0, expanded, lost)
    if max_states > 0 and expanded >= max_states:
        return Searched(UNKNOWN, 0, expanded, lost)
    regs = concrete_regs(lost, rule, expanded)
    stack = np.empty(free_base, dtype=np.uint64)
    rng = np.zeros(1, dtype=np.uint64)
    pb = no_pass_buffers()  # the pass-subgame proofs start after SUBGAME_AFTER positions
    while True:
        o = concrete_walk(tabs, start, rule, max_states, ws, lost.table, stack, rng, pb, regs,
                          path)
        lost = LostTable(lost.table, regs[R_LOST_N], lost.grown)
        if o == GROW_TABLE:
            lost = grown_table(lost, ws)
            regs[R_GROWN] = lost.grown
        elif o == START_PROVING:
            pb = pass_buffers(rule.recycles)
            regs[R_PROVING] = PROVING_SWEEP
        elif o == GROW_KNOWN:
            pb = grown_known(pb)
        else:
            return Searched(o, regs[R_LENGTH], regs[R_EXPANDED], lost)


@noalloc
def concrete_walk(tabs, start, rule, max_states, ws, table, stack, rng, pb, regs, path):
    """The kernel of the search of real positions (limited recycles): depth first from
    ``start``, resumable, allocating nothing.

    ``start`` is a position the free-stock search has found won (``concrete_search``). (That
    search was asked about every child as well, the first 100 and then while 1 in 10 of its
    answers cut; it no longer paid for itself once the pass subgames cut most of what it would:
    the kernels with and without it, run interleaved in two processes on the 24 combinations,
    200 seeds each, the fastest of two runs per deal, took 0.65 to 0.99 of the time without it
    on 18 rows, and on the issue's seeds about 2% less under ``msc`` and 6% less under
    ``--recycles 0 --stock-top``. Of the other rows, four take only 13-79 ms for their 200
    deals, the noise of such a run, and two took 3-5% longer.) The rules of ``solver.pyramid.winnable.prune``
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
    many, and so on, keeping what it proved lost.

    Memory comes from the caller (``concrete_search``): ``stack`` (room for the deepest line),
    ``rng`` (one uint64), the pass buffers ``pb`` and the registers ``regs``
    (``concrete_regs``). Returns an ``Outcome`` (a win's moves in
    ``path[:regs[R_LENGTH]]``), or suspends at the top of its loop, or before a child it will
    take again: ``GROW_TABLE`` (room is kept for the next key), ``START_PROVING`` (the pass
    buffers are needed), ``GROW_KNOWN`` (``pass_subgame.known_full``). Called again with the
    same arguments and what it asked for, it goes on where it stopped: the same search, the
    same positions, as if it had never stopped.
    """
    moves = ws.moves
    counts = ws.counts
    touched = ws.touched
    n = regs[R_LOST_N]
    grown = regs[R_GROWN] != 0
    if regs[R_DEPTH] == NOT_STARTED:
        stack[0] = start
        counts[0, 0] = forced_pair(start, tabs, rule, moves[0],
                                   gen_concrete(start, tabs, rule, moves[0]))
        counts[0, 1] = 0
        regs[R_EXPANDED] += 1
        regs[R_CONCRETE] = 1
        regs[R_DEPTH] = 0
    depth = regs[R_DEPTH]
    expanded = regs[R_EXPANDED]
    concrete = regs[R_CONCRETE]
    since = regs[R_SINCE]  # positions expanded since the last (re)start
    restart = regs[R_RESTART]
    next_restart = regs[R_NEXT_RESTART]
    middle_probes = regs[R_MIDDLE_PROBES]
    middle_prunes = regs[R_MIDDLE_PRUNES]
    proving = regs[R_PROVING]
    status = LOST
    while depth >= 0:
        if must_grow(table, n, 1, ws.max_table):
            status = GROW_TABLE
            break
        if proving != PROVING_OFF and known_full(pb):
            status = GROW_KNOWN
            break
        if proving == PROVING_SWEEP:
            # from now on: every position on the stack gets its subgames tried once, the
            # children only those of the classes their move changed
            proving = PROVING_ON
            for d in range(depth + 1):
                if pass_subgame_lost(stack[d], ALL_CLASSES, tabs, rule, pb):
                    counts[d, 1] = counts[d, 0]  # lost: popped next, stored as lost
                    depth = d
                    break
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
                regs[R_LENGTH] = depth + 1
                status = WON
                break
            buried = bury_last_pass(child, tabs, rule)
            if buried == LOST_STATE:
                continue
            if buried != child:  # cards left the game: any class may have lost its last partner
                child = buried
                if pass_lost(table, child):
                    continue
                if dead(child, tabs, rule) or unmatched(child, tabs):
                    n = pass_lost_put(table, n, grown, child, touched)
                    continue
            elif pass_lost(table, child):
                continue
            elif dead_after(child, m, tabs, rule) or unmatched_after(child, m, tabs):
                n = pass_lost_put(table, n, grown, child, touched)
                continue
            if np.int64((child & REC_MASK) >> REC_SHIFT) >= rule.recycles and \
                    waste_deadlock(child, tabs, rule):
                n = pass_lost_put(table, n, grown, child, touched)
                continue
            if proving != PROVING_OFF:
                classes = moved_classes(m, moved, child, tabs)
                if classes and not rule.goal_all and \
                        np.int64((child & REC_MASK) >> REC_SHIFT) >= rule.recycles:
                    # last pass: the three-class subgames alone (each holds two-class ones)
                    if pass_subgame_triple_lost(child, classes, tabs, rule, pb):
                        n = pass_lost_put(table, n, grown, child, touched)
                        continue
                elif classes and pass_subgame_lost(child, classes, tabs, rule, pb):
                    n = pass_lost_put(table, n, grown, child, touched)
                    continue
                elif classes and not rule.goal_all and concrete >= MIDDLE_AFTER and \
                        (middle_probes < MIDDLE_TRIAL or
                         middle_prunes * MIDDLE_MIN_SHARE >= middle_probes):
                    middle_probes += 1
                    if pass_subgame_triple_lost(child, classes, tabs, rule, pb):
                        middle_prunes += 1
                        n = pass_lost_put(table, n, grown, child, touched)
                        continue
            elif concrete >= SUBGAME_AFTER or rule.recycles == 0:
                counts[depth, 1] -= 1  # this child again, once the pass buffers are made
                status = START_PROVING
                break
            if max_states > 0 and expanded >= max_states:
                status = UNKNOWN
                break
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
            n = pass_lost_put(table, n, grown, stack[depth], touched)
            depth -= 1
    regs[R_DEPTH] = depth
    regs[R_EXPANDED] = expanded
    regs[R_CONCRETE] = concrete
    regs[R_SINCE] = since
    regs[R_RESTART] = restart
    regs[R_NEXT_RESTART] = next_restart
    regs[R_MIDDLE_PROBES] = middle_probes
    regs[R_MIDDLE_PRUNES] = middle_prunes
    regs[R_PROVING] = proving
    regs[R_LOST_N] = n
    return status
