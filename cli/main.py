"""Entry point: the ``pyramid`` command group and its sub-groups.

Every command module registers itself on these groups when imported at the bottom of this file.
"""

from __future__ import annotations

import sys

import click


class PyramidGroup(click.Group):
    """A click group whose usage errors are one line on stderr with exit code 2 (no usage dump)."""

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


@click.group(cls=PyramidGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pyramid")
def cli() -> None:
    """Settle Pyramid Solitaire deals exactly, score them in batch, and simulate other card games."""


@cli.group(cls=PyramidGroup)
def simulate() -> None:
    """Random-play simulation of a card game: many seeded games, statistics with 95% intervals."""


@cli.group(cls=PyramidGroup)
def analyse() -> None:
    """Analyse one particular deal of a game by repeated random play."""


@cli.group(cls=PyramidGroup, invoke_without_command=True)
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


# Command modules register themselves on the groups above.
from cli import pyramid_cmds, oldmaid_cmds, hearts_cmds, onecard_cmds, duizenden_cmds, batch_cmds  # noqa: E402,F401
