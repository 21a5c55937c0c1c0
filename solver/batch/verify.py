"""What a run's files must hold, and the checks that they do, before anything is trusted.

Three facts are checked, each against a record made independently of the file it checks:

- **A finished part is the file that was written.** Its record (``part-NNNNNN.json``, written
  after the part) holds the part's row count and the SHA-256 of its bytes; ``part_problem``
  compares them. A part cut short, extended, with rows swapped or changed in any other way, or
  deleted, fails, and its chunk is scored again instead of being joined.
- **A part holds the rows the input planned.** Before a part is written, its rows' ids (the seed,
  or the deal file's line number) are compared with the ids of the chunk's input (``Planned``):
  a chunk can never be written with another chunk's rows, or with rows missing.
- **The joined output is the plan, in order.** After the join, before the parts are removed, the
  output is read back (``csv_output_problem``, ``parquet_output_problem``): its header, and the
  id of every row, chunk by chunk, against the digests of the planned ids. Every seed or line
  appears exactly once, in input order, or the output is not written.

Each check returns a short text saying what is wrong (``None`` when all is well), for the one line
a user is shown.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from solver.batch.csv_kernel import NEWLINE, first_fields

IDS_DIGEST_BYTES = 16
"""Size of the digest of a chunk's planned ids (blake2b)."""
READ_BLOCK = 16 << 20
"""Bytes of the output read back at a time."""


@dataclass(frozen=True)
class Planned:
    """What chunk ``index`` of the input must give: ``rows`` rows whose ids, in order, have the
    digest ``ids`` (``ids_digest``)."""

    index: int
    rows: int
    ids: str


def ids_digest(ids) -> str:
    """The digest of a sequence of row ids (seeds or line numbers), as int64, in order."""
    data = np.ascontiguousarray(ids, dtype="<i8").tobytes()
    return hashlib.blake2b(data, digest_size=IDS_DIGEST_BYTES).hexdigest()


def planned_chunk(index: int, ids) -> Planned:
    """The ``Planned`` of chunk ``index`` whose input ids are ``ids``."""
    return Planned(index, len(ids), ids_digest(ids))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def part_rows(data: bytes, fmt: str) -> int:
    """The rows of a part file's bytes (a Parquet file's footer says; ``-1`` when there is no
    readable footer)."""
    if fmt == "csv":
        return data.count(b"\n")
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(pa.BufferReader(data)).metadata.num_rows
    except (pa.ArrowException, OSError, ValueError):
        return -1


def part_problem(data: bytes | None, rec: dict, fmt: str) -> str | None:
    """What is wrong with a part file's bytes ``data`` (``None``: the file is missing) against
    its record ``rec``; ``None`` when it is the file that was written. (A record whose row count
    disagrees with its own part's is caught against the input instead, as every record is.)"""
    if data is None:
        return "is missing"
    if sha256(data) == rec["sha256"]:
        return None
    rows = part_rows(data, fmt)
    if fmt == "csv" and rows != rec["rows"]:
        return f"holds {rows} rows where {rec['rows']} were written"
    return "is not the file that was written (its SHA-256 differs from its record's)"


class IdsCheck:
    """Fed the ids of an output's rows in order (``feed``), block by block; ``problem()`` at the
    end says whether they were exactly the planned chunks' ids, in order."""

    def __init__(self, plan: list[Planned]) -> None:
        self.plan = plan
        self.chunk = 0
        self.seen = 0
        self.hash = hashlib.blake2b(digest_size=IDS_DIGEST_BYTES)
        self.wrong: str | None = None

    def feed(self, ids: np.ndarray) -> None:
        ids = np.ascontiguousarray(ids, dtype="<i8")
        while len(ids) and self.wrong is None:
            if self.chunk == len(self.plan):
                self.wrong = f"it has {len(ids)} rows more than the input's deals"
                return
            want = self.plan[self.chunk]
            take = min(len(ids), want.rows - self.seen)
            self.hash.update(ids[:take].tobytes())
            self.seen += take
            ids = ids[take:]
            if self.seen == want.rows:
                self.close_chunk(want)

    def close_chunk(self, want: Planned) -> None:
        if self.hash.hexdigest() != want.ids:
            self.wrong = f"the rows of chunk {want.index} are not its deals, in order"
        self.chunk += 1
        self.seen = 0
        self.hash = hashlib.blake2b(digest_size=IDS_DIGEST_BYTES)

    def problem(self) -> str | None:
        if self.wrong is None and self.chunk < len(self.plan):
            self.wrong = f"it ends in chunk {self.plan[self.chunk].index}, before the last deal"
        return self.wrong


def csv_row_ids(f, first_line: int) -> Iterator[np.ndarray]:
    """The id of every row of the open binary CSV file ``f`` (read from where it stands), block
    by block. Raises ``ValueError`` naming the line (counting from ``first_line``) whose first
    field is not an id, or an unterminated last line."""
    carry = b""
    line = first_line
    while block := f.read(READ_BLOCK):
        buf = np.frombuffer(carry + block, dtype=np.uint8)
        stops = np.flatnonzero(buf == NEWLINE)
        starts = np.zeros_like(stops)
        starts[1:] = stops[:-1] + 1
        ids = np.empty(len(stops), dtype=np.int64)
        bad = first_fields(buf, starts, stops, ids)
        if bad >= 0:
            raise ValueError(f"line {line + bad} does not start with an id")
        yield ids
        line += len(stops)
        carry = buf[stops[-1] + 1:].tobytes() if len(stops) else buf.tobytes()
    if carry:
        raise ValueError(f"line {line} has no newline at its end")


def csv_output_problem(path: str, header: str, plan: list[Planned]) -> str | None:
    """What is wrong with the joined CSV file ``path`` against its ``header`` and the ``plan``
    (every chunk's rows, in order); ``None`` when it is right."""
    check = IdsCheck(plan)
    with open(path, "rb") as f:
        if f.readline() != header.encode("ascii"):
            return "its header is not the results header"
        try:
            for ids in csv_row_ids(f, 2):
                check.feed(ids)
        except ValueError as e:
            return str(e)
    return check.problem()


def parquet_output_problem(path: str, schema, id_column: str,
                           plan: list[Planned]) -> str | None:
    """What is wrong with the joined Parquet file ``path`` against its ``schema`` and the
    ``plan``; ``None`` when it is right."""
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    if not pf.schema_arrow.equals(schema):
        return "its columns are not the results columns"
    check = IdsCheck(plan)
    for g in range(pf.num_row_groups):
        column = pf.read_row_group(g, columns=[id_column]).column(0)
        if column.null_count:
            return f"a row of row group {g} has no {id_column}"
        check.feed(column.to_numpy())
    return check.problem()
