"""``pyramid play``: play a deal in the terminal with the solver at your side
(``solver.pyramid.play.app``, on Textual: the optional extra ``play``).

Cheap to import (click, ``cli.common``, ``cli.options``); Textual and the engines load inside the
command. On quit the moves played are printed as one line (and written to ``--save FILE``), as
``pyramid check``, ``--after`` and ``--html`` take them, and with ``--enter`` the deal typed in
as deal text. The deal options are checked before the terminal is, so that bad input is refused
in one line even from a script.
"""

from __future__ import annotations

import random
import sys

import click

from cli.common import InputError, engines_loading
from cli.main import cli
from cli.options import (NO_START, after_option, deal_options, line_option, load_one_deal,
                         play_limit_options, position_after, rules_options)

INSTALL_HINT = ("pyramid play needs Textual: pip install 'pyramid-solitaire[play]' "
                "(or pip install textual)")


@cli.command()
@deal_options
@line_option
@click.option("--enter", is_flag=True,
              help="Type in the deal first, card by card (row by row from the apex, then the "
                   "stock), each card checked as it comes; its text is printed at the end, "
                   "for --deal.")
@rules_options
@after_option
@play_limit_options
@click.option("--no-solver", is_flag=True, help="Start with the solver off (a switches it on).")
@click.option("--no-warn", is_flag=True,
              help="Do not ask before a losing move; mark it afterwards instead.")
@click.option("--save", "save_path", type=click.Path(dir_okay=False, writable=True),
              default=None, metavar="FILE", help="Write the moves played to FILE on quit.")
def play(seed, deal_text, deal_file, line, enter, rules, after, max_states, timeout, no_solver,
         no_warn, save_path) -> None:
    """Play a deal in the terminal, the exact solver watching every move: its status after each
    move, a warning before a move that loses the deal, hints and a shortest line on demand.
    A random deal when none is given; with --enter, the deal you type in. Exit 0 on quit, 2 on
    bad input or no terminal."""
    try:
        from solver.pyramid.play.app import PlayApp
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] not in ("textual", "rich"):
            raise
        raise InputError(INSTALL_HINT) from None
    with engines_loading():
        ident, deal, begin = chosen_deal(seed, deal_text, deal_file, line, enter, rules, after)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise InputError("pyramid play needs a terminal (stdin and stdout are not one); to "
                         "settle a position from a script use pyramid solve --after MOVES")
    from solver.pyramid.model.sentences import deal_title

    # The kernels load in the app, after its first frame (PlayApp.load_solver).
    app = PlayApp(deal, rules, deal_title(ident), begin.played, assistant=not no_solver,
                  warn=not no_warn, max_states=max_states, timeout=timeout)
    line = app.run()
    if app.entered_deal is not None:
        click.echo(f"Deal entered: {app.entered_deal.text()}")
    if app.game is None:
        click.echo("No deal entered.")
        return
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

    with engines_loading():  # quit before the app loaded them: they load here
        sentences = summary(app.game, max_states, timeout)
    for sentence in sentences:
        click.echo(sentence)


def chosen_deal(seed, deal_text, deal_file, line, enter: bool, rules, after):
    """``(ident, deal, start)`` of the deal options (``cli.options.load_one_deal``; a random
    seed when none is given) and ``--after``; with ``--enter`` no deal (None: it is typed in),
    and none of the deal options nor ``--after`` may come with it. Every refusal is an
    ``InputError``."""
    if enter:
        given = [name for name, value in (("--seed", seed), ("--deal", deal_text),
                                          ("--deal-file", deal_file), ("--line", line),
                                          ("--after", after)) if value is not None]
        if given:
            raise InputError(f"--enter types the deal in: leave out {given[0]}")
        return {}, None, NO_START
    if line is not None and deal_file is None:
        load_one_deal(seed, deal_text, deal_file, line=line)  # its one-line refusal
    if seed is None and deal_text is None and deal_file is None:
        seed = random.randrange(1 << 31)
    ident, deal = load_one_deal(seed, deal_text, deal_file,
                                "pyramid play takes one deal (--line N picks one)", line=line)
    return ident, deal, position_after(deal, rules, after)
