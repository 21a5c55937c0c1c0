"""Plain, obviously-correct Duizenden rules for cross-checking the kernels.

The meld reference works the other way round from the kernel: it takes every sub-multiset of the
hand (of 3 or more cards), and asks of each which melds it can be read as: a set (one rank), or a
run (one suit, distinct ranks, the ace low or high) with its jokers filling the gaps or extending
it at either end. Nothing is shared with the kernel code except the card encoding.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

JOKER = 52
QS = 50  # queen of spades: suit 3, rank 12


def kind(card: int) -> int:
    b = card % 54
    return JOKER if b >= 52 else b


def points(k: int) -> int:
    if k == JOKER:
        return 25
    if k == QS:
        return 100
    rank = k % 13 + 1
    return 20 if rank == 1 else (5 if rank <= 9 else 10)


def readings(multiset: Counter) -> list[tuple]:
    """Every meld a multiset of kinds can be laid as, in the canonical form of
    ``solver.games.duizenden.rules``."""
    n = sum(multiset.values())
    j = multiset.get(JOKER, 0)
    nat = [k for k in multiset.elements() if k != JOKER]
    if n < 3 or not 2 * j < n or not nat:
        return []
    out = []
    if len({k % 13 for k in nat}) == 1:
        r = nat[0] % 13
        suits = tuple(multiset.get(s * 13 + r, 0) for s in range(4))
        out.append(("set", r + 1, suits, j))
    if len({k // 13 for k in nat}) == 1 and len(set(nat)) == len(nat):
        suit = nat[0] // 13
        ranks = [k % 13 + 1 for k in nat]
        for ace_high in (False, True):
            if ace_high and 1 not in ranks:
                continue
            pos = sorted(14 if (r == 1 and ace_high) else r for r in ranks)
            for lo in range(1, 15):
                hi = lo + n - 1
                if hi > 14 or n > 13 or pos[0] < lo or pos[-1] > hi:
                    continue
                jokers = tuple(p for p in range(lo, hi + 1) if p not in pos)
                if len(jokers) == j:
                    out.append(("run", suit, lo, hi, jokers))
    return out


def meld_points(meld: tuple) -> int:
    if meld[0] == "set":
        _, rank, suits, j = meld
        return sum(c * points(s * 13 + rank - 1) for s, c in enumerate(suits)) + 25 * j
    _, suit, lo, hi, jokers = meld
    return sum(25 if p in jokers else points(suit * 13 + (0 if p == 14 else p - 1))
               for p in range(lo, hi + 1))


def meld_kinds(meld: tuple) -> Counter:
    if meld[0] == "set":
        _, rank, suits, j = meld
        c = Counter({s * 13 + rank - 1: n for s, n in enumerate(suits) if n})
    else:
        _, suit, lo, hi, jokers = meld
        c = Counter(suit * 13 + (0 if p == 14 else p - 1) for p in range(lo, hi + 1)
                    if p not in jokers)
        j = len(jokers)
    if j:
        c[JOKER] = j
    return c


def all_melds(hand_kinds: Counter, must: int | None = None) -> set[tuple]:
    """Every meld of every sub-multiset of ``hand_kinds`` (holding ``must`` if given)."""
    keys = sorted(hand_kinds)
    found = set()
    for choice in product(*(range(hand_kinds[k] + 1) for k in keys)):
        sub = Counter({k: c for k, c in zip(keys, choice) if c})
        if sum(choice) < 3 or (must is not None and not sub.get(must)):
            continue
        found.update(readings(sub))
    return found


def can_end(hand_after: int, queens_after: int, opened: bool, total_points: int,
            opening_turn: bool, no_out_on_opening=False, discard_last=False,
            queen_kept=False) -> bool:
    """After laying cards, can the player still finish the turn legally? Going out (empty hand)
    needs an opening of 30 and is barred by variants 4 and (in the opening turn) 1; otherwise a
    card must remain that may be discarded: not the queen of spades unless it is the last card
    (and variant 5 is off), and under variant 1 in the opening turn the discard may not empty
    the hand."""
    if hand_after == 0:
        if discard_last or (no_out_on_opening and opening_turn):
            return False
        return opened or total_points >= 30
    if no_out_on_opening and opening_turn:
        return hand_after >= 2 and hand_after - queens_after >= 1
    if hand_after - queens_after >= 1:
        return True
    return hand_after == 1 and not queen_kept


def valid_table_meld(cards: list[int], pos: list[int], run: bool) -> bool:
    """A meld on the table: 3+ cards, jokers fewer than half; a set of one rank, or a run of one
    suit whose naturals stand at their positions, positions consecutive within 1..14."""
    n = len(cards)
    ks = [kind(c) for c in cards]
    j = ks.count(JOKER)
    if n < 3 or not 2 * j < n:
        return False
    nat = [k for k in ks if k != JOKER]
    if not run:
        return len({k % 13 for k in nat}) == 1
    if sorted(pos) != list(range(min(pos), min(pos) + n)) or min(pos) < 1 or max(pos) > 14:
        return False
    suit = nat[0] // 13
    return all(k == JOKER or k == suit * 13 + (0 if p == 14 else p - 1) for k, p in zip(ks, pos))
