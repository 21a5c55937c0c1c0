"""Options and error handling shared by every command, defined once."""

from __future__ import annotations

import contextlib
import json
import sys

import click

from solver.rng import MAX_SEED


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


SEED = click.IntRange(0, MAX_SEED)


def seed_option(required: bool = False, default=None, help: str = "Seed (0 .. 2**63-1)."):
    return click.option("--seed", type=SEED, required=required, default=default, help=help)


def json_option(f):
    return click.option("--json", "as_json", is_flag=True,
                        help="Print machine-readable JSON on stdout.")(f)


def jobs_option(f):
    return click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, show_default=True,
                        help="Worker processes (0 = all cores).")(f)


def quiet_option(f):
    return click.option("--quiet", "-q", is_flag=True, help="No progress bar on stderr.")(f)


def games_option(default: int = 100_000):
    return click.option("--games", "-n", type=click.IntRange(min=1), default=default,
                        show_default=True, help="Number of games to simulate.")


def players_option(lo: int, hi: int, default: int):
    return click.option("--players", "-p", type=click.IntRange(lo, hi), default=default,
                        show_default=True, help=f"Number of players ({lo}..{hi}).")


def echo_json(obj) -> None:
    """One JSON document on stdout."""
    click.echo(json.dumps(obj, separators=(",", ":")))


def stderr_is_tty() -> bool:
    return sys.stderr.isatty()
