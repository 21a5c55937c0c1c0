"""Old Maid as a ``Game``: rules from the options, the runner's pieces, summaries and traces as
text. Plain Python: the engine (numba) is imported inside the functions."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from solver.core.cards import card_rank, format_card, is_red
from solver.core.stats import fmt_mean, fmt_p, histogram, text_histogram
from solver.games.base import Trace, from_dealer, seat_name

if TYPE_CHECKING:
    from solver.games.oldmaid.engine import OldMaidGame, OldMaidRules

GAME_NAME = "old-maid"
RANK_WORDS = {1: "aces", 10: "tens", 11: "jacks", 12: "queens", 13: "kings",
              **{r: f"{r}s" for r in range(2, 10)}}
HIST_BINS = 25
"""At most this many bars in a text histogram of game lengths."""


def rules_from_options(variants=()) -> OldMaidRules:
    """The rules of ``--variant`` values (names, comma-separated or repeated)."""
    from solver.games.oldmaid.engine import find_rules

    try:
        return find_rules(variants)
    except ValueError as e:
        raise ValueError(f"--variant: {e}") from None


def run_chunk(seed: int, first_game: int, n_games: int, params: dict) -> dict:
    """The runner's chunk function (``solver.games.oldmaid.sim.run_chunk``)."""
    from solver.games.oldmaid.sim import run_chunk as chunk

    return chunk(seed, first_game, n_games, params)


def chunk_params(rules: OldMaidRules, players: int) -> dict:
    """``run_chunk``'s params for ``players`` players under ``rules``."""
    return {"players": players, "variants": list(rules.variants)}


def summarise(records: dict, rules: OldMaidRules, seed: int, players: int) -> dict:
    """The summary of a run's records, as ``simulate`` returns it."""
    from solver.games.oldmaid.sim import summarise_games

    out = {"game": GAME_NAME, "seed": seed, "players": players, "games": int(records["loser"].size),
           "rules": rules.to_dict(players)}
    out.update(summarise_games(records["loser"], records["draws"], players))
    last, counts = np.unique(records["last_card"].astype(np.int64), return_counts=True)
    out["old_maid_card"] = {format_card(int(c)): int(k) for c, k in zip(last, counts)}
    return out


def simulate(rules: OldMaidRules, seed: int, games: int, jobs: int | None, progress: bool,
             players: int) -> dict:
    """A run of ``games`` games, summarised (``solver.games.oldmaid.sim.simulate``)."""
    from solver.games.oldmaid import sim

    return sim.simulate(seed, games, players, rules, jobs=jobs, progress=progress)


def hand_lines(hands, dealer: int) -> list[str]:
    """One line per seat: its hand (card ids), sorted, with its size."""
    return [f"  {seat_name(p, dealer):<16} {len(h):>2} cards: {hand_text(h)}"
            for p, h in enumerate(hands)]


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


def loss_report(loss: list[dict], dealer: int | None = None) -> list[str]:
    """The loss rates by place from the dealer (``loss[i]["seat"]``: 0 the dealer, 1 left of
    the dealer, ...); with ``dealer``, the seat of one deal each place is."""
    lines = ["Loss probability by place from the dealer (clockwise), 95% Wilson interval:"]
    places = [from_dealer(d["seat"]) for d in loss]
    if dealer is not None:
        places = [f"{p} (seat {(d['seat'] + dealer) % len(loss)})" for p, d in zip(places, loss)]
    width = max(map(len, places))
    for place, d in zip(places, loss):
        lines.append(f"  {place:<{width}}  {fmt_p(d)}   {d['losses']} losses")
    return lines


def render_summary(res: dict, rules: OldMaidRules) -> str:
    """``simulate old-maid`` as text."""
    players, games = res["players"], res["games"]
    lines = [f"Old Maid, {players} players, {rules.describe()}",
             f"{games} games, seed {res['seed']}; game i is dealt by seat i mod {players}", ""]
    lines += loss_report(res["loss"])
    total = sum(res["old_maid_card"].values())
    lines.append("Old Maid card: " + ", ".join(f"{c} {k / total:.1%}"
                                                for c, k in res["old_maid_card"].items()))
    lines.append("")
    lines += length_report(res["draws"])
    return "\n".join(lines)


def game_json(g: OldMaidGame) -> dict:
    from solver.games.oldmaid.engine import sort_hand

    return {"game": GAME_NAME, "seed": g.seed, "rules": g.rules.to_dict(g.players),
            "players": g.players, "dealer": g.dealer,
            "dealt": [[format_card(c) for c in sort_hand(h)] for h in g.dealt],
            "hands": [[format_card(c) for c in sort_hand(h)] for h in g.hands],
            "draws": [{"drawer": int(r[0]), "from": int(r[1]), "card": format_card(int(r[2])),
                       "paired": bool(r[3])} for r in g.log],
            "loser": g.loser, "loser_seat": g.loser_seat, "old_maid": format_card(g.last_card)}


def draw_lines(g: OldMaidGame) -> list[str]:
    """One line per draw: which seat draws what from which, pairs discarded, seats safe."""
    lines = []
    sizes = [len(h) for h in g.hands]
    for k, (drawer, src, card, paired) in enumerate(g.log.tolist(), start=1):
        sizes[src] -= 1
        sizes[drawer] += -1 if paired else 1
        line = f"  {k:>4}. seat {drawer} draws {format_card(card)} from seat {src}"
        if paired:
            colour = ("red " if is_red(card) else "black ") if g.rules.colour else ""
            line += f": a pair of {colour}{RANK_WORDS[card_rank(card)]} discarded"
        safe = [p for p in dict.fromkeys((drawer, src)) if sizes[p] == 0]
        if safe and sum(sizes) > 1:
            line += "; " + ", ".join(f"seat {p} is safe" for p in safe)
        lines.append(line)
    return lines


def trace(rules: OldMaidRules, seed: int, players: int, game_index: int | None = None,
          dealer: int = 0) -> Trace:
    """The game of ``seed`` dealt by ``dealer``, or game ``game_index`` of a simulation run."""
    from solver.games.oldmaid.engine import play_game, simulation_game

    if game_index is not None and dealer != 0:
        raise ValueError("--dealer cannot be given with --game (game I is dealt by I mod PLAYERS)")
    if dealer >= players:
        raise ValueError(f"--dealer must be a seat 0..{players - 1}, not {dealer}")
    if game_index is None:
        g = play_game(seed, players, rules, dealer)
    else:
        g = simulation_game(seed, game_index, players, rules)

    top = f"Old Maid, seed {seed}"
    if game_index is not None:
        top += f", game {game_index} of the simulation run"
    head = [f"{top}, {players} players, dealer seat {g.dealer}", rules.describe(),
            "Dealt (one card at a time from the dealer's left):"]
    head += hand_lines(g.dealt, g.dealer)
    head.append("After the pair discards:")
    head += hand_lines(g.hands, g.dealer)
    tail = (f"Seat {g.loser} ({from_dealer(g.loser_seat)}) holds the Old Maid "
            f"{format_card(g.last_card)} and loses after {g.draws} draws.",)
    record = game_json(g)
    return Trace(GAME_NAME, seed, record["rules"], tuple(head), tuple(draw_lines(g)), tail,
                 record, events_title="Play:")


def analyse(rules: OldMaidRules, seed: int, trials: int, jobs: int | None, progress: bool,
            players: int, dealer: int = 0) -> dict:
    """Each seat's chance of losing the deal of ``seed`` (``solver.games.oldmaid.sim``)."""
    from solver.games.oldmaid import sim

    if dealer >= players:
        raise ValueError(f"--dealer must be a seat 0..{players - 1}, not {dealer}")
    return sim.analyse_deal(seed, players, trials, rules, dealer, jobs=jobs, progress=progress)


def render_analysis(res: dict, rules: OldMaidRules) -> str:
    """``analyse old-maid`` as text."""
    lines = [f"Old Maid deal seed {res['seed']}, {res['players']} players, dealer seat "
             f"{res['dealer']}", rules.describe(), "Hands after the pair discards:"]
    for h in res["hands"]:  # "player": the seat; "seat": the place from the dealer (JSON keys)
        cards = h["cards"]
        lines.append(f"  {seat_name(h['player'], res['dealer']):<16} {len(cards):>2} cards: "
                     + (" ".join(cards) or "-"))
    lines += ["", f"{res['trials']} random-play trials of this deal", ""]
    lines += loss_report(res["loss"], res["dealer"])
    lines.append("")
    lines += length_report(res["draws"])
    return "\n".join(lines)
