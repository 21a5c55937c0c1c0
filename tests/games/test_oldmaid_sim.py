"""Old Maid simulation held to exact 2-player results, and the per-deal analysis."""

from fractions import Fraction

import pytest

from reference.oldmaid import exact_two_player, mover_loses
from solver.core.cards import parse_card
from solver.games.oldmaid.engine import OldMaidRules, play_game
from solver.games.oldmaid.sim import analyse_deal, simulate
from solver.core.stats import wilson

Z999 = 3.2905
"""Two-sided 99.9% normal quantile. The runs are seeded, so each check is deterministic; the
wider interval keeps a correct engine from failing on an unlucky stream if the stream use ever
changes, while the interval is still far narrower than a wrong rule would need (checked below)."""


@pytest.mark.parametrize("variants", [(), ("colour",), ("joker",), ("jack",), ("colour", "joker")])
def test_two_player_dealer_loss_matches_exact_recursion(variants):
    rules = OldMaidRules(**{v: True for v in variants})
    games = 400_000 if not variants else 200_000
    res = simulate(2024, games, 2, rules)
    exact = float(exact_two_player(**{v: True for v in variants}))
    dealer = res["loss"][0]
    ci = wilson(dealer["losses"], games, z=Z999)
    assert ci["lo"] <= exact <= ci["hi"], (rules.name, dealer["p"], exact)
    assert res["loss"][1]["losses"] == games - dealer["losses"]
    if not variants:
        # The test can tell a wrong rule apart: if the dealer started, the dealer would lose
        # with a probability far outside the interval (and the 95% interval holds the exact value).
        wrong = float(exact_two_player(dealer_starts=True))
        assert not ci["lo"] <= wrong <= ci["hi"]
        assert dealer["lo"] <= exact <= dealer["hi"]


def test_exact_recursion_small_cases():
    # m = 0: the holder of the odd card has lost already.
    assert mover_loses(0, True) == 1 and mover_loses(0, False) == 0
    # m = 1, mover without the odd card, other holds {match, odd}: draw the match (1/2) and win,
    # or draw the odd card (1/2) and the other, holding just the match, is in the same spot.
    # f = 1/2 * (1 - f)  ->  f = 1/3.
    assert mover_loses(1, False) == Fraction(1, 3)
    # m = 1, mover holds the odd card: the pair is sure, the other is left without cards.
    assert mover_loses(1, True) == 1


def test_analyse_two_player_deal_matches_exact_value():
    seed, trials = 31, 200_000
    g = play_game(seed, 2, dealer=0)
    rules = g.rules
    starter = g.hands[1]
    m = sum(1 for c in starter if not rules.is_odd_card(c))
    starter_odd = any(rules.is_odd_card(c) for c in starter)
    assert m >= 5  # a deal with some play in it
    exact_dealer = float(1 - mover_loses(m, starter_odd))
    res = analyse_deal(seed, 2, trials)
    ci = wilson(res["loss"][0]["losses"], trials, z=Z999)
    assert ci["lo"] <= exact_dealer <= ci["hi"]
    assert [sorted(parse_card(c) for c in h["cards"]) for h in res["hands"]] == g.hands


def test_analyse_is_reproducible_whatever_the_job_count():
    a = analyse_deal(8, 3, 45_000, OldMaidRules(colour=True), dealer=2, jobs=1)
    b = analyse_deal(8, 3, 45_000, OldMaidRules(colour=True), dealer=2, jobs=2)
    assert a == b
    assert a["dealer"] == 2 and a["trials"] == 45_000
    assert sum(d["losses"] for d in a["loss"]) == 45_000


def test_analyse_keeps_the_deal_fixed():
    # Seat order of the hands: seat 0 is the dealer; the hands are those of 'show'.
    g = play_game(8, 4, dealer=1)
    res = analyse_deal(8, 4, 1000, dealer=1)
    assert [h["player"] for h in res["hands"]] == [1, 2, 3, 0]
    assert [len(h["cards"]) for h in res["hands"]] == [len(g.hands[p]) for p in (1, 2, 3, 0)]
    with pytest.raises(ValueError, match="trials must be a positive"):
        analyse_deal(8, 4, 0)
