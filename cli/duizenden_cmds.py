"""Duizenden commands: ``simulate duizenden`` and ``show duizenden``.

The options come from ``solver.games.duizenden.options`` (plain Python); the engine (numba) is imported
inside the commands, so that help and completion stay fast.
"""

from __future__ import annotations

import click

from cli.common import (InputError, echo_json, input_errors, jobs_option, json_option,
                        players_option, quiet_option, seed_option)
from cli.game_options import games_option, show_seed_option
from cli.main import show, simulate
from solver.core.cards import format_cards
from solver.games.duizenden.options import (DEFAULT_MAX_ROUNDS, DEFAULT_PENALTY, GAME_NAME,
                                      MAX_MAX_ROUNDS, MAX_PLAYERS, MIN_PLAYERS, TARGET_POINTS,
                                      VARIANT_NAMES)
from solver.core.stats import fmt_mean, fmt_p, text_histogram


def variant_option(f):
    return click.option(
        "--variant", "-V", "variants", multiple=True, metavar="NAME[,NAME]",
        help="Rule variant (repeat or comma-separate; names or numbers 1..5 as listed in "
             "docs/duizenden.md): "
             + ", ".join(f"{i} {n}" for i, n in enumerate(VARIANT_NAMES, start=1)) + ".")(f)


def penalty_option(f):
    return click.option("--penalty", type=click.IntRange(0, TARGET_POINTS),
                        default=DEFAULT_PENALTY,
                        show_default=True,
                        help="Points lost for a forgotten \"last card\" (variant last-card).")(f)


def load_variants(variants, penalty):
    from solver.games.duizenden.game import find_variants

    names = [n for v in variants for n in v.split(",") if n.strip()]
    with input_errors("--variant: "):
        return find_variants(names, penalty)


def sorted_cards(cards) -> str:
    return format_cards(sorted(cards, key=lambda c: (c % 54, c))) or "-"


def variants_text(v) -> str:
    names = v.names()
    text = "variants: " + (", ".join(names) if names else "none (plain rules)")
    if v.last_card:
        text += f"; last-card penalty {v.penalty}"
    return text


@simulate.command("duizenden")
@players_option(MIN_PLAYERS, MAX_PLAYERS, 2)
@games_option(2_000)
@seed_option(default=0, help="Seed of the run (0 .. 2**63-1); game i uses stream i.")
@variant_option
@penalty_option
@click.option("--max-rounds", type=click.IntRange(1, MAX_MAX_ROUNDS), default=DEFAULT_MAX_ROUNDS,
              show_default=True,
              help="Stop a game that has not reached 1000 after this many rounds.")
@jobs_option
@quiet_option
@json_option
def simulate_duizenden(players, games, seed, variants, penalty, max_rounds, jobs, quiet,
                       as_json) -> None:
    """Random-play Duizenden games to 1000: rounds, turns, round ends, scores and wins by seat.

    Every decision is uniform among the legal actions (docs/duizenden.md). Game i takes all its
    randomness from stream i of the seed, so results do not depend on --jobs."""
    from solver.games.duizenden.game import simulate as run_sim

    v = load_variants(variants, penalty)
    with input_errors():
        res = run_sim(seed, games, players, v, jobs=jobs, progress=not quiet,
                      max_rounds=max_rounds)
    if as_json:
        echo_json(res)
        return
    fin = res["finished"]
    lines = [f"Duizenden, {players} players, {games} games to {TARGET_POINTS}, seed {seed}",
             variants_text(v), "",
             f"Games finished (a total reached {TARGET_POINTS} within {max_rounds} rounds): "
             f"{fmt_p(fin)}",
             f"Rounds per game: {fmt_mean(res['rounds_per_game'])}",
             f"Turns per round: {fmt_mean(res['turns_per_round'])}  ({res['rounds']} rounds)",
             "How rounds end:"]
    for name, d in res["round_end"].items():
        lines.append(f"  {name:<16} {fmt_p(d)}")
    lines.append("Seat   mean score per round       win rate (finished games)")
    for p in range(players):
        lines.append(f"  {p}    {fmt_mean(res['score_per_round'][p], 1):<26} "
                     f"{fmt_p(res['win_rate'][p])}")
    lines.append("All intervals are 95% (Wilson for rates, normal for means).")
    lines.append(text_histogram(res["rounds_histogram"], label="rounds  games"))
    click.echo("\n".join(lines))


@show.command("duizenden")
@show_seed_option(help="Seed: the first round of game 0 of 'simulate duizenden --seed'.")
@players_option(MIN_PLAYERS, MAX_PLAYERS, 2)
@click.option("--start", type=click.IntRange(min=0), default=0, show_default=True,
              help="Seat of the starting player.")
@variant_option
@penalty_option
@json_option
def show_duizenden(seed, players, start, variants, penalty, as_json) -> None:
    """Print a Duizenden deal and one random-play round of it, turn by turn."""
    from solver.games.duizenden.game import format_events, format_meld, play_round

    v = load_variants(variants, penalty)
    if start >= players:
        raise InputError(f"--start must be a seat 0..{players - 1}, not {start}")
    with input_errors():
        r = play_round(seed, players, v, start=start, log=True)
    events = format_events(r["events"])
    hands = [[int(c) for c in range(108) if r["loc"][c] == p] for p in range(players)]
    if as_json:
        echo_json({"game": GAME_NAME, "seed": seed, "rules": v.rules_json(players),
                   "players": players, "start": start,
                   "deal": {"hands": [sorted_cards(h).split() for h in r["hands"]],
                            "open_card": sorted_cards([r["open_card"]]),
                            "stock": format_cards(r["stock"]).split()},
                   "events": events, "end": r["end"], "turns": r["turns"],
                   "out_seat": r["out_seat"],
                   "melds": [{"owner": m["owner"], "cards": format_meld(m).split()}
                             for m in r["melds"]],
                   "hands": [sorted_cards(h).split() if h else [] for h in hands],
                   "penalty": r["penalty"], "scores": r["scores"]})
        return
    lines = [f"Duizenden, seed {seed}, {players} players, seat {start} starts", variants_text(v),
             "Deal:"]
    lines += [f"  seat {p}: {sorted_cards(h)}" for p, h in enumerate(r["hands"])]
    lines.append(f"  open card: {sorted_cards([r['open_card']])}; stock {len(r['stock'])} cards, "
                 f"top first: {format_cards(r['stock'][:10])} ...")
    lines.append("Play:")
    lines += [f"  {line}" for line in events]
    lines.append(f"Round over ({r['end']}) after {r['turns']} turns; stock {r['stock_left']} "
                 f"cards, pot {r['pot_size']} cards.")
    lines.append("Table:")
    lines += [f"  meld {i} (seat {m['owner']}): {format_meld(m)}"
              for i, m in enumerate(r["melds"], start=1)] or ["  (no melds)"]
    for p in range(players):
        extra = f", penalty {r['penalty'][p]}" if r["penalty"][p] else ""
        lines.append(f"  seat {p}: hand {sorted_cards(hands[p])}{extra}; score {r['scores'][p]:+d}")
    lines.append("Score = points a seat put on the table minus the points left in its hand.")
    click.echo("\n".join(lines))

