"""The ``Deal`` object: checked once where a deal comes in, its tables built once on demand, and
nothing below the edge checking or tabling it again (issue 31, item 3)."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from cli.main import cli
from solver.pyramid.model import deals as deals_module
from solver.pyramid.model import state as state_module
from solver.pyramid.model.deals import Deal, DealError, deal_from_seed, format_deal
from solver.pyramid.optimal.tables import class_tables


def test_each_constructor_gives_the_same_deal():
    cards = deal_from_seed(7)
    text = format_deal(cards)
    made = [Deal.from_seed(7), Deal.parse(text), Deal(cards), Deal(cards.tolist()),
            Deal.of(7), Deal.of(text), Deal.of(cards), Deal.of(np.int64(7))]
    for deal in made:
        assert deal == made[0] and hash(deal) == hash(made[0])
        assert deal.cards.dtype == np.int64 and np.array_equal(deal.cards, cards)
        assert deal.text() == text and len(deal) == 52 and list(deal) == list(cards)
        assert np.array_equal(np.asarray(deal), cards)
    assert Deal.from_seed(8) != made[0]
    assert Deal.of(made[0]) is made[0]


def test_checking_copies_the_callers_cards():
    cards = deal_from_seed(3)
    deal = Deal(cards)
    cards[0], cards[1] = cards[1], cards[0]
    assert np.array_equal(deal.cards, deal_from_seed(3))


@pytest.mark.parametrize("bad, words", [
    (list(range(51)), "52 cards"), (list(range(51)) + [52], "card id 52"),
    ([0] * 52, "appears 52 times"), ("Ac 2c", "too few"), (True, "not a bool"),
    (-1, "out of range"),
])
def test_a_bad_deal_is_refused_where_it_comes_in(bad, words):
    with pytest.raises(ValueError, match=words):
        Deal.of(bad)


def test_tables_are_built_once_and_kept():
    deal = Deal.from_seed(5)
    assert deal.tables is deal.tables
    assert np.array_equal(deal.tables.val, state_module.deal_tables(deal.cards).val)
    ctab = deal.built(class_tables, True)
    assert deal.built(class_tables, True) is ctab
    assert deal.built(class_tables, False) is not ctab
    assert DealError.__mro__[1] is ValueError


WARM_UP = np.arange(52, dtype=np.int64)
"""The cards of the throw-away deal the commands load their kernels with (not counted)."""


class Counter:
    """Wraps a function of a deal, counting its calls on any deal but the warm-up one."""

    def __init__(self, real) -> None:
        self.real, self.calls = real, 0

    def __call__(self, deal, *args, **kwargs):
        if isinstance(deal, str) or not np.array_equal(np.asarray(deal), WARM_UP):
            self.calls += 1
        return self.real(deal, *args, **kwargs)


@pytest.fixture
def counted(monkeypatch):
    """Counters of every check, parse and table build of a deal during a command."""
    counters = {name: Counter(getattr(module, name)) for module, name in
                [(deals_module, "check_deal"), (deals_module, "parse_deal"),
                 (state_module, "kernel_tables")]}
    for name, counter in counters.items():
        module = state_module if name == "kernel_tables" else deals_module
        monkeypatch.setattr(module, name, counter)
    calls = {"class_tables": 0}
    real_built = Deal.built

    def built(self, build, *options):
        key = (build, *options)
        if key not in self._built and build is class_tables and not np.array_equal(
                self.cards, WARM_UP):
            calls["class_tables"] += 1
        return real_built(self, build, *options)

    monkeypatch.setattr(Deal, "built", built)
    return lambda: {**{n: c.calls for n, c in counters.items()}, **calls}


@pytest.mark.parametrize("args, parsed", [
    (["solve", "--seed", "9"], 0),
    (["solve", "--seed", "32", "--json"], 0),
    (["analyse", "--seed", "9", "--playouts", "100", "-q"], 0),
    (["analyse", "--seed", "1", "--playouts", "100", "-q", "--rules", "msc"], 0),
    (["hint", "--deal", format_deal(deal_from_seed(4))], 1),
    (["check", "--seed", "1", "--solution", "draw draw"], 0),
], ids=["solve-lost", "solve-won", "analyse-lost", "analyse-msc", "hint-text", "check"])
def test_a_command_checks_its_deal_once_and_tables_it_once(counted, args, parsed, tmp_path):
    """A deal number is dealt (no check needed), deal text parsed once, and the searches, the
    analysis and the page below take the ``Deal`` as it is: no second check, no second table."""
    page = tmp_path / "page.html"
    if args[0] in ("solve", "analyse"):
        args = args + ["--html", str(page)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code in (0, 1), result.output
    calls = counted()
    assert calls["check_deal"] == 0, calls
    assert calls["parse_deal"] == parsed, calls
    assert calls["kernel_tables"] <= 1, calls
    assert calls["class_tables"] <= 2, calls  # one per overlap rule (the rules matrix tries both)
