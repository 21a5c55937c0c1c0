"""Streaming input: ``pyramid solve`` and ``pyramid batch`` read ``--deal-file -`` (or a FIFO) as
its lines arrive, and answer each deal (or chunk) before the next line is sent.

Each test drives the real command through a real pipe and waits for an answer with a timeout
(``ANSWER_SECONDS``), so a command that reads all of its input first fails here instead of hanging
the run. The answers are checked against the same command reading a regular file.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path

import pytest

from solver.pyramid.model.deals import deal_from_seed, format_deal
from tests.faults import PYRAMID, error_lines, run_pyramid

ANSWER_SECONDS = 120
"""Longest wait for one answer: loading the kernels (a cold cache compiles them) and one search.
A command that waits for the end of its input never answers, and fails after this long."""
SEEDS = range(5)
"""The deals fed one at a time (seed 3 is not winnable, the others are)."""
RULES = ["--any"]
"""The fast winnability search, under which ``SEEDS`` hold both outcomes (the exit code then
covers the lost one)."""


def deal_line(seed: int) -> str:
    return format_deal(deal_from_seed(seed)) + "\n"


class Coprocess:
    """A ``pyramid`` subprocess whose stdin we write line by line and whose stdout lines we read
    one at a time, each with a timeout (a reader thread hands them over)."""

    def __init__(self, args) -> None:
        self.proc = subprocess.Popen([*PYRAMID, *map(str, args)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     bufsize=1)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, text: str) -> None:
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def read_line(self) -> str:
        """The next stdout line; fails if none comes within ``ANSWER_SECONDS`` (or at EOF)."""
        try:
            line = self.lines.get(timeout=ANSWER_SECONDS)
        except queue.Empty:
            self.kill()
            pytest.fail(f"no answer within {ANSWER_SECONDS} s: the input is not streamed")
        assert line is not None, self.proc.stderr.read()
        return line

    def finish(self) -> tuple[int, str, list[str]]:
        """Close stdin; the exit code, stderr and the stdout lines left."""
        self.proc.stdin.close()
        code = self.proc.wait(timeout=ANSWER_SECONDS)
        rest = []
        while (line := self.lines.get(timeout=ANSWER_SECONDS)) is not None:
            rest.append(line)
        return code, self.proc.stderr.read(), rest

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@pytest.fixture
def coprocess():
    started: list[Coprocess] = []

    def start(args) -> Coprocess:
        started.append(Coprocess(args))
        return started[-1]

    yield start
    for c in started:
        c.kill()


def file_answers(tmp_path: Path, args) -> tuple[int, list[dict]]:
    """The JSON answers (and exit code) of ``solve`` reading ``SEEDS`` from a regular file."""
    path = tmp_path / "deals.txt"
    path.write_text("".join(deal_line(s) for s in SEEDS))
    proc = run_pyramid(["solve", "--deal-file", path, "--json", *args])
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines()]


def without_time(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "seconds"}


def test_solve_answers_each_line_before_the_next_is_sent(coprocess, tmp_path):
    expected_code, expected = file_answers(tmp_path, RULES)
    assert {d["outcome"] for d in expected} == {"won", "lost"}  # both exit-code paths covered
    c = coprocess(["solve", "--deal-file", "-", "--json", *RULES])
    for k, seed in enumerate(SEEDS):
        c.send(deal_line(seed))
        doc = json.loads(c.read_line())  # before the next deal is written
        assert without_time(doc) == without_time(expected[k])
    code, err, rest = c.finish()
    assert rest == [] and error_lines(err) == [], (rest, err)
    assert code == expected_code == 1


def test_solve_text_answers_stream_too(coprocess):
    c = coprocess(["solve", "--deal-file", "-", *RULES])
    for k, seed in enumerate(SEEDS[:2]):
        c.send("\n" + deal_line(seed))  # a blank line first: skipped, but counted
        block = []
        while not (line := c.read_line()).endswith("ms.\n"):
            block.append(line)
        heading = next(x for x in block if x.strip())
        assert heading.startswith(f"Line {2 * k + 2} "), block
    code, err, rest = c.finish()
    assert code in (0, 1) and rest == [] and error_lines(err) == [], err


def test_a_bad_line_ends_the_stream_after_the_answers_before_it(coprocess):
    c = coprocess(["solve", "--deal-file", "-", "--json", *RULES])
    c.send(deal_line(0))
    assert json.loads(c.read_line())["line"] == 1
    c.send("Ac Zz\n")
    code, err, rest = c.finish()
    lines = error_lines(err)
    assert code == 2 and rest == [], (code, rest, err)
    assert len(lines) == 1 and "stdin line 2" in lines[0] and "'Zz'" in lines[0], lines


def test_solve_reads_a_fifo_as_it_arrives(coprocess, tmp_path):
    fifo = tmp_path / "deals.fifo"
    os.mkfifo(fifo)
    c = coprocess(["solve", "--deal-file", fifo, "--json", *RULES])
    with open(fifo, "w") as f:  # noqa: PTH123 (blocks until the command opens the FIFO)
        for seed in SEEDS[:2]:
            f.write(deal_line(seed))
            f.flush()
            assert json.loads(c.read_line())["deal"] == deal_line(seed).strip()
    code, err, rest = c.finish()
    assert code in (0, 1) and rest == [] and error_lines(err) == [], err


def wait_for(path: Path, proc: subprocess.Popen) -> None:
    """Wait (at most ``ANSWER_SECONDS``) until ``path`` exists, failing if ``proc`` ends first."""
    end = time.monotonic() + ANSWER_SECONDS
    while not path.exists():
        assert proc.poll() is None, proc.stderr.read()
        if time.monotonic() > end:
            pytest.fail(f"{path.name} was not written before the end of the input")
        time.sleep(0.05)


@pytest.mark.parametrize("jobs", [1, 2])
def test_batch_writes_a_chunk_before_the_input_ends(jobs, coprocess, tmp_path):
    out = tmp_path / "r.csv"
    c = coprocess(["batch", "--deal-file", "-", "--chunk", "2", "--jobs", jobs, "-q", "-o", out])
    parts = tmp_path / "r.csv.parts"
    for k in range(2):  # two chunks, each written before the next line is sent
        c.send(deal_line(2 * k) + deal_line(2 * k + 1))
        wait_for(parts / f"part-{k:06d}.json", c.proc)
        assert not (parts / f"part-{k + 1:06d}.json").exists()
    c.send(deal_line(4))
    code, err, _ = c.finish()
    assert code == 0, err
    ref = tmp_path / "ref.csv"
    deals = tmp_path / "d.txt"
    deals.write_text("".join(deal_line(s) for s in SEEDS))
    assert run_pyramid(["batch", "--deal-file", deals, "-q", "-o", ref]).returncode == 0
    assert rows(out) == rows(ref) and len(rows(out)) == len(SEEDS)


def rows(path: Path) -> list[list[str]]:
    """A results file's rows without the measured ``ms`` column."""
    lines = [line.split(",") for line in path.read_text().splitlines()]
    ms = lines[0].index("ms")
    return [r[:ms] + r[ms + 1:] for r in lines[1:]]
