"""pyramid batch --challenge score|cards: the rows against direct calls of ``score_challenge`` and
``card_challenge`` (CSV and Parquet, seeds and a deal file), resume, the manifest's challenge and
rank, the refused options, every contradiction of a challenge's row refused (quick and row-by-row
checks alike), and the summary against a hand computation."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.batch.challenge import Challenge, check_challenge
from solver.batch.plan import BatchInterrupted, plan_batch
from solver.batch.results import read_results
from solver.batch.run import run_batch, summarise_file
from solver.batch.sources import LineSource, SeedSource
from solver.batch.summary import summary_text
from solver.batch.work import ChunkTask, solve_chunk
from solver.core.stats import median_ranks, wilson
from solver.pyramid.challenge.api import card_challenge, score_challenge
from solver.pyramid.challenge.search import Workspace
from solver.pyramid.model.deals import deal_from_seed, format_deal
from solver.pyramid.model.rules import PRESETS
from tests.batch.helpers import assert_checked_alike, fail_after, one_line_error

MSC = PRESETS["msc"]
SEEDS = 30
CAP = 200_000
"""Positions per deal: a few of seeds 0..29 need more (unknown rows), the others are decided."""
CHALLENGES = {"score": Challenge("score"), "cards": Challenge("cards", 1)}


def run(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


def rows(path, drop=("ms",)):
    with open(path, newline="") as f:
        return [{k: v for k, v in r.items() if k not in drop} for r in csv.DictReader(f)]


def parquet_rows(path, drop=("ms",)):
    import pyarrow.parquet as pq

    return [{k: v for k, v in r.items() if k not in drop} for r in pq.read_table(path).to_pylist()]


def direct(kind: str, seed: int):
    """The direct call, in new search arrays (as the batch's: the positions a search counts
    depend on the size its free-stock memo was left at by the searches before)."""
    deal, ws = deal_from_seed(seed), Workspace.create(MSC)
    if kind == "score":
        return score_challenge(deal, "msc", max_states=CAP, workspace=ws)
    return card_challenge(deal, 1, "msc", max_states=CAP, workspace=ws)


def expected_row(kind: str, seed: int) -> dict:
    """A row of the results as the direct call answers it (CSV text, as ``csv.DictReader``
    reads it)."""
    r = direct(kind, seed)
    unknown = r.outcome == "unknown"
    value = "max_score" if kind == "score" else "max_removed"
    return {"deal": format_deal(deal_from_seed(seed)),
            value: "" if unknown else str(r.best.value),
            "moves": "" if unknown else str(r.best.moves),
            "clears_pyramid": "" if unknown else str(r.best.clears_pyramid).lower(),
            "states": str(r.states), "outcome": r.outcome, "reason": r.reason or ""}


def as_text(row: dict) -> dict:
    """A Parquet row as the CSV's text."""
    return {k: "" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
            for k, v in row.items()}


@pytest.fixture(scope="module", params=list(CHALLENGES))
def batch_runs(request, tmp_path_factory):
    """Each challenge over seeds 0..29 under msc with the cap: the direct calls' rows, a CSV
    run (seeds, two processes) and a Parquet run (the same deals as a deal file, one process),
    with the JSON summary of the CSV run."""
    kind = request.param
    tmp = tmp_path_factory.mktemp(kind)
    want = [{"seed": str(s), **expected_row(kind, s)} for s in range(SEEDS)]
    out = tmp / "r.csv"
    d = run_batch(plan_batch(SeedSource(0, SEEDS), str(out), MSC, max_states=CAP, chunk=8,
                             challenge=CHALLENGES[kind]), jobs=2, progress=False)
    deals = tmp / "deals.txt"
    deals.write_text("".join(f"{format_deal(deal_from_seed(s))}\n" for s in range(SEEDS)))
    pq_out = tmp / "r.parquet"
    run_batch(plan_batch(LineSource(str(deals)), str(pq_out), MSC, max_states=CAP, chunk=7,
                         challenge=CHALLENGES[kind]), jobs=1, progress=False)
    return kind, want, out, pq_out, d


def test_rows_equal_direct_calls_in_csv_and_parquet(batch_runs):
    kind, want, out, pq_out, _ = batch_runs
    got = rows(out)
    assert list(rows(out, drop=())[0]) == ["seed", "deal", "max_score" if kind == "score" else
                                           "max_removed", "moves", "clears_pyramid", "states",
                                           "ms", "outcome", "reason"]
    assert got == want
    outcomes = {r["outcome"] for r in got}
    assert "unknown" in outcomes and "best" in outcomes  # the cap stopped some deals only
    if kind == "cards":
        assert "reached" in outcomes
    lines = [as_text(r) for r in parquet_rows(pq_out)]
    assert lines == [{"line": str(k + 1), **{n: v for n, v in w.items() if n != "seed"}}
                     for k, w in enumerate(want)]


def test_batch_json_is_the_file_summary(batch_runs):
    kind, want, out, pq_out, d = batch_runs
    assert d["run"]["challenge"] == kind and d["run"]["rank"] == (None if kind == "score"
                                                                  else "A")
    assert d["run"]["rules"] == MSC.to_dict()
    summary = {k: v for k, v in d.items() if k != "run"}
    assert summary == summarise_file(str(out))
    untimed = ("ms", "slowest")  # measured, so not equal between two runs
    assert {k: v for k, v in summarise_file(str(pq_out)).items() if k not in untimed} == \
        {k: v for k, v in summary.items() if k not in untimed}
    decided = [w for w in want if w["outcome"] != "unknown"]
    c = d["challenge"]
    assert c["challenge"] == kind and c["decided"] == len(decided)
    assert d["outcomes"] == {name: sum(w["outcome"] == name for w in want)
                             for name in ("reached", "best", "unknown")}
    assert d["unknown_reasons"] == {"states": d["outcomes"]["unknown"]}
    assert c["clears_pyramid"] == wilson(sum(w["clears_pyramid"] == "true" for w in decided),
                                         len(decided))
    assert "win_rate" not in d and "moves_histogram" not in d


def test_resume_after_an_interruption_gives_the_file_of_one_run(batch_runs, tmp_path,
                                                                monkeypatch):
    kind, _, one_run, _, d = batch_runs
    out = tmp_path / "r.csv"
    plan = plan_batch(SeedSource(0, SEEDS), str(out), MSC, max_states=CAP, chunk=8,
                      challenge=CHALLENGES[kind])
    fail_after(2, monkeypatch)
    with pytest.raises(BatchInterrupted):
        run_batch(plan, jobs=1, progress=False)
    monkeypatch.undo()
    assert not out.exists() and (tmp_path / "r.csv.parts" / "part-000001.json").exists()
    resumed = run_batch(plan, jobs=1, resume=True, progress=False)
    assert resumed["run"]["resumed_deals"] == 16 and resumed["run"]["scored_deals"] == 14
    assert rows(out) == rows(one_run)
    assert resumed["challenge"] == d["challenge"] and resumed["outcomes"] == d["outcomes"]


# --------------------------------------------------------------------------- the manifest

def interrupted(tmp_path, monkeypatch, challenge, seeds=4):
    """An interrupted run of ``challenge`` over seeds 9..9+seeds (one chunk of two done)."""
    out = tmp_path / "r.csv"
    fail_after(1, monkeypatch)
    with pytest.raises(BatchInterrupted):
        run_batch(plan_batch(SeedSource(9, 9 + seeds), str(out), MSC, chunk=seeds // 2,
                             max_states=50_000, challenge=challenge), jobs=1, progress=False)
    monkeypatch.undo()
    return out


def test_resume_refuses_another_challenge_rank_or_rules(tmp_path, monkeypatch):
    out = interrupted(tmp_path, monkeypatch, Challenge("cards", 1))

    def resume(challenge, rules=MSC):
        return run_batch(plan_batch(SeedSource(9, 13), str(out), rules, chunk=2,
                                    max_states=50_000, challenge=challenge), jobs=1,
                         resume=True, progress=False)

    with pytest.raises(ValueError, match=r"""different rank \('"A"' there, '"K"' now\)$"""):
        resume(Challenge("cards", 13))
    with pytest.raises(ValueError, match=r"""different challenge \('"cards"' there, '"score"' """
                                         r"""now\), rank \('"A"' there, 'null' now\)"""):
        resume(Challenge("score"))
    with pytest.raises(ValueError, match="made with --challenge cards; resume it with "
                                         "--challenge cards"):
        resume(None)
    with pytest.raises(ValueError, match="different rules"):
        resume(Challenge("cards", 1), PRESETS["standard"])
    r = run("batch", "--seeds", "9:13", "--chunk", 2, "--max-states", 50_000, "--challenge",
            "cards", "--rank", "K", "-o", out, "--resume", "-q")
    one_line_error(r, "cannot resume", "rank")
    r = run("batch", "--seeds", "9:13", "--chunk", 2, "--max-states", 50_000, "-o", out,
            "--resume", "-q")  # no --challenge: the standard rules, the winnability table
    one_line_error(r, "cannot resume", "made with --challenge cards")
    d = resume(Challenge("cards", 1))
    assert d["run"]["resumed_deals"] == 2 and len(rows(out)) == 4


def test_a_plain_interrupted_run_is_not_resumed_as_a_challenge(tmp_path, monkeypatch):
    out = tmp_path / "r.csv"
    fail_after(1, monkeypatch)
    with pytest.raises(BatchInterrupted):
        run_batch(plan_batch(SeedSource(0, 20), str(out), MSC, chunk=10), jobs=1,
                  progress=False)
    monkeypatch.undo()
    with pytest.raises(ValueError, match="made without --challenge; resume it without "
                                         "--challenge"):
        run_batch(plan_batch(SeedSource(0, 20), str(out), MSC, chunk=10,
                             challenge=Challenge("score")), jobs=1, resume=True, progress=False)


# --------------------------------------------------------------------------- options

@pytest.mark.parametrize("args, words", [
    (["--challenge", "cards"], ("--challenge cards needs --rank",)),
    (["--challenge", "cards", "--rank", "X"], ("bad --rank", "'X' is not a rank")),
    (["--challenge", "cards", "--rank", "11"], ("bad --rank", "'11'")),
    (["--challenge", "score", "--rank", "A"], ("--rank applies to --challenge cards only",)),
    (["--rank", "A"], ("--rank applies to --challenge cards only",)),
    (["--challenge", "hearts"], ("--challenge", "'hearts' is not one of score, cards")),
    (["--challenge", "score", "--optimal"], ("--challenge does not combine with --optimal",)),
    (["--challenge", "cards", "--rank", "A", "--analyse"],
     ("--challenge does not combine with --analyse",)),
    (["--challenge", "score", "--playouts", 10], ("--challenge does not combine with --playouts",)),
    (["--timeout", 5], ("--timeout applies to --optimal and --challenge only",)),
    (["--challenge", "score", "--timeout", 0], ("--timeout",)),
], ids=["cards-no-rank", "bad-rank", "rank-11", "score-rank", "lone-rank", "bad-challenge",
        "optimal", "analyse", "playouts", "timeout-alone", "timeout-zero"])
def test_bad_option_combinations_are_one_line(tmp_path, args, words):
    out = tmp_path / "r.csv"
    one_line_error(run("batch", "--seeds", "0:5", "-o", out, "-q", *args), *words)
    assert list(tmp_path.iterdir()) == []  # nothing scored, nothing left behind


def test_check_challenge_takes_every_rank_spelling():
    assert check_challenge(None, None) is None
    assert check_challenge("score", None) == Challenge("score")
    for text, rank in (("A", 1), ("a", 1), ("2", 2), ("9", 9), ("T", 10), ("10", 10),
                       ("j", 11), ("Q", 12), ("K", 13)):
        assert check_challenge("cards", text) == Challenge("cards", rank)
    assert Challenge("cards", 10).manifest() == {"challenge": "cards", "rank": "T"}


def test_the_default_rules_are_msc_and_a_rule_option_overrides_them(tmp_path):
    r = run("batch", "--seeds", "21:22", "--challenge", "score", "-o", tmp_path / "a.csv", "-q",
            "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["run"]["rules"] == MSC.to_dict()
    r = run("batch", "--seeds", "21:22", "--challenge", "score", "--recycles", "unlimited",
            "-o", tmp_path / "b.csv", "-q", "--json")
    assert json.loads(r.stdout)["run"]["rules"] == MSC.with_options(recycles=None).to_dict()
    r = run("batch", "--seeds", "21:22", "--challenge", "score", "--rules", "standard",
            "-o", tmp_path / "c.csv", "-q", "--json")
    assert json.loads(r.stdout)["run"]["rules"] == PRESETS["standard"].to_dict()
    r = run("batch", "--seeds", "21:22", "-o", tmp_path / "d.csv", "-q", "--json")
    assert json.loads(r.stdout)["run"]["rules"] == PRESETS["standard"].to_dict()
    assert json.loads(r.stdout)["run"]["challenge"] is None


def test_text_progress_and_stats_of_a_challenge_file(tmp_path):
    out = tmp_path / "k.csv"
    r = run("batch", "--seeds", "20:23", "--challenge", "cards", "--rank", "K", "-o", out,
            "--progress")
    assert r.exit_code == 0, r.stderr
    assert "deal/s" in r.stderr
    assert r.stdout.startswith("Scored seeds 20..22 under 2 recycles, no overlap pairs, stock "
                               "top available, goal pyramid: the card challenge of rank K\n")
    assert "Most cards of the rank removed (of 4) over 3 decided deals" in r.stdout
    s = run("stats", out)
    assert s.exit_code == 0, s.stderr
    assert s.stdout == f"{out}:\n" + r.stdout.split("\n", 1)[1].rsplit("Time: ", 1)[0]
    p = run("stats", out, "--plot", tmp_path / "k.png")
    one_line_error(p, "--plot", "a challenge's file has none")


def test_a_deal_that_runs_out_of_memory_is_unknown(monkeypatch):
    import solver.batch.work as work

    real = work.ask_challenge
    target = format_deal(deal_from_seed(22))

    def short_of_memory(challenge, deal, rules, **kw):
        if format_deal(deal) == target:
            raise MemoryError
        return real(challenge, deal, rules, **kw)

    monkeypatch.setattr(work, "ask_challenge", short_of_memory)
    r = solve_chunk(ChunkTask(0, MSC, seeds=(21, 24), challenge=Challenge("score")))
    assert r.outcome.tolist() == [0, 2, 0]  # best, unknown, best
    assert r.reason.tolist() == [0, 3, 0]  # REASON_NAMES: "", states, timeout, memory
    assert r.challenge.value.tolist()[1] == -1 and r.challenge.clears.tolist()[1] == 2
    assert r.moves.tolist()[1] == -1 and r.states.tolist()[1] == 0
    assert r.challenge.value.tolist()[::2] == [score_challenge(deal_from_seed(s), "msc").score
                                               for s in (21, 23)]


# --------------------------------------------------------------------------- the summary

DEALS = [format_deal(deal_from_seed(s)) for s in range(12)]
SCORE_HEADER = "seed,deal,max_score,moves,clears_pyramid,states,ms,outcome,reason"
SCORE_ROWS = [  # max_score, moves, clears_pyramid, outcome, reason
    "1290,40,true,best,", "1230,57,true,best,", "1250,35,true,best,", "105,42,false,best,",
    "180,41,false,best,", "130,37,false,best,", "260,50,false,best,", "1290,47,true,best,",
    "85,30,false,best,", ",,,unknown,states"]
CARDS_HEADER = SCORE_HEADER.replace("max_score", "max_removed")
CARDS_ROWS = ["4,34,false,reached,", "4,40,true,reached,", "2,19,false,best,",
              "3,23,false,best,", "4,33,false,reached,", "0,0,false,best,", "2,4,false,best,",
              ",,,unknown,timeout"]


def hand_file(tmp_path, header=SCORE_HEADER, body=SCORE_ROWS, name="hand.csv"):
    p = tmp_path / name
    p.write_text("\n".join([header] + [f"{k},{DEALS[k]},{r.split(',', 3)[0]},"
                                       f"{','.join(r.split(',')[1:3])},100,0.5,"
                                       f"{','.join(r.split(',')[3:])}"
                                       for k, r in enumerate(body)]) + "\n")
    return p


def test_median_ranks_are_the_binomial_ones():
    """The ranks of the 95% order-statistic interval of a median: n < 6 has none; n = 6: x(1),
    x(6) (coverage 1 - 2/64); n = 9: x(2), x(8) (P(B <= 1) = 10/512 <= 0.025 < 46/512); n = 10:
    x(2), x(9); n = 100: x(40), x(61) (the tables' values)."""
    assert [median_ranks(n) for n in range(6)] == [None] * 6
    assert [median_ranks(n) for n in (6, 7, 8, 9, 10, 11, 100)] == [1, 1, 1, 2, 2, 2, 40]
    big = median_ranks(100_000)  # the normal approximation: n/2 - 0.98 sqrt(n)
    assert abs(big - (50_000 - 0.98 * math.sqrt(100_000))) < 2


def test_score_stats_equal_a_hand_computation(tmp_path):
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    p = hand_file(tmp_path)
    d = summarise_file(str(p))
    # the nine decided scores, sorted: 85 105 130 180 260 1230 1250 1290 1290
    assert d["deals"] == 10 and d["outcomes"] == {"reached": 0, "best": 9, "unknown": 1}
    assert d["unknown_reasons"] == {"states": 1}
    c = d["challenge"]
    assert c["challenge"] == "score" and c["decided"] == 9
    s = c["max_score"]
    assert s["most"] == 1290 and s["full"] == {"deals": 2, "share": wilson(2, 9)}
    assert s["mean"] == pytest.approx(5820 / 9)
    # the median x(5); its interval x(2) .. x(8) (n = 9: k = 2)
    assert s["median"] == {"median": 260, "lo": 105, "hi": 1290, "n": 9}
    # quartiles at (n - 1) q = 2 and 6: x(3) and x(7)
    assert s["quartiles"] == [130, 260, 1250] and s["min"] == 85 and s["max"] == 1290
    assert s["band"] == 100
    assert list(s["histogram"]) == [str(b) for b in range(0, 1300, 100)] + ["1290"]
    counts = {"0": 1, "100": 3, "200": 1, "1200": 2, "1290": 2}
    assert s["histogram"] == {b: {"deals": counts.get(b, 0), "share": wilson(counts.get(b, 0), 9)}
                              for b in s["histogram"]}
    # moves sorted: 30 35 37 40 41 42 47 50 57; p95 at 8 * 0.95 = 7.6: 50 + 0.6 * 7
    assert c["moves"] == {"n": 9, "mean": pytest.approx(379 / 9), "median": 41,
                          "p95": pytest.approx(54.2), "min": 30, "max": 57}
    assert c["moves"]["p95"] == pytest.approx(np.percentile([40, 57, 35, 42, 41, 37, 50, 47, 30],
                                                            95))
    assert c["clears_pyramid"] == wilson(4, 9)
    text = summary_text(d)
    assert ("Best score (of 1,290) over 9 decided deals: mean 646.67, median 260 [105, 1290] "
            "(95% interval from order statistics), quartiles 130 / 260 / 1250") in text
    assert f"Full 1,290 points: 2 deals, 0.2222 [{wilson(2, 9)['lo']:.4f}, " in text
    assert "        100       3  0.3333 [" in text and "\n   300-1199       0\n" in text
    assert "Moves of the best lines: median 41, p95 54.2, mean 42.11, min 30, max 57" in text
    assert "Win rate" not in text
    # the same rows as Parquet (nulls for the empty fields): the same summary
    table = pacsv.read_csv(p, convert_options=pacsv.ConvertOptions(
        column_types={"deal": pa.string(), "reason": pa.string(), "max_score": pa.int16(),
                      "moves": pa.int16()}, strings_can_be_null=True))
    pq.write_table(table, tmp_path / "hand.parquet")
    assert summarise_file(str(tmp_path / "hand.parquet")) == d


def test_cards_stats_equal_a_hand_computation(tmp_path):
    d = summarise_file(str(hand_file(tmp_path, CARDS_HEADER, CARDS_ROWS)))
    # the seven decided counts, sorted: 0 2 2 3 4 4 4
    assert d["outcomes"] == {"reached": 3, "best": 4, "unknown": 1}
    assert d["unknown_reasons"] == {"timeout": 1}
    m = d["challenge"]["max_removed"]
    assert m["most"] == 4 and m["full"] == {"deals": 3, "share": wilson(3, 7)}
    assert m["median"] == {"median": 3, "lo": 0, "hi": 4, "n": 7}  # n = 7: k = 1
    assert m["quartiles"] == [2, 3, 4] and m["band"] == 1
    assert m["histogram"] == {str(v): {"deals": n, "share": wilson(n, 7)}
                              for v, n in enumerate((1, 0, 2, 1, 3))}
    assert d["challenge"]["clears_pyramid"] == wilson(1, 7)
    assert d["challenge"]["moves"]["median"] == 23
    assert "All 4 removed: 3 deals, 0.4286 [" in summary_text(d)


def test_stats_json_shape(tmp_path):
    r = run("stats", hand_file(tmp_path), "--json")
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    assert list(d) == ["deals", "outcomes", "unknown_reasons", "challenge", "states", "ms",
                       "slowest"]
    c = d["challenge"]
    assert list(c) == ["challenge", "decided", "max_score", "moves", "clears_pyramid"]
    assert list(c["max_score"]) == ["most", "full", "mean", "median", "quartiles", "min", "max",
                                    "band", "histogram"]
    assert list(c["max_score"]["median"]) == ["median", "lo", "hi", "n"]
    assert list(c["max_score"]["histogram"]["1290"]["share"]) == ["p", "lo", "hi", "n"]
    assert list(c["moves"]) == ["n", "mean", "median", "p95", "min", "max"]
    assert d["slowest"][0]["outcome"] in ("best", "unknown")
    empty = run("stats", hand_file(tmp_path, body=[",,,unknown,memory"], name="u.csv"), "--json")
    c = json.loads(empty.stdout)["challenge"]
    assert c["decided"] == 0 and c["moves"] is None
    assert c["max_score"]["median"] == {"median": None, "lo": None, "hi": None, "n": 0}
    assert c["clears_pyramid"] == {"p": None, "lo": None, "hi": None, "n": 0}


def test_a_summary_merges_to_the_whole_whatever_the_cut(tmp_path):
    from solver.batch.challenge import block_challenge
    from solver.batch.summary import Summary

    _, blocks = read_results(str(hand_file(tmp_path)), block=3)
    whole = Summary("seed")
    for b in reversed(list(blocks)):
        s = Summary("seed")
        s.add(b["ids"], b["deal"].__getitem__, b["outcome"], b["moves"], b["states"], b["ms"],
              b["reason"], b["analysis"], block_challenge(b))
        whole.merge(Summary.from_state(s.state()))
    assert whole.to_dict() == summarise_file(str(tmp_path / "hand.csv"))


# --------------------------------------------------------------------------- checking rows

# (outcome of the row changed, column, value, the error's words or None for a row still good)
CHALLENGE_FIELDS = [
    ("best", "max_score", "", "max_score is empty for a deal best"),
    ("best", "max_score", "1295", "max_score 1295 is more than 1,290"),
    ("best", "max_score", "-5", "max_score -5 is negative"),
    ("best", "max_score", "x", "max_score 'x' is not an integer"),
    ("unknown", "max_score", "100", "max_score 100 given for an unknown deal"),
    ("best", "moves", "", "moves is empty for a deal best"),
    ("unknown", "moves", "3", "moves 3 given for an unknown deal"),
    ("best", "clears_pyramid", "", "clears_pyramid is empty for a deal best"),
    ("best", "clears_pyramid", "yes", "clears_pyramid 'yes' is not true, false or empty"),
    ("unknown", "clears_pyramid", "true", "clears_pyramid true given for an unknown deal"),
    ("best", "outcome", "won", "outcome 'won' is not one of best, reached, unknown"),
    ("best", "reason", "states", "reason 'states' given for a deal best"),
    ("unknown", "reason", "", "of an unknown deal is not one of states, timeout"),
    ("best", "max_score", "0105", None),
    ("best", "clears_pyramid", "false", None),
]


@pytest.mark.parametrize("outcome,column,value,error", CHALLENGE_FIELDS,
                         ids=[f"{o}-{c}-{v!r}" for o, c, v, _ in CHALLENGE_FIELDS])
def test_a_challenge_row_is_checked_alike_quick_and_row_by_row(tmp_path, outcome, column, value,
                                                              error):
    """Each value, put in the first row of its outcome, gives the same blocks or the same error
    (naming the line) through the quick check as through the csv module row by row."""
    lines = hand_file(tmp_path).read_text().splitlines(keepends=True)
    k = 1 + [line.split(",")[7] for line in lines[1:]].index(outcome)
    assert_checked_alike(tmp_path, lines, k, column, value, error, plain_blocks)


def plain_blocks(blocks) -> list[dict]:
    """Blocks as lists, comparable with ``==``."""
    return [{key: (v.tolist() if hasattr(v, "tolist") else v if v is None else list(v))
             for key, v in b.items()} for b in blocks]


def test_a_cards_file_counts_four_at_most_and_mixed_tables_are_refused(tmp_path):
    p = hand_file(tmp_path, CARDS_HEADER, ["5,34,false,reached,"] + CARDS_ROWS[1:])
    with pytest.raises(ValueError, match="hand.csv line 2: max_removed 5 is more than 4"):
        summarise_file(str(p))
    mixed = tmp_path / "m.csv"
    mixed.write_text(SCORE_HEADER + ",winnable\n")
    with pytest.raises(ValueError, match="not a batch results file .*max_score, moves, "
                                         "clears_pyramid"):
        read_results(str(mixed))
    both = tmp_path / "b.csv"
    both.write_text(SCORE_HEADER + ",max_removed\n")
    with pytest.raises(ValueError, match="not a batch results file"):
        read_results(str(both))


def test_a_timeout_leaves_a_deal_unknown():
    r = solve_chunk(ChunkTask(0, MSC, timeout=0.001, seeds=(7, 8), challenge=Challenge("score")))
    assert r.outcome.tolist() == [2] and r.reason.tolist() == [2]  # unknown, timeout
    assert r.challenge.value.tolist() == [-1] and r.moves.tolist() == [-1]


def test_a_dask_cluster_of_two_threads_gives_the_same_rows(tmp_path):
    """The cluster path (two threads of one Dask worker, each warmed up on its own) writes the
    local run's rows."""
    import distributed

    def plan(out):
        return plan_batch(SeedSource(0, 6), str(out), MSC, chunk=2, challenge=Challenge("score"))

    local, remote = tmp_path / "local.csv", tmp_path / "dask.csv"
    run_batch(plan(local), jobs=1, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", host="127.0.0.1", scheduler_port=0,
                                  dashboard_address=None) as cluster:  # loopback only
        d = run_batch(plan(remote), progress=False, scheduler=cluster.scheduler_address)
    assert d["run"]["executor"].startswith("Dask cluster")
    assert rows(remote) == rows(local)
