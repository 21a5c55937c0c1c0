"""``pyramid hint``: the next move of a shortest win, from the deal's start or after ``--after``.

Cheap to import (click, ``cli.common``, ``cli.options``); the engines load inside the command.
The answer's data is ``solver.pyramid.model.explain.hint_dict``.
"""

from __future__ import annotations

import sys

import click

from cli.common import color_option, echo_json, engines_loading, json_option, want_color
from cli.options import (after_option, deal_options, echo_deal_heading, exit_code_for,
                         load_one_deal, position_after, rules_options, search_limit_options)
from cli.replay_html import check_html_path, html_option, save_result_page
from solver import api
from solver.pyramid.model.sentences import verdict_text


@click.command()
@deal_options
@rules_options
@after_option
@search_limit_options
@html_option
@color_option
@json_option
def hint(seed, deal_text, deal_file, rules, after, max_states, timeout, html_path, no_color,
         as_json) -> None:
    """The next move of a shortest win from the deal's start (or after --after moves, drawing
    the position they reach first), and how many moves that win takes. Exit 0 winnable, 1 not,
    2 bad input, 3 unknown."""
    with engines_loading():
        ident, deal = load_one_deal(seed, deal_text, deal_file)
        begin = position_after(deal, rules, after)
        pos, start, played = begin.position, begin.packed, begin.played
        check_html_path(html_path)
        ws = api.search_workspace(rules, minimal=True)  # after every input is checked
    from solver.pyramid.model.explain import explain_steps, hint_dict, step_line, step_note
    from solver.pyramid.model.replay import format_step
    from solver.pyramid.model.outcome import Outcome

    result = api.solve(deal, rules, max_states=max_states, timeout=timeout, start=start,
                       workspace=ws)
    nxt = result.solution[0] if result.solution else None
    if html_path is not None:
        note = () if nxt is None else (
            f"The hint, move {len(played) + 1}: {format_step(nxt)}, "
            f"{step_note(explain_steps(deal, rules, [nxt], pos)[0])}.",)
        save_result_page(html_path, ident, deal, rules, result, pos, played, max_states, timeout,
                         note)
    if as_json:
        echo_json({**ident, **hint_dict(deal, rules, result, played)})
        sys.exit(exit_code_for([result.outcome]))
    if played:
        echo_deal_heading(0, ident, deal, rules, played, want_color(no_color), pos)
    if result.outcome == Outcome.WON and nxt is None:
        click.echo("The deal is already won.")
    elif result.outcome == Outcome.WON:
        first = explain_steps(deal, rules, [nxt], pos)[0]
        click.echo(f"Next move: {step_line(first)}")
        word = "move" if result.moves == 1 else "moves"
        click.echo(f"{result.moves} {word} to win from here, this one included (the minimum).")
    elif result.outcome == Outcome.LOST:
        click.echo("This position can no longer be won.")
    else:
        click.echo(verdict_text(result))
    sys.exit(exit_code_for([result.outcome]))
