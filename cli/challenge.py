"""``pyramid challenge score`` and ``pyramid challenge cards``: Microsoft Solitaire Collection's
score and card challenges, one answer per deal, streamed as the deals arrive (as ``solve``);
``pyramid challenge board``, its board challenge, is ``solve`` with the msc rules by default.

Cheap to import (click, ``cli.common``, ``cli.options``); the engines load inside the commands.
The searches are ``solver.pyramid.challenge.api``'s, the sentences ``model.sentences``'.
"""

from __future__ import annotations

import sys

import click

from cli.common import (EXIT_LOST, EXIT_UNKNOWN, EXIT_WON, MAX_INT64, BoundedInt, color_option,
                        echo_json, engines_loading, input_errors, json_option, want_color)
from cli.main import PyramidGroup, cli
from cli.options import (after_option, deal_options, echo_deal_heading, open_search_deals,
                         preset_rules_options, search_limit_options)
from cli.replay_html import check_html_path, html_option
from cli.solve import SOLVE_HELP, solve_command

CHALLENGE_PRESET = "msc"
"""The challenges are Microsoft's: their rules default to its preset."""


@cli.group(cls=PyramidGroup)
def challenge() -> None:
    """Microsoft Solitaire Collection's challenges: clear the board, reach a score, or clear
    cards of a rank (msc rules unless told). Exit 0 reached (board: winnable; score without a
    target: answered), 1 out of reach, 2 bad input, 3 unknown (limit reached)."""


BOARD_HELP = ("Microsoft Solitaire Collection's board challenge, clear the pyramid: pyramid solve "
              "with the msc rules unless told (any rule option overrides them), the same "
              "options and answers.\n\n" + SOLVE_HELP)

challenge.add_command(solve_command("board", CHALLENGE_PRESET, BOARD_HELP))


def challenge_options(f):
    """The options both challenges share: the deal, the rules (``msc`` by default), the search
    limits, ``--after``, ``--html``, colour and ``--json``."""
    for option in (json_option, color_option, html_option, after_option, search_limit_options,
                   preset_rules_options(CHALLENGE_PRESET), deal_options):
        f = option(f)
    return f


@challenge.command("score")
@challenge_options
@click.option("--target", type=BoundedInt(0, MAX_INT64), default=None, metavar="POINTS",
              help="The challenge's goal in points (e.g. 2400); without it: the most points.")
@click.option("--current", type=BoundedInt(0, MAX_INT64), default=0, show_default=True,
              metavar="POINTS", help="Points already earned in the challenge's earlier deals.")
def score(seed, deal_text, deal_file, rules, max_states, timeout, after, html_path, no_color,
          as_json, target, current) -> None:
    """The line that earns the points still needed (--target minus --current) in the fewest
    moves; without --target, or when no line earns them, the most points any line earns, in the
    fewest moves. Points: 5 a pair, 5 a king, and 25, 50, 75, 100, 150, 250, 500 for emptying
    the pyramid's rows from the bottom up (1,290 at most: the deal ends when the pyramid is
    clear)."""
    from solver.pyramid.challenge.api import score_challenge

    def search(deal, start):
        return score_challenge(deal, rules, target=target, current=current, start=start,
                               max_states=max_states, timeout=timeout)

    run(search, seed, deal_text, deal_file, rules, after, html_path, no_color, as_json,
        running=True)


@challenge.command("cards")
@challenge_options
@click.option("--rank", required=True, metavar="R",
              help="The rank to clear: A, 2..9, T or 10, J, Q, K.")
@click.option("--count", type=BoundedInt(1, MAX_INT64), default=4, show_default=True,
              help="Cards of that rank the challenge asks for.")
@click.option("--current", type=BoundedInt(0, MAX_INT64), default=0, show_default=True,
              help="Cards of that rank already cleared in the challenge's earlier deals.")
def cards(seed, deal_text, deal_file, rules, max_states, timeout, after, html_path, no_color,
          as_json, rank, count, current) -> None:
    """The line that removes the cards of the rank still needed (--count minus --current) in
    the fewest moves; when no line does, the most any line removes, in the fewest moves, and,
    when the best line that clears the pyramid removes fewer (clearing ends the deal), that
    line too: which is better depends on the next deal."""
    from solver.core.cards import parse_rank
    from solver.pyramid.challenge.api import card_challenge

    with input_errors("bad --rank: "):
        value = parse_rank(rank)

    def search(deal, start):
        return card_challenge(deal, value, rules, count=count, current=current, start=start,
                              max_states=max_states, timeout=timeout)

    run(search, seed, deal_text, deal_file, rules, after, html_path, no_color, as_json,
        running=False)


def run(search, seed, deal_text, deal_file, rules, after, html_path, no_color, as_json,
        running: bool) -> None:
    """Answer every deal the options name with ``search(deal, start)``, write the ``--html``
    page (one deal only, as ``solve``), and exit with the code of the worst answer;
    ``running``: show the running score beside each step."""
    with engines_loading():
        deals, begin = open_search_deals(seed, deal_text, deal_file, rules, after, html_path)
        check_html_path(html_path)
    color = not as_json and want_color(no_color)
    codes = []
    for n, (ident, deal) in enumerate(deals):
        result = search(deal, begin.packed)
        codes.append(exit_code(result))
        if html_path is not None:
            from cli.replay_html import challenge_page, write_page

            write_page(html_path, challenge_page(ident, deal, rules, result, begin.played))
        print_answer(n, ident, deal, rules, result, begin.position, begin.played, as_json,
                     color, running)
    sys.exit(max(codes, default=EXIT_WON))


DEAL_LINE = "deal_line"
"""The key of a deal file's line number in a challenge's JSON: ``line`` (its key in the other
commands' documents) is the challenge's line of play there."""


def json_ident(ident: dict) -> dict:
    """The deal's ident as a challenge's JSON names it (``deal_line`` for a deal file's line)."""
    return {DEAL_LINE: ident["line"]} if "line" in ident else dict(ident)


def exit_code(result) -> int:
    """3 unknown, 1 a target out of reach, else 0."""
    if result.outcome == "unknown":
        return EXIT_UNKNOWN
    if result.outcome == "best" and result.needed is not None:
        return EXIT_LOST
    return EXIT_WON


def print_answer(n: int, ident: dict, deal, rules, result, pos, played, as_json: bool,
                 color: bool, running: bool) -> None:
    """Print (and flush) the answer for the ``n``-th deal: one JSON object, or the text block
    (the deal, the verdict, the numbered line with the running score, the counters)."""
    from solver.pyramid.model.explain import describe_steps
    from solver.pyramid.model.replay import format_step
    from solver.pyramid.model.sentences import challenge_verdict

    if as_json:
        doc = {**json_ident(ident), **result.to_dict()}
        if played:
            doc["after"] = [format_step(s) for s in played]
        echo_json(doc)
        sys.stdout.flush()
        return
    echo_deal_heading(n, ident, deal, rules, played, color, pos)
    for sentence in challenge_verdict(result):
        click.echo(sentence)
    click.echo("\n".join(describe_steps(deal, rules, result.best.line, pos, scored=running)))
    clearing = getattr(result, "clearing", None)
    if clearing is not None:
        click.echo("The line that clears the pyramid:")
        click.echo("\n".join(describe_steps(deal, rules, clearing.line, pos, scored=running)))
    click.echo(f"{result.states:,} positions explored in {result.seconds * 1000:.1f} ms.")
    sys.stdout.flush()
