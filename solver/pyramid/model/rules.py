"""Pyramid rule variants as data: a small frozen ``Rules`` object, named presets, ``find_rules``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from functools import cached_property
from typing import NamedTuple

from solver.core.text import quoted, shorten

MAX_RECYCLES = 30
"""Largest finite recycle limit (the packed position keeps the recycles used in bits 57..61,
the ``recycles`` field of ``solver.pyramid.model.state.STATE_FIELDS``)."""
GOALS = ("pyramid", "all")
UNLIMITED = "unlimited"
"""The one word for no limit on recycles (``none`` would read as "no recycles", so it is refused)."""


@dataclass(frozen=True)
class Rules:
    """One rule variant of docs/pyramid.md.

    recycles:  how often the waste may be turned back into the stock; ``None`` = unlimited
               (the default), 0 = a single pass through the stock.
    overlap:   overlap pairs allowed (a card paired with the card it covers directly).
    stock_top: the stock's top card is available too (Microsoft Solitaire Collection).
    goal:      ``"pyramid"`` (clear the 28 pyramid cards) or ``"all"`` (all 52 cards).
    """

    recycles: int | None = None
    overlap: bool = True
    stock_top: bool = False
    goal: str = "pyramid"

    def __post_init__(self) -> None:
        if self.recycles is not None and not 0 <= self.recycles <= MAX_RECYCLES:
            raise ValueError(f"recycles must be 0..{MAX_RECYCLES} or unlimited, not {self.recycles}")
        if self.goal not in GOALS:
            raise ValueError(f"goal must be one of {', '.join(GOALS)}, not {self.goal!r}")

    @cached_property
    def args(self) -> "RuleArgs":
        """The rules as the kernels take them (``RuleArgs``), made once per ``Rules``."""
        return RuleArgs(-1 if self.recycles is None else self.recycles, self.overlap,
                        self.stock_top, self.goal == "all")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["recycles"] = UNLIMITED if self.recycles is None else self.recycles
        return d

    def describe(self) -> str:
        rec = "unlimited recycles" if self.recycles is None else f"{self.recycles} recycles"
        return ", ".join([rec, "overlap pairs" if self.overlap else "no overlap pairs",
                          "stock top available" if self.stock_top else "stock top hidden",
                          f"goal {self.goal}"])

    def with_options(self, recycles: int | None | str = "keep", overlap: bool | None = None,
                     stock_top: bool | None = None, goal: str | None = None) -> "Rules":
        """A copy with the given options changed (``None`` / ``"keep"`` leaves one as it is)."""
        changes: dict = {}
        if recycles != "keep":
            changes["recycles"] = recycles
        if overlap is not None:
            changes["overlap"] = overlap
        if stock_top is not None:
            changes["stock_top"] = stock_top
        if goal is not None:
            changes["goal"] = goal
        return replace(self, **changes)


PRESETS: dict[str, Rules] = {
    "standard": Rules(),
    "msc": Rules(recycles=2, overlap=False, stock_top=True, goal="pyramid"),
}
"""``standard``: the standard rules' defaults (docs/pyramid.md). ``msc``: Microsoft Solitaire
Collection's board challenge."""


class RuleArgs(NamedTuple):
    """``Rules`` as the kernels take them (``Rules.args``): plain numbers and flags."""

    recycles: int
    """The recycle limit, -1 for unlimited."""
    overlap: bool
    stock_top: bool
    goal_all: bool
    """Goal "all" (clear all 52 cards) rather than "pyramid"."""


def find_rules(name: str) -> Rules:
    """The preset called ``name`` (case-insensitive). Raises ``ValueError`` naming the choices."""
    key = name.strip().lower()
    if key not in PRESETS:
        raise ValueError(f"unknown rules preset {quoted(name)} (choose from {', '.join(PRESETS)})")
    return PRESETS[key]


def parse_recycles(text: str) -> int | None:
    """``"unlimited"`` (any case) -> None, else a count 0..MAX_RECYCLES. Raises ``ValueError``."""
    t = text.strip().lower()
    if t == UNLIMITED:
        return None
    try:
        n = int(t)
    except ValueError:
        raise ValueError(f"recycles must be a number 0..{MAX_RECYCLES} or '{UNLIMITED}', not "
                         f"{quoted(text)}") from None
    if not 0 <= n <= MAX_RECYCLES:
        raise ValueError(f"recycles must be 0..{MAX_RECYCLES} or '{UNLIMITED}', not "
                         f"{shorten(str(n))}")
    return n
