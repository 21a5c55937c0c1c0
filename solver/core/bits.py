"""Bit kernels shared by every engine: count, find and pick the cards of a ``uint64`` mask, and
deal a shuffled deck into such masks.

A hand (or any set of cards) is a ``uint64`` with bit ``c`` set for card id ``c``
(``solver.core.cards``). These are the only copies of these kernels; the games import them.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import config, njit
from numba.core import types
from numba.core.extending import intrinsic

from solver.core.rng import below, shuffle

_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@intrinsic
def _ctpop(typingctx, x):
    """Population count of a uint64 (LLVM ``ctpop``: one instruction)."""
    if not isinstance(x, types.Integer) or x.bitwidth != 64:
        return None

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@intrinsic
def _cttz(typingctx, x):
    """Trailing zero count of a non-zero uint64 (LLVM ``cttz``)."""
    if not isinstance(x, types.Integer) or x.bitwidth != 64:
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(types.uint64), codegen


if config.DISABLE_JIT:  # plain Python (coverage runs): the same two counts without LLVM
    def _ctpop(x):  # noqa: F811
        return np.uint64(int(x).bit_count())

    def _cttz(x):  # noqa: F811
        x = int(x)
        return np.uint64((x & -x).bit_length() - 1)


@njit(cache=True)
def popcount(m):
    """Number of set bits (cards) of mask ``m``."""
    return np.int64(_ctpop(np.uint64(m)))


@njit(cache=True)
def lowest_bit(m):
    """Index of the lowest set bit of the non-zero mask ``m`` (its lowest card id)."""
    return np.int64(_cttz(np.uint64(m)))


@njit(cache=True)
def nth_bit(m, k):
    """Index of the ``k``-th set bit of ``m`` (0-based, lowest first); ``k < popcount(m)``."""
    m = np.uint64(m)
    for _ in range(k):
        m &= m - _ONE
    return np.int64(_cttz(m))


@njit(cache=True)
def random_bit(state, m):
    """A set bit of the non-empty mask ``m``, uniformly: the ``below(popcount)``-th lowest.

    Consumes exactly one ``rng.below`` draw, so every engine that picks a card this way stays
    reproducible from its seed."""
    return nth_bit(m, below(state, popcount(m)))


@njit(cache=True)
def deal_round_robin(state, deck, work, n, dealer, hands, count):
    """Shuffle ``deck`` into ``work`` and deal its first ``count`` cards one at a time, starting
    left of ``dealer`` (seat ``dealer + 1``, wrapping at ``n``), into the masks ``hands[0:n]``.

    ``work[count:]`` holds the undealt cards afterwards, in shuffled order."""
    for j in range(deck.size):
        work[j] = deck[j]
    shuffle(state, work)
    for s in range(n):
        hands[s] = _ZERO
    seat = dealer
    for j in range(count):
        seat = seat + 1 if seat + 1 < n else 0
        hands[seat] |= _ONE << np.uint64(work[j])
