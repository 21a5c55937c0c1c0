"""``solver.core.prefetch``: a hint that compiles for the arrays the kernels prefetch from and
changes nothing."""

import numpy as np
from numba import njit

from solver.core.prefetch import prefetch


@njit(cache=False)
def _sum_with_hints(a, idx):
    s = 0
    for k in range(len(idx)):
        if k + 1 < len(idx):
            prefetch(a, idx[k + 1])
        prefetch(a, np.uint64(idx[k]))  # unsigned indices, as the A* hash slots are
        prefetch(a, np.uint16(idx[k]))
        s += a[idx[k]]
    return s


def test_prefetch_leaves_every_value_alone():
    rng = np.random.default_rng(5)
    for dtype in (np.int32, np.uint16, np.uint64, np.int64):
        a = rng.integers(0, 1000, size=4096).astype(dtype)
        before = a.copy()
        idx = rng.integers(0, len(a), size=500)
        assert _sum_with_hints(a, idx) == int(a[idx].astype(np.int64).sum())
        assert np.array_equal(a, before)
