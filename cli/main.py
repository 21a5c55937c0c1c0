"""Entry point: the ``pyramid`` command group and its sub-groups, and the frame around every run.

The Pyramid commands (``cli.solve``, ``cli.hint``, ``cli.check``; ``cli.show`` for the Pyramid
side of ``show``, ``cli.analyse`` for that of ``analyse``) are added to the group here; the games'
and batch command modules register themselves when first asked for (the ``lazy`` maps), and no
command module imports numba at import time, so ``pyramid --help`` and each shell-completion
request stay fast. None of those Pyramid modules imports this one (no import cycle).

The frame (``PyramidGroup.main``) gives every way a run can end one clean answer:

- usage errors: one line on stderr, exit 2 (``EXIT_USAGE``);
- Ctrl-C: ``Interrupted.`` on stderr, exit 130 (``EXIT_INTERRUPTED``);
- the reader of stdout went away (``pyramid ... | head``): nothing more is written, exit 141
  (``EXIT_BROKEN_PIPE``, what a shell reports for a program ended by SIGPIPE);
- memory running out (wherever: ``solver.core.memory.out_of_memory``): one line, exit 3
  (``EXIT_OUT_OF_MEMORY``; ``batch`` says what is kept and exits 1);
- an unexpected error: one line naming the exception, exit 70 (``EXIT_INTERNAL``); stdout or a
  file that could not be written (a full disk): one line, exit 74 (``EXIT_IO``). Set
  ``PYRAMID_DEBUG=1`` to see the traceback instead;
- stdout closed (``pyramid solve --seed 1 >&-``): refused before the command runs, one line,
  exit 74 (``EXIT_IO``): every command's results go to stdout, and a file the command opened
  would otherwise take its descriptor.
"""

from __future__ import annotations

import difflib
import errno
import importlib
import os
import sys
import warnings
from functools import partial
from typing import Callable

import click

from cli import analyse as analyse_cmd
from cli import check as check_cmd
from cli import hint as hint_cmd
from cli import show as show_cmd
from cli import solve as solve_cmd
from cli.common import EXIT_UNKNOWN, SEED, color_option
from solver.core.extras import DISTRIBUTION
from solver.core.memory import MORE_MEMORY, out_of_memory, out_of_memory_text

EXIT_USAGE = 2
"""Bad input: a usage error or a value the command refuses."""
EXIT_INTERNAL = 70
"""An unexpected error (a bug): sysexits' EX_SOFTWARE."""
EXIT_IO = 74
"""An output could not be written (full disk, ...): sysexits' EX_IOERR."""
EXIT_INTERRUPTED = 130
"""Ctrl-C: 128 + SIGINT, as a shell reports it."""
EXIT_OUT_OF_MEMORY = EXIT_UNKNOWN
"""Memory ran out (the search of solve, hint, check or analyse stopped by it exits so too): the
answer is unknown. ``batch`` exits 1 instead, its fault (the finished chunks kept)."""
EXIT_BROKEN_PIPE = 141
"""The reader of stdout closed the pipe: 128 + SIGPIPE, as a shell reports it."""
DEBUG_ENV = "PYRAMID_DEBUG"
"""Set this environment variable to 1 to get a traceback instead of the one-line error."""
STDOUT_CLOSED = "Error: cannot write the results: stdout is closed"
"""The line for a run started with stdout closed (Python then sets ``sys.stdout`` to None)."""
TQDM_NO_MONITOR = "tqdm:disabling monitor support"
"""The start of the warning tqdm gives when its monitor thread cannot start (memory running
out): ignored, the bars work without it."""
MAX_MESSAGE_CHARS = 160
"""An unexpected exception's message is cut to this many characters in its one-line report."""

def load_game_command(command: str, name: str) -> click.Command:
    """``command NAME`` of a game, built by ``cli.games`` from the registry on first use."""
    from cli.games import game_command

    return game_command(command, name)


def game_commands(command: str) -> dict:
    """Each game that has ``command`` (``simulate``/``show``/``analyse``) -> its loader. Reads
    the registry, so it is called only when a game group is used, not for ``pyramid --help``."""
    from solver.games import GAMES

    return {name: partial(load_game_command, command) for name, game in GAMES.items()
            if command in game.commands}


def game_aliases() -> dict[str, str]:
    """The games' other accepted spellings (alias -> canonical name), from the registry."""
    from solver.games import ALIASES

    return ALIASES


def debug_enabled() -> bool:
    """True when ``PYRAMID_DEBUG`` asks for tracebacks instead of one-line errors."""
    return os.environ.get(DEBUG_ENV, "").strip() not in ("", "0")


def silence_stdout() -> None:
    """Point stdout at /dev/null so that nothing more (not even the final flush) can fail on a
    closed pipe; the recipe of the Python docs (signal module, "Note on SIGPIPE")."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # not a real file (click's test runner)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def is_broken_pipe(e: BaseException) -> bool:
    return isinstance(e, BrokenPipeError) or (isinstance(e, OSError) and e.errno == errno.EPIPE)


def caused_by_interrupt(e: BaseException) -> bool:
    """True when Ctrl-C is behind ``e``: a numba kernel interrupted by it returns a SystemError
    ("returned a result with an exception set") whose context is the KeyboardInterrupt."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


def one_line(text: str) -> str:
    """``text`` on one line, cut to ``MAX_MESSAGE_CHARS``."""
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS - 3] + "..."


class PyramidGroup(click.Group):
    """A click group with the frame every command shares.

    ``lazy`` maps command names to the modules that register them, imported on first use, or to
    functions that build them, so that ``pyramid solve`` does not pay for loading every game
    engine. ``aliases`` maps other spellings to command names: accepted, but not listed in help
    or completion. Either map may be given as a function that returns it, called when the group
    first needs it (the games' maps come from their registry, which ``pyramid --help`` does not
    load). A bare group (``pyramid simulate``) prints its help and exits 0; an unknown name
    suggests the closest names and aliases; in a group of ``games``, an option given before the
    game name is told where it goes.
    """

    def __init__(self, *args, lazy: dict | Callable[[], dict] | None = None,
                 aliases: dict[str, str] | Callable[[], dict] | None = None, games: bool = False,
                 **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.maps = {"lazy": lazy, "aliases": aliases}
        self.games = games

    def given_map(self, which: str) -> dict:
        """The ``lazy`` or ``aliases`` map as given, asked for once if given as a function."""
        given = self.maps[which]
        if callable(given):
            given = self.maps[which] = given()
        return dict(given or {})

    @property
    def lazy(self) -> dict:
        return self.given_map("lazy")

    @property
    def aliases(self) -> dict[str, str]:
        return self.given_map("aliases")

    def list_commands(self, ctx) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def canonical(self, name: str) -> str:
        """The command name an alias stands for (the name itself otherwise); a name in the wrong
        case (``Hearts``, ``OLD-MAID``) is read as the command it spells."""
        name = self.aliases.get(name, name)
        if name not in self.commands and name not in self.lazy and name.lower() != name:
            return self.canonical(name.lower())
        return name

    def get_command(self, ctx, name):
        name = self.canonical(name)
        if name not in self.commands and name in self.lazy:
            load = self.lazy[name]
            if callable(load):  # a function that builds the command
                self.add_command(load(name), name)
            else:  # a module that registers it
                importlib.import_module(load)
        return super().get_command(ctx, name)

    def resolve_command(self, ctx, args):
        name = click.utils.make_str(args[0])
        cmd = self.get_command(ctx, name)
        if cmd is None and not ctx.resilient_parsing and not name.startswith("-"):
            if self.games:  # a game without this command is not a misspelling
                from solver.games import lacking_command

                lacking = lacking_command(name, self.name, ctx.find_root().info_name)
                if lacking is not None:
                    raise click.UsageError(lacking, ctx)
            raise click.UsageError(f"No such command '{name}'.{self.suggest(ctx, name)}", ctx)
        if cmd is None:
            return super().resolve_command(ctx, args)
        return cmd.name, cmd, args[1:]

    def suggest(self, ctx, name: str) -> str:
        """`` Did you mean 'solve'?``: the closest command names (an alias counts as the name it
        stands for); in a group of games with none close, the games it has."""
        names = self.list_commands(ctx)
        known = names + [alias for alias, target in self.aliases.items() if target in names]
        close = dict.fromkeys(self.canonical(n) for n in difflib.get_close_matches(name, known))
        if close:
            return " Did you mean " + " or ".join(f"'{n}'" for n in close) + "?"
        if self.games:
            return f" Games: {', '.join(names)}."
        return ""

    def parse_args(self, ctx, args):
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            click.echo(ctx.get_help(), color=ctx.color)
            ctx.exit(0)
        given = list(args)  # click's parser consumes ``args``
        ctx.meta[self.given_key] = given
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as e:
            raise self.misplaced(ctx, given, e.option_name) or e

    @property
    def given_key(self) -> str:
        """Where ``parse_args`` keeps the group's arguments as given (in ``ctx.meta``)."""
        return f"pyramid.given_args.{self.name}"

    def options_before_game(self, ctx) -> click.UsageError | None:
        """For a group that takes options of its own (``show``, ``analyse``): the error for
        ``pyramid analyse --seed 1 hearts``, whose options belong after the game name (None
        when every argument before the game name was left out)."""
        args = ctx.meta.get(self.given_key, [])
        first = next((a for a in args if a.startswith("-")), None)
        if first is None or not args or not args[0].startswith("-"):
            return None
        return self.misplaced(ctx, args, first.split("=")[0])

    def misplaced(self, ctx, args: list[str], option: str) -> click.UsageError | None:
        """The error for ``pyramid simulate --games 10 hearts``: the options go after the game
        name (None when no game is named: then click's own error stands)."""
        if not self.games:
            return None
        names = set(self.list_commands(ctx)) | set(self.aliases)
        where = next((i for i, a in enumerate(args) if a in names), None)
        if where is None:
            return None
        return self.after_name_error(ctx, self.canonical(args[where]), option,
                                     args[:where] + args[where + 1:])

    @staticmethod
    def after_name_error(ctx, name: str, option: str, rest: list[str]) -> click.UsageError:
        example = " ".join([ctx.command_path, name, *rest])
        return click.UsageError(f"{option} goes after the game name: {example}", ctx)

    def invoke(self, ctx):
        if ctx.parent is not None:
            return super().invoke(ctx)
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except Exception as e:  # noqa: BLE001 - the frame's last resort, one line not a trace
            if caused_by_interrupt(e):
                click.echo("Interrupted.", err=True)
                raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
            raise click.exceptions.Exit(self.report(e)) from None

    @staticmethod
    def report(e: Exception) -> int:
        """Say what went wrong in one line (or re-raise under ``PYRAMID_DEBUG``); the exit code."""
        if is_broken_pipe(e):
            silence_stdout()
            return EXIT_BROKEN_PIPE
        if debug_enabled():
            raise e
        if out_of_memory(e):  # before OSError: a library that could not be loaded for it
            click.echo(f"Error: {out_of_memory_text(e)}: {MORE_MEMORY}", err=True)
            return EXIT_OUT_OF_MEMORY
        if isinstance(e, OSError):
            where = f" ({e.filename})" if e.filename else ""
            click.echo(f"Error: input/output failed{where}: {one_line(e.strerror or e)}",
                       err=True)
            silence_stdout()  # stdout may be what failed: the exit's flush must not fail again
            return EXIT_IO
        click.echo(f"Error: internal error, {type(e).__name__}: {one_line(e)} (please report "
                   f"it with the command line; {DEBUG_ENV}=1 shows the traceback)", err=True)
        return EXIT_INTERNAL

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        if sys.stdout is None:  # click.echo would drop every line without a word
            click.echo(STDOUT_CLOSED, err=True)
            sys.exit(EXIT_IO)
        # A progress bar's helper thread that cannot start (memory running out) is no error.
        warnings.filterwarnings("ignore", message=TQDM_NO_MONITOR)
        try:
            try:
                rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            except SystemExit as e:  # a command's own exit code (pyramid solve: 0/1/3)
                rv = e.code
                if rv is not None and not isinstance(rv, int):  # sys.exit("message")
                    click.echo(rv, err=True)
                    rv = 1
            code = rv if isinstance(rv, int) else 0
            sys.stdout.flush()
        except click.exceptions.Abort:
            click.echo("Interrupted.", err=True)
            code = EXIT_INTERRUPTED
        except click.UsageError as e:
            msg = e.format_message()
            cmd = e.ctx.command_path if e.ctx is not None else "pyramid"
            click.echo(f"Error: {msg} (see '{cmd} --help')", err=True)
            code = EXIT_USAGE
        except click.ClickException as e:
            e.show()
            code = e.exit_code
        except OSError as e:  # the final flush of stdout
            code = self.report(e)
        sys.exit(code)


@click.group(cls=PyramidGroup, context_settings={"help_option_names": ["-h", "--help"]},
             lazy={"batch": "cli.batch", "stats": "cli.batch", "warmup": "cli.warmup",
                   "challenge": "cli.challenge", "play": "cli.play"})
@click.version_option(package_name=DISTRIBUTION)
def cli() -> None:
    """Settle Pyramid Solitaire deals exactly, score them in batch, and simulate other card games."""


for command in (solve_cmd.solve, check_cmd.check, hint_cmd.hint):
    cli.add_command(command)


@cli.group(cls=PyramidGroup, lazy=partial(game_commands, "simulate"), aliases=game_aliases,
           games=True)
def simulate() -> None:
    """Random-play simulation of a card game: many seeded games, statistics with 95% intervals."""


@cli.group(cls=PyramidGroup, invoke_without_command=True, no_args_is_help=True,
           lazy=partial(game_commands, "analyse"), aliases=game_aliases, games=True)
@analyse_cmd.analyse_options
@click.pass_context
def analyse(ctx, **values) -> None:
    """Analyse a deal. A Pyramid deal (pyramid analyse --seed N): the verdict, why a lost deal is
    lost and how far it can be taken, the choices along a shortest win, how often random and
    greedy players win, and with --all-rules the verdict under every rule combination. An Old
    Maid deal (pyramid analyse old-maid; the other games have simulate and show only): repeated
    random play. Exit 0 winnable, 1 not, 2 bad
    input, 3 unknown."""
    if ctx.invoked_subcommand is None:
        analyse_cmd.analyse_pyramid(ctx, **values)
        return
    error = ctx.command.options_before_game(ctx)
    if error is not None:  # pyramid analyse --seed 1 hearts: options meant for the game
        raise error


@cli.group(cls=PyramidGroup, invoke_without_command=True, lazy=partial(game_commands, "show"),
           aliases=game_aliases, games=True)
@click.option("--seed", type=SEED, help="Pyramid deal number to print.")
@click.option("--deal", "deal_text", help="Pyramid deal text (52 cards) to print.")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON on stdout.")
@color_option
@click.pass_context
def show(ctx, seed, deal_text, as_json, no_color) -> None:
    """Print a deal: a Pyramid deal (pyramid show --seed N) or another game's (pyramid show GAME)."""
    if ctx.invoked_subcommand is None:
        show_cmd.show_pyramid(seed, deal_text, as_json, no_color)
        return
    error = ctx.command.options_before_game(ctx)
    if error is not None:  # pyramid show --seed 1 old-maid: options meant for the game
        raise error


def main() -> None:
    """The ``pyramid`` program. After Ctrl-C (exit 130) the process ends without running the
    interpreter's exit hooks: everything worth keeping was written before the interrupt reached
    this frame (batch chunks, the "Interrupted." line), while a process pool's exit hooks join
    helper threads that can wait forever on a worker killed part-way through sending its result
    (seen with ``concurrent.futures``: about 1 interrupted run in 8 under load hung)."""
    try:
        cli.main(prog_name="pyramid")
    except SystemExit as e:
        if e.code == EXIT_INTERRUPTED:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except OSError:
                    pass
            os._exit(EXIT_INTERRUPTED)
        raise

