"""``pyramid check``: replay a move list against a deal; for legal moves that do not win, where
the deal was lost and what would have kept it winnable.

Cheap to import (click, ``cli.common``, ``cli.options``); the engines load inside the command.
The answer's data is ``solver.pyramid.model.explain.check_dict``, the losing move
``solver.pyramid.analysis.losing_move.first_losing_move``.
"""

from __future__ import annotations

import sys

import click

from cli.common import (EXIT_LOST, EXIT_UNKNOWN, EXIT_WON, echo_json, engines_loading,
                        input_errors, json_option)
from cli.options import deal_options, load_one_deal, rules_options
from cli.replay_html import check_html_path, html_option
from solver import api
from solver.pyramid.model.sentences import check_score_sentence, deal_title, losing_lines


@click.command()
@deal_options
@rules_options
@click.option("--solution", required=True, help='The moves, e.g. "draw 6h+7c Kd recycle".')
@html_option
@json_option
def check(seed, deal_text, deal_file, rules, solution, html_path, as_json) -> None:
    """Replay a move list against a deal: does it win, or where does it first go wrong, and the
    score its legal moves earn (Microsoft's table: 5 a pair or king, a bonus per row emptied).
    For legal moves that do not win: after which move the deal stopped being winnable, a move
    that would have kept it winnable and the shortest win from there, with the running score.
    Exit 0 when it wins, 1 when it does not, 2 for bad input, 3 when left unknown."""
    with engines_loading():
        ident, deal = load_one_deal(seed, deal_text, deal_file)
        from solver.pyramid.model.explain import (CHECK_INCOMPLETE, CHECK_WON, check_dict,
                                                  check_outcome)
        from solver.pyramid.model.replay import parse_solution, replay
    with input_errors("bad --solution: "):
        steps = parse_solution(solution)
    with engines_loading():
        check_html_path(html_path)
    result = replay(deal, rules, steps)
    outcome = check_outcome(result)
    losing = None
    if outcome == CHECK_INCOMPLETE:
        with engines_loading():
            from solver.pyramid.analysis.losing_move import first_losing_move
            from solver.pyramid.model.outcome import STATUS_UNKNOWN

            ws = api.search_workspace(rules, minimal=True)  # kernels loaded before the clock
        losing = first_losing_move(deal, rules, steps, workspace=ws)
    if html_path is not None:
        from cli.replay_html import check_page, write_page

        write_page(html_path, check_page(f"{deal_title(ident)} ({rules.describe()})", deal, rules,
                                         steps, result, losing))
    if as_json:
        echo_json({**ident, **check_dict(deal, rules, steps, result, losing)})
    else:
        click.echo(result.message())
        click.echo(check_score_sentence(result))
        if losing is not None:
            click.echo("\n".join(losing_lines(deal, rules, steps, losing)))
    if losing is not None and losing.status == STATUS_UNKNOWN:
        sys.exit(EXIT_UNKNOWN)
    sys.exit(EXIT_WON if outcome == CHECK_WON else EXIT_LOST)
