"""The packed-position layout: the table in ``solver.pyramid.model.state``'s docstring, the field table
``STATE_FIELDS`` and the masks and shifts the kernels use must all say the same thing, and the
move encoding must round-trip through its one definition."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

from solver.pyramid.model import rules, state
from solver.pyramid.winnable import free_search
from solver.pyramid.model.layout import PYRAMID_CARDS, STOCK_CARDS

DOC_ROW = re.compile(r"^\s+bits?\s+(\d+)(?:\.\.(\d+))?\s+(\w+):", re.MULTILINE)
"""A row of the layout table in the module docstring: ``bits 57..61  recycles: ...``."""

MASKS = {"pyramid": state.PYR_MASK, "stock": state.STOCK_MASK, "pointer": state.PTR_MASK,
         "recycles": state.REC_MASK, "free_tag": state.FREE_TAG, "after_draw": state.AFTER_DRAW}
"""The mask constant the kernels use for each documented field."""
SHIFTS = {"stock": state.STOCK_SHIFT, "pointer": state.PTR_SHIFT, "recycles": state.REC_SHIFT}


def documented_fields() -> list[tuple[str, int, int]]:
    """``(name, first bit, width)`` of every row of the docstring's layout table."""
    rows = []
    for first, last, name in DOC_ROW.findall(state.__doc__):
        lo = int(first)
        hi = int(last) if last else lo
        rows.append((name, lo, hi - lo + 1))
    return rows


def bits(first: int, width: int) -> int:
    return ((1 << width) - 1) << first


def test_docstring_table_is_the_field_table():
    assert documented_fields() == list(state.STATE_FIELDS)


def test_fields_cover_the_64_bits_once():
    covered = 0
    for _name, first, width in documented_fields():
        assert covered & bits(first, width) == 0
        covered |= bits(first, width)
    assert covered == (1 << 64) - 1


@pytest.mark.parametrize("name", sorted(MASKS))
def test_masks_match_the_documented_bits(name):
    doc = {n: (first, width) for n, first, width in documented_fields()}
    first, width = doc[name]
    assert int(MASKS[name]) == bits(first, width)
    if name in SHIFTS:
        assert int(SHIFTS[name]) == first


def test_field_sizes_fit_what_they_hold():
    doc = {n: (first, width) for n, first, width in documented_fields()}
    assert doc["pyramid"][1] == PYRAMID_CARDS and doc["stock"][1] == STOCK_CARDS
    assert (1 << doc["pointer"][1]) > STOCK_CARDS  # 0 .. 24
    assert (1 << doc["recycles"][1]) > rules.MAX_RECYCLES
    assert state.MAX_RECYCLES_USED == (1 << doc["recycles"][1]) - 1


def test_rules_module_names_the_same_recycle_bits():
    """``MAX_RECYCLES``'s docstring in rules.py names the recycles field's bits."""
    first, width = {n: (f, w) for n, f, w in documented_fields()}["recycles"]
    source = inspect.getsource(rules)
    said = re.search(r"MAX_RECYCLES = \d+\n\"\"\"[^\"]*?bits (\d+)\.\.(\d+)", source)
    assert said is not None
    assert (int(said.group(1)), int(said.group(2))) == (first, first + width - 1)


def test_search_tags_use_the_reserved_bits():
    """The winnability table's tags sit in bits no concrete or free-stock key uses: the free tag
    in the ``free_tag`` field, the won tag in ``after_draw`` (free-stock keys never set it)."""
    assert free_search.FREE_TAG == state.FREE_TAG
    assert int(free_search.WON_TAG) == int(state.AFTER_DRAW)
    most = state.pack_position(np.arange(52), (1 << PYRAMID_CARDS) - 1, [], list(range(28, 52)),
                               state.MAX_RECYCLES_USED, True)
    assert most & int(state.FREE_TAG) == 0
    with pytest.raises(ValueError):
        state.pack_position(np.arange(52), 0, [], [], state.MAX_RECYCLES_USED + 1, True)


def test_moves_round_trip_through_one_layout():
    fields = {n: (first, width) for n, first, width in state.MOVE_FIELDS}
    assert state.MOVE_A_SHIFT == fields["a"][0] and state.MOVE_B_SHIFT == fields["b"][0]
    assert state.MOVE_KIND_MASK == (1 << fields["kind"][1]) - 1
    assert state.NO_SLOT <= state.SLOT_MASK and PYRAMID_CARDS + STOCK_CARDS <= state.NO_SLOT
    kinds = (state.MOVE_DRAW, state.MOVE_RECYCLE, state.MOVE_KING, state.MOVE_PAIR)
    assert len(set(kinds)) == 4 and max(kinds) <= state.MOVE_KIND_MASK
    for kind in kinds:
        for a in (0, 1, 27, 28, 51, state.NO_SLOT):
            for b in (0, 30, 51, state.NO_SLOT):
                m = state.encode_move(kind, a, b)
                assert state.decode_move(m) == (kind, a, b)
                assert (state.move_kind(m), state.move_a(m), state.move_b(m)) == (kind, a, b)
