"""``pyramid play``: play a deal in the terminal with the solver at your side
(``solver.pyramid.play.app``, on Textual: the optional extra ``play``).

Cheap to import (click, ``cli.common``, ``cli.options``); Textual and the engines load inside the
command. On quit the moves played are printed as one line (and written to ``--save FILE``), as
``pyramid check``, ``--after`` and ``--html`` take them.
"""

from __future__ import annotations

import random
import sys

import click

from cli.common import InputError, engines_loading
from cli.main import cli
from cli.options import (after_option, deal_options, load_one_deal, position_after,
                         rules_options, search_limit_options)

INSTALL_HINT = ("pyramid play needs Textual: pip install 'pyramid-solitaire[play]' "
                "(or pip install textual)")


@cli.command()
@deal_options
@rules_options
@after_option
@search_limit_options
@click.option("--no-solver", is_flag=True, help="Start with the solver off (a switches it on).")
@click.option("--no-warn", is_flag=True,
              help="Do not ask before a losing move; mark it afterwards instead.")
@click.option("--save", "save_path", type=click.Path(dir_okay=False, writable=True),
              default=None, metavar="FILE", help="Write the moves played to FILE on quit.")
def play(seed, deal_text, deal_file, rules, after, max_states, timeout, no_solver, no_warn,
         save_path) -> None:
    """Play a deal in the terminal, the exact solver watching every move: its status after each
    move, a warning before a move that loses the deal, hints and a shortest line on demand.
    A random deal when none is given. Exit 0 on quit, 2 on bad input or no terminal."""
    try:
        from solver.pyramid.play.app import PlayApp
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] not in ("textual", "rich"):
            raise
        raise InputError(INSTALL_HINT) from None
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise InputError("pyramid play needs a terminal (stdin and stdout are not one); to "
                         "settle a position from a script use pyramid solve --after MOVES")
    if seed is None and deal_text is None and deal_file is None:
        seed = random.randrange(1 << 31)
    with engines_loading():
        ident, deal = load_one_deal(seed, deal_text, deal_file)
        begin = position_after(deal, rules, after)
        from solver.pyramid.model.sentences import deal_title
        from solver.pyramid.play.session import load_kernels

        load_kernels(rules)
    app = PlayApp(deal, rules, deal_title(ident), begin.played, assistant=not no_solver,
                  warn=not no_warn, max_states=max_states, timeout=timeout)
    line = app.run()
    if line is None:  # the app stopped without a quit (Ctrl-C): its moves all the same
        line = app.game.saved_line()
    if save_path is not None:
        try:
            with open(save_path, "w", encoding="utf-8") as f:
                f.write(line + "\n")
        except OSError as e:
            raise InputError(f"cannot write --save {save_path}: {e.strerror}") from None
    click.echo(f"Moves played ({len(app.game.played)}): {line}" if line else
               "No move played.")
    from solver.pyramid.play.session import summary

    for sentence in summary(app.game, max_states, timeout):
        click.echo(sentence)
