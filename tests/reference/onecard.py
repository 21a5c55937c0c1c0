"""A slow, plain-Python One Card written from docs/onecard.md, for cross-checking the kernels.

Cards are (rank, suit) pairs turned into project ids only at the edges; hands are Python sets.
Random choices consume the plain-Python SplitMix64 of naive_rng.py in the documented order
(first dealer; deal; each bid: 0 = pass, r = r-th lowest legal bid; each card: r-th legal card by
id; the downtown switch: 1 = switch), so the numba engine must reproduce every game exactly.
"""

from reference.rng import SplitMix64, stream_seed

RANKS_UP = [9, 10, 11, 12, 13, 1]  # uptown order, low to high: 9 10 J Q K A
RJ = 52
TWO_DIAMONDS = 1 * 13 + 2 - 1
HAND = {2: 12, 3: 8, 4: 6}
LOWEST_BID = {2: 8, 3: 7, 4: 6}
OPPOSITE = {2: 1, 3: 1, 4: 2}


def card_id(rank, suit):
    return suit * 13 + rank - 1


def suit_of(card, joker, trump):
    """The suit a card belongs to in play: the joker is a trump when there are trumps, else none."""
    if card == joker:
        return trump  # None without trumps
    return card // 13


def order(card, downtown):
    r = RANKS_UP.index(card % 13 + 1)
    return 5 - r if downtown else r


def deck(joker):
    return sorted(card_id(r, s) for s in range(4) for r in RANKS_UP) + [joker]


def legal(hand, led_suit, trump, joker, first_lead_of_bidder):
    hand = sorted(hand)
    if led_suit is None:
        if first_lead_of_bidder:
            return [c for c in hand if c != joker]
        return hand
    same = [c for c in hand if suit_of(c, joker, trump) == led_suit]
    return same if same else hand


def winner_index(trick, led_suit, trump, joker, downtown):
    trumps = [i for i, c in enumerate(trick) if trump is not None and suit_of(c, joker, trump) == trump]
    if trumps:
        # The joker is the lowest trump.
        return max(trumps, key=lambda i: -1 if trick[i] == joker else order(trick[i], False))
    followers = [i for i, c in enumerate(trick) if c != joker and c // 13 == led_suit]
    return max(followers, key=lambda i: order(trick[i], downtown))


def auction(rng, n, dealer):
    passed = set()
    high, bidder = 0, None
    log = []
    seat = (dealer + 1) % n
    while True:
        if seat == bidder:
            break
        if seat not in passed:
            options = [b for b in range(max(LOWEST_BID[n], high + 1), 16)]
            r = rng.below(1 + len(options))
            if r == 0:
                passed.add(seat)
                log.append((seat, 0))
                if len(passed) == n:
                    break
            else:
                high, bidder = options[r - 1], seat
                log.append((seat, high))
                if high == 15:
                    break
        seat = (seat + 1) % n
    return bidder, high, log


def play_round(rng, n, dealer, joker):
    cards = deck(joker)
    rng.shuffle(cards)
    hands = [set() for _ in range(n)]
    for j in range(24):
        hands[(dealer + 1 + j) % n].add(cards[j])
    one_card = cards[24]
    start_hands = [sorted(h) for h in hands]
    bidder, bid, bids = auction(rng, n, dealer)
    leader = bidder if bidder is not None else (dealer + OPPOSITE[n]) % n
    first_leader = leader
    trump = None
    downtown = False
    piles = [[] for _ in range(n)]
    tricks = []
    for t in range(HAND[n]):
        trick, led = [], None
        for i in range(n):
            seat = (leader + i) % n
            first = bidder is not None and t == 0 and i == 0
            options = legal(hands[seat], led, trump, joker, first)
            card = options[rng.below(len(options))]
            hands[seat].remove(card)
            trick.append(card)
            if first:
                trump = card // 13
            if led is None:
                led = suit_of(card, joker, trump)
        w = (leader + winner_index(trick, led, trump, joker, downtown)) % n
        piles[w].extend(trick)
        switch = False
        if trump is None and joker in trick and t < HAND[n] - 1 and rng.below(2) == 1:
            downtown = switch = True
        tricks.append({"leader": leader, "winner": w, "switch": switch,
                       "cards": [((leader + i) % n, c) for i, c in enumerate(trick)]})
        leader = w
    piles[leader].append(one_card)
    captured = [len(p) + (2 if joker in p else 0) for p in piles]
    scored = list(captured)
    if bidder is not None and captured[bidder] < bid:
        scored[bidder] = 0
    return {"hands": start_hands, "one_card": one_card, "bids": bids,
            "bidder": -1 if bidder is None else bidder, "bid": bid if bidder is not None else 0,
            "trump": -1 if trump is None else trump, "leader": first_leader, "tricks": tricks,
            "captured": captured, "scored": scored, "piles": piles, "left": sum(map(len, hands))}


def play_game(seed, index, n, joker=RJ):
    """Game ``index`` of a run with ``seed``: its rounds (dealer + round dict) and the winner
    relative to the first dealer."""
    rng = SplitMix64(stream_seed(seed, index))
    dealer = rng.below(n)
    first = dealer
    totals = [0] * n
    rounds = []
    while True:
        r = play_round(rng, n, dealer, joker)
        r["dealer"] = dealer
        rounds.append(r)
        totals = [a + b for a, b in zip(totals, r["scored"])]
        top = max(totals)
        if top >= 30 and totals.count(top) == 1:
            return {"first_dealer": first, "rounds": rounds,
                    "winner": (totals.index(top) - first) % n,
                    "totals": [totals[(first + k) % n] for k in range(n)]}
        dealer = (dealer + 1) % n
