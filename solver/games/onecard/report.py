"""One Card as a ``Game``: rules from the options, the runner's pieces, summaries and traces as
text. Plain Python: the engine (numba) is imported inside the functions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from solver.core.cards import format_card
from solver.core.stats import fmt_figure, fmt_mean, fmt_p
from solver.games.base import Trace, from_dealer, seat_name

if TYPE_CHECKING:
    from solver.games.onecard.engine import OneCardRules
    from solver.games.onecard.sim import RoundLog

GAME_NAME = "one-card"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
PLACE_WIDTH = 23
"""The width of the place column of ``simulate one-card`` (``2nd left of the dealer``)."""
BIDS_PER_LINE = 5
"""The made-bid rates by winning bid are printed this many to a line (two lines)."""


def rules_from_options(players: int, no_joker: bool = False) -> OneCardRules:
    """The table: ``players`` players, with the red joker unless ``no_joker``."""
    from solver.games.onecard.engine import OneCardRules

    return OneCardRules(players, not no_joker)


def run_chunk(seed: int, first_game: int, n_games: int, params: dict) -> dict:
    """The runner's chunk function (``solver.games.onecard.sim.run_chunk``)."""
    from solver.games.onecard.sim import run_chunk as chunk

    return chunk(seed, first_game, n_games, params)


def chunk_params(rules: OneCardRules) -> dict:
    """``run_chunk``'s params."""
    return {"players": rules.players, "joker": rules.joker}


def summarise(records: dict, rules: OneCardRules, seed: int) -> dict:
    """The summary of a run's records (``solver.games.onecard.sim.summarise``)."""
    from solver.games.onecard.sim import summarise as summary

    return summary(records, rules.players, rules.joker, seed)


def simulate(rules: OneCardRules, seed: int, games: int, jobs: int | None,
             progress: bool) -> dict:
    """A run of ``games`` games to 30, summarised."""
    from solver.games.onecard.sim import simulate as run

    return run(seed, games, rules.players, rules.joker, jobs=jobs, progress=progress)


def hand_text(cards, joker: int) -> str:
    """Cards by suit, highest (uptown) first, the joker last."""
    from solver.games.onecard.engine import UPTOWN_STRENGTH

    key = [(c == joker, c // 13, -UPTOWN_STRENGTH[c]) for c in cards]
    return " ".join(format_card(c) for _, c in sorted(zip(key, cards))) or "-"


def render_summary(res: dict, rules: OneCardRules) -> str:
    """``simulate one-card`` as text."""
    lines = [f"One Card: {rules.describe()}",
             f"{res['games']} games, {res['rounds']} rounds, seed {res['seed']}; random play "
             "(every bid, card and downtown switch uniform among the legal choices)",
             "95% intervals, by place from the dealer (clockwise): the win rate from the game's "
             "first dealer, points and bids from the round's dealer (left of the dealer bids "
             "first).", "",
             f"{'':<{PLACE_WIDTH}} {'win rate':<26} {'points per round':<24} "
             f"{'wins the bid':<26} makes the bid"]
    for s in res["seats"]:  # "seat": the place from the dealer (the JSON key)
        lines.append(f"{from_dealer(s['seat']):<{PLACE_WIDTH}} {fmt_p(s['win_rate']):<26} "
                     f"{fmt_mean(s['points_per_round']):<24} {fmt_p(s['bids_won']):<26} "
                     f"{fmt_p(s['bid_made'])}")
    lines += ["", f"Bidder makes the bid:     {fmt_p(res['bid_made'])}  "
                  f"({res['bid_made']['n']} rounds with a bid)"]
    by_bid = [f"{b}: {fmt_figure(d['p'], 3)} (n {d['n']})"
              for b, d in res["bid_made_by_bid"].items()]
    lines.append("  by winning bid:  " + ", ".join(by_bid[:BIDS_PER_LINE]))
    lines.append("                   " + ", ".join(by_bid[BIDS_PER_LINE:]))
    lines += [f"Winning bid:              {fmt_mean(res['winning_bid'])}",
              f"Nobody bids:              {fmt_p(res['no_bid'])}",
              f"Downtown switch taken:    {fmt_p(res['downtown_switch'])}  "
              f"(of {res['downtown_switch']['n']} rounds without a bid)",
              f"Game length in rounds:    {fmt_mean(res['game_length'])}  "
              f"(longest {res['longest_game']})"]
    return "\n".join(lines)


def trick_lines(log: RoundLog) -> list[str]:
    """One line per trick: the cards in play order, the winner, the joker's fate."""
    joker = log.rules.joker_card
    lines = []
    for t, trick in enumerate(log.tricks, start=1):
        plays = ", ".join(f"s{s} {format_card(c)}" for s, c in trick["cards"])
        line = f"  trick {t:>2}: {plays}  -> seat {trick['winner']}"
        if t == 1 and log.trump >= 0:
            line += f"  (trump: {SUIT_NAMES[log.trump]})"
        if trick["switch"]:
            line += "; captures the joker and switches to downtown"
        elif log.trump < 0 and any(c == joker for _, c in trick["cards"]):
            line += "; captures the joker, stays uptown"
        lines.append(line)
    return lines


def trace(rules: OneCardRules, seed: int, game_index: int = 0) -> Trace:
    """Round 1 of game ``game_index`` of ``simulate one-card --seed seed``, trick by trick."""
    from solver.games.onecard.sim import first_round

    log = first_round(seed, rules.players, rules.joker, game_index)
    joker = log.rules.joker_card
    head = [f"One Card, seed {log.seed} (game {log.game}, round 1 of 'simulate one-card --seed "
            f"{log.seed}'): {log.rules.describe()}",
            f"Dealer: seat {log.dealer}; seats 0..{log.rules.players - 1} clockwise",
            "Hands:"]
    head += [f"  {seat_name(s, log.dealer):<20} {hand_text(h, joker)}"
             for s, h in enumerate(log.hands)]
    head += [f"  one card (face down)  {format_card(log.one_card)}",
             "Bidding (from the dealer's left):"]
    head += [f"  seat {s} " + (f"bids {b}" if b else "passes") for s, b in log.bids]
    if log.bidder >= 0:
        head.append(f"Seat {log.bidder} wins the bid with {log.bid} and leads; the suit led "
                    "is trump.")
    else:
        head.append(f"Nobody bids: no trumps, uptown; seat {log.leader} leads.")
    last = log.tricks[-1]["winner"]
    tail = [f"The one card {format_card(log.one_card)} goes to seat {last} "
            "(winner of the last trick).",
            "Captured points: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(log.captured))]
    if log.bidder >= 0:
        verdict = "makes" if log.made else "falls short of"
        tail.append(f"Seat {log.bidder} {verdict} the bid of {log.bid}.")
    tail.append("Round scores: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(log.scored)))
    record = {"game": GAME_NAME, **log.to_dict()}
    return Trace(GAME_NAME, log.seed, record["rules"], tuple(head), tuple(trick_lines(log)),
                 tuple(tail), record)
