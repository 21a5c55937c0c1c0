"""Black Maria and standard Hearts: one trick-taking engine, two presets (docs/hearts.md).

A game variant is data: a ``Preset`` (what differs between Black Maria and standard Hearts) plus a
``HeartsRules`` (the preset, the number of players and the table options Spot Hearts, Omnibus, the
moon rule and the target score). ``HeartsRules.kernel_args()`` turns it into the plain arrays and
ints the numba kernels of ``solver.games.hearts.kernels`` take.

Engine decisions where the usual rules are silent (docs/hearts.md lists them all):

* Seat 0 deals the first deal of every game; the deal then moves one seat left each deal. Cards
  are dealt one at a time starting with the dealer's left.
* Standard Hearts' pass rotation starts with "left" on the first deal of a game.
* The moon takes every penalty card of the deal (all hearts and the queen of spades); what moves is
  the deal's full penalty value (26, or 129 with Spot Hearts). The Omnibus jack of diamonds is
  neither a penalty card nor part of the moon: its -10 always stays with whoever took it.
* The first-trick ban covers the penalty cards (hearts, queen of spades), not the Omnibus jack.
* A game ends after the deal in which some total reaches (>=) the target; every seat with the
  lowest total wins (a tie counts as a win for each tied seat).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from solver.games.hearts import kernels as K
from solver.core.cards import CLUBS, HEARTS, NATURAL_CARDS, SUITS, card_suit, mask_of
from solver.games.hearts.rules import (
    MIN_PLAYERS, MAX_PLAYERS, DEFAULT_TARGET, MAX_TARGET, MAX_DEALS, QUEEN_OF_SPADES, JACK_OF_DIAMONDS,
    OMNIBUS_POINTS, SPOT_QUEEN_POINTS, Preset, PRESETS, find_preset, trick_rank)
from solver.core.rng import check_seed
from solver.core.runner import run_games
from solver.core.stats import histogram, mean_ci, wilson
from solver.core.validate import check_int

_MOON_CODE = {"none": K.MOON_NONE, "others": K.MOON_OTHERS, "subtract": K.MOON_SUBTRACT}


def heart_points(card: int, spot: bool) -> int:
    """A heart's penalty: 1, or with Spot Hearts its rank (2..10, J 11, Q 12, K 13, A 14)."""
    return trick_rank(card) if spot else 1


@dataclass(frozen=True)
class HeartsRules:
    """One table: a preset, the player count and the options of docs/hearts.md."""

    game: str = "black-maria"
    players: int = 4
    spot_hearts: bool = False
    omnibus: bool = False
    moon: str | None = None
    """``None`` picks the preset's default (``none`` in Black Maria, ``others`` in Hearts)."""
    target: int = DEFAULT_TARGET

    def __post_init__(self) -> None:
        preset = find_preset(self.game)
        object.__setattr__(self, "game", preset.name)
        check_int(self.players, f"{preset.title} takes {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                  f"not {self.players!r}", MIN_PLAYERS, MAX_PLAYERS)
        if self.moon is None:
            object.__setattr__(self, "moon", preset.moon_rules[0])
        if self.moon not in preset.moon_rules:
            raise ValueError(f"{preset.title} has no moon rule {self.moon!r} "
                             f"(choose from {', '.join(preset.moon_rules)})")
        check_int(self.target, f"the target score must be 1..{MAX_TARGET}, not {self.target!r}",
                  1, MAX_TARGET)

    @property
    def preset(self) -> Preset:
        return PRESETS[self.game]

    @property
    def removed(self) -> tuple[int, ...]:
        """Card ids taken out of the deck at this player count."""
        return self.preset.removed[self.players]

    @property
    def deck(self) -> np.ndarray:
        """The card ids in play, ascending."""
        gone = set(self.removed)
        return np.array([c for c in range(NATURAL_CARDS) if c not in gone], dtype=np.int64)

    @property
    def hand_size(self) -> int:
        return len(self.deck) // self.players

    @property
    def pass_cycle(self) -> tuple[int, ...]:
        return self.preset.pass_cycle[self.players]

    def pass_offset(self, deal_index: int) -> int:
        """Pass offset of the ``deal_index``-th deal (0-based) of a game."""
        cycle = self.pass_cycle
        return cycle[deal_index % len(cycle)]

    @property
    def points(self) -> np.ndarray:
        """int64[52]: what taking each card costs (the Omnibus jack is negative)."""
        pts = np.zeros(NATURAL_CARDS, dtype=np.int64)
        for c in range(NATURAL_CARDS):
            if card_suit(c) == HEARTS:
                pts[c] = heart_points(c, self.spot_hearts)
        for c, p in self.preset.spade_points.items():
            pts[c] = SPOT_QUEEN_POINTS if (self.spot_hearts and c == QUEEN_OF_SPADES) else p
        if self.omnibus:
            pts[JACK_OF_DIAMONDS] = OMNIBUS_POINTS
        for c in self.removed:
            pts[c] = 0
        return pts

    @property
    def penalty_cards(self) -> list[int]:
        """The penalty cards in play (positive points), lowest id first."""
        pts = self.points
        return [int(c) for c in self.deck if pts[c] > 0]

    @property
    def penalty_total(self) -> int:
        """Sum of the penalty cards in play: 43 in four-player Black Maria, 26 in Hearts."""
        pts = self.points
        return int(sum(pts[c] for c in self.penalty_cards))

    @property
    def lead_card(self) -> int:
        """The card that must open a deal (the lowest club in play), or -1 for any card."""
        if not self.preset.lowest_club:
            return -1
        return min((int(c) for c in self.deck if card_suit(int(c)) == CLUBS), key=trick_rank)

    def deal_total(self, moon: bool = False) -> int:
        """What the points of one deal sum to: the penalties plus the Omnibus jack, or after a
        moon the redistributed penalties (the deal invariant the tests hold)."""
        bonus = OMNIBUS_POINTS if self.omnibus else 0
        if not moon:
            return self.penalty_total + bonus
        if self.moon == "others":
            return (self.players - 1) * self.penalty_total + bonus
        if self.moon == "subtract":
            return -self.penalty_total + bonus
        raise ValueError(f"{self.preset.title} has no moon")

    def kernel_args(self) -> K.KernelArgs:
        """These rules as the kernels take them."""
        penalty = mask_of(self.penalty_cards)
        return K.KernelArgs(
            n=self.players, deck=self.deck, points=self.points,
            pass_offsets=np.array(self.pass_cycle, dtype=np.int64), lead_card=self.lead_card,
            must_break=self.preset.must_break,
            ban_mask=np.uint64(penalty if self.preset.first_trick_ban else 0),
            moon_mask=np.uint64(penalty), moon_points=self.penalty_total,
            moon_rule=_MOON_CODE[self.moon])

    def options(self) -> list[str]:
        """The table options in force, as words (empty for the plain preset)."""
        out = []
        if self.spot_hearts:
            out.append("Spot Hearts")
        if self.omnibus:
            out.append("Omnibus")
        if self.moon != "none":
            out.append(f"moon: {self.moon}")
        return out

    def describe(self) -> str:
        opts = ", ".join(self.options()) or "no options"
        return f"{self.preset.title}, {self.players} players, target {self.target} ({opts})"

    def to_dict(self) -> dict:
        return asdict(self)

    def with_options(self, **changes) -> "HeartsRules":
        return replace(self, **changes)


def legal_moves(rules: HeartsRules, hand, led_suit: int | None = None, first_trick: bool = False,
                hearts_broken: bool = False) -> list[int]:
    """The cards of ``hand`` (card ids) that may be played: as the leader (``led_suit`` None) or
    following ``led_suit``, in the first trick or later, with hearts broken or not."""
    cards = [int(c) for c in hand]
    in_play = set(int(c) for c in rules.deck)
    for c in cards:
        if c not in in_play:
            raise ValueError(f"card id {c} is not in play in {rules.describe()}")
    if led_suit is not None:
        check_int(led_suit, f"led suit must be 0..3, not {led_suit}", 0, SUITS - 1)
    args = rules.kernel_args()
    if first_trick and led_suit is None and args.lead_card >= 0 and args.lead_card not in cards:
        raise ValueError("the first lead of a Hearts deal comes from the lowest club's holder")
    legal = K.legal_mask(mask_of(cards), -1 if led_suit is None else led_suit, first_trick,
                         hearts_broken, args)
    return [c for c in sorted(cards) if legal >> c & 1]


def run_chunk(seed: int, first_game: int, n_games: int, params: dict) -> dict:
    """Chunk function for ``solver.core.runner.run_games``: games ``first_game ..`` of ``seed``.

    Per-game keys (``length``, ``final``, ``capped``) have one row a game; the per-deal keys
    (``deal_points``, ``shooter``) one row a deal, all deals of the chunk's games in game order,
    so the runner's concatenation keeps them in order too."""
    rules: HeartsRules = params["rules"]
    return K.play_game_records(seed, first_game, n_games, rules.kernel_args(), rules.target,
                               MAX_DEALS)._asdict()


def play_games(rules: HeartsRules, games: int, seed: int = 0, jobs: int | None = 1,
               progress: bool = False) -> dict:
    """Raw records of ``games`` random-play games (see ``run_chunk``)."""
    if not isinstance(rules, HeartsRules):
        raise ValueError("rules must be a HeartsRules")
    seed = check_seed(seed)
    games = check_int(games, f"the number of games must be a positive integer, not {games!r}", 1)
    return run_games(run_chunk, seed, games, {"rules": rules}, jobs, progress,
                     desc=rules.game)


def winners(final: np.ndarray) -> np.ndarray:
    """Bool (games, seats): the seats with the lowest final total (ties all win)."""
    return final == final.min(axis=1, keepdims=True)


def summarise(rules: HeartsRules, rec: dict, seed: int) -> dict:
    """Statistics with 95% intervals from the records of ``play_games``."""
    n = rules.players
    games = len(rec["length"])
    deals = len(rec["shooter"])
    win = winners(rec["final"])
    shot = rec["shooter"] >= 0
    out = {
        "game": rules.game, "rules": rules.to_dict(), "seed": seed, "games": games,
        "deals": deals, "deal_total": rules.deal_total(),
        "penalty_per_deal": [{"seat": s, **mean_ci(rec["deal_points"][:, s])} for s in range(n)],
        "win_rate": [{"seat": s, **wilson(int(win[:, s].sum()), games)} for s in range(n)],
        "shared_win_rate": wilson(int((win.sum(axis=1) > 1).sum()), games),
        "final_score": [{"seat": s, **mean_ci(rec["final"][:, s])} for s in range(n)],
        "game_length": mean_ci(rec["length"]),
        "game_length_histogram": histogram(rec["length"]),
        "games_capped": int(rec["capped"].sum()),
    }
    if rules.moon != "none":
        out["moon_rate"] = wilson(int(shot.sum()), deals)
        out["moon_rate_per_seat"] = [
            {"seat": s, **wilson(int((rec["shooter"] == s).sum()), deals)} for s in range(n)]
    return out


def simulate(rules: HeartsRules, games: int, seed: int = 0, jobs: int | None = 1,
             progress: bool = False) -> dict:
    """Play ``games`` random-play games and summarise them."""
    rec = play_games(rules, games, seed, jobs, progress)
    return summarise(rules, rec, check_seed(seed))


@dataclass(frozen=True)
class DealTrace:
    """One random-play deal as played: hands after the deal, the passes, the tricks, the points.

    ``plays[t]`` lists trick ``t``'s cards in play order, starting with ``leaders[t]``.
    """

    rules: HeartsRules
    seed: int
    deal_index: int
    dealer: int
    pass_offset: int
    dealt: list[list[int]]
    passed: list[list[int]]
    plays: list[list[int]]
    leaders: list[int]
    winners: list[int]
    trick_points: list[int]
    points: list[int]
    shooter: int
    scores_before: list[int]


def _mask_cards(m) -> list[int]:
    m = int(m)
    return [c for c in range(NATURAL_CARDS) if m >> c & 1]


def trace_deal(rules: HeartsRules, seed: int = 0, deal: int = 1) -> DealTrace:
    """Deal number ``deal`` (1-based) of game 0 of ``simulate --seed seed``, played at random."""
    seed = check_seed(seed)
    deal = check_int(deal, f"the deal number must be a positive integer, not {deal!r}", 1)
    if deal > MAX_DEALS:
        raise ValueError(f"the deal number must be at most {MAX_DEALS}")
    rec = K.deal_record(seed, 0, deal - 1, rules.kernel_args(), rules.target)
    if rec.ended >= 0:
        raise ValueError(f"game 0 of seed {seed} ends after deal {rec.ended} (a total reached the "
                         f"target {rules.target}), so it has no deal {deal}")
    pts = rules.points
    played = rec.trace
    return DealTrace(
        rules=rules, seed=seed, deal_index=deal - 1, dealer=(deal - 1) % rules.players,
        pass_offset=rules.pass_offset(deal - 1),
        dealt=[_mask_cards(m) for m in played.dealt],
        passed=[_mask_cards(m) for m in played.passed],
        plays=[[int(c) for c in row] for row in played.plays],
        leaders=[int(x) for x in played.leaders], winners=[int(x) for x in played.winners],
        trick_points=[int(sum(pts[c] for c in row)) for row in played.plays],
        points=[int(x) for x in played.deal_points], shooter=int(rec.shooter),
        scores_before=[int(x) for x in rec.before])
