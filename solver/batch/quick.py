"""Quick checks of a whole block of a results file at once (numpy), for ``pyramid stats``.

``solver.batch.results`` reads a results file a block of rows at a time and hands each block to
``csv_block`` or ``parquet_block`` here first. They check every row of the block with array
operations and return the block, or ``None`` when any row fails a check or the block holds
something they do not handle (a quoted field, a carriage return, text that is not ASCII, a
column of another type). They accept only rows that the row-by-row check (``RowCheck`` in
``solver.batch.columns``) accepts; on ``None`` the caller reads the rows one by one, which names
the first bad row (or accepts a row that was merely unusual). So a bad file gets exactly the
error it always got, and a good one is read several times faster.

A CSV block is parsed from its bytes without splitting it into strings: the field boundaries come
from the positions of the commas and newlines (``solver.batch.fields``), and each column is read
and checked as its kind says (``Kind.csv_values``, ``Kind.parquet_values``); the analysis
columns are read here.
"""

from __future__ import annotations

import functools

import numpy as np

from solver.batch.analysis import ANALYSIS_COLUMNS, CLEARED_OF, NO_VALUE, AnalysisColumns, \
    loss_reason_kinds
from solver.batch.columns import OUTCOME_KEY, absent_keys, present_columns
from solver.batch.fields import DOT, ZERO, CsvFields, given_numbers, lookup, word_table
from solver.batch.kinds import LOST, UNKNOWN, WINNABLE_TEXT, WON

NEWLINE, COMMA, QUOTE, CR, NUL = b"\n", b",", b'"', b"\r", b"\0"
MAX_RATE_CHARS = 32
"""Most characters of a rate read here (the rate of k wins in at most a million playouts)."""
EXACT_WORDS = word_table(WINNABLE_TEXT)
"""``max_cleared_exact``'s words: false 0, true 1, "" 2."""


def _block_of(columns, values, analysis) -> dict | None:
    """The block of the ``columns`` a file has, each read by ``values(column, outcome)`` (None
    if a row fails), the outcome column first, and of its analysis columns, ``analysis(outcome)``
    (None for a file without them); ``None`` if any fails."""
    key_column = next(c for c in columns if c.key == OUTCOME_KEY)
    outcome = values(key_column, None)
    if outcome is None:
        return None
    block = absent_keys(columns)
    for c in columns:
        v = outcome if c is key_column else values(c, outcome)
        if v is None:
            return None
        if c.key:
            block[c.key] = v
    block["analysis"] = None if analysis is None else analysis(outcome)
    return None if analysis is not None and block["analysis"] is None else block


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
    fields = CsvFields(chunk, codes, header, starts, np.column_stack((inner, ends)) - starts)
    return _block_of(present_columns(id_column, header),
                     lambda c, outcome: c.kind.csv_values(fields, c.name, outcome),
                     (lambda outcome: _csv_analysis(fields, outcome))
                     if ANALYSIS_COLUMNS[0] in header else None)


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
    unlike ``solver.batch.fields.gather``'s windows)."""
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
    return given_numbers(windows, starts, lens, given, NO_VALUE)


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


def _csv_analysis(fields: CsvFields, outcome) -> AnalysisColumns | None:
    """The analysis columns of a CSV block, checked as ``solver.batch.analysis.check_fields``
    checks a row; ``None`` if any row fails or needs the row-by-row reader."""
    decided = outcome != UNKNOWN
    windows, codes = fields.windows, fields.codes
    cleared, of = (_given_counts(windows, *fields.field(name), decided)
                   for name in ("max_cleared", "max_cleared_of"))
    rnd, grd = (_given_rates(codes, *fields.field(name), decided)
                for name in ("random_win_rate", "greedy_win_rate"))
    if cleared is None or of is None or rnd is None or grd is None:
        return None
    exact = lookup(windows, *fields.field("max_cleared_exact"), EXACT_WORDS)
    reason = _word_codes(codes, *fields.field("loss_reason"))
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
    ``solver.batch.columns.RowCheck`` accepts."""
    import pyarrow as pa

    names = batch.schema.names
    if batch.num_rows == 0:
        return None
    col = {name: batch.column(name) for name in names}
    columns = present_columns(id_column, names)
    if not all(c.kind.arrow_ok(pa, col[c.name].type) for c in columns):
        return None
    return _block_of(columns, lambda c, outcome: c.kind.parquet_values(col[c.name], outcome),
                     (lambda outcome: _parquet_analysis(col, outcome))
                     if ANALYSIS_COLUMNS[0] in names else None)


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
