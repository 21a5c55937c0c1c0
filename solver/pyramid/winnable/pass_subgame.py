"""A proof of loss for the limited-recycles search: the subgame of one class of values *with the
stock's order and the passes left* (``pass_subgame_lost``).

``solver.pyramid.winnable.subgame`` plays the cards of one or two classes (a class: the values ``v`` and
``13 - v``) with every stock card at hand whenever it is wanted: a relaxation of the free-stock
search. Under limited recycles that throws away what makes most lost deals lost: the order of
the stock and the stack of the waste. The *pass subgame* keeps them. Its positions are the cards
of the class still in play (packed like a position), a pointer and the recycles used; its moves
are those of the real game on the class's cards alone, every other card taken as gone:

* a pyramid card is available when no card of the subgame in play lies in its cone (as in
  ``subgame``), and an overlap pair as there;
* the waste top is the highest subgame card in play below the pointer, the stock top (when the
  stock top is available) the lowest at or above it;
* pairs: two available partners, an available card with the waste top or the stock top, the
  waste top with the stock top (stock top available); the kernel leaves out the pairs of an
  available card with the stock top, as a draw followed by the pair with the new waste top
  reaches the same subgame position (the canonical pointer falls back to where it was);
* a draw moves the pointer past the stock top; when no subgame card is left at or above the
  pointer and a recycle is left, a recycle sets the pointer to 0 and counts one.

Argument (why a lost pass subgame proves the position lost). Take a winning line of the real
game from the position and keep only its moves on the subgame's cards, the real pointer and
recycle count alongside. A pair never joins cards of two classes (13 = v + (13 - v) only), so
every kept removal is a pair of two subgame cards. When the real game pairs a pyramid card, its
cone holds no card, so none of the subgame either (overlap: as in ``subgame``). When it pairs
its waste top ``w`` (the highest in-play card below the real pointer), ``w`` is the highest
subgame card in play below it too; likewise the stock top (the lowest in-play card at or above
the pointer). A real draw moves the pointer past the real stock top: when that card is a subgame
card this is the subgame's draw, otherwise no subgame card lies between the two pointers and the
subgame position is unchanged (a subgame pointer stands for every pointer with the same subgame
cards below it; the kernel keeps it canonical, one past the highest subgame card in play below
it). A real recycle needs an empty real stock, so no subgame card is at or above the pointer,
and it counts one recycle in both games. So the kept moves are a line of the subgame that clears
every subgame card the goal needs cleared: the subgame is won. Hence a lost subgame proves the
position lost. As in ``subgame`` this needs a ``closed`` position (every card a present card
covers present too), which every position reached from a deal's start is.

The subgame's positions only lose cards or move the pointer on or spend a recycle, so its search
(depth first, stopping at the first win) never meets a position twice on one line: a position it
met before and left is lost (``subgame`` argues the same).

What one search learns is kept for itself and for the later ones of the same deal
(``PassBuffers.known``, a hash set): a subgame position is the same game whichever classes it was
named by (its cards, pointer and recycles used say it all), so answers carry over between
searches. Every position a search leaves (searched to the end: each child was lost, known lost,
or searched to the end in turn, and none was a win or a position given up on, either of which
ends the search at once) is stored known lost as it leaves it, whatever the search's outcome:
this is also how one search avoids a position twice. (They were stored only when a whole search
ended without a win, with a set of positions seen for each search: storing every position left,
and no second set, made the searches about 10% faster under ``msc`` and 17% faster under
``--recycles 0 --stock-top``, run interleaved.) A search that wins (or meets a position given up
on before: "no proof" spreads, never a loss) leaves every position on its line tagged won; one
that gives up leaves its start tagged won, which means "no proof" (a search that meets it stops
there, and no position is cut on it). Only positions known lost ever cut, and each of those was
searched to the end.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from solver.core.jit import kernel, noalloc
from solver.pyramid.model.layout import ABOVE, DIRECT, PYRAMID_CARDS
from solver.core.hashing import table_find, table_insert
from solver.pyramid.model.state import (MOVE_DRAW, MOVE_PAIR, MOVE_RECYCLE, PTR_MASK, PTR_SHIFT,
                                  PYR_MASK, REC_MASK, REC_SHIFT, STOCK_MASK, move_a, move_kind)
from solver.pyramid.winnable.subgame import closed, lowest, shadow

CLASSES = 6
"""Classes of values: the low value ``v`` 1..6 with its partner ``13 - v``."""
ALL_CLASSES = ((1 << (CLASSES + 1)) - 1) & ~1
"""Bit ``v`` set for every class ``v`` 1..6 (the ``classes`` argument of the kernels)."""
CLASS_CARDS = 8
"""Cards of one class in a deck: four of each of its two values."""
MAX_CLASSES = 3
"""Classes a pass subgame plays together at most."""
MAX_CHILDREN = 128
"""Room for the moves of one subgame position (per class at most 4 x 4 pyramid pairs, 8 with
the waste top, 8 overlap pairs and the pair of waste top and stock top: 3 x 33; and a draw or a
recycle)."""

BUDGET = 1000
"""Subgame positions one search may expand; beyond that it gives up and proves nothing (the
answer counts as won: no position is cut). Under goal "all" some subgames are large, and a
proof that costs more than the positions it would save is no gain."""
KNOWN_SLOTS = 1 << 16
"""Slots of the set of subgame answers known at first (kept under three quarters full)..."""
KNOWN_MAX_SLOTS = 1 << 22
"""...grown fourfold when half full (``grown_known``) up to this many (32 MB); beyond that the
searches go on without remembering more. A full set made the slowest ``msc`` deals several
times slower once three-class subgames were asked on the middle pass: every answer that no
longer fitted was searched for again and again."""
KNOWN_WON = np.uint64(1) << np.uint64(62)
KNOWN_LOST = np.uint64(1) << np.uint64(63)
"""Tags of a subgame position (bits 0..61) in the set of answers known."""

KNOWN_TAGS = KNOWN_WON | KNOWN_LOST
"""Both tags: the set hashes each position without them and holds it once, with its first tag."""

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_ABOVE = ABOVE.astype(np.uint64)
_DIRECT = DIRECT.astype(np.uint64)
_STOCK_BASE = np.uint64(PYRAMID_CARDS)
_ONE_REC = np.uint64(1) << REC_SHIFT


class PassBuffers(NamedTuple):
    """Arrays a pass-subgame search reuses (``pass_buffers``)."""

    stack: np.ndarray
    """The subgame position at each depth."""
    moves: np.ndarray
    """Per depth, the child positions to try there..."""
    counts: np.ndarray
    """...and per depth the children generated and tried."""
    known: np.ndarray
    """The answers known, over the whole search of one deal (fresh buffers for each): subgame
    positions tagged ``KNOWN_WON`` (won, or given up on) or ``KNOWN_LOST``, a hash set
    (``KNOWN_SLOTS`` slots at first, grown by ``grown_known``; see the module docstring for
    what each search adds)..."""
    known_n: np.ndarray
    """...and how many it holds (one int64)."""


@kernel
def no_pass_buffers():
    """Empty ``PassBuffers`` of the right types: a stand-in until a search needs real ones."""
    return PassBuffers(np.empty(1, dtype=np.uint64), np.empty((1, 1), dtype=np.uint64),
                       np.empty((1, 2), dtype=np.int64), np.zeros(1, dtype=np.uint64),
                       np.zeros(1, dtype=np.int64))


@kernel
def pass_buffers(recycles):
    """Fresh ``PassBuffers`` for rules with ``recycles`` (>= 0) allowed: the deepest line of
    ``MAX_CLASSES`` classes holds four pairs per class, and on each of the ``recycles + 1``
    passes a draw per stock card of theirs and a recycle."""
    cards = MAX_CLASSES * CLASS_CARDS
    depth = cards // 2 + (cards + 1) * (recycles + 1) + 1
    return PassBuffers(np.empty(depth + 1, dtype=np.uint64),
                       np.empty((depth + 1, MAX_CHILDREN), dtype=np.uint64),
                       np.empty((depth + 1, 2), dtype=np.int64),
                       np.zeros(KNOWN_SLOTS, dtype=np.uint64),
                       np.zeros(1, dtype=np.int64))


@noalloc
def known_full(pb):
    """Whether ``grown_known`` would grow ``pb``'s set of known answers (asked first, so that
    the search does not take and give back every array of ``pb`` for each child)."""
    return 2 * pb.known_n[0] >= len(pb.known) and 4 * len(pb.known) <= KNOWN_MAX_SLOTS


@kernel
def grown_known(pb):
    """``pb`` itself, or with its set of known answers four times larger when it is half full
    (up to ``KNOWN_MAX_SLOTS``): every entry moves over with its tag."""
    if not known_full(pb):
        return pb
    known = pb.known
    bigger = np.zeros(4 * len(known), dtype=np.uint64)
    for k in range(len(known)):
        entry = known[k]
        if entry != _ZERO:
            table_insert(bigger, entry & ~KNOWN_TAGS, KNOWN_TAGS, entry & KNOWN_TAGS)
    return PassBuffers(pb.stack, pb.moves, pb.counts, bigger, pb.known_n)


@noalloc(inline='always')
def with_pointer(m, waste):
    """``m`` with its pointer set canonically for the subgame waste ``waste`` (stock bits in
    place): one past the highest of them, 0 for none."""
    m &= ~PTR_MASK
    if waste == _ZERO:
        return m
    top = np.uint64(63) - np.uint64(leading_zeros(waste)) - _STOCK_BASE
    return m | ((top + _ONE) << PTR_SHIFT)


@noalloc(inline='always')
def pass_children(m, tabs, rule, out):
    """The subgame positions one move after ``m`` into ``out``; returns their number."""
    val = tabs.val
    pyr = m & PYR_MASK
    stock = m & STOCK_MASK
    ptr = (m & PTR_MASK) >> PTR_SHIFT
    below = (_ONE << (ptr + _STOCK_BASE)) - _ONE
    waste = stock & below
    ahead = stock & ~below
    wbit = _ZERO
    wval = 0
    if waste:
        wbit = _ONE << (np.uint64(63) - np.uint64(leading_zeros(waste)))
        wval = val[63 - np.int64(leading_zeros(waste))]
    sbit = _ZERO
    sval = 0
    if rule.stock_top and ahead:
        sbit = lowest(ahead)
        sval = val[np.int64(trailing_zeros(ahead))]
    avail = pyr & ~shadow(pyr)
    n = 0
    x = avail
    while x:
        p = np.int64(trailing_zeros(x))
        a = x & (~x + _ONE)
        x &= x - _ONE
        mates = tabs.pmates[p] & x
        while mates:
            b = mates & (~mates + _ONE)
            mates &= mates - _ONE
            out[n] = m & ~(a | b)
            n += 1
        if wbit and wval + val[p] == 13:
            out[n] = with_pointer(m & ~(a | wbit), waste & ~wbit)
            n += 1
    if rule.overlap:
        x = pyr & ~avail
        while x:
            p = np.int64(trailing_zeros(x))
            x &= x - _ONE
            c = _ABOVE[p] & pyr
            if (c & (c - _ONE)) == _ZERO and (c & _DIRECT[p] & avail) and \
                    (c & tabs.pmates[p]):
                out[n] = m & ~(c | (_ONE << np.uint64(p)))
                n += 1
    if wbit and sbit and wval + sval == 13:
        out[n] = with_pointer(m & ~(wbit | sbit), waste & ~wbit)
        n += 1
    if ahead:
        s = np.uint64(trailing_zeros(ahead)) - _STOCK_BASE
        out[n] = (m & ~PTR_MASK) | ((s + _ONE) << PTR_SHIFT)
        n += 1
    elif waste and np.int64((m & REC_MASK) >> REC_SHIFT) < rule.recycles:
        out[n] = (m & ~PTR_MASK) + _ONE_REC
        n += 1
    return n


@noalloc(inline='always')
def pass_start(state, cards, must):
    """The start of the pass subgame of the cards ``cards`` of ``state`` (its cards in play, the
    recycles used and the canonical pointer); 0 when none of them is in ``must`` (the bits the
    goal needs cleared: the subgame is won as it stands)."""
    s = np.uint64(state)  # whatever integer type the caller has: one uint64 return type
    m = s & np.uint64(cards)
    if not (m & must):
        return _ZERO
    ptr = (s & PTR_MASK) >> PTR_SHIFT
    return with_pointer(m | (s & REC_MASK), m & STOCK_MASK & ((_ONE << (ptr + _STOCK_BASE)) - _ONE))


@noalloc(inline='always')
def goal_bits(rule):
    """The bits a pass subgame must clear: the pyramid, and under goal "all" the stock too."""
    return PYR_MASK | STOCK_MASK if rule.goal_all else PYR_MASK


@noalloc
def pass_subgame_clears(state, cards, tabs, rule, pb, budget):
    """Whether the pass subgame of the cards ``cards`` (pyramid and stock bits of its classes) of
    the concrete position ``state`` can clear every one of them the goal needs cleared, or the
    search expanded more than ``budget`` subgame positions first (then True: no proof)."""
    must = goal_bits(rule)
    start = pass_start(state, cards, must)
    if start == _ZERO:
        return True
    known = pb.known
    answer = table_find(known, start, KNOWN_TAGS) & KNOWN_TAGS
    if answer != _ZERO:
        return answer == KNOWN_WON
    stack = pb.stack
    moves = pb.moves
    counts = pb.counts
    room = 3 * len(known) // 4
    n = pb.known_n[0]
    stack[0] = start
    fresh = True
    depth = 0
    won = False
    pushed = 0
    while depth >= 0:
        if fresh:
            counts[depth, 0] = pass_children(stack[depth], tabs, rule, moves[depth])
            counts[depth, 1] = 0
            fresh = False
        if counts[depth, 1] < counts[depth, 0]:
            child = moves[depth, counts[depth, 1]]
            counts[depth, 1] += 1
            if not (child & must):
                won = True
                break
            answer = table_find(known, child, KNOWN_TAGS) & KNOWN_TAGS
            if answer == KNOWN_LOST:
                continue
            if answer == KNOWN_WON:
                won = True  # won, or given up on before: either way no proof here
                break
            pushed += 1
            if pushed > budget:
                won = True  # given up: no proof
                break
            depth += 1
            stack[depth] = child
            fresh = True
        else:
            if depth > 0 and n < room and \
                    table_insert(known, stack[depth], KNOWN_TAGS, KNOWN_LOST) >= 0:
                n += 1  # searched to the end without a win: lost
            depth -= 1
    if won and pushed <= budget:  # a win: every position on the line to it is won
        for d in range(1, depth + 1):
            if n < room and table_insert(known, stack[d], KNOWN_TAGS, KNOWN_WON) >= 0:
                n += 1
    tag = KNOWN_WON if won else KNOWN_LOST
    if n < room and table_insert(known, start, KNOWN_TAGS, tag) >= 0:
        n += 1
    pb.known_n[0] = n
    return won


@noalloc(inline='always')
def class_cards(v, tabs):
    """Pyramid and stock bits of the cards of class ``v`` (1..6)."""
    return tabs.vmask[v] | tabs.vmask[13 - v] | tabs.sval[v] | tabs.sval[13 - v]


@noalloc(inline='always')
def class_masks(tabs):
    """``class_cards`` of the classes 1..6 as a tuple, class ``v`` at index ``v`` (index 0: no
    cards), read from the deal's tables once per question, not once per subgame."""
    vm = tabs.vmask
    sv = tabs.sval
    return (_ZERO, vm[1] | vm[12] | sv[1] | sv[12], vm[2] | vm[11] | sv[2] | sv[11],
            vm[3] | vm[10] | sv[3] | sv[10], vm[4] | vm[9] | sv[4] | sv[9],
            vm[5] | vm[8] | sv[5] | sv[8], vm[6] | vm[7] | sv[6] | sv[7])


@noalloc(inline='always')
def class_of(v):
    """The class (1..6) of value ``v`` (1..12)."""
    return min(v, 13 - v)


@noalloc(inline='always')
def moved_classes(m, moved, child, tabs):
    """Bit ``v`` set for each class ``v`` whose pass subgames may differ between the position
    before move ``m`` and ``child``: ``moved`` is the position right after ``m``, ``child`` the
    same after ``prune.bury_last_pass`` cleared cards (or ``moved`` itself).

    A pass subgame's start depends only on its cards in play, which of them lie below the
    pointer, and the recycles used. A pair takes two cards of one class; a draw moves one card
    (the stock top, now the waste top: one below ``moved``'s pointer) below the pointer; a
    recycle moves all and counts one; a king is of no class (a waste-top king leaving lowers the
    canonical pointer past no card in play). Buried cards leave the game."""
    kind = move_kind(m)
    cl = 0
    if kind == MOVE_PAIR:
        cl = 1 << class_of(tabs.val[move_a(m)])
    elif kind == MOVE_DRAW:
        v = tabs.val[PYRAMID_CARDS - 1 + np.int64((moved & PTR_MASK) >> PTR_SHIFT)]
        if v < 13:
            cl = 1 << class_of(v)
    elif kind == MOVE_RECYCLE:
        return ALL_CLASSES
    gone = (moved ^ child) & STOCK_MASK
    while gone:
        v = tabs.val[np.int64(trailing_zeros(gone))]
        gone &= gone - _ONE
        if v < 13:
            cl |= 1 << class_of(v)
    return cl


@noalloc(inline='always')
def subgames_lost(state, classes, size, tabs, rule, pb):
    """True when the pass subgame of ``size`` (2 or 3) classes together, one of them with its bit
    set in ``classes``, is lost: a proof that ``state`` is lost (closed positions only; answers
    are remembered in ``pb.known``). The subgames are asked in the order of their classes.

    Inlined into the search, with the known answers looked up in this loop and only an open
    start paying for the call of ``pass_subgame_clears``: most questions are answered from the
    set (93% on the slowest ``--recycles 0 --stock-top`` deals), and each array handed to a
    call, or to an inlined helper inside the loop, is reference-counted per question (two
    runtime calls per array, a dozen arrays). Measured on one three-class question of ten
    answered subgames: about 880 ns as calls, 116 ns written this way. (That was before these
    kernels compiled as ``noalloc``, which counts no references: not inlining them now measured
    the same.)"""
    if not closed(state):
        return False
    cls = class_masks(tabs)
    known = pb.known
    must = goal_bits(rule)
    triple = size == 3
    for v in range(1, CLASSES + 1):
        for u in range(v + 1, CLASSES + 1):
            # a third class after u, or once the empty class 0 for two
            for t in range(u + 1 if triple else 0, CLASSES + 1 if triple else 1):
                if not ((classes >> v) & 1 or (classes >> u) & 1 or (classes >> t) & 1):
                    continue
                cards = cls[v] | cls[u] | cls[t]
                start = pass_start(state, cards, must)
                if start != _ZERO:
                    answer = table_find(known, start, KNOWN_TAGS) & KNOWN_TAGS
                    if answer == KNOWN_LOST or answer == _ZERO and \
                            not pass_subgame_clears(state, cards, tabs, rule, pb, BUDGET):
                        return True
    return False


@noalloc(inline='always')
def pass_subgame_lost(state, classes, tabs, rule, pb):
    """True when the pass subgame of two classes together, one of them with its bit set in
    ``classes``, is lost (``subgames_lost``).

    Two classes, not one: a won subgame of two classes restricted to either class is a won
    subgame of that class (the argument of the module docstring, once more), so the one-class
    subgames prove nothing more, and the stack of the waste ties classes together where the
    cones of the pyramid need not."""
    return subgames_lost(state, classes, 2, tabs, rule, pb)


@noalloc(inline='always')
def pass_subgame_triple_lost(state, classes, tabs, rule, pb):
    """True when the pass subgame of three classes together, one of them with its bit set in
    ``classes``, is lost (``subgames_lost``).

    Stronger than two classes (a won subgame of three restricted to any two of them is a won
    subgame of those two) and dearer: ``solver.pyramid.winnable.limited`` asks it on the last pass,
    where the waste is a stack for good and most proofs are found, and earlier passes only in
    searches that have grown long (``limited.MIDDLE_AFTER``)."""
    return subgames_lost(state, classes, 3, tabs, rule, pb)
