"""What the Pyramid commands share: the deal, rules and search-limit options, loading the deal
they name, and the output every search command gives (its JSON document, its exit code).

``solve``, ``hint``, ``check``, ``show`` (the Pyramid side), ``analyse`` and (the rule options)
``batch`` and ``stats`` import it; it imports no command module.

Cheap to import: click, ``cli.common`` and ``solver.pyramid.model.rules`` only. The engines (numpy,
numba) are imported inside the functions, after the options have been checked, so that
``--help`` and every input error answer without loading them.
"""

from __future__ import annotations

import functools
from typing import Iterator, NamedTuple

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
    input_errors,
)
from solver.core.text import quoted
from solver.pyramid.model.rules import GOALS, PRESETS, Rules, find_rules, parse_recycles


# --------------------------------------------------------------------------- shared options

def rules_options(f):
    """``--rules PRESET`` (default ``standard``) plus one option per rule; each given option
    overrides the preset."""
    return preset_rules_options("standard")(f)


def preset_rules_options(default: str):
    """``rules_options`` with the preset ``default`` (the challenges take ``msc``)."""
    return functools.partial(rules_options_with, default)


def chosen_rules_options(shown: str):
    """``rules_options`` whose preset, when ``--rules`` is not given, the command chooses (its
    help says ``shown``, e.g. "standard; msc with --challenge"): the command gets ``rules``, a
    function of that preset's name giving the ``Rules`` (an ``InputError`` for bad values)."""
    return functools.partial(rules_options_with, None, shown=shown)


def rules_options_with(default: str | None, f, shown: str | None = None):
    """``rules_options`` of ``f`` with the preset ``default`` (None: ``chosen_rules_options``,
    the default described by ``shown``)."""

    @click.option("--rules", "preset", type=Choice(PRESETS), default=default,
                  show_default=default is not None,
                  help="Rule preset." + (f"  [default: {shown}]" if shown else ""))
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
        def rules(chosen: str) -> Rules:
            return rules_from_options(preset or chosen, recycles, overlap, stock_top, goal)

        kwargs["rules"] = rules if default is None else rules(default)
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
    return limit_options(f, "Stop the minimum-move search after this many seconds: outcome "
                            "unknown (with a lower bound), exit 3.",
                         "Stop after this many positions (0 = no limit): outcome unknown, "
                         "exit 3.")


def play_limit_options(f):
    """``search_limit_options`` as ``pyramid play`` has them: the limits of each search the
    solver runs after a move, whose answer then shows as unknown (play has no exit 3)."""
    return limit_options(f, "Stop each search the solver runs after this many seconds: the "
                            "status shows unknown.",
                         "Stop each search the solver runs after this many positions (0 = no "
                         "limit): the status shows unknown, and no warning comes.")


def limit_options(f, timeout_help: str, states_help: str):
    """``--timeout SECONDS`` and ``--max-states N`` with these help texts."""
    f = click.option("--timeout", type=PositiveSeconds(), default=None, metavar="SECONDS",
                     help=timeout_help)(f)
    f = click.option("--max-states", type=BoundedInt(0, MAX_INT64), default=0, show_default=True,
                     help=states_help)(f)
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
    from solver.pyramid.model.sources import DealFile

    source = DealFile(deal_file)
    with input_errors():
        source.check()
        if source.is_regular():
            source.check_deals()
    return file_deals(source)


def open_search_deals(seed: int | None, deal_text: str | None, deal_file: str | None,
                      rules: Rules, after: str | None, html_path: str | None):
    """``(deals, start)`` for a command that answers each deal with a search (``solve``, the
    challenges): the ``(ident, deal)`` pairs (``open_deals``), and the ``Start`` of every deal
    (``position_after``: ``NO_START`` without ``--after``). ``--after`` and ``--html`` take a
    single deal (an ``InputError`` at a deal file's second deal)."""
    if after is None and html_path is None:
        return open_deals(seed, deal_text, deal_file), NO_START
    option = "--after" if after is not None else "--html"
    ident, deal = load_one_deal(seed, deal_text, deal_file, f"{option} needs a single deal")
    return iter([(ident, deal)]), position_after(deal, rules, after)


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


def line_option(f):
    """``--line N``: the deal on line N of ``--deal-file`` (a file of many deals)."""
    return click.option("--line", "line", type=click.IntRange(min=1), default=None, metavar="N",
                        help="Take the deal on line N of --deal-file (1-based, blank lines "
                             "counted, as the JSON's \"line\" counts them).")(f)


def load_one_deal(seed: int | None, deal_text: str | None, deal_file: str | None = None,
                  need: str = "this command takes one deal",
                  line: int | None = None) -> tuple[dict, object]:
    """``(ident, deal)`` of the single deal named by the deal options, exactly one of which must
    be given; a deal file of more than one is refused at its second deal, read no further (an
    ``InputError`` starting with ``need``), unless ``line`` (``--line N``) picks the deal of
    its line N (an ``InputError`` when that line is past the end, blank, or not a deal, or
    when no deal file is given).

    ``ident`` names the deal as the JSON output does: ``{"seed": n}``, ``{"line": n}`` (a line of
    the deal file) or ``{}`` (``--deal`` text).
    """
    if line is not None and deal_file is None:
        raise InputError("--line N picks a line of a deal file: give --deal-file PATH too")
    check_deal_options(seed, deal_text, deal_file)
    from solver.pyramid.model.deals import Deal

    if seed is not None:
        return {"seed": seed}, Deal.from_seed(seed)
    if deal_text is not None:
        with input_errors("bad --deal: "):
            return {}, Deal.parse(deal_text)
    from solver.pyramid.model.sources import DealFile

    source = DealFile(deal_file)
    if line is not None:
        with input_errors():
            source.check()
        with input_errors(f"bad --line {line}: "):
            return {"line": line}, source.deal_at(line)
    with input_errors():
        lineno, deal = source.only_deal(need)
    return {"line": lineno}, deal


class Start(NamedTuple):
    """Where a search starts: the replay checker's ``position`` after the ``--after`` moves, its
    ``packed`` form (the searches' ``start``) and the moves ``played``; ``NO_START`` without
    them (the deal's start)."""

    position: object
    packed: object
    played: list


NO_START = Start(None, None, [])


def position_after(deal, rules: Rules, after: str | None) -> Start:
    """The ``Start`` after the ``--after`` moves; ``NO_START`` without them. An unreadable or
    illegal move is an ``InputError`` naming the step."""
    if after is None:
        return NO_START
    from solver.core.cards import split_tokens
    from solver.pyramid.model.state import packed_position
    from solver.pyramid.model.replay import parse_solution, replay

    with input_errors("bad --after: "):
        steps = parse_solution(after)
    result = replay(deal, rules, steps)
    if not result.ok:
        token = split_tokens(after)[result.failed_step - 1]
        raise InputError(f"bad --after: step {result.failed_step} {quoted(token)} is illegal: "
                         f"{result.reason}")
    return Start(result.position, packed_position(result.position), steps)


# --------------------------------------------------------------------------- output

def result_json(ident: dict, deal, rules: Rules, result) -> dict:
    """The JSON of one search (docs/json.md, "Pyramid commands"): the deal's ident first."""
    from solver.pyramid.model.explain import result_dict

    return {**ident, **result_dict(deal, rules, result)}


def echo_deal_heading(n: int, ident: dict, deal, rules: Rules, played, color: bool,
                      position=None) -> None:
    """The head of a search command's text answer for its ``n``-th deal (a blank line before
    every deal but the first): ``heading_lines``."""
    if n:
        click.echo()
    click.echo("\n".join(heading_lines(ident, deal, rules.describe(), played, position, color)))


def heading_lines(ident: dict, deal, rules_text: str, played, position, color: bool) -> list[str]:
    """The deal's title with the rules, then the drawn deal; after the moves of ``--after``
    (``played``, reaching the replay checker's ``position``), those moves and the position they
    reach instead, as the player has it in front of them."""
    from solver.pyramid.model.deals import draw_deal
    from solver.pyramid.model.replay import draw_position, format_solution
    from solver.pyramid.model.sentences import deal_title

    lines = [f"{deal_title(ident)} ({rules_text})"]
    if played and position is not None:
        word = "move" if len(played) == 1 else "moves"
        lines.append(f"After {len(played)} {word}: {format_solution(played)}")
        lines.append(draw_position(position, color=color))
    else:
        lines.append(draw_deal(deal, color=color))
    return lines


def exit_code_for(outcomes) -> int:
    """3 if any deal was left undecided, else 1 if any is lost, else 0."""
    from solver.pyramid.model.explain import outcome_name

    names = [outcome_name(o) for o in outcomes]
    if "unknown" in names:
        return EXIT_UNKNOWN
    if "lost" in names:
        return EXIT_LOST
    return EXIT_WON
