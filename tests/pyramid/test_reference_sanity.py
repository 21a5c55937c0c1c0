"""The reference solver agrees with itself and with the replay checker on small positions."""

from __future__ import annotations

import pytest

from reference.pyramid import (LOST, endgame_position, reference_shortest, reference_shortest_from,
                       reference_winnable, reference_winnable_from)
from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.model.layout import COVER_MASK, PYRAMID_CARDS
from solver.pyramid.model.replay import Position, replay, replay_from
from solver.pyramid.model.rules import PRESETS, Rules

POSITIONS_PER_PRESET = 50


def endgames(preset: str):
    rules = PRESETS[preset]
    for i in range(POSITIONS_PER_PRESET):
        deal = deal_from_seed(1000 + i)
        # 10..16 stock cards: enough partners that a fair share of the positions can be won
        yield endgame_position(deal, rules, seed=i, pyramid_left=4 + i % 5, stock_left=10 + i % 7)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_shortest_agrees_with_winnable_and_replays(preset):
    outcomes = {"won": 0, "lost": 0}
    for pos in endgames(preset):
        win = reference_winnable_from(pos)
        length, path = reference_shortest_from(pos, return_path=True)
        assert win in (True, False)
        if win:
            outcomes["won"] += 1
            assert isinstance(length, int) and length >= (pos.pyramid_left() + 1) // 2
            assert len(path) == length
            res = replay_from(pos, path)
            assert res.ok and res.won and res.moves == length, res.message()
            # no prefix of a shortest path is already a win
            assert not replay_from(pos, path[:-1]).won
        else:
            outcomes["lost"] += 1
            assert length == LOST and path is None
    # the sample holds both outcomes, so both branches above were exercised
    assert outcomes["won"] >= 5 and outcomes["lost"] >= 5, outcomes


def test_endgame_position_respects_covering_and_is_seeded():
    rules = PRESETS["standard"]
    deal = deal_from_seed(7)
    for seed in range(30):
        pos = endgame_position(deal, rules, seed, pyramid_left=seed % 29)
        assert pos.pyramid_left() == seed % 29
        for p in range(PYRAMID_CARDS):
            if not pos.present >> p & 1:          # a gone card's covers are gone too
                assert not pos.present & int(COVER_MASK[p])
        assert len(pos.stock) + len(pos.waste) <= 12 and pos.recycles_used == 0
        stock_order = [int(c) for c in deal[PYRAMID_CARDS:]]
        kept = pos.waste + pos.stock[::-1]        # first pass order: waste bottom .. stock top .. bottom
        assert kept == [c for c in stock_order if c in kept]
        assert endgame_position(deal, rules, seed, seed % 29).key() == pos.key()
    pos = endgame_position(deal, rules, 3, pyramid_left=6, stock_left=5, drawn=2)
    assert (pos.pyramid_left(), len(pos.stock), len(pos.waste)) == (6, 3, 2)
    with pytest.raises(ValueError):
        endgame_position(deal, rules, 3, pyramid_left=29)


def test_limits_give_none_not_a_verdict():
    deal = deal_from_seed(11)
    rules = Rules()
    assert reference_winnable(deal, rules, max_states=50) is None
    assert reference_shortest(deal, rules, max_states=50) is None
    assert reference_shortest(deal, rules, max_states=50, return_path=True) == (None, None)


def test_won_start_is_zero_moves():
    pos = endgame_position(deal_from_seed(5), PRESETS["standard"], 0, pyramid_left=0)
    assert reference_winnable_from(pos) is True
    assert reference_shortest_from(pos, return_path=True) == (0, [])
    # under goal "all" the same position still needs the stock and waste cleared
    pos_all = Position(deal_from_seed(5), Rules(goal="all"))
    assert not pos_all.is_won()
    assert replay(deal_from_seed(5), Rules(goal="all"), []).won is False
