"""Pyramid replay checker: solution text, a plain-Python position, and ``replay``.

Pure Python, no numba: this module is the independent, slow, obviously-correct side of the solver.
The fast search is tested against it (every solution it prints must replay as a win here), and
``tests/reference.py`` builds a reference solver on ``Position`` alone.

Steps (docs/pyramid.md, "Moves" and "Move notation") are plain tuples of card ids::

    ("draw",)            turn the top stock card onto the waste          text: draw
    ("recycle",)         turn the waste back into the stock              text: recycle
    ("king", card)       remove a king on its own                        text: Kd
    ("pair", c1, c2)     remove two cards whose values sum to 13        text: 6h+7c

A pair is the same move whichever card is named first; ``apply`` accepts both orders and
``format_step`` prints the cards in the order given. ``Position.legal_steps`` names the pyramid card
with the lower position number first, and a pyramid card before the waste or stock card.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.core.cards import NATURAL_CARDS, Card, card_rank, format_card, parse_card, split_tokens
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.layout import COVER_MASK, COVERED_BY, FULL_PYRAMID, PYRAMID_CARDS
from solver.pyramid.model.rules import Rules
from solver.core.text import quoted
from solver.core.validate import is_int

STEP_DRAW = "draw"
STEP_RECYCLE = "recycle"
STEP_KING = "king"
STEP_PAIR = "pair"

PAIR_SUM = 13
"""Two cards pair when their values (ranks, ace 1 .. queen 12) sum to this."""
KING = 13
"""The king's value: a king is removed on its own."""

Step = tuple


# --------------------------------------------------------------------------- solution text

def _step_card(text: str) -> Card:
    """One card of a step token, refusing jokers and second-deck cards."""
    try:
        c = parse_card(text)
    except ValueError:
        raise ValueError(f"{quoted(text)} is not a card") from None
    if c >= NATURAL_CARDS:
        raise ValueError(f"{quoted(text)}: Pyramid plays one deck without jokers")
    return c


def parse_step(token: str) -> Step:
    """Parse one step token (``draw``, ``recycle``, ``Kd``, ``6h+7c``; any case, ``10`` for ``T``).

    A single card is parsed as ``("king", card)`` whatever its rank; ``Position.apply`` refuses a
    card that is not a king. Raises ``ValueError`` for anything malformed.
    """
    t = token.strip()
    low = t.lower()
    if low == STEP_DRAW:
        return (STEP_DRAW,)
    if low == STEP_RECYCLE:
        return (STEP_RECYCLE,)
    if not t:
        raise ValueError("empty step")
    if "+" in t:
        parts = t.split("+")
        if len(parts) != 2:
            raise ValueError(f"{quoted(token)}: a pair names exactly two cards joined by '+'")
        if not parts[0] or not parts[1]:
            raise ValueError(f"{quoted(token)}: a pair needs a card on each side of '+'")
        c1, c2 = _step_card(parts[0]), _step_card(parts[1])
        if c1 == c2:
            raise ValueError(f"{quoted(token)}: a pair needs two different cards")
        return (STEP_PAIR, c1, c2)
    try:
        return (STEP_KING, _step_card(t))
    except ValueError:
        raise ValueError(f"{quoted(token)} is not a step (expected draw, recycle, a king such as Kd, "
                         f"or a pair such as 6h+7c)") from None


def parse_solution(text: str) -> list[Step]:
    """Parse a solution: step tokens separated by white space or commas.

    Raises ``ValueError`` naming the offending token and its 1-based step number.
    """
    steps = []
    for i, tok in enumerate(split_tokens(text), start=1):
        try:
            steps.append(parse_step(tok))
        except ValueError as e:
            raise ValueError(f"step {i} {quoted(tok)}: {e}") from None
    return steps


def format_step(step: Step) -> str:
    """Text of one step: ``draw``, ``recycle``, ``Kd`` or ``6h+7c`` (cards in the order given)."""
    kind = step[0] if step else None
    if kind in (STEP_DRAW, STEP_RECYCLE) and len(step) == 1:
        return kind
    if kind == STEP_KING and len(step) == 2:
        return format_card(int(step[1]))
    if kind == STEP_PAIR and len(step) == 3:
        return format_card(int(step[1])) + "+" + format_card(int(step[2]))
    raise ValueError(f"{step!r} is not a step")


def format_solution(steps) -> str:
    """Text of a solution: the steps separated by single spaces."""
    return " ".join(format_step(s) for s in steps)


# --------------------------------------------------------------------------- positions

class IllegalMove(ValueError):
    """A step that the rules do not allow in the position; the message says why."""


def _normalize(step) -> Step:
    """``step`` as a tuple with its cards as plain ints (numpy integers accepted)."""
    if not isinstance(step, (tuple, list)) or not step:
        raise IllegalMove(f"{step!r} is not a step")
    out = [step[0]]
    for c in step[1:]:
        if not is_int(c):
            raise IllegalMove(f"{c!r} is not a card id")
        out.append(int(c))
    return tuple(out)


class Position:
    """A Pyramid position, built by ``Position(deal, rules)`` (the deal's starting position).

    Attributes (plain Python, mutated by ``apply``):

    * ``deal``: the 52 card ids (int64 array, never changed), ``rules``: the ``Rules``.
    * ``present``: pyramid mask, bit ``p`` set while the card at position ``p`` is there.
    * ``stock``: list of card ids, top card LAST (``stock[-1]`` is drawn next).
    * ``waste``: list of card ids, top card LAST (``waste[-1]`` is the available one).
    * ``recycles_used``: how often the waste has been turned back into the stock.

    Drawing pops ``stock[-1]`` onto ``waste``; a recycle sets ``stock = reversed(waste)``, so the
    remaining cards come out again in the order of the first pass.
    """

    __slots__ = ("deal", "rules", "present", "stock", "waste", "recycles_used", "_pos_of")

    def __init__(self, deal, rules: Rules) -> None:
        if not isinstance(rules, Rules):
            raise ValueError(f"rules must be a solver.pyramid.model.rules.Rules, not {type(rules).__name__}")
        self.deal = Deal.of(deal)
        self.rules = rules
        self.present = FULL_PYRAMID
        self.stock = [int(c) for c in reversed(self.deal[PYRAMID_CARDS:])]
        self.waste: list[int] = []
        self.recycles_used = 0
        self._pos_of = {int(c): p for p, c in enumerate(self.deal[:PYRAMID_CARDS])}

    # ---- copying and identity

    def copy(self) -> "Position":
        """An independent copy (the deal and the rules are shared; both are never changed)."""
        new = object.__new__(Position)
        new.deal, new.rules, new._pos_of = self.deal, self.rules, self._pos_of
        new.present = self.present
        new.stock = list(self.stock)
        new.waste = list(self.waste)
        new.recycles_used = self.recycles_used
        return new

    def key(self) -> tuple:
        """Hashable canonical description: equal keys have exactly the same futures.

        ``(present, stock, waste, recycles)`` where ``recycles`` is the count used when the
        rules limit recycles and ``None`` when they are unlimited (then the count cannot matter,
        and leaving it out keeps the set of positions finite).
        """
        rec = self.recycles_used if self.rules.recycles is not None else None
        return (self.present, tuple(self.stock), tuple(self.waste), rec)

    def __eq__(self, other) -> bool:
        return (isinstance(other, Position) and self.rules == other.rules
                and self.key() == other.key())

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return (f"Position(pyramid={self.pyramid_left()}, stock={len(self.stock)}, "
                f"waste={len(self.waste)}, recycles_used={self.recycles_used})")

    # ---- queries

    def pyramid_left(self) -> int:
        """Number of pyramid cards still there."""
        return bin(self.present).count("1")

    def pile_left(self) -> int:
        """Number of cards still in the stock and the waste."""
        return len(self.stock) + len(self.waste)

    def pyramid_cards(self) -> list[Card]:
        """The pyramid cards still there, by position."""
        return [int(self.deal[p]) for p in range(PYRAMID_CARDS) if self.present >> p & 1]

    def is_won(self) -> bool:
        """Goal ``pyramid``: all 28 pyramid cards gone; goal ``all``: stock and waste empty too."""
        if self.present:
            return False
        return self.rules.goal == "pyramid" or (not self.stock and not self.waste)

    def _uncovered(self, p: int) -> bool:
        return bool(self.present >> p & 1) and not (self.present & int(COVER_MASK[p]))

    def _recycles_left(self) -> bool:
        return self.rules.recycles is None or self.recycles_used < self.rules.recycles

    def available(self) -> list[Card]:
        """The available cards: uncovered pyramid cards (by position), the top waste card, and
        the stock's top card when ``rules.stock_top``."""
        cards = [int(self.deal[p]) for p in range(PYRAMID_CARDS) if self._uncovered(p)]
        if self.waste:
            cards.append(self.waste[-1])
        if self.rules.stock_top and self.stock:
            cards.append(self.stock[-1])
        return cards

    def legal_steps(self) -> list[Step]:
        """Every legal step, in a fixed order: pairs of available cards, overlap pairs, kings,
        draw, recycle. Empty once the position is won (the game is over)."""
        if self.is_won():
            return []
        steps: list[Step] = []
        avail = self.available()
        for i, a in enumerate(avail):
            for b in avail[i + 1:]:
                if card_rank(a) + card_rank(b) == PAIR_SUM:
                    steps.append((STEP_PAIR, a, b))
        if self.rules.overlap:
            for p in range(PYRAMID_CARDS):
                for a_pos, other in self._overlap_partners(p):
                    if (self._uncovered(a_pos) and not self.present >> other & 1
                            and card_rank(int(self.deal[p])) + card_rank(int(self.deal[a_pos])) == PAIR_SUM):
                        steps.append((STEP_PAIR, int(self.deal[p]), int(self.deal[a_pos])))
        for c in avail:
            if card_rank(c) == KING:
                steps.append((STEP_KING, c))
        if self.stock:
            steps.append((STEP_DRAW,))
        elif self.waste and self._recycles_left():
            steps.append((STEP_RECYCLE,))
        return steps

    def _overlap_partners(self, p: int) -> list[tuple[int, int]]:
        """For a present pyramid position ``p``: (cover, other cover) for each present card
        directly covering it."""
        if not self.present >> p & 1 or COVERED_BY[p, 0] < 0:
            return []
        left, right = int(COVERED_BY[p, 0]), int(COVERED_BY[p, 1])
        return [(a, o) for a, o in ((left, right), (right, left)) if self.present >> a & 1]

    # ---- moves

    def _where(self, card: Card) -> str:
        """Where a card is: 'pyramid', 'waste', 'stock' or 'gone'."""
        p = self._pos_of.get(card)
        if p is not None:
            return "pyramid" if self.present >> p & 1 else "gone"
        if card in self.waste:
            return "waste"
        if card in self.stock:
            return "stock"
        return "gone"

    def _check_available(self, card: Card) -> None:
        """Raise ``IllegalMove`` saying why ``card`` is not available (in play is checked)."""
        name = format_card(card)
        where = self._where(card)
        if where == "pyramid":
            p = self._pos_of[card]
            covers = [int(self.deal[q]) for q in COVERED_BY[p] if q >= 0 and self.present >> int(q) & 1]
            if covers:
                raise IllegalMove(f"{name} is covered by " + " and ".join(format_card(c) for c in covers))
        elif where == "waste":
            if self.waste[-1] != card:
                raise IllegalMove(f"{name} is not available (it is in the waste under "
                                  f"{format_card(self.waste[-1])})")
        elif where == "stock":
            if self.stock[-1] != card:
                raise IllegalMove(f"{name} is not available (it is in the stock, not on top)")
            if not self.rules.stock_top:
                raise IllegalMove(f"{name} is not available (it is the stock's top card, which "
                                  f"these rules keep face down: draw it first)")

    def _check_in_play(self, card: Card) -> None:
        if not 0 <= card < NATURAL_CARDS:
            raise IllegalMove(f"{card!r} is not a card of the deck")
        if self._where(card) == "gone":
            raise IllegalMove(f"{format_card(card)} is not in play (already removed)")

    def _remove(self, card: Card) -> None:
        where = self._where(card)
        if where == "pyramid":
            self.present &= ~(1 << self._pos_of[card])
        elif where == "waste":
            self.waste.pop()
        else:
            self.stock.pop()

    def check(self, step: Step) -> None:
        """Raise ``IllegalMove`` with a precise reason unless ``step`` is legal here."""
        step = _normalize(step)
        if self.is_won():
            raise IllegalMove("the deal is already won (the game is over)")
        kind = step[0]
        if kind == STEP_DRAW and len(step) == 1:
            if not self.stock:
                raise IllegalMove("the stock is empty")
        elif kind == STEP_RECYCLE and len(step) == 1:
            if self.stock:
                raise IllegalMove(f"the stock is not empty ({len(self.stock)} cards left)")
            if not self.waste:
                raise IllegalMove("the waste is empty (nothing to recycle)")
            if not self._recycles_left():
                raise IllegalMove(f"no recycles left (these rules allow {self.rules.recycles})")
        elif kind == STEP_KING and len(step) == 2:
            card = step[1]
            self._check_in_play(card)
            if card_rank(card) != KING:
                raise IllegalMove(f"{format_card(card)} is not a king (only a king is removed alone)")
            self._check_available(card)
        elif kind == STEP_PAIR and len(step) == 3:
            self._check_pair(step[1], step[2])
        else:
            raise IllegalMove(f"{step!r} is not a step")

    def _check_pair(self, a: Card, b: Card) -> None:
        self._check_in_play(a)
        self._check_in_play(b)
        text = f"{format_card(a)}+{format_card(b)}"
        if a == b:
            raise IllegalMove(f"{text}: a pair needs two different cards")
        if card_rank(a) + card_rank(b) != PAIR_SUM:
            raise IllegalMove(f"{text} do not sum to {PAIR_SUM}")
        pa, pb = self._pos_of.get(a), self._pos_of.get(b)
        if pa is not None and pb is not None:
            # One covering the other directly: only as an overlap pair.
            for top, low in ((pa, pb), (pb, pa)):
                if top in (int(COVERED_BY[low, 0]), int(COVERED_BY[low, 1])):
                    top_c, low_c = int(self.deal[top]), int(self.deal[low])
                    if not self.rules.overlap:
                        raise IllegalMove(f"{format_card(top_c)} covers {format_card(low_c)}: "
                                          f"overlap pairs are off under these rules")
                    self._check_available(top_c)
                    other = [q for q in COVERED_BY[low] if int(q) != top][0]
                    if self.present >> int(other) & 1:
                        raise IllegalMove(f"{format_card(low_c)} is covered by "
                                          f"{format_card(int(self.deal[other]))} (an overlap pair "
                                          f"needs the other cover gone)")
                    return
        self._check_available(a)
        self._check_available(b)

    def apply(self, step: Step) -> None:
        """Play ``step`` (raises ``IllegalMove`` with the reason when it is not legal)."""
        step = _normalize(step)
        self.check(step)
        kind = step[0]
        if kind == STEP_DRAW:
            self.waste.append(self.stock.pop())
        elif kind == STEP_RECYCLE:
            self.stock = self.waste[::-1]
            self.waste = []
            self.recycles_used += 1
        else:
            for c in step[1:]:
                self._remove(c)


# --------------------------------------------------------------------------- replay

@dataclass
class ReplayResult:
    """What a replay found.

    ok:          every step was legal (all were applied).
    won:         the position after the applied steps is won.
    moves:       steps applied (all of them when ``ok``).
    failed_step: 1-based number of the first illegal step, or None.
    reason:      why that step is illegal, or None.
    position:    the position after the last legal step.
    """

    ok: bool
    won: bool
    moves: int
    failed_step: int | None
    reason: str | None
    position: Position

    def message(self) -> str:
        """One line for people: the verdict and, for an illegal step, its number and reason."""
        if not self.ok:
            return f"step {self.failed_step} is illegal: {self.reason}"
        if self.won:
            return f"won in {self.moves} moves"
        moves = "1 move" if self.moves == 1 else f"{self.moves} moves"
        text = f"legal but not won: {moves}, {self.position.pyramid_left()} pyramid cards left"
        if self.position.rules.goal == "all":  # the stock and waste must go too
            text += f" and {self.position.pile_left()} in the stock and waste"
        return text


def replay(deal, rules: Rules, steps) -> ReplayResult:
    """Play ``steps`` from the deal's start; stop at the first illegal one.

    A step after the deal is won is illegal (the game is over).
    """
    return replay_from(Position(deal, rules), steps)


def replay_from(start: Position, steps) -> ReplayResult:
    """``replay`` from any position (``start`` itself is not changed)."""
    pos = start.copy()
    for i, step in enumerate(steps, start=1):
        try:
            pos.apply(step)
        except IllegalMove as e:
            return ReplayResult(False, pos.is_won(), i - 1, i, str(e), pos)
    n = len(steps)
    return ReplayResult(True, pos.is_won(), n, None, None, pos)


def replay_text(deal, rules: Rules, text: str) -> ReplayResult:
    """Parse solution text (a parse error is a ``ValueError``) and replay it."""
    return replay(deal, rules, parse_solution(text))


def draw_position(pos: Position, color: bool = False) -> str:
    """A position as the player sees it: the pyramid with ``--`` where a card is gone, the
    stock (the next card first) and the waste (its top last) with their sizes, and the
    recycles used. ``color``: hearts and diamonds in red (ANSI escapes)."""
    from solver.pyramid.model.deals import card_text, draw_pyramid

    cards = [int(pos.deal[p]) if pos.present >> p & 1 else None for p in range(PYRAMID_CARDS)]
    lines = draw_pyramid(cards, color=color)

    def pile(name: str, cards_shown: list[int], order: str) -> str:
        if not cards_shown:
            return f"{name}: empty"
        n = len(cards_shown)
        return (f"{name}: " + " ".join(card_text(c, color) for c in cards_shown)
                + f" ({n} card{'s' if n != 1 else ''}, {order})")

    lines.append(pile("stock", list(reversed(pos.stock)), "the next first"))
    lines.append(pile("waste", list(pos.waste), "the top last"))
    limit = pos.rules.recycles
    used = pos.recycles_used
    lines.append(f"recycles used: {used} of {limit}" if limit is not None
                 else f"recycles used: {used} (unlimited)")
    return "\n".join(lines)
