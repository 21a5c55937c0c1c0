"""The column table (``solver.batch.columns.COLUMNS``) is the one place a results column is
defined: with one entry added, both CSV writers, the header, the Arrow schema and table, and every
reader (CSV and Parquet, a block at a time and row by row) carry the new column, and each column
reads back as it was written."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from solver.batch import columns as table
from solver.batch.columns import COLUMNS, Column, results_columns
from solver.batch.io import csv_bytes, csv_header, csv_rows, parquet_schema, parquet_table
from solver.batch.kinds import Count, Deal, Millis, Names, WonCount, deal_texts
from solver.batch.quick import csv_block, parquet_block
from solver.batch.results import _parquet_rows_checked, read_results
from solver.batch.summary import NO_MOVES, NS_PER_MS, REASON_NAMES
from solver.batch.work import ChunkResult
from solver.pyramid.model.deals import deals_from_seeds

NEW_COLUMNS = {
    "count": Column("states_again", Count(), "states", "states_again"),
    "won-count": Column("moves_again", WonCount(), "moves", "moves_again"),
    "millis": Column("ms_again", Millis(), "ns", "ms_again"),
    "names": Column("reason_again", Names(REASON_NAMES, unknown_only=True), "reason",
                    "reason_again"),
    "deal": Column("deal_again", Deal(), "deals", "deal_again"),
}
"""One new column of each kind, written from a field the chunk already has."""


def chunk(n: int = 500, seed: int = 3) -> ChunkResult:
    """``n`` consistent rows: every outcome, moves of won deals only, a reason for every unknown
    deal and none for a decided one."""
    rng = np.random.default_rng(seed)
    outcome = rng.integers(0, 3, n).astype(np.int8)
    moves = np.where((outcome == 1) & (rng.random(n) < 0.7), rng.integers(0, 200, n), NO_MOVES)
    reason = np.where(outcome == 2, rng.integers(1, len(REASON_NAMES), n), 0)
    deals = deals_from_seeds(np.arange(n)).astype(np.int8)
    return ChunkResult(0, rng.integers(0, 10**15, n), deals, outcome, moves.astype(np.int16),
                       rng.integers(0, 10**12, n), rng.integers(0, 10**14, n),
                       reason.astype(np.int8))


def expected(c: Column, r: ChunkResult):
    """What a block holds of column ``c`` written from chunk ``r``."""
    values = getattr(r, c.source)
    if isinstance(c.kind, Deal):
        return deal_texts(values)
    if isinstance(c.kind, Millis):
        return (values / NS_PER_MS).tolist()
    return values.tolist()


def check_blocks(blocks, r: ChunkResult) -> None:
    blocks = list(blocks)
    for c in results_columns():
        if c.key:
            got = [x for b in blocks for x in list(b[c.key])]
            assert got == expected(c, r), c.name
    assert all(b["analysis"] is None for b in blocks)


def quoted(text: str) -> str:
    """The same CSV with every field quoted: the quick reader leaves it to the csv module."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL).writerows(
        csv.reader(io.StringIO(text)))
    return out.getvalue()


@pytest.fixture(params=[None, *NEW_COLUMNS], ids=["table", *NEW_COLUMNS])
def new_column(request, monkeypatch):
    """The column table as it is, or with one entry added at its end."""
    if request.param is None:
        return None
    monkeypatch.setattr(table, "COLUMNS", COLUMNS + (NEW_COLUMNS[request.param],))
    return NEW_COLUMNS[request.param]


def test_every_column_round_trips_csv(new_column, tmp_path):
    r = chunk()
    header = csv_header("seed")
    assert header.rstrip("\n").split(",") == [c.name for c in results_columns()]
    if new_column is not None:
        assert header.endswith(f",{new_column.name}\n")
    rows = csv_bytes(r)
    assert rows == csv_rows(r).encode("ascii")  # the kernel writes the Python writer's text
    assert csv_block(rows, header.rstrip("\n").split(","), "seed") is not None
    path = tmp_path / "r.csv"
    path.write_bytes(header.encode("ascii") + rows)
    id_column, blocks = read_results(str(path), block=128)
    assert id_column == "seed"
    check_blocks(blocks, r)  # a block at a time (csv_block takes it)
    path.write_text(quoted(header + rows.decode("ascii")))
    check_blocks(read_results(str(path), block=128)[1], r)  # row by row


def test_every_column_round_trips_parquet(new_column, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    r = chunk()
    t = parquet_table(r, "line")
    assert t.schema == parquet_schema("line")
    assert t.column_names == [c.name for c in results_columns("line")]
    path = tmp_path / "r.parquet"
    pq.write_table(t, path)
    assert parquet_block(next(pq.ParquetFile(path).iter_batches()), "line") is not None
    id_column, blocks = read_results(str(path), block=128)
    assert id_column == "line"
    check_blocks(blocks, r)  # a block at a time (parquet_block takes it)
    check_blocks([_parquet_rows_checked(b, "line", str(path), 0)
                  for b in pq.ParquetFile(path).iter_batches(batch_size=128)], r)  # row by row


def test_a_bad_field_of_a_new_column_is_named(monkeypatch, tmp_path):
    """The readers check the new column as its kind says."""
    new = NEW_COLUMNS["count"]
    monkeypatch.setattr(table, "COLUMNS", COLUMNS + (new,))
    lines = (csv_header("seed") + csv_rows(chunk(20))).splitlines(keepends=True)
    lines[7] = lines[7].rstrip("\n").rpartition(",")[0] + ",-4\n"
    path = tmp_path / "r.csv"
    path.write_text("".join(lines))
    with pytest.raises(ValueError, match=r"r\.csv line 8: states_again -4 is negative"):
        list(read_results(str(path))[1])


@pytest.mark.parametrize("bad, error", [
    ({"seed": "x", "outcome": "wn"}, "seed 'x' is not an integer"),
    ({"deal": " ", "outcome": "wn"}, "the deal is empty"),
    ({"outcome": "wn", "states": "y"}, "outcome 'wn' is not one of lost, won, unknown"),
    ({"winnable": "false", "states": "y"}, "winnable false contradicts outcome won"),
    ({"winnable": "maybe", "seed": "x"}, "winnable 'maybe' is not true, false or empty"),
    ({"states": "y", "reason": "states"}, "states 'y' is not an integer"),
    ({"reason": "states"}, "reason 'states' given for a deal won"),
], ids=["id-first", "deal-first", "outcome-before-states", "winnable-after-outcome",
        "csv-text-first", "states-before-reason", "reason"])
def test_a_row_is_checked_in_column_order(tmp_path, bad, error):
    """Of a row's bad fields the first in column order is named, the outcome just before the
    first column checked against it (winnable); a CSV text that is no value at all (winnable's)
    before any."""
    header = csv_header("seed").rstrip("\n").split(",")
    row = {"seed": "4", "deal": "Ah 2c", "winnable": "true", "moves": "", "states": "9",
           "ms": "0.5", "outcome": "won", "reason": ""} | bad
    path = tmp_path / "r.csv"
    path.write_text(",".join(header) + "\n" + '"' + '","'.join(row[h] for h in header) + '"\n')
    with pytest.raises(ValueError, match=f"r.csv line 2: {error}$"):
        list(read_results(str(path))[1])
