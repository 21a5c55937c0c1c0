"""A line of play as one self-contained HTML page: ``pyramid solve/hint/analyse/check --html``
and ``pyramid challenge score/cards --html``.

``ReplayPage`` says what the page shows: the deal and rules, a title, the verdict, notes (why a
deal is lost, the best partial result, where a player's line went wrong), the line of play (and
any further line, ``PageLine``: a card challenge's line that clears the pyramid) and the move to
mark as the one that lost the deal. ``page_data`` computes everything the page draws, in Python,
with the replay checker (``solver.pyramid.model.replay.Position``): the position after every step
of the line, the cards each step uses and its text (``solver.pyramid.model.explain``), the covered
cards, the score from the deal's start (and a card challenge's count of its rank) by the replay
scorer (``solver.pyramid.model.scoring``, never a search's figures), and the cards that can never
go (a *dead card*: one that must go while no partner still in play can ever meet it, re-checked
by ``reasons.reason_holds``). ``render_html``
puts that data into the page template (``replay_template.html``, package data) as JSON; the page's
script draws it and computes no rule of the game. ``write_html`` writes the page.

The embedded data (docs/json.md, "HTML replay data") is what the golden test pins: a change of
line shows up in review as a change of that file.
"""

from __future__ import annotations

import contextlib
import errno
import html
import json
import os
import stat
from dataclasses import dataclass
from importlib import resources

from solver.core.cards import KING, RANK_CHARS, card_rank, format_card
from solver.core.validate import write_protected
from solver.pyramid.model.state import packed_position
from solver.pyramid.model.explain import explain_steps, step_note
from solver.pyramid.model.layout import COVER_MASK, PYRAMID_CARDS
from solver.pyramid.analysis.reasons import DEAD_CARD, PAIR_SUM, LossReason, reason_holds
from solver.pyramid.model.replay import STEP_DRAW, STEP_RECYCLE, Position
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.scoring import rank_gone, score_of
from solver.pyramid.model.sentences import rank_plural

DATA_FORMAT = "pyramid-replay"
"""The ``format`` field of the embedded data."""
DATA_VERSION = 1
"""The ``version`` field of the embedded data: raised when a field changes meaning."""
TEMPLATE = "replay_template.html"
"""The page template, a data file of this package (pyproject's package-data ships it)."""
DATA_MARK = "/*REPLAY_DATA*/"
"""Where the template takes the data (JSON, inside a ``<script type="application/json">``)."""
TITLE_MARK = "<!--REPLAY_TITLE-->"
"""Where the template takes the page title (HTML-escaped text)."""
SCRIPT_SAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}
"""Characters written as JSON escapes in the embedded data, so that no text in it (a deal file's
line, a title) can close the ``<script>`` element that holds it."""


@dataclass(frozen=True)
class PageLine:
    """A further line of play on a page (``ReplayPage.more_lines``): its name and its steps,
    legal from the deal's start and starting with the page's ``first`` moves played."""

    line: str
    steps: tuple = ()


@dataclass(frozen=True)
class ReplayPage:
    """What one page shows.

    ``steps`` is the line (replay steps, legal from the deal's start); the page opens after
    ``first`` of them (the moves given with ``--after``: those are marked as played already)
    unless its URL names a step (``#step=N``). ``marked`` is the 1-based number of the move that
    lost the deal (``check``), or None. ``line`` names the line (``A minimum-move solution``),
    ``verdict`` is the command's one-line verdict, ``notes`` more sentences (a loss reason, the
    best partial result, ...). ``why_cards`` are the cards (card ids) the loss reason among the
    notes names (``reason_cards``), marked on the board.

    Every position shows the score from the deal's start (``scoring.score_of``); ``rank``
    (1..13, a card challenge's) also how many cards of that rank are gone. ``more_lines``
    (``PageLine``) are further lines the page can show instead of this one (a card challenge's
    line that clears the pyramid).
    """

    deal: object
    rules: Rules
    title: str
    verdict: str
    line: str
    steps: tuple = ()
    first: int = 0
    marked: int | None = None
    notes: tuple[str, ...] = ()
    why_cards: tuple[int, ...] = ()
    rank: int | None = None
    more_lines: tuple[PageLine, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.rules, Rules):
            raise ValueError(f"rules must be a solver.pyramid.model.rules.Rules, not "
                             f"{type(self.rules).__name__}")
        if not 0 <= self.first <= len(self.steps):
            raise ValueError(f"first must be 0 .. {len(self.steps)} (the steps), not {self.first}")
        if self.marked is not None and not 1 <= self.marked <= len(self.steps):
            raise ValueError(f"marked must be a move number 1 .. {len(self.steps)}, not "
                             f"{self.marked}")
        if self.rank is not None and self.rank not in range(1, KING + 1):
            raise ValueError(f"rank must be 1 .. {KING} or None, not {self.rank!r}")
        for other in self.more_lines:
            if not isinstance(other, PageLine) or tuple(other.steps[:self.first]) != tuple(
                    self.steps[:self.first]):
                raise ValueError("more_lines must be PageLines that start with the page's "
                                 "first moves")


def reason_cards(reason) -> tuple[int, ...]:
    """The cards a loss reason (``reasons.LossReason``, or None) names: its card, then the
    partners its proof is about; none without a reason."""
    return () if reason is None else (reason.card, *reason.partners)


def dead_cards(pos: Position) -> list[int]:
    """The cards of ``pos`` that must go (every pyramid card; with goal "all" every card) and
    that no partner still in play can ever meet: each one is a ``dead_card`` proof of
    ``solver.pyramid.analysis.reasons`` that holds there (a king always can go once uncovered)."""
    in_play = pos.pyramid_cards() + pos.stock + pos.waste
    must_go = in_play if pos.rules.goal == "all" else pos.pyramid_cards()
    packed = packed_position(pos)
    dead = []
    for card in must_go:
        if card_rank(card) == KING:
            continue
        partners = tuple(c for c in in_play if card_rank(c) + card_rank(card) == PAIR_SUM)
        if reason_holds(pos.deal, pos.rules, packed, LossReason(DEAD_CARD, card, partners, "")):
            dead.append(card)
    return dead


def position_data(pos: Position, removed: list[int], rank: int | None = None) -> dict:
    """One position as the page draws it: card texts by place (pyramid by position, ``None``
    where a card is gone; stock and waste bottom first, top last; the removed cards in the order
    they went), the covered pyramid positions, the recycles used, the dead cards, the score from
    the deal's start and, given a ``rank``, how many cards of that rank are gone."""
    pyramid = [format_card(int(pos.deal[p])) if pos.present >> p & 1 else None
               for p in range(PYRAMID_CARDS)]
    covered = [p for p in range(PYRAMID_CARDS)
               if pos.present >> p & 1 and pos.present & int(COVER_MASK[p])]
    data = {"pyramid": pyramid, "covered": covered,
            "stock": [format_card(c) for c in pos.stock],
            "waste": [format_card(c) for c in pos.waste],
            "removed": [format_card(c) for c in removed],
            "recycles": pos.recycles_used,
            "dead": [format_card(c) for c in dead_cards(pos)],
            "score": score_of(pos)}
    if rank is not None:
        data["rank_gone"] = rank_gone(pos, rank)
    return data


def step_data(explained, first: int) -> dict:
    """One step: its number, notation, kind, what it does, the cards it uses (a draw: the stock
    card it turns; a recycle: the waste it turns over, given by the page) and whether it was
    played before the page's line (``--after``)."""
    return {"move": explained.number, "notation": explained.notation, "kind": explained.kind,
            "text": step_note(explained),
            "cards": [format_card(source.card) for source in explained.cards],
            "played": explained.number <= first}


def line_data(page: ReplayPage, line_steps) -> dict:
    """One line of the page: its ``steps`` and ``positions`` (``positions[n]`` after ``n``
    steps), computed by the replay checker (``IllegalMove`` for a step that is not legal: the
    caller gives a checked line)."""
    steps = [tuple(s) for s in line_steps]
    explained = explain_steps(page.deal, page.rules, steps)
    pos = Position(page.deal, page.rules)
    removed: list[int] = []
    positions = [position_data(pos, removed, page.rank)]
    for step in steps:
        pos.apply(step)
        if step[0] not in (STEP_DRAW, STEP_RECYCLE):
            removed.extend(int(c) for c in step[1:])
        positions.append(position_data(pos, removed, page.rank))
    return {"steps": [step_data(e, page.first) for e in explained], "positions": positions}


def page_data(page: ReplayPage) -> dict:
    """Everything the page draws (docs/json.md, "HTML replay data"): the page's line
    (``line_data``) and each of ``more_lines`` as ``{"line", "steps", "positions"}``."""
    return {"format": DATA_FORMAT, "version": DATA_VERSION, "title": page.title,
            "deal": " ".join(format_card(int(c)) for c in Deal.of(page.deal)),
            "rules": page.rules.to_dict(), "rules_text": page.rules.describe(),
            "verdict": page.verdict, "line": page.line, "notes": list(page.notes),
            "why_cards": [format_card(int(c)) for c in page.why_cards],
            "first": page.first, "marked": page.marked,
            "rank": None if page.rank is None else RANK_CHARS[page.rank - 1],
            "rank_name": None if page.rank is None else rank_plural(page.rank),
            **line_data(page, page.steps),
            "more_lines": [{"line": other.line, **line_data(page, other.steps)}
                           for other in page.more_lines]}


def data_json(data: dict) -> str:
    """The data as JSON safe to put inside a ``<script>`` element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for ch, escaped in SCRIPT_SAFE.items():
        text = text.replace(ch, escaped)
    return text


def template() -> str:
    """The page template (``TEMPLATE``)."""
    return resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")


def render_html(data: dict) -> str:
    """The page: the template with ``data`` (``page_data``) and its title filled in."""
    page = template()
    if page.count(DATA_MARK) != 1 or page.count(TITLE_MARK) != 1:
        raise RuntimeError(f"{TEMPLATE} must hold {DATA_MARK} and {TITLE_MARK} once each")
    return (page.replace(TITLE_MARK, html.escape(str(data["title"])))
            .replace(DATA_MARK, data_json(data)))


def embedded_data(text: str) -> dict:
    """The data embedded in a page ``render_html`` wrote (for tests and other tools)."""
    head, sep, rest = text.partition('<script type="application/json" id="replay-data">')
    body, end, _ = rest.partition("</script>")
    if not sep or not end:
        raise ValueError("not a replay page: no replay-data script element")
    return json.loads(body)


STDOUT_NAME = "-"
"""The name that means stdout elsewhere: refused for a page (it would be a file named ``-``)."""
def check_page_path(path: str, option: str) -> None:
    """Refuse (``ValueError`` naming ``option``) ``-`` as a page name: the page needs a file
    name, stdout carries the command's own output. (A write-protected page is refused with every
    other output file that must not be written: ``solver.core.validate.check_not_protected``.)"""
    if path == STDOUT_NAME:
        raise ValueError(f"{option} needs a file name for the page, not '-' (the page is not "
                         f"written to stdout)")


def write_html(path: str, text: str) -> None:
    """Write the page ``text`` to ``path`` (``OSError`` when it cannot be written).

    A regular file (or a new one) is written beside itself and renamed over, so that a failed
    write (a full disk) leaves no half page and an older page stays whole; the page replacing
    one keeps its permission bits, and a write-protected page is not replaced
    (``PermissionError``). Anything else that exists already (``/dev/stdout``, a FIFO) is
    written in place. A symbolic link is followed: its target is written, the link stays."""
    data = text.encode("utf-8")
    path = os.path.realpath(path)
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "wb") as f:
            f.write(data)
        return
    if write_protected(path) is not None:
        raise PermissionError(errno.EACCES, "it is write-protected", path)
    mode = stat.S_IMODE(os.stat(path).st_mode) if os.path.isfile(path) else None
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
