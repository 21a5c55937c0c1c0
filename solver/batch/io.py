"""Batch output: chunk files (CSV or Parquet) written atomically, and the final file assembled from
them (reading results back is ``solver.batch.results``). The columns, their order and types are
``solver.batch.columns.COLUMNS`` (with ``--challenge``, ``CHALLENGE_TABLES``): the header, both
CSV writers and the Arrow schema and table derive from it.

Every error raised for a bad input is a ``ValueError`` whose message names the file and line (or
the option) and never echoes more than ``solver.core.text.ECHO_CHARS`` characters of the bad
text (``clip``).
"""

from __future__ import annotations

import hashlib
import os
import stat
from operator import attrgetter
from typing import TYPE_CHECKING, Iterable

import numpy as np

from solver.batch.analysis import ANALYSIS_COLUMNS, csv_fields, parquet_arrays, parquet_fields
from solver.batch.columns import Column, kernel_columns, results_columns
from solver.batch.csv_kernel import DEAL_CARDS, fill_rows
from solver.batch.kinds import CARD_BYTES
from solver.core.extras import install_hint
from solver.core.text import clip
from solver.core.validate import check_not_protected

if TYPE_CHECKING:
    from solver.batch.work import ChunkResult

FORMATS = ("csv", "parquet")
SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
"""The output file suffixes and the format each one means."""
PARQUET_MAGIC = b"PAR1"
"""The first four bytes of every Parquet file."""


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


def csv_header(id_column: str, analysed: bool = False, challenge: str | None = None) -> str:
    return ",".join([c.name for c in results_columns(id_column, challenge)]
                    + list(ANALYSIS_COLUMNS if analysed else ())) + "\n"


def chunk_challenge(r: ChunkResult) -> str | None:
    """The challenge whose table a chunk's rows are written in (None: ``COLUMNS``)."""
    return None if r.challenge is None else r.challenge.kind


def source_values(r: ChunkResult, c: Column):
    """The chunk's values of column ``c`` (its ``source``: a field, or a dotted path)."""
    return attrgetter(c.source)(r)


def csv_bytes(r: ChunkResult) -> bytes:
    """The chunk's rows as CSV text without header, ASCII-encoded: one ``fill_rows`` kernel
    call writes the rows of a chunk without analysis columns (the format of ``csv_rows``); its
    columns go in as one int64 array, a row per column (the deal's is not read: its cards go
    in apart)."""
    if r.analysis is not None:
        return csv_rows(r).encode("ascii")
    columns = results_columns(challenge=chunk_challenge(r))
    layout = kernel_columns(columns)
    values = np.empty((len(columns), len(r)), dtype=np.int64)
    for row, c in zip(values, columns):
        if c.kind.fmt != DEAL_CARDS:
            row[:] = source_values(r, c)
    buf = np.empty(len(r) * layout.row_bytes, dtype=np.uint8)
    n = fill_rows(values, layout.formats, layout.empty, layout.text, layout.length, r.deals,
                  CARD_BYTES, buf)
    return buf[:n].tobytes()


def csv_rows(r: ChunkResult) -> str:
    """The chunk's rows as CSV text without header, in Python a column at a time (the reference
    format; ``csv_bytes`` writes rows without analysis columns in one kernel call)."""
    texts = [c.kind.texts(source_values(r, c)) for c in results_columns(
        challenge=chunk_challenge(r))]
    tails = [""] * len(r) if r.analysis is None else csv_fields(r.analysis)
    return "".join(",".join(fields) + tail + "\n" for *fields, tail in zip(*texts, tails))


def parquet_schema(id_column: str, analysed: bool = False, challenge: str | None = None):
    pa, _ = require_pyarrow()
    return pa.schema([(c.name, c.kind.arrow_type(pa))
                      for c in results_columns(id_column, challenge)]
                     + (parquet_fields(pa) if analysed else []))


def parquet_table(r: ChunkResult, id_column: str):
    pa, _ = require_pyarrow()
    challenge = chunk_challenge(r)
    return pa.table([c.kind.arrow_array(pa, source_values(r, c))
                     for c in results_columns(id_column, challenge)]
                    + ([] if r.analysis is None else parquet_arrays(pa, r.analysis)),
                    schema=parquet_schema(id_column, r.analysis is not None, challenge))


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
             check=None, challenge: str | None = None) -> None:
    """Concatenate the chunk files' bytes ``parts``, in order, into ``out`` (streaming: one part
    at a time; the header or schema of ``COLUMNS`` with or without the analysis columns, or of
    the ``challenge``'s table); ``check(tmp)`` is called on the joined file before it replaces
    ``out`` (``write_atomic``)."""
    if fmt == "csv":
        def write(tmp):
            with open(tmp, "wb") as f:
                f.write(csv_header(id_column, analysed, challenge).encode("ascii"))
                for data in parts:
                    f.write(data)
    else:
        pa, pq = require_pyarrow()

        def write(tmp):
            with pq.ParquetWriter(tmp, parquet_schema(id_column, analysed, challenge)) as w:
                for data in parts:
                    w.write_table(pq.read_table(pa.BufferReader(data)))
    write_atomic(out, write, check)
