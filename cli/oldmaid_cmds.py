"""Old Maid commands: ``simulate old-maid``, ``show old-maid``, ``analyse old-maid``.

The engine (numba) is imported inside the commands, so that help and completion stay fast.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import click
import numpy as np

from cli.common import (InputError, echo_json, input_errors, jobs_option, json_option,
                        players_option, quiet_option, seed_option)
from cli.game_options import GAME_INDEX, games_option, show_seed_option
from cli.main import analyse, show, simulate
from solver.core.cards import card_rank, format_card, is_red
from solver.core.stats import fmt_mean, fmt_p, histogram, text_histogram

if TYPE_CHECKING:
    from solver.games.oldmaid.engine import OldMaidGame

RANK_WORDS = {1: "aces", 10: "tens", 11: "jacks", 12: "queens", 13: "kings",
              **{r: f"{r}s" for r in range(2, 10)}}
HIST_BINS = 25
"""At most this many bars in a text histogram of game lengths."""


def variant_option(f):
    return click.option(
        "--variant", "-V", "variants", multiple=True, metavar="NAME[,NAME]",
        help="Rule variant: colour (pairs share colour), joker (a joker is the odd card), "
             "jack (a jack is removed, not a queen). Repeat or comma-separate; colour combines "
             "with joker or jack.")(f)


def dealer_option(f):
    return click.option("--dealer", type=click.IntRange(min=0), default=0, show_default=True,
                        help="Seat of the dealer (0..players-1).")(f)


def load_rules(variants):
    from solver.games.oldmaid.engine import find_rules

    with input_errors("--variant: "):
        return find_rules(variants)


def check_dealer_seat(dealer: int, players: int) -> None:
    if dealer >= players:
        raise InputError(f"--dealer must be a seat 0..{players - 1}, not {dealer}")


def seat_label(seat: int) -> str:
    return "seat 0 (dealer)" if seat == 0 else f"seat {seat}"


def hand_text(cards) -> str:
    from solver.games.oldmaid.engine import sort_hand

    return " ".join(format_card(c) for c in sort_hand(cards)) or "-"


def length_report(d: dict) -> list[str]:
    pct = "  ".join(f"p{q} {v}" for q, v in d["percentiles"].items())
    lines = [f"Game length in draws: mean {fmt_mean(d)}",
             f"  min {d['min']}  {pct}  max {d['max']}"]
    hist = d["histogram"]
    width = max(1, math.ceil((d["max"] - d["min"] + 1) / HIST_BINS))
    values = np.repeat(np.array(list(hist), dtype=np.int64), list(hist.values()))
    binned = histogram(values // width * width)
    label = "draws  games" if width == 1 else f"draws (bins of {width}, first value)  games"
    lines.append(text_histogram(binned, label="  " + label))
    return lines


def loss_report(loss: list[dict]) -> list[str]:
    lines = ["Loss probability by seat (relative to the dealer; 1 = dealer's left), "
             "95% Wilson interval:"]
    for d in loss:
        lines.append(f"  {seat_label(d['seat']):<16} {fmt_p(d)}   {d['losses']} losses")
    return lines


@simulate.command("old-maid")
@players_option(2, 4, 3)
@games_option(100_000)
@seed_option(default=0, help="Seed of the run (0 .. 2**63-1); game i uses stream i.")
@variant_option
@jobs_option
@quiet_option
@json_option
def simulate_oldmaid(players, games, seed, variants, jobs, quiet, as_json) -> None:
    """Random-play Old Maid: loss probability per seat and the game length, from a seed.

    Game i of the run is dealt by seat i mod PLAYERS and takes all its randomness (deal and
    draws) from stream i of the seed, so results do not depend on --jobs."""
    from solver.games.oldmaid.sim import simulate as run_sim

    rules = load_rules(variants)
    with input_errors():
        res = run_sim(seed, games, players, rules, jobs=jobs, progress=not quiet)
    if as_json:
        echo_json(res)
        return
    lines = [f"Old Maid, {players} players, {rules.describe()}",
             f"{games} games, seed {seed}; game i is dealt by seat i mod {players}", ""]
    lines += loss_report(res["loss"])
    total = sum(res["old_maid_card"].values())
    lines.append("Old Maid card: " + ", ".join(f"{c} {k / total:.1%}"
                                                for c, k in res["old_maid_card"].items()))
    lines.append("")
    lines += length_report(res["draws"])
    click.echo("\n".join(lines))


def game_json(g: OldMaidGame) -> dict:
    from solver.games.oldmaid.engine import GAME_NAME, sort_hand

    return {"game": GAME_NAME, "seed": g.seed, "rules": g.rules.to_dict(g.players),
            "players": g.players, "dealer": g.dealer,
            "dealt": [[format_card(c) for c in sort_hand(h)] for h in g.dealt],
            "hands": [[format_card(c) for c in sort_hand(h)] for h in g.hands],
            "draws": [{"drawer": int(r[0]), "from": int(r[1]), "card": format_card(int(r[2])),
                       "paired": bool(r[3])} for r in g.log],
            "loser": g.loser, "loser_seat": g.loser_seat, "old_maid": format_card(g.last_card)}


def game_text(g: OldMaidGame, with_draws: bool) -> list[str]:
    def who(p: int) -> str:
        return f"player {p}" + (" (dealer)" if p == g.dealer else "")

    lines = ["Dealt (one card at a time from the dealer's left):"]
    lines += [f"  {who(p):<18} {len(h):>2} cards: {hand_text(h)}" for p, h in enumerate(g.dealt)]
    lines.append("After the pair discards:")
    lines += [f"  {who(p):<18} {len(h):>2} cards: {hand_text(h)}" for p, h in enumerate(g.hands)]
    if with_draws:
        lines.append("Play:")
        sizes = [len(h) for h in g.hands]
        for k, (drawer, src, card, paired) in enumerate(g.log.tolist(), start=1):
            sizes[src] -= 1
            sizes[drawer] += -1 if paired else 1
            line = f"  {k:>4}. player {drawer} draws {format_card(card)} from player {src}"
            if paired:
                colour = ("red " if is_red(card) else "black ") if g.rules.colour else ""
                line += f": a pair of {colour}{RANK_WORDS[card_rank(card)]} discarded"
            safe = [p for p in dict.fromkeys((drawer, src)) if sizes[p] == 0]
            if safe and sum(sizes) > 1:
                line += "; " + ", ".join(f"player {p} is safe" for p in safe)
            lines.append(line)
    lines.append(f"Player {g.loser} ({seat_label(g.loser_seat)}) holds the Old Maid "
                 f"{format_card(g.last_card)} and loses after {g.draws} draws.")
    return lines


@show.command("old-maid")
@show_seed_option(help="Seed of the deal (or, with --game, of a simulation run).")
@players_option(2, 4, 3)
@click.option("--game", "game_index", type=GAME_INDEX,
              help="Show game I of 'simulate old-maid --seed SEED' (its dealer is I mod PLAYERS).")
@dealer_option
@variant_option
@click.option("--draws/--no-draws", default=True, show_default=True,
              help="Print the random-play game draw by draw.")
@json_option
def show_oldmaid(seed, players, game_index, dealer, variants, draws, as_json) -> None:
    """Print an Old Maid deal, the hands after the pair discards, and its random-play game."""
    from solver.games.oldmaid.engine import play_game, simulation_game

    rules = load_rules(variants)
    if game_index is not None and dealer != 0:
        raise InputError("--dealer cannot be given with --game (game I is dealt by I mod PLAYERS)")
    check_dealer_seat(dealer, players)
    with input_errors():
        if game_index is None:
            g = play_game(seed, players, rules, dealer)
        else:
            g = simulation_game(seed, game_index, players, rules)
    if as_json:
        echo_json(game_json(g))
        return
    head = f"Old Maid, seed {seed}"
    if game_index is not None:
        head += f", game {game_index} of the simulation run"
    lines = [f"{head}, {players} players, dealer player {g.dealer}", rules.describe()]
    click.echo("\n".join(lines + game_text(g, draws)))


@analyse.command("old-maid")
@show_seed_option(help="Seed of the deal to analyse (as in 'show old-maid').")
@players_option(2, 4, 3)
@games_option(100_000, "trials", "--trials", "-t",
              help="Random-play trials of the deal (trial t draws from stream t of the seed).")
@dealer_option
@variant_option
@jobs_option
@quiet_option
@json_option
def analyse_oldmaid(seed, players, trials, dealer, variants, jobs, quiet, as_json) -> None:
    """Each player's chance of losing one particular deal, the draws random over many trials."""
    from solver.games.oldmaid.sim import analyse_deal

    rules = load_rules(variants)
    check_dealer_seat(dealer, players)
    with input_errors():
        res = analyse_deal(seed, players, trials, rules, dealer, jobs=jobs, progress=not quiet)
    if as_json:
        echo_json(res)
        return
    lines = [f"Old Maid deal seed {seed}, {players} players, dealer player {dealer}",
             rules.describe(), "Hands after the pair discards:"]
    for h in res["hands"]:
        cards = h["cards"]
        lines.append(f"  {seat_label(h['seat']):<16} player {h['player']}  {len(cards):>2} cards: "
                     + (" ".join(cards) or "-"))
    lines += ["", f"{trials} random-play trials of this deal", ""]
    lines += loss_report(res["loss"])
    lines.append("")
    lines += length_report(res["draws"])
    click.echo("\n".join(lines))
