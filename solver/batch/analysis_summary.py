"""The summary of the analysis columns (``pyramid batch --analyse``): the histogram of
``max_cleared`` over lost deals, the share of lost deals per loss reason, the mean random and
greedy win rates (over won deals, and over all decided deals, the lost ones counting 0), and the
mean random win rate per minimum move count (files made with ``--optimal``).

Built block by block and mergeable like ``solver.batch.summary.Summary``, and exact whatever the
blocks: rates are kept as counts per distinct value (a rate is wins / playouts, so there are at
most playouts + 1 of them), and every figure is computed from the counts in increasing order of
value, so ``pyramid batch --json`` and ``pyramid stats --json`` of the same results agree to the
last bit however the rows were cut into chunks or blocks.

A mean rate is given as ``{p, lo, hi, n}`` like a proportion: ``p`` the mean over ``n`` deals,
``lo`` .. ``hi`` its 95% normal interval (``solver.core.stats.mean_ci``) cut to 0 .. 1.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from solver.batch.analysis import NO_VALUE, AnalysisColumns
from solver.core.stats import fmt_p, mean_ci, text_histogram, wilson

NO_SHORT_REASON = "none"
"""The ``loss_reasons`` key of lost deals without a short reason (``loss_reason`` empty)."""
LOST, WON = 0, 1
"""Outcome codes (``solver.batch.summary.OUTCOME_NAMES``)."""


def rate_dict(values, counts) -> dict:
    """The mean of ``values`` (each ``counts`` times) as ``{p, lo, hi, n}`` (see the module)."""
    m = mean_ci(np.repeat(np.asarray(values, np.float64), np.asarray(counts, np.int64)))
    if m["lo"] is None:  # no deal, or one (no interval from a single value)
        return {"p": m["mean"], "lo": None, "hi": None, "n": m["n"]}
    return {"p": m["mean"], "lo": max(0.0, m["lo"]), "hi": min(1.0, m["hi"]), "n": m["n"]}


def _counter_rate(c: Counter, extra_zeros: int = 0) -> dict:
    items = sorted((c + Counter({0.0: extra_zeros})).items()) if extra_zeros else sorted(c.items())
    return rate_dict([v for v, _ in items], [n for _, n in items])


def count_values(counter: Counter, values) -> None:
    """Add each distinct value of ``values`` to ``counter``, as often as it occurs."""
    vals, counts = np.unique(np.asarray(values), return_counts=True)
    for v, n in zip(vals.tolist(), counts.tolist()):
        counter[v] += n


class AnalysisSummary:
    """Running totals of the analysis columns; ``to_dict`` is the ``analysis`` object of the
    JSON summary."""

    def __init__(self) -> None:
        self.lost = 0
        self.cleared = Counter()
        """lost deals per ``max_cleared``"""
        self.bounds = 0
        """lost deals whose ``max_cleared`` is a lower bound only"""
        self.of = Counter()
        """decided deals per ``max_cleared_of``"""
        self.reasons = Counter()
        self.random = Counter()
        """won deals per random-play win rate"""
        self.greedy = Counter()
        self.random_by_moves: dict[int, Counter] = {}

    def add(self, outcome, moves, a: AnalysisColumns) -> None:
        """Add a block: ``outcome`` codes, ``moves`` (< 0 for none), its analysis columns."""
        outcome = np.asarray(outcome)
        lost, won = outcome == LOST, outcome == WON
        self.lost += int(lost.sum())
        count_values(self.cleared, a.max_cleared[lost])
        self.bounds += int(np.count_nonzero(a.exact[lost] == 0))
        count_values(self.of, a.cleared_of[a.cleared_of != NO_VALUE])
        self.reasons.update(a.loss_reason[k] or NO_SHORT_REASON for k in np.flatnonzero(lost))
        count_values(self.random, a.random_rate[won])
        count_values(self.greedy, a.greedy_rate[won])
        moves = np.asarray(moves)
        solved = won & (moves >= 0)
        for m in np.unique(moves[solved]).tolist():
            count_values(self.random_by_moves.setdefault(m, Counter()),
                   a.random_rate[solved & (moves == m)])

    def merge(self, other: "AnalysisSummary") -> None:
        self.lost += other.lost
        self.bounds += other.bounds
        for name in ("cleared", "of", "reasons", "random", "greedy"):
            getattr(self, name).update(getattr(other, name))
        for m, c in other.random_by_moves.items():
            self.random_by_moves.setdefault(m, Counter()).update(c)

    def state(self) -> dict:
        """JSON-able totals (float keys as their ``repr``, which reads back exactly)."""
        def floats(c: Counter) -> dict:
            return {repr(k): v for k, v in c.items()}

        return {"lost": self.lost, "bounds": self.bounds,
                "cleared": {str(k): v for k, v in self.cleared.items()},
                "of": {str(k): v for k, v in self.of.items()}, "reasons": dict(self.reasons),
                "random": floats(self.random), "greedy": floats(self.greedy),
                "random_by_moves": {str(m): floats(c) for m, c in self.random_by_moves.items()}}

    @classmethod
    def from_state(cls, d: dict) -> "AnalysisSummary":
        s = cls()
        s.lost, s.bounds = d["lost"], d["bounds"]
        s.cleared.update({int(k): v for k, v in d["cleared"].items()})
        s.of.update({int(k): v for k, v in d["of"].items()})
        s.reasons.update(d["reasons"])
        s.random.update({float(k): v for k, v in d["random"].items()})
        s.greedy.update({float(k): v for k, v in d["greedy"].items()})
        s.random_by_moves = {int(m): Counter({float(k): v for k, v in c.items()})
                             for m, c in d["random_by_moves"].items()}
        return s

    def to_dict(self) -> dict:
        hist = dict(sorted(self.cleared.items()))
        return {
            "max_cleared": {
                "of": sorted(self.of), "n": self.lost, "lower_bounds": self.bounds,
                "mean": sum(k * v for k, v in hist.items()) / self.lost if self.lost else None,
                "histogram": {str(k): v for k, v in hist.items()}},
            "loss_reasons": {name: {"deals": n, "share": wilson(n, self.lost)}
                             for name, n in sorted(self.reasons.items(), key=_reason_order)},
            "random_win_rate": {"won": _counter_rate(self.random),
                                "decided": _counter_rate(self.random, self.lost)},
            "greedy_win_rate": {"won": _counter_rate(self.greedy),
                                "decided": _counter_rate(self.greedy, self.lost)},
            "random_win_rate_by_moves": {str(m): _counter_rate(self.random_by_moves[m])
                                         for m in sorted(self.random_by_moves)},
        }


def _reason_order(item) -> tuple:
    """Most frequent first, "none" last, then by name."""
    name, n = item
    return (name == NO_SHORT_REASON, -n, name)


def analysis_text(d: dict) -> str:
    """The human summary of ``AnalysisSummary.to_dict()``."""
    mc = d["max_cleared"]
    lines = []
    if mc["n"]:
        of = "/".join(map(str, mc["of"])) or "?"
        bound = (f"; {mc['lower_bounds']} of them lower bounds (a limit was hit)"
                 if mc["lower_bounds"] else "")
        lines.append(f"Most cards cleared (of {of}) over {mc['n']} lost deals: mean "
                     f"{mc['mean']:.2f}{bound}")
        lines.append(text_histogram({int(k): v for k, v in mc["histogram"].items()},
                                    label="  cleared    deals"))
        lines.append("Loss reasons: " + ", ".join(
            f"{name} {r['deals']} ({100 * r['share']['p']:.1f}%)"
            for name, r in d["loss_reasons"].items()))
    else:
        lines.append("Most cards cleared: no lost deal")
    for player in ("random", "greedy"):
        r = d[f"{player}_win_rate"]
        lines.append(f"{player.capitalize()}-play win rate: {fmt_p(r['won'])} over {r['won']['n']} "
                     f"won deals; {fmt_p(r['decided'])} over {r['decided']['n']} decided deals "
                     f"(mean, 95% interval)")
    return "\n".join(lines)
