"""``pyramid stats`` reading a results file: a Parquet column of the wrong type is named before
any row is read, and a file that can be read only once (a shell's ``<(cat r.csv)``) is
summarised as the regular file is. The bad rows of a results file are cases of the table of
``test_faults_batch.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

import pytest

from solver.pyramid.model.deals import deal_from_seed, format_deal
from tests.faults import PYRAMID, assert_clean_failure, run_pyramid, tree

INPUT = 2
"""The exit code of ``stats`` for a file it cannot summarise."""
DEAL0 = format_deal(deal_from_seed(0))
ANALYSED_ROW = {"seed": 0, "deal": DEAL0, "winnable": True, "moves": None, "states": 17,
                "ms": 0.012, "outcome": "won", "reason": None, "max_cleared": 28,
                "max_cleared_of": 28, "max_cleared_exact": True, "loss_reason": None,
                "random_win_rate": 0.5, "greedy_win_rate": 1.0}
"""A good row of an analysed results file, by column (the columns of ``parquet_schema``)."""
LOST_ROW = {**ANALYSED_ROW, "seed": 1, "winnable": False, "outcome": "lost", "max_cleared": 20,
            "max_cleared_exact": False, "loss_reason": "dead_card", "random_win_rate": 0.0,
            "greedy_win_rate": 0.0}
"""A good row of a lost deal."""


def write_parquet(path: Path, rows: list[dict], wrong: str | None = None) -> None:
    """An analysed results file of ``rows``, each column of its schema type, but the column
    ``wrong`` of a type of another kind: a number for a string, a string for anything else."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from solver.batch.io import parquet_schema

    schema = parquet_schema("seed", analysed=True)
    arrays = {name: pa.array([r[name] for r in rows], schema.field(name).type)
              for name in schema.names}
    if wrong is not None:
        strings = pa.types.is_string(schema.field(wrong).type)
        arrays[wrong] = pa.array([7] * len(rows)) if strings else pa.array(["7"] * len(rows))
    pq.write_table(pa.table(arrays), path)


def csv_field(value) -> str:
    """A value as a results CSV writes it."""
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else str(value)


@pytest.mark.parametrize("column", list(ANALYSED_ROW))
def test_a_parquet_column_of_another_type_is_named(tmp_path, column):
    """A column of another kind of type than the schema's (a string for a number or a bool, a
    number for a string) is named with the type it must have, before any row is read."""
    from solver.batch.io import parquet_schema

    write_parquet(tmp_path / "a.parquet", [ANALYSED_ROW], wrong=column)
    before = tree(tmp_path)
    proc = run_pyramid(["stats", tmp_path / "a.parquet"])
    want = parquet_schema("seed", analysed=True).field(column).type
    got = "int64" if str(want) == "string" else "string"
    assert_clean_failure(proc, INPUT, f"a.parquet: column {column} is {got}; it must be {want}")
    assert proc.stdout == "" and tree(tmp_path) == before


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_stats_reads_a_pipe_as_the_regular_file(tmp_path, fmt):
    """``pyramid stats <(cat r.csv)``: a ``/dev/fd/N`` pipe, read once, with no suffix to tell
    its format; the bytes read to tell it are not lost."""
    path = tmp_path / f"r.{fmt}"
    if fmt == "parquet":
        write_parquet(path, [ANALYSED_ROW, LOST_ROW])
    else:
        path.write_text("".join(",".join(map(csv_field, r)) + "\n"
                                for r in (ANALYSED_ROW.keys(), ANALYSED_ROW.values(),
                                          LOST_ROW.values())))
    plain = run_pyramid(["stats", path, "--json"])
    assert plain.returncode == 0, plain.stderr
    r, w = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(w, path.read_bytes()), os.close(w)))
    writer.start()
    try:
        proc = subprocess.run([*PYRAMID, "stats", f"/dev/fd/{r}", "--json"], pass_fds=(r,),
                              capture_output=True, text=True, timeout=120)
    finally:
        os.close(r)
        writer.join(timeout=10)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(plain.stdout)
