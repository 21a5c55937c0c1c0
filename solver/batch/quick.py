"""Quick checks of a whole block of a results file at once (numpy), for ``pyramid stats``.

``solver.batch.results`` reads a results file a block of rows at a time and hands each block to
``csv_block`` or ``parquet_block`` here first. They check every row of the block with array
operations and return the block, or ``None`` when any row fails a check or the block holds
something they do not handle (a quoted field, a carriage return, text that is not ASCII, a
column of another type). They accept only rows that the row-by-row check (``check_row`` in
``solver.batch.results``) accepts; on ``None`` the caller reads the rows one by one, which names
the first bad row (or accepts a row that was merely unusual). So a bad file gets exactly the
error it always got, and a good one is read several times faster.

A CSV block is parsed from its bytes without splitting it into strings: the field boundaries come
from the positions of the commas and newlines, whole numbers and times from their digits, and
``winnable``, ``outcome`` and ``reason`` from their bytes packed into one integer each.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from solver.batch.analysis import ANALYSIS_COLUMNS, CLEARED_OF, NO_VALUE, AnalysisColumns, \
    loss_reason_kinds
from solver.batch.io import WINNABLE_TEXT
from solver.batch.summary import MAX_MS, NO_MOVES, OUTCOME_NAMES, REASON_NAMES

NEWLINE, COMMA, QUOTE, CR, DOT, ZERO, NUL = b"\n", b",", b'"', b"\r", b".", b"0", b"\0"
MAX_DIGITS = 18
"""Most digits of a whole number read here (int64 holds them all)."""
MAX_TIME_DIGITS = 15
"""Most digits of a time read here: below 2**53, its digits then divide by a power of ten into
exactly the double ``float()`` gives (both are the correctly rounded quotient)."""
MAX_RATE_CHARS = 32
"""Most characters of a rate read here (the rate of k wins in at most a million playouts)."""
KEY_BYTES = 8
"""Bytes of a word packed into one integer key (every outcome, reason and winnable text fits)."""
POW10 = 10 ** np.arange(MAX_DIGITS + 1, dtype=np.int64)
WINDOW = MAX_DIGITS + 1
"""Bytes of a field looked at, at most (a number's digits and point, or a key's bytes)."""
FIRST_PRINTABLE, LAST_PRINTABLE = 0x21, 0x7E
"""A deal's first byte must be printable ASCII other than a space (so the deal is not blank)."""
UNKNOWN = OUTCOME_NAMES.index("unknown")
WON = OUTCOME_NAMES.index("won")
LOST = OUTCOME_NAMES.index("lost")


def _key(word: str) -> int:
    """``word``'s bytes as one little-endian integer (``_keys`` packs fields the same way)."""
    if len(word) > KEY_BYTES:
        raise ValueError(f"{word!r} is longer than {KEY_BYTES} bytes")
    return int.from_bytes(word.encode("ascii"), "little")


def _table(words) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted keys, their indices in words)`` for looking fields up with ``_codes``."""
    keys = np.array([_key(w) for w in words], dtype=np.uint64)
    order = np.argsort(keys)
    return keys[order], order


_WINNABLE = _table(WINNABLE_TEXT)
_OUTCOME = _table(OUTCOME_NAMES)
_REASON = _table(REASON_NAMES)


class Deals(Sequence):
    """The deal texts of a CSV block, cut from its text only when asked for (the summary needs
    the ten slowest)."""

    def __init__(self, text: str, starts: np.ndarray, stops: np.ndarray) -> None:
        self.text, self.starts, self.stops = text, starts, stops

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        return self.text[self.starts[i]:self.stops[i]]


def _windows(chunk: bytes) -> np.ndarray:
    """Row ``i``: the ``WINDOW`` bytes of ``chunk`` from index ``i`` on (zeros past its end), a
    view: a field's bytes are one row, gathered without index arithmetic."""
    padded = np.frombuffer(chunk + bytes(WINDOW), dtype=np.uint8)
    return np.lib.stride_tricks.as_strided(padded, shape=(len(chunk), WINDOW), strides=(1, 1),
                                           writeable=False)


def _gather(windows: np.ndarray, starts: np.ndarray, lens: np.ndarray, width: int):
    """``(bytes, inside)``: each field's first ``width`` bytes as a row (0 past its end), and
    which of them are the field's."""
    inside = np.arange(width) < lens[:, None]
    return np.where(inside, windows[starts, :width], np.uint8(0)), inside


def _codes(windows, starts, lens, table) -> np.ndarray | None:
    """Each field's index in the table's words; ``None`` if a field is none of them."""
    if lens.max(initial=0) > KEY_BYTES:
        return None
    b, _ = _gather(windows, starts, lens, KEY_BYTES)
    keys = np.ascontiguousarray(b).view("<u8").ravel()
    sorted_keys, index = table
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    if (sorted_keys[at] != keys).any():
        return None
    return index[at]


def _number(windows, starts, lens, decimal: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """``(digits as an integer, digits after the point)`` of fields of 1 .. ``MAX_DIGITS``
    ASCII digits (with ``decimal``: 1 .. ``MAX_TIME_DIGITS`` and at most one point among them);
    ``None`` otherwise. Read a column of bytes at a time, all fields at once."""
    most = MAX_TIME_DIGITS if decimal else MAX_DIGITS
    if lens.min(initial=1) < 1 or lens.max(initial=0) > most + decimal:
        return None
    b = windows[starts, :int(lens.max(initial=1))]
    n = len(starts)
    value = np.zeros(n, dtype=np.int64)
    places = np.zeros(n, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    seen = np.zeros(n, dtype=bool)  # the point came already
    for j in range(b.shape[1]):
        byte = b[:, j]
        inside = j < lens
        digit = inside & (byte - ZERO[0] < 10)  # uint8: bytes below '0' wrap round to >= 10
        point = inside & (byte == DOT[0]) if decimal else False
        if (inside & ~(digit | point)).any() or (seen & point).any():
            return None
        value = np.where(digit, value * 10 + (byte - ZERO[0]), value)
        count += digit
        if decimal:
            places += seen & digit
            seen |= point
    if (count < 1).any() or (count > most).any():
        return None
    return value, places


def csv_block(chunk: bytes, header: list[str], id_column: str,
              ends: np.ndarray | None = None) -> dict | None:
    """The rows of ``chunk`` (whole lines of a results CSV with this ``header``; ``ends``: the
    index of each line's newline, if known) as a block; ``None`` if a row fails a check or the
    block needs the csv module. The block is what ``solver.batch.results.read_results`` yields."""
    if QUOTE in chunk or CR in chunk or NUL in chunk or not chunk.isascii():
        return None  # (a NUL byte would pack like the end of a word: "won\0" like "won")
    codes = np.frombuffer(chunk, dtype=np.uint8)
    if ends is None:
        ends = np.flatnonzero(codes == NEWLINE[0])
    n, width = len(ends), len(header)
    commas = np.flatnonzero(codes == COMMA[0])
    if n == 0 or len(commas) != n * (width - 1) or (
            np.searchsorted(commas, ends) != np.arange(1, n + 1) * (width - 1)).any():
        return None  # a line whose field count is not the header's
    inner = commas.reshape(n, width - 1)
    starts = np.column_stack((np.concatenate(([0], ends[:-1] + 1)), inner + 1))
    lens = np.column_stack((inner, ends)) - starts

    windows = _windows(chunk)

    def field(name: str):
        k = header.index(name)
        return windows, starts[:, k], lens[:, k]

    ids, states, ms = (_number(*field(id_column), decimal=False),
                       _number(*field("states"), decimal=False),
                       _number(*field("ms"), decimal=True))
    winnable = _codes(*field("winnable"), _WINNABLE)
    outcome = _codes(*field("outcome"), _OUTCOME)
    with_reason = "reason" in header
    reason = _codes(*field("reason"), _REASON) if with_reason else None
    if ids is None or states is None or ms is None or winnable is None or outcome is None or (
            with_reason and reason is None):
        return None
    if (winnable != outcome).any():  # WINNABLE_TEXT is indexed by outcome code
        return None
    if with_reason and ((reason == 0) != (outcome != UNKNOWN)).any():
        return None  # a reason for a decided deal, or none for an unknown one
    moves = np.full(n, NO_MOVES, dtype=np.int64)
    _, m_starts, m_lens = field("moves")
    given = m_lens > 0
    if given.any():
        parsed = _number(windows, m_starts[given], m_lens[given], decimal=False)
        if parsed is None or (outcome[given] != WON).any():
            return None
        moves[given] = parsed[0]
    _, d_starts, d_lens = field("deal")
    first = codes[d_starts]
    if (d_lens < 1).any() or ((first < FIRST_PRINTABLE) | (first > LAST_PRINTABLE)).any():
        return None
    analysis = None
    if ANALYSIS_COLUMNS[0] in header:
        analysis = _csv_analysis(windows, codes, field, outcome)
        if analysis is None:
            return None
    value, places = ms
    ms = value / POW10[places].astype(np.float64)
    if (ms > MAX_MS).any():
        return None
    return {"ids": ids[0], "deal": Deals(chunk.decode("ascii"), d_starts, d_starts + d_lens),
            "outcome": outcome.astype(np.int8), "moves": moves, "states": states[0],
            "ms": ms,
            "reason": reason.astype(np.int8) if with_reason else None, "analysis": analysis}


@functools.cache
def _loss_reasons() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(sorted words, their codes, names by code)`` of ``loss_reason``: code 0 is "", then
    ``loss_reason_kinds()``; words as fixed-width bytes (numpy ``S``) for ``searchsorted``."""
    names = ("",) + loss_reason_kinds()
    words = np.array([w.encode("ascii") for w in names])
    order = np.argsort(words)
    return words[order], order, np.array(names, dtype=object)


def _field_bytes(codes: np.ndarray, starts, lens, width: int) -> np.ndarray:
    """Each field's first ``width`` bytes as a row, zeros past its end (fields of any length,
    unlike ``_gather``'s windows)."""
    inside = np.arange(width) < lens[:, None]
    at = np.minimum(starts[:, None] + np.arange(width), len(codes) - 1)
    return np.ascontiguousarray(np.where(inside, codes[at], np.uint8(0)))


def _word_codes(codes: np.ndarray, starts, lens) -> np.ndarray | None:
    """Each field's ``loss_reason`` code (fields of any length); ``None`` if one is none."""
    words, order, _ = _loss_reasons()
    width = words.dtype.itemsize
    if lens.max(initial=0) > width:
        return None
    keys = _field_bytes(codes, starts, lens, width).view(words.dtype).ravel()
    found = np.minimum(np.searchsorted(words, keys), len(words) - 1)
    if (words[found] != keys).any():
        return None
    return order[found]


def _rates(codes: np.ndarray, starts, lens) -> np.ndarray | None:
    """Fields of digits with at most one point (at least one digit, at most ``MAX_RATE_CHARS``
    characters) as the doubles ``float()`` reads from them; ``None`` if a field is another."""
    width = int(lens.max(initial=1))
    if lens.min(initial=1) < 1 or width > MAX_RATE_CHARS:
        return None
    b = _field_bytes(codes, starts, lens, width)
    inside = np.arange(width) < lens[:, None]
    digit = inside & (b - ZERO[0] < 10)
    point = inside & (b == DOT[0])
    if (inside & ~(digit | point)).any() or (point.sum(axis=1) > 1).any() \
            or not digit.any(axis=1).all():
        return None
    return b.view(f"S{width}").ravel().astype(np.float64)  # numpy's parse is float()'s


def _given_counts(windows, starts, lens, given) -> np.ndarray | None:
    """Whole numbers in the fields where ``given`` (the others must be empty), ``NO_VALUE``
    elsewhere; ``None`` if a field fails."""
    if ((lens > 0) != given).any():
        return None
    value = np.full(len(lens), NO_VALUE, dtype=np.int64)
    if given.any():
        parsed = _number(windows, starts[given], lens[given], decimal=False)
        if parsed is None:
            return None
        value[given] = parsed[0]
    return value


def _given_rates(codes, starts, lens, given) -> np.ndarray | None:
    """``_rates`` of the fields where ``given`` (the others must be empty), NaN elsewhere;
    ``None`` if a field fails."""
    if ((lens > 0) != given).any():
        return None
    value = np.full(len(lens), np.nan)
    if given.any():
        parsed = _rates(codes, starts[given], lens[given])
        if parsed is None:
            return None
        value[given] = parsed
    return value


def _csv_analysis(windows, codes, field, outcome) -> AnalysisColumns | None:
    """The analysis columns of a CSV block (``field(name)``: the windows, starts and lengths of a
    column), checked as ``solver.batch.analysis.check_fields`` checks a row; ``None`` if any
    row fails or needs the row-by-row reader."""
    decided = outcome != UNKNOWN
    cleared, of = (_given_counts(*field(name), decided) for name in ("max_cleared",
                                                                      "max_cleared_of"))
    rnd, grd = (_given_rates(codes, *field(name)[1:], decided) for name in ("random_win_rate",
                                                                            "greedy_win_rate"))
    if cleared is None or of is None or rnd is None or grd is None:
        return None
    exact = _codes(*field("max_cleared_exact"), _WINNABLE)  # false 0, true 1, "" 2
    _, r_starts, r_lens = field("loss_reason")
    reason = _word_codes(codes, r_starts, r_lens)
    if exact is None or reason is None or ((exact == 2) == decided).any() \
            or ((reason != 0) & (outcome != LOST)).any():
        return None
    won, lost = outcome == WON, outcome == LOST
    if not np.isin(of[decided], CLEARED_OF).all() or (cleared > of).any() \
            or (rnd[decided] > 1).any() or (grd[decided] > 1).any() \
            or (won & ((cleared != of) | (exact != 1))).any() \
            or (lost & ((cleared == of) | (rnd != 0) | (grd != 0))).any():
        return None
    return AnalysisColumns(cleared.astype(np.int16), of.astype(np.int16),
                           np.where(decided, exact, NO_VALUE).astype(np.int8),
                           _loss_reasons()[2][reason], rnd, grd)


def parquet_block(batch, id_column: str) -> dict | None:
    """A Parquet batch of this schema's column types as a block, checked column by column with
    numpy; ``None`` when any check fails or a column has another type. It accepts only what
    ``_check_row`` accepts."""
    import pyarrow as pa
    import pyarrow.compute as pc

    names = batch.schema.names
    if batch.num_rows == 0:
        return None
    col = {name: batch.column(name) for name in names}
    t = {name: col[name].type for name in names}
    strings = (pa.types.is_string, pa.types.is_large_string)
    if not (pa.types.is_integer(t[id_column]) and pa.types.is_integer(t["states"])
            and pa.types.is_signed_integer(t["moves"]) and pa.types.is_floating(t["ms"])
            and pa.types.is_boolean(t["winnable"])
            and all(any(f(t[c]) for f in strings) for c in ("deal", "outcome") + (
                ("reason",) if "reason" in names else ()))):
        return None
    if any(col[c].null_count for c in (id_column, "deal", "states", "ms", "outcome")):
        return None
    ids = col[id_column].to_numpy().astype(np.int64)
    states = col["states"].to_numpy().astype(np.int64)
    ms = col["ms"].to_numpy().astype(np.float64)
    outcome = pc.index_in(col["outcome"], value_set=pa.array(OUTCOME_NAMES))
    if outcome.null_count:
        return None
    outcome = outcome.to_numpy().astype(np.int8)
    winnable = col["winnable"]
    decided = outcome != UNKNOWN
    w_given = winnable.is_valid().to_numpy(zero_copy_only=False)
    if (w_given != decided).any() or (
            winnable.fill_null(False).to_numpy(zero_copy_only=False)[decided]
            != (outcome[decided] == WON)).any():
        return None
    moves_given = col["moves"].is_valid().to_numpy(zero_copy_only=False)
    moves = col["moves"].fill_null(NO_MOVES).to_numpy().astype(np.int64)
    if (ids < 0).any() or (states < 0).any() or not ((ms >= 0) & (ms <= MAX_MS)).all() \
            or (moves[moves_given] < 0).any() \
            or (outcome[moves_given] != WON).any():
        return None
    reason = None
    if "reason" in names:
        reasons = [name for name in REASON_NAMES if name]
        found = pc.index_in(col["reason"], value_set=pa.array(reasons))
        given = col["reason"].is_valid().to_numpy(zero_copy_only=False)
        known = found.is_valid().to_numpy(zero_copy_only=False)
        if (given != ~decided).any() or (known != ~decided).any():
            return None
        reason = np.where(decided, 0, found.fill_null(-1).to_numpy() + 1).astype(np.int8)
    deals = col["deal"].to_pylist()
    if not all(deals) or any(map(str.isspace, deals)):  # a deal empty or blank
        return None
    analysis = None
    if ANALYSIS_COLUMNS[0] in names:
        analysis = _parquet_analysis(col, outcome)
        if analysis is None:
            return None
    return {"ids": ids, "deal": deals, "outcome": outcome, "moves": moves, "states": states,
            "ms": ms, "reason": reason, "analysis": analysis}


def _parquet_analysis(col: dict, outcome: np.ndarray) -> AnalysisColumns | None:
    """The analysis columns of a Parquet batch (``col``: its columns by name), checked as
    ``solver.batch.analysis.check_fields`` checks a row; ``None`` if any row fails or a column
    has another type."""
    import pyarrow as pa
    import pyarrow.compute as pc

    t = {name: col[name].type for name in ANALYSIS_COLUMNS}
    if not (pa.types.is_integer(t["max_cleared"]) and pa.types.is_integer(t["max_cleared_of"])
            and pa.types.is_boolean(t["max_cleared_exact"])
            and (pa.types.is_string(t["loss_reason"]) or pa.types.is_large_string(
                t["loss_reason"]))
            and pa.types.is_floating(t["random_win_rate"])
            and pa.types.is_floating(t["greedy_win_rate"])):
        return None
    decided = outcome != UNKNOWN
    valid = {name: col[name].is_valid().to_numpy(zero_copy_only=False)
             for name in ANALYSIS_COLUMNS}
    lost, won = outcome == LOST, outcome == WON
    if any((valid[name] != decided).any() for name in ANALYSIS_COLUMNS if name != "loss_reason") \
            or (valid["loss_reason"] & ~lost).any():
        return None
    cleared, of = (col[name].fill_null(NO_VALUE).to_numpy().astype(np.int64)
                   for name in ("max_cleared", "max_cleared_of"))
    exact = np.where(decided, col["max_cleared_exact"].fill_null(False).to_numpy(
        zero_copy_only=False), NO_VALUE).astype(np.int8)
    rnd, grd = (col[name].to_numpy(zero_copy_only=False).astype(np.float64)  # nulls: NaN
                for name in ("random_win_rate", "greedy_win_rate"))
    names = _loss_reasons()[2]
    found = pc.index_in(col["loss_reason"], value_set=pa.array(list(names)))
    if (found.is_valid().to_numpy(zero_copy_only=False) != valid["loss_reason"]).any() \
            or (pc.equal(col["loss_reason"], "").fill_null(False).to_numpy(
                zero_copy_only=False)).any():
        return None  # a reason that is not a kind, or an empty string instead of null
    reason = found.fill_null(0).to_numpy().astype(np.int64)
    if not np.isin(of[decided], CLEARED_OF).all() or (cleared[decided] < 0).any() \
            or (cleared > of).any() \
            or not ((rnd[decided] >= 0) & (rnd[decided] <= 1)).all() \
            or not ((grd[decided] >= 0) & (grd[decided] <= 1)).all() \
            or (won & ((cleared != of) | (exact != 1))).any() \
            or (lost & ((cleared == of) | (rnd != 0) | (grd != 0))).any():
        return None
    return AnalysisColumns(cleared.astype(np.int16), of.astype(np.int16), exact, names[reason],
                           np.where(decided, rnd, np.nan), np.where(decided, grd, np.nan))
