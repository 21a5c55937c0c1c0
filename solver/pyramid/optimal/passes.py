"""Proofs that a position cannot be won before the stock is turned again (the *pass term* of
the minimum-move search's bound), nor with one more recycle (the *two-pass term*), or cannot be
won at all, under the default rules.

Why. Under the default rules (stock top hidden, unlimited recycles) the slowest minimum-move
searches expanded millions of positions that a shortest solution is far from: measured on seed
7593 (65 moves, 8.1 million positions expanded), in a sample of 200 of its expanded positions 28%
could not be won at all, none of the others could be won within its pass, and for those the
bound charged less than the rest of the pass in draws (seed 1834: 64% could not be won at all).

The pass term. Take a position with the stock top hidden whose pyramid cannot be cleared without a
recycle. Every solution then draws each of the ``n`` cards still in the stock (a recycle needs an
empty stock, and with the top hidden a card leaves the stock only by a draw), recycles once, and
draws at least once more: after a recycle the waste is empty, and a pyramid that pyramid-only
moves could finish would have been finished before the recycle. None of these ``n + 2`` moves
removes a pyramid card, so they add to any lower bound on the moves that do
(``bound.pyramid_part``); ``bound.pass_floor`` is that sum.

``pass_lost`` settles whether a position can be won within its pass, exactly: a depth-first search
without recycles over the moves of ``gen_concrete`` (which never loses a win: a king on the waste
goes at once, pyramid-only moves wait until before the next draw). A position proven so answers
for every position it leads to without a recycle (the A* search passes the proof down to those
children), and for the same cards with the pointer further on after a draw (draws lead from the
one to the other, so a win from the later would be one from the earlier: the cache's dominance,
``_covers``).

The two-pass term. Take such a position that cannot be won with one recycle either (seed 1834:
96% of the positions its search expanded in its last two f-layers; 64% not with two). Every
shortest solution then draws the ``n`` stock cards, recycles, draws every card of the new stock
(all the stock and waste cards still in play at the first recycle), recycles again and draws at
least once more. Of the stock and waste cards in play now, at least ``bound.stays_in_play`` are
still in play at the first recycle (with the top hidden such a card leaves play only as a king or
with a pyramid card of the partner value, one each), so ``bound.two_passes_floor``, the pass term
plus the second recycle plus those draws, is a lower bound. ``two_passes_lost`` settles the
question exactly: the same depth-first search with one recycle allowed (rules with a recycle
limit, ``PASSES_RECYCLES``); a position proven so answers for every position it leads to without
a recycle, and a position it leads to through one recycle cannot be won within its pass.

Within a pass, ``pass_dead`` cuts the searches short: a pyramid card none of whose partners can
still be the waste top before the next recycle, nor met in the pyramid, will still be there then
(measured: the pass questions of seed 7593 searched 19 positions each on average, 10 with it).

``free_lost`` settles whether a position can be won at all, in the free-stock game of
``gen_free``: with unlimited recycles a hidden stock can be turned until any card in play is the
waste top, and turning changes nothing else, so a position and its free-stock position are won
and lost alike. A draw leaves the answer as it is, so only the children of pairs and kings are
asked.

The searches keep their proofs in ``memo``, a lossy cache shared by the whole minimum-move search
(lost positions; for the free-stock game won ones too, marked ``_WON_MARK``): most questions are
answered by one probe. A question that would need more than ``budget`` new positions is left open
and the search goes on without the answer: a proof, never a guess.

The pass terms are admissible but not consistent (a question proven for a position may be left open
for its child); the A* search reopens a position reached again in fewer moves and never lets a
child's f-value fall below its parent's, which keeps it exact with such a bound.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.core.jit import noalloc
from solver.core.prefetch import prefetch
from solver.core.rng import mix64
from solver.pyramid.winnable.free_search import dead_after, pyramid_stranded
from solver.pyramid.model.layout import PYRAMID_CARDS
from solver.pyramid.model.rules import RuleArgs
from solver.pyramid.model.state import (AFTER_DRAW, FREE_TAG, MOVE_RECYCLE, PTR_MASK, PYR_MASK,
                                        REC_MASK, REC_SHIFT, STOCK_MASK, STOCK_SHIFT,
                                        apply_concrete, apply_free, gen_concrete, gen_free,
                                        highest_bit_below, is_won, move_kind, pointer)

_ONE = np.uint64(1)
_ZERO = np.uint64(0)

MEMO_BITS = 21
"""The cache holds ``2**MEMO_BITS`` positions (16 MB), in buckets of two slots."""
DEPTH = 128
"""Deepest line of ``pass_lost``: each move without a recycle removes a card or draws one (at most
52 + 24 moves)."""
BUDGET = 2_000
"""New positions one question may search before it is left open. Measured on seed 7593: a
position's whole pass takes a median of 82 positions and at most 7,698 (sample of 300, each with an
empty cache); with the cache shared a question took 13 new positions on average."""

_PASS_PLACE = PTR_MASK | AFTER_DRAW
"""The bits of a position that say where in its pass it is: the pointer and the after-draw flag."""
_WON_MARK = REC_MASK & (~REC_MASK + _ONE)
"""Marks a free-stock key (no recycle count) whose position is won: the lowest recycle bit."""
PASSES_RECYCLES = 3
"""The recycle limit of the rules under which ``two_passes_lost`` searches: its questions start
with ``PASSES_RECYCLES - 1`` recycles used (one left), so a key of its proofs says by its recycle
count how many passes it was proven for: 2 used, not winnable within two passes; 3 used (none
left), not within one (``_memo_key`` files these as the keys of ``pass_lost``, which mean the
same)."""
_LAST_PASS = np.uint64(PASSES_RECYCLES) << REC_SHIFT
_TWO_PASSES = np.uint64(PASSES_RECYCLES - 1) << REC_SHIFT
LOST, WON, OPEN = 1, 0, -1
"""Answers of ``pass_lost``: proven not winnable within the pass, a win found within it, and left
open (the budget ran out)."""


@noalloc(inline='always')
def _bucket(key):
    """The first slot of ``key``'s bucket of two, before masking to the cache's size: a hash of
    the key less its place in the pass (``_PASS_PLACE``), so that the positions of one pass with
    the same cards share it."""
    return (mix64(key & ~_PASS_PLACE) >> _ONE) << _ONE


@noalloc(inline='always')
def _covers(held, key):
    """Whether the proof ``held`` answers for ``key``: the same position, or the same cards with
    the pointer further on just after a draw (draws lead from the one to the other, so a win from
    the later position would be a win from the earlier one, flagged or not)."""
    return held == key or ((key & AFTER_DRAW) != _ZERO and ((held ^ key) & ~_PASS_PLACE) == _ZERO
                           and (held & PTR_MASK) < (key & PTR_MASK))


@noalloc(inline='always')
def _memo_key(key):
    """The cache key of a position of the searches here: a position of ``two_passes_lost`` in its
    last pass (no recycle left) is proven exactly when ``pass_lost`` would prove it with no
    recycle count (recycles ignored, the pass searched without them), so it shares that key."""
    if key & REC_MASK == _LAST_PASS and not key & FREE_TAG:
        return key & ~REC_MASK
    return key


@noalloc
def memo_has(memo, key):
    """True when a proof in the cache ``memo`` answers for ``key`` (a packed position, never 0)."""
    key = _memo_key(key)
    i = _bucket(key) & np.uint64(len(memo) - 1)
    return _covers(memo[i], key) or _covers(memo[i + _ONE], key)


@noalloc
def memo_put(memo, key):
    """Put ``key`` in the cache ``memo``: over a proof of its bucket that it answers for, else into
    the bucket's first slot, the one there moving to the second and the second's dropped (the
    newest proofs are the likeliest to be asked again)."""
    key = _memo_key(key)
    i = _bucket(key) & np.uint64(len(memo) - 1)
    j = i + _ONE
    if _covers(key, memo[i]):
        memo[i] = key
    elif _covers(key, memo[j]):
        memo[j] = key
    else:
        memo[j] = memo[i]
        memo[i] = key


@noalloc
def prefetch_free(memo, state):
    """Ask the CPU to load the cache slots ``free_lost(state, ...)`` reads first, so that a later
    question about ``state`` does not wait for memory (``solver.core.prefetch``)."""
    key = (state & (PYR_MASK | STOCK_MASK)) | FREE_TAG
    mask = np.uint64(len(memo) - 1)
    prefetch(memo, _bucket(key) & mask)
    prefetch(memo, _bucket(key | _WON_MARK) & mask)


class PassArrays(NamedTuple):
    """What the proof searches of this module work in (``OptimalWorkspace.pass_arrays``)."""

    memo: np.ndarray
    """The cache of positions proven (uint64, a power of two; ``memo_put``)."""
    stack: np.ndarray
    """The depth-first stack's positions (uint64, ``DEPTH``) ..."""
    moves: np.ndarray
    """... one position's moves (int64, ``MAX_MOVES``) ..."""
    kids: np.ndarray
    """... the children of each depth (uint64, ``DEPTH`` x ``MAX_MOVES``) ..."""
    nexts: np.ndarray
    counts: np.ndarray
    """... and per depth the next child to try and the children (int64, ``DEPTH``)."""
    tally: np.ndarray
    """``tally[0]`` (int64) grows by the number of new positions searched."""


@noalloc
def pass_lost(state, tabs, rule, arrays, budget):
    """Whether ``state`` can be won without a recycle: ``LOST`` (no, proven; every position of the
    proof goes into ``memo``), ``WON`` (yes) or ``OPEN`` (more than ``budget`` new positions were
    needed). ``tabs``, ``rule`` as for ``gen_concrete`` (``rule.goal_all`` false: goal pyramid);
    ``arrays``: the ``PassArrays`` (the memo, the scratch, the tally)."""
    return _settle(state, False, tabs, rule, arrays, budget)


@noalloc
def free_lost(state, tabs, rule, arrays, budget):
    """Whether ``state`` can be won at all under unlimited recycles with the stock top hidden, in
    the free-stock game of ``gen_free`` (any stock card in play at hand: with unlimited recycles a
    hidden stock can be turned until any of its cards is the waste top, and turning it changes
    nothing else, so the two games are won and lost alike): ``LOST``, ``WON`` or ``OPEN`` as
    ``pass_lost``; both answers go into ``memo`` (keys marked ``FREE_TAG``), the scratch as
    there."""
    return _settle(state, True, tabs, rule, arrays, budget)


@noalloc
def pass_dead(state, tabs):
    """True when some pyramid card of ``state`` can no longer be removed before the next recycle
    (stock top hidden). Within a pass a stock or waste card can be played only as the waste top:
    the stock's cards each become it when drawn, a waste card only once every card above it has
    left, and a card leaves the waste only as a king or in a pair with a pyramid card of the
    partner value (so not past a card with no such pyramid card left). A pyramid card that is not a
    king and has no partner among the cards that may still be the waste top, nor in the pyramid
    where it can meet it (``reach``), stays."""
    pyr = state & PYR_MASK
    stock = (state & STOCK_MASK) >> STOCK_SHIFT
    p = np.uint64(pointer(state))
    top = (stock >> p) << p  # the stock's own cards
    y = stock & ((_ONE << p) - _ONE)  # the waste, from its top down
    while y:
        c = highest_bit_below(y, np.int64(63))
        b = _ONE << np.uint64(c)
        top |= b
        y &= ~b
        t = tabs.val[PYRAMID_CARDS + c]
        if t != 13 and not (pyr & tabs.vmask[13 - t]):
            break
    top <<= STOCK_SHIFT
    for v in range(1, 13):
        if pyramid_stranded(pyr, top, v, tabs):
            return True
    return False


@noalloc
def two_passes_lost(state, tabs, rule, arrays, budget):
    """Whether ``state`` can be won with at most one recycle: ``LOST``, ``WON`` or ``OPEN`` and the
    arguments as ``pass_lost`` (the proof's positions go into ``memo``, those of the second pass
    as ``pass_lost`` proofs). A depth-first search of the concrete moves under a recycle limit
    (``PASSES_RECYCLES``) with one recycle left."""
    two = RuleArgs(np.int64(PASSES_RECYCLES), rule.overlap, rule.stock_top, rule.goal_all)
    return _settle((state & ~REC_MASK) | _TWO_PASSES, False, tabs, two, arrays, budget)


@noalloc(inline='always')
def _settle(state, free, tabs, rule, arrays, budget):
    """The depth-first search of ``pass_lost`` and ``two_passes_lost`` (``free`` false; ``rule``
    says whether a recycle is allowed) and of ``free_lost`` (true)."""
    memo, stack, moves, kids = arrays.memo, arrays.stack, arrays.moves, arrays.kids
    nexts, counts, tally = arrays.nexts, arrays.counts, arrays.tally
    if free:
        state = (state & (PYR_MASK | STOCK_MASK)) | FREE_TAG
        if memo_has(memo, state | _WON_MARK):
            return WON
    if memo_has(memo, state):
        return LOST
    if is_won(state, False):
        return WON
    if not free and _last_pass(state, rule) and pass_dead(state, tabs):
        memo_put(memo, state)
        return LOST
    depth = 0
    stack[0] = state
    counts[0] = _children(state, free, tabs, rule, memo, moves, kids[0])
    nexts[0] = 0
    seen = 0
    while True:
        k = nexts[depth]
        if counts[depth] < 0:  # a child is won, so is every position on the line to it
            if free:
                for d in range(depth + 1):
                    memo_put(memo, stack[d] | _WON_MARK)
            return WON
        if k == counts[depth]:  # every move of this position searched: lost
            memo_put(memo, stack[depth])
            if depth == 0:
                return LOST
            depth -= 1
            continue
        nexts[depth] = k + 1
        child = kids[depth, k]
        if memo_has(memo, child):
            continue
        if free and memo_has(memo, child | _WON_MARK):
            counts[depth] = -1
            continue
        seen += 1
        tally[0] += 1
        if seen > budget or depth + 1 == DEPTH:  # (the depth never runs out: see DEPTH)
            return OPEN
        depth += 1
        stack[depth] = child
        counts[depth] = _children(child, free, tabs, rule, memo, moves, kids[depth])
        nexts[depth] = 0


@noalloc(inline='always')
def _last_pass(state, rule):
    """Whether the concrete searches here have no recycle left at ``state``: ``pass_lost`` never
    recycles, ``two_passes_lost`` not after its one recycle."""
    return rule.recycles < 0 or state & REC_MASK == _LAST_PASS


@noalloc(inline='always')
def _children(state, free, tabs, rule, memo, moves, out):
    """The positions ``_settle`` goes on to from ``state`` (the moves of ``gen_free`` or of
    ``gen_concrete``, less recycles for ``pass_lost``, without children that have a card that can
    never go, or in their last pass one that cannot go before the next recycle: ``pass_dead``)
    into ``out``, their cache slots prefetched; returns their number, or -1 when one of them is
    won."""
    n = gen_free(state, tabs, rule, moves) if free else gen_concrete(state, tabs, rule, moves)
    c = 0
    mask = np.uint64(len(memo) - 1)
    for k in range(n):
        m = moves[k]
        if move_kind(m) == MOVE_RECYCLE and rule.recycles < 0:
            continue  # pass_lost: within the pass (two_passes_lost counts its recycles)
        child = apply_free(state, m) if free else apply_concrete(state, m)
        if is_won(child, False):
            return -1
        if dead_after(child, m, tabs, rule) or (
                not free and _last_pass(child, rule) and pass_dead(child, tabs)):
            continue
        prefetch(memo, _bucket(_memo_key(child)) & mask)
        if free:
            prefetch(memo, _bucket(child | _WON_MARK) & mask)
        out[c] = child
        c += 1
    return c
