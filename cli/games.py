"""``simulate GAME``, ``show GAME`` and ``analyse GAME`` for every game of the registry.

One generic command per verb: ``game_command(command, name)`` builds the click command of one
game from its declaration (``solver.games.base.Game``): its options from the declared
``Option``s, then the rules from ``rules_from_options``, the run, and the game's renderers.
Nothing here knows a particular game. Light to import (no numba): the engines load when a
command runs.
"""

from __future__ import annotations

import click

from cli.common import (SEED, echo_json, input_errors, jobs_option, json_option,
                        progress_options)
from solver.games import find_game
from solver.games.base import (ANALYSE, SHOW, SIMULATE, Game, Option, render_trace,
                               summary_json, trace_json)


def click_type(o: Option):
    """The click type of an option's values (``None`` for free text and flags)."""
    if o.kind == "int":
        return click.IntRange(o.lo, o.hi)
    if o.kind == "seed":
        return SEED
    if o.kind == "choice":
        return click.Choice(list(o.choices), case_sensitive=False)  # completion lists them
    return None


def complete_from(words: tuple[str, ...]):
    """Shell completion offering ``words`` that start with what was typed (any case); after a
    comma, the words for the next name of a comma-separated list."""
    def complete(ctx, param, incomplete: str) -> list[str]:
        done, _, last = incomplete.rpartition(",")
        prefix = done + "," if done else ""
        return [prefix + w for w in words if w.startswith(last.lower())]

    return complete


def click_option(o: Option):
    """The click decorator of one declared option."""
    attrs = {"help": o.help, "default": o.default, "show_default": o.show_default}
    if o.kind == "flag":
        attrs["is_flag"] = True
    else:
        attrs["type"] = click_type(o)
    if o.multiple:
        attrs["multiple"] = True
    if o.metavar:
        attrs["metavar"] = o.metavar
    if o.completions:
        attrs["shell_complete"] = complete_from(o.completions)
    return click.option(*o.flags, o.name, **attrs)


def build(game: Game, command: str, callback) -> click.Command:
    """``command GAME``: the game's options in declared order, then ``--jobs``, ``--quiet`` and
    ``--progress`` (commands that run many games) and ``--json``."""
    shared = [jobs_option, progress_options] if command in (SIMULATE, ANALYSE) else []
    decorators = [click_option(o) for o in game.options_for(command)] + shared + [json_option]
    for decorate in reversed(decorators):
        callback = decorate(callback)
    return click.command(game.name, help=game.help[command])(callback)


def make_rules(game: Game, command: str, values: dict) -> tuple:
    """(the rules object, the command's own values, the render values) from a command's
    options; a refused rule is a one-line usage error."""
    rule, run, render = game.split_values(command, values)
    with input_errors():
        return game.rules_from_options(**rule), run, render


def runs_command(game: Game, command: str, run, render) -> click.Command:
    """``simulate`` or ``analyse``: many seeded games, summarised by ``run`` and printed by
    ``render`` (or as JSON)."""
    def runs(as_json: bool, jobs: int, progress: bool | None, **values) -> None:
        from solver.core.memory import check_room_to_load

        rules, own, _ = make_rules(game, command, values)
        check_room_to_load()  # a MemoryError: the frame's one line about memory, exit 3
        with input_errors():
            summary = run(rules, jobs=jobs, progress=progress, **own)
        if as_json:
            echo_json(summary_json(summary))
            return
        click.echo(render(summary, rules))
        for line in game.warnings(summary):
            click.echo(line, err=True)

    return build(game, command, runs)


def simulate_command(game: Game) -> click.Command:
    return runs_command(game, SIMULATE, game.simulate, game.render_summary)


def analyse_command(game: Game) -> click.Command:
    return runs_command(game, ANALYSE, game.analyse, game.render_analysis)


def show_command(game: Game) -> click.Command:
    def show(as_json: bool, **values) -> None:
        rules, own, render = make_rules(game, SHOW, values)
        with input_errors():
            trace = game.trace(rules, **own)
        if as_json:
            echo_json(trace_json(trace))
        else:
            click.echo(render_trace(trace, **render))

    return build(game, SHOW, show)


BUILDERS = {SIMULATE: simulate_command, SHOW: show_command, ANALYSE: analyse_command}
"""The generic command of each verb."""


def game_command(command: str, name: str) -> click.Command:
    """The click command ``command NAME`` (``simulate``, ``show`` or ``analyse``) of the game
    ``name``. Raises ``ValueError`` for an unknown game or a verb the game does not have."""
    game = find_game(name)
    if command not in game.commands:
        raise ValueError(f"{game.name} has no {command} command")
    return BUILDERS[command](game)
