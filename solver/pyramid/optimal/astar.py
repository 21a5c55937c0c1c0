"""The A* loop of the minimum-move search (``solver.pyramid.optimal.api`` drives it).

The search is A* over the concrete packed positions of ``solver.pyramid.model.state`` (bit 63 included,
so the partial-order reduction of ``gen_concrete`` applies), with

* the node store, tagged hash index and bucket queue of ``solver.pyramid.optimal.index`` (among the
  positions of the lowest f the one with the lowest h, i.e. the most moves made, comes first,
  which reaches the goal layer soonest; h above ``H_BUCKETS - 1`` of the API shares the last
  list). The kernel never allocates: when an array is about to be too small it returns a
  ``GROW_*`` status and the Python driver enlarges it and calls again. It also returns
  ``PAUSED`` after ``budget`` expansions, so the driver can check the clock (numba has no clock);
* the admissible, consistent ``bound`` of ``solver.pyramid.optimal.bound`` and the dead-card
  pruning of ``solver.pyramid.winnable.free_search`` (a position with a card that can never be
  removed has no solution);
* the move generator ``gen_optimal`` of ``solver.pyramid.optimal.moves``, which leaves out moves
  that a shortest solution never needs; after a draw or a recycle, the positions whose only move
  is another draw or recycle are stepped over (``forced_jump``), not stored: the child is the
  first position with a choice, its moves so far counting every move of the line (about four
  positions in ten of a hard deal's search were such steps);
* an optional upper bound ``regs[R_UB]`` (the length of a known solution): positions whose
  f-value exceeds it are not stored;
* under the default rules (stock top hidden, unlimited recycles, goal "pyramid"), once the driver
  turns them on (``regs[R_PASS]``), the proofs of ``solver.pyramid.optimal.passes``: a child of a
  pair or a king that cannot be won at all is dropped (``free_lost``; a position stored before
  the proofs came on is asked when it comes up, and so are its children by a draw); a position
  that cannot be won within its pass gets the pass term as its bound (``pass_lost``,
  ``bound.pass_floor``), and one of those that cannot be won with one recycle either gets the
  two-pass term (``two_passes_lost``, ``bound.two_passes_floor``). The questions are asked when a
  position comes up for expansion, not when it is stored (a third of the positions stored never
  come up): proven, the position goes back into the queue at its new f-value (flags
  ``PASS_PROVEN``, ``TWO_PROVEN``; the two-pass question when it comes up again, and only when
  the term would lift it ``TWO_JUMP`` layers); its children from moves other than a recycle
  inherit the proofs, and its children through a recycle inherit a two-pass proof as a pass
  proof. The searches of the questions may take ``PASS_CREDIT`` positions per expansion on
  average (``regs[R_CREDIT]``); beyond that the search goes on without asking, and a question
  proven less than half the time is dropped (``worth_asking``). The terms are not consistent, so
  a position reached again in fewer moves is reopened (expanded again), and a child's f-value is
  never below its parent's.

An expansion makes its children in two passes: the first steps each move (and its forced line)
and asks the CPU to load the child's hash slot (``solver.core.prefetch``), the second looks the
children up, bounds and stores them. A lookup in a large index nearly always misses the caches;
in two passes those loads overlap with each other and with the first pass's work instead of each
waiting in turn (10-15% of the search's time on the slowest deals, the expansions the same).
"""

from __future__ import annotations

import numpy as np

from solver.core.jit import kernel, noalloc
from solver.core.prefetch import prefetch
from solver.core.rng import mix64
from solver.pyramid.winnable.free_search import dead, dead_after
from solver.pyramid.optimal.bound import FAR_BOUND, bound, pass_floor, two_passes_floor
from solver.pyramid.optimal.index import (CLOSED, G_MASK, PASS_ASKED, PASS_PROVEN, R_ASKED_FROM,
                                          R_BUMP, R_CREDIT, R_EXPANDED, R_F, R_FREE, R_GOAL_LEN,
                                          R_GOAL_MOVE, R_GOAL_PARENT, R_HMIN, R_INCOMPLETE,
                                          R_NFREE, R_NODES, R_PASS, R_PASS_ASKED, R_PASS_LOST,
                                          R_STARTED, R_TWO_ASKED, R_TWO_LOST, R_UB, TWO_ASKED,
                                          TWO_PROVEN, find_tagged, queue_push, tag_of)
from solver.pyramid.optimal.moves import (DROPPED, MAX_FORCED, child_of, forced_jump, forced_line,
                                          gen_optimal)
from solver.pyramid.optimal.passes import (BUDGET as PASS_BUDGET, LOST as PASS_LOST, PassArrays,
                                           free_lost, pass_lost, prefetch_free, two_passes_lost)
from solver.pyramid.model.state import (MAX_MOVES, MOVE_DRAW, MOVE_RECYCLE, REC_MASK, deal_tables,
                                  is_won, move_kind, pointer)

PASS_CREDIT = 40
"""Positions the searches of ``solver.pyramid.optimal.passes`` may take per A* expansion, on average
over the search so far (``regs[R_CREDIT]``). Measured: the proofs took 2 to 7 positions per
expansion on the deals they help most (seeds 7593, 1834, 4179) but 18 to 115 on others (7898,
6735, 5525), where they cost more time than the expansions they saved; with the two-pass term and
``worth_asking`` (on from 500,000 expansions), 40 against 20 took seed 1834 from 2.35 to 1.93 s
and 6735 from 1.15 to 1.00 s (10: 2.86 and 1.07 s; 80: 1.78 and 0.90 s, but more time on the
slow deals in all)."""

TWO_JUMP = 3
"""The two-pass question is asked only of a position whose two-pass term would lift its f-value by
this much at least: a position lifted by a layer or two is most often expanded anyway, later
(measured: seed 3995, 236,000 questions, 69,000 proven, no position fewer expanded; with 3,
72,000 questions)."""

TRIAL = 2_000
"""The pass and two-pass questions are each asked while at least half of their answers so far were
proofs, or they were asked fewer times than this (``worth_asking``): on some deals most positions
can be won within their pass or two, and the searches that show it cost more than the proofs save
(seed 4477: 20% of 341,000 pass questions proven, 7.7 million positions searched, 0.8 -> 1.6 s;
seed 4595: 13% of the two-pass questions, 8 million positions, no position fewer expanded)."""


@noalloc(inline='always')
def worth_asking(asked, proven):
    """Whether a question asked ``asked`` times and proven ``proven`` times is still worth asking
    (``TRIAL``)."""
    return asked < TRIAL or 2 * proven >= asked


@noalloc(inline='always')
def requeue(head, e_node, e_next, regs, i, g, h):
    """Put node ``i`` (``g`` moves from the start) back into the queue with the bound ``h`` that a
    proof raised it to, unless its f-value is beyond the queue's (the search is then incomplete)
    or the upper bound."""
    f = g + h
    if f >= head.shape[0]:
        regs[R_INCOMPLETE] = 1
    elif f <= regs[R_UB]:
        queue_push(head, e_node, e_next, regs, f, h, i)


PROOFS_OFF, LOST_ONLY, LOST_AND_PASS = range(3)
"""Values of ``regs[R_PASS]``: no proofs of ``solver.pyramid.optimal.passes``; lost children
dropped (``free_lost``); that and the pass term (``pass_lost``)."""

KID_INHERITS = 1 << 16
"""Flag in ``kid_g`` (above the moves so far): the child is proven not winnable within its pass,
because its parent is and no recycle lies between them."""
KID_ASK_FREE = 1 << 17
"""Flag in ``kid_g``: ask ``free_lost`` about the child (a pair or a king made it, or its parent
was stored before the proofs came on; its cache slots were prefetched with its index slot)."""
KID_TWO = 1 << 18
"""Flag in ``kid_g``: the child is proven not winnable with fewer than two recycles, because its
parent is and no recycle lies between them."""

WON, EXHAUSTED, PAUSED, LIMIT, GROW_NODES, GROW_INDEX, GROW_ENTRIES = range(7)
"""Status codes returned by ``astar_run``: a shortest win found, no win (below the limits),
``budget`` expansions done (call again), ``max_states`` reached, and an array to enlarge."""


@noalloc
def astar_run(tabs, ctab, start, rule, max_states, budget, arrays):
    """Run the A* search of the deal with the tables ``tabs`` (``state.kernel_tables``) and the
    ``ClassTables`` ``ctab`` from the packed position ``start`` under ``rule`` (``RuleArgs``)
    for at most ``budget`` expansions, in ``arrays`` (``AStarArrays``, its scratch arrays
    included: the kernel allocates nothing, see ``solver.core.jit``); returns a status code
    (the module docstring lists them). ``arrays.regs``
    holds the search's scalars between calls (all zero but ``R_UB``, ``R_FREE`` = -1 at the first
    call). On ``WON`` the goal was reached by move ``regs[R_GOAL_MOVE]`` from node
    ``regs[R_GOAL_PARENT]`` in ``regs[R_GOAL_LEN]`` moves."""
    keys, parent, gs, index = arrays.keys, arrays.parent, arrays.gs, arrays.index
    e_node, e_next, head, regs = arrays.e_node, arrays.e_next, arrays.head, arrays.regs
    recycles = rule.recycles
    goal_all = rule.goal_all
    scr, moves, line = arrays.scr, arrays.moves, arrays.line
    kids, kid_g = arrays.kids, arrays.kid_g
    memo, p_tally = arrays.memo, arrays.p_tally
    proofs_in = PassArrays(memo, arrays.p_stack, arrays.p_moves, arrays.p_kids, arrays.p_nexts,
                           arrays.p_counts, p_tally)
    proofs = regs[R_PASS] != PROOFS_OFF and not rule.stock_top and not goal_all and recycles < 0
    use_pass = proofs and regs[R_PASS] == LOST_AND_PASS
    nh = head.shape[0]
    hb = head.shape[1]
    if regs[R_STARTED] == 0:
        regs[R_STARTED] = 1
        if recycles < 0:
            start &= ~REC_MASK
        h0 = bound(start, ctab, tabs, rule, scr)
        regs[R_F] = h0
        if is_won(start, goal_all):
            regs[R_GOAL_PARENT] = -1
            regs[R_GOAL_LEN] = 0
            return WON
        if dead(start, tabs, rule) or h0 >= FAR_BOUND \
                or h0 > regs[R_UB]:
            return EXHAUSTED
        slot = find_tagged(index, keys, start)
        index[-1 - slot] = tag_of(start)
        keys[0] = start
        parent[0] = -1
        gs[0] = 0
        regs[R_NODES] = 1
        if h0 >= nh:
            regs[R_INCOMPLETE] = 1
            return EXHAUSTED
        regs[R_HMIN] = 0
        queue_push(head, e_node, e_next, regs, h0, h0, np.int64(0))  # not Literal[0]: one compile
    imask = np.uint64(len(index) - 1)
    done = 0
    while True:
        if done >= budget:
            return PAUSED
        if max_states > 0 and regs[R_EXPANDED] >= max_states:
            return LIMIT
        if regs[R_NODES] + MAX_MOVES > len(keys):
            return GROW_NODES
        if 4 * (regs[R_NODES] + MAX_MOVES) > 3 * len(index):
            return GROW_INDEX
        if regs[R_BUMP] + max(0, MAX_MOVES - regs[R_NFREE]) > len(e_node):
            return GROW_ENTRIES
        f = regs[R_F]
        hm = regs[R_HMIN]
        while f < nh:
            while hm < hb and head[f, hm] < 0:
                hm += 1
            if hm < hb:
                break
            f += 1
            hm = 0
        if regs[R_GOAL_LEN] > 0 and f >= regs[R_GOAL_LEN]:
            return WON  # no open position can lead to a shorter win than the one found
        if f >= nh:
            return EXHAUSTED
        regs[R_F] = f
        regs[R_HMIN] = hm
        e = head[f, hm]
        head[f, hm] = e_next[e]
        e_next[e] = regs[R_FREE]
        regs[R_FREE] = e
        regs[R_NFREE] += 1
        i = e_node[e]
        g = np.int64(gs[i])
        if g & CLOSED:
            continue
        state = keys[i]
        unasked = proofs and i < regs[R_ASKED_FROM]  # stored before the proofs came on
        if use_pass and not g & (PASS_PROVEN | PASS_ASKED):
            if unasked and regs[R_CREDIT] > 0 and free_lost(
                    state, tabs, rule, proofs_in, PASS_BUDGET) == PASS_LOST:
                gs[i] = g | CLOSED
                continue
            # the pass term, asked when the position comes up (most positions stored never do)
            g0 = g & G_MASK
            floor = pass_floor(state, ctab, tabs)
            if g0 + floor > f and regs[R_CREDIT] > 0 and worth_asking(regs[R_PASS_ASKED],
                                                                      regs[R_PASS_LOST]):
                regs[R_PASS_ASKED] += 1
                if pass_lost(state, tabs, rule, proofs_in, PASS_BUDGET) == PASS_LOST:
                    regs[R_PASS_LOST] += 1
                    gs[i] = g | PASS_PROVEN
                    requeue(head, e_node, e_next, regs, i, g0, floor)
                    continue  # back in the queue at its new f-value
            g |= PASS_ASKED
        if use_pass and g & PASS_PROVEN and not g & (TWO_PROVEN | TWO_ASKED):
            # the two-pass term, asked when a position proven for its pass comes up again
            g0 = g & G_MASK
            floor = two_passes_floor(state, ctab, tabs)
            if g0 + floor >= f + TWO_JUMP and regs[R_CREDIT] > 0 and worth_asking(
                    regs[R_TWO_ASKED], regs[R_TWO_LOST]):
                regs[R_TWO_ASKED] += 1
                if two_passes_lost(state, tabs, rule, proofs_in, PASS_BUDGET) == PASS_LOST:
                    regs[R_TWO_LOST] += 1
                    gs[i] = g | TWO_PROVEN
                    requeue(head, e_node, e_next, regs, i, g0, floor)
                    continue  # back in the queue at its new f-value
            g |= TWO_ASKED
        gs[i] = g | CLOSED
        proven = g & PASS_PROVEN
        proven2 = g & TWO_PROVEN
        g &= G_MASK
        regs[R_EXPANDED] += 1
        done += 1
        if proofs:
            regs[R_CREDIT] += PASS_CREDIT - p_tally[0]
            p_tally[0] = 0
        if g + 1 + MAX_FORCED > G_MASK:
            regs[R_INCOMPLETE] = 1
            continue
        n = gen_optimal(state, tabs, rule, moves)
        # pass 1: the children (pushed in reverse so that the first generated move is popped
        # first: LIFO buckets), their index slots prefetched for pass 2
        cnt = 0
        for k in range(n - 1, -1, -1):
            m = moves[k]
            child = child_of(state, m, recycles)
            g1 = g + 1
            same_pass = True
            if move_kind(m) <= MOVE_RECYCLE:
                child, extra = forced_jump(child, tabs, rule, line)
                if extra == DROPPED:
                    continue
                g1 += extra
                # a draw moves the pointer on; a line back past it went through a recycle
                same_pass = move_kind(m) == MOVE_DRAW and pointer(child) > pointer(state)
            if is_won(child, goal_all):
                if regs[R_GOAL_LEN] == 0 or g1 < regs[R_GOAL_LEN]:
                    regs[R_GOAL_LEN] = g1
                    regs[R_GOAL_PARENT] = i
                    regs[R_GOAL_MOVE] = m
                    regs[R_UB] = min(regs[R_UB], g1 - 1)
                continue
            if dead_after(child, m, tabs, rule):
                continue
            # a draw keeps the answer, which the parent was asked (unless stored before)
            ask_free = proofs and (unasked or not move_kind(m) <= MOVE_RECYCLE)
            if ask_free:
                prefetch_free(memo, child)
            prefetch(index, mix64(child) & imask)
            kids[cnt] = child
            # a recycle between: a parent not winnable with one recycle left has a child not
            # winnable within its pass (forced_jump crosses at most one recycle)
            kid_g[cnt] = g1 | (KID_INHERITS if (proven and same_pass) or proven2 else 0) | (
                KID_TWO if proven2 and same_pass else 0) | (KID_ASK_FREE if ask_free else 0)
            cnt += 1
        for q in range(cnt):
            child = kids[q]
            g1 = kid_g[q] & G_MASK
            known = kid_g[q] & KID_INHERITS != 0
            j = find_tagged(index, keys, child)
            flag = 0
            if j >= 0:
                gj = np.int64(gs[j])
                if gj & G_MASK <= g1:
                    continue  # reached before in as few moves (reached in fewer: reopened)
                flag = gj & (PASS_PROVEN | TWO_PROVEN)
                known = known or flag != 0
            hj = bound(child, ctab, tabs, rule, scr)
            if hj >= FAR_BOUND:
                continue  # some card that must be used can no longer be reached: lost
            if kid_g[q] & KID_ASK_FREE and regs[R_CREDIT] > 0 and free_lost(
                    child, tabs, rule, proofs_in, PASS_BUDGET) == PASS_LOST:
                continue  # lost even with unlimited recycles
            if use_pass and known:
                flag |= PASS_PROVEN
                if kid_g[q] & KID_TWO:
                    flag |= TWO_PROVEN
                if flag & TWO_PROVEN:
                    hj = max(hj, two_passes_floor(child, ctab, tabs))
                else:
                    hj = max(hj, pass_floor(child, ctab, tabs))
            f1 = max(g1 + hj, f)  # never below the parent's (the pass term is not consistent)
            hj = f1 - g1
            if f1 > regs[R_UB]:
                continue
            if f1 >= nh:
                regs[R_INCOMPLETE] = 1
                continue
            if j < 0:
                slot = -1 - j  # the empty slot the lookup stopped at
                j = regs[R_NODES]
                index[slot] = j | tag_of(child)
                keys[j] = child
                regs[R_NODES] += 1
            parent[j] = i
            gs[j] = g1 | flag
            queue_push(head, e_node, e_next, regs, f1, hj, j)
        if regs[R_GOAL_LEN] > 0 and regs[R_GOAL_LEN] <= f:
            return WON


@kernel
def trace(deal, rule, keys, parent, goal_parent, goal_move, out):
    """The moves from the start to the goal (reached by ``goal_move`` from node ``goal_parent``
    of ``keys``/``parent``), into ``out``; returns their number. Each move is found again by
    generating the parent's moves and matching the child's packed position."""
    tabs = deal_tables(deal)
    chain = np.empty(len(out), dtype=np.int64)
    n = 0
    i = goal_parent
    while i >= 0:
        if n == len(chain):
            return -1  # a longer chain than the search said: a bug, which the caller reports
        chain[n] = i
        n += 1
        i = parent[i]
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    line = np.empty(MAX_FORCED, dtype=np.int64)
    length = 0
    for k in range(n - 1, 0, -1):
        s = keys[chain[k]]
        target = keys[chain[k - 1]]
        c = gen_optimal(s, tabs, rule, moves)
        out[length] = -1
        found = 0
        for q in range(c):
            child = child_of(s, moves[q], rule.recycles)
            extra = 0
            if move_kind(moves[q]) <= MOVE_RECYCLE:
                child, extra = forced_line(child, tabs, rule, line, np.int64(0))
            if child == target and extra != DROPPED:
                out[length] = moves[q]
                found = extra
                break
        if length + 1 + found >= len(out):
            return -1  # longer than the search said: a bug, which the caller reports
        for j in range(found):  # the draws and recycles the search stepped over (forced_line)
            out[length + 1 + j] = line[j]
        length += 1 + found
    if goal_parent >= 0:
        out[length] = goal_move
        length += 1
    return length
