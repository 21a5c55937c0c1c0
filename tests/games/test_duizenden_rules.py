"""Duizenden: one test per rule sentence of docs/duizenden.md, on constructed situations."""

from __future__ import annotations

import pytest

from solver.core.cards import parse_card
from solver.games.duizenden.game import Variants, card_points, find_variants, play_round
from solver.games.duizenden.melds import (FLAG_DISCARD_LAST, FLAG_JOKER_EXCHANGE,
                                    FLAG_NO_OUT_ON_OPENING, FLAG_QUEEN_KEPT)
from solver.games.duizenden.rules import (KIND_JOKER, QS_KIND, Situation, discard_actions, kind_of,
                                    layoff_actions, meld_actions, meld_row, pot_actions,
                                    swap_actions)

H = 2  # hearts
FILLER = "2c 9d"  # two plain cards that meld with nothing below, so melds never empty the hand


def k(text: str) -> int:
    return kind_of(parse_card(text))


def melds(hand: str, **kw) -> list[tuple]:
    return meld_actions(Situation(hand=hand, **kw))


# --- cards and points -------------------------------------------------------------------------

def test_card_points():
    assert [card_points(parse_card(t)) for t in ("2c", "9h", "Td", "Jh", "Qc", "Kd", "Ah")] == \
        [5, 5, 10, 10, 10, 10, 20]
    assert card_points(parse_card("RJ")) == card_points(parse_card("BJ'")) == 25
    assert card_points(parse_card("Qs")) == card_points(parse_card("Qs'")) == 100


def test_deal_108_cards_13_each_and_open_card():
    for players in (2, 6):
        r = play_round(7, players)
        assert all(len(h) == 13 for h in r["hands"])
        cards = [c for h in r["hands"] for c in h] + [r["open_card"]] + r["stock"]
        assert sorted(cards) == list(range(108))


@pytest.mark.parametrize("players", [1, 7])
def test_player_count_bounds(players):
    with pytest.raises(ValueError, match="2 to 6 players"):
        play_round(1, players)


# --- melds ------------------------------------------------------------------------------------

def test_meld_needs_three_cards():
    assert melds("5h 6h " + FILLER) == []
    assert melds("5h 5d " + FILLER) == []


def test_run_consecutive_one_suit():
    assert ("run", H, 5, 7, ()) in melds("5h 6h 7h " + FILLER, opened=True)
    assert melds("5h 6h 7d " + FILLER, opened=True) == []
    assert melds("5h 6h 8h " + FILLER, opened=True) == []


def test_ace_low_or_high_never_both():
    assert melds("Ah 2h 3h " + FILLER, opened=True) == [("run", H, 1, 3, ())]
    assert melds("Qh Kh Ah " + FILLER, opened=True) == [("run", H, 12, 14, ())]
    assert melds("Kh Ah 2h " + FILLER, opened=True) == []  # K-A-2 is not a run
    full = "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah' " + FILLER
    runs = [m for m in melds(full, opened=True) if m[0] == "run"]
    assert ("run", H, 1, 13, ()) in runs and ("run", H, 2, 14, ()) in runs
    assert all(m[3] - m[2] + 1 <= 13 for m in runs)  # never A..K..A


def test_set_one_rank_with_duplicates():
    assert ("set", 5, (1, 0, 2, 0), 0) in melds("5c 5h 5h' " + FILLER, opened=True)
    assert melds("5c 6h 5h' " + FILLER, opened=True) == []


def test_jokers_fewer_than_half():
    assert melds("5h RJ BJ " + FILLER, opened=True) == []  # 2 of 3
    got = melds("5h 6h RJ BJ " + FILLER, opened=True)
    assert all(m[4] and len(m[4]) == 1 for m in got if m[0] == "run")  # never 2 of 4
    assert ("run", H, 4, 6, (4,)) in got and ("run", H, 5, 7, (7,)) in got
    five = melds("5h 6h 7h RJ BJ " + FILLER, opened=True)
    assert ("run", H, 3, 7, (3, 4)) in five  # 2 of 5 is fewer than half


def test_joker_stands_for_any_card():
    got = melds("5h 7h RJ " + FILLER, opened=True)
    assert ("run", H, 5, 7, (6,)) in got
    assert ("set", 5, (0, 0, 1, 0), 1) not in got  # one natural and a joker is 2 cards
    assert ("set", 7, (0, 0, 1, 0), 1) not in got


def test_layoff_keeps_jokers_fewer_than_half():
    table = [meld_row("5h RJ 7h", lo=5, owner=1)]
    s = Situation(hand="BJ 4h " + FILLER, table=table, opened=True)
    acts = layoff_actions(s)
    assert (0, k("4h"), 4) in acts
    assert all(kd != KIND_JOKER for _, kd, _ in acts)  # 2 jokers of 4
    table = [meld_row("5h RJ 7h 8h", lo=5)]
    acts = layoff_actions(Situation(hand="BJ " + FILLER, table=table, opened=True))
    assert (0, KIND_JOKER, 4) in acts and (0, KIND_JOKER, 9) in acts  # 2 of 5


def test_layoff_onto_any_players_meld_only_once_opened():
    table = [meld_row("5h 6h 7h", lo=5, owner=1), meld_row("Kc Kd Ks", owner=2)]
    hand = "8h Kh " + FILLER
    assert layoff_actions(Situation(hand=hand, table=table, opened=False)) == []
    acts = layoff_actions(Situation(hand=hand, table=table, opened=True))
    assert set(acts) == {(0, k("8h"), 8), (1, k("Kh"), 0)}


def test_layoff_run_ends_and_ace():
    table = [meld_row("Jh Qh Kh", lo=11)]
    acts = layoff_actions(Situation(hand="Ah Th " + FILLER, table=table, opened=True))
    assert set(acts) == {(0, k("Ah"), 14), (0, k("Th"), 10)}
    full = [meld_row("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh", lo=2)]
    acts = layoff_actions(Situation(hand="Ah " + FILLER, table=full, opened=True))
    assert set(acts) == {(0, k("Ah"), 1), (0, k("Ah"), 14)}  # either end, 13 cards
    closed = [meld_row("Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh", lo=1)]
    assert layoff_actions(Situation(hand="Ah' " + FILLER, table=closed, opened=True)) == []


def test_melds_on_table_never_rearranged():
    # A lay-off only adds at an end of a run: a card that would split or reorder it is refused.
    table = [meld_row("4h 5h 6h 7h", lo=4)]
    acts = layoff_actions(Situation(hand="5h' 6h' 2h " + FILLER, table=table, opened=True))
    assert acts == []


# --- opening ----------------------------------------------------------------------------------

def test_opening_needs_30_in_one_turn():
    # 15 points alone may not empty the hand of a player who has not opened ...
    assert melds("5h 6h 7h") == []
    # ... but may when this turn's provisional melds already hold 15 more, or once opened.
    assert melds("5h 6h 7h", provisional=15) == [("run", H, 5, 7, ())]
    assert melds("5h 6h 7h", opened=True, opening_turn=False) == [("run", H, 5, 7, ())]


def test_opening_below_30_is_taken_back_in_random_play():
    """In every logged round, a not-yet-opened player's melds of a turn either reach 30 (the
    'opened' event) or are all taken back at 'stop'."""
    from solver.games.duizenden.table import EV_DISCARD, EV_MELD, EV_NO_DISCARD, EV_OPENED, EV_UNDO
    checked = 0
    for seed in range(60):
        r = play_round(seed, 3, log=True)
        opened = set()
        pending = {}
        for row in r["events"]:
            ev, seat, a = int(row[0]), int(row[1]), int(row[2])
            if ev == EV_MELD and seat not in opened:
                pending[seat] = pending.get(seat, 0) + a
            elif ev == EV_OPENED:
                assert pending.pop(seat) == a >= 30
                opened.add(seat)
                checked += 1
            elif ev == EV_UNDO:
                assert pending.pop(seat) == int(row[3]) < 30
            elif ev in (EV_DISCARD, EV_NO_DISCARD):
                assert seat not in pending
    assert checked > 20


# --- the pot ----------------------------------------------------------------------------------

def test_taking_the_pot_needs_opening():
    s = dict(hand="7h 8h " + FILLER, pot="3c 9h")
    assert pot_actions(Situation(opened=False, **s)) == []
    assert pot_actions(Situation(opened=True, **s)) == [("run", H, 7, 9, ())]


def test_taking_the_pot_needs_two_hand_cards_and_the_top_card():
    # one matching hand card is not enough; a meld of hand cards alone does not take the pot
    assert pot_actions(Situation(hand="8h Kc Kd Ks " + FILLER, pot="9h", opened=True)) == []
    got = pot_actions(Situation(hand="8h 7h Kc Kd Ks " + FILLER, pot="Qd 9h", opened=True))
    assert got == [("run", H, 7, 9, ())]
    # the top card, not one below it
    assert pot_actions(Situation(hand="7h 8h " + FILLER, pot="9h 3c", opened=True)) == []


def test_taking_the_pot_with_a_joker_on_top():
    got = pot_actions(Situation(hand="7h 8h " + FILLER, pot="BJ", opened=True))
    assert set(got) == {("run", H, 6, 8, (6,)), ("run", H, 7, 9, (9,))}


# --- discarding and the queen of spades -------------------------------------------------------

def test_queen_of_spades_never_discarded_mid_round():
    assert QS_KIND not in discard_actions(Situation(hand="Qs 5h", opened=True))
    assert discard_actions(Situation(hand="Qs Qs'", opened=True)) == []


def test_queen_of_spades_may_go_out_as_last_discard():
    assert discard_actions(Situation(hand="Qs", opened=True, opening_turn=False)) == [QS_KIND]


def test_queen_of_spades_may_be_melded():
    assert ("set", 12, (1, 0, 1, 1), 0) in melds("Qc Qh Qs " + FILLER, opened=True)
    assert ("run", 3, 11, 13, ()) in melds("Js Qs Ks " + FILLER, opened=True)
    table = [meld_row("Qc Qd Qh")]
    assert layoff_actions(Situation(hand="Qs 5h", table=table, opened=True)) == \
        [(0, QS_KIND, 0)]


def test_melds_must_leave_a_legal_discard():
    # laying 5h 6h 7h would leave only the queen of spades and its twin: no legal discard
    assert melds("5h 6h 7h Qs Qs'", opened=True) == []
    assert melds("5h 6h 7h Qs", opened=True) == [("run", H, 5, 7, ())]


# --- going out --------------------------------------------------------------------------------

def test_going_out_by_melding_or_laying_off_the_last_cards():
    assert melds("5h 6h 7h", opened=True, opening_turn=False) == [("run", H, 5, 7, ())]
    table = [meld_row("5h 6h 7h", lo=5)]
    assert layoff_actions(Situation(hand="8h", table=table, opened=True)) == [(0, k("8h"), 8)]


def test_going_out_by_discarding_the_last_card():
    assert discard_actions(Situation(hand="8h", opened=True, opening_turn=False)) == [k("8h")]


# --- variants ---------------------------------------------------------------------------------

def test_variant_1_no_going_out_in_the_opening_turn():
    hand = "Ah Ad As Kh"  # 60 points; laying the aces leaves one card, discarded = out
    assert melds(hand) == [("set", 1, (0, 1, 1, 1), 0)]
    assert melds(hand, flags=FLAG_NO_OUT_ON_OPENING) == []
    assert melds(hand + " 4c", flags=FLAG_NO_OUT_ON_OPENING) != []
    s = Situation(hand="Kh", opened=True, opening_turn=True, flags=FLAG_NO_OUT_ON_OPENING)
    assert discard_actions(s) == []
    s = Situation(hand="Kh", opened=True, opening_turn=False, flags=FLAG_NO_OUT_ON_OPENING)
    assert discard_actions(s) == [k("Kh")]


def test_variant_2_joker_exchange():
    table = [meld_row("5h RJ 7h", lo=5, owner=1), meld_row("9c 9d BJ")]
    hand = "6h 9s 2c 4d"
    assert swap_actions(Situation(hand=hand, table=table, opened=True)) == []  # variant off
    acts = swap_actions(Situation(hand=hand, table=table, opened=True,
                                  flags=FLAG_JOKER_EXCHANGE))
    assert set(acts) == {(0, k("6h"), 1), (1, k("9s"), 2)}
    on = dict(table=table, flags=FLAG_JOKER_EXCHANGE)
    assert swap_actions(Situation(hand="5h 8h 2c 4d", opened=True, **on)) == []
    assert swap_actions(Situation(hand=hand, opened=False, **on)) == []


def test_variant_2_exchange_happens_only_with_the_option():
    from solver.games.duizenden.table import EV_SWAP
    def swaps(v):
        return sum(int((play_round(s, 2, v, log=True)["events"][:, 0] == EV_SWAP).sum())
                   for s in range(80))
    assert swaps(Variants()) == 0
    assert swaps(Variants(joker_exchange=True)) > 0


def test_variant_3_last_card_penalty():
    from solver.games.duizenden.table import EV_ANNOUNCE
    v = Variants(last_card=True, penalty=40)
    forgotten = 0
    for seed in range(40):
        r = play_round(seed, 3, v, log=True)
        ev = r["events"]
        for seat in range(3):
            miss = int(((ev[:, 0] == EV_ANNOUNCE) & (ev[:, 1] == seat) & (ev[:, 2] == 0)).sum())
            assert r["penalty"][seat] == 40 * miss
            forgotten += miss
    assert forgotten > 0
    assert all(p == 0 for s in range(40) for p in play_round(s, 3)["penalty"])


def test_variant_4_last_card_must_be_discarded():
    assert melds("5h 6h 7h", opened=True, opening_turn=False, flags=FLAG_DISCARD_LAST) == []
    table = [meld_row("5h 6h 7h", lo=5)]
    s = Situation(hand="8h", table=table, opened=True, opening_turn=False,
                  flags=FLAG_DISCARD_LAST)
    assert layoff_actions(s) == []
    assert discard_actions(s) == [k("8h")]


def test_variant_5_queen_of_spades_kept_even_last():
    s = Situation(hand="Qs", opened=True, opening_turn=False, flags=FLAG_QUEEN_KEPT)
    assert discard_actions(s) == []
    # and no meld may leave the queen alone in hand
    assert melds("5h 6h 7h Qs", opened=True, flags=FLAG_QUEEN_KEPT) == []


def test_find_variants_names_numbers_and_errors():
    v = find_variants(["joker-exchange", "5"], penalty=20)
    assert v.joker_exchange and v.queen_kept and not v.last_card and v.penalty == 20
    assert v.flags == FLAG_JOKER_EXCHANGE | FLAG_QUEEN_KEPT
    with pytest.raises(ValueError, match="unknown variant"):
        find_variants(["jokers"])
    with pytest.raises(ValueError, match="penalty"):
        Variants(penalty=-1)


def test_meld_row_rejects_non_melds():
    with pytest.raises(ValueError):
        meld_row("5h RJ BJ", lo=5)
    with pytest.raises(ValueError):
        meld_row("5h 6d 7h", lo=5)
    with pytest.raises(ValueError):
        meld_row("5h 6h 7h")


def test_highest_total_wins_ties_to_the_player_out_then_lowest_seat():
    import numpy as np

    from solver.games.duizenden.play import _winner
    t = np.array([1005, 900, 0, 0, 0, 0], dtype=np.int64)
    assert _winner(t, 2, 1) == 0  # highest total, whoever went out
    t = np.array([1000, 1020, 1020, 0, 0, 0], dtype=np.int64)
    assert _winner(t, 3, 2) == 2  # tied at the top: the one who went out
    assert _winner(t, 3, 0) == 1  # the player out is not among the tied: lowest tied seat
    assert _winner(t, 3, -1) == 1  # stock exhausted: lowest tied seat
