"""Faults and bad input for the Pyramid commands (show, solve, hint, check): every case gets a
clean answer, never a traceback.

The table runs the real command in a subprocess (``tests/faults.py``): bad input exits 2 with one
short stderr line naming the file, line or option; running out of memory ends the deal as
"unknown" (exit 3). Inputs too long for a command line (over 128 KiB) go through click's runner in
the process instead. The in-process tests at the end make the searches' allocations fail on
purpose.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.core import memory
from solver.pyramid.winnable import solve as search
from solver.pyramid.optimal import api as optimal
from solver.pyramid.model.deals import deal_from_seed, format_deal
from solver.pyramid.optimal.api import solve_optimal
from solver.pyramid.model.rules import Rules
from solver.pyramid.winnable.solve import Workspace, solve_winnable
from solver.pyramid.model.outcome import Outcome, SolveResult
from tests.faults import (LOADER_LIMITS_KB, PYRAMID, address_space_kb, assert_clean_failure,
                          error_lines, run_pyramid, tree)

DEAL1 = format_deal(deal_from_seed(1))
DEAL2 = format_deal(deal_from_seed(2))
BIG = 100_000
"""Characters of an oversized argument (a command-line argument may hold at most 128 KiB)."""
HUGE = 10_000_000
"""Characters of an oversized input given in the process (no command line would hold it)."""
MAX_ECHO = 80
"""An error quotes at most this many characters of a bad input (it is cut with "…")."""
MEMORY_SEED = 1834
MEMORY_RULES = ["--recycles", "30"]
"""A deal and rules whose minimum-move search stores millions of positions (7 million expanded,
320 MB of arrays when it can): with a recycle limit the search has none of the proofs that make
the deal's search under the default rules short (0.55 million, 40 MB)."""
SEARCH_HEADROOM_MIB = 150
"""Address space left for the search above what a started, kernels-loaded process uses."""


def write(tmp_path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def assert_short_echo(line: str) -> None:
    """``line`` holds no run of one repeated character longer than ``MAX_ECHO`` (the oversized
    inputs of the table are runs of one character)."""
    assert not re.search(r"(.)\1{%d}" % MAX_ECHO, line), line[:500]


# --------------------------------------------------------------------------- the table

DEAL_FILES = {
    "b.bin": bytes(range(256)) * 4,
    "u16.txt": DEAL1.encode("utf-16"),
    "l1.txt": f"{DEAL1}\n{DEAL2} é\n".encode("latin-1"),
    "bad.txt": f"{DEAL1}\n\nAc Zz\n".encode(),
    "huge.txt": b"x" * HUGE + b"\n",
    "two.txt": f"{DEAL1}\n{DEAL2}\n".encode(),
    "many.txt": f"{DEAL1}\n\n{DEAL2}\nZz\n".encode() + b"\0" * HUGE,
}
"""Deal files the table refers to as ``{dir}/NAME`` (written to the test's own folder)."""

DEAL_FILE_CASES = {
    "binary file": (["solve", "--deal-file", "{dir}/b.bin"], ("b.bin", "NUL")),
    "utf-16 file": (["solve", "--deal-file", "{dir}/u16.txt"], ("u16.txt", "UTF-16")),
    "latin-1 file": (["hint", "--deal-file", "{dir}/l1.txt"], ("l1.txt line 2", "UTF-8")),
    "directory": (["solve", "--deal-file", "{dir}"], "is a directory"),
    "/dev/null": (["check", "--deal-file", "/dev/null", "--solution", "draw"], "holds no deal"),
    "missing file": (["solve", "--deal-file", "{dir}/nope.txt"], ("nope.txt", "no such file")),
    "bad line": (["solve", "--deal-file", "{dir}/bad.txt"], ("bad.txt line 3", "'Zz'")),
    "huge token in file": (["solve", "--deal-file", "{dir}/huge.txt"], ("huge.txt line 1",
                                                                        "too long")),
    "file + --after": (["solve", "--deal-file", "{dir}/two.txt", "--after", "draw"],
                       "single deal"),
    "hint of 2 deals": (["hint", "--deal-file", "{dir}/two.txt"], "one deal"),
    "check of 2 deals": (["check", "--deal-file", "{dir}/two.txt", "--solution", "draw"],
                         "one deal"),
}
MANY = ("many.txt holds more than one", "lines 1 and 3")
"""What a single-deal command says of many.txt: read up to its second deal, never to its bad
line 4 and the 10 MB of NUL bytes after it."""
DEAL_FILE_CASES.update({
    "hint stops at the 2nd deal": (["hint", "--deal-file", "{dir}/many.txt"], MANY),
    "check stops at the 2nd deal": (["check", "--deal-file", "{dir}/many.txt", "--solution",
                                     "draw"], MANY),
    "analyse stops at the 2nd deal": (["analyse", "--deal-file", "{dir}/many.txt"], MANY),
    "solve --after stops at the 2nd deal": (["solve", "--deal-file", "{dir}/many.txt", "--after",
                                             "draw"], ("--after", *MANY)),
    "solve --html stops at the 2nd deal": (["solve", "--deal-file", "{dir}/many.txt", "--html",
                                            "{dir}/p.html"], ("--html", *MANY)),
})


OPTION_CASES = {
    "max-states 2**63": (["solve", "--seed", "1", "--max-states", str(2**63)], "--max-states"),
    "max-states 2**64": (["solve", "--seed", "1", "--max-states", str(2**64)], "--max-states"),
    "timeout nan": (["solve", "--seed", "1", "--timeout", "nan"], ("--timeout", "nan")),
    "timeout inf": (["hint", "--seed", "1", "--timeout", "inf"], ("--timeout", "inf")),
    "timeout -1": (["solve", "--seed", "1", "--timeout", "-1"], "--timeout"),
    "timeout 0": (["solve", "--seed", "1", "--timeout", "0"], "--timeout"),
    "seed 2**63": (["solve", "--seed", str(2**63)], "--seed"),
    "seed 2**64": (["hint", "--seed", str(2**64)], "--seed"),
    "seed -1": (["check", "--seed", "-1", "--solution", "draw"], "--seed"),
    "seed abc": (["solve", "--seed", "abc"], ("--seed", "'abc'")),
    "seed of 100k digits": (["solve", "--seed", "9" * BIG], ("--seed", "…")),
    "after garbage": (["solve", "--seed", "1", "--after", "draw fly"], ("--after", "'fly'")),
    "after 100k chars": (["hint", "--seed", "1", "--after", "q" * BIG], ("--after", "…")),
    "after illegal": (["solve", "--seed", "1", "--after", "Kd"], ("--after", "step 1")),
    "solution 100k chars": (["check", "--seed", "1", "--solution", "z+" * (BIG // 2)],
                            ("--solution", "…")),
    "deal 100k chars": (["solve", "--deal", "Q" * BIG], ("--deal", "…")),
    "recycles none": (["solve", "--seed", "1", "--recycles", "none"], ("--recycles", "'none'")),
    "rules 100k chars": (["solve", "--seed", "1", "--rules", "m" * BIG], ("--rules", "…")),
    "goal 100k chars": (["solve", "--seed", "1", "--goal", "a" * BIG], ("--goal", "…")),
    "no deal": (["solve"], "exactly one of"),
    "show with no deal": (["show"], "--seed"),
    "show with both": (["show", "--seed", "2", "--deal", "Ac"], "not both"),
}


STDOUT_CLOSED_CASES = {
    "solve": ["solve", "--seed", "32"],
    "check": ["check", "--seed", "1", "--solution", "draw"],
    "hint": ["hint", "--seed", "1"],
    "show": ["show", "--seed", "1"],
    "analyse": ["analyse", "--seed", "1"],
    "stats": ["stats", "{dir}/r.csv"],
    "batch --json": ["batch", "--seeds", "0:3", "--json", "-q", "-o", "{dir}/out.csv"],
    "simulate old-maid": ["simulate", "old-maid", "--games", "10"],
}
"""Commands run with stdout closed (``>&-``): each refuses with one line, exit 74."""


def close_stdout() -> None:
    """``preexec_fn`` of a child started as ``pyramid ... >&-``."""
    os.close(1)


@pytest.mark.parametrize("case", sorted(STDOUT_CLOSED_CASES))
def test_closed_stdout_is_one_clean_line(case, tmp_path):
    write(tmp_path, "r.csv", f"seed,deal,winnable,moves,states,ms,outcome\n0,{DEAL1},true,,17,"
                             f"0.012,won\n".encode())
    before = tree(tmp_path)
    args = [a.format(dir=tmp_path) for a in STDOUT_CLOSED_CASES[case]]
    proc = run_pyramid(args, cwd=tmp_path, preexec_fn=close_stdout)
    assert_clean_failure(proc, 74, "stdout is closed")
    assert tree(tmp_path) == before


STDIN_CLOSED_CASES = {
    "solve": ["solve", "--deal-file", "-"],
    "solve --after": ["solve", "--deal-file", "-", "--after", "draw"],
    "hint": ["hint", "--deal-file", "-"],
    "check": ["check", "--deal-file", "-", "--solution", "draw"],
    "analyse": ["analyse", "--deal-file", "-"],
    "batch": ["batch", "--deal-file", "-", "-q", "-o", "r.csv"],
}
"""Commands reading their deals from stdin, run with stdin closed (``<&-``): exit 2."""


def close_stdin() -> None:
    """``preexec_fn`` of a child started as ``pyramid ... <&-``."""
    os.close(0)


@pytest.mark.parametrize("case", sorted(STDIN_CLOSED_CASES))
def test_closed_stdin_is_one_clean_line(case, tmp_path):
    proc = run_pyramid(STDIN_CLOSED_CASES[case], cwd=tmp_path, preexec_fn=close_stdin)
    assert_clean_failure(proc, 2, "stdin is closed")
    assert tree(tmp_path) == set() and proc.stdout == ""


HTML_CASES = {
    "solve, write-protected": (["solve", "--seed", "1", "--html", "p.html"], "write-protected"),
    "check, write-protected": (["check", "--seed", "1", "--solution", "draw", "--html", "p.html"],
                               "write-protected"),
    "hint, write-protected": (["hint", "--seed", "1", "--html", "p.html"], "write-protected"),
    "analyse, write-protected": (["analyse", "--seed", "1", "--html", "p.html"],
                                 "write-protected"),
    "solve, -": (["solve", "--seed", "1", "--html", "-"], "needs a file name"),
    "check, -": (["check", "--seed", "1", "--solution", "draw", "--html", "-"],
                 "needs a file name"),
    "hint, -": (["hint", "--seed", "1", "--html", "-"], "needs a file name"),
}
"""``--html`` pages that must not be written: a write-protected page (mode 0444; root may write
it, but a user who protected it does not want it replaced) and ``-`` (a file named ``-``)."""


@pytest.mark.parametrize("case", sorted(HTML_CASES))
def test_an_html_page_that_must_not_be_written_is_refused(case, tmp_path):
    args, mentions = HTML_CASES[case]
    page = tmp_path / "p.html"
    page.write_text("an older page")
    page.chmod(0o444)
    before = tree(tmp_path)
    assert_clean_failure(run_pyramid(args, cwd=tmp_path), 2, ("--html", mentions))
    assert tree(tmp_path) == before and page.read_text() == "an older page"
    assert page.stat().st_mode & 0o777 == 0o444


@pytest.mark.parametrize("case", sorted(OPTION_CASES))
def test_bad_option_is_one_clean_line(case):
    args, mentions = OPTION_CASES[case]
    assert_short_echo(assert_clean_failure(run_pyramid(args), 2, mentions))


@pytest.mark.parametrize("case", sorted(DEAL_FILE_CASES))
def test_bad_deal_file_is_one_clean_line(case, tmp_path):
    args, mentions = DEAL_FILE_CASES[case]
    args = [a.format(dir=tmp_path) for a in args]
    for name, data in DEAL_FILES.items():
        if any(a.endswith("/" + name) for a in args):
            write(tmp_path, name, data)
    assert_short_echo(assert_clean_failure(run_pyramid(args), 2, mentions))


@pytest.mark.parametrize("stream", [True, False], ids=["stdin", "regular file"])
def test_a_bad_later_line_streamed_or_not(stream, tmp_path):
    """A stream is answered as it arrives: the good line 1 is answered, then bad line 3 ends the
    run (one line naming it, exit 2). A regular file is checked whole first: nothing is solved."""
    data = f"{DEAL1}\n\nAc Zz\n"
    path = "-" if stream else write(tmp_path, "bad.txt", data.encode())
    proc = run_pyramid(["solve", "--any", "--json", "--deal-file", path],
                       input=data if stream else None)
    name = "stdin" if stream else "bad.txt"
    assert_short_echo(assert_clean_failure(proc, 2, (f"{name} line 3", "'Zz'")))
    answered = [json.loads(line)["line"] for line in proc.stdout.splitlines()]
    assert answered == ([1] if stream else [])


def test_an_empty_stream_holds_no_deal():
    assert_clean_failure(run_pyramid(["solve", "--deal-file", "-"], input=" \n\n"), 2,
                         ("stdin", "holds no deal"))


def test_unreadable_deal_file_says_permission_denied(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads any file")
    path = write(tmp_path, "secret.txt", DEAL1.encode())
    os.chmod(path, 0)
    assert_clean_failure(run_pyramid(["solve", "--deal-file", path]), 2, "permission denied")


def test_socket_as_deal_file_says_why_it_cannot_be_read(tmp_path):
    """Any other operating-system error (here: opening a UNIX socket) is named, not raised."""
    import socket

    path = str(tmp_path / "deals.sock")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(path)
        assert_clean_failure(run_pyramid(["solve", "--deal-file", path]), 2,
                             ("deals.sock", "cannot read"))


@pytest.mark.parametrize("args, mentions", [
    (["solve", "--deal", "Q" * HUGE], "--deal"),
    (["solve", "--seed", "1", "--after", "w" * HUGE], "--after"),
    (["check", "--seed", "1", "--solution", "x" * HUGE], "--solution"),
    (["check", "--deal", f"{DEAL1} " + "9" * HUGE, "--solution", "draw"], "--deal"),
], ids=["deal", "after", "solution", "deal with a huge 53rd token"])
def test_ten_megabyte_arguments_are_not_echoed(args, mentions):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.exception
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and mentions in lines[0], lines[0][:500]
    assert_short_echo(lines[0])


# --------------------------------------------------------------------------- inputs that work

@pytest.mark.parametrize("data", [
    ("\ufeff" + DEAL1 + "\n").encode(),
    (DEAL1 + "\r\n").encode(),
], ids=["utf-8 BOM", "CRLF"])
def test_bom_and_crlf_deal_files_are_read(data, tmp_path):
    proc = run_pyramid(["check", "--deal-file", write(tmp_path, "d.txt", data), "--solution",
                        "draw", "--json"])
    assert proc.returncode == 1 and error_lines(proc.stderr) == [], proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["deal"] == DEAL1 and doc["line"] == 1 and doc["outcome"] == "incomplete"


def test_fifo_and_process_substitution_are_read(tmp_path):
    fifo = tmp_path / "deals.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "w") as f:  # noqa: PTH123 (blocks until the command opens it)
            f.write(DEAL1 + "\n")

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    proc = run_pyramid(["check", "--deal-file", fifo, "--solution", "draw", "--json"])
    writer.join(timeout=10)
    assert proc.returncode == 1 and json.loads(proc.stdout)["deal"] == DEAL1, proc.stderr
    plain = write(tmp_path, "d.txt", (DEAL1 + "\n").encode())
    cmd = " ".join(PYRAMID) + f" check --deal-file <(cat {plain}) --solution draw --json"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and json.loads(proc.stdout)["deal"] == DEAL1, proc.stderr


@pytest.mark.parametrize("args", [
    ["solve", "--seed", "1", "--goal", "All", "--any"],
    ["solve", "--seed", "1", "--rules", "MSC"],
], ids=["--goal All", "--rules MSC"])
def test_choices_ignore_case(args):
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code in (0, 1), result.stderr
    doc = json.loads(result.stdout)
    assert doc["rules"]["goal"] == ("all" if "All" in args else "pyramid")


def test_closed_pipe_ends_quietly(tmp_path):
    """``pyramid solve --deal-file ... | head -3``: no traceback, no verdict on stderr."""
    deals = write(tmp_path, "d.txt", "\n".join([DEAL1, DEAL2] * 20).encode())
    proc = subprocess.Popen([*PYRAMID, "solve", "--deal-file", deals], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    head = [proc.stdout.readline() for _ in range(3)]
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=300)
    assert head[0].startswith(b"Line 1 ")
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert error_lines(err) == [], err


# --------------------------------------------------------------------------- memory

def loaded_vmsize() -> int:
    """Address space (bytes) of a process that has loaded the commands and the kernels."""
    code = ("import cli.main; from solver.pyramid.optimal.api import load_kernels; load_kernels(); "
            "from solver.core import memory; print(memory.address_space_used())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=300)
    return int(out.stdout)


@pytest.mark.parametrize("limit_kb", LOADER_LIMITS_KB)
@pytest.mark.parametrize("args", [
    ["solve", "--seed", 1], ["hint", "--seed", 1], ["check", "--seed", 1, "--solution", "draw"],
    ["analyse", "--seed", 1], ["simulate", "old-maid", "-q"],
], ids=["solve", "hint", "check", "analyse", "simulate"])
def test_too_little_memory_to_load_is_one_line_about_memory(tmp_path, args, limit_kb):
    proc = run_pyramid(args, cwd=tmp_path, preexec_fn=address_space_kb(limit_kb))
    assert_clean_failure(proc, 3, "out of memory")
    assert tree(tmp_path) == set()


@pytest.mark.parametrize("command", ["solve", "hint"])
def test_out_of_memory_is_an_unknown_outcome(command):
    limit = loaded_vmsize() + SEARCH_HEADROOM_MIB * 2**20

    def small_address_space() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    proc = run_pyramid([command, "--seed", MEMORY_SEED, *MEMORY_RULES, "--json"],
                       preexec_fn=small_address_space)
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and error_lines(proc.stderr) == [], proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    assert doc["outcome"] == "unknown" and doc["reason"] == "memory" and doc["seed"] == MEMORY_SEED
    text = run_pyramid([command, "--seed", MEMORY_SEED, *MEMORY_RULES],
                       preexec_fn=small_address_space)
    assert text.returncode == 3 and "Unknown (out of memory)" in text.stdout, text.stderr[-2000:]


def test_failed_growth_of_the_astar_arrays_is_unknown_memory(monkeypatch):
    real_empty = np.empty

    def empty(n, *args, **kwargs):
        if np.prod(n) > 1 << 16:
            raise MemoryError("no memory (test)")
        return real_empty(n, *args, **kwargs)

    ws = optimal.OptimalWorkspace.create()
    monkeypatch.setattr(optimal.np, "empty", empty)
    result = solve_optimal(deal_from_seed(10), Rules(), workspace=ws)
    assert result.outcome == Outcome.UNKNOWN and result.reason == "memory"
    assert 14 <= result.lower_bound <= 63
    assert len(ws.keys) == len(ws.parent) == len(ws.gs)  # grown together or not at all
    assert len(ws.e_node) == len(ws.e_next)
    monkeypatch.setattr(optimal.np, "empty", real_empty)
    again = solve_optimal(deal_from_seed(1), Rules(), workspace=ws)
    assert again.outcome == Outcome.WON and again.moves == 55  # the workspace is still sound


def test_memory_budget_caps_the_astar_search(monkeypatch):
    monkeypatch.setattr(memory, "budget_bytes", lambda max_age=0.0: 4 << 20)
    result = solve_optimal(deal_from_seed(10), Rules())
    assert result.outcome == Outcome.UNKNOWN and result.reason == "memory"
    assert optimal.default_max_positions() == (4 << 20) // optimal.PEAK_BYTES_PER_POSITION


def test_failed_allocation_in_the_winnability_kernel_is_unknown_memory(monkeypatch):
    ws = Workspace.create(Rules())
    real = search.decide_free_flat

    def decide(deal, start, *args):
        table = args[6]
        table[:5] = np.arange(1, 6, dtype=np.uint64)  # the kernel had stored positions
        raise MemoryError("Allocation failed (test)")

    monkeypatch.setattr(search, "decide_free_flat", decide)
    result = solve_winnable(deal_from_seed(1), Rules(), workspace=ws)
    assert result.outcome == Outcome.UNKNOWN and result.reason == "memory"
    assert not ws.table.any()  # cleaned for the next search
    monkeypatch.setattr(search, "decide_free_flat", real)
    assert solve_winnable(deal_from_seed(1), Rules(), workspace=ws).outcome == Outcome.WON


def test_table_cap_follows_the_budget(monkeypatch):
    monkeypatch.setattr(memory, "budget_bytes", lambda max_age=0.0: 100 << 20)
    cap = search.table_cap(1 << 26)
    assert cap == 1 << 22 and 2 * search.TABLE_SLOT_BYTES * cap <= 100 << 20
    monkeypatch.setattr(memory, "budget_bytes", lambda max_age=0.0: memory.UNLIMITED)
    assert search.table_cap(1 << 26) == 1 << 26


@pytest.mark.parametrize("kwargs", [
    {"outcome": Outcome.UNKNOWN},
    {"outcome": Outcome.WON, "reason": "states"},
    {"outcome": Outcome.UNKNOWN, "reason": "tired"},
])
def test_reason_goes_with_unknown_only(kwargs):
    with pytest.raises(ValueError, match="reason"):
        SolveResult(**kwargs)


# --------------------------------------------------------------------------- compile time

def test_compile_time_is_not_search_time(tmp_path):
    """With a cold numba cache the first run says once that it compiles, and reports the search's
    own milliseconds; the second run is silent. The minimum-move path loads every kernel a search
    calls (its winnability search included), so no compilation can fall inside the clock."""
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    t0 = time.perf_counter()
    cold = run_pyramid(["solve", "--seed", "1"], env=env)
    wall_ms = (time.perf_counter() - t0) * 1000
    assert cold.returncode == 0, cold.stderr[-2000:]
    notices = [x for x in cold.stderr.splitlines() if x.startswith("Compiling ")]
    assert len(notices) == 1 and error_lines(cold.stderr) == [], cold.stderr
    ms = float(re.search(r"in ([0-9.]+) ms\.", cold.stdout).group(1))
    assert ms < wall_ms / 10, (ms, wall_ms)
    warm = run_pyramid(["solve", "--seed", "1"], env=env)
    assert warm.returncode == 0 and warm.stderr == "", warm.stderr
    # A kernel compiled inside the clock adds hundreds of milliseconds to the cold figure; the
    # search itself takes the same few milliseconds both times (generous bounds for a busy box).
    warm_ms = float(re.search(r"in ([0-9.]+) ms\.", warm.stdout).group(1))
    assert ms < 5 * warm_ms + 150, (ms, warm_ms)
