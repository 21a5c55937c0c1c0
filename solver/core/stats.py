"""The statistics layer shared by the Pyramid batch summaries and every game simulation."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054
"""Two-sided 95% normal quantile."""

NOT_AVAILABLE = "n/a"
"""What a text report prints for a figure with nothing counted behind it (n = 0)."""


def wilson(successes: int, trials: int, z: float = Z95) -> dict:
    """Proportion with its Wilson score interval: ``{"p", "lo", "hi", "n"}``.

    With no trials there is no rate: ``p``, ``lo`` and ``hi`` are None (null in JSON) and n is 0.
    """
    if trials <= 0:
        return {"p": None, "lo": None, "hi": None, "n": 0}
    p = successes / trials
    z2 = z * z
    denom = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    # The interval's ends are exactly 0 and 1 when nothing (everything) succeeded; rounding
    # would otherwise leave a stray 5.6e-17 in the JSON.
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= trials else min(1.0, centre + half)
    return {"p": p, "lo": lo, "hi": hi, "n": int(trials)}


def mean_ci(values, z: float = Z95) -> dict:
    """Mean with a normal-approximation interval ``mean +- z * sd / sqrt(n)``.

    With no values there is no mean: ``mean``, ``lo`` and ``hi`` are None and n is 0. One value
    gives no estimate of the spread, so no interval: ``lo`` and ``hi`` are None (not a zero-width
    interval that would claim certainty).
    """
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    if n == 0:
        return {"mean": None, "lo": None, "hi": None, "n": 0}
    m = float(x.mean())
    if n == 1:
        return {"mean": m, "lo": None, "hi": None, "n": 1}
    half = z * float(x.std(ddof=1)) / math.sqrt(n)
    return {"mean": m, "lo": m - half, "hi": m + half, "n": int(n)}


def histogram(values) -> dict[int, int]:
    """Counts of each integer value, in increasing order of value."""
    x = np.asarray(values, dtype=np.int64)
    if x.size == 0:
        return {}
    vals, counts = np.unique(x, return_counts=True)
    return {int(v): int(c) for v, c in zip(vals, counts)}


def text_histogram(hist: dict[int, int], width: int = 40, label: str = "") -> str:
    """A text bar chart, one line per value: ``value  count  ####``."""
    if not hist:
        return "(no data)"
    top = max(hist.values())
    lines = []
    if label:
        lines.append(label)
    for v, c in hist.items():
        bar = "#" * max(1 if c else 0, round(width * c / top))
        lines.append(f"{v:>6} {c:>10}  {bar}")
    return "\n".join(lines)


def fmt_figure(value: float | None, digits: int) -> str:
    """One figure to ``digits`` decimals, or ``n/a`` when there is none (nothing was counted)."""
    return NOT_AVAILABLE if value is None else f"{value:.{digits}f}"


def fmt_interval(centre: float | None, lo: float | None, hi: float | None, digits: int) -> str:
    """``centre [lo, hi]``, or just ``n/a`` when nothing was counted."""
    if centre is None:
        return NOT_AVAILABLE
    if lo is None or hi is None:
        return f"{centre:.{digits}f} [{NOT_AVAILABLE}]"
    return f"{centre:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def fmt_p(d: dict, digits: int = 4) -> str:
    """``p [lo, hi]`` of a Wilson dict for text reports; ``n/a`` when n = 0."""
    return fmt_interval(d["p"], d["lo"], d["hi"], digits)


def fmt_mean(d: dict, digits: int = 3) -> str:
    """``mean [lo, hi]`` of a mean_ci dict for text reports; ``n/a`` when n = 0."""
    return fmt_interval(d["mean"], d["lo"], d["hi"], digits)


def quantile(values, counts, q: float) -> float | None:
    """The ``q`` quantile (0..1) of the sorted distinct ``values`` held ``counts`` times each,
    interpolated linearly between the order statistics around ``(n - 1) * q`` (numpy's default
    method, so the median of an even count is the mean of the middle two); None for no value."""
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        return None
    at = (n - 1) * q
    below = int(math.floor(at))
    low = order_statistic(values, counts, below + 1)
    if below + 1 >= n:
        return float(low)
    return float(low + (at - below) * (order_statistic(values, counts, below + 2) - low))


def order_statistic(values, counts, k: int):
    """The ``k``-th smallest (1-based) of the sorted distinct ``values`` held ``counts`` times
    each."""
    return values[int(np.searchsorted(np.cumsum(counts), k))]


def median_ranks(n: int, level: float = 0.95) -> int | None:
    """The rank ``k`` of the distribution-free interval ``[x(k), x(n + 1 - k)]`` of the median of
    ``n`` values (order statistics, smallest first): the largest ``k`` whose interval covers the
    median with probability at least ``level`` whatever the distribution, i.e. with
    ``P(B <= k - 1) <= (1 - level) / 2`` for ``B`` binomial(n, 1/2). None when even ``[x(1),
    x(n)]`` falls short (n < 6 at 95%)."""
    if n <= 0:
        return None
    j = np.arange(1, n + 1, dtype=np.float64)
    log_choose = np.concatenate(([0.0], np.cumsum(np.log(n - j + 1) - np.log(j))))
    cdf = np.cumsum(np.exp(log_choose - n * math.log(2.0)))
    k = int(np.searchsorted(cdf, (1 - level) / 2, side="right"))
    return k if k >= 1 else None


def median_ci(values, counts, level: float = 0.95) -> dict:
    """The median of the sorted distinct ``values`` held ``counts`` times each, with its
    distribution-free ``level`` interval from order statistics (``median_ranks``), as
    ``{"median", "lo", "hi", "n"}``: the figures None when nothing was counted, ``lo`` and
    ``hi`` None when no interval reaches the level."""
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    k = median_ranks(n, level)
    lo = hi = None
    if k is not None:
        lo = order_statistic(values, counts, k)
        hi = order_statistic(values, counts, n + 1 - k)
    return {"median": quantile(values, counts, 0.5), "lo": lo, "hi": hi, "n": n}
