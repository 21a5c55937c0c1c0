"""The command-line frame (cli/main.py) and what every game command shares: help and exit codes,
names and suggestions, Ctrl-C, a closed or full stdout, unexpected errors, start-up cost, shell
completion, the common JSON keys and ``n/a`` for empty rates.

Subprocess tests run the real ``pyramid`` (``tests/faults.py``); the rest use click's runner.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from cli.main import EXIT_BROKEN_PIPE, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_IO, cli
from solver.games import ALIASES as GAME_ALIASES
from solver.games import GAMES as GAME_MODULES
from tests.faults import PYRAMID, assert_clean_failure, error_lines, interruptible, run_pyramid

STOP_SECONDS = 5
"""Ctrl-C must end a run within this long (it takes well under a second)."""
INTERRUPTED = "Interrupted."


def invoke(*args, env=None):
    return CliRunner().invoke(cli, [str(a) for a in args], env=env)


@pytest.mark.parametrize("args", [[], ["simulate"], ["analyse"]], ids=["pyramid", "simulate",
                                                                      "analyse"])
def test_a_bare_group_prints_its_help_and_exits_0(args):
    proc = run_pyramid(args, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Usage: pyramid") and "Commands:" in proc.stdout
    assert proc.stderr == ""


def test_an_unknown_command_suggests_the_closest():
    line = assert_clean_failure(run_pyramid(["solv"], timeout=60), 2, "Did you mean 'solve'?")
    assert line.startswith("Error: No such command 'solv'.")


@pytest.mark.parametrize("spelled", ["Hearts", "OLD-MAID", "OldMaid"])
def test_a_game_name_in_another_case_is_the_game(spelled):
    res = invoke("simulate", spelled, "--games", "3", "-q", "-j", "1", "--json")
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["game"] == spelled.lower().replace("oldmaid", "old-maid")


def test_help_lists_each_game_once_by_its_canonical_name():
    out = invoke("simulate", "--help").stdout
    for game in GAME_MODULES:
        assert f"  {game} " in out
    for alias in GAME_ALIASES:
        assert f"  {alias} " not in out


# --- Ctrl-C -----------------------------------------------------------------------------------

def interrupt_after_start(args: list[str]) -> tuple[subprocess.Popen, float, str]:
    """Start ``pyramid ARGS``, wait for its progress bar (forced by ``--progress`` in ARGS: stderr
    is a pipe), send SIGINT; (process, seconds it took to end after the signal, all of
    stderr)."""
    proc = subprocess.Popen([*PYRAMID, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=interruptible)
    first = proc.stderr.read(1)  # the progress bar's first draw: the run has started
    assert first, proc.communicate()
    time.sleep(0.5)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, rest = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return proc, time.monotonic() - sent, (first + rest).decode("utf-8", "replace")


@pytest.mark.parametrize("game,jobs", [("hearts", "2"), ("hearts", "1"), ("old-maid", "2")])
def test_ctrl_c_stops_a_simulation_at_once(game, jobs):
    warm = run_pyramid(["simulate", game, "--games", "3", "-q", "-j", "1"])  # compile first
    assert warm.returncode == 0, warm.stderr
    proc, seconds, stderr = interrupt_after_start(
        ["simulate", game, "--games", "100000000", "-j", jobs, "--progress"])
    assert proc.returncode == EXIT_INTERRUPTED, stderr[-2000:]
    assert seconds < STOP_SECONDS
    assert "Traceback" not in stderr and "Exception ignored" not in stderr
    said = [line for line in error_lines(stderr) if not line.startswith(f"{game}:")]
    assert said == [INTERRUPTED]


# --- stdout closed or full, unexpected errors ---------------------------------------------------

@pytest.mark.parametrize("args", [
    ["show", "old-maid", "--seed", "1"],
    ["simulate", "one-card", "--games", "5", "-q", "-j", "1", "--json"],
    ["show", "--seed", "1"],
], ids=["show-old-maid", "simulate-json", "show-pyramid"])
def test_a_closed_stdout_pipe_ends_quietly(args):
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line (pyramid ... | head -0)
    try:
        proc = subprocess.run([*PYRAMID, *args], stdout=write_end, stderr=subprocess.PIPE,
                              timeout=300)
    finally:
        os.close(write_end)
    stderr = proc.stderr.decode()
    assert proc.returncode == EXIT_BROKEN_PIPE, stderr
    assert error_lines(stderr) == []


def test_a_full_disk_on_stdout_is_one_line():
    with open("/dev/full", "w") as full:
        proc = subprocess.run([*PYRAMID, "show", "hearts"], stdout=full, stderr=subprocess.PIPE,
                              timeout=300)
    proc.stderr = proc.stderr.decode()
    assert_clean_failure(proc, EXIT_IO, "No space left")


def test_an_unexpected_error_is_one_line_and_debug_shows_the_trace(monkeypatch):
    from solver.games.oldmaid import sim as oldmaid_sim
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(oldmaid_sim, "simulate", broken)
    r = invoke("simulate", "old-maid", "--games", 3, "-q")
    assert r.exit_code == EXIT_INTERNAL
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "RuntimeError: boom" in lines[0] and "PYRAMID_DEBUG" in lines[0]
    debug = invoke("simulate", "old-maid", "--games", 3, "-q", env={"PYRAMID_DEBUG": "1"})
    assert isinstance(debug.exception, RuntimeError)


def test_an_input_output_error_is_one_line_with_its_own_code(monkeypatch):
    from solver.games.oldmaid import sim as oldmaid_sim
    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device", "results.csv")

    monkeypatch.setattr(oldmaid_sim, "simulate", disk_full)
    r = invoke("simulate", "old-maid", "--games", 3, "-q")
    assert r.exit_code == EXIT_IO
    assert r.stderr == "Error: input/output failed (results.csv): No space left on device\n"


# --- start-up and completion --------------------------------------------------------------------

LOAD_EVERY_COMMAND = """
import sys, click
from cli.main import cli

def load(group, ctx):
    for name in group.list_commands(ctx):
        cmd = group.get_command(ctx, name)
        assert cmd is not None, name
        if isinstance(cmd, click.Group):
            load(cmd, click.Context(cmd, parent=ctx, info_name=name))

load(cli, click.Context(cli, info_name="pyramid"))
print(sorted(m for m in ("numba", "llvmlite", "pandas", "pyarrow", "matplotlib")
             if m in sys.modules))
"""


def test_loading_every_command_imports_no_numba():
    """What ``pyramid --help`` and every completion request pay: no numba, no pandas."""
    proc = subprocess.run([sys.executable, "-c", LOAD_EVERY_COMMAND], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def complete(words: str) -> list[str]:
    """The values bash completion offers after ``words`` (click's bash_complete protocol)."""
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    proc = run_pyramid([], env={"_PYRAMID_COMPLETE": "bash_complete", "COMP_WORDS": words,
                                "COMP_CWORD": str(cword)}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [line.split(",", 1)[1] for line in proc.stdout.splitlines()]


def test_completion_offers_the_games_and_option_values():
    assert complete("pyramid simulate ") == sorted(GAME_MODULES)
    assert complete("pyramid show on") == ["one-card"]
    assert complete("pyramid simulate hearts --moon ") == ["others", "subtract"]


# --- JSON vocabulary and empty rates ------------------------------------------------------------

RUN = ["--seed", 3, "--json", "-q", "-j", 1]
JSON_COMMANDS = [
    ["simulate", "old-maid", "--games", 20, *RUN],
    ["show", "old-maid", "--seed", 3, "--json"],
    ["analyse", "old-maid", "--trials", 20, *RUN],
    ["simulate", "black-maria", "--games", 5, *RUN],
    ["show", "black-maria", "--seed", 3, "--json"],
    ["simulate", "hearts", "--games", 5, *RUN],
    ["show", "hearts", "--seed", 3, "--json"],
    ["simulate", "one-card", "--games", 5, *RUN],
    ["show", "one-card", "--seed", 3, "--json"],
    ["simulate", "duizenden", "--games", 2, *RUN],
    ["show", "duizenden", "--seed", 3, "--json"],
]


@pytest.mark.parametrize("args", JSON_COMMANDS, ids=[" ".join(a[:2]) for a in JSON_COMMANDS])
def test_every_game_command_json_has_the_common_keys(args):
    r = invoke(*args)
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["game"] == args[1] and doc["seed"] == 3
    assert isinstance(doc["rules"], dict) and doc["rules"]
    for key in ("loss", "seats", "penalty_per_deal", "win_rate", "final_score",
                "moon_rate_per_seat", "score_per_round"):
        if isinstance(doc.get(key), list):  # every per-seat entry names its seat
            assert [entry["seat"] for entry in doc[key]] == list(range(len(doc[key])))


def test_a_rate_over_nothing_is_n_a_and_null():
    """No game reaches 1000 in one round: the win rates (over finished games) have n = 0."""
    args = ["simulate", "duizenden", "--games", 2, "--max-rounds", 1, "-q", "-j", 1]
    text = invoke(*args)
    assert text.exit_code == 0, text.stderr
    seat_lines = [line for line in text.stdout.splitlines() if line.startswith("  0    ")]
    assert seat_lines and seat_lines[0].rstrip().endswith("n/a")
    doc = json.loads(invoke(*args, "--json").stdout)
    assert doc["win_rate"][0] == {"seat": 0, "p": None, "lo": None, "hi": None, "n": 0}
