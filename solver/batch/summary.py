"""The summary of a batch: outcome counts, win rate with its Wilson interval, the histogram of
minimum moves and the slowest deals (for a challenge's results, the challenge's part,
``solver.batch.challenge_summary``, in place of the win rate and minimum moves). Built chunk by
chunk (constant memory) and mergeable, so a resumed run and ``pyramid stats`` give the same
figures as the run that wrote the file.

Times are kept as whole nanoseconds (the results file holds every row's ``ms`` to the nanosecond),
so the totals do not depend on how the rows were cut into blocks: ``pyramid batch --json`` and
``pyramid stats --json`` of the same results print the same numbers, unrounded."""

from __future__ import annotations

from collections import Counter

import numpy as np

from solver.batch.analysis import AnalysisColumns
from solver.batch.analysis_summary import AnalysisSummary, analysis_text, count_values
from solver.batch.challenge import CHALLENGE_OUTCOMES, ChallengeColumns
from solver.batch.challenge_summary import ChallengeSummary, challenge_text
from solver.pyramid.model.outcome import REASONS
from solver.core.stats import fmt_p, text_histogram, wilson

OUTCOME_NAMES = ("lost", "won", "unknown")
"""Outcome names by ``solver.pyramid.model.outcome.Outcome`` value: 0 lost, 1 won, 2 unknown (a limit
hit)."""
REASON_NAMES = ("",) + REASONS
"""Reason names by code: 0 none (the deal was decided), then ``solver.pyramid.model.outcome.REASONS``,
the limit that left a deal ``unknown`` (``states``, ``timeout``, ``memory``, ...)."""
NO_MOVES = -1
"""``moves`` of a deal without a minimum move count (not solved for it, or not won)."""
NS_PER_MS = 1_000_000
MAX_MS = float(np.iinfo(np.int64).max // NS_PER_MS)
"""The longest time a results row may give (about 292 years): its nanoseconds, which the summary
adds up, must fit an int64."""
SLOWEST = 10
"""How many of the slowest deals a summary keeps."""


def exact_sum(values) -> int:
    """The exact sum of non-negative int64 ``values`` (numpy's own sum wraps round past 2**63):
    the high and the low 32 bits are summed apart, each sum within an int64 for up to 2**31
    values (a block of rows holds far fewer)."""
    values = np.asarray(values, dtype=np.int64)
    return (int((values >> 32).sum()) << 32) + int((values & 0xFFFFFFFF).sum())


class Summary:
    """Running totals over the rows of a results table; ``to_dict`` is the JSON summary. The
    rows of a challenge's table (their challenge columns given to ``add``) make a challenge's
    summary: its own outcome names, its ``challenge`` part instead of the win rate and the
    minimum moves."""

    def __init__(self, id_column: str = "seed", top: int = SLOWEST) -> None:
        self.id_column = id_column
        self.top = top
        self.outcomes = Counter()
        """rows per outcome name"""
        self.reasons = Counter()
        self.moves = Counter()
        self.states_total = 0
        self.states_max = 0
        self.ns_total = 0
        self.slowest: list[dict] = []
        self.analysis: AnalysisSummary | None = None
        """The analysis columns' totals (``pyramid batch --analyse``); None without them."""
        self.challenge: ChallengeSummary | None = None
        """A challenge's totals (``pyramid batch --challenge``); None for other rows."""

    @property
    def deals(self) -> int:
        return sum(self.outcomes.values())

    @property
    def outcome_names(self) -> tuple[str, ...]:
        """The names of the rows' outcome codes."""
        return OUTCOME_NAMES if self.challenge is None else CHALLENGE_OUTCOMES

    def add(self, ids, deal_text, outcome, moves, states, ms, reason=None,
            analysis: AnalysisColumns | None = None,
            challenge: ChallengeColumns | None = None) -> None:
        """Add a block of rows: numpy columns, ``deal_text(i)`` giving row i's deal text;
        ``moves`` < 0 for none; ``reason``: codes of ``REASON_NAMES`` (None: not known);
        ``analysis``: the block's analysis columns (None: not analysed); ``challenge``: the
        challenge columns of a challenge's rows (then ``moves`` are its best lines')."""
        outcome = np.asarray(outcome)
        if analysis is not None:
            if self.analysis is None:
                self.analysis = AnalysisSummary()
            self.analysis.add(outcome, moves, analysis)
        if challenge is not None:
            if self.challenge is None:
                self.challenge = ChallengeSummary(challenge.kind)
            self.challenge.add(outcome, moves, challenge)
        if len(outcome) == 0:
            return
        names = self.outcome_names
        for code, name in enumerate(names):
            self.outcomes[name] += int(np.count_nonzero(outcome == code))
        if reason is not None:
            reason = np.asarray(reason)
            for code, name in enumerate(REASON_NAMES[1:], start=1):
                n = int(np.count_nonzero(reason == code))
                if n:
                    self.reasons[name] += n
        if challenge is None:
            moves = np.asarray(moves)
            count_values(self.moves, moves[moves >= 0])
        states = np.asarray(states)
        self.states_total += exact_sum(states)
        self.states_max = max(self.states_max, int(states.max()))
        ms = np.asarray(ms, dtype=np.float64)
        self.ns_total += exact_sum(np.rint(ms * NS_PER_MS).astype(np.int64))
        k = min(self.top, len(ms))
        for i in np.argsort(-ms, kind="stable")[:k].tolist():
            row = {self.id_column: int(ids[i]), "ms": float(ms[i]), "states": int(states[i]),
                   "outcome": names[outcome[i]]}
            if reason is not None and reason[i]:
                row["reason"] = REASON_NAMES[reason[i]]
            row["deal"] = deal_text(i)
            self.slowest.append(row)
        self._trim()

    def _trim(self) -> None:
        self.slowest.sort(key=lambda d: (-d["ms"], d[self.id_column]))
        del self.slowest[self.top:]

    def merge(self, other: "Summary") -> None:
        self.outcomes.update(other.outcomes)
        self.reasons.update(other.reasons)
        self.moves.update(other.moves)
        self.states_total += other.states_total
        self.states_max = max(self.states_max, other.states_max)
        self.ns_total += other.ns_total
        self.slowest.extend(other.slowest)
        self._trim()
        if other.analysis is not None:
            if self.analysis is None:
                self.analysis = AnalysisSummary()
            self.analysis.merge(other.analysis)
        if other.challenge is not None:
            if self.challenge is None:
                self.challenge = ChallengeSummary(other.challenge.kind)
            self.challenge.merge(other.challenge)

    def state(self) -> dict:
        """Everything needed to rebuild this summary (stored beside each chunk of a run)."""
        d = {"id_column": self.id_column, "outcomes": dict(self.outcomes),
             "reasons": dict(self.reasons),
             "moves": {str(k): v for k, v in self.moves.items()},
             "states_total": self.states_total, "states_max": self.states_max,
             "ns_total": self.ns_total, "slowest": self.slowest}
        if self.analysis is not None:
            d["analysis"] = self.analysis.state()
        if self.challenge is not None:
            d["challenge"] = self.challenge.state()
        return d

    @classmethod
    def from_state(cls, d: dict, top: int = SLOWEST) -> "Summary":
        s = cls(d["id_column"], top)
        s.outcomes.update(d["outcomes"])
        s.reasons.update(d["reasons"])
        s.moves.update({int(k): v for k, v in d["moves"].items()})
        s.states_total, s.states_max, s.ns_total = d["states_total"], d["states_max"], d["ns_total"]
        s.slowest = list(d["slowest"])
        s._trim()
        if "analysis" in d:
            s.analysis = AnalysisSummary.from_state(d["analysis"])
        if "challenge" in d:
            s.challenge = ChallengeSummary.from_state(d["challenge"])
        return s

    def to_dict(self) -> dict:
        """The JSON summary (docs/json.md); a challenge's has its ``challenge`` part instead of
        ``win_rate``, ``moves`` and ``moves_histogram``."""
        n = self.deals
        if self.challenge is not None:
            return {"deals": n,
                    "outcomes": {name: self.outcomes[name] for name in ("reached", "best",
                                                                        "unknown")},
                    "unknown_reasons": self.unknown_reasons(),
                    "challenge": self.challenge.to_dict(), **self.search_figures()}
        won, lost = self.outcomes["won"], self.outcomes["lost"]
        hist = dict(sorted(self.moves.items()))
        solved = sum(hist.values())
        moves = None
        if solved:
            mean = sum(k * v for k, v in hist.items()) / solved
            moves = {"n": solved, "mean": mean, "median": _median(hist), "min": min(hist),
                     "max": max(hist)}
        d = {
            "deals": n,
            "outcomes": {name: self.outcomes[name] for name in ("won", "lost", "unknown")},
            "unknown_reasons": self.unknown_reasons(),
            "win_rate": wilson(won, won + lost),
            "moves": moves,
            "moves_histogram": {str(k): v for k, v in hist.items()},
            **self.search_figures(),
        }
        if self.analysis is not None:
            d["analysis"] = self.analysis.to_dict()
        return d

    def unknown_reasons(self) -> dict:
        return {name: self.reasons[name] for name in REASONS if self.reasons[name]}

    def search_figures(self) -> dict:
        """The ``states``, ``ms`` and ``slowest`` of the JSON summary."""
        n = self.deals
        return {"states": {"total": self.states_total,
                           "mean": self.states_total / n if n else None,
                           "max": self.states_max},
                "ms": {"total": self.ns_total / NS_PER_MS,
                       "mean": self.ns_total / NS_PER_MS / n if n else None},
                "slowest": self.slowest}


def _median(hist: dict[int, int]) -> float:
    n = sum(hist.values())
    values = []
    seen = 0
    for v, c in hist.items():
        for target in ((n - 1) // 2, n // 2):
            if seen <= target < seen + c:
                values.append(v)
        seen += c
    return sum(values) / len(values)


def summary_text(d: dict) -> str:
    """The human summary of ``Summary.to_dict()`` output."""
    o = d["outcomes"]
    why = ", ".join(f"{name} {n}" for name, n in d["unknown_reasons"].items())
    lines = [f"Deals: {d['deals']}   " + "   ".join(f"{name} {n}" for name, n in o.items())
             + (f"  (a limit was hit: {why or 'not recorded'})" if o["unknown"] else "")]
    wr = d.get("win_rate")
    if "challenge" in d:
        lines.append(challenge_text(d["challenge"]))
    elif wr["n"]:
        lines.append(f"Win rate: {fmt_p(wr)} (95% Wilson interval over {wr['n']} decided deals)")
    else:
        lines.append("Win rate: no decided deal")
    if d.get("moves"):
        m = d["moves"]
        lines.append(f"Minimum moves over {m['n']} won deals: mean {m['mean']:.2f}, median "
                     f"{m['median']:g}, min {m['min']}, max {m['max']}")
        hist = {int(k): v for k, v in d["moves_histogram"].items()}
        lines.append(text_histogram(hist, label="  moves      deals"))
    if d["deals"]:
        lines.append(f"States per deal: mean {d['states']['mean']:.1f}, max {d['states']['max']}; "
                     f"search time per deal: mean {d['ms']['mean']:.3f} ms")
    else:
        lines.append("States per deal: n/a; search time per deal: n/a (no deal)")
    if d["slowest"]:
        id_col = next(k for k in d["slowest"][0] if k in ("seed", "line"))
        lines.append("Slowest deals:")
        for s in d["slowest"]:
            lines.append(f"  {id_col} {s[id_col]:<10} {s['ms']:>10.3f} ms {s['states']:>12} states"
                         f"  {s['outcome']:<7}  {s['deal']}")
    if "analysis" in d:
        lines.append(analysis_text(d["analysis"]))
    return "\n".join(lines)
