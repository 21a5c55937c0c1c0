"""Reading a results file of ``pyramid batch`` back (CSV or Parquet), every row checked.

The columns are ``solver.batch.columns.COLUMNS``; each is read and checked as its kind says
(``solver.batch.kinds``). Every error raised for a bad file is a ``ValueError`` whose
message names the file and the line (CSV) or row (Parquet) and never echoes more than
``solver.core.text.ECHO_CHARS`` characters of the bad text.
"""

from __future__ import annotations

import csv
import io
import os
from itertools import repeat
from typing import Iterator

import numpy as np

from solver.batch.analysis import ANALYSIS_COLUMNS, NO_VALUE, BadRow, check_fields, columns_of
from solver.batch.columns import ID_COLUMNS, Column, RowCheck, block_of, present_columns, \
    results_columns, table_challenge
from solver.batch.io import PARQUET_MAGIC, content_format, parquet_schema, require_pyarrow, \
    results_format
from solver.batch.quick import NEWLINE, csv_block, parquet_block
from solver.core.text import clip

READ_BYTES = 1 << 22
"""Bytes of a results CSV read at a time."""


def read_results(path: str, fmt: str | None = None, block: int = 65536) -> tuple[str, Iterator]:
    """``(id_column, blocks)`` of a results file; each block is a dict of each column's values
    under its key (``solver.batch.columns.COLUMNS``): numpy columns ``ids``, ``outcome``
    (codes), ``moves`` (-1 for none), ``states``, ``ms``, ``reason`` (codes, or None for a file
    without that column), the list ``deal``; and ``analysis`` (the analysis columns,
    ``solver.batch.analysis.AnalysisColumns``, or None for a file without them). A challenge's
    file (``CHALLENGE_TABLES``) gives its value (under ``max_score`` or ``max_removed``, -1 for
    none) and ``clears`` (codes) too (``solver.batch.challenge.block_challenge``).

    Every row is checked: a field that is not of its column's type, fields that contradict each
    other (``winnable`` against ``outcome``, moves of a deal not won, the analysis columns against
    the outcome), a missing or extra field raise a ``ValueError`` naming the file and the line
    (CSV) or row (Parquet); so do rows of one file whose ``max_cleared_of`` differ (one run has
    one goal). So does a missing file, a directory, or a file that is not a batch results table.

    The file is opened once and read once from its start, so that one that can be read only once
    (a FIFO, a shell's ``<(...)`` pipe) is read as a regular file is: the bytes read to tell its
    format by its content are handed back to the reader, and a Parquet file that cannot seek is
    read into memory first (Parquet's index is at its end).
    """
    if not os.path.lexists(path):
        raise ValueError(f"{path}: no such file")
    if os.path.isdir(path):
        raise ValueError(f"{path} is a directory, not a results file")
    try:
        f = open(path, "rb")  # noqa: SIM115 (closed by the blocks' generator, or below)
        try:
            fmt = results_format(path, fmt)
            head = b""
            if fmt is None:
                head = f.read(len(PARQUET_MAGIC))
                fmt = content_format(head)
            if fmt == "parquet":
                id_column, blocks = _open_parquet(path, f, head, block)
                return id_column, _one_goal(blocks, path, "row", 1)
            stream = io.BufferedReader(_Prefixed(head, f)) if head else f
            id_column, blocks = _open_csv(path, stream, block)
            return id_column, _one_goal(blocks, path, "line", 2)
        except BaseException:
            f.close()
            raise
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror or e}") from None


def _one_goal(blocks, path: str, unit: str, first: int):
    """``blocks``, checking that every decided row of an analysed file counts ``max_cleared`` of
    the same number (28 or 52) as the first; ``unit`` and ``first``: how rows are named (the
    first row is line 2 of a CSV, row 1 of a Parquet file)."""
    seen = None
    rows_before = 0
    for b in blocks:
        a = b["analysis"]
        if a is not None:
            of = a.cleared_of.astype(np.int64)
            decided = np.flatnonzero(of != NO_VALUE)
            if seen is None and len(decided):
                seen = (int(of[decided[0]]), rows_before + int(decided[0]) + first)
            odd = decided[of[decided] != (seen[0] if seen else 0)]
            if len(odd):
                k = int(odd[0])
                raise ValueError(f"{path} {unit} {rows_before + k + first}: max_cleared_of "
                                 f"{of[k]} but {seen[0]} in {unit} {seen[1]} (one file is scored "
                                 f"under one goal)")
        rows_before += len(b["ids"])
        yield b


def _open_parquet(path: str, f, head: bytes, block: int):
    """A Parquet results file ``path``, open as ``f`` with ``head`` read from it already: read by
    its path when it can seek, else (a pipe) all of it into memory; ``f`` is closed."""
    pa, pq = require_pyarrow()
    with f:
        source = path if f.seekable() else pa.BufferReader(head + f.read())
    try:
        pf = pq.ParquetFile(source)
    except (pa.ArrowException, OSError) as e:  # pyarrow's errors for a file that is not Parquet
        raise ValueError(f"{path} is not a Parquet file ({clip(e, quote=False)})") from None
    id_column = _check_columns(path, pf.schema_arrow.names)
    _check_types(path, pf.schema_arrow, id_column)
    return id_column, _parquet_blocks(pf, id_column, block, path, pa.ArrowException)


def _open_csv(path: str, f, block: int):
    """A results CSV ``path`` read from the binary stream ``f`` (closed by the blocks'
    generator, or on a refusal)."""
    try:
        first = f.readline()
        if not first:
            raise ValueError(f"{path} is empty (not a batch results file)")
        try:
            header = next(csv.reader([first.decode("utf-8")]), [])
        except (UnicodeDecodeError, csv.Error):
            raise ValueError(f"{path} is not a batch results file (not CSV text)") from None
        id_column = _check_columns(path, header)
    except BaseException:
        f.close()
        raise
    return id_column, _csv_blocks(f, CsvLayout(header, id_column), block, path)


def _check_columns(path: str, names) -> str:
    """The id column of a results table with these column ``names``: those of ``COLUMNS`` (the
    analysis columns with them, all or none) or of a challenge's table (``table_challenge``)."""
    ids = [c for c in ID_COLUMNS if c in names]
    challenge = table_challenge(names)
    after = results_columns(challenge=challenge)[1:]
    missing = [c.name for c in after if c.name not in names and not c.optional]
    known = {c.name for c in after} | set(ids) | (set() if challenge else set(ANALYSIS_COLUMNS))
    if len(ids) != 1 or missing or len(set(names)) != len(names) or not set(names) <= known:
        raise ValueError(f"{path} is not a batch results file (expected the columns "
                         f"{' or '.join(ID_COLUMNS)}, {', '.join(c.name for c in after)})")
    analysis = [c for c in ANALYSIS_COLUMNS if c in names]
    if analysis and len(analysis) != len(ANALYSIS_COLUMNS):
        raise ValueError(f"{path} has some analysis columns but not all: missing "
                         f"{', '.join(c for c in ANALYSIS_COLUMNS if c not in names)}")
    return ids[0]


def _check_types(path: str, schema, id_column: str) -> None:
    """Refuse a Parquet column whose Arrow type is not of its kind in the results schema
    (``solver.batch.io.parquet_schema``): a whole number of any width, a bool, a float, a string
    (or large string); a column of nulls only (type null) is left to the row checks."""
    pa, _ = require_pyarrow()
    expected = parquet_schema(id_column, analysed(schema.names), table_challenge(schema.names))
    kinds = (pa.types.is_integer, pa.types.is_boolean, pa.types.is_floating,
             lambda t: pa.types.is_string(t) or pa.types.is_large_string(t))
    for field in schema:
        want = expected.field(field.name).type
        kind = next(k for k in kinds if k(want))
        if not (kind(field.type) or pa.types.is_null(field.type)):
            raise ValueError(f"{path}: column {field.name} is {clip(field.type, quote=False)}; "
                             f"it must be {want}")


def analysed(names) -> bool:
    """Whether a results table with these column names has the analysis columns."""
    return ANALYSIS_COLUMNS[0] in names


def _check_full_row(check: RowCheck, fields, analysis=None) -> tuple:
    """``check(fields)``, plus ``check_fields`` of the row's ``analysis`` fields (a file with the
    analysis columns) as the row's last item."""
    row = check(fields)
    if analysis is None:
        return row
    return row + (check_fields(check.outcome_name(row), *analysis),)


def _block(columns: tuple[Column, ...], rows, with_analysis: bool) -> dict:
    """The block of rows that ``_check_full_row`` returned."""
    block = block_of(columns, rows)  # (it reads a row's first len(columns) items)
    block["analysis"] = columns_of([r[-1] for r in rows]) if with_analysis else None
    return block


class CsvLayout:
    """Where each column of a results CSV is: ``columns`` are those of ``COLUMNS`` that the file
    has, ``order`` their fields' indices in a line."""

    def __init__(self, header: list[str], id_column: str) -> None:
        self.header = header
        self.id_column = id_column
        self.columns = present_columns(id_column, header)
        self.order = [header.index(c.name) for c in self.columns]
        self.nullable = [k for k, c in enumerate(self.columns) if c.kind.nullable]
        """The row's fields that are ``None`` when empty."""
        self.converters = [(k, c.name, c.kind.from_csv) for k, c in enumerate(self.columns)
                           if c.kind.from_csv is not None]
        """``(index in the row's fields, name, Kind.from_csv)`` of the fields to convert."""
        self.analysis = ([header.index(name) for name in ANALYSIS_COLUMNS]
                         if analysed(header) else None)


def _csv_blocks(f, layout: CsvLayout, block: int, path: str):
    """The blocks of a results CSV after its header, each of ``block`` rows (the last one
    fewer). Each block is checked at once with numpy (``solver.batch.quick.csv_block``); from
    the first block that check does not pass, the rest is read row by row
    (``_csv_rows_checked``), which names the first bad row and its line, or accepts what the
    quick check was too strict for."""
    lines_read = 1  # the header
    buf = b""
    ends = np.empty(0, dtype=np.int64)  # where buf's lines end (the index of each newline)
    eof = False
    try:
        while True:
            while not eof and len(ends) < block:
                more = f.read(READ_BYTES)
                eof = not more
                if eof and buf and not buf.endswith(NEWLINE):
                    more = NEWLINE  # the last line lacks its newline
                ends = np.concatenate((ends, _newlines(more) + len(buf)))
                buf += more
            if not buf:
                return
            cut = int(ends[block - 1]) + 1 if len(ends) >= block else len(buf)
            b = csv_block(buf[:cut], layout.header, layout.id_column, ends[:block])
            if b is None:
                text = io.TextIOWrapper(io.BufferedReader(_Prefixed(buf, f)), encoding="utf-8",
                                        newline="")
                yield from _csv_rows_checked(text, layout, block, path, lines_read)
                return
            buf = buf[cut:]
            ends = ends[block:] - cut
            lines_read += len(b["ids"])
            yield b
    finally:
        f.close()


def _newlines(data: bytes) -> np.ndarray:
    """The index of every newline in ``data``."""
    return np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == NEWLINE[0])


class _Prefixed(io.RawIOBase):
    """A raw stream of ``prefix`` (bytes already read) then the rest of ``f``."""

    def __init__(self, prefix: bytes, f) -> None:
        super().__init__()
        self.prefix = memoryview(prefix)
        self.f = f

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self.f.close()
        super().close()

    def readinto(self, b) -> int:
        if self.prefix:
            n = min(len(b), len(self.prefix))
            b[:n] = self.prefix[:n]
            self.prefix = self.prefix[n:]
            return n
        data = self.f.read(len(b))
        b[:len(data)] = data
        return len(data)


def _csv_rows_checked(text, layout: CsvLayout, block: int, path: str, lines_before: int):
    """The blocks of the rest of a results CSV, read with the csv module and checked row by row;
    ``lines_before``: the lines of the file before ``text`` (for the line numbers)."""
    reader = csv.reader(text)
    header = layout.header
    check = RowCheck(layout.columns)
    rows = []
    while True:
        try:
            row = next(reader, None)
        except UnicodeDecodeError:
            raise ValueError(f"{path} line {lines_before + reader.line_num + 1} is not UTF-8 "
                             f"text") from None
        except csv.Error as e:
            raise ValueError(f"{path} line {lines_before + reader.line_num}: "
                             f"{clip(e, quote=False)}") from None
        if row is None:
            break
        try:
            if len(row) != len(header):
                raise BadRow(f"{len(row)} fields, the header has {len(header)}")
            fields = [row[k] for k in layout.order]
            for k in layout.nullable:
                fields[k] = fields[k] or None
            for k, name, convert in layout.converters:
                fields[k] = convert(name, fields[k])
            extra = None if layout.analysis is None else [row[k] or None for k in layout.analysis]
            rows.append(_check_full_row(check, fields, extra))
        except BadRow as e:
            raise ValueError(f"{path} line {lines_before + reader.line_num}: {e}") from None
        if len(rows) == block:
            yield _block(layout.columns, rows, layout.analysis is not None)
            rows = []
    if rows:
        yield _block(layout.columns, rows, layout.analysis is not None)


def _parquet_blocks(pf, id_column, block, path, arrow_error):
    """The blocks of a results Parquet file, one per batch of ``block`` rows: each checked at
    once (``solver.batch.quick.parquet_block``), or row by row where that check does not pass
    (which names the first bad row, or accepts what the quick check was too strict for)."""
    row = 0
    try:
        for batch in pf.iter_batches(batch_size=block):
            b = parquet_block(batch, id_column)
            if b is None:
                b = _parquet_rows_checked(batch, id_column, path, row)
            row += batch.num_rows
            if b is not None:
                yield b
    except (arrow_error, OSError) as e:
        raise ValueError(f"{path} is a damaged Parquet file ({clip(e, quote=False)})") from None


def _parquet_rows_checked(batch, id_column: str, path: str, rows_before: int) -> dict | None:
    """The rows of a Parquet batch checked one by one; ``rows_before``: the file's rows before
    it (for the row numbers). ``None`` for an empty batch."""
    d = batch.to_pydict()
    with_analysis = analysed(d)
    columns = present_columns(id_column, d)
    check = RowCheck(columns)
    extra = zip(*(d[name] for name in ANALYSIS_COLUMNS)) if with_analysis else repeat(None)
    rows = []
    for k, (fields, more) in enumerate(zip(zip(*(d[c.name] for c in columns)), extra), start=1):
        try:
            rows.append(_check_full_row(check, fields, more))
        except BadRow as e:
            raise ValueError(f"{path} row {rows_before + k}: {e}") from None
    return _block(columns, rows, with_analysis) if rows else None
