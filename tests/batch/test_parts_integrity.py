"""A batch run never trusts a file it has not checked: damaged parts are scored again, unreadable
records and manifests are refused, and the joined output is checked against the input.

Every damage case starts from the same interrupted run (three finished chunks of 300 deals) and
compares the resumed output with the output of the same run resumed undamaged: identical byte for
byte, except the measured ``ms`` of the chunk that had to be scored again (a time measured anew
cannot be the same).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import solver.batch.parts as parts_mod
import solver.batch.run as run_mod
from solver.batch.csv_kernel import first_fields
from solver.batch.plan import BatchFailed, BatchInterrupted, plan_batch
from solver.batch.run import run_batch
from solver.batch.sources import LineSource, SeedSource
from solver.batch.verify import csv_output_problem, planned_chunk
from solver.pyramid.model.deals import deal_from_seed, format_deal
from tests.batch.helpers import fail_after
from tests.faults import assert_clean_failure, run_pyramid, tree

SEEDS = (0, 1500)
CHUNK = 300
DONE = 3
"""The interrupted run: chunks 0, 1 and 2 of seeds 0..1499 are finished."""
DAMAGED = 1
"""The chunk whose part or record each case damages."""


def interrupted(tmp: Path, fmt: str, monkeypatch) -> Path:
    """The parts directory of an interrupted run of ``SEEDS`` (``DONE`` chunks finished), kept
    pristine under ``tmp / "pristine"``; the run's output is ``tmp / "run" / r.<fmt>``."""
    out = tmp / "run" / f"r.{fmt}"
    out.parent.mkdir()
    fail_after(DONE, monkeypatch)
    with pytest.raises(BatchInterrupted):
        run_batch(plan_batch(SeedSource(*SEEDS), str(out), chunk=CHUNK), jobs=1, progress=False)
    monkeypatch.undo()
    parts = Path(f"{out}.parts")
    assert len(list(parts.glob("part-*.json"))) == DONE
    shutil.copytree(parts, tmp / "pristine")
    return out


def resume(out: Path, **kw) -> tuple[dict, list[str]]:
    said: list[str] = []
    d = run_batch(plan_batch(SeedSource(*SEEDS), str(out), chunk=CHUNK), jobs=1, resume=True,
                  progress=False, notice=said.append, **kw)
    return d, said


def undamaged_output(tmp: Path, out: Path) -> Path:
    """The output of the pristine parts, resumed."""
    ref = tmp / "ref" / out.name
    ref.parent.mkdir()
    shutil.copytree(tmp / "pristine", f"{ref}.parts")
    resume(ref)
    return ref


def table(path: Path) -> list[list[str]]:
    """The rows of a results file as text fields (a Parquet file read through pyarrow)."""
    if path.suffix == ".csv":
        return [line.split(",") for line in path.read_text().splitlines()]
    import pyarrow.parquet as pq

    t = pq.read_table(path)
    return [[str(v) for v in row.values()] for row in t.to_pylist()]


def assert_same_but_the_time_of(got: Path, ref: Path, chunk: int | None) -> None:
    """``got`` equals ``ref`` but for the ``ms`` of rows that were scored anew (a time measured
    again cannot be the same): those of ``chunk`` (a damaged one, or ``None``) and of the chunks
    the interrupted run had not finished. The rows both runs kept from the parts are the same
    bytes."""
    anew = ({chunk} if chunk is not None else set()) | set(range(DONE, 99))
    header = 1 if got.suffix == ".csv" else 0
    a, b = table(got), table(ref)
    assert len(a) == len(b) == SEEDS[1] - SEEDS[0] + header
    assert a[:header] == b[:header]
    ms = ["seed", "deal", "winnable", "moves", "states", "ms"].index("ms")
    for k, (x, y) in enumerate(zip(a[header:], b[header:])):
        if k // CHUNK in anew:
            x, y = x[:ms] + x[ms + 1:], y[:ms] + y[ms + 1:]
        assert x == y, k
    if got.suffix == ".csv":
        kept = [k for k in range(DONE) if k not in anew]
        got_lines, ref_lines = (p.read_bytes().splitlines(keepends=True) for p in (got, ref))
        for k in kept:
            rows = slice(header + k * CHUNK, header + (k + 1) * CHUNK)
            assert got_lines[rows] == ref_lines[rows]


def part(out: Path, k: int, ext: str | None = None) -> Path:
    return Path(f"{out}.parts") / f"part-{k:06d}.{ext or out.suffix[1:]}"


def truncate(p: Path) -> None:
    data = p.read_bytes()
    p.write_bytes(data[:len(data) // 2])


def extend(p: Path) -> None:
    data = p.read_bytes()
    p.write_bytes(data + data[-200:])


def swap_rows(p: Path) -> None:
    if p.suffix == ".csv":
        lines = p.read_bytes().splitlines(keepends=True)
        lines[3], lines[4] = lines[4], lines[3]
        p.write_bytes(b"".join(lines))
        return
    import pyarrow.parquet as pq

    t = pq.read_table(p)
    order = list(range(t.num_rows))
    order[3], order[4] = 4, 3
    pq.write_table(t.take(order), p)


def change_a_field(p: Path) -> None:
    data = bytearray(p.read_bytes())
    k = data.index(b",true,") if b",true," in data else len(data) // 2
    data[k + 1:k + 5] = b"TRUE"
    p.write_bytes(bytes(data))


def edit_record(field, value):
    def edit(p: Path) -> None:
        rec = json.loads(p.read_text())
        rec[field] = value
        p.write_text(json.dumps(rec))
    return edit


# (id, what is damaged: "part" or "record", the damage)
SCORED_AGAIN = [
    ("part-cut-in-half", "part", truncate),
    ("part-extended", "part", extend),
    ("part-rows-swapped", "part", swap_rows),
    ("part-one-field-changed", "part", change_a_field),
    ("part-deleted", "part", os.unlink),
    ("part-emptied", "part", lambda p: p.write_bytes(b"")),
    ("record-sha256-changed", "record", edit_record("sha256", "0" * 64)),
    ("record-rows-changed", "record", edit_record("rows", CHUNK + 1)),
]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("what, damage", [c[1:] for c in SCORED_AGAIN],
                         ids=[c[0] for c in SCORED_AGAIN])
def test_a_damaged_part_is_scored_again_and_the_output_is_the_undamaged_runs(
        tmp_path, monkeypatch, fmt, what, damage):
    out = interrupted(tmp_path, fmt, monkeypatch)
    damage(part(out, DAMAGED, "json" if what == "record" else None))
    d, said = resume(out)
    assert len(said) == 1 and f"part-{DAMAGED:06d}.{fmt}" in said[0], said
    assert "scored again" in said[0]
    assert d["run"]["resumed_deals"] == (DONE - 1) * CHUNK
    assert d["run"]["scored_deals"] == SEEDS[1] - (DONE - 1) * CHUNK
    assert_same_but_the_time_of(out, undamaged_output(tmp_path, out), DAMAGED)
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name]


def test_a_record_deleted_with_its_part_kept_is_scored_again_silently(tmp_path, monkeypatch):
    """A part without a record is what a kill between the two writes leaves: not done yet."""
    out = interrupted(tmp_path, "csv", monkeypatch)
    os.unlink(part(out, DAMAGED, "json"))
    d, said = resume(out)
    assert said == [] and d["run"]["resumed_deals"] == (DONE - 1) * CHUNK
    assert_same_but_the_time_of(out, undamaged_output(tmp_path, out), DAMAGED)


def test_an_undamaged_resume_is_identical_byte_for_byte(tmp_path, monkeypatch):
    out = interrupted(tmp_path, "csv", monkeypatch)
    d, said = resume(out)
    assert said == [] and d["run"]["resumed_deals"] == DONE * CHUNK
    assert_same_but_the_time_of(out, undamaged_output(tmp_path, out), None)


def manifest(out: Path) -> Path:
    return Path(f"{out}.parts") / "manifest.json"


# (id, the damage, what the refusal names)
REFUSED = [
    ("stray-empty-record", lambda out: (Path(f"{out}.parts") / "part-99999.json").write_text("{}"),
     ("part-99999.json", "no valid 'index'")),
    ("record-cut-short", lambda out: part(out, DAMAGED, "json").write_text('{"index": 1, "ro'),
     ("part-000001.json", "not JSON")),
    ("record-binary", lambda out: part(out, DAMAGED, "json").write_bytes(bytes(range(256))),
     ("part-000001.json", "cannot be read")),
    ("record-of-another-index", lambda out: edit_record("index", 2)(part(out, DAMAGED, "json")),
     ("part-000001.json", "index 2")),
    ("record-summary-garbage", lambda out: edit_record("summary", {"x": 1})(
        part(out, DAMAGED, "json")), ("part-000001.json", "summary")),
    ("record-a-list", lambda out: part(out, DAMAGED, "json").write_text("[]"),
     ("part-000001.json", "not a JSON object")),
    ("manifest-cut-short", lambda out: manifest(out).write_text('{"version": 3, "sou'),
     ("manifest.json", "not JSON")),
    ("manifest-empty", lambda out: manifest(out).write_text(""), ("manifest.json", "not JSON")),
    ("manifest-a-number", lambda out: manifest(out).write_text("3"),
     ("manifest.json", "not the manifest")),
    ("manifest-older-version", lambda out: manifest(out).write_text(
        json.dumps({**json.loads(manifest(out).read_text()), "version": 2})),
     ("manifest.json", "another version")),
]


@pytest.mark.parametrize("damage, mentions", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_an_unreadable_record_or_manifest_is_refused_and_force_starts_again(
        tmp_path, monkeypatch, damage, mentions):
    out = interrupted(tmp_path, "csv", monkeypatch)
    damage(out)
    before = tree(tmp_path)
    with pytest.raises(ValueError) as e:
        resume(out)
    for text in (*mentions, "--force"):
        assert text in str(e.value), str(e.value)
    assert tree(tmp_path) == before  # nothing removed, nothing written
    d = run_batch(plan_batch(SeedSource(*SEEDS), str(out), chunk=CHUNK, force=True), jobs=1,
                  progress=False, force=True)
    assert d["run"]["resumed_deals"] == 0 and d["run"]["scored_deals"] == SEEDS[1] - SEEDS[0]
    assert table(out)[1:] and len(table(out)) == SEEDS[1] - SEEDS[0] + 1
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name]


def test_force_with_resume_is_refused(tmp_path, monkeypatch):
    out = interrupted(tmp_path, "csv", monkeypatch)
    with pytest.raises(ValueError, match="--force .* --resume"):
        resume(out, force=True)


def test_a_part_damaged_before_the_join_is_scored_again(tmp_path, monkeypatch):
    """A part damaged after it was written and checked (between scoring and the join) is found
    by the join, which scores it again rather than join it."""
    out = tmp_path / "r.csv"
    real = run_mod.score_missing
    rounds = []

    def then_damage(*args, **kw):
        scored = real(*args, **kw)
        rounds.append(scored.deals)
        if len(rounds) == 1:
            swap_rows(part(out, 2))
        return scored

    monkeypatch.setattr(run_mod, "score_missing", then_damage)
    said: list[str] = []
    d = run_batch(plan_batch(SeedSource(*SEEDS), str(out), chunk=CHUNK), jobs=1, progress=False,
                  notice=said.append)
    assert rounds == [SEEDS[1], CHUNK]
    assert len(said) == 1 and "part-000002.csv" in said[0], said
    assert d["run"]["scored_deals"] == SEEDS[1] + CHUNK
    ids = [int(row[0]) for row in table(out)[1:]]
    assert ids == list(range(*SEEDS))


def test_a_stream_whose_part_is_damaged_before_the_join_keeps_the_rest(tmp_path, monkeypatch):
    """stdin or a pipe cannot be read again: the damaged chunk is dropped, the others kept, and
    the run stops (exit 1 on the command line) asking for the same deals with --resume."""
    text = "".join(format_deal(deal_from_seed(s)) + "\n" for s in range(10))
    out = tmp_path / "r.csv"
    real = run_mod.score_missing

    def then_damage(*args, **kw):
        scored = real(*args, **kw)
        truncate(part(out, 1))
        return scored

    monkeypatch.setattr(run_mod, "score_missing", then_damage)
    r, w = os.pipe()
    os.write(w, text.encode())
    os.close(w)
    try:
        plan = plan_batch(LineSource(f"/dev/fd/{r}"), str(out), chunk=4)
        with pytest.raises(BatchFailed, match="cannot be read again") as e:
            run_batch(plan, jobs=1, progress=False, notice=lambda line: None)
    finally:
        os.close(r)
    assert "the 6 finished deals are kept" in str(e.value)
    assert sorted(p.name for p in Path(f"{out}.parts").glob("part-*.json")) == [
        "part-000000.json", "part-000002.json"]
    assert not out.exists()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("how", ["a part left out", "two parts swapped", "a part twice"])
def test_a_join_that_is_not_the_plan_is_never_written(tmp_path, monkeypatch, fmt, how):
    """The joined file is read back and checked against the input before it replaces the
    output: a join that left a part out, swapped two or wrote one twice is refused, the parts
    are kept, and --resume joins them again."""
    out = tmp_path / f"r.{fmt}"
    real = parts_mod.assemble

    def broken(path, parts, *args, **kw):
        data = list(parts)
        if how == "a part left out":
            del data[2]
        elif how == "two parts swapped":
            data[1], data[2] = data[2], data[1]
        else:
            data.insert(1, data[1])
        return real(path, iter(data), *args, **kw)

    monkeypatch.setattr(parts_mod, "assemble", broken)
    with pytest.raises(BatchFailed, match="do not match the input"):
        run_batch(plan_batch(SeedSource(*SEEDS), str(out), chunk=CHUNK), jobs=1, progress=False)
    assert not out.exists() and not list(tmp_path.glob("*.tmp-*"))
    assert len(list(Path(f"{out}.parts").glob("part-*.json"))) == 5
    monkeypatch.undo()
    d, said = resume(out)
    assert said == [] and d["run"]["resumed_deals"] == SEEDS[1]
    assert [int(row[0]) for row in table(out)[1 if fmt == "csv" else 0:]] == list(range(*SEEDS))


def reference_first_fields(lines: list[bytes]) -> list[int] | int:
    """The first fields of ``lines``, or the index of the first line without one."""
    ids = []
    for k, line in enumerate(lines):
        field = line.split(b",", 1)
        if len(field) < 2 or not field[0].isdigit() or len(field[0]) > 19:
            return k
        ids.append(int(field[0]))
    return ids


def test_first_fields_agrees_with_a_plain_reader():
    rng = np.random.default_rng(7)
    pieces = [b"12,a", b"0,", b"7", b"x,1", b",", b"99999999999,b,c", b"", b"3 ,q", b"-1,x",
              b"1234567890123456789,z", b"12345678901234567890,z", b"5,\r"]
    outcomes = set()
    for _ in range(3000):
        lines = [pieces[i] for i in rng.integers(0, len(pieces), rng.integers(0, 6))]
        text = b"".join(line + b"\n" for line in lines)
        buf = np.frombuffer(text, dtype=np.uint8)
        stops = np.flatnonzero(buf == ord("\n"))
        starts = np.zeros_like(stops)
        starts[1:] = stops[:-1] + 1
        ids = np.empty(len(stops), dtype=np.int64)
        bad = first_fields(buf, starts, stops, ids)
        want = reference_first_fields(lines)
        if isinstance(want, int):
            assert bad == want, (text, bad, want)
            outcomes.add("bad")
        else:
            assert bad == -1 and ids.tolist() == want, (text, bad, want)
            outcomes.add("good")
    assert outcomes == {"bad", "good"}


def test_the_output_check_reads_blocks_and_names_what_is_wrong(tmp_path, monkeypatch):
    monkeypatch.setattr("solver.batch.verify.READ_BLOCK", 1000)  # rows cross block ends
    rows = [f"{i},{'x' * 170}\n" for i in range(40)]
    p = tmp_path / "r.csv"
    p.write_text("".join(rows))
    plan = [planned_chunk(0, np.arange(0, 25)), planned_chunk(1, np.arange(25, 40))]

    def problem(text: str) -> str | None:
        p.write_text("h\n" + text)
        return csv_output_problem(str(p), "h\n", plan)

    assert problem("".join(rows)) is None
    assert problem("".join(rows[:-1])) == "it ends in chunk 1, before the last deal"
    assert problem("".join(rows + rows[-1:])) == "it has 1 rows more than the input's deals"
    assert problem("".join(rows[:3] + rows[4:5] + rows[3:4] + rows[5:])) == \
        "the rows of chunk 0 are not its deals, in order"
    assert problem("".join(rows)[:-1]) == "line 41 has no newline at its end"
    assert problem("".join(rows[:30] + ["x" + rows[30]] + rows[31:])) == \
        "line 32 does not start with an id"
    assert problem("".join(rows[:30] + ["1" * 20 + rows[30]] + rows[31:])) == \
        "line 32 does not start with an id"


# --------------------------------------------------------------------------- the real command

def interrupted_on_the_command_line(tmp: Path) -> list:
    """Seeds 0..1499 in chunks of 300, interrupted after 3 chunks (the parts made through the
    API, as a kill would leave them); the argv of the command that resumes it."""
    out = tmp / "r.csv"
    plan = plan_batch(SeedSource(*SEEDS), str(out), chunk=CHUNK)
    real = run_mod.solve_chunk
    calls = []

    def flaky(task):
        calls.append(task.index)
        if len(calls) > DONE:
            raise KeyboardInterrupt
        return real(task)

    run_mod.solve_chunk = flaky
    try:
        with pytest.raises(BatchInterrupted):
            run_batch(plan, jobs=1, progress=False)
    finally:
        run_mod.solve_chunk = real
    return ["batch", "--seeds", "0:1500", "--chunk", CHUNK, "-j", 1, "-q", "-o", out, "--resume"]


@pytest.mark.parametrize("damage, mentions", [
    (lambda tmp: (tmp / "r.csv.parts" / "part-99999.json").write_text("{}"),
     ("part-99999.json", "--force")),
    (lambda tmp: (tmp / "r.csv.parts" / "manifest.json").write_text("{"),
     ("manifest.json", "--force")),
], ids=["stray-record", "manifest-cut"])
def test_the_command_refuses_unreadable_parts_in_one_line(tmp_path, damage, mentions):
    args = interrupted_on_the_command_line(tmp_path)
    damage(tmp_path)
    before = tree(tmp_path)
    assert_clean_failure(run_pyramid(args), 2, mentions)
    assert tree(tmp_path) == before
    proc = run_pyramid([a for a in args if a != "--resume"] + ["--force"])
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


def test_the_command_names_a_damaged_part_and_finishes(tmp_path):
    args = interrupted_on_the_command_line(tmp_path)
    truncate(tmp_path / "r.csv.parts" / "part-000001.csv")
    proc = run_pyramid([*args, "--json"])
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "part-000001.csv holds 1" in lines[0], lines
    assert "rows where 300 were written: its 300 deals are scored again" in lines[0]
    assert json.loads(proc.stdout)["deals"] == 1500
    assert [int(line.split(",")[0]) for line in (tmp_path / "r.csv").read_text().splitlines()[1:]] \
        == list(range(1500))
