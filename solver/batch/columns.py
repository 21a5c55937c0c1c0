"""The columns of ``pyramid batch``'s results, defined once: ``COLUMNS``.

Results schema (one row per deal, in input order; the same columns in CSV and Parquet):

    seed | line   int     the deal's seed, or its line number in the deal file (1-based, counting
                          blank lines)
    deal          string  the deal text: 52 cards, pyramid apex first, then the stock top first
    winnable      bool    true / false; empty (null) when a limit stopped the search
    moves         int     minimum number of moves of a won deal (``--optimal`` only; else empty)
    states        int     positions the search expanded
    ms            float   wall time of the deal's search in milliseconds (CSV: 6 decimals, the
                          measured nanoseconds exactly)
    outcome       string  won / lost / unknown (unknown: --max-states or --timeout was hit, or the
                          search ran out of memory)
    reason        string  for an unknown deal, the limit that stopped it: states, timeout or
                          memory; empty (null) otherwise. Files written before this column
                          existed are read without it.

With ``--challenge`` the results are another table: ``CHALLENGE_TABLES`` (the id, the deal, the
challenge's value, ``moves``, ``clears_pyramid``, ``states``, ``ms``, ``outcome`` and ``reason``;
described in ``solver.batch.challenge``), built here from the same kinds, so that every writer
and reader below serves it as it serves ``COLUMNS``; a file's table is told by its columns
(``table_challenge``).

With ``--analyse`` six more columns follow: ``solver.batch.analysis.ANALYSIS_COLUMNS``
(``max_cleared``, ``max_cleared_of``, ``max_cleared_exact``, ``loss_reason``,
``random_win_rate``, ``greedy_win_rate``), described there; they are written and checked together
by that module.

Everything else derives from the table: the CSV header and rows (both writers,
``solver.batch.io``), the Arrow schema and table, the columns a results file must have, and the
readers (``solver.batch.results`` row by row, ``solver.batch.quick`` a block at a time). Each
column's ``Kind`` (``solver.batch.kinds``) says how it is written and read; a column is kept in
the blocks the readers yield under its ``key``, which the summary reads
(``solver.batch.run.summarise_file``). A new column is one entry here (and the ``ChunkResult``
field it is written from); a new kind of value is one ``Kind``.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, replace
from itertools import repeat
from typing import NamedTuple

import numpy as np

from solver.batch.analysis import BadRow
from solver.batch.challenge import CHALLENGE_OUTCOMES, CHALLENGES, MOST, VALUE_COLUMNS
from solver.batch.csv_kernel import name_table
from solver.batch.challenge_kinds import DecidedCount, DecidedFlag
from solver.batch.kinds import Count, Deal, Kind, Millis, Names, WonCount, Winnable
from solver.batch.summary import OUTCOME_NAMES, REASON_NAMES


@dataclass(frozen=True, eq=False)
class Column:
    """One column of the results: its ``name`` (the header), its ``kind`` of value, the
    ``ChunkResult`` field it is written from (``source``), the key of the blocks that the
    readers yield it under (``key``; None: checked, not kept), and whether a results file may
    lack it (``optional``: written before it existed; a block then holds None). Columns are
    compared (and hashed: ``kernel_columns`` is cached per table) by identity."""

    name: str
    kind: Kind
    source: str
    key: str | None = None
    optional: bool = False


ID_COLUMNS = ("seed", "line")
"""The id column's name: the seed (``--seeds``) or the line number (``--deal-file``)."""
OUTCOME_KEY = "outcome"
"""The key of the column that the columns of ``Kind.needs_outcome`` are checked against."""
COLUMNS = (
    Column(ID_COLUMNS[0], Count(), "ids", "ids"),
    Column("deal", Deal(), "deals", "deal"),
    Column("winnable", Winnable(), "outcome"),
    Column("moves", WonCount(), "moves", "moves"),
    Column("states", Count(), "states", "states"),
    Column("ms", Millis(), "ns", "ms"),
    Column("outcome", Names(OUTCOME_NAMES), "outcome", OUTCOME_KEY),
    Column("reason", Names(REASON_NAMES, unknown_only=True), "reason", "reason", optional=True),
)
"""The results columns in file order; the first is the id column, named per run
(``results_columns``)."""




def challenge_table(kind: str) -> tuple[Column, ...]:
    """The results columns of the challenge ``kind`` (``solver.batch.challenge``): the id, the
    deal, ``states`` and ``ms`` of ``COLUMNS``, the challenge's own columns, and the outcome and
    reason under the challenge's outcome names."""
    common = {c.name: c for c in COLUMNS}
    value = VALUE_COLUMNS[kind]
    return (common["seed"], common["deal"],
            Column(value, DecidedCount(MOST[kind]), "challenge.value", value),
            Column("moves", DecidedCount(), "moves", "moves"),
            Column("clears_pyramid", DecidedFlag(), "challenge.clears", "clears"),
            common["states"], common["ms"],
            Column("outcome", Names(CHALLENGE_OUTCOMES), "outcome", OUTCOME_KEY),
            Column("reason", Names(REASON_NAMES, unknown_only=True, outcomes=CHALLENGE_OUTCOMES),
                   "reason", "reason"))


CHALLENGE_TABLES = {kind: challenge_table(kind) for kind in CHALLENGES}
"""The results columns of ``--challenge score`` and ``--challenge cards``, in file order (a
``Column.source`` with a dot is read through ``ChunkResult.challenge``)."""


def results_columns(id_column: str = ID_COLUMNS[0],
                    challenge: str | None = None) -> tuple[Column, ...]:
    """``COLUMNS`` (or the table of the ``challenge``) with the id column named ``id_column``."""
    table = COLUMNS if challenge is None else CHALLENGE_TABLES[challenge]
    if id_column == table[0].name:
        return table
    return (replace(table[0], name=id_column),) + table[1:]


def table_challenge(names) -> str | None:
    """The challenge whose table a file with these column ``names`` is written in (told by its
    value column); None for ``COLUMNS``."""
    return next((kind for kind, name in VALUE_COLUMNS.items() if name in names), None)


def present_columns(id_column: str, names) -> tuple[Column, ...]:
    """The columns that a file with these column ``names`` has, in the order of its table."""
    return tuple(c for c in results_columns(id_column, table_challenge(names)) if c.name in names)


def absent_keys(columns: tuple[Column, ...]) -> dict:
    """A block's entries (None) for the optional columns that are not among ``columns``."""
    return {c.key: None for c in results_columns() if c.key and c.optional
            and c.key not in {k.key for k in columns}}


class RowCheck:
    """The check of a row of a file that has these ``columns``, set up once per file: called
    with a row's fields (one per column, as ``Kind.check`` takes them) it checks them in column
    order, the outcome just before the first column checked against it, and returns each
    column's value as a block holds it. Raises ``BadRow``."""

    def __init__(self, columns: tuple[Column, ...]) -> None:
        self.at = next(k for k, c in enumerate(columns) if c.key == OUTCOME_KEY)
        first = next(k for k, c in enumerate(columns) if c.kind.needs_outcome or k == self.at)
        self.outcome = columns[self.at]
        self.names = [c.name for c in columns]
        self.checks = [c.kind.check for c in columns]
        self.checks[self.at] = keep_outcome  # checked already
        self.before = first
        """How many columns are checked before the outcome."""

    def __call__(self, fields) -> tuple:
        try:
            outcome = self.outcome.kind.check(self.outcome.name, fields[self.at], None)
        except BadRow:
            for check, name, value in zip(self.checks[:self.before], self.names, fields):
                check(name, value, None)  # their error comes first
            raise
        # (map with operator.call: 10% faster than a comprehension over the columns)
        return tuple(map(operator.call, self.checks, self.names, fields, repeat(outcome)))

    def outcome_name(self, row: tuple) -> str:
        """The outcome of a row that it returned."""
        return OUTCOME_NAMES[row[self.at]]


def keep_outcome(name: str, value, outcome: int) -> int:
    """The outcome column's check once the outcome is checked: its code."""
    return outcome


def block_of(columns: tuple[Column, ...], rows: list[tuple]) -> dict:
    """The block of rows that a ``RowCheck`` returned (a row may have more items after them):
    each kept column as numpy (or a list), None for an optional column the file lacks."""
    block = absent_keys(columns)
    for c, values in zip(columns, zip(*rows)):
        if c.key:
            block[c.key] = list(values) if c.kind.dtype is None else np.asarray(values,
                                                                                c.kind.dtype)
    return block


class KernelColumns(NamedTuple):
    """The column table as ``csv_kernel.fill_rows`` reads it: per column its format, its empty
    value and its ``NameTable`` (``text[c]``, ``length[c]``, padded to the widest); and the most
    bytes of one row."""

    formats: np.ndarray
    empty: np.ndarray
    text: np.ndarray
    length: np.ndarray
    row_bytes: int


@functools.lru_cache(maxsize=8)
def kernel_columns(columns: tuple[Column, ...]) -> KernelColumns:
    """``KernelColumns`` of a table of columns (``results_columns()``), built once per table."""
    tables = [name_table(c.kind.names) for c in columns]
    words = max(len(t.length) for t in tables)
    width = max(t.text.shape[1] for t in tables)
    text = np.zeros((len(columns), words, width), dtype=np.uint8)
    length = np.zeros((len(columns), words), dtype=np.int64)
    for k, t in enumerate(tables):
        text[k, :t.text.shape[0], :t.text.shape[1]] = t.text
        length[k, :len(t.length)] = t.length
    return KernelColumns(np.array([c.kind.fmt for c in columns], dtype=np.int64),
                         np.array([c.kind.empty for c in columns], dtype=np.int64), text, length,
                         sum(c.kind.width() + 1 for c in columns))

