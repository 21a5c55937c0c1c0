"""Short, checked proofs that a Pyramid position is lost (the *reason* of ``pyramid analyse``).

``find_reason(deal, rules, start)`` looks for one of the proofs below and returns a
``LossReason`` only after ``reason_holds`` has re-checked it; ``None`` means "no short reason"
(the position may still be lost: the search decides that). Every kind is *sound*: it is never
given for a position that can be won. Plain Python; a position is the packed ``uint64`` of
``solver.pyramid.model.state`` (``pack_position``), ``None`` for the deal's start.

Cards are *in play* while they are in the pyramid, the stock or the waste. A card *must go* when
the goal needs it removed: every pyramid card; with goal "all" every stock and waste card too.
Two facts of the rules carry every proof:

* A pyramid card is removed only when nothing covers it, or in an overlap pair together with the
  one card covering it directly; so while a card is in play, every card it covers (its *cone*,
  ``layout.BELOW``) is in play too, and two cards one of which covers the other can meet only as
  an overlap pair (direct cover, overlap allowed).
* Stock and waste cards keep their order (a recycle turns the waste back in the first pass's
  order): the waste top and the stock top are neighbours in that order, and with no recycle left
  a waste card comes up again only when every card above it in the waste is gone.

The kinds (``REASON_KINDS``), each a statement a player can check on the layout:

``dead_card``
    One card that must go and that no partner (a card making 13 with it) still in play can ever
    meet: a pyramid card whose partners all lie in its cone or cover it (overlap pairs aside),
    with no partner left in the stock or waste; with goal "all", a stock card with no partner
    left in the pyramid (and none in the stock either, or the stock top hidden: two stock cards
    meet only as waste top and stock top). "6c (row 7, card 5) can never go: every 7 left lies
    above it, under its cover".
``class_exhausted``
    Counting: each removal of a card of value v uses up a different partner of value 13-v. When
    a group of cards of value v that must go can only ever meet fewer partners in all than the
    group has cards (a partner that can meet none of them does not count), one of them stays.
    "the three 6s of the pyramid need three different 7s, but only two 7s are left in play".
``buried_partners``
    A group of cards none of which can be removed first: for every card of the group, every pair
    or king move that would remove it is blocked by another card of the group (a card of the
    group covers one card of the pair, or lies between two stock cards that would pair, or the
    pair is one card covering the other). Nothing of the group can ever go, as the first to go
    would need one of those moves while the whole group is still there. (A dead card is the
    group of one.)
``out_of_reach``
    The same with limited recycles and none left: then a waste card under a card of the group
    never comes up again, so its partners cannot use it, and two waste cards never pair (the
    waste top and the stock top are never both waste cards). "Jh (waste) can never go and the
    only 2 left lies under it in the waste".
``class_order``
    The cards of one or two pairs of values making 13 (say the 8s and 5s) played on their own:
    every other card is taken as gone the moment it is in the way, every stock or waste card as
    at hand whenever it is wanted, and every order of their pairs is tried. If even then the 8s
    and 5s that must go cannot all go, they cannot in the real game either: a real win, with its
    other moves left out, is a win there (the other cards only get in the way). "the 8s and 5s
    cannot all go, in any order of play, even with every other card out of the way: ...".

``find_reason`` tries the kinds in this order and keeps the smallest group it can (a group is
shrunk card by card while it still proves the loss), so the printed proof stays short. A dead
card is the one-card case of the group kinds; ``class_order`` also finds most proofs of the
first three kinds whose cards are of one pair of values, but its proof is a search over orders
of play, so it comes last.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from solver.core.cards import KING, card_rank, format_card
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.layout import (ABOVE, BELOW, COL_OF, DIRECT, PYRAMID_CARDS, ROW_OF,
                                   STOCK_CARDS)
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.state import START, field_mask, field_shift

REASON_KINDS = ("dead_card", "class_exhausted", "buried_partners", "out_of_reach", "class_order")
"""The kinds of proof, in the order ``find_reason`` tries them (the module docstring states
each)."""
DEAD_CARD, CLASS_EXHAUSTED, BURIED_PARTNERS, OUT_OF_REACH, CLASS_ORDER = REASON_KINDS
PAIR_SUM = 13
"""Two cards pair when their values sum to this (a king, 13, goes alone)."""
MAX_GROUP_CARDS = 8
"""A group proof (``buried_partners``, ``out_of_reach``) with more cards than this is not short:
``find_reason`` then says nothing."""
MAX_CLASSES = 2
"""``class_order`` tries the cards of one pair of values (6 sets), then of two pairs (15 sets)."""
SUBGAME_MAX_STATES = 20_000
"""A ``class_order`` search stopping at this many sets of cards proves nothing."""
RANK_WORDS = {1: "ace", 11: "jack", 12: "queen", 13: "king"}
"""How a value is named in the text (others by their number)."""
PLURAL_WORDS = {1: "aces", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes",
                7: "sevens", 8: "eights", 9: "nines", 10: "tens", 11: "jacks", 12: "queens",
                13: "kings"}
"""A value in the plural, in the text."""
COUNT_WORDS = {1: "one", 2: "two", 3: "three"}
"""Small counts in words in the text."""


@dataclass(frozen=True)
class LossReason:
    """A proof that a position is lost.

    ``kind`` is one of ``REASON_KINDS``. ``card`` (a card id) must go and can never be removed
    (``dead_card``, ``buried_partners``, ``out_of_reach``), or is one of a set of cards that
    cannot all be removed (``class_exhausted``, ``class_order``). ``partners`` are the other cards
    the proof is about (card ids): for ``dead_card`` its partners still in play, for
    ``class_exhausted`` the rest of the group and the partners it can meet, for the group kinds
    the rest of the group, for ``class_order`` the other cards of the two values in play.
    ``text`` is the proof in one sentence.
    """

    kind: str
    card: int
    partners: tuple[int, ...]
    text: str

    def to_dict(self) -> dict:
        """The reason as plain data (docs/json.md): cards as text (``6c``)."""
        return {"kind": self.kind, "card": format_card(self.card),
                "partners": [format_card(c) for c in self.partners], "text": self.text}


@dataclass(frozen=True)
class _Facts:
    """A position as plain data: the deal, rules, pyramid mask, in-play stock indices (deal
    order), the waste's extent (indices below ``pointer``) and whether no recycle is left."""

    deal: np.ndarray
    rules: Rules
    pyramid: int
    stock: frozenset
    pointer: int
    no_recycle_left: bool
    slots: tuple
    """Slots in play: pyramid positions 0..27, then stock slots 28 + index."""
    values: tuple
    """Value 1..13 of every slot 0..51."""

    def value(self, slot: int) -> int:
        return self.values[slot]

    def in_play(self) -> tuple:
        return self.slots

    def must_go(self, slot: int) -> bool:
        return slot < PYRAMID_CARDS or self.rules.goal == "all"

    def partners(self, slot: int) -> list[int]:
        v = self.values[slot]
        return [t for t in self.slots if self.values[t] + v == PAIR_SUM]


def _facts(deal, rules: Rules, start) -> _Facts:
    """Unpack ``start`` (a packed position, None = the deal's start); raises ``ValueError``."""
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a solver.pyramid.model.rules.Rules, not {type(rules).__name__}")
    deal = Deal.of(deal)
    s = int(START if start is None else start)
    if not 0 <= s < 1 << 64:
        raise ValueError(f"start must be a packed position (a uint64), not {start!r}")
    if s & field_mask("free_tag"):
        raise ValueError("start has the free-stock tag set: not a position")
    stock_bits = (s & field_mask("stock")) >> field_shift("stock")
    ptr = (s & field_mask("pointer")) >> field_shift("pointer")
    used = (s & field_mask("recycles")) >> field_shift("recycles")
    if ptr > STOCK_CARDS:
        raise ValueError(f"start has pointer {ptr} > {STOCK_CARDS}")
    if rules.recycles is not None and used > rules.recycles:
        raise ValueError(f"start has used {used} recycles, more than the {rules.recycles} allowed")
    pyramid = s & field_mask("pyramid")
    stock = frozenset(i for i in range(STOCK_CARDS) if stock_bits >> i & 1)
    slots = tuple([p for p in range(PYRAMID_CARDS) if pyramid >> p & 1]
                  + [PYRAMID_CARDS + i for i in sorted(stock)])
    return _Facts(deal, rules, pyramid, stock, ptr,
                  rules.recycles is not None and used == rules.recycles, slots,
                  tuple(card_rank(int(c)) for c in deal))


# --------------------------------------------------------------------------- blocking

def _buried(f: _Facts, slot: int, group: set, waste_rule: bool) -> bool:
    """With ``waste_rule`` and no recycle left: a waste card under a card of ``group``."""
    if not waste_rule or not f.no_recycle_left or slot < PYRAMID_CARDS:
        return False
    i = slot - PYRAMID_CARDS
    return i < f.pointer and any(i < g - PYRAMID_CARDS < f.pointer for g in group
                                 if g >= PYRAMID_CARDS)


def _covered_by_group(p: int, group: set, exclude: tuple) -> bool:
    return any(g < PYRAMID_CARDS and g not in exclude and int(ABOVE[p]) >> g & 1 for g in group)


def _can_meet(f: _Facts, a: int, b: int, group: set = frozenset(),
              waste_rule: bool = False) -> bool:
    """Whether in-play partners ``a`` and ``b`` (slots) could ever be removed together while every
    card of ``group`` is still in play (``waste_rule``: use the no-recycle-left waste order)."""
    pair = (a, b)
    for x in pair:
        if x < PYRAMID_CARDS and _covered_by_group(x, group, pair):
            return False
        if _buried(f, x, group, waste_rule):
            return False
    if a < PYRAMID_CARDS and b < PYRAMID_CARDS:
        apart = not ((int(BELOW[a]) | int(ABOVE[a])) >> b & 1)
        return apart or (f.rules.overlap and bool(int(DIRECT[a]) >> b & 1))
    if a >= PYRAMID_CARDS and b >= PYRAMID_CARDS:
        lo, hi = sorted((a, b))
        if waste_rule and f.no_recycle_left and hi - PYRAMID_CARDS < f.pointer:
            return False  # two waste cards: the upper one never goes back into the stock
        return f.rules.stock_top and not any(lo < g < hi for g in group)
    return True


def _can_go(f: _Facts, slot: int, group: set, waste_rule: bool) -> bool:
    """Whether ``slot`` could be the first card of ``group`` to go."""
    if f.value(slot) == KING:
        if slot < PYRAMID_CARDS:
            return not _covered_by_group(slot, group, (slot,))
        return not _buried(f, slot, group, waste_rule)
    return any(_can_meet(f, slot, t, group, waste_rule) for t in f.partners(slot))


def _frozen(f: _Facts, group: set, waste_rule: bool) -> set:
    """The largest subset of ``group`` none of whose cards can go first (a greatest fixpoint)."""
    group = set(group)
    changed = True
    while changed:
        changed = False
        for s in sorted(group):
            if _can_go(f, s, group, waste_rule):
                group.discard(s)
                changed = True
    return group


def _proves(f: _Facts, group: set) -> bool:
    return any(f.must_go(s) for s in group)


def _shrink(f: _Facts, group: set, waste_rule: bool) -> set:
    """A smaller frozen group that still holds a card that must go (greedy, card by card)."""
    for s in sorted(group, reverse=True):
        if s in group:
            smaller = _frozen(f, group - {s}, waste_rule)
            if _proves(f, smaller):
                group = smaller
    return group


def _hall_violation(f: _Facts) -> tuple[list[int], list[int]] | None:
    """The smallest group (2 or more cards) of one value that must go, with the partners it can
    meet, when those partners are fewer than the group's cards."""
    best = None
    for v in range(1, PAIR_SUM):
        cards = [s for s in f.in_play() if f.value(s) == v and f.must_go(s)]
        mates = [t for t in f.in_play() if f.value(t) == PAIR_SUM - v]
        for size in range(2, len(cards) + 1):
            if best is not None and size >= len(best[0]):
                break
            for group in combinations(cards, size):
                met = [t for t in mates if any(_can_meet(f, a, t) for a in group)]
                if len(met) < size:
                    best = (list(group), met)
                    break
    return best


def _low(v: int) -> int:
    """The smaller value of ``v``'s pair of values (1..6; a king 0: kings form no pair)."""
    return min(v, PAIR_SUM - v)


def _subgame_clears(f: _Facts, lows: tuple) -> bool:
    """Whether the in-play cards of the pairs of values ``lows`` (each 1..6 with its 13-partner)
    that must go could all go in the game of those cards alone (``class_order``): every other
    card taken as gone whenever it is in the way, every stock or waste card as at hand whenever
    it is wanted. Searches the sets of those cards still in play (at most ``SUBGAME_MAX_STATES``;
    a search stopped there counts as "could": no proof)."""
    cards = [s for s in f.slots if _low(f.values[s]) in lows]
    goal = sum(1 << k for k, s in enumerate(cards) if f.must_go(s))
    cover = [sum(1 << k for k, t in enumerate(cards)
                 if s < PYRAMID_CARDS and t < PYRAMID_CARDS and int(ABOVE[s]) >> t & 1)
             for s in cards]
    pairs = [((1 << i) | (1 << j), cover[i] | cover[j])
             for i, j in combinations(range(len(cards)), 2)
             if f.values[cards[i]] + f.values[cards[j]] == PAIR_SUM
             and _can_meet(f, cards[i], cards[j])]
    seen = {(1 << len(cards)) - 1}
    todo = list(seen)
    while todo:
        m = todo.pop()
        if not m & goal:
            return True
        for both, covers in pairs:
            if m & both == both and not covers & m & ~both:
                n = m & ~both
                if n not in seen:
                    if len(seen) >= SUBGAME_MAX_STATES:
                        return True
                    seen.add(n)
                    todo.append(n)
    return False


def _stuck_classes(f: _Facts) -> tuple | None:
    """The first set of pairs of values (one pair, then two) whose cards cannot all go."""
    for size in range(1, MAX_CLASSES + 1):
        for lows in combinations(range(1, PAIR_SUM // 2 + 1), size):
            if not _subgame_clears(f, lows):
                return lows
    return None


# --------------------------------------------------------------------------- text

def _rank_word(v: int) -> str:
    return RANK_WORDS.get(v, str(v))


def _plural(v: int) -> str:
    """``twos``, ``tens``, ``jacks``: a value in the plural, in words (``2s`` would read as the
    two of spades)."""
    return PLURAL_WORDS[v]


def _where(f: _Facts, slot: int) -> str:
    name = format_card(int(f.deal[slot]))
    if slot < PYRAMID_CARDS:
        return f"{name} (row {int(ROW_OF[slot]) + 1}, card {int(COL_OF[slot]) + 1})"
    return f"{name} ({'waste' if slot - PYRAMID_CARDS < f.pointer else 'stock'})"


def _dead_text(f: _Facts, s: int, mates: list[int]) -> str:
    w = PAIR_SUM - f.value(s)
    head = f"{_where(f, s)} can never go: "
    if not mates:
        return head + f"no {_rank_word(w)} is left in play"
    if s >= PYRAMID_CARDS:
        return head + (f"no {_rank_word(w)} is left in the pyramid, and two stock cards never "
                       f"pair with the stock top hidden")
    under = all(int(BELOW[s]) >> t & 1 for t in mates)
    over = all(int(ABOVE[s]) >> t & 1 for t in mates)
    place = ("lies above it, under its cover" if under else "covers it" if over
             else "lies above it or covers it")
    tail = "" if f.rules.overlap or not any(int(DIRECT[s]) >> t & 1 for t in mates) \
        else " (overlap pairs are off)"
    return head + f"every {_rank_word(w)} left {place}{tail}"


def _class_text(f: _Facts, group: list[int], met: list[int]) -> str:
    v, w = f.value(group[0]), PAIR_SUM - f.value(group[0])
    names = ", ".join(_where(f, s) for s in group[:-1]) + " and " + _where(f, group[-1])
    count = COUNT_WORDS.get(len(met), str(len(met)))
    meet = (f"no {_rank_word(w)} can ever meet them" if not met else
            f"only {count} {_rank_word(w) if len(met) == 1 else _plural(w)} can ever meet them: "
            + ", ".join(_where(f, t) for t in met))
    return f"the {_plural(v)} {names} must each go with a different {_rank_word(w)}, but {meet}"


def _group_text(f: _Facts, card: int, group: set, kind: str) -> str:
    head = f"{_where(f, card)} can never go: "
    if len(group) == 1:  # only out_of_reach has one-card groups: a waste card, no recycle left
        return head + (f"no recycle is left and every {_rank_word(PAIR_SUM - f.value(card))} "
                       f"left is in the waste too, where two cards never pair")
    names = ", ".join(_where(f, s) for s in sorted(group))
    why = "each one's partners are covered by it or by another of them"
    if any(s >= PYRAMID_CARDS for s in group):
        why += ", or kept out of reach in the stock and waste by another of them"
    if kind == OUT_OF_REACH:
        why += " (no recycle is left)"
    return head + f"none of {names} can be the first to go, as {why}"


def _order_text(f: _Facts, lows: tuple, cards: list[int]) -> str:
    values = [w for v in lows for w in (v, PAIR_SUM - v)]
    kinds = ", ".join(_plural(w) for w in values[:-1]) + " and " + _plural(values[-1])
    names = ", ".join(_where(f, s) for s in cards)
    return (f"the {kinds} cannot all go, in any order of play, even with every other card out of "
            f"the way and the stock and waste at hand: {names}")


# --------------------------------------------------------------------------- public API

def _reason(f: _Facts, kind: str, card: int, partners: list[int], text: str) -> LossReason:
    return LossReason(kind, int(f.deal[card]), tuple(int(f.deal[t]) for t in partners), text)


def _candidates(f: _Facts):
    """Every kind's proof as far as one exists, shortest first (a generator: the caller stops at
    the first that holds)."""
    for s in f.in_play():
        if f.must_go(s) and f.value(s) != KING and not _can_go(f, s, {s}, False):
            mates = f.partners(s)
            yield _reason(f, DEAD_CARD, s, mates, _dead_text(f, s, mates))
            break
    hall = _hall_violation(f)
    if hall is not None:
        group, met = hall
        yield _reason(f, CLASS_EXHAUSTED, group[0], group[1:] + met, _class_text(f, group, met))
    for kind, waste_rule in ((BURIED_PARTNERS, False), (OUT_OF_REACH, True)):
        if waste_rule and not f.no_recycle_left:
            continue
        group = _frozen(f, set(f.in_play()), waste_rule)
        if _proves(f, group):
            group = _shrink(f, group, waste_rule)
            if len(group) <= MAX_GROUP_CARDS:
                card = min(s for s in group if f.must_go(s))
                rest = sorted(group - {card})
                yield _reason(f, kind, card, rest, _group_text(f, card, group, kind))
            break
    lows = _stuck_classes(f)
    if lows is not None:
        cards = [s for s in f.slots if _low(f.values[s]) in lows]
        card = next(s for s in cards if f.must_go(s))
        rest = [s for s in cards if s != card]
        yield _reason(f, CLASS_ORDER, card, rest, _order_text(f, lows, cards))


def find_reason(deal, rules: Rules = Rules(), start=None) -> LossReason | None:
    """A short proof that the position ``start`` (packed; None = the deal's start) of ``deal``
    is lost under ``rules``, re-checked by ``reason_holds``; None when there is none."""
    f = _facts(deal, rules, start)
    for reason in _candidates(f):
        if reason_holds(deal, rules, start, reason):
            return reason
    return None


def _slot_of(f: _Facts, card: int) -> int | None:
    """The in-play slot holding ``card``, or None."""
    for s in f.in_play():
        if f.deal[s] == card:
            return s
    return None


def reason_holds(deal, rules: Rules, start, reason: LossReason) -> bool:
    """Re-check ``reason`` on the position from scratch: True when its proof holds there."""
    f = _facts(deal, rules, start)
    if not isinstance(reason, LossReason) or reason.kind not in REASON_KINDS:
        return False
    card = _slot_of(f, reason.card)
    others = [_slot_of(f, c) for c in reason.partners]
    if card is None or None in others or len(set(others)) != len(others) or card in others \
            or not f.must_go(card):
        return False
    v = f.value(card)
    if reason.kind == DEAD_CARD:
        mates = f.partners(card)
        return (v != KING and sorted(others) == sorted(mates)
                and not any(_can_meet(f, card, t) for t in mates))
    if reason.kind == CLASS_EXHAUSTED:
        if v == KING:
            return False
        group = [card] + [s for s in others if f.value(s) == v]
        met = {s for s in others if f.value(s) == PAIR_SUM - v}
        if len(group) + len(met) != len(others) + 1 or not all(f.must_go(s) for s in group):
            return False
        reachable = {t for t in f.partners(card) if any(_can_meet(f, a, t) for a in group)}
        return reachable <= met and len(met) < len(group)
    if reason.kind == CLASS_ORDER:
        lows = tuple(sorted({_low(f.values[s]) for s in [card, *others]}))
        cls = {s for s in f.slots if _low(f.values[s]) in lows}
        return (0 not in lows and len(lows) <= MAX_CLASSES and cls == {card, *others}
                and not _subgame_clears(f, lows))
    waste_rule = reason.kind == OUT_OF_REACH
    if waste_rule and not f.no_recycle_left:
        return False
    group = {card, *others}
    return not any(_can_go(f, s, group, waste_rule) for s in group)
