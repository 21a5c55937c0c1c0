"""Duizenden as a ``Game``: rules (variants) from the options, the runner's pieces, summaries and
traces as text. Plain Python: the engine (numba) is imported inside the functions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from solver.core.cards import CARDS_PER_DECK, MAX_CARDS, format_cards
from solver.core.stats import fmt_mean, fmt_p, text_histogram
from solver.games.base import Trace
from solver.games.duizenden.options import DEFAULT_PENALTY, GAME_NAME, TARGET_POINTS

if TYPE_CHECKING:
    from solver.games.duizenden.game import Variants

STOCK_SHOWN = 10
"""``show duizenden`` prints this many cards from the top of the stock."""


def rules_from_options(variants=(), penalty: int = DEFAULT_PENALTY) -> Variants:
    """The variants named by ``--variant`` values (names or numbers, comma-separated or
    repeated) with the last-card ``penalty``."""
    from solver.games.duizenden.game import find_variants

    names = [n for v in variants for n in v.split(",") if n.strip()]
    try:
        return find_variants(names, penalty)
    except ValueError as e:
        raise ValueError(f"--variant: {e}") from None


def run_chunk(seed: int, first_game: int, n_games: int, params: dict) -> dict:
    """The runner's chunk function (``solver.games.duizenden.game.run_chunk``)."""
    from solver.games.duizenden.game import run_chunk as chunk

    return chunk(seed, first_game, n_games, params)


def chunk_params(rules: Variants, players: int, max_rounds: int) -> dict:
    """``run_chunk``'s params."""
    return {"players": players, "flags": rules.flags, "penalty": rules.penalty,
            "max_rounds": int(max_rounds)}


def summarise(records: dict, rules: Variants, seed: int, players: int, max_rounds: int) -> dict:
    """The summary of a run's records (``solver.games.duizenden.game.summarise``)."""
    from solver.games.duizenden.game import summarise as summary

    return summary(records, seed, players, rules, max_rounds)


def simulate(rules: Variants, seed: int, games: int, jobs: int | None, progress: bool,
             players: int, max_rounds: int) -> dict:
    """A run of ``games`` games to 1000, summarised."""
    from solver.games.duizenden.game import simulate as run

    return run(seed, games, players, rules, jobs=jobs, progress=progress, max_rounds=max_rounds)


def sorted_cards(cards) -> str:
    return format_cards(sorted(cards, key=lambda c: (c % CARDS_PER_DECK, c))) or "-"


def variants_text(v: Variants) -> str:
    names = v.names()
    text = "variants: " + (", ".join(names) if names else "none (plain rules)")
    if v.last_card:
        text += f"; last-card penalty {v.penalty}"
    return text


def render_summary(res: dict, rules: Variants) -> str:
    """``simulate duizenden`` as text."""
    players, max_rounds = res["players"], res["rules"]["max_rounds"]
    lines = [f"Duizenden, {players} players, {res['games']} games to {TARGET_POINTS}, "
             f"seed {res['seed']}", variants_text(rules), "",
             f"Games finished (a total reached {TARGET_POINTS} within {max_rounds} rounds): "
             f"{fmt_p(res['finished'])}",
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
    return "\n".join(lines)


def trace(rules: Variants, seed: int, players: int, start: int = 0) -> Trace:
    """The first round of game 0 of ``simulate duizenden --seed seed``, turn by turn."""
    from solver.games.duizenden.game import format_events, format_meld, play_round

    if start >= players:
        raise ValueError(f"--start must be a seat 0..{players - 1}, not {start}")
    r = play_round(seed, players, rules, start=start, log=True)
    events = format_events(r["events"])
    hands = [[c for c in range(MAX_CARDS) if r["loc"][c] == p] for p in range(players)]
    record = {"game": GAME_NAME, "seed": seed, "rules": rules.rules_json(players),
              "players": players, "start": start,
              "deal": {"hands": [sorted_cards(h).split() for h in r["hands"]],
                       "open_card": sorted_cards([r["open_card"]]),
                       "stock": format_cards(r["stock"]).split()},
              "events": events, "end": r["end"], "turns": r["turns"],
              "out_seat": r["out_seat"],
              "melds": [{"owner": m["owner"], "cards": format_meld(m).split()}
                        for m in r["melds"]],
              "hands": [sorted_cards(h).split() if h else [] for h in hands],
              "penalty": r["penalty"], "scores": r["scores"]}
    head = [f"Duizenden, seed {seed}, {players} players, seat {start} starts", variants_text(rules),
            "Deal:"]
    head += [f"  seat {p}: {sorted_cards(h)}" for p, h in enumerate(r["hands"])]
    head.append(f"  open card: {sorted_cards([r['open_card']])}; stock {len(r['stock'])} cards, "
                f"top first: {format_cards(r['stock'][:STOCK_SHOWN])} ...")
    tail = [f"Round over ({r['end']}) after {r['turns']} turns; stock {r['stock_left']} "
            f"cards, pot {r['pot_size']} cards.", "Table:"]
    tail += [f"  meld {i} (seat {m['owner']}): {format_meld(m)}"
             for i, m in enumerate(r["melds"], start=1)] or ["  (no melds)"]
    for p in range(players):
        extra = f", penalty {r['penalty'][p]}" if r["penalty"][p] else ""
        tail.append(f"  seat {p}: hand {sorted_cards(hands[p])}{extra}; score {r['scores'][p]:+d}")
    tail.append("Score = points a seat put on the table minus the points left in its hand.")
    return Trace(GAME_NAME, seed, record["rules"], tuple(head), tuple(f"  {e}" for e in events),
                 tuple(tail), record, events_title="Play:")
