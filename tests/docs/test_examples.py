"""Every ``$ pyramid ...`` example of the README and ``docs/`` runs and prints what the page shows.

The conventions (sessions, ``# exit N``, ``...``, machine-dependent figures) are in
``doc_examples`` and, for readers, in ``docs/testing.md``. Blocks whose commands take several
seconds are marked ``slow`` (``python -m pytest -q -m slow tests/docs``); the rest keep the
default run short.
"""

from __future__ import annotations

import pytest

from doc_examples import Block, all_blocks, blocks_of, matches, report, run_block

SLOW = ("--games 1000000", "--games 100000 ", "--games 20000 ", "--trials 200000",
        "--seeds 0:1000 ", "--analyse", "--games 2000 --seed 1 -q\n", "--players 6")
"""Parts of a command that make its block slow (a million games, a thousand deals scored...)."""


def _slow(block: Block) -> bool:
    return any(s in c.text + "\n" for c in block.commands for s in SLOW)


BLOCKS = all_blocks()


@pytest.mark.parametrize("block", [
    pytest.param(b, id=b.ident, marks=[pytest.mark.slow] if _slow(b) else [])
    for b in BLOCKS])
def test_example_prints_what_the_page_shows(block, tmp_path):
    ran = run_block(block, tmp_path)
    problems = report(ran)
    assert not problems, f"{block.ident}:\n{problems}"


def test_the_pages_have_examples_and_most_run_in_the_default_suite():
    pages = {b.page for b in BLOCKS}
    assert "README.md" in pages and "docs/pyramid.md" in pages
    fast = [b for b in BLOCKS if not _slow(b)]
    assert len(fast) > len(BLOCKS) / 2


# -- the comparison itself ----------------------------------------------------------------------

def test_a_line_of_dots_stands_for_any_lines_and_dots_in_a_line_for_any_text():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "d"], ["a", "d"])
    assert matches(["a", "  ...  (draws 2 to 3)", "d"], ["a", "b", "d"])
    assert matches(['{"x":1,...,"z":3}'], ['{"x":1,"y":2,"z":3}'])
    assert not matches(["a", "...", "d"], ["a", "b", "c", "e"])
    assert not matches(["a", "b"], ["a", "b", "c"])
    assert not matches(['{"x":1,...}'], ['{"x":2,"y":2}'])


def test_only_numbers_with_a_unit_of_time_or_speed_are_loose():
    assert matches(["748 positions explored in 1.6 ms."], ["748 positions explored in 57.25 ms."])
    assert matches(["Time: 10000 deals in 9.0 s, 1113 deals/s"],
                   ["Time: 10000 deals in 12.5 s, 800 deals/s"])
    assert matches(["  seed 8979            3.063 ms"], ["  seed 8979           13.063 ms"])
    assert not matches(["748 positions explored in 1.6 ms."], ["749 positions explored in 1.6 ms."])
    assert not matches(["Win rate: 0.8286"], ["Win rate: 0.8287"])
    assert not matches(["mean 67.8, max 4430"], ["mean 26.6, max 2106"])
    assert not matches(["a  b"], ["a b"])


def test_a_block_is_read_with_its_commands_outputs_and_exit_codes():
    text = "x\n```\n$ pyramid hint --seed 3      # exit 1\nThis position can no longer be won.\n" \
           "$ true\n```\n\n```python\n$ not a command\n```\n  ```\n  $ echo a\n  a\n  ```\n"
    blocks = blocks_of("page.md", text)
    assert [len(b.commands) for b in blocks] == [2, 1]
    first = blocks[0].commands[0]
    assert first.exit_code == 1 and first.expected == ["This position can no longer be won."]
    assert first.line == 3 and blocks[0].commands[1].exit_code is None
    assert blocks[1].commands[0].expected == ["a"]
