"""Random-play and greedy win rates of a Pyramid deal: N seeded playouts per player.

A *playout* plays one game from the deal's start (or from a given position) to its end under the
deal's rules, choosing each move by one of two players. The players, the list of legal moves
they choose from and when a game ends are stated exactly in docs/pyramid.md ("Players"); in
short:

* **random**: picks uniformly among all legal moves, each listed once: every pair of two
  available cards (one move, whichever card comes first), every overlap pair (when allowed),
  every available king, and the draw (or, with the stock empty, the recycle while recycles are
  left). The list is exactly ``replay.Position.legal_steps``, in its order.
* **greedy**: plays a removal of the highest score (the lowest row of the pyramid cards it
  removes, 0 for none, plus 8 for a king), ties uniformly; with no removal the draw or else the
  recycle.

A game is won when the goal is met and lost when no legal move is left; with unlimited recycles
it is also lost when the player picks a recycle after an earlier recycle of the same game with no
card removed since (the first recycle never ends a game).

Randomness: playout ``i`` of a run with ``seed`` draws from its own SplitMix64 stream,
``rng.new_state(rng.stream_seed(seed, i))`` (solver/core/rng.py), the same stream for both
players. A choice among ``k >= 2`` moves takes one ``rng.below(k)`` draw (the random player: the
``k``-th legal move in ``legal_steps`` order; the greedy player: the ``k``-th of the tied best
removals in that order); a choice with one move left takes no draw. A playout's result depends
only on ``(seed, i)``, so the rates are the same whatever ``jobs`` is.

The kernels are in ``solver.pyramid.analysis.playout_kernels``; playouts run through the shared seeded
runner (``solver.core.runner.run_games``) like the other games' simulators.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from solver.core.rng import check_seed
from solver.core.runner import check_games, run_games
from solver.core.stats import wilson
from solver.pyramid.model.deals import Deal
from solver.pyramid.analysis.playout_kernels import PLAYER_COUNT, PLAYER_GREEDY, PLAYER_RANDOM, \
    play_block, wins_many
from solver.pyramid.model.replay import Position
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.state import START, packed_position

PLAYERS = ("random", "greedy")
"""The players, in the order of the kernels' player codes."""
DEFAULT_PLAYOUTS = 10_000
"""Playouts per player for one deal's analysis."""
PLAYOUT_CHUNK = 2_500
"""Playouts per runner chunk: small enough that a deal's 10,000 keep two workers busy."""


@dataclass(frozen=True)
class PlayoutRates:
    """Both players' wins out of ``games`` playouts of one deal (seeded by ``seed``); ``random``
    and ``greedy`` are ``solver.core.stats.wilson`` dicts ``{p, lo, hi, n}``."""

    games: int
    seed: int
    random_wins: int
    greedy_wins: int
    random: dict
    greedy: dict

    def to_dict(self) -> dict:
        return {"games": self.games, "seed": self.seed, "random": dict(self.random),
                "greedy": dict(self.greedy)}


class PlayoutWins(NamedTuple):
    """Wins per deal of ``playout_wins_many`` (int64 arrays, one entry per deal)."""

    random: np.ndarray
    greedy: np.ndarray


def start_state(deal: Deal, rules: Rules, start) -> int:
    """The packed position to play from: the deal's start for ``None``, a ``replay.Position`` of
    this deal and rules, or a packed position int. Raises ``ValueError``."""
    if start is None:
        return int(START)
    if isinstance(start, Position):
        if start.rules != rules or not np.array_equal(start.deal, deal):
            raise ValueError("the start position belongs to another deal or other rules")
        return packed_position(start)
    try:
        state = int(start)
    except (TypeError, ValueError):
        raise ValueError(f"start must be None, a Position or a packed position, not {start!r}") \
            from None
    if not 0 <= state < 1 << 64:
        raise ValueError(f"start {start!r} is not a packed position (a uint64)")
    return state


def check_rules(rules) -> Rules:
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a solver.pyramid.model.rules.Rules, not {type(rules).__name__}")
    return rules


def run_chunk(seed: int, first: int, count: int, params: dict) -> dict:
    """The runner's chunk function: playouts ``first .. first + count - 1`` of both players."""
    out = np.zeros((count, PLAYER_COUNT), dtype=np.int8)
    play_block(np.asarray(params["deal"], dtype=np.int64), np.uint64(params["start"]),
               params["rules"].args, np.uint64(seed), first, count, out)
    return {"random": out[:, PLAYER_RANDOM], "greedy": out[:, PLAYER_GREEDY]}


def playout_rates(deal, rules: Rules = Rules(), games: int = DEFAULT_PLAYOUTS, seed: int = 0,
                  jobs: int | None = 1, start=None, progress: bool = False) -> PlayoutRates:
    """Win rates of the random and the greedy player over ``games`` playouts each of ``deal``
    (a ``Deal``, or any form ``Deal.of`` takes) under ``rules``, from the deal's start or from ``start`` (a
    ``replay.Position`` or a packed position), on ``jobs`` processes."""
    deal = Deal.of(deal)
    rules = check_rules(rules)
    games = check_games(games, "playouts")
    seed = check_seed(seed)
    state = start_state(deal, rules, start)
    params = {"deal": deal.cards.tolist(), "start": state, "rules": rules}
    rec = run_games(run_chunk, seed, games, params, jobs=jobs, progress=progress,
                    chunk=PLAYOUT_CHUNK, desc="playouts")
    rw, gw = int(rec["random"].sum()), int(rec["greedy"].sum())
    return PlayoutRates(games, seed, rw, gw, wilson(rw, games), wilson(gw, games))


def playout_wins_many(deals, rules: Rules, games: int, seed: int = 0,
                      greedy: bool = True) -> PlayoutWins:
    """Wins out of ``games`` playouts per player for each deal of an ``(n, 52)`` array, from each
    deal's start, in one kernel call (batch scoring). Deal ``d``'s counts equal
    ``playout_rates(deals[d], rules, games, seed)``'s. With ``greedy=False`` only the random
    player plays (the greedy counts are then all 0). The deals are a batch chunk's, checked
    where they were read (``solver.batch.work``), and not checked again."""
    deals = np.ascontiguousarray(deals, dtype=np.int64)
    if deals.ndim != 2 or deals.shape[1] != 52:
        raise ValueError(f"deals must be an (n, 52) array, not {deals.shape}")
    rules = check_rules(rules)
    games = check_games(games, "playouts")
    seed = check_seed(seed)
    wins = np.zeros((len(deals), PLAYER_COUNT), dtype=np.int64)
    end = PLAYER_COUNT if greedy else PLAYER_RANDOM + 1
    wins_many(deals, np.uint64(START), rules.args, np.uint64(seed), games, PLAYER_RANDOM, end,
              wins)
    return PlayoutWins(wins[:, PLAYER_RANDOM].copy(), wins[:, PLAYER_GREEDY].copy())
