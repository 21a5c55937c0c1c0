"""Entry point: the ``pyramid`` command group and its sub-groups.

Every command module registers itself on these groups when imported at the bottom of this file.
"""

from __future__ import annotations

import importlib
import sys

import click

GAME_MODULES = {"oldmaid": "cli.oldmaid_cmds", "black-maria": "cli.hearts_cmds",
                "hearts": "cli.hearts_cmds", "one-card": "cli.onecard_cmds",
                "duizenden": "cli.duizenden_cmds"}
"""Which module registers each game's subcommands (imported only when that game is asked for)."""


class PyramidGroup(click.Group):
    """A click group whose usage errors are one line on stderr with exit code 2 (no usage dump).

    ``lazy`` maps command names to the modules that register them, imported on first use, so
    that ``pyramid solve`` does not pay for loading every game engine.
    """

    def __init__(self, *args, lazy: dict[str, str] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx, name):
        if name not in self.commands and name in self.lazy:
            importlib.import_module(self.lazy[name])
        return super().get_command(ctx, name)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(130)
        except click.UsageError as e:
            msg = e.format_message()
            cmd = e.ctx.command_path if e.ctx is not None else "pyramid"
            click.echo(f"Error: {msg} (see '{cmd} --help')", err=True)
            sys.exit(2)
        except click.ClickException as e:
            e.show()
            sys.exit(e.exit_code)
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=PyramidGroup, context_settings={"help_option_names": ["-h", "--help"]},
             lazy={"batch": "cli.batch_cmds", "stats": "cli.batch_cmds"})
@click.version_option(package_name="pyramid")
def cli() -> None:
    """Settle Pyramid Solitaire deals exactly, score them in batch, and simulate other card games."""


@cli.group(cls=PyramidGroup, lazy=GAME_MODULES)
def simulate() -> None:
    """Random-play simulation of a card game: many seeded games, statistics with 95% intervals."""


@cli.group(cls=PyramidGroup, lazy={"oldmaid": "cli.oldmaid_cmds"})
def analyse() -> None:
    """Analyse one particular deal of a game by repeated random play."""


@cli.group(cls=PyramidGroup, invoke_without_command=True, lazy=GAME_MODULES)
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="Pyramid deal number to print.")
@click.option("--deal", "deal_text", help="Pyramid deal text (52 cards) to print.")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON on stdout.")
@click.pass_context
def show(ctx, seed, deal_text, as_json) -> None:
    """Print a deal: a Pyramid deal (pyramid show --seed N) or another game's (pyramid show GAME)."""
    if ctx.invoked_subcommand is None:
        from cli.pyramid_cmds import show_pyramid

        show_pyramid(seed, deal_text, as_json)


def main() -> None:
    cli.main(prog_name="pyramid")


# The Pyramid commands register themselves on the groups above at once; the games and batch
# commands when first asked for (the ``lazy`` maps above).
from cli import pyramid_cmds  # noqa: E402,F401
