"""Options and error handling shared by every command, defined once.

Cheap to import: click and the standard library only (no numpy, no numba), so that a command's
module can be loaded, and its options parsed and checked, before any engine is.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys

import click

from solver.core.progress import PROGRESS_AUTO
from solver.core.text import quoted, shorten

MAX_SEED = (1 << 63) - 1
"""Largest deal number or game seed (seeds are int64; equal to ``solver.core.rng.MAX_SEED``, which
cannot be imported here without loading numba)."""
MAX_INT64 = (1 << 63) - 1
"""Largest value of an int64 counter option (``--max-states``)."""


class InputError(click.ClickException):
    """Bad input from the user: one line on stderr, exit code 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"Error: {self.format_message()}", err=True)


@contextlib.contextmanager
def input_errors(what: str = ""):
    """Turn ``ValueError`` raised by ``solver`` while checking input into an ``InputError``."""
    try:
        yield
    except ValueError as e:
        raise InputError(f"{what}{e}") from None


class BoundedInt(click.ParamType):
    """A whole number in ``lo..hi``; the error quotes at most a few dozen characters of a bad
    value (click's own types echo all of it)."""

    name = "integer"

    def __init__(self, lo: int, hi: int) -> None:
        if lo > hi:
            raise ValueError(f"need lo <= hi, not {lo}, {hi}")
        self.lo, self.hi = lo, hi

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            n = value
        else:
            try:
                n = int(str(value).strip())
            except ValueError:
                self.fail(f"{quoted(value)} is not a whole number", param, ctx)
        if not self.lo <= n <= self.hi:
            self.fail(f"{shorten(str(n))} is out of range ({self.lo} .. {self.hi})", param, ctx)
        return n


class PositiveSeconds(click.ParamType):
    """A finite number of seconds above 0 (refuses 0, negatives, ``nan`` and ``inf``)."""

    name = "seconds"

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            x = value
        else:
            try:
                x = float(str(value).strip())
            except ValueError:
                self.fail(f"{quoted(value)} is not a number of seconds", param, ctx)
        if not (math.isfinite(x) and x > 0):
            self.fail(f"{quoted(value)} is not a positive, finite number of seconds", param, ctx)
        return x


class Choice(click.Choice):
    """``click.Choice`` (any case by default; shell completion lists the choices) whose error
    quotes at most a few dozen characters of a bad value."""

    def __init__(self, choices, case_sensitive: bool = False) -> None:
        super().__init__(list(choices), case_sensitive=case_sensitive)

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            self.fail(f"{quoted(value)} is not one of {', '.join(map(str, self.choices))}",
                      param, ctx)


SEED = BoundedInt(0, MAX_SEED)
"""The type of every ``--seed`` option: 0 .. 2**63-1."""


def json_option(f):
    """``--json``: the result as one JSON document on stdout."""
    return click.option("--json", "as_json", is_flag=True,
                        help="Print machine-readable JSON on stdout.")(f)


def jobs_option(f):
    """``--jobs/-j N``: worker processes (0 = every core)."""
    return click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, show_default=True,
                        help="Worker processes (0 = all cores).")(f)


def progress_options(f):
    """``--quiet/-q`` and ``--progress``, one parameter ``progress``: False, True, or
    ``PROGRESS_AUTO`` (the bar only when stderr is a terminal) when neither is given; the last
    one given counts."""
    f = click.option("--progress", "progress", flag_value=True,
                     help="Draw the progress bar on stderr even when it is not a terminal "
                          "(a log file, a pipe).")(f)
    return click.option("--quiet", "-q", "progress", flag_value=False, default=PROGRESS_AUTO,
                        help="No progress bar on stderr (by default it is drawn only when stderr "
                             "is a terminal).")(f)


def hidden_by_json(progress: bool | None, as_json: bool) -> bool | None:
    """The bar of a command that leaves it out with ``--json`` unless ``--progress`` asks."""
    return False if as_json and progress is PROGRESS_AUTO else progress


def echo_json(obj) -> None:
    """One JSON document on stdout."""
    click.echo(json.dumps(obj, separators=(",", ":")))


NO_COLOR_ENV = "NO_COLOR"
"""Any non-empty value of this environment variable turns colour off (no-color.org)."""


def color_option(f):
    """``--no-color``: no colour codes in the text output, even on a terminal."""
    return click.option("--no-color", "no_color", is_flag=True,
                        help="No colour (red hearts and diamonds) even on a terminal; also off "
                             "when NO_COLOR is set or stdout is not a terminal.")(f)


def want_color(no_color: bool, stream=None) -> bool:
    """Whether to colour text written to ``stream`` (stdout by default): only a terminal, never
    a pipe or a file, and neither with ``--no-color`` nor with ``NO_COLOR`` set (non-empty)."""
    if no_color or os.environ.get(NO_COLOR_ENV, ""):
        return False
    stream = sys.stdout if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # closed, or not a real file
        return False


EXIT_WON, EXIT_LOST, EXIT_UNKNOWN = 0, 1, 3
"""Exit codes of solve, hint and check: winnable (or a winning line), not, undecided (a limit
was reached). Bad input exits 2 (``cli.common.InputError``)."""
COMPILE_NOTICE = ("Compiling the solver kernels (first run after installing or upgrading, up to "
                  "a minute; later runs load them from the cache)...")
"""Said once on stderr when numba really compiles (a cold cache), never when it loads the
kernels from its cache (``solver.core.compiling``)."""


class OutOfMemory(click.ClickException):
    """Memory ran out before a search could start: one line on stderr, exit 3 (unknown)."""

    exit_code = EXIT_UNKNOWN

    def show(self, file=None) -> None:
        click.echo(f"Error: {self.format_message()}", err=True)


@contextlib.contextmanager
def engines_loading():
    """Around importing the engines and loading their kernels: when numba has to compile them
    (its cache is cold), say so once on stderr, so that the first run does not look hung. Memory
    running out meanwhile (a library that cannot be loaded for it included:
    ``solver.core.memory.out_of_memory``), or too small an address-space limit to load them
    safely (``check_room_to_load``), is ``OutOfMemory``, exit 3."""
    from solver.core.memory import MORE_MEMORY, check_room_to_load, out_of_memory, \
        out_of_memory_text

    try:
        check_room_to_load()
        from solver.core.compiling import compile_notice

        with compile_notice(COMPILE_NOTICE):
            yield
    except Exception as e:  # noqa: BLE001 - only memory running out is answered here
        if not out_of_memory(e):
            raise
        raise OutOfMemory(f"{out_of_memory_text(e)} while loading the solver, before any "
                          f"search: {MORE_MEMORY}") from None
