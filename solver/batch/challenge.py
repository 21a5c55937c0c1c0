"""``pyramid batch --challenge score`` and ``--challenge cards --rank R``: Microsoft Solitaire
Collection's score and card challenges (issue 32) answered for every deal of a batch, in a results
table of their own (``solver.batch.columns.CHALLENGE_TABLES``).

Challenge results (one row per deal, in input order, in CSV and Parquet alike):

    seed | line     int64   the deal's seed or its line in the deal file, as in every results file
    deal           string  the deal text, as in every results file
    max_score      int16   score: the most points any line of play earns in the deal (0 .. 1,290,
    | max_removed          counted from the deal's start); cards: the most cards of the rank any
                           line removes (0 .. 4). Empty (null) for an unknown deal.
    moves          int16   the fewest moves of a line earning that much; empty for an unknown deal
    clears_pyramid bool    whether that line clears the pyramid; empty for an unknown deal
    states         int64   positions the challenge's searches expanded
    ms             float64 wall time of the deal's challenge in milliseconds
    outcome        string  ``best``: the most any line earns (the score has no target); ``reached``:
                           a line removes all four cards of the rank (the card challenge's count);
                           ``unknown``: a limit stopped a search (``reason``)
    reason         string  for an unknown deal, the limit: states, timeout or memory; else empty

Each row is what ``score_challenge(deal, rules, max_states=..., timeout=...)`` (no target, no
points before the deal) or ``card_challenge(deal, rank, rules, count=4, ...)`` answers; the rules
are the batch's (the ``msc`` preset unless told, as ``pyramid challenge``). The challenge and its
rank are part of a run's manifest: ``--resume`` refuses another one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.core.cards import RANK_CHARS, SUITS, parse_rank
from solver.pyramid.model.scoring import SCORING

CHALLENGES = ("score", "cards")
"""The challenges ``--challenge`` names."""
CHALLENGE_OUTCOMES = ("best", "reached", "unknown")
"""A challenge row's outcome names by code: the codes of ``solver.batch.summary.OUTCOME_NAMES``'
lost (best: the target, if any, not reached), won (reached) and unknown."""
VALUE_COLUMNS = {"score": "max_score", "cards": "max_removed"}
"""The column of each challenge's value (also its key in the blocks the readers yield)."""
MOST = {"score": SCORING.max_score, "cards": SUITS}
"""The largest value of each challenge: 1,290 points; the four cards of a rank."""
CHALLENGE_PRESET = "msc"
"""The rules of a challenge batch unless told: the challenges are Microsoft's."""
CHALLENGE_CHUNK = 50
"""Deals per chunk with ``--challenge``: about 10 s of one core's work (under msc a challenge
takes 0.2 s a deal on average, a few over a second), so that a few hundred deals keep every
core busy and an interruption loses little."""
NO_VALUE = -1
"""``max_score``/``max_removed`` (and ``moves``) of an unknown deal."""
NO_FLAG = 2
"""``clears_pyramid``'s code of an unknown deal (0 false, 1 true)."""


@dataclass(frozen=True)
class Challenge:
    """The challenge of a batch: ``kind`` ``score`` or ``cards``, and the card challenge's
    ``rank`` (1..13; None for the score)."""

    kind: str
    rank: int | None = None

    @property
    def value_column(self) -> str:
        return VALUE_COLUMNS[self.kind]

    @property
    def most(self) -> int:
        return MOST[self.kind]

    @property
    def rank_text(self) -> str | None:
        """The rank as ``--rank`` takes it (``A`` .. ``K``, ``T`` for ten), None for the score."""
        return None if self.rank is None else RANK_CHARS[self.rank - 1]

    def manifest(self) -> dict:
        """What the run's manifest records (and ``run`` in the JSON summary)."""
        return {"challenge": self.kind, "rank": self.rank_text}

    def describe(self) -> str:
        if self.rank is None:
            return "the score challenge"
        return f"the card challenge of rank {self.rank_text}"


def challenge_facts(challenge: Challenge | None) -> dict:
    """``challenge`` and ``rank`` as the JSON summary's ``run`` gives them (None without one)."""
    return {"challenge": None, "rank": None} if challenge is None else challenge.manifest()


def check_challenge(challenge: str | None, rank: str | None) -> Challenge | None:
    """The ``Challenge`` of the options ``--challenge`` and ``--rank`` (None: no challenge).
    Raises ``ValueError`` naming the option: ``--rank`` goes with ``--challenge cards`` only,
    and that needs it."""
    if challenge is None:
        if rank is not None:
            raise ValueError("--rank applies to --challenge cards only")
        return None
    if challenge not in CHALLENGES:
        raise ValueError(f"--challenge must be one of {', '.join(CHALLENGES)}, not {challenge!r}")
    if challenge == "score":
        if rank is not None:
            raise ValueError("--rank applies to --challenge cards only (the score challenge "
                             "counts points)")
        return Challenge("score")
    if rank is None:
        raise ValueError("--challenge cards needs --rank R (A, 2..9, T or 10, J, Q, K)")
    try:
        return Challenge("cards", parse_rank(rank))
    except ValueError as e:
        raise ValueError(f"bad --rank: {e}") from None


@dataclass(frozen=True)
class ChallengeColumns:
    """The challenge columns of a chunk or a block, in input order: ``kind`` (the challenge),
    ``value`` (``max_score`` or ``max_removed``; ``NO_VALUE`` for an unknown deal) and
    ``clears`` (``clears_pyramid``: 0 false, 1 true, ``NO_FLAG`` unknown). ``moves`` is the
    results' own column."""

    kind: str
    value: np.ndarray
    clears: np.ndarray

    def __len__(self) -> int:
        return len(self.value)


def block_challenge(block: dict) -> ChallengeColumns | None:
    """The challenge columns of a block of a results file (None for a file of another table)."""
    for kind, key in VALUE_COLUMNS.items():
        if key in block:
            return ChallengeColumns(kind, block[key], block["clears"])
    return None


def ask_challenge(challenge: Challenge, deal, rules, max_states: int = 0,
                  timeout: float | None = None, workspace=None):
    """The challenge's answer for ``deal`` under ``rules``: ``score_challenge`` without a target
    (the most points), or ``card_challenge`` of the rank for all four of its cards, from the
    deal's start with no points or cards before it (``solver.pyramid.challenge.api``)."""
    from solver.pyramid.challenge.api import card_challenge, score_challenge

    if challenge.kind == "score":
        return score_challenge(deal, rules, max_states=max_states, timeout=timeout,
                               workspace=workspace)
    return card_challenge(deal, challenge.rank, rules, count=MOST["cards"], max_states=max_states,
                          timeout=timeout, workspace=workspace)
