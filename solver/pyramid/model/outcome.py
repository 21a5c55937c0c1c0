"""What a Pyramid search found, as every layer names it: ``Outcome`` (lost, won, unknown), the
limits that leave a search ``UNKNOWN`` (``REASONS``), ``SolveResult``, one search's answer with
its move list and counters, and what the search for a line's first losing move found
(``STATUS_*``). A small model module: it imports nothing of the searches, so
that results can be read, built and checked without loading a kernel (the searches return their
outcome to Python as the plain ints ``LOST``, ``WON``, ``UNKNOWN``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum


class Outcome(IntEnum):
    """What a search found: the deal is lost, won, or a limit stopped it first."""

    LOST = 0
    WON = 1
    UNKNOWN = 2


LOST = int(Outcome.LOST)
WON = int(Outcome.WON)
UNKNOWN = int(Outcome.UNKNOWN)
"""``Outcome`` values as the kernels return them (plain ints: numba code compares ints)."""


REASON_STATES = "states"
"""An ``UNKNOWN`` search stopped at its cap on positions expanded (``max_states``)."""
REASON_TIMEOUT = "timeout"
"""An ``UNKNOWN`` search stopped at its time limit."""
REASON_MEMORY = "memory"
"""An ``UNKNOWN`` search stopped because it had no memory left to store more positions."""
REASON_DEPTH = "depth"
"""An ``UNKNOWN`` minimum-move search met lines longer than its move counter can hold (not seen
in practice: every line of a Pyramid deal is far shorter)."""
REASONS = (REASON_STATES, REASON_TIMEOUT, REASON_MEMORY, REASON_DEPTH)


@dataclass
class SolveResult:
    """The outcome of one search, with a move list on a win and the counters.

    ``reason`` says which limit stopped an ``UNKNOWN`` search (one of ``REASONS``); it is None
    for every other outcome.
    """

    outcome: Outcome
    solution: list = field(default_factory=list)
    states: int = 0
    seconds: float = 0.0
    optimal: bool = False
    lower_bound: int | None = None
    reason: str | None = None

    def __post_init__(self) -> None:
        if (self.outcome == Outcome.UNKNOWN) != (self.reason is not None):
            raise ValueError(f"reason must be given exactly when the outcome is unknown, not "
                             f"{self.reason!r} with {Outcome(self.outcome).name}")
        if self.reason is not None and self.reason not in REASONS:
            raise ValueError(f"reason must be one of {', '.join(REASONS)}, not {self.reason!r}")

    @property
    def winnable(self) -> bool | None:
        return None if self.outcome == Outcome.UNKNOWN else self.outcome == Outcome.WON

    @property
    def moves(self) -> int | None:
        return len(self.solution) if self.outcome == Outcome.WON else None


STATUS_WON, STATUS_NEVER, STATUS_LOST_AT, STATUS_STILL, STATUS_UNKNOWN = (
    "won", "never_winnable", "lost_at", "still_winnable", "unknown")
"""What ``first_losing_move`` found: the moves win; the deal was never winnable; it stopped
being winnable after move ``move``; every prefix is still winnable (the moves just stop); a
search limit stopped it first."""
