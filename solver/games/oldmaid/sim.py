"""Old Maid simulation: many seeded games over the shared runner, and per-deal analysis.

Builds on the engine in ``solver/games/oldmaid/engine.py``; game ``i`` of a run with seed ``S`` is the game of
seed ``rng.stream_seed(S, i)`` dealt by seat ``i mod n`` (``oldmaid.simulation_game`` replays it).
"""

from __future__ import annotations

import numpy as np

from solver.core.cards import format_card
from solver.games.oldmaid.engine import (GAME_NAME, GameColumns, OldMaidRules, Table, _play_games,
                                        _play_trials, check_count, check_players, find_rules,
                                        play_game, sort_hand)
from solver.core.rng import check_seed
from solver.core.runner import run_games
from solver.core.stats import histogram, mean_ci, wilson

PERCENTILES = (1, 5, 25, 50, 75, 95, 99)
"""Percentiles of the game length reported by every summary."""


def run_chunk(seed: int, first: int, count: int, params: dict) -> dict:
    """Chunk function for ``simulate.run_games``: per-game records of games ``first ..``."""
    n = params["players"]
    rules = find_rules(params["variants"])
    out = GameColumns(loser=np.empty(count, dtype=np.int8), draws=np.empty(count, dtype=np.int32),
                      last_card=np.empty(count, dtype=np.int8),
                      pairs=np.empty((count, 2), dtype=np.int16))
    _play_games(np.uint64(seed), first, count, n, rules.deck(), rules.colour, out)
    return out._asdict()


def run_trials_chunk(seed: int, first: int, count: int, params: dict) -> dict:
    """Chunk function for ``analyse_deal``: trials ``first ..`` of one fixed deal."""
    n = params["players"]
    rules = find_rules(params["variants"])
    loser = np.empty(count, dtype=np.int8)
    draws = np.empty(count, dtype=np.int32)
    start = np.array(params["hands"], dtype=np.uint64)
    _play_trials(np.uint64(seed), first, count, Table(n, params["dealer"], rules.colour), start,
                 loser, draws)
    return {"loser": loser, "draws": draws}


def simulate_records(seed: int, games: int, players: int, rules: OldMaidRules | None = None,
                     jobs: int | None = 1, progress: bool = False) -> dict:
    """Per-game records of a run: ``loser`` (seat relative to the dealer), ``draws``,
    ``last_card`` (the Old Maid's card id) and ``pairs`` (discarded at the deal, in play)."""
    seed = check_seed(seed)
    games = check_count(games, "games")
    n = check_players(players)
    rules = rules or OldMaidRules()
    params = {"players": n, "variants": list(rules.variants)}
    return run_games(run_chunk, seed, games, params, jobs, progress, desc=GAME_NAME)


def summarise_games(loser: np.ndarray, draws: np.ndarray, players: int) -> dict:
    """Loss probability per seat (Wilson 95%) and the game-length distribution in draws."""
    games = int(loser.size)
    counts = np.bincount(loser.astype(np.int64), minlength=players)
    loss = [{"seat": s, "losses": int(counts[s]), **wilson(int(counts[s]), games)}
            for s in range(players)]
    pct = np.percentile(draws, PERCENTILES, method="lower") if games else np.zeros(7)
    length = {**mean_ci(draws), "min": int(draws.min()), "max": int(draws.max()),
              "percentiles": {str(q): int(v) for q, v in zip(PERCENTILES, pct)},
              "histogram": histogram(draws)}
    return {"loss": loss, "draws": length}


def simulate(seed: int, games: int, players: int, rules: OldMaidRules | None = None,
             jobs: int | None = 1, progress: bool = False) -> dict:
    """Simulate ``games`` seeded random-play games and summarise them (a JSON-ready dict)."""
    rules = rules or OldMaidRules()
    rec = simulate_records(seed, games, players, rules, jobs, progress)
    out = {"game": GAME_NAME, "seed": seed, "players": players, "games": games,
           "rules": rules.to_dict(players)}
    out.update(summarise_games(rec["loser"], rec["draws"], players))
    last, counts = np.unique(rec["last_card"].astype(np.int64), return_counts=True)
    out["old_maid_card"] = {format_card(int(c)): int(k) for c, k in zip(last, counts)}
    return out


def analyse_deal(seed: int, players: int, trials: int, rules: OldMaidRules | None = None,
                 dealer: int = 0, jobs: int | None = 1, progress: bool = False) -> dict:
    """Each seat's chance of losing the deal of ``seed`` (dealt as in ``play_game``), the draws
    random over ``trials`` trials; trial ``t`` draws from ``rng.stream_seed(seed, t)``."""
    trials = check_count(trials, "trials")
    rules = rules or OldMaidRules()
    game = play_game(seed, players, rules, dealer)
    masks = [sum(1 << c for c in h) for h in game.hands]
    params = {"players": game.players, "variants": list(rules.variants), "dealer": game.dealer,
              "hands": masks}
    rec = run_games(run_trials_chunk, game.seed, trials, params, jobs, progress,
                    desc=f"{GAME_NAME} trials")
    out = {"game": GAME_NAME, "seed": game.seed, "players": game.players, "dealer": game.dealer,
           "trials": trials, "rules": rules.to_dict(game.players),
           "hands": [{"seat": (p - game.dealer) % game.players, "player": p,
                      "cards": [format_card(c) for c in sort_hand(game.hands[p])]}
                     for p in range(game.players)]}
    out["hands"].sort(key=lambda h: h["seat"])
    out.update(summarise_games(rec["loser"], rec["draws"], game.players))
    return out
