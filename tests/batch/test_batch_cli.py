"""pyramid batch / pyramid stats through click, a real kill -9 and resume, and a Dask cluster."""

import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.pyramid.model.deals import deal_from_seed, format_deal
from solver.pyramid.model.rules import Rules
from solver.pyramid.winnable.solve import solve_winnable
from tests.batch.helpers import one_line_error
from tests.faults import interruptible


def run(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


def rows(path, drop=("ms",)):
    with open(path, newline="") as f:
        return [{k: v for k, v in r.items() if k not in drop} for r in csv.DictReader(f)]


def test_batch_text_summary_and_csv(tmp_path):
    out = tmp_path / "r.csv"
    r = run("batch", "--seeds", "100:400", "-o", out, "-q", "-j", 1)
    assert r.exit_code == 0, r.stderr
    assert r.stderr == ""
    assert "Scored seeds 100..399 under unlimited recycles" in r.stdout
    assert "95% Wilson interval over 300 decided deals" in r.stdout
    assert "Slowest deals:" in r.stdout and f"Results: {out} (csv)" in r.stdout
    data = rows(out, drop=())
    assert list(data[0]) == ["seed", "deal", "winnable", "moves", "states", "ms", "outcome",
                             "reason"]
    assert [int(d["seed"]) for d in data] == list(range(100, 400))
    for d in data[:40]:
        single = solve_winnable(deal_from_seed(int(d["seed"])), Rules())
        assert d["outcome"] == ("won" if single.winnable else "lost")
        assert d["winnable"] == ("true" if single.winnable else "false")
        assert int(d["states"]) == single.states and d["moves"] == ""
        assert d["deal"] == format_deal(deal_from_seed(int(d["seed"])))
        assert float(d["ms"]) >= 0


def test_batch_json_agrees_with_its_file(tmp_path):
    out = tmp_path / "r.csv"
    r = run("batch", "--seeds", "0:500", "--rules", "msc", "--max-states", 5000, "-o", out,
            "-q", "--json")
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    data = rows(out)
    assert d["deals"] == 500 == len(data)
    for name in ("won", "lost", "unknown"):
        assert d["outcomes"][name] == sum(x["outcome"] == name for x in data)
    assert d["outcomes"]["unknown"] > 0  # the state cap was hit somewhere
    assert all(x["winnable"] == "" for x in data if x["outcome"] == "unknown")
    assert all(x["reason"] == ("states" if x["outcome"] == "unknown" else "") for x in data)
    assert d["unknown_reasons"] == {"states": d["outcomes"]["unknown"]}
    assert all(x.get("reason") == ("states" if x["outcome"] == "unknown" else None)
               for x in d["slowest"])
    assert d["run"]["rules"] == Rules(recycles=2, overlap=False, stock_top=True).to_dict()
    assert len(d["slowest"]) == 10
    assert d["slowest"][0]["ms"] >= d["slowest"][-1]["ms"]
    stats = run("stats", out, "--json")
    assert stats.exit_code == 0, stats.stderr
    s = json.loads(stats.stdout)
    for key in ("deals", "outcomes", "unknown_reasons", "win_rate", "states", "moves_histogram"):
        assert s[key] == d[key]


def test_same_rows_whatever_the_job_count(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    assert run("batch", "--seeds", "0:4000", "--chunk", 500, "-j", 1, "-o", a, "-q").exit_code == 0
    assert run("batch", "--seeds", "0:4000", "--chunk", 500, "-j", 2, "-o", b, "-q").exit_code == 0
    assert rows(a) == rows(b) and len(rows(a)) == 4000


def test_deal_file_and_stdin(tmp_path):
    p = tmp_path / "deals.txt"
    p.write_text("\n" + format_deal(deal_from_seed(3)) + "\n\n" + format_deal(deal_from_seed(4)) + "\n")
    out = tmp_path / "f.csv"
    r = run("batch", "--deal-file", p, "-o", out, "-q")
    assert r.exit_code == 0, r.stderr
    data = rows(out)
    assert [d["line"] for d in data] == ["2", "4"]
    assert [d["deal"] for d in data] == [format_deal(deal_from_seed(s)) for s in (3, 4)]
    out2 = tmp_path / "s.csv"
    r = run("batch", "--deal-file", "-", "-o", out2, "-q", input=p.read_text())
    assert r.exit_code == 0, r.stderr
    assert rows(out2) == data


def test_progress_bar_on_stderr_only(tmp_path):
    """``--progress`` draws the bar although stderr is not a terminal here; without it (and
    with ``-q``) none is drawn."""
    r = run("batch", "--seeds", "0:300", "-o", tmp_path / "r.csv", "--json", "--progress")
    assert r.exit_code == 0
    assert "deal/s" in r.stderr
    json.loads(r.stdout)
    for quiet in ([], ["-q"]):
        r = run("batch", "--seeds", "0:300", "-o", tmp_path / "r.csv", "--force", *quiet)
        assert r.exit_code == 0 and "deal/s" not in r.stderr, r.stderr


def test_bad_input_is_one_line(tmp_path):
    out = tmp_path / "r.csv"
    one_line_error(run("batch", "-o", out), "--seeds", "--deal-file")
    one_line_error(run("batch", "--seeds", "0:5", "--deal-file", "x", "-o", out), "exactly one")
    one_line_error(run("batch", "--seeds", "5:2", "-o", out), "bad --seeds")
    one_line_error(run("batch", "--seeds", "0:5", "--timeout", 1, "-o", out), "--optimal")
    one_line_error(run("batch", "--seeds", "0:5", "--recycles", "x", "-o", out), "--recycles")
    one_line_error(run("batch", "--deal-file", tmp_path / "missing.txt", "-o", out),
                   "cannot read")
    one_line_error(run("batch", "--seeds", "0:5", "-o", tmp_path / "no" / "r.csv"),
                   "does not exist")
    bad = tmp_path / "bad.txt"
    bad.write_text(format_deal(deal_from_seed(1)) + "\n\nAc Ac\n")
    one_line_error(run("batch", "--deal-file", bad, "-o", out, "-q"), "bad.txt line 3",
                   "duplicates")
    one_line_error(run("stats", tmp_path / "missing.csv"), "no such file")


def test_missing_optional_packages_are_named(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    one_line_error(run("batch", "--seeds", "0:5", "-o", tmp_path / "r.parquet"),
                   "pyramid-solitaire[parquet]")
    one_line_error(run("batch", "--seeds", "0:5", "--format", "parquet", "-o", tmp_path / "r"),
                   "pyramid-solitaire[parquet]")
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    csv_file = tmp_path / "r.csv"
    assert run("batch", "--seeds", "0:5", "-o", csv_file, "-q").exit_code == 0
    one_line_error(run("stats", csv_file, "--plot", tmp_path / "p.png"), "pyramid-solitaire[plot]")


def test_resume_with_other_options_is_refused(tmp_path):
    out = tmp_path / "r.csv"
    parts = tmp_path / "r.csv.parts"
    parts.mkdir()
    (parts / "manifest.json").write_text(json.dumps({"version": 1}))
    one_line_error(run("batch", "--seeds", "0:5", "-o", out), "unfinished run", "--resume")
    one_line_error(run("batch", "--seeds", "0:5", "-o", out, "--resume"), "cannot resume")


def test_stats_text_histogram_and_plot(tmp_path):
    p = tmp_path / "m.csv"
    deal = format_deal(deal_from_seed(0))
    lines = ["seed,deal,winnable,moves,states,ms,outcome"]
    moves = [40, 41, 41, 42, 42, 42, 45]
    for k, m in enumerate(moves):
        lines.append(f"{k},{deal},true,{m},{100 + k},{k / 10:.3f},won")
    lines += [f"7,{deal},false,,50,0.100,lost", f"8,{deal},,,999,9.000,unknown"]
    p.write_text("\n".join(lines) + "\n")
    png = tmp_path / "m.png"
    r = run("stats", p, "--plot", png)
    assert r.exit_code == 0, r.stderr
    assert "Deals: 9   won 7   lost 1   unknown 1" in r.stdout
    assert "Win rate: 0.8750" in r.stdout
    assert "median 42" in r.stdout
    assert "    42          3  ########################################" in r.stdout
    assert "seed 8" in r.stdout.split("Slowest deals:")[1].splitlines()[1]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs POSIX process groups")
def test_kill_9_then_resume_equals_an_uninterrupted_run(tmp_path):
    out = tmp_path / "out.csv"
    args = ["batch", "--seeds", "0:30000", "--chunk", "500", "-j", "2", "-q", "-o", str(out)]
    proc = subprocess.Popen([sys.executable, "-c", "from cli.main import main; main()", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    parts = tmp_path / "out.csv.parts"
    deadline = time.monotonic() + 300
    while len(list(parts.glob("part-*.json"))) < 4:
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)  # the run and its workers, mid-chunk
    proc.wait()
    proc.stderr.close()
    done = len(list(parts.glob("part-*.json")))
    assert 4 <= done < 60 and not out.exists()
    r = run(*args, "--resume", "--json")
    assert r.exit_code == 0, r.stderr
    run_info = json.loads(r.stdout)["run"]
    assert run_info["resumed_deals"] == 500 * done
    assert run_info["resumed_deals"] + run_info["scored_deals"] == 30000
    ref = tmp_path / "ref.csv"
    assert run("batch", "--seeds", "0:30000", "-j", 1, "-q", "-o", ref).exit_code == 0
    assert rows(out) == rows(ref)
    assert not parts.exists()


def test_ctrl_c_stops_cleanly_and_keeps_the_finished_chunks(tmp_path):
    out = tmp_path / "out.csv"
    args = ["batch", "--seeds", "0:30000", "--chunk", "500", "-j", "2", "-q", "-o", str(out)]
    proc = subprocess.Popen([sys.executable, "-c", "from cli.main import main; main()", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=interruptible)
    parts = tmp_path / "out.csv.parts"
    deadline = time.monotonic() + 300
    while len(list(parts.glob("part-*.json"))) < 2:
        assert proc.poll() is None
        assert time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    stdout, stderr = proc.communicate(timeout=60)
    assert time.monotonic() - sent < 5  # stops at once, not after the chunks in flight
    assert proc.returncode == 130, stderr.decode()
    err = stderr.decode().strip().splitlines()
    assert len(err) == 1 and "interrupted" in err[0] and "--resume" in err[0]
    assert "Traceback" not in stderr.decode()
    assert stdout == b""
    done = len(list(parts.glob("part-*.json")))
    assert f"{500 * done} of 30000 deals are done" in err[0]
    r = run(*args, "--resume")
    assert r.exit_code == 0, r.stderr
    assert len(rows(out)) == 30000


def test_dask_cluster_gives_the_same_rows(tmp_path):
    import distributed

    local = tmp_path / "local.csv"
    assert run("batch", "--seeds", "0:3000", "--chunk", 400, "-j", 1, "-q", "-o", local).exit_code == 0
    remote = tmp_path / "dask.csv"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  protocol="tcp", host="127.0.0.1", scheduler_port=0,
                                  dashboard_address=None) as cluster:  # loopback only
        r = run("batch", "--seeds", "0:3000", "--chunk", 400, "--scheduler",
                cluster.scheduler_address, "-q", "-o", remote, "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["run"]["executor"].startswith("Dask cluster tcp://127.0.0.1")
    assert rows(remote) == rows(local)


def test_unreachable_scheduler_is_one_line(tmp_path):
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        r = run("batch", "--seeds", "0:10", "--scheduler", "tcp://127.0.0.1:1", "-q",
                "-o", tmp_path / "r.csv")
    one_line_error(r, "Dask scheduler")


def test_optimal_rows_are_minimum_moves(tmp_path):
    from solver.pyramid.optimal import api as optimal
    out = tmp_path / "o.csv"
    r = run("batch", "--seeds", "0:6", "--optimal", "-j", 1, "-q", "-o", out)
    assert r.exit_code == 0, r.stderr
    assert "Minimum moves over" in r.stdout
    for d in rows(out):
        single = optimal.solve_optimal(deal_from_seed(int(d["seed"])), Rules())
        assert d["outcome"] == ("won" if single.winnable else "lost")
        assert d["moves"] == ("" if single.moves is None else str(single.moves))


@pytest.mark.parametrize("name", ["r.csv", "r.parquet"])
def test_batch_json_and_stats_json_print_the_same_figures(tmp_path, name):
    """The same results give the same summary, to the last bit: times are summed as integer
    nanoseconds and nothing is rounded (docs/json.md)."""
    out = tmp_path / name
    r = run("batch", "--seeds", "0:40", "--optimal", "--max-states", 30000, "--chunk", 7, "-j", 1,
            "-o", out, "-q", "--json")
    assert r.exit_code == 0, r.stderr
    made = json.loads(r.stdout)
    assert made["outcomes"]["unknown"] and made["moves"]["n"]  # every kind of figure is there
    s = run("stats", out, "--json")
    assert s.exit_code == 0, s.stderr
    read = json.loads(s.stdout)
    assert set(made) == set(read) | {"run"}
    for key in read:
        assert read[key] == made[key], key
    assert any(round(x["ms"], 3) != x["ms"] for x in read["slowest"])  # not rounded


def png_width(path) -> int:
    """The width in pixels of a PNG image (from its IHDR chunk)."""
    return int.from_bytes(path.read_bytes()[16:20], "big")


def test_the_plot_draws_only_the_panels_the_file_can_fill(tmp_path):
    """A file made without --optimal has no minimum moves: its figure is the win rate alone,
    not a half-empty figure with a placeholder for the histogram; with minimum moves the
    histogram comes first."""
    from solver.batch.plot import INCHES_PER_WIDTH, PANEL_WIDTHS, plot_panels
    from solver.batch.run import summarise_file

    deal = format_deal(deal_from_seed(0))
    plain = tmp_path / "plain.csv"
    plain.write_text("seed,deal,winnable,moves,states,ms,outcome\n"
                     f"0,{deal},true,,10,0.1,won\n1,{deal},false,,5,0.1,lost\n")
    optimal = tmp_path / "optimal.csv"
    optimal.write_text("seed,deal,winnable,moves,states,ms,outcome\n"
                       f"0,{deal},true,41,10,0.1,won\n1,{deal},false,,5,0.1,lost\n")
    assert plot_panels(summarise_file(str(plain))) == ["win_rate"]
    assert plot_panels(summarise_file(str(optimal))) == ["moves", "win_rate"]
    for source, panels in ((plain, ["win_rate"]), (optimal, ["moves", "win_rate"])):
        png = tmp_path / f"{source.stem}.png"
        r = run("stats", source, "--plot", png)
        assert r.exit_code == 0, r.stderr
        inches = INCHES_PER_WIDTH * sum(PANEL_WIDTHS[p] for p in panels) + 0.5
        assert png_width(png) == round(inches * 100)  # savefig's dpi
