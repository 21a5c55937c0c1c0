"""Plain-Python Black Maria / Hearts, written from docs/hearts.md only (no solver.games.hearts.game).

Cards are the project's ids (solver.core.cards), hands are sorted lists. Random choices consume the
plain-Python SplitMix64 of naive_rng in the order docs/hearts.md states (shuffle; each seat in turn
picks its three pass cards one at a time; each play is ``legal[below(len(legal))]`` over the legal
cards sorted by id), so a deal played here must equal the numba engine's deal card for card.
"""

from __future__ import annotations

from reference.rng import SplitMix64, stream_seed
from solver.core.cards import parse_cards

# -- the rules (docs/hearts.md), as plain data ----------------------------------------------------
REMOVED = {
    "black-maria": {3: "2c", 4: "", 5: "2c 2d", 6: "2c 2d 2h 2s"},
    "hearts": {3: "2d", 4: "", 5: "2c 2d", 6: "2c 2d 2s 3c"},
}
PASSES = {
    "black-maria": {n: ["right"] for n in range(3, 7)},
    "hearts": {4: ["left", "right", "across", "none"], 3: ["left", "right", "none"],
               5: ["left", "right", "none"], 6: ["left", "right", "across", "none"]},
}
RANK_ORDER = "23456789TJQKA"
SUITS = "cdhs"


def card_text(c):
    return "A23456789TJQK"[c % 13] + SUITS[c // 13]


def suit_of(c):
    return card_text(c)[1]


def order(c):
    """Trick order within a suit, ace high."""
    return RANK_ORDER.index(card_text(c)[0])


def hands_after_pass(dealt, passed, offset):
    """The hands (sets) once every seat has passed ``passed[s]`` to ``s + offset``."""
    n = len(dealt)
    hands = [set(h) - set(p) for h, p in zip(dealt, passed)]
    for s in range(n):
        hands[(s + offset) % n] |= set(passed[s])
    return hands


class Table:
    def __init__(self, game, n, spot=False, omnibus=False, moon=None, target=100):
        self.game, self.n, self.target = game, n, target
        self.moon = moon or ("others" if game == "hearts" else "none")
        gone = set(parse_cards(REMOVED[game][n]))
        self.deck = [c for c in range(52) if c not in gone]
        self.points = {}
        for c in self.deck:
            t = card_text(c)
            if t[1] == "h":
                self.points[c] = (RANK_ORDER.index(t[0]) + 2) if spot else 1
        qs = parse_cards("Qs")[0]
        self.points[qs] = 25 if spot else 13
        if game == "black-maria":
            self.points[parse_cards("Ks")[0]] = 10
            self.points[parse_cards("As")[0]] = 7
        self.penalty = set(self.points)
        if omnibus:
            self.points[parse_cards("Jd")[0]] = -10
        clubs = [c for c in self.deck if suit_of(c) == "c"]
        self.lowest_club = min(clubs, key=order)

    def pass_to(self, seat, deal_index):
        d = PASSES[self.game][self.n][deal_index % len(PASSES[self.game][self.n])]
        step = {"left": 1, "right": -1, "across": self.n // 2, "none": 0}[d]
        return None if step == 0 else (seat + step) % self.n

    def legal(self, hand, led, first_trick, broken):
        """Legal cards of ``hand`` (sorted ids); ``led`` is None for a lead, else a suit letter."""
        hearts = self.game == "hearts"
        if led is None:
            if hearts and first_trick:
                ok = [c for c in hand if c == self.lowest_club]
            elif hearts and not broken and any(suit_of(c) != "h" for c in hand):
                ok = [c for c in hand if suit_of(c) != "h"]
            else:
                ok = list(hand)
        else:
            ok = [c for c in hand if suit_of(c) == led] or list(hand)
        if hearts and first_trick:
            clean = [c for c in ok if c not in self.penalty]
            if clean:
                ok = clean
        return ok

    def play_deal(self, rng, dealer, deal_index):
        n = self.n
        deck = list(self.deck)
        rng.shuffle(deck)
        hands = [[] for _ in range(n)]
        for k, c in enumerate(deck):
            hands[(dealer + 1 + k) % n].append(c)
        hands = [sorted(h) for h in hands]
        dealt = [list(h) for h in hands]
        passed = [[] for _ in range(n)]
        if self.pass_to(0, deal_index) is not None:
            for s in range(n):
                h = list(hands[s])
                for _ in range(3):
                    passed[s].append(h.pop(rng.below(len(h))))
            for s in range(n):
                hands[s] = [c for c in hands[s] if c not in passed[s]]
            for s in range(n):
                hands[self.pass_to(s, deal_index)] += passed[s]
            hands = [sorted(h) for h in hands]
        if self.game == "hearts":
            leader = next(s for s in range(n) if self.lowest_club in hands[s])
        else:
            leader = (dealer + 1) % n
        broken = False
        taken = [[] for _ in range(n)]
        plays, leaders, winners = [], [], []
        for t in range(len(self.deck) // n):
            leaders.append(leader)
            trick, led = [], None
            for j in range(n):
                s = (leader + j) % n
                ok = self.legal(hands[s], led, t == 0, broken)
                c = ok[rng.below(len(ok))]
                hands[s].remove(c)
                trick.append(c)
                if led is None:
                    led = suit_of(c)
                if suit_of(c) == "h":
                    broken = True
            best = max((c for c in trick if suit_of(c) == led), key=order)
            winner = (leader + trick.index(best)) % n
            winners.append(winner)
            taken[winner] += trick
            plays.append(trick)
            leader = winner
        pts = [sum(self.points.get(c, 0) for c in taken[s]) for s in range(n)]
        shooter = -1
        if self.moon != "none":
            for s in range(n):
                if self.penalty <= set(taken[s]):
                    shooter = s
                    total = sum(self.points[c] for c in self.penalty)
                    if self.moon == "others":
                        pts = [p + (total if o != s else -total) for o, p in enumerate(pts)]
                    else:
                        pts[s] -= 2 * total
        return {"dealt": dealt, "passed": [sorted(p) for p in passed], "plays": plays,
                "leaders": leaders, "winners": winners, "points": pts, "shooter": shooter}

    def play_game(self, seed, game):
        """All deals of game ``game`` of a simulation seeded ``seed``: points and shooters."""
        rng = SplitMix64(stream_seed(seed, game))
        scores = [0] * self.n
        deals = []
        d = 0
        while True:
            r = self.play_deal(rng, d % self.n, d)
            deals.append(r)
            scores = [a + b for a, b in zip(scores, r["points"])]
            d += 1
            if max(scores) >= self.target:
                return deals, scores
