import pytest

from solver.core.cards import (CARDS_PER_DECK, JOKER_BLACK, JOKER_RED, MAX_CARDS, NATURAL_CARDS, RANK_OF,
                          SUIT_MASKS, SUIT_OF, card_deck, card_rank, card_suit, cards_of, format_card,
                          format_cards, is_joker, is_red, make_card, mask_of, parse_card, parse_cards)


def test_every_card_round_trips():
    for c in range(MAX_CARDS):
        assert parse_card(format_card(c)) == c
        assert parse_card(format_card(c).lower()) == c
        assert parse_card(format_card(c).upper()) == c


def test_named_layout():
    assert format_card(0) == "Ac" and format_card(12) == "Kc" and format_card(13) == "Ad"
    assert format_card(51) == "Ks" and format_card(JOKER_RED) == "RJ" and format_card(JOKER_BLACK) == "BJ"
    assert format_card(CARDS_PER_DECK + 9) == "Tc'"
    assert make_card(12, 3) == parse_card("Qs") == 50
    assert card_rank(parse_card("Td")) == 10 and card_suit(parse_card("Td")) == 1
    assert card_rank(JOKER_RED) == 0 and card_suit(JOKER_BLACK) == -1 and is_joker(JOKER_BLACK + 54)
    assert card_deck(parse_card("9h'")) == 1 and card_rank(parse_card("9h'")) == 9
    assert is_red(parse_card("2d")) and is_red(parse_card("Kh")) and not is_red(parse_card("As"))


def test_ten_spelled_10_and_any_case():
    assert parse_card("10h") == parse_card("Th") == parse_card("th") == parse_card("TH")
    assert parse_cards("10c, 2D  as") == [9, 14, 39]
    assert format_cards([9, 14, 39]) == "Tc 2d As"


@pytest.mark.parametrize("bad", ["", "1c", "11d", "Zs", "Ax", "A", "10", "RJ''", "Kdd"])
def test_bad_tokens_name_the_token(bad):
    with pytest.raises(ValueError) as e:
        parse_card(bad)
    assert repr(bad) in str(e.value)


def test_tables_and_masks():
    for c in range(MAX_CARDS):
        assert RANK_OF[c] == card_rank(c) and SUIT_OF[c] == card_suit(c)
    assert mask_of(range(13)) == int(SUIT_MASKS[0])
    assert cards_of(int(SUIT_MASKS[2])) == list(range(26, 39))
    assert sum(int(m) for m in SUIT_MASKS) == (1 << NATURAL_CARDS) - 1
