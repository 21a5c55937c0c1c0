"""One test per rule sentence of docs/hearts.md, on constructed situations."""

import numpy as np
import pytest

from reference.hearts import hands_after_pass
from solver.games.hearts import kernels as K
from solver.core.cards import format_cards, mask_of, parse_cards
from solver.games.hearts.game import HeartsRules, legal_moves, trace_deal
from solver.games.hearts.rules import find_preset, hand_order, pass_name

BM = HeartsRules("black-maria", 4)
H = HeartsRules("hearts", 4)
CLUBS, DIAMONDS, HEARTS_, SPADES = 0, 1, 2, 3


def cards(text):
    return parse_cards(text)


def legal_text(rules, hand, led=None, first=False, broken=False):
    return format_cards(hand_order(legal_moves(rules, cards(hand), led, first, broken)))


# -- following suit ------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", [BM, H])
def test_must_follow_the_led_suit(rules):
    assert legal_text(rules, "3c Tc 5d Kh Qs", CLUBS) == "3c Tc"
    assert legal_text(rules, "3c Tc 5d Kh Qs", SPADES) == "Qs"


@pytest.mark.parametrize("rules", [BM, H])
def test_void_in_led_suit_may_play_any_card(rules):
    assert legal_text(rules, "3c Tc 5d Qs", HEARTS_) == "3c Tc 5d Qs"


def test_highest_card_of_led_suit_wins_ace_high_no_trumps():
    # Replay a real deal: every winner holds the highest card of the led suit (ace high).
    t = trace_deal(HeartsRules("black-maria", 4), seed=11)
    order = "23456789TJQKA"
    for row, lead, win in zip(t.plays, t.leaders, t.winners):
        texts = format_cards(row).split()
        led = texts[0][1]
        best = max((x for x in texts if x[1] == led), key=lambda x: order.index(x[0]))
        assert (lead + texts.index(best)) % 4 == win


# -- first lead -------------------------------------------------------------------------------
def test_black_maria_first_lead_any_card():
    hand = "2c 9d Ah Qs Ks"
    assert legal_text(BM, hand, None, first=True) == hand


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_black_maria_left_of_dealer_leads_and_dealer_rotates(players):
    rules = HeartsRules("black-maria", players, target=1000)
    for deal in range(1, players + 2):
        t = trace_deal(rules, seed=3, deal=deal)
        assert t.dealer == (deal - 1) % players
        assert t.leaders[0] == (t.dealer + 1) % players


@pytest.mark.parametrize("players,card", [(3, "2c"), (4, "2c"), (5, "3c"), (6, "4c")])
def test_hearts_lowest_club_leads_first_trick(players, card):
    rules = HeartsRules("hearts", players)
    assert format_cards([rules.lead_card]) == card
    low = cards(card)[0]
    assert legal_moves(rules, cards(f"{card} Kc 9d Ah"), None, first_trick=True) == [low]
    for seed in range(5):
        t = trace_deal(rules, seed=seed)
        assert t.plays[0][0] == low
        # The leader is whoever holds it after the passes.
        holder = t.leaders[0]
        had = low in t.dealt[holder] and low not in t.passed[holder]
        got = any(low in t.passed[s] and (s + t.pass_offset) % players == holder
                  for s in range(players))
        assert had or got


def test_hearts_first_lead_needs_the_lowest_club():
    with pytest.raises(ValueError, match="lowest club"):
        legal_moves(H, cards("3c 9d"), None, first_trick=True)


# -- hearts broken ----------------------------------------------------------------------------
def test_hearts_cannot_be_led_before_broken():
    assert legal_text(H, "3c 5h Ah Qs", None, broken=False) == "3c Qs"
    assert legal_text(H, "3c 5h Ah Qs", None, broken=True) == "3c 5h Ah Qs"


def test_hearts_leader_with_only_hearts_may_lead_them():
    assert legal_text(H, "5h Ah", None, broken=False) == "5h Ah"
    # The queen of spades is not a heart: with it in hand the leader must lead it.
    assert legal_text(H, "5h Ah Qs", None, broken=False) == "Qs"


def test_black_maria_hearts_leadable_any_time():
    assert legal_text(BM, "3c 5h Ah Qs", None, broken=False) == "3c 5h Ah Qs"


def test_queen_of_spades_does_not_break_hearts():
    # Only a heart breaks hearts: find a deal where Qs fell before any heart and check the next
    # lead by a player holding hearts and another suit avoided hearts.
    rules = HeartsRules("hearts", 4, target=1000)
    qs = cards("Qs")[0]
    seen = 0
    for seed in range(60):
        t = trace_deal(rules, seed=seed)
        hands = hands_after_pass(t.dealt, t.passed, t.pass_offset)
        broken = queen = False
        for row, lead in zip(t.plays, t.leaders):
            lead_hand = hands[lead]
            if queen and not broken and any(c // 13 != 2 for c in lead_hand):
                assert row[0] // 13 != 2
                seen += 1
            for j, c in enumerate(row):
                hands[(lead + j) % 4].discard(c)
                broken |= c // 13 == 2
                queen |= c == qs
    assert seen > 0


# -- first trick penalty rule -------------------------------------------------------------------
def test_hearts_no_penalty_cards_in_first_trick_when_void():
    assert legal_text(H, "9d Kh Qs", CLUBS, first=True) == "9d"
    assert legal_text(H, "9d Kh Qs", CLUBS, first=False) == "9d Kh Qs"


def test_hearts_first_trick_penalty_allowed_when_nothing_else():
    assert legal_text(H, "Kh 2h Qs", CLUBS, first=True) == "2h Kh Qs"


def test_hearts_first_trick_follow_suit_still_applies():
    assert legal_text(H, "5c Kh Qs", CLUBS, first=True) == "5c"


def test_black_maria_penalty_cards_allowed_in_first_trick():
    assert legal_text(BM, "9d Kh Qs", CLUBS, first=True) == "9d Kh Qs"


# -- passing ----------------------------------------------------------------------------------
@pytest.mark.parametrize("game,players,cycle", [
    ("black-maria", 3, ["right"]), ("black-maria", 4, ["right"]),
    ("black-maria", 5, ["right"]), ("black-maria", 6, ["right"]),
    ("hearts", 3, ["left", "right", "none"]), ("hearts", 4, ["left", "right", "across", "none"]),
    ("hearts", 5, ["left", "right", "none"]), ("hearts", 6, ["left", "right", "across", "none"]),
])
def test_pass_direction_by_player_count_and_deal(game, players, cycle):
    rules = HeartsRules(game, players, target=10_000)
    for deal in range(1, 2 * len(cycle) + 2):
        t = trace_deal(rules, seed=9, deal=deal)
        want = cycle[(deal - 1) % len(cycle)]
        assert pass_name(t.pass_offset, players) == want
        step = {"left": 1, "right": -1, "across": players // 2, "none": 0}[want]
        assert t.pass_offset == step
        for s in range(players):
            assert len(t.passed[s]) == (0 if want == "none" else 3)
            assert set(t.passed[s]) <= set(t.dealt[s])
        # What each seat plays is its dealt hand minus its pass plus what it received.
        played = [set() for _ in range(players)]
        for row, lead in zip(t.plays, t.leaders):
            for j, c in enumerate(row):
                played[(lead + j) % players].add(c)
        for s in range(players):
            src = (s - step) % players
            assert played[s] == (set(t.dealt[s]) - set(t.passed[s])) | set(t.passed[src])


# -- removals, hand sizes ----------------------------------------------------------------------
@pytest.mark.parametrize("game,players,gone", [
    ("black-maria", 3, "2c"), ("black-maria", 4, ""), ("black-maria", 5, "2c 2d"),
    ("black-maria", 6, "2c 2d 2h 2s"),
    ("hearts", 3, "2d"), ("hearts", 4, ""), ("hearts", 5, "2c 2d"), ("hearts", 6, "2c 2d 2s 3c"),
])
def test_card_removals(game, players, gone):
    rules = HeartsRules(game, players)
    assert sorted(rules.removed) == sorted(cards(gone))
    t = trace_deal(rules, seed=4)
    dealt = [c for h in t.dealt for c in h]
    assert sorted(dealt) == sorted(set(range(52)) - set(cards(gone)))
    assert {len(h) for h in t.dealt} == {(52 - len(cards(gone))) // players}


# -- scoring -----------------------------------------------------------------------------------
def points_of(rules, text):
    return {format_cards([c]): int(rules.points[c]) for c in cards(text)}


def test_black_maria_penalties():
    assert points_of(BM, "2h Ah Qs Ks As Js Jd 2c") == {
        "2h": 1, "Ah": 1, "Qs": 13, "Ks": 10, "As": 7, "Js": 0, "Jd": 0, "2c": 0}
    assert BM.penalty_total == 43


def test_black_maria_removed_two_of_hearts_leaves_42():
    assert HeartsRules("black-maria", 6).penalty_total == 42
    assert HeartsRules("black-maria", 6, spot_hearts=True).penalty_total == 146 - 2


def test_hearts_penalties():
    assert points_of(H, "2h Ah Qs Ks As Jd") == {"2h": 1, "Ah": 1, "Qs": 13, "Ks": 0, "As": 0,
                                                  "Jd": 0}
    assert H.penalty_total == 26


@pytest.mark.parametrize("game", ["black-maria", "hearts"])
def test_spot_hearts(game):
    r = HeartsRules(game, 4, spot_hearts=True)
    got = points_of(r, "2h 9h Th Jh Qh Kh Ah Qs Ks As")
    spades = {"Ks": 10, "As": 7} if game == "black-maria" else {"Ks": 0, "As": 0}
    assert got == {"2h": 2, "9h": 9, "Th": 10, "Jh": 11, "Qh": 12, "Kh": 13, "Ah": 14,
                   "Qs": 25, **spades}
    assert r.penalty_total == 104 + 25 + (17 if game == "black-maria" else 0)


@pytest.mark.parametrize("game", ["black-maria", "hearts"])
def test_omnibus_jack_of_diamonds(game):
    r = HeartsRules(game, 4, omnibus=True)
    assert points_of(r, "Jd Jc") == {"Jd": -10, "Jc": 0}
    assert r.deal_total() == r.penalty_total - 10
    assert points_of(HeartsRules(game, 4), "Jd") == {"Jd": 0}


def score_moon(rules, taken_text, base):
    args = rules.kernel_args()
    taken = np.zeros(args.n, np.uint64)
    for s, text in enumerate(taken_text):
        taken[s] = np.uint64(mask_of(cards(text)))
    pts = np.array(base, dtype=np.int64)
    shooter = K._score_moon(args.n, taken, args.moon_mask, args.moon_points, args.moon_rule, pts)
    return int(shooter), pts.tolist()


ALL_PENALTIES_H = "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah Qs"


def test_moon_others_gets_26_each():
    shooter, pts = score_moon(H, ["", ALL_PENALTIES_H, "", ""], [0, 26, 0, 0])
    assert (shooter, pts) == (1, [26, 0, 26, 26])


def test_moon_subtract_option():
    r = HeartsRules("hearts", 4, moon="subtract")
    shooter, pts = score_moon(r, ["", ALL_PENALTIES_H + " Jd", "", ""], [0, 26, 0, 0])
    assert (shooter, pts) == (1, [0, -26, 0, 0])


def test_moon_keeps_the_omnibus_jack_apart():
    r = HeartsRules("hearts", 4, omnibus=True)
    shooter, pts = score_moon(r, ["Jd", ALL_PENALTIES_H, "", ""], [-10, 26, 0, 0])
    assert (shooter, pts) == (1, [16, 0, 26, 26])


def test_moon_needs_every_penalty_card():
    shooter, pts = score_moon(H, ["2h", ALL_PENALTIES_H.replace("2h ", ""), "", ""],
                              [1, 25, 0, 0])
    assert (shooter, pts) == (-1, [1, 25, 0, 0])


def test_spot_hearts_moon_moves_129():
    r = HeartsRules("hearts", 4, spot_hearts=True)
    shooter, pts = score_moon(r, [ALL_PENALTIES_H, "", "", ""], [129, 0, 0, 0])
    assert (shooter, pts) == (0, [0, 129, 129, 129])


def test_black_maria_has_no_moon():
    everything = ALL_PENALTIES_H + " Ks As"
    shooter, pts = score_moon(BM, [everything, "", "", ""], [43, 0, 0, 0])
    assert (shooter, pts) == (-1, [43, 0, 0, 0])
    with pytest.raises(ValueError, match="no moon rule"):
        HeartsRules("black-maria", 4, moon="others")


# -- rules objects --------------------------------------------------------------------------------
def test_presets_and_validation():
    assert find_preset("Hearts").name == "hearts"
    with pytest.raises(ValueError, match="unknown game"):
        find_preset("spades")
    with pytest.raises(ValueError, match="3 to 6 players"):
        HeartsRules("hearts", 7)
    with pytest.raises(ValueError, match="target"):
        HeartsRules("hearts", 4, target=0)
    with pytest.raises(ValueError, match="not in play"):
        legal_moves(HeartsRules("hearts", 6), cards("2c"))
    assert H.moon == "others" and BM.moon == "none"
