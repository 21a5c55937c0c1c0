"""Faults and odd input for the four games' commands (simulate, show, analyse GAME): every case
gets a clean answer, never a traceback.

Each row runs the real command in a subprocess (``tests/faults.py``) and checks the documented
exit code (2 for bad input), exactly one short stderr line naming what is wrong, and nothing on
stdout. Most rows are refused before an engine loads, so the table is quick. The rows at the end
are odd but valid input that must just work (exit 0).
"""

from __future__ import annotations

import pytest

from solver.core.runner import MAX_GAMES
from tests.faults import assert_clean_failure, error_lines, run_pyramid

EXIT_USAGE = 2
TOO_MANY = str(MAX_GAMES + 1)
TWO_TO_64 = str(2**64)
SMALL = ["-q", "-j", "1"]
"""A run without a progress bar in this process (the valid rows keep their games few)."""

BAD_INPUT = [
    # (id, arguments, texts the error line must contain)
    ("hearts-players-2", ["simulate", "hearts", "--players", "2"], ("--players", "3<=x<=6")),
    ("hearts-players-7", ["simulate", "hearts", "--players", "7"], ("--players",)),
    ("hearts-players-empty", ["simulate", "hearts", "--players", ""], ("--players",)),
    ("hearts-target-0", ["simulate", "hearts", "--target", "0"], ("--target",)),
    ("hearts-target-huge", ["simulate", "hearts", "--target", "100000"], ("--target",)),
    ("hearts-target-negative", ["simulate", "hearts", "--target", "-5"], ("--target",)),
    ("hearts-moon-unknown", ["simulate", "hearts", "--moon", "bogus"], ("--moon", "others")),
    ("black-maria-has-no-moon", ["simulate", "black-maria", "--moon", "others"], ("--moon",)),
    ("games-2**64-typed", ["simulate", "hearts", "--games", "2**64"], ("--games",)),
    ("games-2**64", ["simulate", "hearts", "--games", TWO_TO_64], ("--games", str(MAX_GAMES))),
    ("games-over-cap", ["simulate", "old-maid", "--games", TOO_MANY], ("--games",)),
    ("games-0", ["simulate", "one-card", "--games", "0"], ("--games",)),
    ("games-negative", ["simulate", "duizenden", "--games", "-1"], ("--games",)),
    ("games-float", ["simulate", "hearts", "--games", "1e6"], ("--games",)),
    ("seed-2**64", ["simulate", "hearts", "--seed", TWO_TO_64], ("--seed",)),
    ("seed-negative", ["show", "hearts", "--seed", "-1"], ("--seed",)),
    ("seed-empty", ["simulate", "old-maid", "--seed", ""], ("--seed",)),
    ("seed-hex", ["simulate", "hearts", "--seed", "0x10"], ("--seed",)),
    ("show-seed-2**64", ["show", "one-card", "--seed", TWO_TO_64], ("--seed",)),
    ("show-group-seed-1000-digits", ["show", "--seed", "9" * 1000], ("--seed", "out of range")),
    ("jobs-negative", ["simulate", "hearts", "--jobs", "-1"], ("--jobs",)),
    ("unknown-option", ["simulate", "hearts", "--bogus"], ("--bogus",)),
    ("extra-argument", ["simulate", "hearts", "extra"], ("extra",)),
    ("hearts-deal-0", ["show", "hearts", "--deal", "0"], ("--deal",)),
    ("hearts-deal-huge", ["show", "hearts", "--deal", "100000000000"], ("deal",)),
    ("hearts-deal-after-game-end", ["show", "hearts", "--deal", "40", "--target", "1"],
     ("no deal 40",)),
    ("hearts-players-not-a-number", ["show", "hearts", "--players", "abc"], ("--players",)),
    ("old-maid-players-1", ["simulate", "old-maid", "--players", "1"], ("--players",)),
    ("old-maid-joker-and-jack", ["simulate", "old-maid", "-V", "joker", "-V", "jack"],
     ("--variant", "cannot be combined")),
    ("old-maid-variant-unknown", ["simulate", "old-maid", "--variant", "queen"], ("--variant",)),
    ("old-maid-dealer-seat", ["show", "old-maid", "--dealer", "99"], ("--dealer", "0..2")),
    ("old-maid-dealer-and-game", ["show", "old-maid", "--game", "2", "--dealer", "1"],
     ("--dealer", "--game")),
    ("old-maid-game-over-cap", ["show", "old-maid", "--game", str(MAX_GAMES)], ("--game",)),
    ("old-maid-game-2**64", ["show", "old-maid", "--game", TWO_TO_64], ("--game",)),
    ("analyse-trials-0", ["analyse", "old-maid", "--trials", "0"], ("--trials",)),
    ("analyse-trials-over-cap", ["analyse", "old-maid", "--trials", TOO_MANY], ("--trials",)),
    ("analyse-dealer-negative", ["analyse", "old-maid", "--dealer", "-1"], ("--dealer",)),
    ("one-card-players-0", ["simulate", "one-card", "--players", "0"], ("--players",)),
    ("one-card-game-2**64", ["show", "one-card", "--game", TWO_TO_64], ("--game",)),
    ("one-card-game-negative", ["show", "one-card", "--game", "-2"], ("--game",)),
    ("duizenden-players-7", ["simulate", "duizenden", "--players", "7"], ("--players",)),
    ("duizenden-max-rounds-0", ["simulate", "duizenden", "--max-rounds", "0"],
     ("--max-rounds",)),
    ("duizenden-max-rounds-huge", ["simulate", "duizenden", "--max-rounds", "100001"],
     ("--max-rounds",)),
    ("duizenden-penalty-over", ["simulate", "duizenden", "--penalty", "1001"], ("--penalty",)),
    ("duizenden-penalty-negative", ["simulate", "duizenden", "--penalty", "-1"],
     ("--penalty",)),
    ("duizenden-variant-6", ["simulate", "duizenden", "--variant", "6"], ("--variant", "1..5")),
    ("duizenden-variant-all", ["show", "duizenden", "--variant", "all"], ("--variant",)),
    ("duizenden-start-seat", ["show", "duizenden", "--start", "2"], ("--start", "0..1")),
    ("unknown-game", ["simulate", "chess"], ("No such command 'chess'",)),
    ("misspelt-game", ["simulate", "oldmiad"], ("Did you mean 'old-maid'",)),
    ("misspelt-alias", ["show", "onecrd"], ("Did you mean 'one-card'",)),
    ("no-analyse-for-hearts", ["analyse", "hearts"],
     ("hearts has no analyse command (old-maid has one)", "'pyramid simulate hearts'")),
    ("no-analyse-for-black-maria", ["analyse", "blackmaria"],
     ("black-maria has no analyse command", "'pyramid show black-maria'")),
    ("show-seed-before-game", ["show", "--seed", "1", "old-maid"],
     ("pyramid show old-maid --seed 1",)),
    ("show-json-before-game", ["show", "--json", "hearts"], ("pyramid show hearts --json",)),
    ("simulate-option-before-game", ["simulate", "--games", "10", "hearts"],
     ("pyramid simulate hearts --games 10",)),
    ("analyse-option-before-game", ["analyse", "-q", "oldmaid"],
     ("pyramid analyse old-maid -q",)),
]


@pytest.mark.parametrize("args,mentions", [row[1:] for row in BAD_INPUT],
                         ids=[row[0] for row in BAD_INPUT])
def test_bad_input_gets_one_clean_line(args, mentions):
    proc = run_pyramid(args, timeout=120)
    assert_clean_failure(proc, EXIT_USAGE, mentions)
    assert proc.stdout == ""


ODD_BUT_VALID = [
    # (id, arguments): plausible input the commands accept
    ("old-spelling-oldmaid", ["simulate", "oldmaid", "--games", "3", *SMALL]),
    ("old-spelling-onecard", ["simulate", "onecard", "--games", "3", *SMALL]),
    ("moon-in-capitals", ["show", "hearts", "--moon", "SUBTRACT"]),
    ("variant-in-capitals", ["show", "old-maid", "--variant", "COLOUR"]),
    ("variant-empty", ["show", "old-maid", "--variant", ""]),
    ("variant-trailing-commas", ["show", "old-maid", "--variant", "colour,,"]),
    ("duizenden-variant-numbers", ["show", "duizenden", "--variant", "1,2,3,4,5",
                                   "--penalty", "0"]),
    ("duizenden-last-seat-starts", ["show", "duizenden", "--players", "6", "--start", "5"]),
    ("seed-at-the-top", ["simulate", "hearts", "--seed", str(2**63 - 1), "--games", "2", *SMALL]),
    ("more-jobs-than-games", ["simulate", "hearts", "--games", "3", "-q", "-j", "64"]),
    ("last-game-of-a-run", ["show", "one-card", "--game", str(MAX_GAMES - 1)]),
    ("target-1", ["simulate", "hearts", "--target", "1", "--games", "5", *SMALL]),
    ("every-hearts-option", ["show", "hearts", "--players", "6", "--spot-hearts", "--omnibus",
                             "--target", "1"]),
]


@pytest.mark.parametrize("args", [row[1] for row in ODD_BUT_VALID],
                         ids=[row[0] for row in ODD_BUT_VALID])
def test_odd_but_valid_input_just_works(args):
    proc = run_pyramid(args, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert error_lines(proc.stderr) == [], proc.stderr[-2000:]
    assert proc.stdout.strip()
