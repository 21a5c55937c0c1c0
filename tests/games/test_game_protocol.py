"""Every registered game keeps the one shape (solver/games/base.py): unique names and aliases,
options that build, the generic ``simulate``/``show`` (and ``analyse``) commands with the common
JSON keys, and ``run_chunk`` + ``summarise`` giving what ``simulate`` gives."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from cli.games import game_command
from cli.main import cli
from solver.core.runner import run_games
from solver.games import (ALIASES, GAMES, REGISTERED, build_registry, find_game, games_with,
                          lacking_command)
from solver.games.base import (ANALYSE, COMMANDS, SHOW, SIMULATE, Option, Trace, declare,
                               summary_json)

NAMES = sorted(GAMES)
SEED = 7
RUN_GAMES = 3
PLAYER_NUMBER = re.compile(r"\b[Pp]layers? \d|\bp\d (?:[2-9TJQKA][cdhs]|RJ)\b")
"""A table position called a player (``player 0``, ``players 0..2``, ``p1 Js``): every game
calls it a seat (``seat 0``), as Hearts and Duizenden always did."""


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def defaults(game, command: str) -> dict:
    """The values the CLI passes when no option is given."""
    return {o.name: () if o.multiple and o.default is None else o.default
            for o in game.options_for(command)}


def test_the_top_level_help_loads_neither_the_registry_nor_numpy():
    """``pyramid --help`` stays at about 0.1 s: the game groups read the registry when used."""
    code = "import sys, cli.main; print(sorted(m for m in ('solver.games', 'numpy') " \
           "if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_registry_imports_no_numba():
    code = "import sys, solver.games; print('numba' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_variant_completions_are_the_engines_names():
    from solver.games.duizenden.options import VARIANT_NAMES
    from solver.games.oldmaid.engine import VARIANTS

    def completions(name: str) -> tuple[str, ...]:
        return next(o for o in GAMES[name].options if o.name == "variants").completions

    assert completions("old-maid") == VARIANTS
    assert completions("duizenden") == tuple(VARIANT_NAMES)


def test_text_completion_offers_the_names_after_a_comma():
    from cli.games import complete_from

    complete = complete_from(("colour", "joker", "jack"))
    assert complete(None, None, "j") == ["joker", "jack"]
    assert complete(None, None, "colour,J") == ["colour,joker", "colour,jack"]
    assert complete(None, None, "x") == []


def test_json_without_the_common_keys_is_refused():
    assert summary_json({"game": "x", "seed": 0, "rules": {}, "n": 1})["n"] == 1
    with pytest.raises(ValueError, match="missing: seed"):
        summary_json({"game": "x", "rules": {}})
    with pytest.raises(ValueError, match="rules as an object"):
        summary_json({"game": "x", "seed": 0, "rules": "standard"})


def test_names_and_aliases_are_unique_and_found():
    words = [w for g in REGISTERED for w in (g.name, *g.aliases)]
    assert len(words) == len(set(words))
    for game in REGISTERED:
        assert find_game(game.name) is game
        for alias in game.aliases:
            assert find_game(alias.upper()) is game and ALIASES[alias] == game.name


def test_an_unknown_game_names_the_choices():
    with pytest.raises(ValueError, match="unknown game 'chess' .choose from old-maid, "):
        find_game("chess")


def test_a_game_without_a_command_is_named_as_such():
    """``pyramid analyse black-maria`` says the game has no analyse and which games do, not that
    no such game exists; every game has simulate and show."""
    have = games_with(ANALYSE)
    assert have == [g.name for g in REGISTERED if g.analyse is not None] and have
    for game in REGISTERED:
        assert lacking_command(game.name, SIMULATE) is None
        assert lacking_command(game.name, SHOW) is None
        if game.analyse is None:
            text = lacking_command(game.aliases[0] if game.aliases else game.name, ANALYSE)
            assert text.startswith(f"{game.name} has no analyse command ("), text
            assert all(name in text for name in have)
            assert f"'pyramid simulate {game.name}' or 'pyramid show {game.name}'" in text
        else:
            assert lacking_command(game.name, ANALYSE) is None
    assert lacking_command("chess", ANALYSE) is None


def test_a_name_declared_twice_is_refused():
    game = GAMES["hearts"]
    with pytest.raises(ValueError, match="'hearts' is declared twice"):
        build_registry((game, game))


def test_declare_names_a_missing_function():
    with pytest.raises(ValueError, match="lacks trace"):
        declare(SimpleNamespace(__name__="half", **{n: print for n in (
            "rules_from_options", "run_chunk", "chunk_params", "summarise", "simulate",
            "render_summary")}), name="half", title="Half", options=())


def test_a_bad_option_declaration_is_refused():
    with pytest.raises(ValueError, match="kind must be one of"):
        Option("x", ("--x",), "float")
    with pytest.raises(ValueError, match="a choice needs choices"):
        Option("x", ("--x",), "choice")


@pytest.mark.parametrize("name", NAMES)
def test_every_command_builds_from_the_declared_options(name):
    game = GAMES[name]
    assert set(game.help) == set(game.commands) and game.title
    for command in game.commands:
        cmd = game_command(command, name)
        assert cmd.name == name
        flags = {f for p in cmd.params for f in p.opts + p.secondary_opts}
        for option in game.options_for(command):
            assert set(option.flags[0].split("/")) <= flags
        assert "--json" in flags and ("--jobs" in flags) == (command != SHOW)
    missing = set(COMMANDS) - set(game.commands)
    for command in missing:
        with pytest.raises(ValueError, match=f"has no {command}"):
            game_command(command, name)


@pytest.mark.parametrize("name", NAMES)
def test_simulate_json_through_the_generic_command(name):
    r = invoke("simulate", name, "--games", RUN_GAMES, "--seed", SEED, "--json", "-q", "-j", 1)
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["game"] == name and d["seed"] == SEED and isinstance(d["rules"], dict)
    assert d["games"] == RUN_GAMES


@pytest.mark.parametrize("name", NAMES)
def test_show_json_and_text_come_from_one_trace(name):
    game = GAMES[name]
    r = invoke("show", name, "--seed", SEED, "--json")
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["game"] == name and d["seed"] == SEED and isinstance(d["rules"], dict)
    values = defaults(game, SHOW)
    rule, own, _ = game.split_values(SHOW, values)
    own["seed"] = SEED
    trace = game.trace(game.rules_from_options(**rule), **own)
    assert isinstance(trace, Trace) and trace.events and trace.rules == d["rules"]
    assert trace.record == d
    text = invoke("show", name, "--seed", SEED).stdout
    assert text.splitlines()[:len(trace.head)] == list(trace.head)
    assert all(line in text for line in trace.events + trace.tail)


@pytest.mark.parametrize("name", NAMES)
def test_run_chunk_and_summarise_give_what_simulate_gives(name):
    game = GAMES[name]
    rule, own, _ = game.split_values(SIMULATE, defaults(game, SIMULATE))
    rules = game.rules_from_options(**rule)
    own.update(seed=SEED, games=RUN_GAMES)
    expected = game.simulate(rules, jobs=1, progress=False, **own)
    extra = {k: v for k, v in own.items() if k not in ("seed", "games")}
    records = run_games(game.run_chunk, SEED, RUN_GAMES, game.chunk_params(rules, **extra),
                        jobs=1, progress=False)
    assert game.summarise(records, rules, SEED, **extra) == expected


@pytest.mark.parametrize("name", [n for n in NAMES if ANALYSE in GAMES[n].commands])
def test_analyse_json_through_the_generic_command(name):
    r = invoke("analyse", name, "--trials", 5, "--seed", SEED, "--json", "-q", "-j", 1)
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["game"] == name and d["seed"] == SEED and isinstance(d["rules"], dict)


@pytest.mark.parametrize("name", NAMES)
def test_every_game_calls_a_place_at_the_table_a_seat(name):
    """One word for one thing: ``seat N`` is a fixed place at the table in every game's text;
    a place counted from the dealer is said in words (``left of the dealer``)."""
    commands = [("show", "--seed", SEED), ("simulate", "--games", RUN_GAMES, "--seed", SEED)]
    if ANALYSE in GAMES[name].commands:
        commands.append(("analyse", "--trials", 5, "--seed", SEED))
    for command, *args in commands:
        r = invoke(command, name, *args, "-j", 1, "-q") if command != "show" else \
            invoke(command, name, *args)
        assert r.exit_code == 0, r.stderr
        assert not PLAYER_NUMBER.search(r.stdout), (command, PLAYER_NUMBER.search(r.stdout))
        if command == "show":
            assert "seat 0" in r.stdout
    # The pattern finds what Old Maid and One Card printed before.
    for old in ("  player 0 (dealer)  12 cards", "trick  1: p1 Js, p2 As", "players 0..2"):
        assert PLAYER_NUMBER.search(old)
