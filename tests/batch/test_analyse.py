"""pyramid batch --analyse: the analysis columns against direct calls of the analysers, the same
file whatever the chunking, jobs or format, resume, the summary against a hand computation, and
every contradiction of an analysed row refused (quick and row-by-row checks alike)."""

import csv
import json
import math
import statistics

import numpy as np
import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.batch.analysis import ANALYSIS_COLUMNS, DEFAULT_PLAYOUTS, MAX_PLAYOUTS, \
    AnalysisColumns, BadRow, check_fields, check_playouts, rate_text
from solver.batch.plan import BatchInterrupted, plan_batch
from solver.batch.quick import csv_block
from solver.batch.results import read_results
from solver.batch.run import run_batch, summarise_file
from solver.batch.sources import SeedSource
from solver.batch.summary import Summary, summary_text
from solver.batch.work import ChunkTask, solve_chunk
from solver.core.stats import Z95, wilson
from solver.pyramid.model.deals import deal_from_seed, format_deal
from solver.pyramid.analysis.partial import best_partial
from solver.pyramid.analysis.playouts import playout_wins_many
from solver.pyramid.analysis.reasons import REASON_KINDS, find_reason
from solver.pyramid.model.rules import PRESETS, Rules
from solver.pyramid.model.outcome import Outcome
from tests.batch.helpers import assert_checked_alike, fail_after

PLAYOUTS = 48
"""Playouts per won deal in these tests (the figures, not their precision, are tested)."""


def rows(path, drop=("ms",)):
    with open(path, newline="") as f:
        return [{k: v for k, v in r.items() if k not in drop} for r in csv.DictReader(f)]


def expected_columns(ident: int, deal, outcome: int, rules: Rules, max_states: int = 0):
    """One row's analysis fields from direct calls: (max_cleared, of, exact, reason, random,
    greedy), or None for an unknown deal."""
    if outcome == Outcome.UNKNOWN:
        return None
    if outcome == Outcome.LOST:
        p = best_partial(deal, rules, max_states=max_states)
        why = find_reason(deal, rules)
        return p.best, p.most, int(p.exact or p.best == p.upper), why.kind if why else "", 0.0, 0.0
    w = playout_wins_many(deal[None].astype(np.int64), rules, PLAYOUTS, seed=ident)
    most = 52 if rules.goal == "all" else 28
    return most, most, 1, "", w.random[0] / PLAYOUTS, w.greedy[0] / PLAYOUTS


def columns_at(a: AnalysisColumns, k: int):
    if a.max_cleared[k] == -1:
        assert a.cleared_of[k] == a.exact[k] == -1 and a.loss_reason[k] == ""
        assert math.isnan(a.random_rate[k]) and math.isnan(a.greedy_rate[k])
        return None
    return (int(a.max_cleared[k]), int(a.cleared_of[k]), int(a.exact[k]), a.loss_reason[k],
            float(a.random_rate[k]), float(a.greedy_rate[k]))


@pytest.mark.parametrize("rules,cap,seeds", [
    (PRESETS["standard"], 100_000, 40), (PRESETS["msc"], 100_000, 40),  # msc: rare 10**7 deals
    (Rules(goal="all", recycles=1), 20_000, 12)],  # goal all: partial searches of seconds
    ids=[*PRESETS, "goal-all"])
def test_columns_equal_direct_calls(rules, cap, seeds):
    r = solve_chunk(ChunkTask(0, rules, max_states=cap, seeds=(0, seeds), analyse=True,
                              playouts=PLAYOUTS))
    seen = set()
    for k, seed in enumerate(range(seeds)):
        want = expected_columns(seed, deal_from_seed(seed), int(r.outcome[k]), rules, cap)
        assert columns_at(r.analysis, k) == want, seed
        seen.add(int(r.outcome[k]))
    assert {Outcome.WON, Outcome.LOST} <= seen
    assert any(r.analysis.loss_reason)
    if rules.goal == "pyramid":  # random play hardly ever clears all 52 cards
        assert 0 < np.nanmax(r.analysis.random_rate)


def test_a_deal_file_seeds_the_playouts_with_the_line_number():
    lines = ((3, format_deal(deal_from_seed(0))), (8, format_deal(deal_from_seed(0))),
             (9, format_deal(deal_from_seed(1))))
    r = solve_chunk(ChunkTask(0, Rules(), lines=lines, analyse=True, playouts=PLAYOUTS))
    for k, (line, text) in enumerate(lines):
        assert r.outcome[k] == Outcome.WON
        want = expected_columns(line, r.deals[k], Outcome.WON, Rules())
        assert columns_at(r.analysis, k) == want
    assert r.analysis.random_rate[0] != r.analysis.random_rate[1]  # one deal, two seeds


def test_a_state_cap_leaves_a_lower_bound_flagged_not_exact():
    cap = 200  # winnability decides some lost deals below it; their partial searches need more
    n = 60
    r = solve_chunk(ChunkTask(0, Rules(), max_states=cap, seeds=(0, n), analyse=True,
                              playouts=PLAYOUTS))
    a = r.analysis
    lost = [k for k in range(n) if r.outcome[k] == Outcome.LOST]
    bounds = [k for k in lost if a.exact[k] == 0]
    assert bounds
    for k in bounds:
        deal = deal_from_seed(k)
        capped = best_partial(deal, Rules(), max_states=cap)
        assert int(a.max_cleared[k]) == capped.best < capped.upper
        assert a.max_cleared[k] <= best_partial(deal, Rules()).best
    stopped_late = 0
    for k in set(lost) - set(bounds):  # proven counts, also where only the fewest-moves search
        capped = best_partial(deal_from_seed(k), Rules(), max_states=cap)  # was stopped
        assert a.max_cleared[k] == capped.best == capped.upper == best_partial(
            deal_from_seed(k), Rules()).best
        stopped_late += not capped.exact
    assert stopped_late


def analysed_plan(out, chunk, source=SeedSource(0, 60), **kw):
    return plan_batch(source, str(out), chunk=chunk, analyse=True, playouts=PLAYOUTS, **kw)


def test_the_file_is_the_same_whatever_the_chunks_jobs_format_or_interruptions(tmp_path,
                                                                               monkeypatch):
    import pyarrow.parquet as pq

    ref = tmp_path / "ref.csv"
    d = run_batch(analysed_plan(ref, 7), jobs=1, progress=False)
    two = tmp_path / "two.csv"
    run_batch(analysed_plan(two, 25), jobs=2, progress=False)
    assert rows(two) == rows(ref)
    assert list(rows(ref, drop=())[0])[-6:] == list(ANALYSIS_COLUMNS)
    # the summary of the run is the file's, to the last bit
    assert {k: v for k, v in d.items() if k != "run"} == summarise_file(str(ref))
    assert d["run"]["analyse"] is True and d["run"]["playouts"] == PLAYOUTS
    # Parquet: the same values, nulls where the CSV is empty
    pq_out = tmp_path / "r.parquet"
    run_batch(analysed_plan(pq_out, 11), jobs=2, progress=False)
    table = pq.read_table(pq_out).to_pylist()
    for row, want in zip(table, rows(ref)):
        for name in ANALYSIS_COLUMNS:
            got = row[name]
            text = "" if got is None else ("true" if got is True else "false" if got is False
                                           else rate_text(got) if isinstance(got, float)
                                           else str(got))
            assert text == want[name], (row, name)
    untimed = ("ms", "slowest")  # measured, so not equal between two runs
    assert {k: v for k, v in summarise_file(str(pq_out)).items() if k not in untimed} == \
        {k: v for k, v in summarise_file(str(ref)).items() if k not in untimed}
    # interrupted after 3 chunks, resumed: the same file
    out = tmp_path / "out.csv"
    fail_after(3, monkeypatch)
    with pytest.raises(BatchInterrupted):
        run_batch(analysed_plan(out, 7), jobs=1, progress=False)
    monkeypatch.undo()
    with pytest.raises(ValueError, match="made with --analyse; resume it with --analyse"):
        run_batch(plan_batch(SeedSource(0, 60), str(out), chunk=7), jobs=1, resume=True,
                  progress=False)
    with pytest.raises(ValueError, match="different analyse .*playouts.*48.* there"):
        run_batch(plan_batch(SeedSource(0, 60), str(out), chunk=7, analyse=True), jobs=1,
                  resume=True, progress=False)
    resumed = run_batch(analysed_plan(out, 7), jobs=1, resume=True, progress=False)
    assert resumed["run"]["resumed_deals"] == 21
    assert rows(out) == rows(ref)
    assert resumed["analysis"] == d["analysis"]


def test_a_plain_interrupted_run_is_not_resumed_analysed(tmp_path, monkeypatch):
    out = tmp_path / "out.csv"
    fail_after(1, monkeypatch)
    with pytest.raises(BatchInterrupted):
        run_batch(plan_batch(SeedSource(0, 30), str(out), chunk=10), jobs=1, progress=False)
    monkeypatch.undo()
    with pytest.raises(ValueError, match="made without --analyse; resume it without --analyse"):
        run_batch(analysed_plan(out, 10, SeedSource(0, 30)), jobs=1, resume=True,
                  progress=False)
    d = run_batch(plan_batch(SeedSource(0, 30), str(out), chunk=10), jobs=1, resume=True,
                  progress=False)
    assert "analysis" not in d and "max_cleared" not in rows(out)[0]


def test_playouts_are_checked():
    assert check_playouts(None, False) == check_playouts(None, True) == DEFAULT_PLAYOUTS == 1000
    assert check_playouts(1, True) == 1 and check_playouts(MAX_PLAYOUTS, True) == MAX_PLAYOUTS
    for bad in (0, -5, MAX_PLAYOUTS + 1, True, 2.5, "100"):
        with pytest.raises(ValueError, match="--playouts must be 1 .. 1,000,000"):
            check_playouts(bad, True)
    with pytest.raises(ValueError, match="--playouts applies to --analyse only"):
        check_playouts(100, False)
    with pytest.raises(ValueError, match="--analyse only"):
        plan_batch(SeedSource(0, 5), "/tmp/never-written.csv", playouts=10)


# --------------------------------------------------------------------------- the summary

DEALS = [format_deal(deal_from_seed(s)) for s in range(8)]
HEADER = ("seed,deal,winnable,moves,states,ms,outcome,reason," + ",".join(ANALYSIS_COLUMNS))
HAND_ROWS = [  # moves, outcome, reason, max_cleared .. greedy_win_rate
    "30,won,,28,28,true,,0.5,1",
    "30,won,,28,28,true,,0.25,0.75",
    "32,won,,28,28,true,,0.125,1",
    ",won,,28,28,true,,0,0.5",
    ",lost,,20,28,true,dead_card,0,0",
    ",lost,,24,28,false,,0,0",
    ",lost,,20,28,true,class_exhausted,0,0",
    ",unknown,states,,,,,,",
]


def hand_file(tmp_path):
    p = tmp_path / "hand.csv"
    lines = [HEADER]
    for k, tail in enumerate(HAND_ROWS):
        moves, outcome = tail.split(",")[:2]
        winnable = {"won": "true", "lost": "false", "unknown": ""}[outcome]
        rest = tail.split(",", 1)[1]
        lines.append(f"{k},{DEALS[k]},{winnable},{moves},10,0.5,{rest}")
    p.write_text("\n".join(lines) + "\n")
    return p


def mean_interval(values):
    """The mean of ``values`` and its 95% normal interval, by hand, as {p, lo, hi, n}."""
    m = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return {"p": m, "lo": max(0.0, m - half), "hi": min(1.0, m + half), "n": len(values)}


def close(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(a[k] == pytest.approx(b[k], abs=1e-12) for k in a)


def test_stats_equals_a_hand_computation(tmp_path):
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    p = hand_file(tmp_path)
    d = summarise_file(str(p))
    a = d["analysis"]
    assert a["max_cleared"] == {"of": [28], "n": 3, "lower_bounds": 1, "mean": 64 / 3,
                                "histogram": {"20": 2, "24": 1}}
    assert a["loss_reasons"] == {"class_exhausted": {"deals": 1, "share": wilson(1, 3)},
                                 "dead_card": {"deals": 1, "share": wilson(1, 3)},
                                 "none": {"deals": 1, "share": wilson(1, 3)}}
    random_won, greedy_won = [0.5, 0.25, 0.125, 0], [1, 0.75, 1, 0.5]
    assert close(a["random_win_rate"]["won"], mean_interval(random_won))
    assert close(a["random_win_rate"]["decided"], mean_interval(random_won + [0, 0, 0]))
    assert close(a["greedy_win_rate"]["won"], mean_interval(greedy_won))
    assert close(a["greedy_win_rate"]["decided"], mean_interval(greedy_won + [0, 0, 0]))
    assert a["greedy_win_rate"]["won"]["hi"] <= 1.0  # cut to a rate
    assert list(a["random_win_rate_by_moves"]) == ["30", "32"]
    assert close(a["random_win_rate_by_moves"]["30"], mean_interval([0.5, 0.25]))
    assert a["random_win_rate_by_moves"]["32"] == {"p": 0.125, "lo": None, "hi": None, "n": 1}
    text = summary_text(d)
    assert "Most cards cleared (of 28) over 3 lost deals: mean 21.33; 1 of them lower bounds" \
        in text
    assert "    20          2  ########################################" in text
    assert "    24          1  ####################" in text
    assert "Loss reasons: class_exhausted 1 (33.3%), dead_card 1 (33.3%), none 1 (33.3%)" in text
    assert "Random-play win rate: 0.2188 [" in text and "over 4 won deals" in text
    # the same rows as Parquet (nulls for the empty fields): the same summary
    table = pacsv.read_csv(p, convert_options=pacsv.ConvertOptions(
        column_types={"deal": pa.string(), "reason": pa.string(), "loss_reason": pa.string(),
                      "moves": pa.int16(), "max_cleared": pa.int16(),
                      "max_cleared_of": pa.int16()}, strings_can_be_null=True))
    pq.write_table(table, tmp_path / "hand.parquet")
    assert summarise_file(str(tmp_path / "hand.parquet")) == d


def test_summary_merges_to_the_whole_whatever_the_cut(tmp_path):
    _, blocks = read_results(str(hand_file(tmp_path)), block=3)
    parts = []
    for b in blocks:
        s = Summary("seed")
        s.add(b["ids"], b["deal"].__getitem__, b["outcome"], b["moves"], b["states"], b["ms"],
              b["reason"], b["analysis"])
        parts.append(Summary.from_state(s.state()))
    whole = Summary("seed")
    for s in reversed(parts):
        whole.merge(s)
    assert whole.to_dict() == summarise_file(str(tmp_path / "hand.csv"))


# --------------------------------------------------------------------------- checking rows

def test_check_fields_refuses_every_contradiction():
    ok_won = ("28", "28", "true", None, "0.5", "1")
    ok_lost = ("20", "28", "false", "dead_card", "0", "0")
    assert check_fields("won", *ok_won) == (28, 28, 1, "", 0.5, 1.0)
    assert check_fields("lost", *ok_lost) == (20, 28, 0, "dead_card", 0.0, 0.0)
    assert check_fields("won", 52, 52, True, None, 0.0, 0.0)[:3] == (52, 52, 1)
    assert check_fields("unknown", *[None] * 6)[:4] == (-1, -1, -1, "")
    bad = [
        ("lost", ("28", "28", "true", None, "0", "0"), "max_cleared 28 of 28 on a lost deal"),
        ("won", ("28", "28", "true", "dead_card", "0.5", "1"), "loss_reason 'dead_card' given"),
        ("won", ("27", "28", "true", None, "0.5", "1"), "on a won deal"),
        ("won", ("28", "28", "false", None, "0.5", "1"), "on a won deal"),
        ("won", ("28", "28", "true", None, "1.5", "1"), "random_win_rate 1.5 is not a rate"),
        ("won", ("28", "28", "true", None, "0.5", "-0.1"), "greedy_win_rate -0.1 is not a rate"),
        ("won", ("28", "28", "true", None, "nan", "1"), "not a rate"),
        ("won", ("28", "28", "true", None, "x", "1"), "random_win_rate 'x' is not a number"),
        ("lost", ("20", "28", "true", None, "0.25", "0"), "random_win_rate 0.25 on a lost deal"),
        ("lost", ("20", "28", "true", None, "0", "1"), "greedy_win_rate 1.0 on a lost deal"),
        ("lost", ("20", "30", "true", None, "0", "0"), "max_cleared_of 30 is not 28 or 52"),
        ("lost", ("29", "28", "true", None, "0", "0"), "max_cleared 29 is not 0 .. 28"),
        ("lost", ("-1", "28", "true", None, "0", "0"), "max_cleared -1 is not 0 .. 28"),
        ("lost", ("2x", "28", "true", None, "0", "0"), "max_cleared '2x' is not an integer"),
        ("lost", ("20", "28", "maybe", None, "0", "0"), "max_cleared_exact 'maybe'"),
        ("lost", ("20", "28", "true", "bogus", "0", "0"), "loss_reason 'bogus' is not one of"),
        ("lost", (None, "28", "true", None, "0", "0"), "max_cleared is empty for a deal lost"),
        ("won", ("28", "28", "true", None, None, "1"), "random_win_rate is empty"),
        ("unknown", ("20", None, None, None, None, None), "max_cleared given for an unknown"),
        ("unknown", (None, None, None, None, None, "0"), "greedy_win_rate given for an unknown"),
    ]
    for outcome, fields, message in bad:
        with pytest.raises(BadRow, match=message.replace("(", r"\(").replace(".", r"\.")):
            check_fields(outcome, *fields)


def analysed_file(tmp_path):
    """An analysed results CSV of seeds 0..39 with a state cap (won, lost and unknown rows)."""
    out = tmp_path / "a.csv"
    run_batch(plan_batch(SeedSource(0, 40), str(out), max_states=30, chunk=40, analyse=True,
                         playouts=PLAYOUTS), jobs=1, progress=False)
    lines = out.read_text().splitlines(keepends=True)
    return lines, [r["outcome"] for r in rows(out)]


def comparable(blocks):
    out = []
    for b in blocks:
        d = {k: v for k, v in b.items() if k != "analysis"}
        d = {k: (v.tolist() if hasattr(v, "tolist") else v if v is None else list(v))
             for k, v in d.items()}
        a = b["analysis"]
        d["analysis"] = None if a is None else [
            [x if not (isinstance(x, float) and math.isnan(x)) else "nan" for x in
             (col.tolist() if hasattr(col, "tolist") else list(col))]
            for col in (a.max_cleared, a.cleared_of, a.exact, a.loss_reason, a.random_rate,
                        a.greedy_rate)]
        out.append(d)
    return out


# (outcome of the row changed, column, value, the error's words or None for a row still good)
ANALYSED_FIELDS = [
    ("lost", "max_cleared", "28", "max_cleared 28 of 28 on a lost deal"),
    ("won", "loss_reason", "dead_card", "loss_reason 'dead_card' given for a won deal"),
    ("won", "random_win_rate", "1.5", "random_win_rate 1.5 is not a rate"),
    ("won", "greedy_win_rate", "-0.5", "greedy_win_rate -0.5 is not a rate"),
    ("lost", "random_win_rate", "0.01", "random_win_rate 0.01 on a lost deal"),
    ("lost", "max_cleared_exact", "", "max_cleared_exact is empty"),
    ("won", "max_cleared_of", "52", "max_cleared 28 of 52"),
    ("lost", "loss_reason", "dead_card ", "loss_reason 'dead_card ' is not one of"),
    ("lost", "loss_reason", "dead_card\x00", "is not one of"),
    ("unknown", "max_cleared", "3", "max_cleared given for an unknown deal"),
    ("unknown", "loss_reason", "dead_card", "loss_reason given for an unknown deal"),
    ("won", "random_win_rate", "1e-3", None),
    ("won", "random_win_rate", "0.2500", None),
    ("won", "random_win_rate", " 0.5", None),
    ("lost", "max_cleared", "007", None),
    ("lost", "loss_reason", "out_of_reach", None),
    ("won", "outcome", "won\x00", "outcome 'won\\x00' is not one of"),
]


@pytest.mark.parametrize("outcome,column,value,error", ANALYSED_FIELDS,
                         ids=[f"{o}-{c}-{v!r}" for o, c, v, _ in ANALYSED_FIELDS])
def test_an_analysed_row_is_checked_alike_quick_and_row_by_row(tmp_path, outcome, column, value,
                                                              error):
    """Each value, put in the first row of its outcome, gives the same blocks or the same error
    (naming the line) through the quick check as through the csv module row by row."""
    lines, outcomes = analysed_file(tmp_path)
    assert_checked_alike(tmp_path, lines, 1 + outcomes.index(outcome), column, value, error,
                         comparable)


def test_the_quick_check_reads_a_whole_analysed_file(tmp_path):
    """The quick check accepts a whole analysed file (rates like 1/48 included) and reads it as
    the csv module row by row does (the file quoted)."""
    lines, _ = analysed_file(tmp_path)
    header = lines[0].strip().split(",")
    b = csv_block("".join(lines[1:]).encode(), header, "seed")
    assert b is not None and b["analysis"] is not None
    quoted = tmp_path / "q.csv"
    with open(quoted, "w", newline="") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(csv.reader(lines))
    _, fast = read_results(str(tmp_path / "a.csv"))
    _, slow = read_results(str(quoted))
    assert comparable(fast) == comparable(slow)


def test_a_tampered_parquet_row_is_named_by_its_row(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = tmp_path / "r.parquet"
    run_batch(plan_batch(SeedSource(0, 40), str(out), analyse=True, playouts=PLAYOUTS), jobs=1,
              progress=False)
    table = pq.read_table(out)
    outcome = table.column("outcome").to_pylist()
    lost = outcome.index("lost")
    rates = table.column("greedy_win_rate").to_pylist()
    rates[lost] = 0.5
    pq.write_table(table.set_column(table.schema.get_field_index("greedy_win_rate"),
                                    "greedy_win_rate", pa.array(rates, pa.float64())), out)
    with pytest.raises(ValueError, match=f"r.parquet row {lost + 1}: greedy_win_rate 0.5 on a "
                                         f"lost deal"):
        summarise_file(str(out))
    reasons = table.column("loss_reason").to_pylist()
    won = outcome.index("won")
    reasons[won] = "dead_card"
    pq.write_table(table.set_column(table.schema.get_field_index("loss_reason"), "loss_reason",
                                    pa.array(reasons, pa.string())), out)
    with pytest.raises(ValueError, match=f"row {won + 1}: loss_reason 'dead_card' given for a "
                                         f"won deal"):
        summarise_file(str(out))


def test_a_file_with_some_analysis_columns_only_is_refused(tmp_path):
    p = tmp_path / "some.csv"
    p.write_text("seed,deal,winnable,moves,states,ms,outcome,reason,max_cleared\n")
    with pytest.raises(ValueError, match="some analysis columns but not all: missing "
                                         "max_cleared_of"):
        read_results(str(p))


def test_the_reason_kinds_are_what_the_file_accepts():
    for kind in REASON_KINDS:
        assert check_fields("lost", 3, 28, True, kind, 0, 0)[3] == kind


# --------------------------------------------------------------------------- the commands

def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_batch_analyse_text_json_stats_and_plot(tmp_path):
    """--analyse --optimal: the text and JSON of batch, stats of its file (the same figures),
    and the plot with the random-play rate against minimum moves; a file without minimum moves
    is plotted with one line of note instead."""
    out = tmp_path / "a.csv"
    r = run("batch", "--seeds", "0:30", "--analyse", "--playouts", 40, "--optimal", "-o", out,
            "-q", "-j", 1, "--json")
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["run"]["analyse"] is True and d["run"]["playouts"] == 40
    s = run("stats", out, "--json")
    assert s.exit_code == 0, s.stderr
    assert json.loads(s.stdout)["analysis"] == d["analysis"]
    a = d["analysis"]
    assert a["max_cleared"]["n"] == d["outcomes"]["lost"] > 0
    assert sum(x["deals"] for x in a["loss_reasons"].values()) == d["outcomes"]["lost"]
    assert sum(x["n"] for x in a["random_win_rate_by_moves"].values()) == d["outcomes"]["won"]
    png = tmp_path / "a.png"
    t = run("stats", out, "--plot", png)
    assert t.exit_code == 0 and t.stderr == "", t.stderr
    assert "Most cards cleared (of 28) over" in t.stdout and "Loss reasons: " in t.stdout
    assert "Random-play win rate: " in t.stdout and "Greedy-play win rate: " in t.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    plain = tmp_path / "p.csv"
    r = run("batch", "--seeds", "0:30", "--analyse", "--playouts", 40, "-o", plain, "-q")
    assert r.exit_code == 0, r.stderr
    assert "analysed (40 playouts per won deal)" in r.stdout
    t = run("stats", plain, "--plot", tmp_path / "p.png")
    assert t.exit_code == 0, t.stderr
    assert t.stderr.strip() == ("Note: the random-play win rate against minimum moves is not "
                                "drawn: the file has no minimum moves (score with pyramid batch "
                                "--analyse --optimal)")
    assert (tmp_path / "p.png").exists()


def test_a_dask_cluster_of_two_threads_gives_the_same_analysis(tmp_path):
    """The cluster path (two threads of one Dask worker, each with a partial-search workspace of
    its own) writes the local run's rows."""
    import distributed

    local, remote = tmp_path / "local.csv", tmp_path / "dask.csv"
    run_batch(analysed_plan(local, 10), jobs=1, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", host="127.0.0.1", scheduler_port=0,
                                  dashboard_address=None) as cluster:  # loopback only
        d = run_batch(analysed_plan(remote, 10), progress=False,
                      scheduler=cluster.scheduler_address)
    assert d["run"]["executor"].startswith("Dask cluster")
    assert rows(remote) == rows(local)


def test_rows_of_two_goals_in_one_file_are_refused(tmp_path):
    lines = [HEADER, f"0,{DEALS[0]},true,,10,0.5,won,,28,28,true,,0.5,1",
             f"1,{DEALS[1]},,,10,0.5,unknown,states,,,,,,",
             f"2,{DEALS[2]},false,,10,0.5,lost,,28,52,true,,0,0"]
    p = tmp_path / "two.csv"
    p.write_text("\n".join(lines) + "\n")
    for block in (1, 2, 65536):
        _, blocks = read_results(str(p), block=block)
        with pytest.raises(ValueError, match="two.csv line 4: max_cleared_of 52 but 28 in line "
                                             "2 \\(one file is scored under one goal\\)"):
            list(blocks)

