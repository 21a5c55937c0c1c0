"""Batch input and output: deal sources cut into fixed chunks, chunk files (CSV or Parquet)
written atomically, the final file assembled from them, and results files read back.

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

Every error raised for a bad input is a ``ValueError`` whose message names the file and line (or
the option) and never echoes more than ``ECHO_CHARS`` characters of the bad text.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import math
import os
import shutil
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

import numpy as np

from solver.batch.summary import NO_MOVES, NS_PER_MS, OUTCOME_NAMES, REASON_NAMES
from solver.core.cards import format_card
from solver.pyramid.layout import DECK_CARDS
from solver.core.rng import MAX_SEED

if TYPE_CHECKING:
    from solver.batch.work import ChunkResult

FORMATS = ("csv", "parquet")
COLUMNS = ("deal", "winnable", "moves", "states", "ms", "outcome", "reason")
"""The columns after the id column (``seed`` or ``line``)."""
OPTIONAL_COLUMNS = ("reason",)
"""Columns a results file may lack (it was written before they existed)."""
SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
"""The output file suffixes and the format each one means."""
PARQUET_MAGIC = b"PAR1"
"""The first four bytes of every Parquet file."""
ECHO_CHARS = 80
"""At most this many characters of a bad token or line are echoed in an error message."""
MAX_DEAL_LINE_CHARS = 4096
"""A deal line longer than this is refused before parsing (a deal is 52 short card tokens)."""
UTF8_BOM = "\ufeff"

_CARD_TEXT = np.array([[ord(ch) for ch in format_card(c)] for c in range(DECK_CARDS)],
                      dtype=np.uint8).view(np.uint16).ravel()
"""``_CARD_TEXT[c]``: the two characters of card ``c`` as one uint16 (every Pyramid card is 2
characters)."""
_DEAL_CHARS = 3 * DECK_CARDS - 1


def clip(text, limit: int = ECHO_CHARS, quote: bool = True) -> str:
    """``text`` (quoted with ``repr`` unless ``quote`` is false) cut to about ``limit``
    characters (ending "…"), for error messages: a bad token may be megabytes long."""
    text = str(text) if quote else " ".join(str(text).split())  # one line, whatever it held
    show = repr if quote else str
    if len(text) > limit:
        return show(text[:limit]) + f"… ({len(text)} characters)"
    return show(text)


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
    """A deal file, one deal per line (``-`` = stdin); blank lines are skipped.

    The file may be anything that can be read once from start to end: a regular file, a FIFO, a
    pipe such as a shell's ``<(...)`` (``/dev/fd/N``), a character device (``/dev/null``). Only a
    regular file is counted beforehand (for the progress bar's total); the others are read once.
    The text is UTF-8 (a byte-order mark at the start is skipped).
    """

    path: str
    id_column = "line"

    def describe(self) -> dict:
        return {"kind": "lines"}  # the content is checked chunk by chunk (digests), not the name

    def name(self) -> str:
        return "stdin" if self.path == "-" else self.path

    def check(self) -> None:
        """Refuse a path that cannot be a deal file, without reading it (a pipe reads once)."""
        if self.path == "-":
            return
        if self.path == "":
            raise ValueError("--deal-file must name a file ('-' for stdin), not ''")
        if not os.path.lexists(self.path):
            raise ValueError(f"cannot read the deal file {self.path}: no such file")
        if os.path.isdir(self.path):
            raise ValueError(f"cannot read the deal file {self.path}: it is a directory")
        if os.path.isfile(self.path):  # a regular file: open it now to report a refusal early
            with self._open():
                pass

    def total(self) -> int | None:
        """Non-blank lines of a regular file (one quick pass); ``None`` for stdin or a pipe."""
        if self.path == "-" or not os.path.isfile(self.path):
            return None
        n = 0
        with self._open() as f:
            for line in f:
                n += bool(line.strip())
        return n

    def _open(self):
        """The file in binary mode, as a context manager (stdin's buffer for ``-``, left open)."""
        if self.path == "-":
            return contextlib.nullcontext(sys.stdin.buffer)
        try:
            return open(self.path, "rb")
        except OSError as e:
            raise ValueError(f"cannot read the deal file {self.path}: "
                             f"{e.strerror or e}") from None

    def lines(self) -> Iterator[tuple[int, str]]:
        """``(line number, text)`` of every non-blank line, stripped, read lazily."""
        with self._open() as f:
            try:
                for lineno, raw in enumerate(f, start=1):
                    try:
                        text = raw.decode("utf-8").strip()
                    except UnicodeDecodeError:
                        raise ValueError(f"{self.name()} is not a text file of deals (line "
                                         f"{lineno} is not UTF-8)") from None
                    if lineno == 1:
                        text = text.removeprefix(UTF8_BOM).strip()
                    if not text:
                        continue
                    if len(text) > MAX_DEAL_LINE_CHARS:
                        raise ValueError(f"{self.name()} line {lineno} is too long for a deal "
                                         f"({len(text)} characters; a deal is 52 cards)")
                    yield lineno, text
            except OSError as e:
                raise ValueError(f"cannot read the deal file {self.name()}: "
                                 f"{e.strerror or e}") from None

    def chunks(self, size: int) -> Iterator[tuple[int, tuple, str]]:
        """``(index, ((line number, text), ...), digest)`` per chunk, read lazily."""
        k = 0
        block: list = []
        for item in self.lines():
            block.append(item)
            if len(block) == size:
                yield k, tuple(block), lines_digest(block)
                k += 1
                block = []
        if block:
            yield k, tuple(block), lines_digest(block)
        elif k == 0:
            raise ValueError(f"{self.name()} holds no deal (it is empty or only blank lines)")


def lines_digest(block) -> str:
    """A digest of a chunk's lines (with their numbers): a resumed run checks its input with it."""
    h = hashlib.blake2b(digest_size=16)
    for lineno, text in block:
        h.update(f"{lineno}\t{text}\n".encode())
    return h.hexdigest()


def parse_seed_range(text: str) -> SeedSource:
    """``"A:B"`` -> seeds A .. B-1. Raises ``ValueError`` naming the expected form."""
    t = text.strip().replace("_", "")
    form = "must be START:STOP (STOP excluded), e.g. 0:1000000"
    if ":" not in t:
        raise ValueError(f"{form}, not {clip(text)}")
    a, b = t.split(":", 1)
    try:
        start, stop = int(a), int(b)
    except ValueError:
        raise ValueError(f"{form}, not {clip(text)}") from None
    if not 0 <= start < stop <= MAX_SEED + 1:
        raise ValueError(f"{clip(text)} must satisfy 0 <= START < STOP <= 2**63")
    return SeedSource(start, stop)


# --------------------------------------------------------------------------- output formats

def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"--format must be one of {', '.join(FORMATS)}, not {clip(fmt)}")
    return fmt


def output_format(path: str, fmt: str | None) -> str:
    """The format of the results file ``path``: its suffix's (.csv; .parquet or .pq), or ``fmt``.

    With ``fmt`` given any other suffix (or none) is accepted, but a known suffix that says the
    other format is refused, as is an unknown suffix without ``fmt``.
    """
    suffix = os.path.splitext(path)[1].lower()
    implied = SUFFIXES.get(suffix)
    if fmt is None:
        if implied is None:
            raise ValueError(f"--out {clip(path)}: cannot tell the format from the suffix "
                             f"{clip(suffix) if suffix else '(none)'}: name it .csv, .parquet or "
                             f".pq, or give --format")
        return implied
    _check_format(fmt)
    if implied is not None and implied != fmt:
        raise ValueError(f"--format {fmt} contradicts the name {clip(path)} (a {suffix} file is "
                         f"{implied})")
    return fmt


def check_writable(path: str, option: str) -> None:
    """Refuse a file name ``path`` (given with ``option``) that cannot be created: empty, a
    directory, in a folder that does not exist or cannot be written. A probe file is created
    beside it and removed at once (the only sure test: root passes ``os.access`` anywhere)."""
    if not path:
        raise ValueError(f"{option} must name a file, not ''")
    if os.path.isdir(path):
        raise ValueError(f"{option} {clip(path)} is a directory; name a file in it")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{option} {clip(path)}: the folder {clip(folder)} does not exist")
    probe = f"{path}.probe-{os.getpid()}"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as e:
        raise ValueError(f"{option} {clip(path)}: cannot write files in {clip(folder)} "
                         f"({e.strerror or e})") from None
    os.unlink(probe)


def results_format(path: str, fmt: str | None) -> str:
    """The format of an existing results file: ``fmt``, else by its suffix, else by its content
    (Parquet files start with ``PAR1``)."""
    if fmt is not None:
        return _check_format(fmt)
    implied = SUFFIXES.get(os.path.splitext(path)[1].lower())
    if implied is not None:
        return implied
    with open(path, "rb") as f:
        return "parquet" if f.read(len(PARQUET_MAGIC)) == PARQUET_MAGIC else "csv"


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
    for i, deal, o, m, s, ns, why in zip(r.ids.tolist(), texts, r.outcome.tolist(),
                                         r.moves.tolist(), r.states.tolist(), r.ns.tolist(),
                                         r.reason.tolist()):
        ms, frac = divmod(ns, NS_PER_MS)  # the exact decimal text of ns / 1e6
        out.write(f"{i},{deal},{_WINNABLE_TEXT[o]},{'' if m == NO_MOVES else m},{s},"
                  f"{ms}.{frac:06d},{OUTCOME_NAMES[o]},{REASON_NAMES[why]}\n")
    return out.getvalue()


def parquet_schema(id_column: str):
    pa, _ = require_pyarrow()
    return pa.schema([(id_column, pa.int64()), ("deal", pa.string()), ("winnable", pa.bool_()),
                      ("moves", pa.int16()), ("states", pa.int64()), ("ms", pa.float64()),
                      ("outcome", pa.string()), ("reason", pa.string())])


def parquet_table(r: ChunkResult, id_column: str):
    pa, _ = require_pyarrow()
    unknown = r.outcome == 2
    return pa.table([
        pa.array(r.ids, type=pa.int64()),
        pa.array(deal_texts(r.deals), type=pa.string()),
        pa.array(r.outcome == 1, mask=unknown, type=pa.bool_()),
        pa.array(r.moves, mask=r.moves == NO_MOVES, type=pa.int16()),
        pa.array(r.states, type=pa.int64()),
        pa.array(r.ns / NS_PER_MS, type=pa.float64()),
        pa.array([OUTCOME_NAMES[o] for o in r.outcome.tolist()], type=pa.string()),
        pa.array([REASON_NAMES[k] or None for k in r.reason.tolist()], type=pa.string()),
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
    except OSError as e:
        if e.filename is None:  # a failed write() names no file: name the one being written
            raise OSError(e.errno, e.strerror, path) from None
        raise
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
    ``outcome`` (codes), ``moves`` (-1 for none), ``states``, ``ms``, ``reason`` (codes, or None
    for a file without that column) and the list ``deal``.

    Every row is checked: a field that is not of its column's type, fields that contradict each
    other (``winnable`` against ``outcome``, moves of a deal not won), a missing or extra field
    raise a ``ValueError`` naming the file and the line (CSV) or row (Parquet). So does a missing
    file, a directory, or a file that is not a batch results table.
    """
    if not os.path.lexists(path):
        raise ValueError(f"{path}: no such file")
    if os.path.isdir(path):
        raise ValueError(f"{path} is a directory, not a results file")
    try:
        fmt = results_format(path, fmt)
        if fmt == "parquet":
            return _open_parquet(path, block)
        return _open_csv(path, block)
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror or e}") from None


def _open_parquet(path: str, block: int):
    pa, pq = require_pyarrow()
    try:
        pf = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as e:  # pyarrow's errors for a file that is not Parquet
        raise ValueError(f"{path} is not a Parquet file ({clip(e, quote=False)})") from None
    id_column = _check_columns(path, pf.schema_arrow.names)
    return id_column, _parquet_blocks(pf, id_column, block, path, pa.ArrowException)


def _open_csv(path: str, block: int):
    f = open(path, encoding="utf-8", newline="")
    try:
        reader = csv.reader(f)
        header = next(reader, None)
    except (UnicodeDecodeError, csv.Error):
        f.close()
        raise ValueError(f"{path} is not a batch results file (not CSV text)") from None
    if header is None:
        f.close()
        raise ValueError(f"{path} is empty (not a batch results file)")
    try:
        id_column = _check_columns(path, header)
    except ValueError:
        f.close()
        raise
    return id_column, _csv_blocks(f, reader, header, id_column, block, path)


def _check_columns(path: str, names) -> str:
    ids = [c for c in ("seed", "line") if c in names]
    missing = [c for c in COLUMNS if c not in names and c not in OPTIONAL_COLUMNS]
    known = set(COLUMNS) | set(ids)
    if len(ids) != 1 or missing or len(set(names)) != len(names) or not set(names) <= known:
        raise ValueError(f"{path} is not a batch results file (expected the columns seed or line, "
                         f"{', '.join(COLUMNS)})")
    return ids[0]


def _present(names) -> tuple:
    """The columns after the id column that the file has, in ``COLUMNS`` order."""
    return tuple(c for c in COLUMNS if c in names)


_OUTCOME_CODE = {name: code for code, name in enumerate(OUTCOME_NAMES)}
_WINNABLE_OF = {"won": True, "lost": False, "unknown": None}
"""The ``winnable`` value that goes with each outcome."""
_CSV_WINNABLE = {"true": True, "false": False, "": None}
_REASON_CODE = {name: code for code, name in enumerate(REASON_NAMES) if name}


class _BadRow(ValueError):
    """What is wrong with a row (the caller adds the file and line)."""


_NO_COLUMN = object()
"""The ``reason`` of a row of a file without that column."""


def _integer(name: str, value) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        number = int(value)
    else:
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise _BadRow(f"{name} {clip(value)} is not an integer") from None
    if number < 0:
        raise _BadRow(f"{name} {number} is negative")
    return number


def _check_row(id_column, ident, deal, winnable, moves, states, ms, outcome,
               reason=_NO_COLUMN) -> tuple:
    """The row as ``(id, deal, outcome code, moves or NO_MOVES, states, ms, reason code)`` (the
    reason code is -1 when the file has no reason column); raises ``_BadRow``."""
    ident = _integer(id_column, ident)
    if not isinstance(deal, str) or not deal.strip():
        raise _BadRow("the deal is empty")
    if outcome not in _OUTCOME_CODE:
        raise _BadRow(f"outcome {clip(outcome)} is not one of {', '.join(OUTCOME_NAMES)}")
    if winnable is not _WINNABLE_OF[outcome]:
        shown = _WINNABLE_TEXT[int(winnable)] if isinstance(winnable, bool) else (
            "empty" if winnable is None else clip(winnable))
        raise _BadRow(f"winnable {shown} contradicts outcome {outcome}")
    if moves is None:
        moves = NO_MOVES
    else:
        moves = _integer("moves", moves)
        if outcome != "won":
            raise _BadRow(f"moves {moves} given for a deal not won (outcome {outcome})")
    states = _integer("states", states)
    try:
        ms = float(ms)
    except (TypeError, ValueError):
        raise _BadRow(f"ms {clip(ms)} is not a number") from None
    if not (math.isfinite(ms) and ms >= 0):
        raise _BadRow(f"ms {ms} is not a time")
    if reason is _NO_COLUMN:
        why = -1
    elif outcome == "unknown":
        if reason not in _REASON_CODE:
            raise _BadRow(f"reason {clip(reason)} of an unknown deal is not one of "
                          f"{', '.join(_REASON_CODE)}")
        why = _REASON_CODE[reason]
    elif reason is not None:
        raise _BadRow(f"reason {clip(reason)} given for a deal {outcome}")
    else:
        why = 0
    return ident, deal, _OUTCOME_CODE[outcome], moves, states, ms, why


def _block(rows) -> dict:
    ids, deals, outcome, moves, states, ms, reason = zip(*rows)
    return {"ids": np.asarray(ids, dtype=np.int64), "deal": list(deals),
            "outcome": np.asarray(outcome, dtype=np.int8),
            "moves": np.asarray(moves, dtype=np.int64), "states": np.asarray(states, np.int64),
            "ms": np.asarray(ms, dtype=np.float64),
            "reason": None if reason[0] < 0 else np.asarray(reason, dtype=np.int8)}


def _csv_blocks(f, reader, header, id_column, block, path):
    present = _present(header)
    order = [header.index(name) for name in (id_column,) + present]
    winnable_at = 1 + present.index("winnable")
    moves_at = 1 + present.index("moves")
    reason_at = 1 + present.index("reason") if "reason" in present else None
    try:
        rows = []
        while True:
            try:
                row = next(reader, None)
            except UnicodeDecodeError:
                raise ValueError(f"{path} line {reader.line_num + 1} is not UTF-8 text") from None
            except csv.Error as e:
                raise ValueError(f"{path} line {reader.line_num}: {clip(e, quote=False)}") \
                    from None
            if row is None:
                break
            try:
                if len(row) != len(header):
                    raise _BadRow(f"{len(row)} fields, the header has {len(header)}")
                fields = [row[k] for k in order]
                if fields[winnable_at] not in _CSV_WINNABLE:
                    raise _BadRow(f"winnable {clip(fields[winnable_at])} is not true, false or "
                                  f"empty")
                fields[winnable_at] = _CSV_WINNABLE[fields[winnable_at]]
                fields[moves_at] = fields[moves_at] or None
                if reason_at is not None:
                    fields[reason_at] = fields[reason_at] or None
                rows.append(_check_row(id_column, *fields))
            except _BadRow as e:
                raise ValueError(f"{path} line {reader.line_num}: {e}") from None
            if len(rows) == block:
                yield _block(rows)
                rows = []
        if rows:
            yield _block(rows)
    finally:
        f.close()


def _parquet_blocks(pf, id_column, block, path, arrow_error):
    row = 0
    try:
        for batch in pf.iter_batches(batch_size=block):
            d = batch.to_pydict()
            rows = []
            for fields in zip(*(d[name] for name in (id_column,) + _present(d))):
                row += 1
                try:
                    rows.append(_check_row(id_column, *fields))
                except _BadRow as e:
                    raise ValueError(f"{path} row {row}: {e}") from None
            if rows:
                yield _block(rows)
    except (arrow_error, OSError) as e:
        raise ValueError(f"{path} is a damaged Parquet file ({clip(e, quote=False)})") from None
