"""Black Maria and standard Hearts as ``Game``s: rules from the options, the runner's pieces,
summaries and traces as text. Plain Python: the engine (numba) is imported inside the functions."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from solver.core.cards import format_card, format_cards
from solver.core.stats import fmt_mean, fmt_p, text_histogram
from solver.games.base import Trace
from solver.games.hearts.rules import DEFAULT_TARGET, Preset, hand_order, pass_name

if TYPE_CHECKING:
    from solver.games.hearts.game import HeartsRules


def rules_from_options(preset: Preset, players: int, spot_hearts: bool = False,
                       omnibus: bool = False, target: int = DEFAULT_TARGET,
                       moon: str | None = None) -> HeartsRules:
    """The rules of ``preset`` (Black Maria or Hearts) at a table of ``players``."""
    from solver.games.hearts.game import HeartsRules

    return HeartsRules(game=preset.name, players=players, spot_hearts=spot_hearts,
                       omnibus=omnibus, target=target, moon=moon)


def run_chunk(seed: int, first_game: int, n_games: int, params: dict) -> dict:
    """The runner's chunk function (``solver.games.hearts.game.run_chunk``)."""
    from solver.games.hearts.game import run_chunk as chunk

    return chunk(seed, first_game, n_games, params)


def chunk_params(rules: HeartsRules) -> dict:
    """``run_chunk``'s params."""
    return {"rules": rules}


def summarise(records: dict, rules: HeartsRules, seed: int) -> dict:
    """The summary of a run's records (``solver.games.hearts.game.summarise``)."""
    from solver.games.hearts.game import summarise as summary

    return summary(rules, records, seed)


def simulate(rules: HeartsRules, seed: int, games: int, jobs: int | None,
             progress: bool) -> dict:
    """A run of ``games`` games to the target, summarised."""
    from solver.games.hearts.game import simulate as run

    return run(rules, games, seed, jobs, progress=progress)


def warnings(s: dict) -> list[str]:
    """Games stopped at the deal cap (said on stderr)."""
    return [f"warning: {s['games_capped']} games stopped at the deal cap"] if s["games_capped"] \
        else []


def render_summary(s: dict, rules: HeartsRules) -> str:
    """``simulate black-maria|hearts`` as text."""
    lines = [rules.describe(),
             f"seed {s['seed']}: {s['games']} games, {s['deals']} deals; "
             f"every deal's points sum to {s['deal_total']}"
             + (" (moon deals redistribute)" if rules.moon != "none" else ""), ""]
    moon = "moon_rate_per_seat" in s
    head = f"{'seat':<5} {'penalty per deal [95% CI]':<28} {'win rate [95% CI]':<26}"
    lines.append((head + (" moon rate [95% CI]" if moon else "")).rstrip())
    for seat in range(rules.players):
        line = (f"{seat:<5} {fmt_mean(s['penalty_per_deal'][seat]):<28} "
                f"{fmt_p(s['win_rate'][seat]):<26}")
        if moon:
            line += " " + fmt_p(s["moon_rate_per_seat"][seat], 5)
        lines.append(line.rstrip())
    lines += ["", f"games won jointly (tied lowest): {fmt_p(s['shared_win_rate'])}"]
    if moon:
        lines.append(f"moon rate per deal: {fmt_p(s['moon_rate'], 5)}")
    lines.append(f"game length in deals: {fmt_mean(s['game_length'])}")
    lines.append(text_histogram(s["game_length_histogram"], label="deals      games"))
    return "\n".join(lines)


def trace(rules: HeartsRules, seed: int, deal: int = 1) -> Trace:
    """Deal ``deal`` of game 0 of ``simulate --seed seed``, played at random."""
    from solver.games.hearts.game import trace_deal

    t = trace_deal(rules, seed, deal)
    head = [rules.describe(),
            f"seed {t.seed}, game 0, deal {t.deal_index + 1}: seat {t.dealer} deals"
            + (f"; removed {format_cards(rules.removed)}" if rules.removed else "")]
    if any(t.scores_before):
        head.append("scores before the deal: " + " ".join(map(str, t.scores_before)))
    head += ["", "hands dealt:"]
    head += [f"  seat {seat}: {format_cards(hand_order(hand))}"
             for seat, hand in enumerate(t.dealt)]
    direction = pass_name(t.pass_offset, rules.players)
    if direction == "none":
        head.append("passing: none this deal")
    else:
        head.append(f"passing {direction}:")
        for seat, cards in enumerate(t.passed):
            to = (seat + t.pass_offset) % rules.players
            head.append(f"  seat {seat} -> seat {to}: {format_cards(hand_order(cards))}")
    head.append("")
    events = []
    for k, (row, lead, win, pts) in enumerate(zip(t.plays, t.leaders, t.winners, t.trick_points)):
        cards = " ".join(f"{format_card(c):>3}" for c in row)
        events.append(f"  {k + 1:>2}. seat {lead} leads: {cards}   seat {win} takes"
                      + (f" {pts}" if pts else ""))
    tail = [""]
    if t.shooter >= 0:
        tail.append(f"seat {t.shooter} shoots the moon ({rules.moon})")
    tail.append("points this deal: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(t.points))
                + f" (total {sum(t.points)})")
    d = {"game": rules.game, **asdict(t)}
    d["rules"] = rules.to_dict()
    d["pass"] = pass_name(t.pass_offset, rules.players)
    for key in ("dealt", "passed"):
        d[key] = [[format_card(c) for c in hand_order(row)] for row in d[key]]
    d["plays"] = [[format_card(c) for c in row] for row in d["plays"]]
    return Trace(rules.game, t.seed, d["rules"], tuple(head), tuple(events), tuple(tail), d,
                 events_title="tricks (leader's card first):")
