"""One Card simulation: invariants on every simulated round, agreement with the plain-Python
reference game for game, reproducibility across job counts, and the statistics."""

import numpy as np
import pytest

from reference import onecard as ref
from solver.games.onecard import sim as onecard_sim
from solver.games.onecard.engine import MAX_BID, MIN_BID, TARGET, OneCardRules, game_winner
from solver.games.onecard.sim import (RC_BID, RC_BIDDER, RC_CAPTURED, RC_DEALER, RC_LAST, RC_LEADER,
                                RC_LEFT, RC_ONE_CARD, RC_SCORED, RC_SWITCH, RC_TRUMP, first_round,
                                run_chunk, simulate, simulate_records, summarise)

CONFIGS = [(2, True), (3, True), (4, True), (2, False), (3, False), (4, False)]


def game_slices(rec):
    ends = np.cumsum(rec["rounds"])
    return [slice(e - r, e) for e, r in zip(ends, rec["rounds"])]


@pytest.fixture(scope="module", params=CONFIGS, ids=lambda c: f"{c[0]}p-{'joker' if c[1] else '2d'}")
def sim(request):
    players, joker = request.param
    return players, joker, simulate_records(3, 3000, players, joker)


def test_every_round_holds_27_points_and_all_25_cards(sim):
    players, joker, rec = sim
    rr = rec["round_record"]
    deck_mask = sum(1 << c for c in OneCardRules(players, joker).deck().tolist())
    # The captured piles together hold every one of the 25 cards ...
    assert (rec["round_cards"] == np.uint64(deck_mask)).all()
    # ... and 27 points: so no card sits in two piles (that would give more than 27).
    assert (rr[:, RC_CAPTURED:RC_CAPTURED + players].sum(axis=1) == 27).all()
    assert (rr[:, RC_CAPTURED + players:RC_SCORED] == 0).all()
    assert (rr[:, RC_LEFT] == 0).all()          # every hand was played out


def test_every_round_scores_by_the_rules(sim):
    players, joker, rec = sim
    rr = rec["round_record"].astype(np.int64)
    cap = rr[:, RC_CAPTURED:RC_CAPTURED + players]
    sc = rr[:, RC_SCORED:RC_SCORED + players]
    bidder = rr[:, RC_BIDDER]
    for i in range(len(rr)):
        expect = cap[i].copy()
        if bidder[i] >= 0:
            assert MIN_BID[players] <= rr[i, RC_BID] <= MAX_BID
            assert rr[i, RC_TRUMP] in range(4) and rr[i, RC_LEADER] == bidder[i]
            if cap[i, bidder[i]] < rr[i, RC_BID]:
                expect[bidder[i]] = 0
        else:
            assert rr[i, RC_BID] == 0 and rr[i, RC_TRUMP] == -1
        assert (sc[i] == expect).all()
    assert (rr[bidder >= 0, RC_SWITCH] == -1).all()   # the switch exists only without trumps


def test_dealer_rotates_left_and_the_game_ends_at_the_first_unique_top_of_30(sim):
    players, joker, rec = sim
    rr = rec["round_record"].astype(np.int64)
    for g, sl in enumerate(game_slices(rec)):
        rounds = rr[sl]
        first = rec["first_dealer"][g]
        assert (rounds[:, RC_DEALER] == (first + np.arange(len(rounds))) % players).all()
        totals = np.zeros(players, dtype=np.int64)
        for k, row in enumerate(rounds):
            for rel in range(players):
                totals[(row[RC_DEALER] + rel) % players] += row[RC_SCORED + rel]
            w = game_winner(totals)
            assert (w >= 0) == (k == len(rounds) - 1)
        assert totals.max() >= TARGET
        assert (w - first) % players == rec["winner"][g]
        assert [totals[(first + k) % players] for k in range(players)] == rec["totals"][g].tolist()


@pytest.mark.parametrize("players,joker", CONFIGS)
def test_kernel_games_equal_the_plain_reference_games(players, joker):
    seed, games = 2024, 150
    rec = run_chunk(seed, 0, games, {"players": players, "joker": joker})
    rr = rec["round_record"].astype(np.int64)
    jk = ref.RJ if joker else ref.TWO_DIAMONDS
    for g, sl in enumerate(game_slices(rec)):
        game = ref.play_game(seed, g, players, jk)
        assert game["first_dealer"] == rec["first_dealer"][g]
        assert game["winner"] == rec["winner"][g]
        assert game["totals"] == rec["totals"][g].tolist()
        assert len(game["rounds"]) == sl.stop - sl.start
        for r, row in zip(game["rounds"], rr[sl]):
            d = r["dealer"]
            rel = [(d + k) % players for k in range(players)]
            assert row[RC_DEALER] == d and row[RC_ONE_CARD] == r["one_card"]
            assert row[RC_BIDDER] == (-1 if r["bidder"] < 0 else (r["bidder"] - d) % players)
            assert row[RC_BID] == r["bid"] and row[RC_TRUMP] == r["trump"]
            assert row[RC_LEADER] == (r["leader"] - d) % players
            assert row[RC_LAST] == (r["tricks"][-1]["winner"] - d) % players
            switch = [k for k, t in enumerate(r["tricks"]) if t["switch"]]
            assert row[RC_SWITCH] == (switch[0] if switch else -1)
            assert row[RC_CAPTURED:RC_CAPTURED + players].tolist() == [r["captured"][s] for s in rel]
            assert row[RC_SCORED:RC_SCORED + players].tolist() == [r["scored"][s] for s in rel]


@pytest.mark.parametrize("players,joker", [(2, False), (3, True), (4, True)])
def test_logged_round_equals_the_reference_round_trick_by_trick(players, joker):
    jk = ref.RJ if joker else ref.TWO_DIAMONDS
    for seed in range(120):
        log = first_round(seed, players, joker)
        r = ref.play_game(seed, 0, players, jk)["rounds"][0]
        assert log.dealer == r["dealer"]
        assert [sorted(h) for h in log.hands] == r["hands"]
        assert log.one_card == r["one_card"] and log.bids == r["bids"]
        assert (log.bidder, log.bid, log.trump, log.leader) == (r["bidder"], r["bid"], r["trump"],
                                                                r["leader"])
        assert log.tricks == r["tricks"]
        assert (log.captured, log.scored) == (r["captured"], r["scored"])


def test_show_round_is_round_one_of_that_game_of_the_simulation():
    for seed, game in ((0, 0), (9, 0), (123456789, 0), (9, 17), (5, 40)):
        log = first_round(seed, 4, game=game)
        rec = run_chunk(seed, game, 1, {"players": 4, "joker": True})
        row = rec["round_record"][0].astype(np.int64)
        assert row[RC_DEALER] == log.dealer
        assert row[RC_ONE_CARD] == log.one_card
        assert row[RC_CAPTURED:RC_CAPTURED + 4].tolist() == [log.captured[(log.dealer + k) % 4]
                                                           for k in range(4)]
    assert first_round(9, 4, game=17).hands != first_round(9, 4).hands
    with pytest.raises(ValueError):
        first_round(9, 4, game=-1)


def test_same_seed_same_results_whatever_the_job_count_and_chunking():
    a = simulate_records(99, 3000, 3, chunk=700, jobs=1)
    b = simulate_records(99, 3000, 3, chunk=700, jobs=2)
    c = simulate_records(99, 3000, 3, chunk=3000, jobs=1)
    for key in a:
        assert np.array_equal(a[key], b[key]) and np.array_equal(a[key], c[key])
    assert not np.array_equal(a["rounds"], simulate_records(100, 3000, 3)["rounds"])


def test_chunk_grows_its_round_buffer_beyond_the_first_guess(monkeypatch):
    params = {"players": 2, "joker": True}
    plain = run_chunk(5, 0, 600, params)
    # Room for one longest game only (1000 rows) at first: more rows mean the buffer grew.
    monkeypatch.setattr(onecard_sim, "ROUNDS_PER_GAME_GUESS", 0)
    grown = run_chunk(5, 0, 600, params)
    assert grown["round_record"].shape[0] > onecard_sim.MAX_ROUNDS
    for key in plain:
        assert np.array_equal(plain[key], grown[key])


def test_summary_statistics():
    players = 3
    rec = simulate_records(8, 4000, players)
    res = summarise(rec, players, seed=8)
    rr = rec["round_record"].astype(np.int64)
    assert res["games"] == 4000 and res["rounds"] == len(rr) == rec["rounds"].sum()
    assert sum(s["win_rate"]["p"] for s in res["seats"]) == pytest.approx(1.0)
    assert sum(s["points_per_round"]["mean"] for s in res["seats"]) <= 27
    assert sum(s["captured_per_round"]["mean"] for s in res["seats"]) == pytest.approx(27)
    bid = rr[:, RC_BIDDER] >= 0
    made = rr[bid, RC_CAPTURED + rr[bid, RC_BIDDER]] >= rr[bid, RC_BID]
    assert res["bid_made"]["p"] == pytest.approx(made.mean())
    assert res["bid_made"]["n"] == bid.sum()
    assert res["no_bid"]["p"] == pytest.approx(1 - bid.mean())
    assert res["game_length"]["mean"] == pytest.approx(rec["rounds"].mean())
    for d in [res["bid_made"], res["no_bid"]] + [s["win_rate"] for s in res["seats"]]:
        assert d["lo"] <= d["p"] <= d["hi"]
    assert sum(d["n"] for d in res["bid_made_by_bid"].values()) == bid.sum()


def test_simulate_checks_its_input():
    with pytest.raises(ValueError):
        simulate(-1, 10)
    with pytest.raises(ValueError):
        simulate(1, 0)
    with pytest.raises(ValueError):
        simulate(1, 10, players=5)
