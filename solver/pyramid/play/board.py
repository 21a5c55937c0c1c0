"""The board of ``pyramid play`` (``solver.pyramid.play.app``): the pyramid, the stock and the
waste drawn from the game, each card where a click can find it (``Spot``)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.widgets import Static

from solver.core.cards import format_card, is_red
from solver.pyramid.model.layout import PYRAMID_CARDS, PYRAMID_ROWS

CARD_W = 4
"""Columns per card on the board (the text and a space)."""
WASTE = "waste"
STOCK_TOP = "stock top"
STOCK = "stock"
"""Board targets besides the pyramid places 0..27: the waste's top, the stock's top card (when
the rules show it) and the stock itself (a click draws)."""

@dataclass(frozen=True)
class Spot:
    """Where a target is drawn on the board: its line and first column."""

    target: object
    line: int
    column: int
    width: int


def pyramid_column(p: int) -> tuple[int, int]:
    """The board line and the first column of pyramid place ``p``."""
    row = 0
    while (row + 1) * (row + 2) // 2 <= p:
        row += 1
    first = row * (row + 1) // 2
    pad = (PYRAMID_ROWS - 1 - row) * CARD_W // 2
    return row, pad + (p - first) * CARD_W


class Board(Static):
    """The pyramid, the stock and the waste, drawn from the game; remembers where each target
    is so that a click can find it."""

    def __init__(self, game_app) -> None:
        super().__init__()
        self.game_app = game_app
        self.spots: list[Spot] = []

    def on_click(self, event: events.Click) -> None:
        for spot in self.spots:
            if spot.line == event.y and spot.column <= event.x < spot.column + spot.width:
                self.game_app.pick(spot.target, by_mouse=True)
                return

    def draw(self) -> None:
        app = self.game_app
        pos = app.game.position
        lines: list[Text] = [Text() for _ in range(PYRAMID_ROWS + 4)]
        self.spots = []

        def card(text_line: int, column: int, card_id, target, width: int = 3) -> None:
            line = lines[text_line]
            if len(line) < column:
                line.append(" " * (column - len(line)))
            label = "--" if card_id is None else format_card(int(card_id))
            style = ""
            if card_id is not None and is_red(int(card_id)):
                style = "red"
            if target is not None and target in app.selected:
                style += " reverse"
            if target is not None and target in app.hinted:
                style += " bold underline"
            if target is not None and target == app.cursor_target():
                style += " on blue"
            line.append(label.ljust(width), style=style.strip())
            if target is not None:
                self.spots.append(Spot(target, text_line, column, width))

        for p in range(PYRAMID_CARDS):
            row, column = pyramid_column(p)
            present = pos.present >> p & 1
            card(row, column, int(pos.deal[p]) if present else None, p if present else None)
        base = PYRAMID_ROWS + 1
        lines[base].append("stock ")
        column = len("stock ")
        left = len(pos.stock)
        if pos.rules.stock_top and pos.stock:
            card(base, column, pos.stock[-1], STOCK_TOP)
            column += CARD_W
        label = f"[{left} left]" if left else ("[turn over]" if app.game.legal_recycle() else
                                               "[empty]")
        lines[base].append(" " * (column - len(lines[base])))
        style = "on blue" if app.cursor_target() == STOCK else ""
        lines[base].append(label, style=style)
        self.spots.append(Spot(STOCK, base, column, len(label)))
        lines[base + 1].append("waste ")
        column = len("waste ")
        shown = pos.waste[-8:]
        if len(pos.waste) > len(shown):
            lines[base + 1].append("… ")
            column += 2
        for i, c in enumerate(shown):
            top = i == len(shown) - 1
            card(base + 1, column, c, WASTE if top else None)
            column += CARD_W
        if not pos.waste:
            lines[base + 1].append("empty")
        self.update(Text("\n").join(lines))
