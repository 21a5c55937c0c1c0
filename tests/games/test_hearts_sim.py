"""The numba engine against the plain-Python reference, deal invariants over thousands of games,
game ending and winners, reproducibility across job counts."""

import numpy as np
import pytest

from reference.hearts import Table, hands_after_pass
from solver.games.hearts.game import HeartsRules, play_games, run_chunk, simulate, summarise, trace_deal
from solver.core.runner import run_games

TABLES = [(g, n) for g in ("black-maria", "hearts") for n in (3, 4, 5, 6)]
OPTIONS = [dict(), dict(spot_hearts=True), dict(omnibus=True),
           dict(spot_hearts=True, omnibus=True)]


def reference_table(rules):
    return Table(rules.game, rules.players, spot=rules.spot_hearts, omnibus=rules.omnibus,
                 moon=rules.moon, target=rules.target)


@pytest.mark.parametrize("game,players", TABLES)
@pytest.mark.parametrize("opts", OPTIONS[::3])
def test_engine_matches_reference_game_for_game(game, players, opts):
    rules = HeartsRules(game, players, **opts)
    ref = reference_table(rules)
    seed = 20 + players
    rec = play_games(rules, 12, seed)
    pos = 0
    for g in range(12):
        deals, scores = ref.play_game(seed, g)
        length = int(rec["length"][g])
        assert length == len(deals)
        for k, d in enumerate(deals):
            assert rec["deal_points"][pos + k].tolist() == d["points"]
            assert int(rec["shooter"][pos + k]) == d["shooter"]
        assert rec["final"][g].tolist() == scores
        pos += length


@pytest.mark.parametrize("game,players", TABLES)
def test_traced_deal_matches_reference_card_for_card(game, players):
    rules = HeartsRules(game, players, target=1000)
    ref = reference_table(rules)
    from reference.rng import SplitMix64, stream_seed
    rng = SplitMix64(stream_seed(77, 0))
    for deal in range(1, 4):
        want = ref.play_deal(rng, (deal - 1) % players, deal - 1)
        t = trace_deal(rules, seed=77, deal=deal)
        assert t.dealt == want["dealt"] and t.passed == want["passed"]
        assert t.plays == want["plays"]
        assert t.leaders == want["leaders"] and t.winners == want["winners"]
        assert t.points == want["points"]


@pytest.mark.parametrize("moon", ["others", "subtract"])
def test_moon_deals_match_reference(moon):
    # Moons are rare (about one deal in a hundred); find some and compare them exactly.
    rules = HeartsRules("hearts", 4, moon=moon, omnibus=True)
    ref = reference_table(rules)
    rec = play_games(rules, 400, 5)
    starts = np.concatenate([[0], np.cumsum(rec["length"])[:-1]])
    games = sorted({int(np.searchsorted(starts, i, side="right") - 1)
                    for i in np.flatnonzero(rec["shooter"] >= 0)})
    assert games
    for g in games[:4]:
        deals, _ = ref.play_game(5, g)
        got = rec["deal_points"][starts[g]:starts[g] + rec["length"][g]].tolist()
        assert got == [d["points"] for d in deals]
        assert any(d["shooter"] >= 0 for d in deals)


def replay_check(rules, t):
    """Check a traced deal against the reference's legal-move rule, play by play."""
    ref = reference_table(rules)
    n = rules.players
    hands = hands_after_pass(t.dealt, t.passed, t.pass_offset)
    broken = False
    for k, (row, lead) in enumerate(zip(t.plays, t.leaders)):
        led = None
        for j, c in enumerate(row):
            s = (lead + j) % n
            assert c in ref.legal(sorted(hands[s]), led, k == 0, broken)
            hands[s].remove(c)
            led = led or "cdhs"[row[0] // 13]
            broken |= c // 13 == 2


@pytest.mark.parametrize("game,players", TABLES)
def test_every_play_is_legal_by_the_reference(game, players):
    rules = HeartsRules(game, players, target=10_000)
    for seed in range(8):
        replay_check(rules, trace_deal(rules, seed=seed, deal=1 + seed % 4))


@pytest.mark.parametrize("game,players", TABLES)
@pytest.mark.parametrize("opts", OPTIONS)
def test_deal_total_invariant_every_deal(game, players, opts):
    moons = ("others", "subtract") if game == "hearts" else ("none",)
    for moon in moons:
        rules = HeartsRules(game, players, moon=moon, **opts)
        rec = play_games(rules, 1500, 1234)
        sums = rec["deal_points"].astype(np.int64).sum(axis=1)
        shot = rec["shooter"] >= 0
        assert (sums[~shot] == rules.deal_total()).all()
        if shot.any():
            assert (sums[shot] == rules.deal_total(moon=True)).all()
        if game == "black-maria":
            assert not shot.any()
        # Per game: the finals are the sums of the game's deals.
        ends = np.cumsum(rec["length"])
        per_game = np.add.reduceat(rec["deal_points"].astype(np.int64), ends - rec["length"])
        assert (per_game == rec["final"]).all()


def test_invariant_values():
    assert HeartsRules("black-maria", 4).deal_total() == 43
    assert HeartsRules("black-maria", 6).deal_total() == 42
    assert HeartsRules("hearts", 5).deal_total() == 26
    assert HeartsRules("hearts", 4).deal_total(moon=True) == 78
    assert HeartsRules("hearts", 4, moon="subtract").deal_total(moon=True) == -26
    assert HeartsRules("hearts", 3, spot_hearts=True, omnibus=True).deal_total(moon=True) == 248
    with pytest.raises(ValueError):
        HeartsRules("black-maria", 4).deal_total(moon=True)


@pytest.mark.parametrize("target", [1, 60, 100, 250])
def test_game_ends_after_the_deal_reaching_the_target(target):
    rules = HeartsRules("hearts", 4, target=target, omnibus=True, moon="subtract")
    rec = play_games(rules, 2000, 8)
    ends = np.cumsum(rec["length"])
    running = rec["deal_points"].astype(np.int64)
    starts = ends - rec["length"]
    for g in range(0, 2000, 7):
        totals = np.cumsum(running[starts[g]:ends[g]], axis=0).max(axis=1)
        assert totals[-1] >= target
        assert (totals[:-1] < target).all()
    assert not rec["capped"].any()


def test_lowest_total_wins_and_ties_share():
    rules = HeartsRules("black-maria", 3, target=20)
    rec = play_games(rules, 3000, 2)
    s = summarise(rules, rec, 2)
    final = rec["final"]
    low = final.min(axis=1)
    wins = [(final[:, k] == low).sum() for k in range(3)]
    assert [w["p"] * 3000 for w in s["win_rate"]] == pytest.approx(wins)
    ties = int(((final == low[:, None]).sum(axis=1) > 1).sum())
    assert ties > 0 and s["shared_win_rate"]["p"] * 3000 == pytest.approx(ties)
    assert sum(wins) == 3000 + sum(((final == low[:, None]).sum(axis=1) - 1))


def test_same_results_whatever_the_job_count_and_chunking():
    rules = HeartsRules("hearts", 4, spot_hearts=True)
    params = {"rules": rules}
    one = run_games(run_chunk, 99, 3000, params, jobs=1, progress=False)
    two = run_games(run_chunk, 99, 3000, params, jobs=2, progress=False, chunk=700)
    assert one.keys() == two.keys()
    for key in one:
        assert np.array_equal(one[key], two[key])


def test_summary_statistics_are_plausible():
    rules = HeartsRules("black-maria", 4)
    s = simulate(rules, 3000, seed=1)
    means = [m["mean"] for m in s["penalty_per_deal"]]
    # Per-seat means of a 43-point deal average 43 / 4 exactly over all deals.
    assert sum(means) == pytest.approx(43)
    for m in s["penalty_per_deal"]:
        assert abs(m["mean"] - 43 / 4) < 0.5 and m["lo"] < m["mean"] < m["hi"]
    assert s["deals"] == s["game_length"]["mean"] * 3000
    assert "moon_rate" not in s
    h = simulate(HeartsRules("hearts", 4), 3000, seed=1)
    assert 0 < h["moon_rate"]["p"] < 0.05
    with pytest.raises(ValueError, match="positive"):
        simulate(rules, 0)
    with pytest.raises(ValueError, match="seed"):
        simulate(rules, 10, seed=-1)
