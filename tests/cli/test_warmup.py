"""``pyramid warmup``: after it, the commands it warmed compile nothing; bad input, a failing
command line and Ctrl-C end cleanly.

The fill test warms one game (Old Maid, the cheapest to compile) on an empty cache of its own and
then runs other command lines of that game (other options, variants and player counts) in a fresh
process, counting numba's compile events (``solver.core.compiling.run_logged``): any kernel the
warm-up missed shows up there. The Pyramid commands' lines are checked the same way by
``benchmarks/bench_compile.py`` (the first ``solve`` after a warm-up compiles nothing).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import cli.warmup as warmup_cmd
from cli.main import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_IO, cli
from solver.core.compiling import run_logged
from solver.games import ALIASES
from tests.faults import PYRAMID, assert_clean_failure, error_lines, interruptible, run_pyramid

ROOT = Path(__file__).resolve().parents[2]
STOP_SECONDS = 8
"""Ctrl-C must end a warm-up within this long (the child gets ``STOP_GRACE_SECONDS``)."""


def test_warmup_fills_the_cache_so_that_later_runs_compile_nothing(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = run_pyramid(["warmup", "old-maid", "--json"], env=env)
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    assert [r["command"] for r in doc["commands"]] == ["old-maid"]
    assert doc["commands"][0]["compiled"] > 0  # the cache was empty: this is what it compiled
    assert doc["cache_dir"] == env["NUMBA_CACHE_DIR"]
    later = run_logged([
        ("simulate", "old-maid", "--games", "300", "--players", "4", "--seed", "7",
         "--variant", "colour,joker", "-j", "1", "-q"),
        ("simulate", "old-maid", "--games", "50", "--players", "2", "--variant", "jack", "-j",
         "1", "-q", "--json"),
        ("analyse", "old-maid", "--seed", "3", "--trials", "200", "-j", "1", "-q"),
        ("show", "old-maid", "--seed", "3"),
    ], env={**os.environ, **env})
    assert later.error == "" and later.code == 0
    assert [e.kernel for e in later.events] == []
    again = run_pyramid(["warmup", "old-maid"], env=env)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("old-maid     already in the cache")


def test_warmup_run_in_a_source_checkout_warms_the_package_that_runs(tmp_path):
    """The README installs with ``pip install .`` from the clone, then runs ``pyramid warmup``
    there: the installed package runs, while ``python -m`` in the warm-up's child would look in
    the working directory first and compile the checkout's copy, whose cache entries (keyed by
    the source file's path) the installed commands never load. Here the working directory holds
    such a copy and ``PYTHONPATH`` names the package that runs (``-P``: as an installed console
    script, the working directory is not searched)."""
    checkout = tmp_path / "checkout"
    for package in ("solver", "cli"):
        shutil.copytree(ROOT / package, checkout / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    warm = subprocess.run([sys.executable, "-P", "-m", "cli", "warmup", "old-maid", "-q"],
                          cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    assert warm.returncode == 0, warm.stderr
    log = tmp_path / "log.json"
    later = [["simulate", "old-maid", "--games", "30", "-j", "1", "-q"]]
    subprocess.run([sys.executable, "-P", "-m", "solver.core.compiling", str(log), "cli.main:cli",
                    json.dumps(later), "[0]"], cwd=checkout, env=env, check=True, timeout=600)
    assert [e["kernel"] for e in json.loads(log.read_text())["events"]] == []


def test_a_cold_run_does_compile(tmp_path):
    """The control of the test above: the same kind of command line, on an empty cache,
    compiles (so an empty event list there means the warm-up did its work)."""
    run = run_logged([("show", "old-maid", "--seed", "3")],
                     env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")})
    assert run.code == 0 and run.error == ""
    assert run.events


def test_an_unknown_command_is_refused():
    line = assert_clean_failure(run_pyramid(["warmup", "solv"], timeout=60), 2, "solv")
    assert "solve" in line


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_a_game_is_warmed_by_any_name_the_registry_accepts(alias):
    """``pyramid warmup oldmaid``: the older spellings (in any case) name their game, as in
    ``simulate`` and ``show``."""
    proc = run_pyramid(["warmup", alias.upper(), "--json"])
    assert proc.returncode == 0, proc.stderr
    assert [r["command"] for r in json.loads(proc.stdout)["commands"]] == [ALIASES[alias]]


def test_an_unwritable_cache_directory_is_one_line_and_exit_74(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    proc = run_pyramid(["warmup", "old-maid"], env={"NUMBA_CACHE_DIR": str(blocker / "cache")},
                       timeout=60)
    assert_clean_failure(proc, EXIT_IO, ("cache directory", str(blocker / "cache")))
    assert proc.stdout == ""


def test_every_warm_line_is_a_valid_command_line(tmp_path):
    """Each line the warm-up runs parses (``--help`` appended stops before any work)."""
    for name in warmup_cmd.TARGETS:
        for argv in warmup_cmd.warm_runs(name, tmp_path):
            res = CliRunner().invoke(cli, [*argv, "--help"])
            assert res.exit_code == 0, (argv, res.output)


def test_a_failing_command_line_is_one_line_and_exit_70(monkeypatch, tmp_path):
    monkeypatch.setattr(warmup_cmd, "warm_runs", lambda name, tmp: (("solve", "--seed", "x"),))
    res = CliRunner().invoke(cli, ["warmup", "solve", "-q"],
                             env={"NUMBA_CACHE_DIR": str(tmp_path / "cache")})
    assert res.exit_code == EXIT_INTERNAL
    lines = error_lines(res.stderr)
    assert len(lines) == 1
    assert lines[0].startswith("Error: warming 'solve' failed with exit code 2: Error: Invalid "
                               "value for '--seed'")
    assert res.stdout == ""


def test_ctrl_c_stops_the_warmup_and_its_child_processes(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([*PYRAMID, "warmup", "solve", "--progress"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, preexec_fn=interruptible)
    first = proc.stderr.read(1)  # the progress bar's first draw: the child has started
    assert first, proc.communicate()
    time.sleep(3)  # the child is compiling
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)  # to the parent only: it must stop its children itself
    try:
        out, rest = proc.communicate(timeout=60)
    finally:
        proc.kill()
    seconds = time.monotonic() - sent
    stderr = (first + rest).decode("utf-8", "replace")
    assert proc.returncode == EXIT_INTERRUPTED, stderr[-2000:]
    assert seconds < STOP_SECONDS
    assert "Traceback" not in stderr and "Exception ignored" not in stderr
    assert error_lines(stderr)[-1] == "Interrupted."
    assert out == b""
    time.sleep(1)
    # nothing left behind: no temporary directory of the warm-up, its child or a helper
    assert [p.name for p in Path(tmp_path).iterdir() if p.name != "cache"] == []
