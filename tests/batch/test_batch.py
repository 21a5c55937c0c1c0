"""Batch scoring: rows against the single-deal solver, chunking, formats, summaries, resume."""

import csv
import json

import numpy as np
import pytest

from solver.batch.kinds import deal_texts
from solver.batch.plan import BatchFailed, BatchInterrupted, plan_batch
from solver.batch.quick import csv_block, parquet_block
from solver.batch.results import read_results
from solver.batch.run import run_batch, summarise_file
from solver.batch.sources import LineSource, SeedSource, lines_digest, parse_seed_range
from solver.batch.summary import MAX_MS, NS_PER_MS, Summary, _median, summary_text
from solver.batch.work import ChunkTask, solve_chunk
from solver.pyramid.model.deals import parse_deal
from solver.pyramid.model.sources import DealFile, parse_lines
from solver.pyramid.model.deals import deal_from_seed, deals_from_seeds, format_deal
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.winnable.solve import Workspace, solve_winnable
from solver.pyramid.model.outcome import Outcome
from solver.core.stats import wilson
from tests.batch.helpers import fail_after


def rows(path, drop=("ms",)):
    """The rows of a CSV results file without the timing column."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return [{k: v for k, v in r.items() if k not in drop} for r in reader]


def test_rows_agree_with_solve_winnable_under_both_presets():
    cap = 100_000  # msc has rare deals of ~10**7 positions; the cap keeps the test short
    for name, rules in PRESETS.items():
        r = solve_chunk(ChunkTask(0, rules, max_states=cap, seeds=(500, 800)))
        ws = Workspace.create(rules)
        assert r.ids.tolist() == list(range(500, 800))
        for k, seed in enumerate(range(500, 800)):
            deal = deal_from_seed(seed)
            assert r.deals[k].tolist() == deal.tolist()
            single = solve_winnable(deal, rules, max_states=cap, workspace=ws)
            assert r.outcome[k] == int(single.outcome), (name, seed)
            assert r.states[k] == single.states, (name, seed)
        assert (r.ns > 0).all()
        assert (r.moves == -1).all()


def test_a_state_limit_gives_unknown_and_counts_no_more_states():
    rules = Rules()
    free = solve_chunk(ChunkTask(0, rules, seeds=(0, 400)))
    capped = solve_chunk(ChunkTask(0, rules, max_states=50, seeds=(0, 400)))
    big = free.states > 50
    assert big.any() and (~big).any()
    assert (capped.outcome[big] == Outcome.UNKNOWN).all()
    assert (capped.outcome[~big] == free.outcome[~big]).all()
    assert (capped.states <= 50).all()


def test_deal_text_column_is_format_deal():
    deals = deals_from_seeds(np.arange(50))
    assert deal_texts(deals) == [format_deal(d) for d in deals]


def test_seed_range_parsing():
    assert parse_seed_range("0:1000000") == SeedSource(0, 1_000_000)
    assert parse_seed_range("7:8") == SeedSource(7, 8)
    for bad in ("5:5", "9:3", "a:b", "-1:4", f"0:{2**63 + 1}", "7"):
        with pytest.raises(ValueError, match="START"):
            parse_seed_range(bad)


def test_line_source_skips_blank_lines_keeps_line_numbers_and_chunks(tmp_path):
    p = tmp_path / "deals.txt"
    texts = [format_deal(deal_from_seed(s)) for s in range(5)]
    p.write_text(f"{texts[0]}\n\n  \n{texts[1]}\n{texts[2]}\n\n{texts[3]}\n{texts[4]}")
    src = LineSource(str(p))
    assert src.total() == 5
    chunks = list(src.chunks(2))
    assert [len(c[1]) for c in chunks] == [2, 2, 1]
    assert [n for _, block, _ in chunks for n, _ in block] == [1, 4, 5, 7, 8]
    assert chunks[0][2] == lines_digest(chunks[0][1]) != chunks[1][2]
    r = solve_chunk(ChunkTask(1, Rules(), lines=chunks[1][1]))
    assert r.ids.tolist() == [5, 7]
    assert r.deals.tolist() == [deal_from_seed(2).tolist(), deal_from_seed(3).tolist()]


def test_empty_deal_file_is_an_error(tmp_path):
    p = tmp_path / "empty.txt"
    p.write_text("\n\n")
    with pytest.raises(ValueError, match="holds no deal"):  # a regular file: before any work
        plan_batch(LineSource(str(p)), str(tmp_path / "out.csv"))
    assert not (tmp_path / "out.csv.parts").exists()  # nothing left behind asking for --resume


def test_a_bad_line_names_its_line_number(tmp_path):
    p = tmp_path / "deals.txt"
    good = format_deal(deal_from_seed(1))
    p.write_text(f"{good}\n\n{good.replace('Ac', 'Xx')}\n")
    with pytest.raises(ValueError, match=r"deals.txt line 3: token \d+ 'Xx' is not a card"):
        plan_batch(LineSource(str(p)), str(tmp_path / "out.csv"))  # checked before any work
    assert list(tmp_path.iterdir()) == [p]


def test_summary_counts_wilson_histogram_and_slowest():
    s = Summary("seed", top=3)
    outcome = np.array([1, 1, 0, 2, 1])
    moves = np.array([30, 32, -1, -1, 30])
    ms = np.array([0.5, 4.0, 2.0, 9.0, 1.0])
    s.add(np.arange(10, 15), lambda i: f"deal{i}", outcome, moves, np.array([5, 6, 7, 8, 9]), ms)
    d = s.to_dict()
    assert d["outcomes"] == {"won": 3, "lost": 1, "unknown": 1}
    assert d["win_rate"] == wilson(3, 4)
    assert d["moves_histogram"] == {"30": 2, "32": 1}
    assert d["moves"]["median"] == 30 and d["moves"]["mean"] == pytest.approx(92 / 3)
    assert [x["seed"] for x in d["slowest"]] == [13, 11, 12]
    assert d["slowest"][0]["deal"] == "deal3" and d["slowest"][0]["outcome"] == "unknown"
    # merging two halves gives the whole
    a, b = Summary("seed", top=3), Summary("seed", top=3)
    a.add(np.arange(10, 12), lambda i: f"deal{i}", outcome[:2], moves[:2], np.array([5, 6]), ms[:2])
    b.add(np.arange(12, 15), lambda i: f"deal{i + 2}", outcome[2:], moves[2:], np.array([7, 8, 9]),
          ms[2:])
    a.merge(Summary.from_state(json.loads(json.dumps(b.state())), top=3))
    assert a.to_dict() == d


def test_median_of_a_histogram():
    assert _median({1: 1}) == 1
    assert _median({1: 1, 3: 1}) == 2
    assert _median({1: 2, 5: 1}) == 1


def test_interrupt_keeps_finished_chunks_and_resume_completes(tmp_path, monkeypatch):
    ref = tmp_path / "ref.csv"
    run_batch(plan_batch(SeedSource(0, 2000), str(ref), chunk=300), jobs=1, progress=False)
    out = tmp_path / "out.csv"
    plan = plan_batch(SeedSource(0, 2000), str(out), chunk=300)
    fail_after(3, monkeypatch)
    with pytest.raises(BatchInterrupted) as e:
        run_batch(plan, jobs=1, progress=False)
    assert e.value.done == 900 and e.value.total == 2000
    parts = tmp_path / "out.csv.parts"
    assert sorted(p.name for p in parts.glob("part-*.csv")) == [
        "part-000000.csv", "part-000001.csv", "part-000002.csv"]
    assert not out.exists()
    monkeypatch.undo()
    with pytest.raises(ValueError, match="unfinished run"):
        run_batch(plan, jobs=1, progress=False)  # never silently overwrite finished work
    other = plan_batch(SeedSource(0, 2000), str(out), Rules(recycles=2), chunk=300)
    with pytest.raises(ValueError, match="different rules"):
        run_batch(other, jobs=1, resume=True, progress=False)
    (parts / "part-000004.csv.tmp-999").write_text("half a chunk")  # a write cut by a kill
    (tmp_path / "out.csv.tmp-998").write_text("half a join")  # a join cut by a kill
    d = run_batch(plan, jobs=1, resume=True, progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "ref.csv"]
    assert d["run"]["resumed_deals"] == 900 and d["run"]["scored_deals"] == 1100
    assert rows(out) == rows(ref)
    assert not parts.exists()
    full = summarise_file(str(ref))
    for key in ("deals", "outcomes", "win_rate", "states", "moves_histogram"):
        assert d[key] == full[key]


def test_resume_refuses_a_changed_deal_file(tmp_path, monkeypatch):
    p = tmp_path / "deals.txt"
    p.write_text("\n".join(format_deal(deal_from_seed(s)) for s in range(12)) + "\n")
    out = tmp_path / "out.csv"
    plan = plan_batch(LineSource(str(p)), str(out), chunk=4)
    fail_after(2, monkeypatch)
    with pytest.raises(BatchInterrupted):
        run_batch(plan, jobs=1, progress=False)
    monkeypatch.undo()
    lines = p.read_text().splitlines()
    lines[1] = format_deal(deal_from_seed(99))
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="input differs .* chunk 0"):
        run_batch(plan, jobs=1, resume=True, progress=False)
    lines[1] = format_deal(deal_from_seed(1))
    p.write_text("\n".join(lines) + "\n")
    run_batch(plan, jobs=1, resume=True, progress=False)
    assert [r["line"] for r in rows(out)] == [str(n) for n in range(1, 13)]


def test_parquet_output_matches_csv(tmp_path):
    import pyarrow.parquet as pq

    run_batch(plan_batch(SeedSource(40, 640), str(tmp_path / "r.csv"), chunk=250), jobs=1,
              progress=False)
    run_batch(plan_batch(SeedSource(40, 640), str(tmp_path / "r.parquet"), chunk=250), jobs=1,
              progress=False)
    t = pq.read_table(tmp_path / "r.parquet")
    assert t.column_names == ["seed", "deal", "winnable", "moves", "states", "ms", "outcome",
                              "reason"]
    assert t.num_rows == 600 and pq.ParquetFile(tmp_path / "r.parquet").num_row_groups == 3
    c = rows(tmp_path / "r.csv")
    p = t.to_pylist()
    for a, b in zip(c, p):
        assert int(a["seed"]) == b["seed"] and a["deal"] == b["deal"]
        assert a["winnable"] == {True: "true", False: "false", None: ""}[b["winnable"]]
        assert b["moves"] is None and a["moves"] == ""
        assert int(a["states"]) == b["states"] and a["outcome"] == b["outcome"]
    assert summarise_file(str(tmp_path / "r.parquet"))["outcomes"] == \
        summarise_file(str(tmp_path / "r.csv"))["outcomes"]


def test_read_results_rejects_other_files(tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="not a batch results file"):
        read_results(str(p))
    p.write_text("seed,deal,winnable,moves,states,ms,outcome\n1,x,true,,5,0.1,maybe\n")
    _, blocks = read_results(str(p))
    with pytest.raises(ValueError, match="x.csv line 2: outcome 'maybe' is not one of"):
        list(blocks)
    with pytest.raises(ValueError, match="no such file"):
        read_results(str(tmp_path / "missing.csv"))


def _optimal_results(tmp_path):
    """A results file with every kind of row: won with moves, lost, unknown (states limit)."""
    out = tmp_path / "r.csv"
    run_batch(plan_batch(SeedSource(0, 40), str(out), optimal=True, max_states=3000), jobs=1,
              progress=False)
    lines = out.read_text().splitlines(keepends=True)
    assert {"won", "lost", "unknown"} <= {line.rstrip().split(",")[6] for line in lines[1:]}
    return out, lines


def test_a_bad_row_in_a_later_block_is_named_by_its_line(tmp_path):
    """The quick (numpy) check of a block finds the bad row; the error names its exact line."""
    out, good = _optimal_results(tmp_path)

    def spoil(at: int, column: int, value: str) -> None:
        lines = list(good)
        fields = lines[at].split(",")
        fields[column] = value
        lines[at] = ",".join(fields)
        out.write_text("".join(lines))

    spoil(37, 4, "x")
    _, blocks = read_results(str(out), block=16)
    with pytest.raises(ValueError, match="r.csv line 38: states 'x' is not an integer"):
        list(blocks)
    at = next(k for k in range(20, 40) if good[k].split(",")[6] != "won")
    spoil(at, 3, "7")
    _, blocks = read_results(str(out), block=16)
    with pytest.raises(ValueError, match=f"r.csv line {at + 1}: moves 7 given for a deal not won"):
        list(blocks)


def test_a_bad_parquet_row_in_a_later_batch_is_named_by_its_row(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = tmp_path / "r.parquet"
    run_batch(plan_batch(SeedSource(0, 40), str(out), optimal=True, max_states=3000), jobs=1,
              progress=False)
    table = pq.read_table(out)
    good = summarise_file(str(out))
    _, blocks = read_results(str(out), block=16)
    assert [len(b["ids"]) for b in blocks] == [16, 16, 8]
    assert parquet_block(next(pq.ParquetFile(out).iter_batches()), "seed") is not None
    states = table.column("states").to_pylist()
    states[29] = -5
    pq.write_table(table.set_column(table.schema.get_field_index("states"), "states",
                                    pa.array(states, pa.int64())), out)
    _, blocks = read_results(str(out), block=16)
    with pytest.raises(ValueError, match="r.parquet row 30: states -5 is negative"):
        list(blocks)
    moves = table.column("moves").to_pylist()
    lost = next(k for k in range(16, 40) if table.column("outcome")[k].as_py() != "won")
    moves[lost] = 7
    pq.write_table(table.set_column(table.schema.get_field_index("moves"), "moves",
                                    pa.array(moves, pa.int16())), out)
    _, blocks = read_results(str(out), block=16)
    with pytest.raises(ValueError, match=f"row {lost + 1}: moves 7 given for a deal not won"):
        list(blocks)
    pq.write_table(table.cast(pa.schema([(f.name, pa.string() if f.name == "ms" else f.type)
                                         for f in table.schema])), out)
    with pytest.raises(ValueError, match="r.parquet: column ms is string; it must be double"):
        summarise_file(str(out))  # a column of another type is named before any row is read
    pq.write_table(table.cast(pa.schema([(f.name, pa.int32() if f.name == "states" else f.type)
                                         for f in table.schema])), out)
    assert summarise_file(str(out)) == good  # an integer of another width: the same figures


ODD_FIELDS = [  # (column, value): unusual or bad values for one row of a results CSV
    (0, "+5"), (0, " 5"), (0, "1_0"), (0, "5x"), (0, "-3"), (0, ""), (0, "9" * 19),
    (0, "00042"), (3, "0"), (3, "-1"), (3, "7.5"), (4, "1e3"), (4, ""), (5, "1.2.3"),
    (5, "nan"), (5, "inf"), (5, "-0.5"), (5, "5."), (5, ".5"), (5, "1" * 16),
    (5, "12345.1234567891"), (5, " 1.5"), (1, " "), (1, ""), (1, " " + "Ac"), (2, "True"),
    (2, ""), (6, "Won"), (6, "lost"),
    (7, "states"), (7, "memory "), (7, ""),
]


@pytest.mark.parametrize("column,value", ODD_FIELDS)
def test_the_quick_check_agrees_with_the_row_by_row_one(tmp_path, column, value):
    """Each odd value gives the same blocks, or the same error, whether its block goes through
    the quick check or (the first field quoted) through the csv module row by row."""
    out, lines = _optimal_results(tmp_path)
    fields = lines[5].rstrip("\n").split(",")
    fields[column] = value
    rows = lines[1:5] + [",".join(fields) + "\n"] + lines[6:]
    quoted = rows[0].split(",", 1)
    plain_file, csv_file = tmp_path / "p.csv", tmp_path / "q.csv"
    plain_file.write_text(lines[0] + "".join(rows))
    csv_file.write_text(lines[0] + f'"{quoted[0]}",{quoted[1]}' + "".join(rows[1:]))

    def outcome(path):
        try:
            _, bs = read_results(str(path))
            return [{k: (v.tolist() if hasattr(v, "tolist") else v if v is None else list(v))
                     for k, v in b.items()} for b in bs]
        except (ValueError, OverflowError) as e:
            return type(e).__name__ + str(e).replace(path.name, "FILE")

    assert outcome(plain_file) == outcome(csv_file)


@pytest.mark.parametrize("block", [7, 65536])
def test_quoted_crlf_and_unterminated_files_read_like_the_plain_one(tmp_path, block):
    """A file the csv module must read (quotes, CRLF: the row-by-row path from the first such
    block on), one without its last newline, and the plain file all give the same blocks."""
    out, lines = _optimal_results(tmp_path)
    quoted = tmp_path / "q.csv"
    with open(quoted, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerows(csv.reader(lines[:20]))
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerows(csv.reader(lines[20:]))
    cut = tmp_path / "cut.csv"
    cut.write_text("".join(lines).rstrip("\n"))

    def blocks(path):
        _, bs = read_results(str(path), block=block)
        return [{k: (v.tolist() if hasattr(v, "tolist") else v if v is None else list(v))
                 for k, v in b.items()} for b in bs]

    plain = blocks(out)
    assert sum(len(b["ids"]) for b in plain) == 40
    assert csv_block("".join(lines[1:]).encode(), lines[0].strip().split(","), "seed") is not None
    assert blocks(quoted) == plain and blocks(cut) == plain


def test_resume_without_an_interrupted_run_starts_a_new_one(tmp_path):
    out = tmp_path / "out.csv"
    d = run_batch(plan_batch(SeedSource(0, 50), str(out)), jobs=1, resume=True, progress=False)
    assert d["run"]["resumed_deals"] == 0 and d["deals"] == 50
    assert [int(r["seed"]) for r in rows(out)] == list(range(50))


def test_a_deal_out_of_memory_is_unknown_and_the_next_gets_a_fresh_workspace(monkeypatch):
    import solver.pyramid.optimal.api
    from solver.batch import work as batch_work
    real = solver.pyramid.optimal.api.solve_optimal
    workspaces = []

    def starved(deal, rules, workspace=None, **kw):
        workspaces.append(workspace)
        if format_deal(deal) == format_deal(deal_from_seed(11)):
            np.zeros(1)  # the search got this far, then its arrays did not fit
            raise MemoryError("cannot grow the position arrays")
        return real(deal, rules, workspace=workspace, **kw)

    batch_work.optimal_workspace(Rules())  # warmed up before the patch, as in a worker
    monkeypatch.setattr(solver.pyramid.optimal.api, "solve_optimal", starved)
    r = solve_chunk(ChunkTask(0, Rules(), optimal=True, seeds=(10, 13)))
    assert r.outcome.tolist()[1] == Outcome.UNKNOWN and r.moves[1] == -1
    assert r.outcome.tolist()[0] == r.outcome.tolist()[2] == Outcome.WON
    assert workspaces[0] is workspaces[1] and workspaces[2] is not workspaces[1]


def test_workers_load_every_kernel_before_timing():
    """A fresh process: once a thread has its minimum-move workspace, every minimum-move kernel
    (A*, bound, the class tables, trace) is loaded, so no timed deal pays for loading it."""
    import subprocess
    import sys

    code = ("import importlib, pkgutil\n"
            "import solver.pyramid.optimal as package\n"
            "from solver.batch.work import optimal_workspace\n"
            "from solver.pyramid.model.rules import Rules\n"
            "optimal_workspace(Rules())\n"
            "names = ['astar_run', 'start_bound', 'fill_class_tables', 'trace']\n"
            "mods = [importlib.import_module(f'{package.__name__}.{m.name}')\n"
            "        for m in pkgutil.iter_modules(package.__path__)]\n"
            "kernels = {n: getattr(m, n) for m in mods for n in names if hasattr(m, n)}\n"
            "assert sorted(kernels) == sorted(names), kernels\n"
            "print([n for n, k in kernels.items() if not k.signatures])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_summary_totals_are_exact_past_int64():
    """Two rows of the largest states and time a results row may hold: the totals are exact
    (numpy's int64 sum would wrap round to a negative number)."""
    big = np.iinfo(np.int64).max
    s = Summary()
    s.add(np.arange(2), lambda i: "", np.ones(2, np.int8), np.full(2, -1), np.full(2, big),
          np.full(2, MAX_MS))
    d = s.to_dict()
    assert d["states"]["total"] == 2 * big and d["states"]["max"] == big
    assert s.ns_total == 2 * int(np.rint(MAX_MS * NS_PER_MS)) > big


def test_summary_of_no_rows_has_null_figures(tmp_path):
    p = tmp_path / "none.csv"
    p.write_text("seed,deal,winnable,moves,states,ms,outcome\n")
    d = summarise_file(str(p))
    assert d["deals"] == 0 and d["win_rate"]["n"] == 0 and d["win_rate"]["p"] is None
    assert d["states"]["mean"] is None and d["ms"]["mean"] is None
    text = summary_text(d)
    assert "no decided deal" in text and "n/a" in text


def test_a_deal_file_that_cannot_be_opened_is_named(tmp_path, monkeypatch):
    """Root reads a mode-000 file anyway, so the refusal is simulated where the file is opened."""
    import builtins

    import solver.pyramid.model.sources as deal_sources

    p = tmp_path / "locked.txt"
    p.write_text(format_deal(deal_from_seed(0)) + "\n")

    def refuse(path, *args, **kw):
        if str(path) == str(p):
            raise PermissionError(13, "Permission denied", str(path))
        return builtins.open(path, *args, **kw)

    monkeypatch.setattr(deal_sources, "open", refuse, raising=False)
    with pytest.raises(ValueError, match="deal file .*locked.txt: Permission denied"):
        plan_batch(LineSource(str(p)), str(tmp_path / "out.csv"))
    assert sorted(x.name for x in tmp_path.iterdir()) == ["locked.txt"]


def test_a_worker_killed_mid_chunk_stops_the_run_and_keeps_the_rest(tmp_path, monkeypatch):
    """A pool worker killed (as the kernel's out-of-memory killer does) would leave its chunk
    unanswered forever; the run stops with BatchFailed instead, and a resume finishes."""
    import os
    import signal

    from solver.batch import work as batch_work
    real = batch_work.deals_from_seeds

    def killed_on_chunk_3(seeds):
        if seeds[0] == 600:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(seeds)

    monkeypatch.setattr(batch_work, "deals_from_seeds", killed_on_chunk_3)  # forked workers too
    plan = plan_batch(SeedSource(0, 2000), str(tmp_path / "out.csv"), chunk=200)
    with pytest.raises(BatchFailed, match="worker process died .*SIGKILL.*--resume"):
        run_batch(plan, jobs=2, progress=False)
    assert (tmp_path / "out.csv.parts" / "part-000000.json").exists()
    monkeypatch.undo()
    d = run_batch(plan, jobs=2, resume=True, progress=False)
    assert d["deals"] == 2000 and d["run"]["resumed_deals"] >= 200


def reference_check(path) -> int | str:
    """How many deals ``DealFile.deals()`` reads from ``path`` (a line at a time), or the
    message it refuses the file with."""
    try:
        return sum(1 for _ in DealFile(str(path)).deals())
    except ValueError as e:
        return str(e)


def fast_check(path) -> int | str:
    try:
        return DealFile(str(path)).check_deals()
    except ValueError as e:
        return str(e)


@pytest.mark.parametrize("block", [200, 1000, 1 << 20])
def test_the_whole_file_check_agrees_with_reading_a_line_at_a_time(tmp_path, monkeypatch, block):
    """``check_deals`` reads plain lines many at a time: on files mixing every kind of line
    (other spellings, blank, CRLF, bad tokens, duplicates, a byte-order mark, NUL, not UTF-8,
    too long, no final newline), read in blocks that cut lines anywhere, it counts the same deals
    and names the same first bad line as ``deals()``."""
    monkeypatch.setattr("solver.pyramid.model.sources.CHECK_BLOCK_BYTES", block)
    rng = np.random.default_rng(block)
    good = [format_deal(deal_from_seed(s)) for s in range(40)]
    kinds = [
        lambda g: g, lambda g: g, lambda g: g, lambda g: g.lower(), lambda g: g.upper(),
        lambda g: g.replace("T", "10"), lambda g: g.replace(" ", ", "), lambda g: "  " + g,
        lambda g: "", lambda g: "   ", lambda g: g + "\r", lambda g: g[:-2] + "Zz",
        lambda g: g[:-2] + g[:2], lambda g: g[:-3], lambda g: g + " Ac", lambda g: g + "\0",
        lambda g: g.replace("A", "\u00c5"), lambda g: g + " " + "x" * 5000,
        lambda g: g.replace(" ", "  ", 3), lambda g: g.replace(" ", "\t"), lambda g: "x" * 20000,
    ]
    seen = set()
    for trial in range(60):
        n = int(rng.integers(1, 25))
        bad_rate = rng.choice([0.0, 0.05, 0.3])
        lines = []
        for _ in range(n):
            k = int(rng.integers(0, len(kinds))) if rng.random() < bad_rate + 0.4 else 0
            lines.append(kinds[k](good[int(rng.integers(0, len(good)))]))
        text = "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")
        data = text.encode("utf-8", "surrogatepass")
        if rng.random() < 0.1:
            data = b"\xef\xbb\xbf" + data
        if rng.random() < 0.05:
            data = data.replace("\u00c5".encode(), b"\xc5")  # latin-1: not UTF-8
        p = tmp_path / f"d{trial}.txt"
        p.write_bytes(data)
        want = reference_check(p)
        assert fast_check(p) == want, (trial, data[:400])
        seen.add(type(want))
    assert seen == {int, str}  # both accepted and refused files were tried


def test_deal_lines_read_at_once_agree_with_parse_deal():
    """``parse_lines`` reads plain lines many at a time: on chunks mixing plain lines (any case)
    with other spellings and bad lines, it gives ``parse_deal``'s deals, or names the first bad
    line as ``parse_deal`` words it."""
    rng = np.random.default_rng(5)
    good = [format_deal(deal_from_seed(s)) for s in range(30)]
    kinds = [lambda g: g, lambda g: g.lower(), lambda g: g.replace("T", "10"),
             lambda g: g[:-2] + "Zz", lambda g: g[:-2] + g[:2], lambda g: g.replace("A", "\u00c5"),
             lambda g: g.replace(" ", ",")]
    outcomes = set()
    for _ in range(300):
        texts = [kinds[int(rng.integers(0, len(kinds)))](good[int(rng.integers(0, 30))])
                 if rng.random() < 0.15 else good[int(rng.integers(0, 30))]
                 for _ in range(int(rng.integers(1, 12)))]
        lines = [(3 * k + 1, t) for k, t in enumerate(texts)]
        want = None
        for lineno, t in lines:
            try:
                parse_deal(t)
            except ValueError as e:
                want = f"line {lineno}: {e}"
                break
        try:
            ids, deals = parse_lines(lines)
        except ValueError as e:
            assert str(e) == want
            outcomes.add("refused")
            continue
        assert want is None
        assert ids.tolist() == [n for n, _ in lines]
        assert deals.tolist() == [parse_deal(t).tolist() for t in texts]
        outcomes.add("read")
    assert outcomes == {"read", "refused"}
