"""``pyramid batch --analyse``: the analysis columns of a batch, computed per chunk, written and
checked row by row.

Analysis columns (after ``reason``, in this order, in CSV and Parquet alike; a file has all six or
none):

    max_cleared        int16   the most cards that can be removed: a won deal ``max_cleared_of``;
                               a lost deal ``best_partial(...).best`` (pyramid cards, or all cards
                               under goal all). Empty (null) for an unknown deal.
    max_cleared_of     int16   what ``max_cleared`` counts out of: 28 (goal pyramid) or 52 (goal
                               all); empty for an unknown deal.
    max_cleared_exact  bool    true when ``max_cleared`` is proven exact; false when the partial
                               search hit ``--max-states`` (or ``--timeout``) before its lower
                               and upper bounds met, so that ``max_cleared`` is a proven lower
                               bound (a line reaching it exists) and the exact figure may be
                               higher. Empty for an unknown deal.
    loss_reason        string  a lost deal's short proof (``solver.pyramid.analysis.reasons.REASON_KINDS``,
                               e.g. a dead card); empty when it has none, and for deals not lost.
                               (Not ``reason``: that column already names the limit that left a
                               deal unknown.)
    random_win_rate    float64 won deals: the share of ``--playouts`` random playouts (uniform
                               among legal moves) that win; lost deals 0 (not played: no playout
                               can win); empty for an unknown deal.
    greedy_win_rate    float64 the same for the greedy player.

A rate is written as the shortest decimal that reads back as the same double (``0.372``, ``1``,
``0``), so a file read back gives exactly the rates the run computed.

Playout seed: the playouts of a won deal are seeded with the deal's id, its seed (``--seeds``) or
its line number in the deal file (``--deal-file``), through ``playout_wins_many(deal, rules,
playouts, seed=id)``: the same deal and id give the same rates whatever the chunking, ``--jobs``
or executor.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from solver.pyramid.model.layout import DECK_CARDS, PYRAMID_CARDS
from solver.pyramid.model.rules import Rules

ANALYSIS_COLUMNS = ("max_cleared", "max_cleared_of", "max_cleared_exact", "loss_reason",
                    "random_win_rate", "greedy_win_rate")
"""The columns ``--analyse`` adds, after ``reason``."""
DEFAULT_PLAYOUTS = 1000
"""Random (and greedy) playouts per won deal by default."""
MAX_PLAYOUTS = 1_000_000
"""The most playouts per deal ``--playouts`` accepts (5 s of one core per won deal at 200,000
playouts a second)."""
ANALYSE_CHUNK = 100
"""Deals per chunk with ``--analyse``: about a second of one core's work (~10 ms of playouts per
won deal, the partial search per lost deal), so that a few hundred deals keep every core busy."""
NO_VALUE = -1
"""``max_cleared``, ``max_cleared_of`` and ``max_cleared_exact`` of an unknown deal."""
CLEARED_OF = (PYRAMID_CARDS, DECK_CARDS)
"""What ``max_cleared`` may count out of: the pyramid's cards (goal pyramid), or all (goal all)."""
EXACT_TEXT = {0: "false", 1: "true", NO_VALUE: ""}
"""The CSV text of ``max_cleared_exact``."""


def cleared_of(rules: Rules) -> int:
    """The cards a won deal clears: 28 under goal pyramid, 52 under goal all."""
    return DECK_CARDS if rules.goal == "all" else PYRAMID_CARDS


def count_exact(r) -> int:
    """1 if the count of a ``PartialResult`` is proven: the search finished, or its proven lower
    and upper bounds met (a limit may have stopped only the search for the fewest moves)."""
    return int(r.exact or r.best == r.upper)


def playout_seed(ident: int) -> int:
    """The playout seed of the deal with id ``ident`` (its seed or line number): the id itself."""
    return int(ident)


def loss_reason_kinds() -> tuple[str, ...]:
    """``solver.pyramid.analysis.reasons.REASON_KINDS`` (imported when first needed)."""
    from solver.pyramid.analysis.reasons import REASON_KINDS

    return tuple(REASON_KINDS)


def check_playouts(playouts, analyse: bool) -> int:
    """``playouts`` checked: 1 .. ``MAX_PLAYOUTS``, and only with ``analyse`` (``None``: the
    default). Raises ``ValueError`` naming ``--playouts``."""
    if playouts is None:
        return DEFAULT_PLAYOUTS
    if not analyse:
        raise ValueError("--playouts applies to --analyse only")
    if isinstance(playouts, bool) or not isinstance(playouts, (int, np.integer)) \
            or not 1 <= playouts <= MAX_PLAYOUTS:
        raise ValueError(f"--playouts must be 1 .. {MAX_PLAYOUTS:,}, not {playouts!r}")
    return int(playouts)


@dataclass(frozen=True)
class AnalysisColumns:
    """The analysis columns of a block of rows, in input order (``ANALYSIS_COLUMNS``).

    max_cleared, cleared_of: int16, ``NO_VALUE`` for an unknown deal; exact: int8, 1 exact,
    0 a lower bound, ``NO_VALUE`` for an unknown deal; loss_reason: str per row ("" none);
    random_rate, greedy_rate: float64, NaN for an unknown deal.
    """

    max_cleared: np.ndarray
    cleared_of: np.ndarray
    exact: np.ndarray
    loss_reason: Sequence[str]
    random_rate: np.ndarray
    greedy_rate: np.ndarray

    def __len__(self) -> int:
        return len(self.max_cleared)

    @classmethod
    def empty(cls, n: int) -> "AnalysisColumns":
        """``n`` rows of unknown deals (every field empty)."""
        return cls(np.full(n, NO_VALUE, np.int16), np.full(n, NO_VALUE, np.int16),
                   np.full(n, NO_VALUE, np.int8), [""] * n, np.full(n, np.nan),
                   np.full(n, np.nan))


def analyse_chunk(ids: np.ndarray, deals: np.ndarray, outcome: np.ndarray, rules: Rules,
                  playouts: int, max_states: int = 0, timeout: float | None = None,
                  workspace=None) -> AnalysisColumns:
    """The analysis columns of decided deals (``outcome`` codes: 0 lost, 1 won, 2 unknown).

    Lost deals: ``best_partial`` under ``max_states`` / ``timeout`` (in ``workspace``, an
    objective-search ``Workspace`` of this thread) and ``find_reason``; won deals: ``playouts`` random and
    greedy playouts seeded with ``playout_seed(id)``."""
    from solver.pyramid.analysis.partial import best_partial
    from solver.pyramid.analysis.playouts import playout_wins_many
    from solver.pyramid.analysis.reasons import find_reason

    cols = AnalysisColumns.empty(len(ids))
    reasons = list(cols.loss_reason)
    most = cleared_of(rules)
    for k in np.flatnonzero(outcome == 0).tolist():
        r = best_partial(deals[k], rules, max_states=max_states, timeout=timeout,
                         workspace=workspace)
        cols.max_cleared[k], cols.cleared_of[k] = r.best, r.most
        cols.exact[k] = count_exact(r)
        why = find_reason(deals[k], rules)
        reasons[k] = "" if why is None else why.kind
        cols.random_rate[k] = cols.greedy_rate[k] = 0.0
    for k in np.flatnonzero(outcome == 1).tolist():
        w = playout_wins_many(deals[k:k + 1].astype(np.int64), rules, playouts,
                              seed=playout_seed(ids[k]))
        cols.max_cleared[k], cols.cleared_of[k], cols.exact[k] = most, most, 1
        cols.random_rate[k] = int(w.random[0]) / playouts
        cols.greedy_rate[k] = int(w.greedy[0]) / playouts
    return AnalysisColumns(cols.max_cleared, cols.cleared_of, cols.exact, reasons,
                           cols.random_rate, cols.greedy_rate)


# --------------------------------------------------------------------------- writing

def rate_text(x: float) -> str:
    """A rate as the shortest positional decimal that reads back as the same double."""
    return np.format_float_positional(x, unique=True, trim="-")


def csv_fields(a: AnalysisColumns) -> list[str]:
    """Each row's analysis fields as CSV text (``,`` first: they follow ``reason``)."""
    out = []
    for m, of, ex, why, rnd, grd in zip(a.max_cleared.tolist(), a.cleared_of.tolist(),
                                        a.exact.tolist(), a.loss_reason, a.random_rate.tolist(),
                                        a.greedy_rate.tolist()):
        if m == NO_VALUE:
            out.append("," * len(ANALYSIS_COLUMNS))
        else:
            out.append(f",{m},{of},{EXACT_TEXT[ex]},{why},{rate_text(rnd)},{rate_text(grd)}")
    return out


def parquet_fields(pa) -> list:
    """The analysis columns' Parquet fields (``pa``: pyarrow)."""
    return [("max_cleared", pa.int16()), ("max_cleared_of", pa.int16()),
            ("max_cleared_exact", pa.bool_()), ("loss_reason", pa.string()),
            ("random_win_rate", pa.float64()), ("greedy_win_rate", pa.float64())]


def parquet_arrays(pa, a: AnalysisColumns) -> list:
    """The analysis columns as pyarrow arrays (nulls for unknown deals)."""
    unknown = a.max_cleared == NO_VALUE
    return [pa.array(a.max_cleared, mask=unknown, type=pa.int16()),
            pa.array(a.cleared_of, mask=unknown, type=pa.int16()),
            pa.array(a.exact == 1, mask=unknown, type=pa.bool_()),
            pa.array([w or None for w in a.loss_reason], type=pa.string()),
            pa.array(a.random_rate, mask=unknown, type=pa.float64()),
            pa.array(a.greedy_rate, mask=unknown, type=pa.float64())]


# --------------------------------------------------------------------------- checking

class BadRow(ValueError):
    """What is wrong with a row of a results file (the reader adds the file and line)."""


def _whole(name: str, value) -> int:
    if isinstance(value, bool):
        raise BadRow(f"{name} {value!r} is not an integer")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise BadRow(f"{name} {_short(value)} is not an integer") from None


def _rate(name: str, value) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise BadRow(f"{name} {_short(value)} is not a number") from None
    if not (math.isfinite(x) and 0 <= x <= 1):
        raise BadRow(f"{name} {x!r} is not a rate between 0 and 1")
    return x


def _short(value) -> str:
    from solver.core.text import clip

    return clip(value)


def check_fields(outcome: str, max_cleared, of, exact, loss_reason, random_rate,
                 greedy_rate) -> tuple:
    """A row's analysis fields (``None`` for an empty field; ``exact`` a bool or its CSV text)
    checked against each other and the row's ``outcome``; returns ``(max_cleared, of, exact code,
    loss_reason, random_rate, greedy_rate)`` as ``AnalysisColumns`` holds them. Raises
    ``BadRow``."""
    fields = (max_cleared, of, exact, loss_reason, random_rate, greedy_rate)
    if outcome == "unknown":
        given = [name for name, v in zip(ANALYSIS_COLUMNS, fields) if v is not None]
        if given:
            raise BadRow(f"{given[0]} given for an unknown deal")
        return NO_VALUE, NO_VALUE, NO_VALUE, "", math.nan, math.nan
    missing = [name for name, v in zip(ANALYSIS_COLUMNS, fields)
               if v is None and name != "loss_reason"]
    if missing:
        raise BadRow(f"{missing[0]} is empty for a deal {outcome}")
    m, of = _whole("max_cleared", max_cleared), _whole("max_cleared_of", of)
    if of not in CLEARED_OF:
        raise BadRow(f"max_cleared_of {of} is not {CLEARED_OF[0]} or {CLEARED_OF[1]}")
    if not 0 <= m <= of:
        raise BadRow(f"max_cleared {m} is not 0 .. {of}")
    if exact is True or exact == "true":
        ex = 1
    elif exact is False or exact == "false":
        ex = 0
    else:
        raise BadRow(f"max_cleared_exact {_short(exact)} is not true or false")
    rnd, grd = _rate("random_win_rate", random_rate), _rate("greedy_win_rate", greedy_rate)
    if outcome == "won":
        if m != of or not ex:
            raise BadRow(f"max_cleared {m} of {of}{'' if ex else ' (a bound)'} on a won deal "
                         f"(a win clears all {of})")
        if loss_reason is not None:
            raise BadRow(f"loss_reason {_short(loss_reason)} given for a won deal")
    else:
        if m == of:
            raise BadRow(f"max_cleared {m} of {of} on a lost deal (clearing all is a win)")
        if loss_reason is not None and loss_reason not in loss_reason_kinds():
            raise BadRow(f"loss_reason {_short(loss_reason)} is not one of "
                         f"{', '.join(loss_reason_kinds())}")
        if rnd or grd:
            raise BadRow(f"{'random' if rnd else 'greedy'}_win_rate {rnd or grd!r} on a lost "
                         f"deal (no playout of a lost deal can win)")
    return m, of, ex, loss_reason or "", rnd, grd


def columns_of(rows: list[tuple]) -> AnalysisColumns:
    """``AnalysisColumns`` of rows checked by ``check_fields``."""
    m, of, ex, why, rnd, grd = zip(*rows)
    return AnalysisColumns(np.asarray(m, np.int16), np.asarray(of, np.int16),
                           np.asarray(ex, np.int8), list(why), np.asarray(rnd, np.float64),
                           np.asarray(grd, np.float64))
