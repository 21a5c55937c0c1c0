"""Driving ``pyramid play`` (solver/pyramid/play/app.py) through Textual's pilot, and the real
command in a pseudo-terminal (``PtyCommand``): what the tests of the app (tests/cli/test_play.py,
tests/cli/test_play_entry.py) and of its screenshots (tests/cli/test_play_snapshots.py) share."""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

from solver.api import solve
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.replay import STEP_DRAW, STEP_RECYCLE, replay
from solver.pyramid.play.session import move_loses

SIZE = (100, 30)


def run(coro):
    return asyncio.run(coro)


async def settled(app, pilot) -> None:
    """Wait until the solver has answered about the position shown."""
    for _ in range(3000):
        await pilot.pause(0.02)
        if app.status is not None or not app.assistant or app.game.is_won():
            return
    raise AssertionError("the solver did not answer")


async def press_to(app, pilot, target) -> None:
    """Move the cursor to ``target`` with the right arrow and pick it with Enter."""
    for _ in range(len(app.targets()) + 1):
        if app.cursor_target() == target:
            await pilot.press("enter")
            return
        await pilot.press("right")
    raise AssertionError(f"{target!r} is not a target")


async def play_by_keys(app, pilot, step) -> None:
    """Play ``step`` with the keyboard alone: d for a draw or a recycle, else the cursor and
    Enter on each of its cards."""
    if step[0] in (STEP_DRAW, STEP_RECYCLE):
        await pilot.press("d")
        return
    for card in step[1:]:
        target = next(t for t in app.targets() if app.card_of(t) == card)
        await press_to(app, pilot, target)


def first_losing_position(rules, seeds=range(40)):
    """A seed, the moves reaching a winnable position, and a move there that loses it."""
    for seed in seeds:
        deal = Deal.from_seed(seed)
        win = solve(deal, rules, minimal=False)
        if not win.solution:
            continue
        pos = replay(deal, rules, []).position
        for i, good in enumerate(win.solution):
            for step in pos.legal_steps():
                if step[0] != STEP_RECYCLE and move_loses(pos, step):
                    return seed, list(win.solution[:i]), step
            pos.apply(good)
    raise AssertionError("no losing move found")


CONTROL = re.compile(rb"\x1b\[[0-9;?]*[a-zA-Z]")
"""A terminal control sequence, dropped from what the command writes before it is searched."""


class PtyCommand:
    """``python -m cli ARGS`` in a pseudo-terminal of 100 by 30: ``read_until`` what it draws,
    ``write`` keys to it, ``close`` for its exit code (killed after 10 s)."""

    def __init__(self, args: list[str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the command, in the terminal the fork made
            os.execv(sys.executable, [sys.executable, "-m", "cli", *args])
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        self.screen = b""

    def read_until(self, pattern: bytes, seconds: float) -> bytes:
        """Everything written so far, control sequences dropped, once ``pattern`` is in it or
        ``seconds`` have passed."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                self.screen += chunk
                plain = CONTROL.sub(b"", self.screen)
                if re.search(pattern, plain):
                    return plain
        return CONTROL.sub(b"", self.screen)

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def close(self) -> int:
        """The command's exit code, after up to 10 s for it to end on its own."""
        for _ in range(100):
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.1)
        else:
            os.kill(self.pid, signal.SIGKILL)
            _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.WEXITSTATUS(status)
