"""The entry screen of ``pyramid play --enter``: a deal typed in card by card
(``solver.pyramid.play.entry.DealEntry``), shown as it grows, on Textual.

Keys: a card's text (``7d``, ``Td``, ``10d``, any case) is entered when its suit letter is
typed (or a space ends it, or it reaches three characters); Backspace deletes the last character
typed, or takes back the last card; Enter confirms the row once it is full (and enters a card
typed but not ended); Escape leaves without a deal. Each refusal (a text that is no card, a card entered already, a row not
full, the stock's missing cards) shows on the message line. The screen is dismissed with the
``Deal`` once the stock is confirmed, or with None on Escape.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from solver.core.cards import SUIT_CHARS, format_card, format_cards, is_red
from solver.pyramid.model.layout import PYRAMID_ROWS
from solver.pyramid.play.board import CARD_W
from solver.pyramid.play.entry import ROW_SIZES, STOCK_ROW, DealEntry, row_name

STOCK_LINE_CARDS = 12
"""Stock cards drawn per line (the 24 on two lines)."""
KEYS = ("Type each card (7d, Td or 10d; a suit letter ends it), Backspace takes back, Enter "
        "confirms the row, Esc leaves.")
LONGEST_CARD = len("10d")
"""Characters of the longest card text: a text this long not ended by a suit letter is no
card, and is refused at once."""


class EntryScreen(Screen):
    """The deal typed in (see the module docstring): ``entry`` the cards so far, ``typed`` the
    text of the card being typed, ``message_text`` the last refusal or confirmation."""

    CSS = """
    EntryScreen { layout: vertical; }
    #entry-title { height: 1; }
    #entry-board { height: 12; padding: 0 1; }
    #entry-typed { height: 1; }
    #entry-missing { height: 2; }
    #entry-message { height: 2; }
    #entry-keys { height: 2; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.entry = DealEntry()
        self.typed = ""
        self.message_text = ""

    def compose(self) -> ComposeResult:
        yield Static(Text("Type in the deal: the pyramid row by row from the apex, then the "
                          "stock from its top card.", style="bold"), id="entry-title")
        yield Static(id="entry-board")
        yield Static(id="entry-typed")
        yield Static(id="entry-missing")
        yield Static(id="entry-message")
        yield Static(KEYS, id="entry-keys")

    def on_mount(self) -> None:
        self.redraw()

    def on_key(self, event: events.Key) -> None:
        """Every key is the entry's (none reaches the game's keys behind the screen)."""
        event.stop()
        event.prevent_default()
        key, char = event.key, event.character
        if key == "escape":
            self.dismiss(None)
            return
        if key == "backspace":
            self.back()
        elif key == "enter":
            self.confirm()
        elif key == "space":
            self.end_card()
        elif char is not None and char.isprintable() and len(char) == 1:
            self.typed += char
            if char.lower() in SUIT_CHARS or len(self.typed) >= LONGEST_CARD:
                self.end_card()
        if self.entry.complete():
            self.dismiss(self.entry.deal())
            return
        self.redraw()

    def end_card(self) -> bool:
        """Enter the card typed, if any; False when it was refused."""
        if not self.typed:
            return True
        token, self.typed = self.typed, ""
        refusal = self.entry.add(token)
        self.message_text = refusal or ""
        return refusal is None

    def back(self) -> None:
        if self.typed:
            self.typed = self.typed[:-1]
            return
        card = self.entry.back()
        self.message_text = ("Nothing to take back." if card is None else
                             f"Took back {format_card(card)}.")

    def confirm(self) -> None:
        if not self.end_card():
            return
        row = self.entry.row
        refusal = self.entry.confirm()
        self.message_text = refusal or f"{row_name(row).capitalize()} confirmed."

    def redraw(self) -> None:
        self.query_one("#entry-board", Static).update(self.board_text())
        row = self.entry.row
        have = len(self.entry.rows[-1])
        self.query_one("#entry-typed", Static).update(
            f"{row_name(row).capitalize()}: {have} of {ROW_SIZES[row]} cards   typed: "
            f"{self.typed}_")
        missing = self.entry.missing()
        self.query_one("#entry-missing", Static).update(
            f"Not entered yet ({len(missing)}): {format_cards(missing)}" if row == STOCK_ROW
            else f"{len(missing)} cards to enter.")
        style = "" if self.message_text.endswith("confirmed.") else "bold red"
        self.query_one("#entry-message", Static).update(Text(self.message_text, style=style))

    def board_text(self) -> Text:
        """The rows entered so far, the pyramid's in its shape and the stock on two lines;
        ``__`` where a card is still to come in the open row."""
        lines: list[Text] = []
        for r in range(PYRAMID_ROWS):
            line = Text(" " * ((PYRAMID_ROWS - 1 - r) * CARD_W // 2))
            self.row_cards(line, r)
            lines.append(line)
        lines.append(Text())
        stock = Text("stock ")
        self.row_cards(stock, STOCK_ROW, STOCK_LINE_CARDS)
        lines.append(stock)
        rest = Text(" " * len("stock "))
        self.row_cards(rest, STOCK_ROW, ROW_SIZES[STOCK_ROW], STOCK_LINE_CARDS)
        lines.append(rest)
        return Text("\n").join(lines)

    def row_cards(self, line: Text, r: int, stop: int | None = None, start: int = 0) -> None:
        """Append cards ``start..stop`` of row ``r`` to ``line``: the cards entered, then
        ``__`` for those to come once the row is begun."""
        cards = self.entry.rows[r] if r < len(self.entry.rows) else []
        begun = r <= self.entry.row
        for k in range(start, ROW_SIZES[r] if stop is None else stop):
            if k < len(cards):
                line.append(format_card(cards[k]).ljust(CARD_W),
                            style="red" if is_red(cards[k]) else "")
            elif begun:
                line.append("__".ljust(CARD_W), style="dim")
