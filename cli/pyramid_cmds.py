"""Pyramid commands: solve, check, and the Pyramid side of show."""

from __future__ import annotations

import functools
import sys

import click

from cli.common import InputError, echo_json, input_errors, json_option
from cli.main import cli
from solver.cards import split_tokens
from solver.deals import deal_from_seed, draw_deal, format_deal, parse_deal
from solver.layout import COL_OF, PYRAMID_CARDS, ROW_OF
from solver.optimal import OptimalWorkspace, solve_optimal
from solver.replay import Position, format_solution, format_step, parse_solution, replay
from solver.rng import MAX_SEED
from solver.rules import PRESETS, Rules, find_rules, parse_recycles
from solver.search import Outcome, SolveResult, Workspace, solve_winnable
from solver.state import pack_position

EXIT_WON, EXIT_LOST, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3


# --------------------------------------------------------------------------- shared options

def rules_options(f):
    """``--rules PRESET`` plus one option per rule; each given option overrides the preset."""

    @click.option("--rules", "preset", default="standard", show_default=True,
                  help=f"Rule preset: {', '.join(PRESETS)}.")
    @click.option("--recycles", default=None, metavar="N|unlimited",
                  help="Times the waste may be turned over (0 = a single pass).")
    @click.option("--overlap/--no-overlap", default=None,
                  help="Allow pairing a card with the card it covers.")
    @click.option("--stock-top/--no-stock-top", default=None,
                  help="The stock's top card is available too.")
    @click.option("--goal", type=click.Choice(["pyramid", "all"]), default=None,
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
    return base.with_options(recycles=rec, overlap=overlap, stock_top=stock_top, goal=goal)


def deal_options(f):
    """``--seed N`` / ``--deal TEXT`` / ``--deal-file PATH|-``: exactly one of them."""
    f = click.option("--deal-file", type=click.File("r"), default=None,
                     help="File with one deal per line ('-' for stdin); blank lines skipped.")(f)
    f = click.option("--deal", "deal_text", default=None, help="Deal text: 52 cards.")(f)
    f = click.option("--seed", type=click.IntRange(0, MAX_SEED), default=None,
                     help="Deal number (0 .. 2**63-1).")(f)
    return f


def search_limit_options(f):
    """``--max-states N`` and ``--timeout SECONDS``: limits that end a search with "unknown"."""
    f = click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
                     metavar="SECONDS",
                     help="Stop the minimum-move search after this many seconds: outcome "
                          "unknown (with a lower bound), exit 3.")(f)
    f = click.option("--max-states", type=click.IntRange(min=0), default=0, show_default=True,
                     help="Stop after this many positions (0 = no limit): outcome unknown, "
                          "exit 3.")(f)
    return f


def after_option(f):
    return click.option("--after", default=None, metavar="MOVES",
                        help='Moves already played, e.g. "draw draw 6h+7c": work from the '
                             'position they reach (checked by the replay checker).')(f)


def position_after(deal, rules: Rules, after: str | None):
    """``(position, packed start, steps)`` after the ``--after`` moves; ``(None, None, [])``
    without them. An unreadable or illegal move is an ``InputError`` naming the step."""
    if after is None:
        return None, None, []
    with input_errors("bad --after: "):
        steps = parse_solution(after)
    result = replay(deal, rules, steps)
    if not result.ok:
        token = split_tokens(after)[result.failed_step - 1]
        raise InputError(f"bad --after: step {result.failed_step} {token!r} is illegal: "
                         f"{result.reason}")
    pos = result.position
    start = pack_position(deal, pos.present, pos.stock, pos.waste, pos.recycles_used,
                          rules.recycles is not None)
    return pos, start, steps


def load_deals(seed: int | None, deal_text: str | None, deal_file) -> list[tuple[str, object]]:
    """``(label, deal)`` pairs for the deal options; exactly one option must be given."""
    given = [x is not None for x in (seed, deal_text, deal_file)]
    if sum(given) != 1:
        raise InputError("give exactly one of --seed N, --deal TEXT or --deal-file PATH")
    if seed is not None:
        return [(f"seed {seed}", deal_from_seed(seed))]
    if deal_text is not None:
        with input_errors("bad --deal: "):
            return [("deal", parse_deal(deal_text))]
    deals = []
    name = deal_file.name if deal_file.name != "<stdin>" else "stdin"
    for lineno, line in enumerate(deal_file, start=1):
        if not line.strip():
            continue
        with input_errors(f"{name} line {lineno}: "):
            deals.append((f"line {lineno}", parse_deal(line)))
    if not deals:
        raise InputError(f"{name} holds no deal (it is empty or only blank lines)")
    return deals


def load_one_deal(seed: int | None, deal_text: str | None, deal_file=None):
    """The single deal named by the deal options."""
    deals = load_deals(seed, deal_text, deal_file)
    if len(deals) != 1:
        raise InputError(f"this command takes one deal, the file holds {len(deals)}")
    return deals[0][1]


# --------------------------------------------------------------------------- text output

def describe_steps(deal, rules: Rules, steps, start: Position | None = None) -> list[str]:
    """One numbered, readable line per step, saying where each card comes from."""
    pos = start.copy() if start is not None else Position(deal, rules)
    where_pyr = {int(c): p for p, c in enumerate(deal[:PYRAMID_CARDS])}
    lines = []
    width = len(str(len(steps)))
    for k, step in enumerate(steps, start=1):
        text = format_step(step)
        if step[0] == "draw":
            note = f"turn {format_step(('king', pos.stock[-1]))} onto the waste"
        elif step[0] == "recycle":
            note = "turn the waste over into the stock"
        else:
            parts = []
            for c in step[1:]:
                if c in where_pyr and pos.present >> where_pyr[c] & 1:
                    p = where_pyr[c]
                    parts.append(f"{format_step(('king', c))} (pyramid row {ROW_OF[p] + 1}, "
                                 f"card {COL_OF[p] + 1})")
                elif pos.waste and pos.waste[-1] == c:
                    parts.append(f"{format_step(('king', c))} (waste)")
                else:
                    parts.append(f"{format_step(('king', c))} (stock)")
            note = ("remove " if step[0] == "king" else "pair ") + " with ".join(parts)
        lines.append(f"{k:>{width}}. {text:<8} {note}")
        pos.apply(step)
    return lines


def result_json(label: str, deal, rules: Rules, result: SolveResult) -> dict:
    return {
        "deal_label": label,
        "deal": format_deal(deal),
        "rules": rules.to_dict(),
        "outcome": {Outcome.WON: "won", Outcome.LOST: "lost", Outcome.UNKNOWN: "unknown"}[result.outcome],
        "winnable": result.winnable,
        "solution": [format_step(s) for s in result.solution],
        "moves": result.moves,
        "optimal": result.optimal,
        "lower_bound": result.lower_bound,
        "states": result.states,
        "seconds": round(result.seconds, 6),
    }


def verdict_text(result: SolveResult) -> str:
    if result.outcome == Outcome.WON:
        kind = "minimum" if result.optimal else "a winning line of"
        return f"Winnable: {kind} {result.moves} moves."
    if result.outcome == Outcome.LOST:
        return "Not winnable."
    bound = f" (at least {result.lower_bound} moves)" if result.lower_bound is not None else ""
    return f"Unknown (limit reached){bound}."


def exit_code_for(outcomes) -> int:
    """3 if any deal was left undecided, else 1 if any is lost, else 0."""
    if any(o == Outcome.UNKNOWN for o in outcomes):
        return EXIT_UNKNOWN
    if any(o == Outcome.LOST for o in outcomes):
        return EXIT_LOST
    return EXIT_WON


# --------------------------------------------------------------------------- commands

@cli.command()
@deal_options
@rules_options
@click.option("--any", "any_line", is_flag=True,
              help="Any winning line (the fast winnability search) instead of a minimum-move one.")
@search_limit_options
@after_option
@json_option
def solve(seed, deal_text, deal_file, rules, any_line, max_states, timeout, after, as_json) -> None:
    """Settle a deal: can it be won, and in how few moves (a minimum-move solution; --any for the
    first one found). Exit 0 winnable, 1 not, 2 bad input, 3 unknown (limit reached)."""
    deals = load_deals(seed, deal_text, deal_file)
    if after is not None and len(deals) != 1:
        raise InputError(f"--after needs a single deal, the file holds {len(deals)}")
    if any_line and timeout is not None:
        raise InputError("--timeout limits the minimum-move search; with --any use --max-states")
    ws = Workspace.create(rules) if any_line else OptimalWorkspace.create()
    outcomes = []
    for n, (label, deal) in enumerate(deals):
        pos, start, played = position_after(deal, rules, after)
        if any_line:
            result = solve_winnable(deal, rules, max_states=max_states, workspace=ws, start=start)
        else:
            result = solve_optimal(deal, rules, start=start, max_states=max_states,
                                   timeout=timeout, workspace=ws)
        outcomes.append(result.outcome)
        if as_json:
            doc = result_json(label, deal, rules, result)
            if after is not None:
                doc["after"] = [format_step(s) for s in played]
            echo_json(doc)
            continue
        if n:
            click.echo()
        click.echo(f"{label.capitalize()} ({rules.describe()})")
        click.echo(draw_deal(deal))
        if after is not None:
            click.echo(f"After {len(played)} moves: {format_solution(played)}")
        click.echo(verdict_text(result))
        if result.solution:
            click.echo("\n".join(describe_steps(deal, rules, result.solution, pos)))
        click.echo(f"{result.states} positions explored in {result.seconds * 1000:.1f} ms.")
    sys.exit(exit_code_for(outcomes))


@cli.command()
@deal_options
@rules_options
@click.option("--solution", required=True, help='The moves, e.g. "draw 6h+7c Kd recycle".')
@json_option
def check(seed, deal_text, deal_file, rules, solution, as_json) -> None:
    """Replay a move list against a deal: does it win, or where does it first go wrong?
    Exit 0 when it wins, 1 when it does not, 2 for bad input."""
    deal = load_one_deal(seed, deal_text, deal_file)
    with input_errors("bad --solution: "):
        steps = parse_solution(solution)
    result = replay(deal, rules, steps)
    if as_json:
        echo_json({"deal": format_deal(deal), "rules": rules.to_dict(), "ok": result.ok,
                   "won": result.won and result.ok, "moves": result.moves,
                   "failed_step": result.failed_step, "reason": result.reason,
                   "pyramid_left": result.position.pyramid_left()})
    else:
        click.echo(result.message())
    sys.exit(EXIT_WON if result.ok and result.won else EXIT_LOST)


@cli.command()
@deal_options
@rules_options
@after_option
@search_limit_options
@json_option
def hint(seed, deal_text, deal_file, rules, after, max_states, timeout, as_json) -> None:
    """The next move of a shortest win from the deal's start (or after --after moves), and how
    many moves that win takes. Exit 0 winnable, 1 not, 2 bad input, 3 unknown."""
    deal = load_one_deal(seed, deal_text, deal_file)
    pos, start, played = position_after(deal, rules, after)
    result = solve_optimal(deal, rules, start=start, max_states=max_states, timeout=timeout)
    nxt = result.solution[0] if result.solution else None
    if as_json:
        doc = result_json("seed" if seed is not None else "deal", deal, rules, result)
        doc.pop("solution")
        doc.pop("moves")
        doc.update({"after": [format_step(s) for s in played],
                    "next": None if nxt is None else format_step(nxt),
                    "moves_left": result.moves})
        echo_json(doc)
    elif result.outcome == Outcome.WON and nxt is None:
        click.echo("The deal is already won.")
    elif result.outcome == Outcome.WON:
        line = describe_steps(deal, rules, [nxt], pos)[0].split(".", 1)[1].strip()
        text = format_step(nxt)
        note = line[len(text):].strip()
        click.echo(f"Next move: {text:<8} {note}")
        word = "move" if result.moves == 1 else "moves"
        click.echo(f"{result.moves} {word} to win from here, this one included (the minimum).")
    elif result.outcome == Outcome.LOST:
        click.echo("This position can no longer be won.")
    else:
        click.echo(verdict_text(result))
    sys.exit(exit_code_for([result.outcome]))


def show_pyramid(seed, deal_text, as_json) -> None:
    deal = load_one_deal(seed, deal_text)
    if as_json:
        echo_json({"seed": seed, "deal": format_deal(deal)})
        return
    if seed is not None:
        click.echo(f"Deal {seed}")
    click.echo(draw_deal(deal))
    click.echo(format_deal(deal))
