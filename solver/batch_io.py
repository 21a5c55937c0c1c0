"""Batch input and output: deal sources cut into fixed chunks, chunk files (CSV or Parquet)
written atomically, the final file assembled from them, and results files read back.

Results schema (one row per deal, in input order; the same columns in CSV and Parquet):

    seed | line   int     the deal's seed, or its line number in the deal file (1-based, counting
                          blank lines)
    deal          string  the deal text: 52 cards, pyramid apex first, then the stock top first
    winnable      bool    true / false; empty (null) when a limit stopped the search
    moves         int     minimum number of moves of a won deal (``--optimal`` only; else empty)
    states        int     positions the search expanded
    ms            float   wall time of the deal's search in milliseconds (CSV: 3 decimals)
    outcome       string  won / lost / unknown (unknown: --max-states or --timeout was hit)
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import shutil
import sys
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from solver.batch_summary import OUTCOME_NAMES
from solver.batch_work import NO_MOVES, ChunkResult
from solver.cards import format_card
from solver.layout import DECK_CARDS
from solver.rng import MAX_SEED

FORMATS = ("csv", "parquet")
COLUMNS = ("deal", "winnable", "moves", "states", "ms", "outcome")
"""The columns after the id column (``seed`` or ``line``)."""
PARQUET_SUFFIXES = (".parquet", ".pq")

_CARD_TEXT = np.array([[ord(ch) for ch in format_card(c)] for c in range(DECK_CARDS)],
                      dtype=np.uint8).view(np.uint16).ravel()
"""``_CARD_TEXT[c]``: the two characters of card ``c`` as one uint16 (every Pyramid card is 2
characters)."""
_DEAL_CHARS = 3 * DECK_CARDS - 1


# --------------------------------------------------------------------------- sources

@dataclass(frozen=True)
class SeedSource:
    """Seeds ``start`` .. ``stop - 1``."""

    start: int
    stop: int
    id_column = "seed"

    def describe(self) -> dict:
        return {"kind": "seeds", "start": self.start, "stop": self.stop}

    def total(self) -> int:
        return self.stop - self.start

    def chunks(self, size: int) -> Iterator[tuple[int, tuple[int, int], str]]:
        """``(index, (first, stop), digest)`` per chunk."""
        for k, first in enumerate(range(self.start, self.stop, size)):
            yield k, (first, min(first + size, self.stop)), ""


@dataclass(frozen=True)
class LineSource:
    """A deal file, one deal per line (``-`` = stdin); blank lines are skipped."""

    path: str
    id_column = "line"

    def describe(self) -> dict:
        return {"kind": "lines"}  # the content is checked chunk by chunk (digests), not the name

    def name(self) -> str:
        return "stdin" if self.path == "-" else self.path

    def total(self) -> int | None:
        """Non-blank lines of a regular file (one quick pass); ``None`` for stdin or a pipe."""
        if self.path == "-" or not os.path.isfile(self.path):
            return None
        n = 0
        with open(self.path, "rb") as f:
            for line in f:
                n += bool(line.strip())
        return n

    def _open(self):
        if self.path == "-":
            return sys.stdin, False
        try:
            return open(self.path, encoding="utf-8"), True
        except OSError as e:
            raise ValueError(f"cannot read the deal file {self.path}: {e.strerror}") from None

    def chunks(self, size: int) -> Iterator[tuple[int, tuple, str]]:
        """``(index, ((line number, text), ...), digest)`` per chunk, read lazily."""
        f, close = self._open()
        try:
            k = 0
            block: list = []
            for lineno, line in enumerate(f, start=1):
                text = line.strip()
                if not text:
                    continue
                block.append((lineno, text))
                if len(block) == size:
                    yield k, tuple(block), lines_digest(block)
                    k += 1
                    block = []
            if block:
                yield k, tuple(block), lines_digest(block)
            elif k == 0:
                raise ValueError(f"{self.name()} holds no deal (it is empty or only blank lines)")
        except UnicodeDecodeError:
            raise ValueError(f"{self.name()} is not a text file of deals") from None
        finally:
            if close:
                f.close()


def lines_digest(block) -> str:
    """A digest of a chunk's lines (with their numbers): a resumed run checks its input with it."""
    h = hashlib.blake2b(digest_size=16)
    for lineno, text in block:
        h.update(f"{lineno}\t{text}\n".encode())
    return h.hexdigest()


def parse_seed_range(text: str) -> SeedSource:
    """``"A:B"`` -> seeds A .. B-1 (``"N"`` alone: seed N). Raises ``ValueError``."""
    t = text.strip().replace("_", "")
    try:
        if ":" in t:
            a, b = t.split(":", 1)
            start, stop = int(a), int(b)
        else:
            start = int(t)
            stop = start + 1
    except ValueError:
        raise ValueError(f"seeds must be START:STOP (STOP excluded), e.g. 0:1000000, not {text!r}") \
            from None
    if not 0 <= start < stop <= MAX_SEED + 1:
        raise ValueError(f"seed range {text!r} must satisfy 0 <= START < STOP <= 2**63")
    return SeedSource(start, stop)


# --------------------------------------------------------------------------- output formats

def output_format(path: str, fmt: str | None) -> str:
    """``fmt`` if given, else Parquet for a .parquet/.pq name and CSV otherwise."""
    if fmt is None:
        return "parquet" if path.lower().endswith(PARQUET_SUFFIXES) else "csv"
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    return fmt


def require_pyarrow():
    """``pyarrow`` and ``pyarrow.parquet``, or a ``ValueError`` saying how to install them."""
    try:
        import pyarrow
        import pyarrow.parquet as pq
    except ImportError:
        raise ValueError("Parquet needs pyarrow, which is not installed "
                         "(pip install 'pyramid[parquet]')") from None
    return pyarrow, pq


def deal_texts(deals: np.ndarray) -> list[str]:
    """The deal text of each row of an ``(n, 52)`` array of card ids (vectorised)."""
    n = len(deals)
    buf = np.full((n, DECK_CARDS, 3), ord(" "), dtype=np.uint8)
    buf[:, :, :2] = _CARD_TEXT.take(deals.astype(np.intp)).view(np.uint8).reshape(n, DECK_CARDS, 2)
    flat = buf.reshape(n, 3 * DECK_CARDS)[:, :_DEAL_CHARS].tobytes().decode("ascii")
    return [flat[i * _DEAL_CHARS:(i + 1) * _DEAL_CHARS] for i in range(n)]


def csv_header(id_column: str) -> str:
    return ",".join((id_column,) + COLUMNS) + "\n"


_WINNABLE_TEXT = ("false", "true", "")


def csv_rows(r: ChunkResult) -> str:
    """The chunk's rows as CSV text without header."""
    texts = deal_texts(r.deals)
    out = io.StringIO()
    for i, deal, o, m, s, ns in zip(r.ids.tolist(), texts, r.outcome.tolist(), r.moves.tolist(),
                                    r.states.tolist(), r.ns.tolist()):
        out.write(f"{i},{deal},{_WINNABLE_TEXT[o]},{'' if m == NO_MOVES else m},{s},"
                  f"{ns / 1e6:.3f},{OUTCOME_NAMES[o]}\n")
    return out.getvalue()


def parquet_schema(id_column: str):
    pa, _ = require_pyarrow()
    return pa.schema([(id_column, pa.int64()), ("deal", pa.string()), ("winnable", pa.bool_()),
                      ("moves", pa.int16()), ("states", pa.int64()), ("ms", pa.float64()),
                      ("outcome", pa.string())])


def parquet_table(r: ChunkResult, id_column: str):
    pa, _ = require_pyarrow()
    unknown = r.outcome == 2
    return pa.table([
        pa.array(r.ids, type=pa.int64()),
        pa.array(deal_texts(r.deals), type=pa.string()),
        pa.array(r.outcome == 1, mask=unknown, type=pa.bool_()),
        pa.array(r.moves, mask=r.moves == NO_MOVES, type=pa.int16()),
        pa.array(r.states, type=pa.int64()),
        pa.array(r.ns / 1e6, type=pa.float64()),
        pa.array([OUTCOME_NAMES[o] for o in r.outcome.tolist()], type=pa.string()),
    ], schema=parquet_schema(id_column))


# --------------------------------------------------------------------------- atomic files

def write_atomic(path: str, write) -> None:
    """Write ``path`` through ``write(tmp_path)`` then ``os.replace``: the file is complete or
    absent, never half-written (a kill -9 leaves at most a ``.tmp-*`` file, ignored)."""
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text_atomic(path: str, text: str) -> None:
    def write(tmp):
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    write_atomic(path, write)


def write_part(path: str, r: ChunkResult, fmt: str, id_column: str) -> None:
    """One chunk's rows as a file of its own (CSV without header, or Parquet)."""
    if fmt == "csv":
        write_text_atomic(path, csv_rows(r))
    else:
        _, pq = require_pyarrow()
        table = parquet_table(r, id_column)
        write_atomic(path, lambda tmp: pq.write_table(table, tmp))


def assemble(out: str, parts: list[str], fmt: str, id_column: str) -> None:
    """Concatenate the chunk files in order into ``out`` (streaming: one part at a time)."""
    if fmt == "csv":
        def write(tmp):
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                f.write(csv_header(id_column))
                for p in parts:
                    with open(p, encoding="utf-8", newline="") as src:
                        shutil.copyfileobj(src, f, 1 << 20)
    else:
        _, pq = require_pyarrow()

        def write(tmp):
            with pq.ParquetWriter(tmp, parquet_schema(id_column)) as w:
                for p in parts:
                    w.write_table(pq.read_table(p))
    write_atomic(out, write)


# --------------------------------------------------------------------------- reading back

def read_results(path: str, fmt: str | None = None, block: int = 65536) -> tuple[str, Iterator]:
    """``(id_column, blocks)`` of a results file; each block is a dict of numpy columns ``ids``,
    ``outcome`` (codes), ``moves`` (-1 for none), ``states``, ``ms`` and the list ``deal``.
    Raises ``ValueError`` for a missing file or a file that is not a batch results table."""
    if not os.path.isfile(path):
        raise ValueError(f"no such file: {path}")
    fmt = output_format(path, fmt)
    if fmt == "parquet":
        _, pq = require_pyarrow()
        try:
            pf = pq.ParquetFile(path)
        except Exception as e:  # pyarrow raises its own error types for a bad file
            raise ValueError(f"{path} is not a Parquet file: {e}") from None
        id_column = _check_columns(path, pf.schema_arrow.names)
        return id_column, _parquet_blocks(pf, id_column, block)
    f = open(path, encoding="utf-8", newline="")
    reader = csv.reader(f)
    header = next(reader, None)
    if header is None:
        f.close()
        raise ValueError(f"{path} is empty")
    id_column = _check_columns(path, header)
    return id_column, _csv_blocks(f, reader, header, id_column, block, path)


def _check_columns(path: str, names) -> str:
    ids = [c for c in ("seed", "line") if c in names]
    missing = [c for c in COLUMNS if c not in names]
    if len(ids) != 1 or missing:
        raise ValueError(f"{path} is not a batch results file (expected the columns seed or line, "
                         f"{', '.join(COLUMNS)})")
    return ids[0]


_OUTCOME_CODE = {name: code for code, name in enumerate(OUTCOME_NAMES)}


def _block(ids, deals, outcome, moves, states, ms) -> dict:
    return {"ids": np.asarray(ids, dtype=np.int64), "deal": deals,
            "outcome": np.asarray(outcome, dtype=np.int8),
            "moves": np.asarray(moves, dtype=np.int64), "states": np.asarray(states, np.int64),
            "ms": np.asarray(ms, dtype=np.float64)}


def _csv_blocks(f, reader, header, id_column, block, path):
    col = {name: header.index(name) for name in (id_column,) + COLUMNS}
    try:
        rows = []
        for rownum, row in enumerate(reader, start=2):
            try:
                rows.append((int(row[col[id_column]]), row[col["deal"]],
                             _OUTCOME_CODE[row[col["outcome"]]],
                             int(row[col["moves"]]) if row[col["moves"]] else NO_MOVES,
                             int(row[col["states"]]), float(row[col["ms"]])))
            except (ValueError, KeyError, IndexError):
                raise ValueError(f"{path} row {rownum} is not a valid results row") from None
            if len(rows) == block:
                yield _block(*_columns(rows))
                rows = []
        if rows:
            yield _block(*_columns(rows))
    finally:
        f.close()


def _columns(rows):
    ids, deals, outcome, moves, states, ms = zip(*rows)
    return ids, list(deals), outcome, moves, states, ms


def _parquet_blocks(pf, id_column, block):
    for batch in pf.iter_batches(batch_size=block):
        d = batch.to_pydict()
        bad = [o for o in d["outcome"] if o not in _OUTCOME_CODE]
        if bad:
            raise ValueError(f"unknown outcome {bad[0]!r} in the results file")
        yield _block(d[id_column], d["deal"], [_OUTCOME_CODE[o] for o in d["outcome"]],
                     [NO_MOVES if m is None else m for m in d["moves"]], d["states"], d["ms"])
