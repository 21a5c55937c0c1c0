"""Batch output: the results schema, chunk files (CSV or Parquet) written atomically, and the
final file assembled from them (reading results back is ``solver.batch.results``).

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

With ``--analyse`` six more columns follow: ``solver.batch.analysis.ANALYSIS_COLUMNS``
(``max_cleared``, ``max_cleared_of``, ``max_cleared_exact``, ``loss_reason``,
``random_win_rate``, ``greedy_win_rate``), described there.

Every error raised for a bad input is a ``ValueError`` whose message names the file and line (or
the option) and never echoes more than ``solver.core.text.ECHO_CHARS`` characters of the bad
text (``clip``).
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
from typing import TYPE_CHECKING, Iterable

import numpy as np

from solver.batch.analysis import ANALYSIS_COLUMNS, csv_fields, parquet_arrays, parquet_fields
from solver.batch.csv_kernel import FRACTION_DIGITS, INT_CHARS, fill_rows, name_table
from solver.batch.summary import NO_MOVES, NS_PER_MS, OUTCOME_NAMES, REASON_NAMES
from solver.core.cards import format_card
from solver.core.extras import install_hint
from solver.core.text import clip
from solver.core.validate import check_not_protected
from solver.pyramid.model.layout import DECK_CARDS

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
_CARD_TEXT = np.array([[ord(ch) for ch in format_card(c)] for c in range(DECK_CARDS)],
                      dtype=np.uint8).view(np.uint16).ravel()
"""``_CARD_TEXT[c]``: the two characters of card ``c`` as one uint16 (every Pyramid card is 2
characters)."""
_DEAL_CHARS = 3 * DECK_CARDS - 1


# --------------------------------------------------------------------------- output formats

def check_format(fmt: str) -> str:
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
    check_format(fmt)
    if implied is not None and implied != fmt:
        raise ValueError(f"--format {fmt} contradicts the name {clip(path)} (a {suffix} file is "
                         f"{implied})")
    return fmt


def check_writable(path: str, option: str) -> None:
    """Refuse a file name ``path`` (given with ``option``) that cannot or must not be written:
    empty, a directory, an existing write-protected file, in a folder that does not exist or cannot be written. A probe file is created
    beside it and removed at once (the only sure test: root passes ``os.access`` anywhere)."""
    if not path:
        raise ValueError(f"{option} must name a file, not ''")
    if os.path.isdir(path):
        raise ValueError(f"{option} {clip(path)} is a directory; name a file in it")
    check_not_protected(path, option)
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


def results_format(path: str, fmt: str | None) -> str | None:
    """The format of an existing results file: ``fmt``, else by its suffix; None when only its
    content can tell (``content_format``)."""
    if fmt is not None:
        return check_format(fmt)
    return SUFFIXES.get(os.path.splitext(path)[1].lower())


def content_format(head: bytes) -> str:
    """The format of a results file whose first ``len(PARQUET_MAGIC)`` bytes are ``head``:
    Parquet files start with ``PAR1``, anything else is read as CSV."""
    return "parquet" if head == PARQUET_MAGIC else "csv"


def require_pyarrow():
    """``pyarrow`` and ``pyarrow.parquet``, or a ``ValueError`` saying how to install them."""
    try:
        import pyarrow
        import pyarrow.parquet as pq
    except ImportError:
        raise ValueError("Parquet needs pyarrow, which is not installed "
                         f"({install_hint('parquet')})") from None
    return pyarrow, pq


def deal_texts(deals: np.ndarray) -> list[str]:
    """The deal text of each row of an ``(n, 52)`` array of card ids (vectorised)."""
    n = len(deals)
    buf = np.full((n, DECK_CARDS, 3), ord(" "), dtype=np.uint8)
    buf[:, :, :2] = _CARD_TEXT.take(deals.astype(np.intp)).view(np.uint8).reshape(n, DECK_CARDS, 2)
    flat = buf.reshape(n, 3 * DECK_CARDS)[:, :_DEAL_CHARS].tobytes().decode("ascii")
    return [flat[i * _DEAL_CHARS:(i + 1) * _DEAL_CHARS] for i in range(n)]


def csv_header(id_column: str, analysed: bool = False) -> str:
    return ",".join((id_column,) + COLUMNS + (ANALYSIS_COLUMNS if analysed else ())) + "\n"


WINNABLE_TEXT = ("false", "true", "")
"""The CSV text of ``winnable`` per outcome code (lost, won, unknown)."""


CARD_BYTES = _CARD_TEXT.view(np.uint8).reshape(DECK_CARDS, 2)
"""``CARD_BYTES[c]``: the two ASCII characters of card ``c``."""
WINNABLE_NAMES = name_table(WINNABLE_TEXT)
OUTCOME_TABLE = name_table(OUTCOME_NAMES)
REASON_TABLE = name_table(REASON_NAMES)
"""The column texts per code, as ``csv_kernel.fill_rows`` reads them."""
ROW_BYTES = (INT_CHARS + 1 + _DEAL_CHARS + 1 + WINNABLE_NAMES.width + 1 + INT_CHARS + 1
             + INT_CHARS + 1 + INT_CHARS + 1 + FRACTION_DIGITS + 1 + OUTCOME_TABLE.width + 1
             + REASON_TABLE.width + 1)
"""Most bytes of one CSV row without analysis columns (every int at its widest)."""


def csv_bytes(r: ChunkResult) -> bytes:
    """The chunk's rows as CSV text without header, ASCII-encoded: one ``fill_rows`` kernel
    call writes the rows of a chunk without analysis columns (the format of ``csv_rows``)."""
    if r.analysis is not None:
        return csv_rows(r).encode("ascii")
    buf = np.empty(len(r) * ROW_BYTES, dtype=np.uint8)
    n = fill_rows(r.ids, r.deals, r.outcome, r.moves, r.states, r.ns, r.reason, CARD_BYTES,
                  *WINNABLE_NAMES, *OUTCOME_TABLE, *REASON_TABLE, NO_MOVES, NS_PER_MS, buf)
    return buf[:n].tobytes()


def csv_rows(r: ChunkResult) -> str:
    """The chunk's rows as CSV text without header, a row at a time in Python (the reference
    format; ``csv_bytes`` writes rows without analysis columns in one kernel call)."""
    texts = deal_texts(r.deals)
    tails = [""] * len(r) if r.analysis is None else csv_fields(r.analysis)
    out = io.StringIO()
    for i, deal, o, m, s, ns, why, tail in zip(r.ids.tolist(), texts, r.outcome.tolist(),
                                               r.moves.tolist(), r.states.tolist(), r.ns.tolist(),
                                               r.reason.tolist(), tails):
        ms, frac = divmod(ns, NS_PER_MS)  # the exact decimal text of ns / 1e6
        out.write(f"{i},{deal},{WINNABLE_TEXT[o]},{'' if m == NO_MOVES else m},{s},"
                  f"{ms}.{frac:06d},{OUTCOME_NAMES[o]},{REASON_NAMES[why]}{tail}\n")
    return out.getvalue()


def parquet_schema(id_column: str, analysed: bool = False):
    pa, _ = require_pyarrow()
    return pa.schema([(id_column, pa.int64()), ("deal", pa.string()), ("winnable", pa.bool_()),
                      ("moves", pa.int16()), ("states", pa.int64()), ("ms", pa.float64()),
                      ("outcome", pa.string()), ("reason", pa.string())]
                     + (parquet_fields(pa) if analysed else []))


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
    ] + ([] if r.analysis is None else parquet_arrays(pa, r.analysis)),
        schema=parquet_schema(id_column, r.analysis is not None))


# --------------------------------------------------------------------------- atomic files

def write_atomic(path: str, write, check=None) -> None:
    """Write ``path`` through ``write(tmp_path)`` then ``os.replace``: the file is complete or
    absent, never half-written (a kill -9 leaves at most a ``.tmp-*`` file, ignored). ``check``,
    if given, is called with the written temporary file before it replaces ``path``: whatever it
    raises leaves ``path`` as it was."""
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        if check is not None:
            check(tmp)
        if os.path.isfile(path):  # a file replaced (--force) keeps its permission bits
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
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


def write_bytes_atomic(path: str, data: bytes) -> None:
    def write(tmp):
        with open(tmp, "wb") as f:
            f.write(data)
    write_atomic(path, write)


def write_part(path: str, r: ChunkResult, fmt: str, id_column: str) -> str:
    """One chunk's rows as a file of its own (CSV without header, or Parquet); returns the
    SHA-256 of the file's bytes (what its record holds)."""
    if fmt == "csv":
        data = csv_bytes(r)
        write_bytes_atomic(path, data)
        return hashlib.sha256(data).hexdigest()
    _, pq = require_pyarrow()
    table = parquet_table(r, id_column)
    digest = []

    def write(tmp):
        pq.write_table(table, tmp)
        with open(tmp, "rb") as f:
            digest.append(hashlib.file_digest(f, "sha256").hexdigest())
    write_atomic(path, write)
    return digest[0]


def assemble(out: str, parts: Iterable[bytes], fmt: str, id_column: str, analysed: bool = False,
             check=None) -> None:
    """Concatenate the chunk files' bytes ``parts``, in order, into ``out`` (streaming: one part
    at a time); ``check(tmp)`` is called on the joined file before it replaces ``out``
    (``write_atomic``)."""
    if fmt == "csv":
        def write(tmp):
            with open(tmp, "wb") as f:
                f.write(csv_header(id_column, analysed).encode("ascii"))
                for data in parts:
                    f.write(data)
    else:
        pa, pq = require_pyarrow()

        def write(tmp):
            with pq.ParquetWriter(tmp, parquet_schema(id_column, analysed)) as w:
                for data in parts:
                    w.write_table(pq.read_table(pa.BufferReader(data)))
    write_atomic(out, write, check)
