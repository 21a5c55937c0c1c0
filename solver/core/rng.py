"""The project's own random number generator: SplitMix64, numba-compiled, state passed explicitly.

Deals and simulations must be reproducible across numpy versions and platforms, so nothing here
uses numpy's generators. The algorithm, fully specified (all arithmetic modulo 2**64):

* ``mix64(z)``: ``z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9``;
  ``z = (z ^ (z >> 27)) * 0x94D049BB133111EB``; return ``z ^ (z >> 31)``.
* ``next_u64(state)``: ``state += 0x9E3779B97F4A7C15``; return ``mix64(state)``. The state is a
  one-element ``uint64`` array, initialised to the seed.
* ``below(state, n)``, uniform in ``0..n-1``: draw ``r = next_u64(state)`` until
  ``r >= (2**64 - n) % n``, then return ``r % n`` (rejection removes the modulo bias).
* ``shuffle(state, a)``: Fisher-Yates from the back: for ``i = len(a)-1`` down to ``1``,
  ``j = below(state, i + 1)``, swap ``a[i]`` and ``a[j]``.
* ``stream_seed(seed, i)``: the seed of the ``i``-th independent stream of a run with ``seed``:
  ``mix64(seed ^ mix64(i + 0x9E3779B97F4A7C15))``. Simulations give game ``i`` its own stream, so
  results do not depend on how games are split between workers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.core.validate import check_int

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
"""SplitMix64's increment (2**64 / golden ratio, odd)."""
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31 = np.uint64(27), np.uint64(30), np.uint64(31)
_ZERO = np.uint64(0)

MAX_SEED = 2**63 - 1
"""Seeds are 0 .. 2**63 - 1."""


@njit(cache=True)
def mix64(z):
    """SplitMix64's finaliser: a bijection of uint64 with good avalanche."""
    z = np.uint64(z)
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True)
def next_u64(state):
    """Advance ``state`` (uint64[1]) and return the next 64-bit output."""
    state[0] += GOLDEN_GAMMA
    return mix64(state[0])


@njit(cache=True)
def below(state, n):
    """Uniform integer in ``0 .. n-1`` (``n >= 1``), unbiased by rejection."""
    nn = np.uint64(n)
    threshold = (_ZERO - nn) % nn
    while True:
        r = next_u64(state)
        if r >= threshold:
            return np.int64(r % nn)


@njit(cache=True)
def shuffle(state, a):
    """Fisher-Yates shuffle of array ``a`` in place, from the back."""
    for i in range(len(a) - 1, 0, -1):
        j = below(state, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


@njit(cache=True)
def stream_seed(seed, index):
    """Seed of stream ``index`` of a run seeded with ``seed`` (both non-negative ints)."""
    return mix64(np.uint64(seed) ^ mix64(np.uint64(index) + GOLDEN_GAMMA))


@njit(cache=True)
def new_state(seed):
    """A fresh generator state (uint64[1]) holding ``seed``."""
    s = np.empty(1, dtype=np.uint64)
    s[0] = np.uint64(seed)
    return s


def check_seed(seed: int) -> int:
    """Validate a user seed: an int in 0 .. 2**63 - 1. Raises ``ValueError`` otherwise."""
    return check_int(seed, f"seed must be an integer, not {seed!r}", 0, MAX_SEED,
                     f"seed {seed} is out of range 0..{MAX_SEED}")
