"""The summary of a challenge's results (``pyramid batch --challenge``): over the decided deals,
the distribution of the best value (``max_score`` or ``max_removed``: how many deals reach the
most, with a 95% Wilson interval; the mean; the median with its distribution-free 95% interval
from order statistics; the quartiles; the deals per band of values, each with its share), the
moves of the best lines (median, p95) and the share of best lines that clear the pyramid.

Built block by block and mergeable like ``solver.batch.summary.Summary`` (which holds it), and
exact whatever the blocks: the values and moves are kept as counts per value, and every figure
is computed from the counts in increasing order of value.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from solver.batch.analysis_summary import count_values
from solver.batch.challenge import CHALLENGE_OUTCOMES, MOST, VALUE_COLUMNS, ChallengeColumns
from solver.core.stats import fmt_p, median_ci, quantile, wilson

UNKNOWN = CHALLENGE_OUTCOMES.index("unknown")
BANDS = {"score": 100, "cards": 1}
"""The width of a histogram band: 100 points; one card. The most (1,290 points) is a band of its
own."""
P95 = 0.95


def band_of(kind: str, value: int) -> int:
    """The first value of the band of ``value`` (the most is a band of its own)."""
    return value if value == MOST[kind] else value - value % BANDS[kind]


def bands(kind: str) -> list[int]:
    """Every band of the challenge, in increasing order (0, 100, .., 1200, 1290; 0 .. 4)."""
    return sorted({band_of(kind, v) for v in range(MOST[kind] + 1)})


class ChallengeSummary:
    """Running totals of a challenge's columns over its decided deals; ``to_dict`` is the
    ``challenge`` object of the JSON summary."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.values = Counter()
        """decided deals per best value"""
        self.moves = Counter()
        """decided deals per moves of their best line"""
        self.clears = 0
        """decided deals whose best line clears the pyramid"""

    def add(self, outcome, moves, c: ChallengeColumns) -> None:
        """Add a block: ``outcome`` codes, ``moves`` of the best lines, the challenge columns."""
        decided = np.asarray(outcome) != UNKNOWN
        count_values(self.values, np.asarray(c.value)[decided])
        count_values(self.moves, np.asarray(moves)[decided])
        self.clears += int(np.count_nonzero(np.asarray(c.clears)[decided] == 1))

    def merge(self, other: "ChallengeSummary") -> None:
        self.values.update(other.values)
        self.moves.update(other.moves)
        self.clears += other.clears

    def state(self) -> dict:
        return {"kind": self.kind, "values": {str(k): v for k, v in self.values.items()},
                "moves": {str(k): v for k, v in self.moves.items()}, "clears": self.clears}

    @classmethod
    def from_state(cls, d: dict) -> "ChallengeSummary":
        s = cls(d["kind"])
        s.values.update({int(k): v for k, v in d["values"].items()})
        s.moves.update({int(k): v for k, v in d["moves"].items()})
        s.clears = d["clears"]
        return s

    @property
    def decided(self) -> int:
        return sum(self.values.values())

    def to_dict(self) -> dict:
        n = self.decided
        values, counts = _sorted(self.values)
        full = self.values[MOST[self.kind]]
        per_band = Counter()
        for v, c in zip(values, counts):
            per_band[band_of(self.kind, v)] += c
        best = {"most": MOST[self.kind],
                "full": {"deals": full, "share": wilson(full, n)},
                "mean": _mean(values, counts),
                "median": median_ci(values, counts),
                "quartiles": None if not n else [quantile(values, counts, q)
                                                 for q in (0.25, 0.5, 0.75)],
                "min": values[0] if n else None, "max": values[-1] if n else None,
                "band": BANDS[self.kind],
                "histogram": {str(b): {"deals": per_band[b], "share": wilson(per_band[b], n)}
                              for b in bands(self.kind)}}
        steps, times = _sorted(self.moves)
        moves = None if not n else {
            "n": n, "mean": _mean(steps, times), "median": quantile(steps, times, 0.5),
            "p95": quantile(steps, times, P95), "min": steps[0], "max": steps[-1]}
        return {"challenge": self.kind, "decided": n, VALUE_COLUMNS[self.kind]: best,
                "moves": moves, "clears_pyramid": wilson(self.clears, n)}


def _sorted(counter: Counter) -> tuple[list[int], list[int]]:
    """The distinct values of ``counter`` in increasing order, and their counts."""
    items = sorted(counter.items())
    return [v for v, _ in items], [c for _, c in items]


def _mean(values: list[int], counts: list[int]) -> float | None:
    n = sum(counts)
    return sum(v * c for v, c in zip(values, counts)) / n if n else None


def challenge_text(d: dict) -> str:
    """The human summary of ``ChallengeSummary.to_dict()``."""
    kind = d["challenge"]
    best = d[VALUE_COLUMNS[kind]]
    n = d["decided"]
    if not n:
        return "Best lines: no decided deal"
    what, unit = ("Best score", "points") if kind == "score" else ("Most cards of the rank "
                                                                   "removed", "removed")
    med = best["median"]
    interval = (f"[{med['lo']:g}, {med['hi']:g}]" if med["lo"] is not None else "[n/a]")
    lines = [f"{what} (of {best['most']:,}) over {n} decided deals: mean {best['mean']:.2f}, "
             f"median {med['median']:g} {interval} (95% interval from order statistics), "
             f"quartiles {' / '.join(f'{q:g}' for q in best['quartiles'])}",
             f"{'Full' if kind == 'score' else 'All'} {best['most']:,} {unit}: "
             f"{best['full']['deals']} deals, {fmt_p(best['full']['share'])} (95% Wilson "
             f"interval)",
             f"  {unit:>9} {'deals':>7}  share [95% interval]"]
    lines += histogram_lines(kind, best["histogram"])
    m = d["moves"]
    lines.append(f"Moves of the best lines: median {m['median']:g}, p95 {m['p95']:g}, mean "
                 f"{m['mean']:.2f}, min {m['min']}, max {m['max']}")
    lines.append(f"Best lines clearing the pyramid: {fmt_p(d['clears_pyramid'])} (95% Wilson "
                 f"interval over {n} decided deals)")
    return "\n".join(lines)


def histogram_lines(kind: str, histogram: dict) -> list[str]:
    """The bands of ``histogram`` (the JSON's), one line each with its deals, share and a bar,
    a run of empty bands in one line (``300-1285  0``)."""
    top = max(b["deals"] for b in histogram.values())
    firsts = [int(band) for band in histogram] + [MOST[kind] + 1]
    lines = []
    empty = None
    for k, (band, b) in enumerate(histogram.items()):
        if not b["deals"]:
            empty = band if empty is None else empty
            if not histogram.get(str(firsts[k + 1]), {}).get("deals", 1):
                continue  # (the run goes on)
            label = band if empty == band else f"{empty}-{firsts[k + 1] - 1}"
            lines.append(f"  {label:>9} {0:>7}")
            empty = None
            continue
        bar = "#" * max(1, round(30 * b["deals"] / top))
        lines.append(f"  {band:>9} {b['deals']:>7}  {fmt_p(b['share'])}  {bar}")
    return lines
