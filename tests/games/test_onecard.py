"""One Card: one test per rule sentence of docs/onecard.md (the "decided" points included),
on the engine's kernels through their checked wrappers and on logged rounds."""

from collections import Counter

import numpy as np
import pytest

from reference import onecard as ref
from solver.core.cards import CLUBS, DIAMONDS, HEARTS, SPADES, format_card, mask_of, parse_card, parse_cards
from solver.games.onecard.engine import (EUCHRE_SUIT_MASKS, JOKER_CARD, MAX_BID, NO_JOKER_CARD, ROUND_POINTS,
                            OneCardRules, captured_points, game_winner, led_suit,
                            legal_cards, round_score, trick_winner)
from solver.games.onecard.sim import first_round
from solver.core.bits import random_bit
from solver.core.rng import new_state

RJ = JOKER_CARD
TWO_D = NO_JOKER_CARD


def hand(text: str) -> int:
    """A bitmask from card text (the joker RJ has bit 52)."""
    m = 0
    for c in parse_cards(text):
        m |= 1 << c
    return m


def cards(mask: int) -> str:
    return " ".join(sorted(format_card(c) for c in range(64) if mask >> c & 1))


def legal(h: str, led: int, trump: int, joker: int = RJ, first_lead: bool = False) -> str:
    return cards(legal_cards(hand(h), led, trump, joker, first_lead))


def trick(text: str, led: int, trump: int, joker: int = RJ, downtown: bool = False) -> str:
    cs = parse_cards(text)
    return format_card(cs[trick_winner(cs, led, trump, joker, downtown)])


def logs(players: int, seeds, joker: bool = True):
    return [first_round(s, players, joker) for s in seeds]


# --- Cards and players -------------------------------------------------------------------------

def test_deck_is_the_euchre_deck_and_one_joker():
    deck = OneCardRules(4).deck().tolist()
    assert len(deck) == len(set(deck)) == 25
    assert sorted(format_card(c) for c in deck[:-1]) == sorted(
        r + s for r in "9TJQKA" for s in "cdhs")
    assert deck[-1] == parse_card("RJ")


def test_table_without_joker_uses_two_of_diamonds_as_the_joker():
    deck = OneCardRules(3, joker=False).deck().tolist()
    assert deck[-1] == parse_card("2d") == TWO_D and RJ not in deck
    # The 2d is the joker, not a diamond: it never follows diamonds ...
    assert legal("2d Ah", DIAMONDS, -1, TWO_D) == "2d Ah"
    assert legal("2d Kd", DIAMONDS, -1, TWO_D) == "Kd"
    # ... it is the lowest trump with trumps, and may not open the bidder's first trick.
    assert legal("2d Ac", HEARTS, HEARTS, TWO_D) == "2d"
    assert trick("9h 2d", HEARTS, HEARTS, TWO_D) == "9h"
    assert trick("As 2d", SPADES, HEARTS, TWO_D) == "2d"
    assert legal("2d Ac", -1, -1, TWO_D, first_lead=True) == "Ac"
    # Without trumps it never wins and a captured 2d scores 3.
    assert trick("2d 9c", -1, -1, TWO_D) == "9c"
    assert captured_points([hand("2d 9c")], TWO_D) == [4]


@pytest.mark.parametrize("players", [0, 1, 5, True, "4"])
def test_two_to_four_players(players):
    with pytest.raises(ValueError):
        OneCardRules(players)


def test_uptown_ace_high_and_downtown_nine_high():
    assert trick("9c Tc Jc Qc", CLUBS, -1) == "Qc"
    assert trick("Kc Ac Qc", CLUBS, -1) == "Ac"
    assert trick("Kc Ac Qc", CLUBS, -1, downtown=True) == "Qc"
    assert trick("Tc 9c Ac", CLUBS, -1, downtown=True) == "9c"


@pytest.mark.parametrize("players,size", [(2, 12), (3, 8), (4, 6)])
def test_deal_sizes_and_the_one_card(players, size):
    for log in logs(players, range(30)):
        assert [len(h) for h in log.hands] == [size] * players
        dealt = [c for h in log.hands for c in h]
        assert sorted(dealt + [log.one_card]) == sorted(log.rules.deck().tolist())


def test_first_dealer_is_random_and_dealing_starts_left_of_the_dealer():
    dealers = Counter(log.dealer for log in logs(3, range(300)))
    assert set(dealers) == {0, 1, 2} and min(dealers.values()) > 70
    # Dealt one at a time from the dealer's left: the reference deal agrees card for card.
    for log in logs(3, range(20)):
        rng = ref.SplitMix64(ref.stream_seed(log.seed, 0))
        dealer = rng.below(3)
        deck = ref.deck(RJ)
        rng.shuffle(deck)
        assert dealer == log.dealer
        assert [sorted(deck[(s - dealer - 1) % 3:24:3]) for s in range(3)] == log.hands


# --- Bidding -----------------------------------------------------------------------------------

def check_auction(log):
    n, lo = log.rules.players, log.rules.min_bid
    seat = (log.dealer + 1) % n
    passed, high, bidder = set(), 0, -1
    for s, b in log.bids:
        while seat in passed:
            seat = (seat + 1) % n
        assert s == seat, "turns go clockwise from the dealer's left, skipping passed players"
        assert s not in passed, "a pass is final"
        if b:
            assert max(lo, high + 1) <= b <= MAX_BID
            high, bidder = b, s
        else:
            passed.add(s)
        seat = (seat + 1) % n
    # It ended exactly when every other player had passed after the last bid, or on 15.
    if bidder < 0:
        assert len(passed) == n
    else:
        assert high == MAX_BID or len(passed) == n - 1
        assert log.bids[-1] == (bidder, high) or len(passed) == n - 1
    assert (log.bidder, log.bid) == ((bidder, high) if bidder >= 0 else (-1, 0))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_auction_from_left_of_dealer_passes_final_bids_rise_to_at_most_15(players):
    sample = logs(players, range(400))
    for log in sample:
        check_auction(log)
    ends = Counter("15" if log.bid == MAX_BID else "passes" for log in sample if log.bidder >= 0)
    assert ends["15"] > 0 and ends["passes"] > 0
    # The lowest legal bid is 8 / 7 / 6 and it does occur as an opening bid.
    openers = [log.bids[0][1] for log in sample]
    assert min(b for b in openers if b) == {2: 8, 3: 7, 4: 6}[players]


def test_the_last_player_may_still_bid_after_everybody_else_passed():
    late = [log for log in logs(3, range(300))
            if [b for _, b in log.bids[:2]] == [0, 0] and len(log.bids) == 3 and log.bids[2][1]]
    assert late
    for log in late:
        assert log.bidder == log.dealer and log.bid == log.bids[2][1]


def test_a_bidder_may_raise_again_after_being_overbid():
    raised = [log for log in logs(4, range(300))
              if sum(1 for s, b in log.bids if b and s == log.bidder) > 1]
    assert raised


def test_random_bids_are_uniform_among_pass_and_the_legal_bids():
    counts = Counter(log.bids[0][1] for log in logs(4, range(3300)))
    assert set(counts) == {0} | set(range(6, 16))   # pass and 6..15: 11 choices
    expected = 3300 / 11
    chi2 = sum((counts[k] - expected) ** 2 / expected for k in counts)
    assert chi2 < 29.6   # chi-square, 10 degrees of freedom, p = 0.001


def test_bidder_leads_and_the_suit_led_is_trump():
    for log in logs(3, range(200)):
        if log.bidder >= 0:
            first = log.tricks[0]["cards"][0]
            assert log.leader == log.bidder == first[0]
            assert log.trump == first[1] // 13


def test_bidder_may_not_lead_the_joker_to_the_first_trick():
    assert legal("RJ Ac 9d", -1, -1, first_lead=True) == "9d Ac"
    assert legal("RJ Ac 9d", -1, HEARTS) == "9d Ac RJ"    # later leads may be the joker
    led_joker_later = 0
    for log in logs(2, range(400)):
        if log.bidder >= 0:
            assert log.tricks[0]["cards"][0][1] != RJ
            led_joker_later += any(t["cards"][0][1] == RJ for t in log.tricks[1:])
    assert led_joker_later > 0


@pytest.mark.parametrize("players,offset", [(2, 1), (3, 1), (4, 2)])
def test_without_a_bid_no_trump_and_the_player_opposite_the_dealer_leads(players, offset):
    from solver.games.onecard.sim import RC_BIDDER, RC_LEADER, RC_TRUMP, simulate_records
    rec = simulate_records(7, {2: 300, 3: 2000, 4: 8000}[players], players)["round_record"]
    nobid = rec[rec[:, RC_BIDDER] == -1]
    assert len(nobid) > 0
    assert (nobid[:, RC_LEADER] == offset).all()
    assert (nobid[:, RC_TRUMP] == -1).all()
    bid = rec[rec[:, RC_BIDDER] >= 0]
    assert (bid[:, RC_LEADER] == bid[:, RC_BIDDER]).all()


# --- Play --------------------------------------------------------------------------------------

def test_must_follow_the_led_suit_even_holding_trumps():
    assert legal("Kc 9c Ah RJ", CLUBS, HEARTS) == "9c Kc"


def test_unable_to_follow_any_card_may_be_played():
    assert legal("Ah Qs RJ", CLUBS, HEARTS) == "Ah Qs RJ"
    assert legal("Ah Qs RJ", CLUBS, -1) == "Ah Qs RJ"


def test_trump_led_means_a_trump_must_be_played_the_joker_counting_as_trump():
    assert legal("9h Ac Kd", HEARTS, HEARTS) == "9h"
    assert legal("RJ Ac Kd", HEARTS, HEARTS) == "RJ"
    assert legal("RJ 9h Ac", HEARTS, HEARTS) == "9h RJ"
    assert legal("Ac Kd", HEARTS, HEARTS) == "Ac Kd"
    # The joker led with trumps leads trumps.
    assert led_suit(parse_cards("RJ"), HEARTS) == HEARTS
    assert legal("Kh Ac", led_suit(parse_cards("RJ"), HEARTS), HEARTS) == "Kh"


def test_the_joker_is_the_lowest_trump():
    assert trick("9h RJ", HEARTS, HEARTS) == "9h"
    assert trick("RJ 9h", HEARTS, HEARTS) == "9h"
    assert trick("Ac RJ Kc", CLUBS, HEARTS) == "RJ"     # still a trump: beats the suit led


def test_highest_trump_wins_else_highest_of_the_led_suit():
    assert trick("Kc Ac 9s", CLUBS, SPADES) == "9s"
    assert trick("Kc 9s Ts Ac", CLUBS, SPADES) == "Ts"
    assert trick("Kc Ad Qc", CLUBS, SPADES) == "Kc"     # off-suit ace does not win
    assert trick("Kc Ad Ac", CLUBS, -1) == "Ac"


def test_without_trumps_the_joker_never_wins():
    assert trick("Kc RJ", CLUBS, -1) == "Kc"
    assert trick("RJ 9c Ac 9d", CLUBS, -1) == "Ac"
    assert trick("RJ 9c", CLUBS, -1) == "9c"


def test_without_trumps_the_joker_only_when_leading_or_unable_to_follow():
    assert legal("RJ Kc", CLUBS, -1) == "Kc"
    assert legal("RJ Kd", CLUBS, -1) == "Kd RJ"
    assert legal("RJ Kc", -1, -1) == "Kc RJ"


def test_joker_led_without_trumps_the_next_card_sets_the_suit():
    assert led_suit(parse_cards("RJ"), -1) == -1
    assert legal("Kc Ad", -1, -1) == "Ad Kc"           # the second player may play anything
    assert led_suit(parse_cards("RJ 9d"), -1) == DIAMONDS
    assert led_suit(parse_cards("RJ 9d Ac"), -1) == DIAMONDS
    assert trick("RJ 9d Ac Kd", DIAMONDS, -1) == "Kd"


def test_the_joker_winner_may_switch_to_downtown_for_the_rest_of_the_round():
    switched = stayed = 0
    for log in logs(2, range(4000)):
        if log.trump >= 0:
            assert not any(t["switch"] for t in log.tricks)
            continue
        downtown = False
        for k, t in enumerate(log.tricks):
            cs = [c for _, c in t["cards"]]
            led = led_suit(cs, -1)
            best = max((c for c in cs if c != RJ and c // 13 == led),
                       key=lambda c: ref.order(c, downtown))
            assert t["winner"] == dict((c, s) for s, c in t["cards"])[best]
            if t["switch"]:
                assert RJ in cs and not downtown and k < len(log.tricks) - 1
                downtown = True
            if RJ in cs and k < len(log.tricks) - 1:
                switched += t["switch"]
                stayed += not t["switch"]
    # Random play picks yes or no with equal chance.
    assert switched > 10 and stayed > 10
    assert abs(switched - stayed) < 4 * np.sqrt(switched + stayed)


# --- Scoring -----------------------------------------------------------------------------------

def test_captured_cards_score_one_and_the_joker_three():
    assert captured_points([hand("9c Ah"), hand("RJ Ks Qs"), 0]) == [2, 5, 0]
    assert ROUND_POINTS == 27


def replay_points(log):
    """Captured points recomputed from the tricks: each trick to its winner, the one card to the
    last trick's winner."""
    piles = [[] for _ in log.hands]
    for t in log.tricks:
        piles[t["winner"]] += [c for _, c in t["cards"]]
    piles[log.tricks[-1]["winner"]].append(log.one_card)
    joker = log.rules.joker_card
    return [len(p) + 2 * (joker in p) for p in piles]


@pytest.mark.parametrize("players,joker", [(2, True), (3, False), (4, True)])
def test_one_card_goes_to_the_last_tricks_winner(players, joker):
    joker_in_middle = 0
    for log in logs(players, range(300), joker):
        assert replay_points(log) == log.captured
        assert sum(log.captured) == 27
        joker_in_middle += log.one_card == log.rules.joker_card
    assert joker_in_middle > 0     # and then it scores 3 for that player


def test_bidder_short_of_the_bid_scores_zero_others_score_their_cards():
    assert round_score([10, 5, 6, 6], 0, 10) == [10, 5, 6, 6]   # reaching the bid is enough
    assert round_score([10, 5, 6, 6], 0, 11) == [0, 5, 6, 6]
    assert round_score([10, 5, 6, 6], 2, 6) == [10, 5, 6, 6]
    assert round_score([10, 17], -1, 0) == [10, 17]              # no bid: everyone scores
    for log in logs(4, range(100)):
        expect = list(log.captured)
        if log.bidder >= 0 and expect[log.bidder] < log.bid:
            expect[log.bidder] = 0
        assert log.scored == expect


def test_the_one_card_counts_towards_the_bid():
    rescued = 0
    for log in logs(2, range(3000)):
        b = log.bidder
        if b < 0 or log.tricks[-1]["winner"] != b:
            continue
        one = 3 if log.one_card == log.rules.joker_card else 1
        if log.captured[b] - one < log.bid <= log.captured[b]:
            rescued += 1
            assert log.scored[b] == log.captured[b] > 0
    assert rescued > 0


def test_game_ends_at_30_highest_total_wins_a_tie_at_the_top_plays_on():
    assert game_winner([30, 29]) == 0
    assert game_winner([29, 28, 12]) == -1
    assert game_winner([31, 35, 2]) == 1          # the highest total, not the first to 30
    assert game_winner([32, 32, 5, 31]) == -1     # tie at the top: another round
    assert game_winner([32, 31, 32]) == -1
    assert game_winner([33, 32, 32]) == 0         # a tie below the top does not matter


# --- Random choice of cards ---------------------------------------------------------------------

def test_random_card_choice_is_uniform_among_the_legal_cards():
    legal_mask = np.uint64(mask_of(parse_cards("9c Ac Kd Th Qs")))
    state = new_state(11)
    counts = Counter(format_card(int(random_bit(state, legal_mask))) for _ in range(20000))
    assert set(counts) == {"9c", "Ac", "Kd", "Th", "Qs"}
    chi2 = sum((k - 4000) ** 2 / 4000 for k in counts.values())
    assert chi2 < 18.5   # 4 degrees of freedom, p = 0.001


def test_suit_masks_hold_the_six_euchre_cards_and_never_the_joker():
    for s in range(4):
        m = int(EUCHRE_SUIT_MASKS[s])
        assert bin(m).count("1") == 6
        assert not m >> RJ & 1 and not m >> TWO_D & 1


def test_legal_moves_agree_with_the_plain_reference_on_random_situations():
    rng = np.random.default_rng(5)   # test data only; the engine never uses numpy's generator
    for joker in (RJ, TWO_D):
        deck = OneCardRules(4, joker == RJ).deck()
        for _ in range(3000):
            h = rng.choice(deck, size=rng.integers(1, 13), replace=False).tolist()
            trump = int(rng.integers(-1, 4))
            led = int(rng.integers(-1, 4))
            first = bool(rng.integers(0, 2)) and led == -1 and len(h) > 1
            ref_legal = ref.legal(set(h), None if led < 0 else led,
                                  None if trump < 0 else trump, joker, first)
            assert legal_cards(sum(1 << c for c in h), led, trump, joker, first) == sum(
                1 << c for c in ref_legal)


def test_wrappers_reject_bad_input():
    with pytest.raises(ValueError):
        legal_cards(-1, -1, -1)
    with pytest.raises(ValueError):
        legal_cards(0, 4, -1)
    with pytest.raises(ValueError):
        legal_cards(0, -1, -1, joker=parse_card("3c"))
    with pytest.raises(ValueError):
        trick_winner([1], CLUBS, -1)
    with pytest.raises(ValueError):
        game_winner([30])
