"""Pyramid commands: solve, hint, check, and the Pyramid side of show.

The commands are plain click commands (``COMMANDS``); ``cli.main`` adds them to the ``pyramid``
group, and this module does not import ``cli.main``. Readable steps and result documents come from
``solver.pyramid.explain``: this module only parses options and prints.

Cheap to import: click, ``cli.common`` and ``solver.pyramid.rules`` only. The engines (numpy, numba) are
imported inside the commands, after the options have been checked, so that ``--help``, the batch
commands that share these options and every input error answer without loading them. Loading the
kernels (compiling them on the first run) happens before any search's clock starts.
"""

from __future__ import annotations

import functools
import sys
from typing import Iterator

import click

from cli.common import (
    EXIT_LOST,
    EXIT_UNKNOWN,
    EXIT_WON,
    MAX_INT64,
    SEED,
    BoundedInt,
    Choice,
    InputError,
    PositiveSeconds,
    color_option,
    echo_json,
    engines_loading,
    input_errors,
    json_option,
    want_color,
)
from cli.replay_html import check_html_path, html_option, save_result_page
from solver.pyramid.sentences import deal_title, losing_lines, verdict_text
from solver.pyramid.rules import GOALS, PRESETS, Rules, find_rules, parse_recycles
from solver.core.text import quoted


# --------------------------------------------------------------------------- shared options

def rules_options(f):
    """``--rules PRESET`` plus one option per rule; each given option overrides the preset."""

    @click.option("--rules", "preset", type=Choice(PRESETS),
                  default="standard", show_default=True, help="Rule preset.")
    @click.option("--recycles", default=None, metavar="N|unlimited",
                  help="Times the waste may be turned over (0 = a single pass; 'unlimited').")
    @click.option("--overlap/--no-overlap", default=None,
                  help="Allow pairing a card with the card it covers.")
    @click.option("--stock-top/--no-stock-top", default=None,
                  help="The stock's top card is available too.")
    @click.option("--goal", type=Choice(GOALS), default=None,
                  help="Clear the pyramid (default) or all 52 cards.")
    @functools.wraps(f)
    def wrapper(*args, preset, recycles, overlap, stock_top, goal, **kwargs):
        kwargs["rules"] = rules_from_options(preset, recycles, overlap, stock_top, goal)
        return f(*args, **kwargs)

    return wrapper


def rules_from_options(preset: str, recycles: str | None, overlap: bool | None,
                       stock_top: bool | None, goal: str | None) -> Rules:
    """The ``Rules`` named by the command-line options (an ``InputError`` for bad values)."""
    with input_errors("bad --rules: "):
        base = find_rules(preset)
    with input_errors("bad --recycles: "):
        rec = "keep" if recycles is None else parse_recycles(recycles)
    return base.with_options(recycles=rec, overlap=overlap, stock_top=stock_top,
                             goal=None if goal is None else goal.lower())


def deal_options(f):
    """``--seed N`` / ``--deal TEXT`` / ``--deal-file PATH|-``: exactly one of them."""
    f = click.option("--deal-file", type=click.Path(dir_okay=True, allow_dash=True), default=None,
                     metavar="PATH|-",
                     help="UTF-8 file with one deal per line ('-' for stdin); blank lines "
                          "skipped.")(f)
    f = click.option("--deal", "deal_text", default=None, help="Deal text: 52 cards.")(f)
    f = click.option("--seed", type=SEED, default=None, help="Deal number (0 .. 2**63-1).")(f)
    return f


def search_limit_options(f):
    """``--max-states N`` and ``--timeout SECONDS``: limits that end a search with "unknown"."""
    f = click.option("--timeout", type=PositiveSeconds(), default=None, metavar="SECONDS",
                     help="Stop the minimum-move search after this many seconds: outcome "
                          "unknown (with a lower bound), exit 3.")(f)
    f = click.option("--max-states", type=BoundedInt(0, MAX_INT64), default=0, show_default=True,
                     help="Stop after this many positions (0 = no limit): outcome unknown, "
                          "exit 3.")(f)
    return f


def after_option(f):
    """``--after MOVES``: work from the position the moves reach."""
    return click.option("--after", default=None, metavar="MOVES",
                        help='Moves already played, e.g. "draw draw 6h+7c": work from the '
                             'position they reach (checked by the replay checker).')(f)


# --------------------------------------------------------------------------- loading


def open_deals(seed: int | None, deal_text: str | None,
               deal_file: str | None) -> Iterator[tuple[dict, object]]:
    """``(ident, deal)`` pairs for the deal options, read as they are needed (``solve``).

    Every input error that can be known before reading a stream is raised here, at once (an
    ``InputError``): the options, a path that cannot be a deal file, and for a regular deal file
    any bad line (it is read through once here, then again deal by deal). Any other deal file
    (stdin, a FIFO, a pipe) is a stream: the returned iterator hands each deal on as soon as its
    line arrives, and raises an ``InputError`` naming a bad line when it reaches it.
    """
    check_deal_options(seed, deal_text, deal_file)
    if deal_file is None:
        return iter([load_one_deal(seed, deal_text)])
    from solver.pyramid.sources import DealFile

    source = DealFile(deal_file)
    with input_errors():
        source.check()
        if source.is_regular():
            source.check_deals()
    return file_deals(source)


def file_deals(source) -> Iterator[tuple[dict, object]]:
    """``({"line": n}, deal)`` of a ``DealFile``'s deals; a bad line is an ``InputError``."""
    deals = source.deals()
    while True:
        with input_errors():
            item = next(deals, None)
        if item is None:
            return
        lineno, deal = item
        yield {"line": lineno}, deal


def check_deal_options(seed: int | None, deal_text: str | None, deal_file: str | None) -> None:
    """Exactly one of the deal options must be given (an ``InputError`` otherwise)."""
    given = [x is not None for x in (seed, deal_text, deal_file)]
    if sum(given) != 1:
        raise InputError("give exactly one of --seed N, --deal TEXT or --deal-file PATH")


def load_one_deal(seed: int | None, deal_text: str | None, deal_file: str | None = None,
                  need: str = "this command takes one deal") -> tuple[dict, object]:
    """``(ident, deal)`` of the single deal named by the deal options, exactly one of which must
    be given; a deal file of more than one is refused at its second deal, read no further (an
    ``InputError`` starting with ``need``).

    ``ident`` names the deal as the JSON output does: ``{"seed": n}``, ``{"line": n}`` (a line of
    the deal file) or ``{}`` (``--deal`` text).
    """
    check_deal_options(seed, deal_text, deal_file)
    from solver.pyramid.deals import deal_from_seed, parse_deal

    if seed is not None:
        return {"seed": seed}, deal_from_seed(seed)
    if deal_text is not None:
        with input_errors("bad --deal: "):
            return {}, parse_deal(deal_text)
    from solver.pyramid.sources import DealFile

    with input_errors():
        lineno, deal = DealFile(deal_file).only_deal(need)
    return {"line": lineno}, deal


def position_after(deal, rules: Rules, after: str | None):
    """``(position, packed start, steps)`` after the ``--after`` moves; ``(None, None, [])``
    without them. An unreadable or illegal move is an ``InputError`` naming the step."""
    if after is None:
        return None, None, []
    from solver.core.cards import split_tokens
    from solver.pyramid.replay import parse_solution, replay
    from solver.pyramid.state import pack_position

    with input_errors("bad --after: "):
        steps = parse_solution(after)
    result = replay(deal, rules, steps)
    if not result.ok:
        token = split_tokens(after)[result.failed_step - 1]
        raise InputError(f"bad --after: step {result.failed_step} {quoted(token)} is illegal: "
                         f"{result.reason}")
    pos = result.position
    start = pack_position(deal, pos.present, pos.stock, pos.waste, pos.recycles_used,
                          rules.recycles is not None)
    return pos, start, steps


def prepared_workspace(rules: Rules, any_line: bool):
    """The search workspace for ``rules``, with every kernel the search calls loaded, so that
    the first search's time is its own. None when memory is too short even for the workspace
    (the search then reports "unknown", reason "memory")."""
    from solver.pyramid.optimal.api import OptimalWorkspace, load_kernels
    from solver.pyramid.winnable import Workspace

    try:
        if any_line:
            return Workspace.create(rules)  # loads the winnability kernel
        load_kernels()
        ws = OptimalWorkspace.create()
        ws.winnability(rules)
        return ws
    except MemoryError:
        return None


# --------------------------------------------------------------------------- text output

def result_json(ident: dict, deal, rules: Rules, result) -> dict:
    """The JSON of one search (docs/json.md, "Pyramid commands"): the deal's ident first."""
    from solver.pyramid.explain import result_dict

    return {**ident, **result_dict(deal, rules, result)}


def exit_code_for(outcomes) -> int:
    """3 if any deal was left undecided, else 1 if any is lost, else 0."""
    from solver.pyramid.explain import outcome_name

    names = [outcome_name(o) for o in outcomes]
    if "unknown" in names:
        return EXIT_UNKNOWN
    if "lost" in names:
        return EXIT_LOST
    return EXIT_WON


def search(deal, rules: Rules, workspace, any_line: bool, start, max_states: int,
           timeout: float | None):
    """One search: the winnability DFS (``any_line``) or the minimum-move A*."""
    from solver.pyramid.optimal.api import solve_optimal
    from solver.pyramid.winnable import solve_winnable

    if any_line:
        return solve_winnable(deal, rules, max_states=max_states, workspace=workspace,
                              start=start)
    return solve_optimal(deal, rules, start=start, max_states=max_states, timeout=timeout,
                         workspace=workspace)


# --------------------------------------------------------------------------- commands

@click.command()
@deal_options
@rules_options
@click.option("--any", "any_line", is_flag=True,
              help="Any winning line (the fast winnability search) instead of a minimum-move one.")
@search_limit_options
@after_option
@html_option
@color_option
@json_option
def solve(seed, deal_text, deal_file, rules, any_line, max_states, timeout, after, html_path,
          no_color, as_json) -> None:
    """Settle a deal: can it be won, and in how few moves (a minimum-move solution; --any for the
    first one found). Exit 0 winnable, 1 not, 2 bad input, 3 unknown (limit reached).

    With --deal-file - (or a FIFO, a pipe) each line is answered as soon as it arrives, the
    answer flushed: solve can run as a coprocess. A bad line there ends the run (exit 2) after
    the answers to the lines before it; a regular file is checked whole before any search.
    --html takes a single deal (a deal file of one line)."""
    if any_line and timeout is not None:
        raise InputError("--timeout limits the minimum-move search; with --any use --max-states")
    with engines_loading():
        if after is None and html_path is None:
            deals = open_deals(seed, deal_text, deal_file)
            positions = None
        else:
            option = "--after" if after is not None else "--html"
            listed = [load_one_deal(seed, deal_text, deal_file, f"{option} needs a single deal")]
            deals = iter(listed)
            positions = position_after(listed[0][1], rules, after)
        check_html_path(html_path)
        ws = prepared_workspace(rules, any_line)  # after every input known so far is checked
    outcomes = []
    color = not as_json and want_color(no_color)
    for n, (ident, deal) in enumerate(deals):
        pos, start, played = positions or (None, None, [])
        result = search(deal, rules, ws, any_line, start, max_states, timeout)
        outcomes.append(result.outcome)
        if html_path is not None:
            save_result_page(html_path, ident, deal, rules, result, pos, played, max_states,
                             timeout)
        print_solve(n, ident, deal, rules, result, pos, played, after is not None, as_json,
                    color)
    sys.exit(exit_code_for(outcomes))


def print_solve(n: int, ident: dict, deal, rules: Rules, result, pos, played, after: bool,
                as_json: bool, color: bool = False) -> None:
    """Print (and flush) ``solve``'s answer for its ``n``-th deal: one JSON object, or the text
    block (a blank line before every block but the first); ``color``: red hearts and diamonds
    in the drawing."""
    from solver.pyramid.deals import draw_deal
    from solver.pyramid.explain import describe_steps
    from solver.pyramid.replay import format_solution, format_step

    if as_json:
        doc = result_json(ident, deal, rules, result)
        if after:
            doc["after"] = [format_step(s) for s in played]
        echo_json(doc)
    else:
        if n:
            click.echo()
        click.echo(f"{deal_title(ident)} ({rules.describe()})")
        click.echo(draw_deal(deal, color=color))
        if after:
            click.echo(f"After {len(played)} moves: {format_solution(played)}")
        click.echo(verdict_text(result))
        if result.solution:
            click.echo("\n".join(describe_steps(deal, rules, result.solution, pos)))
        click.echo(f"{result.states} positions explored in {result.seconds * 1000:.1f} ms.")
    sys.stdout.flush()  # a coprocess waits for this answer before it sends the next deal


CHECK_WON, CHECK_INCOMPLETE, CHECK_ILLEGAL = "won", "incomplete", "illegal"
"""``check``'s outcomes: the moves win; they are all legal but do not win; one is illegal."""


@click.command()
@deal_options
@rules_options
@click.option("--solution", required=True, help='The moves, e.g. "draw 6h+7c Kd recycle".')
@html_option
@json_option
def check(seed, deal_text, deal_file, rules, solution, html_path, as_json) -> None:
    """Replay a move list against a deal: does it win, or where does it first go wrong? For legal
    moves that do not win: after which move the deal stopped being winnable, a move that would
    have kept it winnable and the shortest win from there.
    Exit 0 when it wins, 1 when it does not, 2 for bad input, 3 when left unknown."""
    with engines_loading():
        ident, deal = load_one_deal(seed, deal_text, deal_file)
        from solver.pyramid.deals import format_deal
        from solver.pyramid.replay import parse_solution, replay
    with input_errors("bad --solution: "):
        steps = parse_solution(solution)
    with engines_loading():
        check_html_path(html_path)
    result = replay(deal, rules, steps)
    won = result.ok and result.won
    outcome = CHECK_WON if won else CHECK_INCOMPLETE if result.ok else CHECK_ILLEGAL
    losing = None
    if outcome == CHECK_INCOMPLETE:
        with engines_loading():
            from solver.pyramid.blunder import STATUS_UNKNOWN, first_losing_move

            ws = prepared_workspace(rules, any_line=False)  # kernels loaded before the clock
        losing = first_losing_move(deal, rules, steps, workspace=ws)
    if html_path is not None:
        from cli.replay_html import check_page, write_page

        write_page(html_path, check_page(f"{deal_title(ident)} ({rules.describe()})", deal, rules,
                                         steps, result, losing))
    if as_json:
        echo_json({**ident, "deal": format_deal(deal), "rules": rules.to_dict(),
                   "outcome": outcome, "moves": result.moves,
                   "failed_step": result.failed_step, "error": result.reason,
                   "pyramid_left": result.position.pyramid_left(),
                   "pile_left": result.position.pile_left(),
                   "losing": None if losing is None else losing.to_dict()})
    else:
        click.echo(result.message())
        if losing is not None:
            click.echo("\n".join(losing_lines(deal, rules, steps, losing)))
    if losing is not None and losing.status == STATUS_UNKNOWN:
        sys.exit(EXIT_UNKNOWN)
    sys.exit(EXIT_WON if won else EXIT_LOST)


@click.command()
@deal_options
@rules_options
@after_option
@search_limit_options
@html_option
@json_option
def hint(seed, deal_text, deal_file, rules, after, max_states, timeout, html_path,
         as_json) -> None:
    """The next move of a shortest win from the deal's start (or after --after moves), and how
    many moves that win takes. Exit 0 winnable, 1 not, 2 bad input, 3 unknown."""
    with engines_loading():
        ident, deal = load_one_deal(seed, deal_text, deal_file)
        pos, start, played = position_after(deal, rules, after)
        check_html_path(html_path)
        ws = prepared_workspace(rules, any_line=False)  # after every input is checked
    from solver.pyramid.explain import explain_steps, step_line, step_note
    from solver.pyramid.replay import format_step
    from solver.pyramid.winnable import Outcome

    result = search(deal, rules, ws, False, start, max_states, timeout)
    nxt = result.solution[0] if result.solution else None
    if html_path is not None:
        note = () if nxt is None else (
            f"The hint, move {len(played) + 1}: {format_step(nxt)}, "
            f"{step_note(explain_steps(deal, rules, [nxt], pos)[0])}.",)
        save_result_page(html_path, ident, deal, rules, result, pos, played, max_states, timeout,
                         note)
    if as_json:
        doc = result_json(ident, deal, rules, result)
        doc.pop("solution")
        doc.pop("moves")
        doc.update({"after": [format_step(s) for s in played],
                    "next": None if nxt is None else format_step(nxt),
                    "moves_left": result.moves})
        echo_json(doc)
    elif result.outcome == Outcome.WON and nxt is None:
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


def show_pyramid(seed, deal_text, as_json, no_color: bool = False) -> None:
    """``pyramid show --seed N`` / ``--deal TEXT``: the deal as a triangle and as text."""
    if seed is None and deal_text is None:
        raise InputError("show a Pyramid deal with --seed N or --deal TEXT, or another game's "
                         "deal with 'pyramid show GAME' (see 'pyramid show --help')")
    if seed is not None and deal_text is not None:
        raise InputError("give --seed N or --deal TEXT, not both")
    with engines_loading():
        ident, deal = load_one_deal(seed, deal_text)
        from solver.pyramid.deals import draw_deal, format_deal
    if as_json:
        echo_json({**ident, "deal": format_deal(deal)})
        return
    if seed is not None:
        click.echo(f"Deal {seed}")
    click.echo(draw_deal(deal, color=want_color(no_color)))
    click.echo(format_deal(deal))


COMMANDS = (solve, check, hint)
"""The top-level Pyramid commands, added to the ``pyramid`` group by ``cli.main``."""
