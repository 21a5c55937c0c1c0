"""Black Maria and standard Hearts commands: ``simulate black-maria|hearts`` and
``show black-maria|hearts``.

The options come from ``solver.games.hearts.rules`` (plain Python); the engine (numba) is imported
inside the commands, so that help and completion stay fast.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

import click

from cli.common import (echo_json, input_errors, jobs_option, json_option, players_option,
                        quiet_option, seed_option)
from cli.game_options import choice, games_option, show_seed_option
from cli.main import show, simulate
from solver.core.cards import format_card, format_cards
from solver.games.hearts.rules import (BLACK_MARIA, DEFAULT_TARGET, HEARTS_STANDARD, MAX_PLAYERS,
                                 MAX_TARGET, MIN_PLAYERS, Preset, hand_order, pass_name)
from solver.core.stats import fmt_mean, fmt_p, text_histogram

if TYPE_CHECKING:
    from solver.games.hearts.game import HeartsRules


def table_options(preset: Preset):
    """The options every command of ``preset`` takes: players, Spot Hearts, Omnibus, target, and
    for standard Hearts the moon rule."""

    def decorate(f):
        if len(preset.moon_rules) > 1:
            f = click.option("--moon", type=choice(preset.moon_rules),
                             default=preset.moon_rules[0], show_default=True,
                             help="Shooting the moon: the shooter's points go to every other "
                                  "player (others) or are subtracted from the shooter's score.")(f)
        f = click.option("--target", type=click.IntRange(1, MAX_TARGET), default=DEFAULT_TARGET,
                         show_default=True, help="Target score: the game ends after the deal in "
                                                 "which a total reaches it.")(f)
        f = click.option("--omnibus", is_flag=True,
                         help="Omnibus: the jack of diamonds counts -10 for whoever takes it.")(f)
        f = click.option("--spot-hearts", is_flag=True,
                         help="Spot Hearts: each heart costs its rank (A 14), the queen of "
                              "spades 25.")(f)
        return players_option(MIN_PLAYERS, MAX_PLAYERS, 4)(f)

    return decorate


def make_rules(preset: Preset, players, spot_hearts, omnibus, target, moon=None) -> HeartsRules:
    from solver.games.hearts.game import HeartsRules

    with input_errors():
        return HeartsRules(game=preset.name, players=players, spot_hearts=spot_hearts,
                           omnibus=omnibus, target=target, moon=moon)


def print_summary(s: dict, rules: HeartsRules) -> None:
    click.echo(rules.describe())
    click.echo(f"seed {s['seed']}: {s['games']} games, {s['deals']} deals; "
               f"every deal's points sum to {s['deal_total']}"
               + (" (moon deals redistribute)" if rules.moon != "none" else ""))
    click.echo("")
    moon = "moon_rate_per_seat" in s
    head = f"{'seat':<5} {'penalty per deal [95% CI]':<28} {'win rate [95% CI]':<26}"
    click.echo((head + (" moon rate [95% CI]" if moon else "")).rstrip())
    for seat in range(rules.players):
        line = (f"{seat:<5} {fmt_mean(s['penalty_per_deal'][seat]):<28} "
                f"{fmt_p(s['win_rate'][seat]):<26}")
        if moon:
            line += " " + fmt_p(s["moon_rate_per_seat"][seat], 5)
        click.echo(line.rstrip())
    click.echo("")
    click.echo(f"games won jointly (tied lowest): {fmt_p(s['shared_win_rate'])}")
    if moon:
        click.echo(f"moon rate per deal: {fmt_p(s['moon_rate'], 5)}")
    click.echo(f"game length in deals: {fmt_mean(s['game_length'])}")
    click.echo(text_histogram(s["game_length_histogram"], label="deals      games"))
    if s["games_capped"]:
        click.echo(f"warning: {s['games_capped']} games stopped at the deal cap", err=True)


def simulate_command(preset: Preset, players, games, seed, jobs, quiet, as_json, spot_hearts,
                     omnibus, target, moon=None) -> None:
    from solver.games.hearts.game import simulate as run_simulation

    rules = make_rules(preset, players, spot_hearts, omnibus, target, moon)
    with input_errors():
        summary = run_simulation(rules, games, seed, jobs, progress=not quiet)
    if as_json:
        echo_json(summary)
    else:
        print_summary(summary, rules)


def print_trace(t) -> None:
    rules = t.rules
    click.echo(f"{rules.describe()}")
    click.echo(f"seed {t.seed}, game 0, deal {t.deal_index + 1}: seat {t.dealer} deals"
               + (f"; removed {format_cards(rules.removed)}" if rules.removed else ""))
    if any(t.scores_before):
        click.echo("scores before the deal: " + " ".join(map(str, t.scores_before)))
    click.echo("")
    click.echo("hands dealt:")
    for seat, hand in enumerate(t.dealt):
        click.echo(f"  seat {seat}: {format_cards(hand_order(hand))}")
    direction = pass_name(t.pass_offset, rules.players)
    if direction == "none":
        click.echo("passing: none this deal")
    else:
        click.echo(f"passing {direction}:")
        for seat, cards in enumerate(t.passed):
            to = (seat + t.pass_offset) % rules.players
            click.echo(f"  seat {seat} -> seat {to}: {format_cards(hand_order(cards))}")
    click.echo("")
    click.echo("tricks (leader's card first):")
    for k, (row, lead, win, pts) in enumerate(zip(t.plays, t.leaders, t.winners, t.trick_points)):
        cards = " ".join(f"{format_card(c):>3}" for c in row)
        click.echo(f"  {k + 1:>2}. seat {lead} leads: {cards}   seat {win} takes"
                   + (f" {pts}" if pts else ""))
    click.echo("")
    if t.shooter >= 0:
        click.echo(f"seat {t.shooter} shoots the moon ({rules.moon})")
    click.echo("points this deal: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(t.points))
               + f" (total {sum(t.points)})")


def show_command(preset: Preset, players, seed, deal, as_json, spot_hearts, omnibus, target,
                 moon=None) -> None:
    from solver.games.hearts.game import trace_deal

    rules = make_rules(preset, players, spot_hearts, omnibus, target, moon)
    with input_errors():
        t = trace_deal(rules, seed, deal)
    if not as_json:
        print_trace(t)
        return
    d = {"game": rules.game, **asdict(t)}
    d["rules"] = rules.to_dict()
    d["pass"] = pass_name(t.pass_offset, rules.players)
    for key in ("dealt", "passed"):
        d[key] = [[format_card(c) for c in hand_order(row)] for row in d[key]]
    d["plays"] = [[format_card(c) for c in row] for row in d["plays"]]
    echo_json(d)


def deal_option(f):
    return click.option("--deal", type=click.IntRange(min=1), default=1, show_default=True,
                        help="Which deal of game 0 to show (1 = the first).")(f)


@simulate.command("black-maria")
@table_options(BLACK_MARIA)
@games_option(100_000)
@seed_option(default=0, help="Seed (0 .. 2**63-1); game i uses stream i of it.")
@jobs_option
@quiet_option
@json_option
def simulate_black_maria(players, games, seed, jobs, quiet, as_json, spot_hearts, omnibus, target):
    """Random play of Black Maria games to the target score: penalties, wins, game length."""
    simulate_command(BLACK_MARIA, players, games, seed, jobs, quiet, as_json, spot_hearts, omnibus,
                     target)


@simulate.command("hearts")
@table_options(HEARTS_STANDARD)
@games_option(100_000)
@seed_option(default=0, help="Seed (0 .. 2**63-1); game i uses stream i of it.")
@jobs_option
@quiet_option
@json_option
def simulate_hearts(players, games, seed, jobs, quiet, as_json, spot_hearts, omnibus, target,
                    moon):
    """Random play of standard Hearts games to the target score: penalties, wins, length, moons."""
    simulate_command(HEARTS_STANDARD, players, games, seed, jobs, quiet, as_json, spot_hearts,
                     omnibus, target, moon)


@show.command("black-maria")
@table_options(BLACK_MARIA)
@show_seed_option(help="Seed: shows game 0 of 'simulate black-maria --seed S'.")
@deal_option
@json_option
def show_black_maria(players, seed, deal, as_json, spot_hearts, omnibus, target):
    """Print one random-play Black Maria deal: the hands, the passes and the tricks."""
    show_command(BLACK_MARIA, players, seed, deal, as_json, spot_hearts, omnibus, target)


@show.command("hearts")
@table_options(HEARTS_STANDARD)
@show_seed_option(help="Seed: shows game 0 of 'simulate hearts --seed S'.")
@deal_option
@json_option
def show_hearts(players, seed, deal, as_json, spot_hearts, omnibus, target, moon):
    """Print one random-play Hearts deal: the hands, the passes and the tricks."""
    show_command(HEARTS_STANDARD, players, seed, deal, as_json, spot_hearts, omnibus, target, moon)
