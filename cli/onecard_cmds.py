"""One Card commands: ``simulate one-card`` and ``show one-card``.

The engine (numba) is imported inside the commands, so that help and completion stay fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cli.common import (echo_json, input_errors, jobs_option, json_option, players_option,
                        quiet_option, seed_option)
from cli.game_options import GAME_INDEX, games_option, show_seed_option
from cli.main import show, simulate
from solver.core.cards import format_card
from solver.core.stats import fmt_figure, fmt_mean, fmt_p

if TYPE_CHECKING:
    from solver.games.onecard.sim import RoundLog

SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


def joker_option(f):
    return click.option("--no-joker", "no_joker", is_flag=True,
                        help="A table without a joker: the two of diamonds is the joker.")(f)


def seat_label(rel: int) -> str:
    return {0: "seat 0 (dealer)", 1: "seat 1 (left)"}.get(rel, f"seat {rel}")


def hand_text(cards, joker: int) -> str:
    """Cards by suit, highest (uptown) first, the joker last."""
    from solver.games.onecard.engine import UPTOWN_STRENGTH

    key = [(c == joker, c // 13, -UPTOWN_STRENGTH[c]) for c in cards]
    return " ".join(format_card(c) for _, c in sorted(zip(key, cards))) or "-"


def simulate_text(res: dict) -> str:
    from solver.games.onecard.engine import OneCardRules

    r = res["rules"]
    rules = OneCardRules(r["players"], r["joker"] == "RJ")
    lines = [f"One Card: {rules.describe()}",
             f"{res['games']} games, {res['rounds']} rounds, seed {res['seed']}; random play "
             "(every bid, card and downtown switch uniform among the legal choices)",
             "95% intervals. Win rate by seat relative to the game's first dealer; points and "
             "bids by seat relative to the round's dealer (seat 1 = the dealer's left).", "",
             f"{'':<16} {'win rate':<26} {'points per round':<24} {'wins the bid':<26} "
             "makes the bid"]
    for s in res["seats"]:
        lines.append(f"{seat_label(s['seat']):<16} {fmt_p(s['win_rate']):<26} "
                     f"{fmt_mean(s['points_per_round']):<24} {fmt_p(s['bids_won']):<26} "
                     f"{fmt_p(s['bid_made'])}")
    lines += ["", f"Bidder makes the bid:     {fmt_p(res['bid_made'])}  "
                  f"({res['bid_made']['n']} rounds with a bid)"]
    by_bid = [f"{b}: {fmt_figure(d['p'], 3)} (n {d['n']})"
              for b, d in res["bid_made_by_bid"].items()]
    lines.append("  by winning bid:  " + ", ".join(by_bid[:5]))
    lines.append("                   " + ", ".join(by_bid[5:]))
    lines += [f"Winning bid:              {fmt_mean(res['winning_bid'])}",
              f"Nobody bids:              {fmt_p(res['no_bid'])}",
              f"Downtown switch taken:    {fmt_p(res['downtown_switch'])}  "
              f"(of {res['downtown_switch']['n']} rounds without a bid)",
              f"Game length in rounds:    {fmt_mean(res['game_length'])}  "
              f"(longest {res['longest_game']})"]
    return "\n".join(lines)


@simulate.command("one-card")
@players_option(2, 4, 4)
@games_option(100_000)
@seed_option(default=0, help="Seed of the run (0 .. 2**63-1); game i uses stream i.")
@joker_option
@jobs_option
@quiet_option
@json_option
def simulate_onecard(players, games, seed, no_joker, jobs, quiet, as_json) -> None:
    """Random-play One Card games to 30: win rate per seat, points per round, bids made, rounds
    without a bid and game length, with 95% intervals.

    Game i takes everything (its first dealer, every deal, bid, card and switch) from stream i of
    the seed, so the results do not depend on --jobs."""
    from solver.games.onecard.sim import simulate as run_sim

    with input_errors():
        res = run_sim(seed, games, players, not no_joker, jobs=jobs, progress=not quiet)
    if as_json:
        echo_json(res)
        return
    click.echo(simulate_text(res))


def who(seat: int, log: RoundLog) -> str:
    return f"player {seat}" + (" (dealer)" if seat == log.dealer else "")


def round_text(log: RoundLog) -> str:
    joker = log.rules.joker_card
    lines = [f"One Card, seed {log.seed} (game {log.game}, round 1 of 'simulate one-card --seed "
             f"{log.seed}'): {log.rules.describe()}",
             f"Dealer: player {log.dealer}; players 0..{log.rules.players - 1} clockwise",
             "Hands:"]
    lines += [f"  {who(s, log):<20} {hand_text(h, joker)}" for s, h in enumerate(log.hands)]
    lines += [f"  one card (face down)  {format_card(log.one_card)}",
              "Bidding (from the dealer's left):"]
    lines += [f"  player {s} " + (f"bids {b}" if b else "passes") for s, b in log.bids]
    if log.bidder >= 0:
        lines.append(f"Player {log.bidder} wins the bid with {log.bid} and leads; the suit led "
                     "is trump.")
    else:
        lines.append(f"Nobody bids: no trumps, uptown; player {log.leader} leads.")
    for t, trick in enumerate(log.tricks, start=1):
        plays = ", ".join(f"p{s} {format_card(c)}" for s, c in trick["cards"])
        line = f"  trick {t:>2}: {plays}  -> player {trick['winner']}"
        if t == 1 and log.trump >= 0:
            line += f"  (trump: {SUIT_NAMES[log.trump]})"
        if trick["switch"]:
            line += "; captures the joker and switches to downtown"
        elif log.trump < 0 and any(c == joker for _, c in trick["cards"]):
            line += "; captures the joker, stays uptown"
        lines.append(line)
    last = log.tricks[-1]["winner"]
    lines.append(f"The one card {format_card(log.one_card)} goes to player {last} "
                 "(winner of the last trick).")
    lines.append("Captured points: " + ", ".join(f"player {s} {p}"
                                                  for s, p in enumerate(log.captured)))
    if log.bidder >= 0:
        verdict = "makes" if log.made else "falls short of"
        lines.append(f"Player {log.bidder} {verdict} the bid of {log.bid}.")
    lines.append("Round scores: " + ", ".join(f"player {s} {p}" for s, p in enumerate(log.scored)))
    return "\n".join(lines)


@show.command("one-card")
@show_seed_option(help="Seed of a simulation run: shows round 1 of one of its games.")
@players_option(2, 4, 4)
@click.option("--game", "game", type=GAME_INDEX, default=0, show_default=True,
              help="Which game of the run (game I uses stream I of the seed).")
@joker_option
@json_option
def show_onecard(seed, players, game, no_joker, as_json) -> None:
    """Print a One Card deal and one random-play round trick by trick: the first round of game I
    (default 0) of 'simulate one-card' with the same seed, players and joker."""
    from solver.games.onecard.engine import GAME_NAME
    from solver.games.onecard.sim import first_round

    with input_errors():
        log = first_round(seed, players, not no_joker, game)
    if as_json:
        echo_json({"game": GAME_NAME, **log.to_dict()})
        return
    click.echo(round_text(log))

