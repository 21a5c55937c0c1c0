"""Duizenden (docs/duizenden.md): variants as data, one seeded round or game, and the simulation.

The kernels live in ``duizenden.melds`` (meld rules, action enumerators), ``duizenden.table``
(the round's state arrays and card moves) and ``duizenden.play`` (round and game loops); this
module checks input, runs them and turns their arrays into results.
Game ``i`` of a simulation with seed ``S`` draws all its randomness from
``rng.new_state(rng.stream_seed(S, i))``; ``play_round(S, ...)`` is the first round of game 0.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from solver.core.cards import MAX_CARDS, format_card, format_cards
from solver.games.duizenden.melds import (
    FLAG_DISCARD_LAST, FLAG_JOKER_EXCHANGE, FLAG_LAST_CARD, FLAG_NO_OUT_ON_OPENING,
    FLAG_QUEEN_KEPT, M_CARDS, M_N, M_OWNER, M_POS, M_TYPE, MELD_RUN, POINTS)
from solver.games.duizenden.play import (END_EXHAUSTED, END_OUT, END_TURN_LIMIT, RoundRules,
                                         _play_game, play_round_kernel, game_rng, new_records)
from solver.games.duizenden.table import (
    HAND_CARDS, LOC_OPEN, LOC_POT, LOC_STOCK, LOC_TABLE, LOG_ROWS, SC_LOG_N, SC_LOG_ON, SC_MELDS,
    SC_OUT, SC_POT, SC_STOCK, SC_TURNS, new_work)
from solver.games.duizenden.options import (  # noqa: F401 - re-exported
    DEFAULT_MAX_ROUNDS, DEFAULT_PENALTY, GAME_NAME, MAX_MAX_ROUNDS, MAX_PLAYERS, MIN_PLAYERS,
    TARGET_POINTS, VARIANT_NAMES)
from solver.core.rng import check_seed
from solver.core.runner import run_games
from solver.core.stats import histogram, mean_ci, wilson
from solver.core.validate import check_int

END_NAMES = {END_OUT: "out", END_EXHAUSTED: "stock exhausted", END_TURN_LIMIT: "turn limit"}


@dataclass(frozen=True)
class Variants:
    """The five variants of docs/duizenden.md (all off by default: the plain rules).

    no_out_on_opening: 1. no going out in the turn of opening.
    joker_exchange:    2. a table joker may be exchanged for the natural card it stands for.
    last_card:         3. "last card" must be announced; forgetting costs ``penalty`` points.
    discard_last:      4. the last card must be discarded (never melded or laid off).
    queen_kept:        5. the queen of spades may not be discarded even as the last card.
    """

    no_out_on_opening: bool = False
    joker_exchange: bool = False
    last_card: bool = False
    discard_last: bool = False
    queen_kept: bool = False
    penalty: int = DEFAULT_PENALTY

    def __post_init__(self) -> None:
        check_int(self.penalty, f"the last-card penalty must be 0..{TARGET_POINTS}, "
                  f"not {self.penalty}", 0, TARGET_POINTS)

    @property
    def flags(self) -> int:
        """The kernels' bit set (``FLAG_*``)."""
        return ((FLAG_NO_OUT_ON_OPENING if self.no_out_on_opening else 0)
                | (FLAG_JOKER_EXCHANGE if self.joker_exchange else 0)
                | (FLAG_LAST_CARD if self.last_card else 0)
                | (FLAG_DISCARD_LAST if self.discard_last else 0)
                | (FLAG_QUEEN_KEPT if self.queen_kept else 0))

    def names(self) -> list[str]:
        return [name for name, attr in VARIANT_NAMES.items() if getattr(self, attr)]

    def to_dict(self) -> dict:
        return asdict(self)

    def rules_json(self, players: int, **more) -> dict:
        """The rules as JSON: players, the variants on (names), the last-card penalty (None
        unless that variant is on) and any ``more`` options (such as ``max_rounds``)."""
        return {"players": int(players), "variants": self.names(),
                "penalty": self.penalty if self.last_card else None, **more}


def find_variants(names, penalty: int = DEFAULT_PENALTY) -> Variants:
    """The ``Variants`` with the named ones on (names or numbers 1..5, any case).
    Raises ``ValueError`` naming the choices for an unknown name."""
    order = list(VARIANT_NAMES)
    on: dict[str, bool] = {}
    for raw in names:
        key = str(raw).strip().lower()
        if key.isdigit() and 1 <= int(key) <= len(order):
            key = order[int(key) - 1]
        if key not in VARIANT_NAMES:
            raise ValueError(f"unknown variant {raw!r} (choose from {', '.join(order)} or 1..5)")
        on[VARIANT_NAMES[key]] = True
    return Variants(penalty=penalty, **on)


def check_players(players: int) -> int:
    return check_int(players, f"players must be an integer, not {players!r}",
                     MIN_PLAYERS, MAX_PLAYERS,
                     f"Duizenden is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")


def _check_variants(variants: Variants | None) -> Variants:
    if variants is None:
        return Variants()
    if not isinstance(variants, Variants):
        raise ValueError(f"variants must be a Variants object, not {variants!r}")
    return variants


def play_round(seed: int, players: int, variants: Variants | None = None, start: int = 0,
               log: bool = False) -> dict:
    """Deal and randomly play one round from the stream of game 0 of ``seed``.

    Returns the end (``"out"`` / ``"stock exhausted"``), turns, scores by seat, the final place of
    each of the 108 cards (``loc``: a seat or a ``LOC_*`` code, see ``place_name``), the table
    melds with their owners, the deal, and with ``log`` the events for ``format_events``."""
    seed = check_seed(seed)
    players = check_players(players)
    variants = _check_variants(variants)
    start = check_int(start, f"the starting seat must be 0..{players - 1}, not {start}", 0,
                      players - 1)
    work = new_work(LOG_ROWS if log else 0)
    loc, cnt, melds, owner, sc = work.loc, work.cnt, work.melds, work.owner, work.sc
    sc[SC_LOG_ON] = 1 if log else 0
    rng = game_rng(seed, 0)
    end = play_round_kernel(rng, RoundRules(players, variants.flags, variants.penalty), start,
                            work)
    deal = work.deck.copy()
    return {
        "end": END_NAMES[int(end)],
        "turns": int(sc[SC_TURNS]),
        "out_seat": int(sc[SC_OUT]),
        "scores": [int(s) for s in work.scores[:players]],
        "loc": loc.copy(),
        "owner": owner.copy(),
        "cnt": cnt[:players].copy(),
        "penalty": [int(p) for p in work.penalty[:players]],
        "opened": [bool(o) for o in work.opened[:players]],
        "stock_left": int(sc[SC_STOCK]),
        "pot_size": int(sc[SC_POT]),
        "melds": [{"owner": int(melds[m, M_OWNER]),
                   "run": bool(melds[m, M_TYPE] == MELD_RUN),
                   "cards": [int(c) for c in melds[m, M_CARDS:M_CARDS + melds[m, M_N]]],
                   "pos": [int(c) for c in melds[m, M_POS:M_POS + melds[m, M_N]]]}
                  for m in range(sc[SC_MELDS])],
        "hands": [[int(c) for c in deal[p * HAND_CARDS:(p + 1) * HAND_CARDS]]
                  for p in range(players)],
        "open_card": int(deal[players * HAND_CARDS]),
        "stock": [int(c) for c in deal[players * HAND_CARDS + 1:]][::-1],
        "events": work.log[:sc[SC_LOG_N]].copy() if log else None,
    }


def format_meld(meld: dict) -> str:
    """Text of a table meld from ``play_round``: a run in rank order with each joker's stand-in
    (``5h RJ=6h 7h``), a set in the order laid."""
    if not meld["run"]:
        return format_cards(meld["cards"])
    suit = next(c % 54 // 13 for c in meld["cards"] if c % 54 < 52)
    parts = []
    for pos, card in sorted(zip(meld["pos"], meld["cards"])):
        text = format_card(card)
        if card % 54 >= 52:
            text += "=" + format_card(suit * 13 + (0 if pos == 14 else pos - 1))
        parts.append(text)
    return " ".join(parts)


def card_points(card: int) -> int:
    """Duizenden points of a card id (2..9: 5, 10-K: 10, A: 20, joker: 25, queen of spades: 100)."""
    card = check_int(card, f"no card has id {card}", 0, MAX_CARDS - 1)
    b = card % 54
    return int(POINTS[min(b, 52)])


def place_name(code: int) -> str:
    """Text of a ``loc`` code."""
    return {LOC_STOCK: "stock", LOC_POT: "pot", LOC_OPEN: "open card",
            LOC_TABLE: "table"}.get(int(code), f"seat {int(code)}")


def run_chunk(seed: int, first_game: int, n_games: int, params: dict) -> dict:
    """Play games ``first_game..`` for ``solver.core.runner.run_games``.

    Per-game arrays (first axis = game): ``rounds``, ``winner`` (-1 unfinished), ``totals``.
    Per-round arrays (first axis = round, in game order): ``round_scores``, ``round_turns``,
    ``round_end``."""
    players = params["players"]
    max_rounds = params["max_rounds"]
    rules = RoundRules(players, params["flags"], params["penalty"])
    work = new_work()
    rec = new_records(max_rounds)
    totals = np.zeros(MAX_PLAYERS, dtype=np.int64)
    rounds = np.zeros(n_games, dtype=np.int64)
    winner = np.zeros(n_games, dtype=np.int64)
    game_totals = np.zeros((n_games, players), dtype=np.int64)
    sc_rows, st_rows, en_rows = [], [], []
    for g in range(n_games):
        rng = game_rng(seed, first_game + g)
        n, w = _play_game(rng, rules, max_rounds, work, rec, totals)
        rounds[g] = n
        winner[g] = w
        game_totals[g] = totals[:players]
        sc_rows.append(rec.scores[:n, :players].copy())
        st_rows.append(rec.turns[:n].copy())
        en_rows.append(rec.end[:n].copy())
    return {"rounds": rounds, "winner": winner, "totals": game_totals,
            "round_scores": np.concatenate(sc_rows), "round_turns": np.concatenate(st_rows),
            "round_end": np.concatenate(en_rows)}


def simulate(seed: int, games: int, players: int, variants: Variants | None = None,
             jobs: int | None = 1, progress: bool = False,
             max_rounds: int = DEFAULT_MAX_ROUNDS) -> dict:
    """Random-play ``games`` games to 1000 and summarise them with 95% intervals."""
    seed = check_seed(seed)
    players = check_players(players)
    variants = _check_variants(variants)
    games = check_int(games, f"the number of games must be a positive integer, not {games!r}", 1)
    max_rounds = check_int(max_rounds, f"max_rounds must be 1..{MAX_MAX_ROUNDS}, not {max_rounds}",
                           1, MAX_MAX_ROUNDS)
    params = {"players": players, "flags": variants.flags, "penalty": variants.penalty,
              "max_rounds": max_rounds}
    rec = run_games(run_chunk, seed, games, params, jobs=jobs, progress=progress,
                    chunk=500, desc="duizenden")
    return summarise(rec, seed, players, variants, max_rounds)


def summarise(rec: dict, seed: int, players: int, variants: Variants, max_rounds: int) -> dict:
    games = len(rec["rounds"])
    finished = rec["winner"] >= 0
    n_fin = int(finished.sum())
    n_rounds = len(rec["round_end"])
    ends = {END_NAMES[k]: wilson(int((rec["round_end"] == k).sum()), n_rounds)
            for k in (END_OUT, END_EXHAUSTED, END_TURN_LIMIT)}
    return {
        "game": GAME_NAME,
        "seed": seed,
        "rules": variants.rules_json(players, max_rounds=int(max_rounds)),
        "players": players,
        "games": games,
        "finished": wilson(n_fin, games),
        "rounds_per_game": mean_ci(rec["rounds"]),
        "rounds_histogram": histogram(rec["rounds"]),
        "rounds": n_rounds,
        "turns_per_round": mean_ci(rec["round_turns"]),
        "round_end": ends,
        "score_per_round": [{"seat": p, **mean_ci(rec["round_scores"][:, p])}
                            for p in range(players)],
        "win_rate": [{"seat": p, **wilson(int((rec["winner"] == p).sum()), n_fin)}
                     for p in range(players)],
    }


EVENT_TEXT = {
    1: "takes the open card {a}, puts back {b}",
    2: "declines; turns the open card {b} face down as the pot and draws {a} from the stock",
    3: "draws {a}",
    4: "takes the pot with its top card {a}: lays meld {b} {cards}; takes the other {c} pot cards",
    5: "melds meld {b}: {cards} ({a} points)",
    6: "lays off {a} onto meld {b}",
    7: "exchanges {a} for the joker {c} of meld {b}",
    8: "takes back {a} provisional meld(s) ({b} points, below 30)",
    9: "has opened ({a} points this turn)",
    10: "discards {a}",
    11: "has no legal discard (only queens of spades)",
    12: "{ann}",
    13: "is out",
    14: "cannot draw: the stock is empty and the pot cannot be taken; the round ends",
}


def format_events(events: np.ndarray) -> list[str]:
    """One text line per logged event."""
    from solver.games.duizenden.table import LOG_A, LOG_B, LOG_C, LOG_CARDS, LOG_NCARDS, LOG_SEAT
    lines = []
    for row in events:
        ev = int(row[0])
        a, b, c = int(row[LOG_A]), int(row[LOG_B]), int(row[LOG_C])
        cards = format_cards(int(x) for x in row[LOG_CARDS:LOG_CARDS + row[LOG_NCARDS]])
        card_ev = ev in (1, 2, 3, 4, 6, 7, 10)
        text = EVENT_TEXT[ev].format(
            a=format_card(a) if card_ev else a,
            b=format_card(b) if ev in (1, 2) else (b + 1 if ev in (4, 5, 6, 7) else b),
            c=format_card(c) if ev == 7 else c, cards=cards,
            ann="announces \"last card\"" if a else "forgets to announce \"last card\" (penalty)")
        lines.append(f"seat {int(row[LOG_SEAT])} {text}")
    return lines
