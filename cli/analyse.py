"""``pyramid analyse`` for a Pyramid deal: the verdict and what a player can learn from it.

The ``analyse`` group of ``cli.main`` runs ``analyse_pyramid`` when no game is named
(``pyramid analyse --seed 7``) and a game's own analysis otherwise (``pyramid analyse hearts``).
This module holds the Pyramid options (``analyse_options``) and the printing; the analysis itself
is ``solver.pyramid.analysis.deal`` and ``solver.pyramid.analysis.rules_matrix``. Light to import: click and
``cli.options`` only, the engines load when a command runs.
"""

from __future__ import annotations

import sys
import textwrap

import click

from cli.common import (EXIT_UNKNOWN, SEED, BoundedInt, InputError, color_option, echo_json,
                        engines_loading, hidden_by_json, json_option, progress_options,
                        want_color)
from cli.options import (after_option, deal_options, exit_code_for, heading_lines, load_one_deal,
                         position_after, rules_options, search_limit_options)
from cli.replay_html import check_html_path, html_option
from solver import api
from solver.pyramid.model.sentences import (LIMIT_TEXT, deal_title, partial_sentence, plural,
                                      reason_sentence, verdict_text)

MAX_PLAYOUTS = 10_000_000
"""Most playouts per player one analysis may ask for."""
PLAYOUTS_TEXT = "10,000"
"""``solver.pyramid.analysis.playouts.DEFAULT_PLAYOUTS`` as the help text says it (this module does not
import the engines; a test checks the two agree)."""
TEXT_WIDTH = 100
"""Long sentences (a reason naming many cards) are wrapped to this width."""
RULE_OPTIONS = ("preset", "recycles", "overlap", "stock_top", "goal")
"""The parameters of ``cli.options.rules_options`` (refused with ``--all-rules``)."""


def analyse_options(f):
    """Every option of ``pyramid analyse`` for a Pyramid deal."""
    for decorate in reversed([
        deal_options, rules_options, after_option, search_limit_options,
        click.option("--playouts", type=BoundedInt(0, MAX_PLAYOUTS), default=None,
                     metavar="N",
                     help=f"Games each player (random, greedy) plays from a won deal (default "
                          f"{PLAYOUTS_TEXT}; 0 = none)."),
        click.option("--playout-seed", type=SEED, default=0, show_default=True,
                     help="Seed of the playouts (game i of a player uses stream i)."),
        click.option("--jobs", "-j", type=click.IntRange(min=0), default=1, show_default=True,
                     help="Processes for the playouts (0 = all cores)."),
        click.option("--all-rules", is_flag=True,
                     help="The verdict (and minimum moves, when found within a second) under "
                          "all 32 combinations of recycles 0/1/2/unlimited, overlap, stock top "
                          "and goal, as one table."),
        html_option, color_option, progress_options, json_option,
    ]):
        f = decorate(f)
    return f


def rule_options_given(ctx) -> list[str]:
    """The rule options given on the command line (not left at their defaults)."""
    from click.core import ParameterSource

    return [name for name in RULE_OPTIONS
            if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)]


def analyse_pyramid(ctx, seed, deal_text, deal_file, rules, after, max_states, timeout,
                    playouts, playout_seed, jobs, all_rules, html_path, no_color, progress,
                    as_json) -> None:
    """Run the Pyramid analysis of the deal options and print it; exits 0 won, 1 lost, 3
    unknown (2 for bad input)."""
    color = not as_json and want_color(no_color)
    if all_rules and html_path is not None:
        raise InputError("--html shows one line of play under one set of rules: leave out "
                         "--all-rules")
    if all_rules:
        given = rule_options_given(ctx)
        if given:
            flag = "--" + ("rules" if given[0] == "preset" else given[0].replace("_", "-"))
            raise InputError(f"--all-rules tries every rule combination: leave out {flag}")
        if after is not None:
            raise InputError("--all-rules starts from the deal's start: moves legal under one "
                             "rule combination may be illegal under another, so leave out "
                             "--after")
    with engines_loading():
        ident, deal = load_one_deal(seed, deal_text, deal_file)
        begin = position_after(deal, rules, after)
        pos, played = begin.position, begin.played
        check_html_path(html_path)
        ws = api.search_workspace(rules, minimal=True)
        if not all_rules:
            load_analysis_kernels(deal, rules)
    if all_rules:
        show_matrix(ident, deal, max_states, hidden_by_json(progress, as_json), as_json, color)
        return
    from solver.pyramid.analysis.deal import analyse_deal

    analysis = analyse_deal(deal, rules, start=pos, max_states=max_states, timeout=timeout,
                            playouts=playouts, seed=playout_seed, jobs=jobs,
                            progress=hidden_by_json(progress, as_json), workspace=ws)
    if html_path is not None:
        from cli.replay_html import analysis_page, write_page

        title = f"{deal_title(ident)} ({rules.describe()})"
        write_page(html_path, analysis_page(title, deal, rules, analysis, played,
                                            verdict_text(analysis.verdict, len(played))))
    if as_json:
        doc = {**ident, **analysis.to_dict(deal)}
        if after is not None:
            from solver.pyramid.model.replay import format_step
            doc["after"] = [format_step(s) for s in played]
        echo_json(doc)
    else:
        click.echo("\n".join(analysis_lines(ident, deal, rules, analysis, pos, played, color)))
    sys.exit(exit_code_for([analysis.verdict.outcome]))


def load_analysis_kernels(deal, rules) -> None:
    """Load (or compile, on a first run) the kernels the analysis calls beyond the searches'
    (the best partial result's and the playouts'), inside ``engines_loading``'s notice."""
    from solver.pyramid.analysis.partial import load_kernels
    from solver.pyramid.analysis.playouts import playout_rates

    load_kernels()
    playout_rates(deal, rules, games=1)


def analysis_lines(ident: dict, deal, rules, analysis, pos, played,
                   color: bool = False) -> list[str]:
    """The text of an analysis (``color``: red hearts and diamonds in the drawing)."""
    from solver.pyramid.model.outcome import Outcome

    verdict = analysis.verdict
    lines = heading_lines(ident, deal, rules.describe(), played, pos, color)
    if verdict.outcome == Outcome.WON and not verdict.solution:
        return lines + ["The deal is already won."]
    lines.append(verdict_text(verdict))
    if verdict.outcome == Outcome.WON and not verdict.optimal:
        lines.append(f"The minimum is at least {verdict.lower_bound} moves (the minimum-move "
                     f"search stopped: {LIMIT_TEXT[analysis.choices_stopped]}); a winning line:")
    if verdict.outcome == Outcome.WON:
        lines += won_lines(deal, rules, analysis, pos, not played)
    else:
        lines += lost_lines(deal, rules, analysis, pos, len(played))
    if verdict.states:
        lines.append(f"{verdict.states:,} positions explored in {verdict.seconds * 1000:.1f} ms "
                     f"(the verdict's search).")
    else:
        lines.append(f"Settled before any position was explored, in "
                     f"{verdict.seconds * 1000:.1f} ms.")
    return lines


def lost_lines(deal, rules, analysis, pos, played: int) -> list[str]:
    """Why a deal is lost and how far it can be taken (an unknown verdict: the bounds)."""
    from solver.pyramid.model.explain import describe_steps
    from solver.pyramid.model.outcome import Outcome

    verdict = analysis.verdict
    lines = []
    if verdict.outcome == Outcome.LOST:
        lines += textwrap.wrap(reason_sentence(analysis.reason, verdict.states), TEXT_WIDTH,
                               subsequent_indent="  ", break_on_hyphens=False)
    part = analysis.partial
    lines.append(partial_sentence(part, played) + ":")
    if part.line:
        lines += ["  " + line for line in describe_steps(deal, rules, list(part.line), pos)]
    return lines


def won_lines(deal, rules, analysis, pos, from_start: bool) -> list[str]:
    """A shortest line with the choices at each step, the narrow steps, the playouts' win
    rates and the difficulty rank (``solver.pyramid.analysis.deal.playout_lines``)."""
    from solver.pyramid.analysis.deal import is_narrow, playout_lines
    from solver.pyramid.model.explain import describe_steps

    steps = describe_steps(deal, rules, analysis.verdict.solution, pos)
    lines = []
    choices = {c.number: c for c in analysis.choices}
    if steps and 0 in choices:
        first = choices[0]
        lines.append(f"At the start: {plural(first.legal, 'legal move')}, "
                     f"{first.winning} of them keep{'s' if first.winning == 1 else ''} the deal "
                     f"winnable.")
    width = max((len(s) for s in steps), default=0)
    for k, text in enumerate(steps):
        c = choices.get(k)
        note = "" if c is None or c.legal < 2 else (f"{c.winning} of {c.legal} win"
                                                    + ("  (narrow)" if is_narrow(c) else ""))
        lines.append(f"  {text:<{width}}   {note}".rstrip())
    narrow = analysis.narrow_steps
    if analysis.choices_stopped:
            lines.append(f"The choices at each step were not counted "
                     f"({LIMIT_TEXT[analysis.choices_stopped]}).")
    elif analysis.choices:
        if narrow:
            lines.append(f"Narrow steps (only one move keeps the deal winnable): "
                         f"{', '.join(map(str, narrow))} ({len(narrow)} of {len(steps)}).")
        else:
            lines.append("No narrow step: wherever there was a choice, more than one move kept "
                         "the deal winnable.")
    lines += playout_lines(analysis.playouts, analysis.rank, analysis.rules, from_start)
    return lines


def show_matrix(ident: dict, deal, max_states: int, progress: bool | None, as_json: bool,
                color: bool = False) -> None:
    """``--all-rules``: the verdict under every rule combination, as one table."""
    from solver.core.progress import progress_bar
    from solver.pyramid.analysis.rules_matrix import matrix_findings, matrix_rules, rules_matrix
    from solver.pyramid.model.outcome import Outcome

    bar = progress_bar(progress, total=len(matrix_rules()), desc="rules", unit="rules")
    try:
        rows = rules_matrix(deal, max_states=max_states, progress=bar.update)
    finally:
        bar.close()
    findings = matrix_findings(rows)
    if as_json:
        from solver.pyramid.model.deals import format_deal

        echo_json({**ident, "deal": format_deal(deal), "matrix": [r.to_dict() for r in rows],
                   "findings": findings})
    else:
        click.echo("\n".join(heading_lines(ident, deal, "every rule combination", [], None, color)
                             + matrix_table(rows) + findings))
    sys.exit(EXIT_UNKNOWN if any(r.outcome == Outcome.UNKNOWN for r in rows) else 0)


CELL_WIDTH = 8
"""Width of one cell of the rules table."""


def matrix_table(rows) -> list[str]:
    """The rules matrix as a grid: one line per recycle limit, one column per combination of
    overlap, stock top and goal; a cell is the minimum moves of a win (``won`` when the quick
    search did not find it), ``lost`` or ``?`` (a limit left it unknown)."""
    from solver.pyramid.analysis.rules_matrix import MATRIX_RECYCLES
    from solver.pyramid.model.outcome import Outcome

    def cell(row) -> str:
        if row.outcome == Outcome.WON:
            return "won" if row.moves is None else str(row.moves)
        return "lost" if row.outcome == Outcome.LOST else "?"

    w = CELL_WIDTH
    label = 10
    groups = [("overlap", "no overlap")]
    head1 = " " * label + "".join(f"{g:<{4 * w}}" for g in groups[0])
    head2 = " " * label + "".join(f"{s:<{2 * w}}" for s in ("stock hidden", "stock top") * 2)
    head3 = f"{'recycles':<{label}}" + "".join(f"{g:<{w}}" for g in ("pyramid", "all") * 4)
    lines = ["Verdict under each rule combination: a number is a win in that many moves at the",
             "fewest; 'won' a win whose minimum took over a second to find; '?' a limit left it "
             "unknown.",
             head1.rstrip(), head2.rstrip(), head3.rstrip()]
    for rec in MATRIX_RECYCLES:
        cells = [cell(r) for r in rows if r.rules.recycles == rec]
        name = "unlimited" if rec is None else str(rec)
        lines.append((f"{name:<{label}}" + "".join(f"{c:<{w}}" for c in cells)).rstrip())
    return lines
