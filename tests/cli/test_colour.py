"""Colour in the terminal: hearts and diamonds in red when stdout is a terminal (a pty here),
never in a pipe or a file, never with ``NO_COLOR`` set (non-empty) or ``--no-color``."""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys

import pytest

from cli.common import want_color
from faults import PYRAMID
from solver.core.cards import format_card, is_red
from solver.pyramid.model.deals import COLOR_OFF, RED_ON, deal_from_seed, draw_deal

ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
"""Any ANSI colour code."""
RED_CARD = re.compile(re.escape(RED_ON) + r"(\w\w)" + re.escape(COLOR_OFF))
TIMEOUT = 120
"""Seconds a command may take (a cold numba cache compiles first)."""


def test_draw_deal_colours_exactly_the_red_cards_and_keeps_the_layout():
    for seed in range(20):
        deal = deal_from_seed(seed)
        plain, coloured = draw_deal(deal), draw_deal(deal, color=True)
        assert not ESCAPE.search(plain)
        assert ESCAPE.sub("", coloured) == plain
        assert RED_CARD.findall(coloured) == [format_card(int(c)) for c in deal
                                              if is_red(int(c))]
        assert ESCAPE.sub("", RED_CARD.sub("", coloured)) == RED_CARD.sub("", coloured)


def test_want_color_only_for_a_terminal_and_honours_the_switches(monkeypatch, tmp_path):
    monkeypatch.delenv("NO_COLOR", raising=False)
    master, slave = os.openpty()
    read, write = os.pipe()
    try:
        with open(slave, "w", closefd=False) as tty, open(write, "w", closefd=False) as pipe, \
                open(tmp_path / "out.txt", "w") as file:
            assert want_color(False, tty)
            assert not want_color(True, tty)
            assert not want_color(False, pipe) and not want_color(False, file)
            monkeypatch.setenv("NO_COLOR", "1")
            assert not want_color(False, tty)
            monkeypatch.setenv("NO_COLOR", "")  # empty: as if unset (no-color.org)
            assert want_color(False, tty)
    finally:
        for fd in (master, slave, read, write):
            os.close(fd)


def run_on_pty(args, env_extra=None) -> str:
    """Run ``pyramid ARGS`` with stdout on a pseudo-terminal; what it wrote there."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update(env_extra or {})
    master, slave = os.openpty()
    proc = subprocess.Popen([*PYRAMID, *args], stdout=slave, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], TIMEOUT)
            if not ready:
                proc.kill()
                pytest.fail(f"pyramid {' '.join(args)} wrote nothing for {TIMEOUT} s")
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
        proc.wait(TIMEOUT)
    return b"".join(chunks).decode()


def test_a_terminal_gets_red_hearts_and_diamonds():
    out = run_on_pty(["show", "--seed", "32"])
    deal = deal_from_seed(32)
    assert RED_CARD.findall(out) == [format_card(int(c)) for c in deal if is_red(int(c))]
    out = run_on_pty(["analyse", "--seed", "32", "--playouts", "0", "-q"])
    assert RED_CARD.search(out) and "Winnable" in out


@pytest.mark.parametrize("args, env", [
    (["show", "--seed", "32"], {"NO_COLOR": "1"}),
    (["solve", "--seed", "32", "--no-color"], {}),
])
def test_no_color_and_the_flag_turn_it_off_on_a_terminal(args, env):
    out = run_on_pty(args, env)
    assert "7h" in out and not ESCAPE.search(out)


def test_a_pipe_and_a_file_never_get_colour_codes(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    proc = subprocess.run([*PYRAMID, "solve", "--seed", "32"], capture_output=True, env=env,
                          timeout=TIMEOUT)
    assert proc.returncode == 0 and b"7h" in proc.stdout
    assert b"\x1b" not in proc.stdout
    out = tmp_path / "out.txt"
    with open(out, "wb") as f:
        subprocess.run([*PYRAMID, "show", "--seed", "32"], stdout=f, env=env, timeout=TIMEOUT,
                       check=True)
    assert "7h" in out.read_text() and "\x1b" not in out.read_text()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
