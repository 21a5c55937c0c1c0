"""The minimum-move search's speed-ups for its slow tail, checked on positions where they fire.

* forced lines (``solver.pyramid.optimal.moves.forced_line``, and ``forced_jump``, which the
  search calls: the same line's end by bit operations): after a draw or a recycle the
  search steps over positions whose only move is another draw or recycle. Checked against the
  generator itself: along every line it follows, ``gen_optimal`` offers exactly that one move at
  each position stepped over, and something else (or nothing: a dropped line) where it stops; on
  positions reached by random play under all 32 rule combinations.
* the tagged hash index of A* (``find_tagged``): every stored key found, no other, after growth;
* whole answers: the search agrees with the plain BFS of ``tests/reference/bfs.py`` on endgames
  where lines are stepped over (``test_optimal.py`` checks seeded deals and more endgames).
"""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest
from reference.bfs import bfs_shortest
from reference.pyramid import endgame_position
from tests.pyramid.cases import ALL_RULES, packed

from solver.pyramid.model.deals import deal_from_seed
from solver.pyramid.optimal.api import solve_optimal
from solver.pyramid.optimal.index import TAG_SHIFT, find_tagged, rehash_tagged, tag_of
from solver.pyramid.optimal.moves import (DROPPED, MAX_FORCED, child_of, forced_jump, forced_line,
                                          gen_optimal)
from solver.pyramid.model.replay import Position
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.state import MAX_MOVES, MOVE_RECYCLE, deal_tables, move_kind
from solver.pyramid.model.outcome import Outcome


def generic_line(state, tabs, rule) -> tuple[np.uint64, int]:
    """The line ``forced_line`` should follow, by ``gen_optimal`` alone: (end, moves) or
    (state, ``DROPPED``) when it reaches a position with no move or runs past ``MAX_FORCED``."""
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    s = np.uint64(state)
    for k in range(MAX_FORCED + 1):
        n = gen_optimal(s, tabs, rule, moves)
        if n == 0:
            return s, DROPPED
        if n > 1 or move_kind(moves[0]) > MOVE_RECYCLE:
            return s, k
        s = child_of(s, moves[0], rule.recycles)
    return s, DROPPED


def check_line(state, tabs, rule) -> int:
    """``forced_line`` and ``forced_jump`` (the search's shortcut, bit operations with the stock
    top hidden) from ``state`` stop where ``generic_line`` does (the same position and count, or
    all drop the line); returns the moves followed."""
    line = np.zeros(MAX_FORCED, dtype=np.int64)
    want_end, want_k = generic_line(state, tabs, rule)
    for found in (forced_line(np.uint64(state), tabs, rule, line, np.int64(0)),
                  forced_jump(np.uint64(state), tabs, rule, line)):
        end, k = found
        if want_k == DROPPED:
            assert k == DROPPED, (hex(int(state)), k)
        else:
            assert (int(end), int(k)) == (int(want_end), want_k), hex(int(state))
    return 0 if want_k == DROPPED else int(want_k)


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.describe().replace(" ", "-"))
def test_forced_lines_follow_the_only_move(rules):
    rng = random.Random(zlib.crc32(rules.describe().encode()))
    rule = rules.args
    followed = lines = 0
    moves = np.zeros(MAX_MOVES, dtype=np.int64)
    for seed in range(8):
        deal = deal_from_seed(900 + seed)
        tabs = deal_tables(deal)
        pos = Position(deal, rules)
        for _ in range(100):
            state = np.uint64(packed(pos))
            n = gen_optimal(state, tabs, rule, moves)
            for m in moves[:n]:
                if move_kind(m) <= MOVE_RECYCLE:
                    followed += check_line(child_of(state, m, rule.recycles), tabs, rule)
                    lines += 1
            legal = pos.legal_steps()
            if not legal or pos.is_won():
                break
            pos.apply(rng.choice(legal))
    assert lines > 50 and followed > 20, (lines, followed)


@pytest.mark.parametrize("rules", [Rules(), Rules(recycles=0), Rules(recycles=1, stock_top=True),
                                   Rules(recycles=2, overlap=False, stock_top=True),
                                   Rules(goal="all", stock_top=True)],
                         ids=lambda r: r.describe().replace(" ", "-"))
def test_search_with_forced_lines_agrees_with_plain_bfs(rules):
    """Endgames with a fuller stock than ``test_optimal``'s (so lines are stepped over)."""
    checked = 0
    for i in range(10):
        deal = deal_from_seed(600 + i)
        pos = endgame_position(deal, rules, seed=i, pyramid_left=5 + i % 3, stock_left=9 + i % 4)
        start = packed(pos)
        expected, _ = bfs_shortest(deal, rules, start=start, max_states=2_000_000)
        if expected is None:
            continue
        result = solve_optimal(deal, rules, start=start)
        if expected < 0:
            assert result.outcome == Outcome.LOST, i
        else:
            assert result.outcome == Outcome.WON and result.moves == expected, i
        checked += 1
    assert checked >= 8


def test_tagged_index_finds_every_key_and_no_other():
    """The A* index (``find_tagged``): keys stored the way the search stores them, then the index
    doubled by ``rehash_tagged``; every stored key is found with its node id, and keys never
    stored are not (their slot is empty), before and after."""
    rng = np.random.default_rng(15)
    keys = np.unique(rng.integers(0, 2**63, size=6000, dtype=np.int64).astype(np.uint64))
    stored, absent = keys[:3000], keys[3000:]
    nodes = np.zeros(len(stored), dtype=np.uint64)
    index = np.full(1 << 12, -1, dtype=np.int32)
    for j, k in enumerate(stored):
        slot = find_tagged(index, nodes, k)
        assert slot < 0
        nodes[j] = k
        index[-1 - slot] = j | tag_of(k)
    bigger = np.full(1 << 13, -1, dtype=np.int32)
    rehash_tagged(bigger, nodes, len(stored))
    for ix in (index, bigger):
        assert [find_tagged(ix, nodes, k) for k in stored] == list(range(len(stored)))
        assert all(find_tagged(ix, nodes, k) < 0 for k in absent)
    assert (index >= 0).sum() == len(stored) and (index >> TAG_SHIFT).max() > 0
