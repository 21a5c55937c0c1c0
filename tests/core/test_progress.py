"""Progress bars: drawn on a terminal, not on a pipe or a file unless ``--progress`` asks, never
with ``--quiet``."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import struct
import subprocess
import termios

from solver.core.progress import PROGRESS_AUTO, progress_bar
from tests.faults import PYRAMID

SIMULATION = ["simulate", "old-maid", "--games", "20000", "-j", "1", "--seed", "1"]
"""A run short enough for a test, long enough to draw its bar."""


def drawn(progress, stream) -> str:
    """What a bar of 50 steps writes to ``stream`` under ``progress``."""
    import sys

    old, sys.stderr = sys.stderr, stream
    try:
        with progress_bar(progress, total=50, desc="steps", mininterval=0) as bar:
            for _ in range(50):
                bar.update()
    finally:
        sys.stderr = old
    return stream.getvalue() if isinstance(stream, io.StringIO) else ""


def test_settings_of_the_bar():
    assert "50/50" in drawn(True, io.StringIO())
    assert drawn(False, io.StringIO()) == ""
    assert drawn(PROGRESS_AUTO, io.StringIO()) == ""  # not a terminal


def stderr_of(args: list[str], terminal: bool) -> str:
    """stderr of ``pyramid ARGS`` written to a pseudo-terminal or to a pipe."""
    if not terminal:
        proc = subprocess.run([*PYRAMID, *args], capture_output=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        return proc.stderr.decode("utf-8", "replace")
    parent, child = pty.openpty()
    # a new pseudo-terminal is 0 columns wide, where tqdm draws nothing: make it 80 x 24
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    try:
        proc = subprocess.Popen([*PYRAMID, *args], stdout=subprocess.DEVNULL, stderr=child)
        os.close(child)
        out = b""
        while True:
            try:
                chunk = os.read(parent, 4096)
            except OSError:  # the terminal closed: the command ended
                break
            if not chunk:
                break
            out += chunk
        assert proc.wait(timeout=300) == 0
    finally:
        os.close(parent)
    return out.decode("utf-8", "replace")


def test_bar_on_a_terminal_only_by_default():
    subprocess.run([*PYRAMID, *SIMULATION, "-q"], capture_output=True, timeout=300)  # compile
    assert "game/s" in stderr_of(SIMULATION, terminal=True)
    assert "game/s" not in stderr_of(SIMULATION, terminal=False)
    assert "game/s" in stderr_of([*SIMULATION, "--progress"], terminal=False)
    assert "game/s" not in stderr_of([*SIMULATION, "-q"], terminal=True)
