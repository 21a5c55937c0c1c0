"""``pyramid solve``: settle deals, one answer per deal (a minimum-move win, or with ``--any`` the
first win found), streamed as the deals arrive.

Cheap to import (click, ``cli.common``, ``cli.options``); the engines load inside the command.
The search itself is ``solver.api.solve``, its workspace ``solver.api.search_workspace``.
"""

from __future__ import annotations

import sys

import click

from cli.common import (InputError, color_option, echo_json, engines_loading, json_option,
                        want_color)
from cli.options import (after_option, deal_options, echo_deal_heading, exit_code_for,
                         open_search_deals, preset_rules_options, result_json,
                         search_limit_options)
from cli.replay_html import check_html_path, html_option, save_result_page
from solver import api
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.sentences import verdict_text

SOLVE_HELP = """Settle a deal: can it be won, and in how few moves (a minimum-move solution; --any
for the first one found). Exit 0 winnable, 1 not, 2 bad input, 3 unknown (limit reached).

With --deal-file - (or a FIFO, a pipe) each line is answered as soon as it arrives, the answer
flushed: solve can run as a coprocess. A bad line there ends the run (exit 2) after the answers
to the lines before it; a regular file is checked whole before any search. --html takes a
single deal (a deal file of one line)."""


def solve_command(name: str, preset: str, help_text: str) -> click.Command:
    """``pyramid solve`` as the command ``name`` whose rules default to the preset ``preset``
    (``solve``: ``standard``; ``challenge board``: ``msc``): the same options, the same
    answers (``settle``)."""

    @click.command(name, help=help_text)
    @deal_options
    @preset_rules_options(preset)
    @click.option("--any", "any_line", is_flag=True,
                  help="Any winning line (the fast winnability search) instead of a minimum-move "
                       "one.")
    @search_limit_options
    @after_option
    @html_option
    @color_option
    @json_option
    def command(**options) -> None:
        settle(**options)

    return command


def settle(seed, deal_text, deal_file, rules, any_line, max_states, timeout, after, html_path,
           no_color, as_json) -> None:
    """What ``solve`` does with its options: answer every deal, then exit with the code of the
    worst answer."""
    if any_line and timeout is not None:
        raise InputError("--timeout limits the minimum-move search; with --any use --max-states")
    with engines_loading():
        deals, begin = open_search_deals(seed, deal_text, deal_file, rules, after, html_path)
        check_html_path(html_path)
        ws = api.search_workspace(rules, minimal=not any_line)  # after every input is checked
    outcomes = []
    color = not as_json and want_color(no_color)
    for n, (ident, deal) in enumerate(deals):
        result = api.solve(deal, rules, minimal=not any_line, max_states=max_states,
                           timeout=timeout, start=begin.packed, workspace=ws)
        outcomes.append(result.outcome)
        if html_path is not None:
            save_result_page(html_path, ident, deal, rules, result, begin.position,
                             begin.played, max_states, timeout)
        print_solve(n, ident, deal, rules, result, begin.position, begin.played,
                    after is not None, as_json, color)
    sys.exit(exit_code_for(outcomes))


solve = solve_command("solve", "standard", SOLVE_HELP)


def print_solve(n: int, ident: dict, deal, rules: Rules, result, pos, played, after: bool,
                as_json: bool, color: bool = False) -> None:
    """Print (and flush) ``solve``'s answer for its ``n``-th deal: one JSON object, or the text
    block (a blank line before every block but the first); ``color``: red hearts and diamonds
    in the drawing."""
    from solver.pyramid.model.explain import describe_steps
    from solver.pyramid.model.replay import format_step

    if as_json:
        doc = result_json(ident, deal, rules, result)
        if after:
            doc["after"] = [format_step(s) for s in played]
        echo_json(doc)
    else:
        echo_deal_heading(n, ident, deal, rules, played if after else [], color, pos)
        click.echo(verdict_text(result))
        if result.solution:
            click.echo("\n".join(describe_steps(deal, rules, result.solution, pos)))
        click.echo(f"{result.states} positions explored in {result.seconds * 1000:.1f} ms.")
    sys.stdout.flush()  # a coprocess waits for this answer before it sends the next deal
