"""Old Maid engine: one test per testable rule sentence of docs/oldmaid.md, agreement with the
plain-Python reference game by game, and invariants over thousands of simulated games."""

from collections import Counter

import numpy as np
import pytest

from reference.oldmaid import discard_pairs as ref_discard, reference_game
from solver.core.cards import JOKER_RED, format_card, parse_card, parse_cards
from solver.games.oldmaid.engine import (OldMaidRules, _discard_pairs, _partners, find_rules, game_seed,
                            play_game, play_hands, simulation_game)
from solver.games.oldmaid.sim import run_chunk, simulate_records

STANDARD = OldMaidRules()
COLOUR = OldMaidRules(colour=True)
JOKER = OldMaidRules(joker=True)
JACK = OldMaidRules(jack=True)
ALL_RULES = [STANDARD, COLOUR, JOKER, JACK, OldMaidRules(colour=True, joker=True),
             OldMaidRules(colour=True, jack=True)]


def hands_of(*texts):
    return [parse_cards(t) for t in texts]


def text(cards):
    return " ".join(format_card(c) for c in sorted(cards))


def replay_check(g):
    """Check a game's log against the rules, draw by draw, from the hands after the discards:
    the right player draws, from the right player, a card that player holds; a pair is discarded
    exactly when the drawer held a class-mate; the game stops when one card is left."""
    rules, n = g.rules, g.players
    hands = [set(h) for h in g.hands]

    def next_with_cards(seat):
        seat = (seat + 1) % n
        while not hands[seat]:
            seat = (seat + 1) % n
        return seat

    turn = (g.dealer + 1) % n  # the player left of the dealer starts, if not already safe
    if not hands[turn]:
        turn = next_with_cards(turn)
    discarded = []
    for drawer, src, card, paired in g.log.tolist():
        assert sum(map(len, hands)) > 1, "a draw after the game was over"
        assert drawer == turn
        assert src == next_with_cards(drawer), "draws from the next player on the left with cards"
        assert card in hands[src]
        hands[src].discard(card)
        mates = [c for c in hands[drawer] if rules.pair_class(c) == rules.pair_class(card)]
        assert len(mates) <= 1
        assert paired == (len(mates) == 1)
        if mates:
            hands[drawer].discard(mates[0])
            discarded += [card, mates[0]]
        else:
            hands[drawer].add(card)
        turn = src if hands[src] else next_with_cards(src)
    left = [(p, c) for p in range(n) for c in hands[p]]
    assert len(left) == 1, "the game ends when one card is left"
    assert left[0] == (g.loser, g.last_card)
    assert rules.is_odd_card(g.last_card)
    return discarded


# --- Cards and players ----------------------------------------------------------------------

def test_deck_is_52_cards_without_the_queen_of_clubs():
    deck = STANDARD.deck().tolist()
    assert len(deck) == 51 and parse_card("Qc") not in deck
    assert sorted(deck) == deck and len(set(deck)) == 51
    assert {format_card(c) for c in deck if format_card(c)[0] == "Q"} == {"Qd", "Qh", "Qs"}


def test_variant_decks():
    assert JOKER.deck().tolist() == list(range(52)) + [JOKER_RED]
    jack = JACK.deck().tolist()
    assert len(jack) == 51 and parse_card("Jc") not in jack and parse_card("Qc") in jack
    assert COLOUR.deck().tolist() == STANDARD.deck().tolist()


@pytest.mark.parametrize("players", [1, 5, 0])
def test_two_to_four_players(players):
    with pytest.raises(ValueError, match="2 to 4 players"):
        play_game(1, players)


def test_find_rules_names_and_combinations():
    assert find_rules([]) == STANDARD and find_rules("standard") == STANDARD
    assert find_rules(["colour", "joker"]) == OldMaidRules(colour=True, joker=True)
    assert find_rules("Color,jack") == OldMaidRules(colour=True, jack=True)
    assert find_rules(["joker", "joker"]) == JOKER
    with pytest.raises(ValueError, match="cannot be combined"):
        find_rules("joker,jack")
    with pytest.raises(ValueError, match="unknown Old Maid variant 'queen'"):
        find_rules(["queen"])


# --- Deal -----------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_one_card_at_a_time_from_the_dealers_left(players):
    for seed in range(20):
        for dealer in range(players):
            g = play_game(seed, players, dealer=dealer)
            ref = reference_game(seed, players, dealer)
            assert g.dealt == ref[0]
            assert sorted(c for h in g.dealt for c in h) == STANDARD.deck().tolist()


def test_some_players_get_one_card_more_starting_left_of_the_dealer():
    assert [len(h) for h in play_game(5, 4, dealer=0).dealt] == [12, 13, 13, 13]
    assert [len(h) for h in play_game(5, 4, dealer=2).dealt] == [13, 13, 12, 13]
    assert [len(h) for h in play_game(5, 2, dealer=1).dealt] == [26, 25]
    assert [len(h) for h in play_game(5, 2, JOKER, dealer=0).dealt] == [26, 27]


def test_dealer_moves_one_seat_left_after_every_game():
    for i in range(7):
        g = simulation_game(11, i, 3)
        assert g.dealer == i % 3
        assert g.seed == game_seed(11, i)


def test_pairs_are_discarded_after_the_deal_any_suits():
    g = play_hands(hands_of("7h 7c Qh 9d", "9s"))
    assert text(g.hands[0]) == text(parse_cards("Qh 9d"))
    assert g.hands[1] == [parse_card("9s")]


def test_three_of_a_rank_one_pair_goes_and_the_third_stays():
    g = play_hands(hands_of("Kc Kd Ks Qh", "Kh"))
    assert text(g.hands[0]) == text(parse_cards("Ks Qh"))  # the highest suit stays


def test_four_of_a_rank_two_pairs_go():
    g = play_hands(hands_of("Kc Kd Ks Kh Qh", "5c 5d"))
    assert text(g.hands[0]) == "Qh" and g.hands[1] == [] and g.draws == 0


def test_discard_kernel_matches_reference_on_random_hands():
    rng = np.random.default_rng(3)  # only picks test inputs
    for rules in (STANDARD, COLOUR, JOKER):
        deck = rules.deck()
        for _ in range(2000):
            hand = rng.choice(deck, size=rng.integers(0, 30), replace=False).tolist()
            mask = np.uint64(sum(1 << int(c) for c in hand))
            got = int(_discard_pairs(mask, rules.colour))
            want = sum(1 << c for c in ref_discard(hand, rules.colour))
            assert got == want, (rules.name, text(hand))


def test_partner_masks_follow_the_pair_rule():
    for rules in (STANDARD, COLOUR, JOKER):
        for c in rules.deck().tolist():
            mask = int(_partners(np.uint64(1 << c), rules.colour))
            mates = [d for d in range(53) if mask >> d & 1]
            assert mates == [d for d in range(53)
                             if d != c and rules.pair_class(d) == rules.pair_class(c)]


# --- Play -----------------------------------------------------------------------------------

def test_player_left_of_dealer_starts_and_draws_from_their_left():
    for players in (2, 3, 4):
        for dealer in range(players):
            g = play_game(17, players, dealer=dealer)
            assert tuple(g.log[0][:2]) == ((dealer + 1) % players, (dealer + 2) % players)


def test_forced_game_turn_goes_to_player_drawn_from_and_safe_players_are_skipped():
    # Dealer 0. Seat 1 starts and draws 3d from seat 2 (its only card): a pair, seat 2 is
    # safe. The turn would go to seat 2: skipped to seat 3, who draws 4d from seat 0 (next
    # on the left): a pair, seats 3 and 0 are safe. Seat 1 is left with the queen.
    g = play_hands(hands_of("4d", "3c Qh", "3d", "4c"), dealer=0, seed=123)
    assert [(d, s, format_card(c), p) for d, s, c, p in g.log.tolist()] == [
        (1, 2, "3d", 1), (3, 0, "4d", 1)]
    assert g.loser == 1 and format_card(g.last_card) == "Qh"


def test_draws_skip_a_safe_player_as_the_one_drawn_from():
    # Seat 2 has no cards: seat 1 draws from seat 3.
    for seed in range(50):
        g = play_hands(hands_of("8d", "5c Qh", "", "5d 8c"), dealer=0, seed=seed)
        assert tuple(g.log[0][:2]) == (1, 3)
        assert 2 not in g.log[:, :2]
        replay_check(g)


def test_starter_with_no_cards_is_skipped():
    # Dealer 0; seat 1 discards everything and is safe: seat 2 starts, drawing from seat 0.
    g = play_hands(hands_of("5c Qh", "9c 9d", "5d"), dealer=0, seed=4)
    assert tuple(g.log[0][:2]) == (2, 0)
    replay_check(g)


def test_a_match_is_discarded_at_once_otherwise_the_card_stays():
    # Two players, dealer 0: seat 1 draws from seat 0 ({5d, Qh}). 5d pairs with 5c;
    # Qh stays in seat 1's hand and the turn passes to seat 0.
    seen = Counter()
    for seed in range(200):
        g = play_hands(hands_of("5d Qh", "5c"), dealer=0, seed=seed)
        drawer, src, card, paired = g.log[0]
        seen[format_card(int(card))] += 1
        assert paired == (format_card(int(card)) == "5d")
        if not paired:
            assert g.log[1][0] == 0
        replay_check(g)
    assert set(seen) == {"5d", "Qh"}


def test_the_drawn_card_is_uniform_over_the_hand():
    hand = parse_cards("2d 3d 4d 5d Qh")
    counts = Counter()
    trials = 5000
    for seed in range(trials):
        g = play_hands([hand, parse_cards("2c 3c 4c 5c")], dealer=0, seed=seed)
        counts[int(g.log[0][2])] += 1
    assert set(counts) == set(hand)
    expected = trials / len(hand)
    chi2 = sum((k - expected) ** 2 / expected for k in counts.values())
    assert chi2 < 18.5  # 4 degrees of freedom, p = 0.001


def test_holder_of_the_last_queen_loses():
    for seed in range(200):
        g = play_game(seed, 3)
        assert format_card(g.last_card) in ("Qd", "Qh", "Qs")
        assert g.last_card in g.hands[g.loser] or g.draws > 0
        replay_check(g)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
def test_engine_agrees_with_plain_reference(players, rules):
    for seed in range(60):
        dealer = seed % players
        g = play_game(seed * 7919 + 1, players, rules, dealer)
        dealt, kept, log, loser, last = reference_game(seed * 7919 + 1, players, dealer,
                                                       rules.colour, rules.joker, rules.jack)
        assert g.dealt == dealt and g.hands == kept
        assert [tuple(r) for r in g.log.tolist()] == log
        assert (g.loser, g.last_card) == (loser, last)


# --- Variants -------------------------------------------------------------------------------

def test_colour_pairs_must_share_colour():
    # 7h and 7c do not pair (red with black); 7d and 7s do not pair either.
    g = play_hands(hands_of("7h 7c", "7d 7s Qs"), COLOUR, dealer=0, seed=1)
    assert text(g.hands[0]) == text(parse_cards("7h 7c"))
    for seed in range(100):
        g = play_hands(hands_of("7h 7c", "7d 7s Qs"), COLOUR, dealer=0, seed=seed)
        for discarded in zip(*[iter(replay_check(g))] * 2):
            assert len({format_card(c)[1] in "dh" for c in discarded}) == 1
        assert format_card(g.last_card) == "Qs"
    with pytest.raises(ValueError, match="complete pairs"):
        play_hands(hands_of("7h 7c", "Qs"), COLOUR)
    # The same cards under the standard rule pair off at once.
    assert play_hands(hands_of("7h 7c", "7d 7s Qs")).hands[0] == []


def test_joker_variant_keeps_four_queens_and_the_joker_loses():
    for seed in range(100):
        for rules in (JOKER, OldMaidRules(colour=True, joker=True)):
            g = play_game(seed, 3, rules)
            assert g.last_card == JOKER_RED
            queens = [c for h in g.dealt for c in h if format_card(c)[0] == "Q"]
            assert len(queens) == 4
            replay_check(g)


def test_jack_variant_the_odd_jack_loses():
    for seed in range(100):
        g = play_game(seed, 4, JACK)
        assert format_card(g.last_card)[0] == "J"
        replay_check(g)
        g = play_game(seed, 2, OldMaidRules(colour=True, jack=True))
        assert format_card(g.last_card) == "Js"  # with colour pairs only the spade is unpaired


def test_hands_are_validated():
    with pytest.raises(ValueError, match="dealt twice"):
        play_hands(hands_of("5c Qh", "5c"))
    with pytest.raises(ValueError, match="not in the standard deck"):
        play_hands(hands_of("Qc Qh", "Qd"))
    with pytest.raises(ValueError, match="complete pairs"):
        play_hands(hands_of("5c", "6d"))
    with pytest.raises(ValueError, match="dealer must be a seat"):
        play_game(1, 3, dealer=3)


# --- Simulations ----------------------------------------------------------------------------

@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
def test_invariants_over_thousands_of_games(rules):
    games, n = 5000, 3
    rec = run_chunk(99, 0, games, {"players": n, "variants": list(rules.variants)})
    deck = len(rules.deck())
    pairs = rec["pairs"].astype(int)
    assert np.all(2 * pairs.sum(axis=1) + 1 == deck), "every card paired but the odd one"
    assert all(rules.is_odd_card(int(c)) for c in np.unique(rec["last_card"]))
    assert np.all(rec["draws"] >= pairs[:, 1]) and np.all((0 <= rec["loser"]) & (rec["loser"] < n))
    # Every card accounted for, game by game, in fully logged replays of some of these games.
    for i in range(0, games, 25):
        g = simulation_game(99, i, n, rules)
        assert sorted(c for h in g.dealt for c in h) == rules.deck().tolist()
        discarded = replay_check(g)
        at_deal = Counter(c for h in g.dealt for c in h) - Counter(c for h in g.hands for c in h)
        assert sorted(list(at_deal) + discarded + [g.last_card]) == rules.deck().tolist()
        assert (g.loser - g.dealer) % n == rec["loser"][i] and g.draws == rec["draws"][i]
        assert g.last_card == rec["last_card"][i]


def test_same_seed_same_results_whatever_the_job_count():
    a = simulate_records(5, 45_000, 3, JOKER, jobs=1)
    b = simulate_records(5, 45_000, 3, JOKER, jobs=2)
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k])
    c = simulate_records(6, 45_000, 3, JOKER, jobs=1)
    assert not np.array_equal(a["loser"], c["loser"])


def test_simulation_input_is_validated():
    with pytest.raises(ValueError, match="games must be a positive"):
        simulate_records(1, 0, 3)
    with pytest.raises(ValueError, match="seed"):
        simulate_records(-1, 10, 3)
    with pytest.raises(ValueError, match="2 to 4 players"):
        simulate_records(1, 10, 6)
