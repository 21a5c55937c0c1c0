"""The replay checker against every rule sentence of docs/pyramid.md it can show.

Deals are built by hand (``make_deal``) so that the situation under test arises; cards not named
fill the other places in card-id order.
"""

from __future__ import annotations

import pytest

from solver.core.cards import card_rank, format_card, make_card, parse_card
from solver.pyramid.model.layout import BELOW, COVERED_BY, PYRAMID_CARDS
from solver.pyramid.model.replay import (IllegalMove, Position, ReplayResult,
                           format_solution, format_step, parse_solution, parse_step, replay,
                           replay_from, replay_text)
from solver.pyramid.model.rules import PRESETS, Rules

C = parse_card
STANDARD = PRESETS["standard"]


def make_deal(pyramid: dict[int, str] | None = None, stock: list[str] | None = None) -> list[int]:
    """A 52-card deal with the given pyramid positions and stock (top first); the cards not named
    fill the remaining pyramid positions, then the rest of the stock, in card-id order."""
    pyramid = pyramid or {}
    stock = stock or []
    named = [C(t) for t in pyramid.values()] + [C(t) for t in stock]
    assert len(set(named)) == len(named), "a card is named twice"
    rest = iter(c for c in range(52) if c not in named)
    pyr = [C(pyramid[p]) if p in pyramid else next(rest) for p in range(PYRAMID_CARDS)]
    return pyr + [C(t) for t in stock] + list(rest)


def steps(text: str) -> list[tuple]:
    return parse_solution(text)


def play(deal, rules, text) -> Position:
    """The position after ``text``, every step of which must be legal."""
    res = replay_text(deal, rules, text)
    assert res.ok, res.reason
    return res.position


def refused(pos: Position, step_text: str, *fragments: str) -> None:
    """``step_text`` is illegal in ``pos`` with a reason containing every fragment, and it is
    not among the legal steps."""
    step = parse_step(step_text)
    with pytest.raises(IllegalMove) as e:
        pos.copy().apply(step)
    for f in fragments:
        assert f in str(e.value), (str(e.value), f)
    assert not _listed(pos, step)


def _listed(pos: Position, step) -> bool:
    if step[0] == "pair":
        return any(s[0] == "pair" and set(s[1:]) == set(step[1:]) for s in pos.legal_steps())
    return step in pos.legal_steps()


def allowed(pos: Position, step_text: str) -> Position:
    """``step_text`` is legal in ``pos`` (and listed by legal_steps); the position after it."""
    step = parse_step(step_text)
    assert _listed(pos, step), (step_text, [format_step(s) for s in pos.legal_steps()])
    new = pos.copy()
    new.apply(step)
    return new


# --------------------------------------------------------------------------- solution text

def test_parse_step_kinds_and_case():
    assert parse_step("draw") == ("draw",) == parse_step("DRAW")
    assert parse_step("Recycle") == ("recycle",)
    assert parse_step("kd") == ("king", C("Kd"))
    assert parse_step("10h+3C") == ("pair", C("Th"), C("3c"))
    assert parse_step("6h+7c") == ("pair", make_card(6, 2), make_card(7, 0))


@pytest.mark.parametrize("text", ["draw recycle Kd 6h+7c Th+3c Ac+Qs", "draw,recycle, Ks"])
def test_solution_round_trip(text):
    s = parse_solution(text)
    assert parse_solution(format_solution(s)) == s
    assert format_solution(s) == " ".join(format_step(x) for x in s)


def test_format_keeps_pair_order_and_upper_rank():
    assert format_step(("pair", C("7c"), C("6h"))) == "7c+6h"
    assert format_step(("pair", C("6h"), C("7c"))) == "6h+7c"
    assert format_step(("king", C("kd"))) == "Kd"
    assert format_solution([("draw",), ("recycle",), ("pair", C("10d"), C("3s"))]) == "draw recycle Td+3s"


def test_every_step_round_trips():
    tokens = ["draw", "recycle"] + [format_card(c) for c in range(52)]
    tokens += [format_card(a) + "+" + format_card(b) for a in range(0, 52, 5) for b in range(1, 52, 7) if a != b]
    for t in tokens:
        assert format_step(parse_step(t)) == t


@pytest.mark.parametrize("bad, number", [("draw 6h+6h", 2), ("draw draw 6h+", 3), ("foo", 1),
                                         ("draw, Kd, +7c", 3), ("Ac+2c+Jd", 1), ("draw 1h", 2),
                                         ("RJ", 1), ("Kd'", 1), ("draw Xx+7c", 2)])
def test_parse_error_names_token_and_step(bad, number):
    with pytest.raises(ValueError) as e:
        parse_solution(bad)
    msg = str(e.value)
    assert msg.startswith(f"step {number} ")
    assert repr(bad.replace(",", " ").split()[number - 1]) in msg


def test_format_rejects_non_steps():
    for bad in [(), ("draw", 1), ("king",), ("pair", 1), ("jump",)]:
        with pytest.raises(ValueError):
            format_step(bad)


def test_replay_text_parse_error_is_value_error():
    with pytest.raises(ValueError, match="step 1 'foo'"):
        replay_text(make_deal(), STANDARD, "foo")


# --------------------------------------------------------------------------- layout and availability

def test_start_position():
    deal = make_deal({21: "Kd"}, ["5c", "6c"])
    pos = Position(deal, STANDARD)
    assert pos.pyramid_left() == 28 and pos.waste == [] and pos.recycles_used == 0
    assert pos.stock[-1] == C("5c") and pos.stock[-2] == C("6c") and len(pos.stock) == 24
    # Available at the start: the 7 bottom-row cards (the bottom row is uncovered), nothing else.
    assert pos.available() == [deal[p] for p in range(21, 28)]


def test_covered_card_refused():
    # Qd in row 5 (position 15) is covered by 21 and 22; Ac is on the bottom row.
    deal = make_deal({15: "Qd", 21: "5h", 22: "8h", 23: "Ac"})
    pos = Position(deal, STANDARD)
    refused(pos, "Qd+Ac", "Qd is covered by 5h and 8h")
    pos = allowed(pos, "5h+8h")
    assert pos.available()[0] == C("Qd")          # uncovered once both covers are gone
    allowed(pos, "Qd+Ac")


def test_half_uncovered_card_is_still_covered():
    deal = make_deal({16: "Qd", 22: "5h", 21: "8h", 23: "2c", 24: "Jc", 25: "Ac"})
    pos = Position(deal, STANDARD)
    pos = allowed(pos, "5h+8h")                   # 16 is covered by 22 and 23: 23 still there
    refused(pos, "Qd+Ac", "Qd is covered by 2c")


def test_stock_top_hidden_by_default():
    deal = make_deal({21: "Qd", 22: "Kh"}, ["Ac", "Ks"])
    pos = Position(deal, STANDARD)
    refused(pos, "Qd+Ac", "Ac is not available", "draw it first")
    assert C("Ac") not in pos.available()


def test_stock_top_available_with_option():
    rules = Rules(stock_top=True)
    deal = make_deal({21: "Qd", 22: "2h"}, ["Ac", "Ks", "Jc", "Qs"])
    pos = Position(deal, rules)
    assert C("Ac") in pos.available()
    after = allowed(pos, "Qd+Ac")                 # stock top with an uncovered pyramid card
    assert after.stock[-1] == C("Ks") and after.pyramid_left() == 27 and after.waste == []
    after = allowed(after, "Ks")                  # stock-top king alone
    after = allowed(after, "2h+Jc")
    # stock top with the top waste card
    pos = play(deal, rules, "draw")               # Ac on the waste, Ks on the stock top
    pos = play(deal, rules, "draw draw")          # waste Ac Ks, stock top Jc
    pos.apply(parse_step("Ks"))                   # waste top Ac again
    refused(pos, "Ac+Qs", "Qs is not available", "not on top")
    pos = play(deal, rules, "draw draw Ks draw")  # waste Ac Jc, stock top Qs
    refused(pos, "Ac+Qs", "Ac is not available", "in the waste under Jc")


def test_stock_card_below_top_refused_even_with_option():
    deal = make_deal({21: "Qd"}, ["5c", "Ac"])
    pos = Position(deal, Rules(stock_top=True))
    refused(pos, "Qd+Ac", "Ac is not available", "in the stock, not on top")


def test_waste_top_pairs_with_pyramid_card():
    deal = make_deal({21: "Qd", 22: "Jh"}, ["Ac", "2c"])
    pos = play(deal, STANDARD, "draw")
    assert pos.waste == [C("Ac")] and C("Ac") in pos.available()
    after = allowed(pos, "Ac+Qd")
    assert after.waste == [] and after.pyramid_left() == 27
    # only the top waste card is available
    pos = play(deal, STANDARD, "draw draw")
    refused(pos, "Qd+Ac", "Ac is not available", "in the waste under 2c")
    allowed(pos, "2c+Jh")


def test_no_move_between_waste_cards_or_stock_cards():
    deal = make_deal({21: "5h"}, ["Ac", "Qc", "Jd", "2d"])
    pos = play(deal, STANDARD, "draw draw")       # waste Ac Qc
    refused(pos, "Ac+Qc", "Ac is not available")
    pos = play(deal, STANDARD, "draw draw draw")  # waste Ac Qc Jd, stock top 2d
    refused(pos, "Jd+2d", "2d is not available")  # waste top with the (hidden) stock top
    pos = Position(deal, Rules(stock_top=True))
    refused(pos, "Ac+Qc", "Qc is not available", "not on top")


def test_two_uncovered_pyramid_cards_pair():
    deal = make_deal({21: "6h", 27: "7c"})
    pos = Position(deal, STANDARD)
    after = allowed(pos, "7c+6h")
    assert after.pyramid_left() == 26 and len(after.stock) == 24


@pytest.mark.parametrize("a", range(1, 14))
@pytest.mark.parametrize("b", range(1, 14))
def test_the_13_sum(a, b):
    x, y = make_card(a, 0), make_card(b, 1)
    deal = make_deal({21: format_card(x), 24: format_card(y)})
    pos = Position(deal, STANDARD)
    text = f"{format_card(x)}+{format_card(y)}"
    if a + b == 13:
        allowed(pos, text)
    else:
        refused(pos, text, "do not sum to 13")


def test_removed_card_is_not_in_play():
    deal = make_deal({21: "6h", 22: "7c", 23: "7d"})
    pos = play(deal, STANDARD, "6h+7c")
    refused(pos, "6h+7d", "6h is not in play")
    with pytest.raises(IllegalMove, match="two different cards"):
        Position(deal, STANDARD).apply(("pair", C("7c"), C("7c")))


# --------------------------------------------------------------------------- overlap pairs

def overlap_deal():
    # 15 is covered by 21 (6h) and 22 (5h); 22 pairs with 23 (8h); 15 is 7c.
    return make_deal({15: "7c", 21: "6h", 22: "5h", 23: "8h", 10: "7s", 16: "Ts", 24: "3d"})


def test_overlap_pair_needs_other_cover_gone():
    pos = Position(overlap_deal(), STANDARD)
    refused(pos, "6h+7c", "7c is covered by 5h", "other cover")
    pos = allowed(pos, "5h+8h")
    after = allowed(pos, "6h+7c")                 # 6h covers 7c directly, 5h is gone
    assert after.pyramid_left() == 24
    assert ("pair", C("7c"), C("6h")) in pos.legal_steps()
    allowed(pos, "7c+6h")                         # either order


def test_overlap_pair_only_with_option():
    rules = Rules(overlap=False)
    pos = play(overlap_deal(), rules, "5h+8h")
    refused(pos, "6h+7c", "overlap pairs are off")


def test_overlap_pair_covering_card_must_be_uncovered():
    # 10 (7s) is covered by 15 (6d) and 16 (Ts); 15 is covered by 21 (Ah) and 22 (5h);
    # 16 by 22 and 23 (8h). 24 (3d) pairs with Ts, 25 (Qs) with Ah.
    deal = make_deal({10: "7s", 15: "6d", 16: "Ts", 21: "Ah", 22: "5h", 23: "8h", 24: "3d",
                      25: "Qs"})
    pos = play(deal, STANDARD, "5h+8h 3d+Ts")    # 16 gone: 10's other cover is gone
    refused(pos, "6d+7s", "6d is covered by Ah")  # but 6d itself is still covered by 21
    pos = allowed(pos, "Ah+Qs")
    after = allowed(pos, "6d+7s")
    assert after.present & (1 << 10 | 1 << 15) == 0


def test_overlap_only_with_direct_cover():
    # 24 covers 17 directly and 11 indirectly; 11 and 24 pair but only 17/18 may overlap with 24.
    deal = make_deal({24: "6h", 11: "7c", 17: "Kd"})
    pos = Position(deal, STANDARD)
    refused(pos, "6h+7c", "7c is covered by")


# --------------------------------------------------------------------------- kings

def test_king_alone_from_pyramid():
    deal = make_deal({21: "Kd", 15: "Kc", 22: "Ah"})
    pos = Position(deal, STANDARD)
    refused(pos, "Kc", "Kc is covered by Kd and Ah")
    after = allowed(pos, "Kd")
    assert after.pyramid_left() == 27
    refused(after, "Kc", "Kc is covered by Ah")
    refused(pos, "Ah", "Ah is not a king")


def test_king_alone_from_waste():
    deal = make_deal({}, ["Ks", "5c"])
    pos = play(deal, STANDARD, "draw")
    after = allowed(pos, "Ks")
    assert after.waste == [] and after.pyramid_left() == 28
    pos = play(deal, STANDARD, "draw draw")
    refused(pos, "Ks", "Ks is not available", "in the waste under 5c")
    refused(Position(deal, STANDARD), "Ks", "Ks is not available", "draw it first")


def test_kings_never_pair():
    deal = make_deal({21: "Kd", 22: "Ac"})
    refused(Position(deal, STANDARD), "Kd+Ac", "do not sum to 13")


# --------------------------------------------------------------------------- draw and recycle

def test_draw_turns_top_stock_card_onto_waste():
    deal = make_deal({}, ["5c", "9d"])
    pos = Position(deal, STANDARD)
    pos = allowed(pos, "draw")
    assert pos.waste == [C("5c")] and pos.stock[-1] == C("9d") and len(pos.stock) == 23
    pos = play(deal, STANDARD, " ".join(["draw"] * 24))
    assert pos.stock == [] and len(pos.waste) == 24
    refused(pos, "draw", "the stock is empty")


def test_recycle_only_with_empty_stock_and_nonempty_waste():
    deal = make_deal()
    pos = play(deal, STANDARD, "draw")
    refused(pos, "recycle", "the stock is not empty (23 cards left)")
    pos = play(deal, STANDARD, " ".join(["draw"] * 24))
    after = allowed(pos, "recycle")
    assert after.recycles_used == 1 and after.waste == [] and len(after.stock) == 24
    # stock and waste both empty (every stock card removed): no recycle
    pos = Position(deal, STANDARD)
    pos.stock, pos.waste = [], []
    refused(pos, "recycle", "the waste is empty")
    assert pos.legal_steps() == [s for s in pos.legal_steps() if s[0] == "pair" or s[0] == "king"]


def test_recycle_keeps_the_order():
    # Stock Ac 2c Jh ... ; Jh pairs with 2d on the bottom row, so one card leaves the waste.
    stock = ["Ac", "2c", "Jh", "3c", "4c"]
    deal = make_deal({21: "2d"}, stock)
    first = [deal[28 + i] for i in range(24)]
    pos = play(deal, STANDARD, "draw draw draw 2d+Jh " + " ".join(["draw"] * 21) + " recycle")
    second = []
    while pos.stock:
        pos.apply(("draw",))
        second.append(pos.waste[-1])
    assert second == [c for c in first if c != C("Jh")]
    # and again after a second recycle
    pos.apply(("recycle",))
    third = []
    while pos.stock:
        pos.apply(("draw",))
        third.append(pos.waste[-1])
    assert third == second


def one_pass():
    return " ".join(["draw"] * 24)


def test_recycles_zero_is_one_pass():
    deal = make_deal()
    pos = play(deal, Rules(recycles=0), one_pass())
    refused(pos, "recycle", "no recycles left")
    assert pos.legal_steps() == [s for s in pos.legal_steps() if s[0] in ("pair", "king")]


def test_recycles_two_is_three_passes():
    deal = make_deal()
    rules = Rules(recycles=2)
    text = " recycle ".join([one_pass()] * 3)
    pos = play(deal, rules, text)
    assert pos.recycles_used == 2
    refused(pos, "recycle", "no recycles left (these rules allow 2)")
    res = replay_text(deal, rules, text + " recycle")
    assert not res.ok and res.failed_step == 3 * 24 + 2 + 1


def test_recycles_unlimited_by_default():
    deal = make_deal()
    pos = play(deal, STANDARD, " recycle ".join([one_pass()] * 70))
    assert pos.recycles_used == 69
    allowed(pos, "recycle")
    # an unlimited count does not enter the key; a limited one does
    assert pos.key() == play(deal, STANDARD, one_pass()).key()
    limited = Rules(recycles=5)
    assert (play(deal, limited, one_pass()).key()
            != play(deal, limited, one_pass() + " recycle " + one_pass()).key())


# --------------------------------------------------------------------------- goal

def fourteen_pair_deal() -> tuple[list[int], list[tuple]]:
    """A deal whose 28 pyramid cards go in 14 pairs with no stock card: positions (27, 26),
    (25, 24), ..., (3, 2) are pairs of uncovered cards, and (1, 0) is an overlap pair (2 is gone
    by then). Pair types A/Q, 2/J, 3/T (four of each) and 4/9 (two), so the stock holds only
    4, 9 (two each), 5..8 and kings."""
    kinds = [(1, 12)] * 4 + [(2, 11)] * 4 + [(3, 10)] * 4 + [(4, 9)] * 2
    used: dict[int, int] = {}
    pyramid: dict[int, str] = {}
    solution = []
    for i, (a, b) in enumerate(kinds):
        suit = used.get(a, 0)
        used[a] = suit + 1
        ca, cb = make_card(a, suit), make_card(b, (suit + 1) % 4)
        hi = PYRAMID_CARDS - 1 - 2 * i
        pyramid[hi], pyramid[hi - 1] = format_card(ca), format_card(cb)
        solution.append(("pair", ca, cb))
    return make_deal(pyramid), solution


def test_fourteen_pair_deal_replays():
    deal, solution = fourteen_pair_deal()
    res = replay(deal, STANDARD, solution)
    assert res.ok and res.won and res.moves == 14 and res.position.pyramid_left() == 0
    assert res.message() == "won in 14 moves"
    # The last pair is an overlap pair: not allowed without the option.
    res = replay(deal, Rules(overlap=False), solution)
    assert not res.ok and res.failed_step == 14 and "overlap pairs are off" in res.reason


def test_goal_pyramid_ignores_stock_and_waste():
    deal, solution = fourteen_pair_deal()
    res = replay(deal, STANDARD, [("draw",)] * 3 + solution)
    assert res.won and len(res.position.stock) == 21 and len(res.position.waste) == 3


def test_goal_all_needs_all_52_cards():
    deal, solution = fourteen_pair_deal()
    rules = Rules(goal="all")
    res = replay(deal, rules, solution)
    assert res.ok and not res.won and res.position.pyramid_left() == 0
    assert res.message().startswith("legal but not won")
    # With the pyramid gone only kings can still leave: put the position's stock to two kings.
    pos = res.position
    pos.stock, pos.waste = [C("Ks"), C("Kd")], [C("Kh")]
    assert not pos.is_won()
    for t in ["Kh", "draw", "Kd"]:
        pos = allowed(pos, t)
        assert not pos.is_won()
    pos = allowed(pos, "draw")
    assert not pos.is_won()
    pos = allowed(pos, "Ks")
    assert pos.is_won() and pos.legal_steps() == []


def test_no_step_after_the_win():
    deal, solution = fourteen_pair_deal()
    res = replay(deal, STANDARD, solution + [("draw",)])
    assert not res.ok and res.won and res.failed_step == 15 and res.moves == 14
    assert "already won" in res.reason


# --------------------------------------------------------------------------- replay results

def test_replay_stops_at_first_illegal_step():
    deal = make_deal({21: "6h", 22: "7c", 23: "8d", 24: "5s"})
    res = replay_text(deal, STANDARD, "draw 6h+7c 8d+6h 5s+8d")
    assert isinstance(res, ReplayResult)
    assert (res.ok, res.won, res.moves, res.failed_step) == (False, False, 2, 3)
    assert res.reason == "6h is not in play (already removed)"
    assert res.message() == "step 3 is illegal: 6h is not in play (already removed)"
    assert res.position.pyramid_left() == 26 and res.position.waste == [deal[28]]


def test_replay_accepts_numpy_cards_and_rejects_bad_ids():
    import numpy as np
    deal = make_deal({21: "6h", 22: "7c"})
    res = replay(np.array(deal), STANDARD, [("pair", np.int64(C("6h")), np.int64(C("7c")))])
    assert res.ok and res.position.pyramid_left() == 26
    res = replay(deal, STANDARD, [("king", 60)])
    assert not res.ok and "not a card" in res.reason
    res = replay(deal, STANDARD, [("jump",)])
    assert not res.ok and "not a step" in res.reason


def test_replay_from_leaves_start_alone():
    deal = make_deal({21: "6h", 22: "7c"})
    start = play(deal, STANDARD, "draw")
    key = start.key()
    res = replay_from(start, [("pair", C("6h"), C("7c")), ("draw",)])
    assert res.ok and res.moves == 2 and res.position.pyramid_left() == 26
    assert start.key() == key and len(start.waste) == 1


def test_position_rejects_bad_input():
    with pytest.raises(ValueError):
        Position(list(range(51)), STANDARD)
    with pytest.raises(ValueError):
        Position(list(range(52)), "standard")


def test_legal_steps_all_apply_and_match_check():
    """On random walks of seeded deals under every option set, each listed step applies, and
    every conceivable step that is not listed is refused."""
    import random
    from itertools import product
    from solver.pyramid.model.deals import deal_from_seed
    every = [("draw",), ("recycle",)] + [("king", c) for c in range(52)]
    # every pair summing to 13, and every 7th other pair (refused for the sum, checked above)
    every += [("pair", a, b) for a in range(52) for b in range(a + 1, 52)
              if card_rank(a) + card_rank(b) == 13 or (a * 52 + b) % 7 == 0]
    for seed, (rec, ov, st) in enumerate(product([None, 0, 1], [True, False], [True, False])):
        goal = ("pyramid", "all")[seed % 2]
        rules = Rules(recycles=rec, overlap=ov, stock_top=st, goal=goal)
        pos = Position(deal_from_seed(seed), rules)
        rng = random.Random(seed)
        for _ in range(80):
            legal = pos.legal_steps()
            assert len(set(legal)) == len(legal)
            norm = {s if s[0] != "pair" else ("pair",) + tuple(sorted(s[1:])) for s in legal}
            for s in every:
                ok = True
                try:
                    pos.check(s)
                except IllegalMove:
                    ok = False
                assert ok == (s in norm), (rules, format_step(s), ok)
            if not legal:
                break
            pos.apply(rng.choice(legal))


# --------------------------------------------------------------------------- the reference solver

def test_reference_finds_the_fourteen_move_win():
    from reference.pyramid import reference_shortest, reference_winnable
    deal, _ = fourteen_pair_deal()
    length, path = reference_shortest(deal, STANDARD, max_states=500_000, return_path=True)
    assert length == 14 and len(path) == 14
    assert all(s[0] == "pair" for s in path)     # no stock card: 14 pyramid pairs
    res = replay(deal, STANDARD, path)
    assert res.ok and res.won and res.moves == 14
    assert reference_winnable(deal, STANDARD, max_states=500_000) is True


def inert_deal() -> list[int]:
    """No pyramid card can ever leave: the bottom row is A A 2 2 3 3 4, all their partners
    (Q J T 9) sit higher in the pyramid, and the stock holds only 3, 4, 5..8 and kings, none of
    which pairs with a bottom-row card."""
    upper = [r + s for r in "QJT9" for s in "cdhs"] + ["Ah", "As", "2h", "2s", "3h"]
    pyramid = dict(enumerate(upper))
    pyramid.update({21 + i: c for i, c in enumerate(["Ac", "Ad", "2c", "2d", "3c", "3d", "4c"])})
    stock = ["3s", "4d", "4h", "4s"] + [r + s for r in "5678" for s in "cdhs"] + ["K" + s for s in "cdhs"]
    return make_deal(pyramid, stock)


@pytest.mark.parametrize("rules", [STANDARD, Rules(recycles=2)])
def test_reference_reports_lost_deal(rules):
    from reference.pyramid import LOST, reference_shortest, reference_winnable
    deal = inert_deal()
    assert reference_winnable(deal, rules, max_states=200_000) is False
    assert reference_shortest(deal, rules, max_states=200_000, return_path=True) == (LOST, None)


def test_reference_lost_when_a_card_covers_all_its_partners():
    """Qd on the bottom row (24) covers all four aces (7, 11, 12, 13), none of them directly, so
    it can never be paired. Full pyramid, eight stock cards."""
    from reference.pyramid import (LOST, endgame_position, reference_shortest_from,
                           reference_winnable_from)
    deal = make_deal({24: "Qd", 7: "Ac", 11: "Ad", 12: "Ah", 13: "As"})
    assert all(BELOW[24] >> p & 1 for p in (7, 11, 12, 13))
    assert all(24 not in COVERED_BY[p] for p in (7, 11, 12, 13))     # no overlap pair either
    pos = endgame_position(deal, STANDARD, seed=1, pyramid_left=28, stock_left=8, drawn=0)
    assert reference_winnable_from(pos) is False
    assert reference_shortest_from(pos) == LOST
    # Control: the same position with the ace at 7 swapped with the card at 27 (uncovered).
    swapped = list(deal)
    swapped[7], swapped[27] = swapped[27], swapped[7]
    pos2 = endgame_position(swapped, STANDARD, seed=1, pyramid_left=28, stock_left=8, drawn=0)
    assert ("pair", C("Qd"), C("Ac")) in pos2.legal_steps()


def test_the_verdict_counts_one_move_in_the_singular():
    from solver.pyramid.model.deals import deal_from_seed

    deal = deal_from_seed(1)
    assert replay(deal, STANDARD, [("draw",)]).message() == \
        "legal but not won: 1 move, 28 pyramid cards left"
    assert replay(deal, STANDARD, [("draw",)] * 2).message() == \
        "legal but not won: 2 moves, 28 pyramid cards left"
