"""Typing in a deal card by card: the model of ``pyramid play --enter``'s entry screen.

A player who sees a game elsewhere types its cards row by row, the apex first (row 1, one card,
down to row 7, seven cards), then the 24 stock cards from the top down: the order of deal text
(``solver.pyramid.model.deals``). ``DealEntry`` holds the cards entered so far and checks each
one as it comes, with the deal text's own reading of a card (``deals.deal_card``): a text that is
no card is refused and quoted, a card entered already is refused with the place it holds. A row
is confirmed once full (``confirm``); confirming the stock short of 24 cards names the cards not
entered yet. ``back`` takes back the last card, into the rows confirmed before if need be.
Once every row is confirmed, ``deal()`` is the deal, the same as ``Deal.parse`` of its text.

Nothing here knows a screen (``solver.pyramid.play.entry_screen`` shows it).
"""

from __future__ import annotations

from solver.core.cards import format_card, format_cards
from solver.pyramid.model.deals import Deal, DealError, deal_card
from solver.pyramid.model.layout import DECK_CARDS, PYRAMID_CARDS, PYRAMID_ROWS

STOCK_CARDS = DECK_CARDS - PYRAMID_CARDS
"""Cards of the stock (24)."""
ROW_SIZES = tuple(range(1, PYRAMID_ROWS + 1)) + (STOCK_CARDS,)
"""The cards of each row entered: the pyramid's rows from the apex, then the stock."""
STOCK_ROW = len(ROW_SIZES) - 1
"""The index in ``ROW_SIZES`` of the stock."""


def row_name(row: int) -> str:
    """``row 1 (the apex)``, ``row 3``, ``the stock`` for the index ``row`` of ``ROW_SIZES``."""
    if row == STOCK_ROW:
        return "the stock"
    return "row 1 (the apex)" if row == 0 else f"row {row + 1}"


class DealEntry:
    """The cards of a deal typed in so far (see the module docstring): ``rows`` (card ids, one
    list per row begun, the last one open) and ``confirmed`` (how many rows are confirmed)."""

    def __init__(self) -> None:
        self.rows: list[list[int]] = [[]]
        self.confirmed = 0

    @property
    def row(self) -> int:
        """The index (in ``ROW_SIZES``) of the row being entered."""
        return len(self.rows) - 1

    def complete(self) -> bool:
        """Every row entered and confirmed: ``deal()`` is ready."""
        return self.confirmed == len(ROW_SIZES)

    def cards(self) -> list[int]:
        """Every card entered, in deal text order."""
        return [c for row in self.rows for c in row]

    def where(self, card: int) -> str | None:
        """Where ``card`` was entered: ``row 3, card 2`` or ``the stock, card 5``; None when it
        was not."""
        for r, row in enumerate(self.rows):
            if card in row:
                return f"{row_name(r)}, card {row.index(card) + 1}"
        return None

    def missing(self) -> list[int]:
        """The cards of the deck not entered yet, in card id order."""
        entered = set(self.cards())
        return [c for c in range(DECK_CARDS) if c not in entered]

    def add(self, token: str) -> str | None:
        """Enter the card ``token`` spells in the open row; the refusal as a sentence (an
        unknown card text quoted, a card entered already and where, a full row), or None when
        the card is entered."""
        if self.complete():
            return "The deal is complete."
        size = ROW_SIZES[self.row]
        if len(self.rows[-1]) == size:
            return (f"{row_name(self.row).capitalize()} is full: Enter confirms it, Backspace "
                    f"takes back its last card.")
        try:
            card = deal_card(token)
        except DealError as e:
            return f"{str(e)[0].upper()}{str(e)[1:]}."
        there = self.where(card)
        if there is not None:
            return f"{format_card(card)} is entered already: {there}."
        self.rows[-1].append(card)
        return None

    def back(self) -> int | None:
        """Take back the last card entered (reopening the row before when the open one is
        empty); the card, or None when nothing was entered."""
        if self.complete():
            self.confirmed -= 1
        elif not self.rows[-1] and len(self.rows) > 1:
            self.rows.pop()
            self.confirmed -= 1
        if not self.rows[-1]:
            return None
        return self.rows[-1].pop()

    def confirm(self) -> str | None:
        """Confirm the open row; the refusal as a sentence when it is not full (for the stock,
        the cards still missing named), or None."""
        if self.complete():
            return "The deal is complete."
        size = ROW_SIZES[self.row]
        have = len(self.rows[-1])
        if have < size:
            text = f"{row_name(self.row).capitalize()} has {have} of its {size} cards"
            if self.row == STOCK_ROW:
                text += f"; missing: {format_cards(self.missing())}"
            return text + "."
        self.confirmed += 1
        if not self.complete():
            self.rows.append([])
        return None

    def deal(self) -> Deal:
        """The deal entered (``ValueError`` before it is complete)."""
        if not self.complete():
            raise ValueError(f"the deal is not complete: {len(self.cards())} of {DECK_CARDS} "
                             f"cards entered and confirmed")
        return Deal(self.cards())
