"""``pyramid play --enter`` (the deal typed in card by card, solver/pyramid/play/entry.py and
entry_screen.py) through Textual's pilot, and ``pyramid play --line N`` (a line of a deal file
of many): the loading through ``load_one_deal``, the refusals through the runner."""

from __future__ import annotations

import asyncio

import pytest
from click.testing import CliRunner

from cli.main import cli
from cli.options import load_one_deal
from solver.core.cards import format_card, parse_card
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.rules import PRESETS
from solver.pyramid.play.app import PlayApp
from solver.pyramid.play.entry import ROW_SIZES, DealEntry
from solver.pyramid.play.entry_screen import EntryScreen

SIZE = (100, 30)


def rows_of(deal: Deal) -> list[list[str]]:
    """The deal's card texts row by row as they are typed: the pyramid's rows, then the stock."""
    texts = deal.text().split()
    out, at = [], 0
    for size in ROW_SIZES:
        out.append(texts[at:at + size])
        at += size
    return out


async def type_text(pilot, text: str, enter: bool = False) -> None:
    """Type ``text`` key by key (a space as the space key), then Enter when ``enter``."""
    for char in text:
        await pilot.press("space" if char == " " else char)
    if enter:
        await pilot.press("enter")


def entry_of(app) -> EntryScreen:
    screen = app.screen
    assert isinstance(screen, EntryScreen)
    return screen


def test_a_deal_typed_in_by_keys_is_the_deal_its_text_parses_to():
    deal = Deal.from_seed(7)
    rows = rows_of(deal)
    spelled = [[("10" + t[1] if t[0] == "T" else t).lower() if k % 2 else t
                for k, t in enumerate(row)] for row in rows]  # 10h and lower case too

    async def go():
        app = PlayApp(None, PRESETS["standard"], "Deal", assistant=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            for r, row in enumerate(spelled):
                await type_text(pilot, "".join(row) if r % 2 else " ".join(row))
                if r < len(spelled) - 1:
                    assert entry_of(app).entry.rows[r] == [parse_card(t) for t in rows[r]]
                await pilot.press("enter")
            await pilot.pause()
            assert app.game is not None and app.game.deal == Deal.parse(deal.text())
            assert app.entered_deal == deal
            assert deal.text() in app.message_text
            assert "Deal" in str(app.query_one("#title").render())
    asyncio.run(go())


def test_an_unknown_card_and_a_duplicate_are_refused_by_name():
    async def go():
        app = PlayApp(None, PRESETS["standard"], "Deal", assistant=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = entry_of(app)
            await type_text(pilot, "7d", enter=True)
            await type_text(pilot, "Xd")
            assert "'Xd' is not a card" in screen.message_text
            await type_text(pilot, "1c")
            assert "'1c' is not a card" in screen.message_text
            await type_text(pilot, "7D")
            assert screen.message_text == "7d is entered already: row 1 (the apex), card 1."
            await type_text(pilot, "Qd")  # q, a queen here, does not quit the game
            await type_text(pilot, "9c", enter=True)
            await type_text(pilot, "9c")
            assert screen.message_text == "9c is entered already: row 2, card 2."
            assert screen.entry.rows == [[parse_card("7d")], [parse_card("Qd"), parse_card("9c")],
                                         []]
            assert app.is_running and app.game is None
            await pilot.press("backspace")  # back into row 2, confirmed before
            assert screen.entry.rows == [[parse_card("7d")], [parse_card("Qd")]]
            assert screen.message_text == "Took back 9c."
    asyncio.run(go())


def test_the_missing_cards_are_named_when_the_stock_is_short():
    deal = Deal.from_seed(3)
    rows = rows_of(deal)
    left_out = rows[-1][5:9]

    async def go():
        app = PlayApp(None, PRESETS["standard"], "Deal", assistant=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            for row in rows[:-1]:
                await type_text(pilot, "".join(row), enter=True)
            await type_text(pilot, "".join(t for t in rows[-1] if t not in left_out), enter=True)
            screen = entry_of(app)
            named = sorted(left_out, key=parse_card)
            assert screen.message_text == (f"The stock has 20 of its 24 cards; missing: "
                                           f"{' '.join(named)}.")
            assert " ".join(named) in str(app.screen.query_one("#entry-missing").render())
            await type_text(pilot, "".join(left_out), enter=True)
            await pilot.pause()
            assert app.game is not None  # complete, but in another stock order
            assert app.game.deal.text().split()[:33] == deal.text().split()[:33]
    asyncio.run(go())


def test_a_row_is_confirmed_only_when_full_and_escape_leaves_without_a_deal():
    async def go():
        app = PlayApp(None, PRESETS["standard"], "Deal", assistant=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = entry_of(app)
            await type_text(pilot, "Ah", enter=True)
            await type_text(pilot, "2h", enter=True)
            assert screen.message_text == "Row 2 has 1 of its 2 cards."
            await type_text(pilot, "3h4h")
            assert screen.message_text.startswith("Row 2 is full")
            await pilot.press("escape")
            await pilot.pause()
        assert app.return_value is None and app.game is None
    asyncio.run(go())


def test_the_entry_model_takes_back_and_names_what_is_missing():
    entry = DealEntry()
    deal = Deal.from_seed(5)
    for k, row in enumerate(rows_of(deal)):
        for t in row:
            assert entry.add(t) is None
        if k == len(ROW_SIZES) - 1:
            last = entry.back()
            assert format_card(last) == row[-1]
            assert entry.confirm().endswith(f"missing: {row[-1]}.")
            assert entry.add(row[-1]) is None
        assert entry.confirm() is None
    assert entry.complete() and entry.deal() == deal
    assert DealEntry().back() is None
    with pytest.raises(ValueError, match="not complete"):
        DealEntry().deal()


# --------------------------------------------------------------------------- --line N

@pytest.fixture
def deal_file(tmp_path, monkeypatch):
    """``deals.txt`` in the working folder: line 1 blank, lines 2 and 3 the deals of seeds 1
    and 2, line 4 blank, line 5 not a deal."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "deals.txt"
    path.write_text(f"\n{Deal.from_seed(1).text()}\n{Deal.from_seed(2).text()}\n\n# notes\n")
    return "deals.txt"


def test_line_picks_that_line_of_a_file_of_many(deal_file):
    assert load_one_deal(None, None, deal_file, line=2) == ({"line": 2}, Deal.from_seed(1))
    assert load_one_deal(None, None, deal_file, line=3) == ({"line": 3}, Deal.from_seed(2))


@pytest.mark.parametrize("args, message", [
    (["--line", "9"], "bad --line 9: deals.txt has 5 lines: there is no line 9"),
    (["--line", "4"], "bad --line 4: deals.txt line 4 is blank, not a deal"),
    (["--line", "5"], "bad --line 5: deals.txt line 5: token 1 '#' is not a card"),
    (["--line", "0"], "0 is not in the range x>=1"),
    (None, "pyramid play takes one deal (--line N picks one): deals.txt holds more than one"),
], ids=["past-the-end", "blank", "not-a-deal", "zero", "no-line"])
def test_a_bad_line_is_one_line_and_exit_2(deal_file, args, message):
    r = CliRunner().invoke(cli, ["play", "--deal-file", deal_file] + (args or []))
    assert r.exit_code == 2, r.output
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], lines
    assert "Traceback" not in r.output


@pytest.mark.parametrize("args, message", [
    (["--line", "2"], "--line N picks a line of a deal file: give --deal-file PATH too"),
    (["--line", "2", "--seed", "4"], "--line N picks a line of a deal file"),
    (["--enter", "--seed", "4"], "--enter types the deal in: leave out --seed"),
    (["--enter", "--after", "draw"], "--enter types the deal in: leave out --after"),
], ids=["line-alone", "line-seed", "enter-seed", "enter-after"])
def test_options_that_do_not_go_together(args, message):
    r = CliRunner().invoke(cli, ["play"] + args)
    assert r.exit_code == 2 and message in r.stderr and "Traceback" not in r.output


def test_ctrl_c_during_the_entry_quits_without_a_deal():
    async def go():
        app = PlayApp(None, PRESETS["standard"], "Deal", assistant=False)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await type_text(pilot, "Kd", enter=True)
            await pilot.press("ctrl+c")
            await pilot.pause()
        assert app.return_value is None and app.game is None and app.entered_deal is None
    asyncio.run(go())
