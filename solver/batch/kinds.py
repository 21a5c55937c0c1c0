"""The kinds of value a results column holds, each written and read in every format in one place.

A column of ``pyramid batch``'s results (``solver.batch.columns``) is a name and a ``Kind``. The
kind says how the column is written: its format in the CSV kernel (``fmt``, ``empty``,
``names``: ``solver.batch.csv_kernel.fill_rows``), its text in the row-at-a-time writer
(``texts``), its Arrow type and array; and how it is read back: a CSV field's text as the value
the row check takes (``nullable``, ``from_csv``), the check of one row's value (``check``: the
value a block holds, or ``BadRow``), and the checks of a whole block at once (``csv_values``,
``parquet_values``: the block's column, or ``None`` when a row fails or needs the row-by-row
check, which then names it). A kind whose values depend on the deal's outcome (``needs_outcome``)
gets the row's outcome code, or the block's outcome codes.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, ClassVar

import numpy as np

from solver.batch.analysis import BadRow
from solver.batch.csv_kernel import DEAL_CARDS, FRACTION_DIGITS, INT_CHARS, MILLIS, NAME, \
    NUMBER, NUMBER_OR_EMPTY, SCALE
from solver.batch.fields import POW10, CsvFields, Deals, given_numbers, lookup, number, \
    word_table
from solver.batch.summary import MAX_MS, NO_MOVES, NS_PER_MS, OUTCOME_NAMES
from solver.core.cards import format_card
from solver.core.text import clip
from solver.pyramid.model.layout import DECK_CARDS

UNKNOWN = OUTCOME_NAMES.index("unknown")
WON = OUTCOME_NAMES.index("won")
LOST = OUTCOME_NAMES.index("lost")
MAX_INTEGER = int(np.iinfo(np.int64).max)
"""The largest whole number of a results file (seeds, line numbers, moves and states are int64)."""
WINNABLE_TEXT = ("false", "true", "")
"""The CSV text of ``winnable`` per outcome code (lost, won, unknown)."""
WINNABLE_OF = (False, True, None)
"""The ``winnable`` value of each outcome code."""
FIRST_PRINTABLE, LAST_PRINTABLE = 0x21, 0x7E
"""A deal's first byte must be printable ASCII other than a space (so the deal is not blank)."""
CARD_TEXT = np.array([[ord(ch) for ch in format_card(c)] for c in range(DECK_CARDS)],
                     dtype=np.uint8).view(np.uint16).ravel()
"""``CARD_TEXT[c]``: the two characters of card ``c`` as one uint16 (every Pyramid card is 2
characters)."""
CARD_BYTES = CARD_TEXT.view(np.uint8).reshape(DECK_CARDS, 2)
"""``CARD_BYTES[c]``: the two ASCII characters of card ``c``."""
DEAL_CHARS = 3 * DECK_CARDS - 1
assert NS_PER_MS == SCALE, "ms is written as nanoseconds with FRACTION_DIGITS decimals"


def deal_texts(deals: np.ndarray) -> list[str]:
    """The deal text of each row of an ``(n, 52)`` array of card ids (vectorised)."""
    n = len(deals)
    buf = np.full((n, DECK_CARDS, 3), ord(" "), dtype=np.uint8)
    buf[:, :, :2] = CARD_TEXT.take(deals.astype(np.intp)).view(np.uint8).reshape(n, DECK_CARDS, 2)
    flat = buf.reshape(n, 3 * DECK_CARDS)[:, :DEAL_CHARS].tobytes().decode("ascii")
    return [flat[i * DEAL_CHARS:(i + 1) * DEAL_CHARS] for i in range(n)]


def integer(name: str, value, outcome: int | None = None) -> int:
    """``value`` as a whole number 0 .. ``MAX_INTEGER``; raises ``BadRow`` naming ``name``
    (``Count.check``: whatever the ``outcome``)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        whole = int(value)
    else:
        try:
            whole = int(value)
        except (TypeError, ValueError):
            raise BadRow(f"{name} {clip(value)} is not an integer") from None
    if whole < 0:
        raise BadRow(f"{name} {clip(whole, quote=False)} is negative")
    if whole > MAX_INTEGER:
        raise BadRow(f"{name} {clip(whole, quote=False)} is too large (at most 2**63-1)")
    return whole


def is_text(pa, t) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def valid(column) -> np.ndarray:
    """Which rows of an Arrow column are not null."""
    return column.is_valid().to_numpy(zero_copy_only=False)


class Kind:
    """How a column of one kind of value is written and read (the subclasses below)."""

    fmt: ClassVar[int]
    """The column's format in ``csv_kernel.fill_rows``."""
    arrow: ClassVar[str]
    """The pyarrow type's factory (``pa.int64`` ...)."""
    dtype: ClassVar[type | None]
    """The column's numpy type in a block (None: a list)."""
    empty: ClassVar[int] = 0
    """``NUMBER_OR_EMPTY``: the value written as an empty field."""
    needs_outcome: ClassVar[bool] = False
    """Whether the checks take the row's (or block's) outcome: the outcome is checked first."""
    nullable: ClassVar[bool] = False
    """Whether an empty CSV field is read as ``None`` (an empty value) rather than as ''."""
    from_csv: ClassVar[Callable[[str, str], object] | None] = None
    """``from_csv(name, text)``: a CSV field's text as ``check`` takes it, for a kind that
    reads it as something else than the text (or ``None``, ``nullable``)."""

    @property
    def names(self) -> tuple[str, ...]:
        """``NAME``: the text of each code."""
        return ()

    def width(self) -> int:
        """The most characters of a field."""
        raise NotImplementedError

    def texts(self, values) -> list[str]:
        """The CSV text of each value of the chunk's column (row-at-a-time writer)."""
        raise NotImplementedError

    def arrow_type(self, pa):
        return getattr(pa, self.arrow)()

    def arrow_array(self, pa, values):
        return pa.array(values, type=self.arrow_type(pa))

    def check(self, name: str, value, outcome: int | None):
        """One row's value, checked (against its ``outcome`` code where ``needs_outcome``)."""
        raise NotImplementedError

    def arrow_ok(self, pa, t) -> bool:
        """Whether ``parquet_values`` reads a column of Arrow type ``t``."""
        raise NotImplementedError

    def csv_values(self, fields: CsvFields, name: str, outcome: np.ndarray | None):
        """The block's column ``name``, every field checked at once; ``None`` if one fails."""
        raise NotImplementedError

    def parquet_values(self, column, outcome: np.ndarray | None):
        """The block's column of an Arrow batch, checked at once; ``None`` if a row fails."""
        raise NotImplementedError


@dataclass(frozen=True)
class Count(Kind):
    """A whole number 0 .. 2**63-1 in every row (the id column, ``states``): int64."""

    fmt = NUMBER
    arrow = "int64"
    dtype = np.int64

    def width(self) -> int:
        return INT_CHARS

    def texts(self, values) -> list[str]:
        return [str(x) for x in values.tolist()]

    check = staticmethod(integer)  # (a method calling it cost 0.1 us a field)

    def arrow_ok(self, pa, t) -> bool:
        return pa.types.is_integer(t)

    def csv_values(self, fields, name, outcome):
        parsed = number(fields.windows, *fields.field(name), decimal=False)
        return None if parsed is None else parsed[0]

    def parquet_values(self, column, outcome):
        if column.null_count:
            return None
        values = column.to_numpy().astype(np.int64)
        return None if (values < 0).any() else values


@dataclass(frozen=True)
class WonCount(Kind):
    """A whole number that only a won deal may have (``moves``), else empty: ``NO_MOVES`` in
    the chunk's column and in a block, null in Parquet (int16)."""

    fmt = NUMBER_OR_EMPTY
    arrow = "int16"
    dtype = np.int64
    empty = NO_MOVES
    nullable = True

    def width(self) -> int:
        return INT_CHARS

    def texts(self, values) -> list[str]:
        return ["" if m == NO_MOVES else str(m) for m in values.tolist()]

    def arrow_array(self, pa, values):
        return pa.array(values, mask=values == NO_MOVES, type=self.arrow_type(pa))

    def check(self, name, value, outcome):
        if value is None:
            return NO_MOVES
        n = integer(name, value)
        if outcome != WON:
            raise BadRow(f"{name} {n} given for a deal not won (outcome {OUTCOME_NAMES[outcome]})")
        return n

    def arrow_ok(self, pa, t) -> bool:
        return pa.types.is_signed_integer(t)

    def csv_values(self, fields, name, outcome):
        starts, lens = fields.field(name)
        given = lens > 0
        if (outcome[given] != WON).any():
            return None
        return given_numbers(fields.windows, starts, lens, given, NO_MOVES)

    def parquet_values(self, column, outcome):
        given = valid(column)
        values = column.fill_null(NO_MOVES).to_numpy().astype(np.int64)
        if (values[given] < 0).any() or (outcome[given] != WON).any():
            return None
        return values


@dataclass(frozen=True)
class Millis(Kind):
    """A time in milliseconds, written from whole nanoseconds (``ms``): in CSV with
    ``FRACTION_DIGITS`` decimals (the nanoseconds exactly), float64 in Parquet."""

    fmt = MILLIS
    arrow = "float64"
    dtype = np.float64

    def width(self) -> int:
        return INT_CHARS + 1 + FRACTION_DIGITS

    def texts(self, values) -> list[str]:
        out = []
        for ns in values.tolist():
            ms, frac = divmod(ns, NS_PER_MS)  # the exact decimal text of ns / 1e6
            out.append(f"{ms}.{frac:0{FRACTION_DIGITS}d}")
        return out

    def arrow_array(self, pa, values):
        return pa.array(values / NS_PER_MS, type=self.arrow_type(pa))

    def check(self, name, value, outcome):
        try:
            ms = float(value)
        except (TypeError, ValueError):
            raise BadRow(f"{name} {clip(value)} is not a number") from None
        if not (math.isfinite(ms) and 0 <= ms <= MAX_MS):
            raise BadRow(f"{name} {ms} is not a time (0 .. {MAX_MS:.0f})")
        return ms

    def arrow_ok(self, pa, t) -> bool:
        return pa.types.is_floating(t)

    def csv_values(self, fields, name, outcome):
        parsed = number(fields.windows, *fields.field(name), decimal=True)
        if parsed is None:
            return None
        value, places = parsed
        ms = value / POW10[places].astype(np.float64)
        return None if (ms > MAX_MS).any() else ms

    def parquet_values(self, column, outcome):
        if column.null_count:
            return None
        ms = column.to_numpy().astype(np.float64)
        return ms if ((ms >= 0) & (ms <= MAX_MS)).all() else None


@dataclass(frozen=True)
class Deal(Kind):
    """The deal's text, written from its cards (``deal``): a list of strings in a block."""

    fmt = DEAL_CARDS
    arrow = "string"
    dtype = None

    def width(self) -> int:
        return DEAL_CHARS

    def texts(self, values) -> list[str]:
        return deal_texts(values)

    def arrow_array(self, pa, values):
        return pa.array(deal_texts(values), type=self.arrow_type(pa))

    def check(self, name, value, outcome):
        if not isinstance(value, str) or not value.strip():
            raise BadRow(f"the {name} is empty")
        return value

    def arrow_ok(self, pa, t) -> bool:
        return is_text(pa, t)

    def csv_values(self, fields, name, outcome):
        starts, lens = fields.field(name)
        first = fields.codes[starts]
        if (lens < 1).any() or ((first < FIRST_PRINTABLE) | (first > LAST_PRINTABLE)).any():
            return None
        return Deals(fields.text, starts, starts + lens)

    def parquet_values(self, column, outcome):
        if column.null_count:
            return None
        deals = column.to_pylist()
        if not all(deals) or any(map(str.isspace, deals)):  # a deal empty or blank
            return None
        return deals


@functools.cache
def lookup_table(names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``word_table(names)``, built once."""
    return word_table(names)


@dataclass(frozen=True)
class Names(Kind):
    """One of a few words, written from its code (its index in ``names``), an int8 in a block.
    With ``unknown_only`` (``reason``) an unknown deal has one of the words, a decided deal none
    (code 0, whose name is empty); otherwise (``outcome``) every row has one. ``outcomes``: the
    names of the table's outcome codes (its messages name a row's outcome)."""

    words: tuple[str, ...]
    unknown_only: bool = False
    outcomes: tuple[str, ...] = OUTCOME_NAMES
    fmt = NAME
    arrow = "string"
    dtype = np.int8

    @property
    def names(self) -> tuple[str, ...]:
        return self.words

    @property
    def needs_outcome(self) -> bool:
        return self.unknown_only

    @property
    def nullable(self) -> bool:
        return self.unknown_only

    @functools.cached_property
    def codes(self) -> dict[str, int]:
        """Each word's code (its index), the empty word left out."""
        return {word: k for k, word in enumerate(self.words) if word}

    def width(self) -> int:
        return max(len(w) for w in self.words)

    def texts(self, values) -> list[str]:
        return [self.words[k] for k in values.tolist()]

    def arrow_array(self, pa, values):
        return pa.array([self.words[k] or None for k in values.tolist()],
                        type=self.arrow_type(pa))

    def check(self, name, value, outcome):
        code = self.codes
        if self.unknown_only and outcome != UNKNOWN:
            if value is not None:
                raise BadRow(f"{name} {clip(value)} given for a deal {self.outcomes[outcome]}")
            return 0
        if value not in code:
            whose = " of an unknown deal" if self.unknown_only else ""
            raise BadRow(f"{name} {clip(value)}{whose} is not one of {', '.join(code)}")
        return code[value]

    def arrow_ok(self, pa, t) -> bool:
        return is_text(pa, t)

    def csv_values(self, fields, name, outcome):
        found = lookup(fields.windows, *fields.field(name), lookup_table(self.words))
        if found is None or self.unknown_only and ((found == 0) != (outcome != UNKNOWN)).any():
            return None  # (unknown_only: a word for a decided deal, or none for an unknown one)
        return found.astype(np.int8)

    def parquet_values(self, column, outcome):
        import pyarrow as pa
        import pyarrow.compute as pc

        if not self.unknown_only:
            if column.null_count:
                return None
            found = pc.index_in(column, value_set=pa.array(self.words))
            return None if found.null_count else found.to_numpy().astype(np.int8)
        found = pc.index_in(column, value_set=pa.array(self.words[1:]))
        unknown = outcome == UNKNOWN
        if (valid(column) != unknown).any() or (valid(found) != unknown).any():
            return None
        return np.where(unknown, found.fill_null(-1).to_numpy() + 1, 0).astype(np.int8)


@dataclass(frozen=True)
class Winnable(Kind):
    """Whether the deal is winnable, as its outcome says: written from the outcome codes (true,
    false, or empty for an unknown deal; a nullable bool in Parquet), read back as a check of
    the outcome only (a block keeps the outcome)."""

    fmt = NAME
    arrow = "bool_"
    dtype = None
    needs_outcome = True

    @property
    def names(self) -> tuple[str, ...]:
        return WINNABLE_TEXT

    def width(self) -> int:
        return max(len(w) for w in WINNABLE_TEXT)

    def texts(self, values) -> list[str]:
        return [WINNABLE_TEXT[o] for o in values.tolist()]

    def arrow_array(self, pa, values):
        return pa.array(values == WON, mask=values == UNKNOWN, type=self.arrow_type(pa))

    def from_csv(self, name, text):
        if text not in WINNABLE_TEXT:
            raise BadRow(f"{name} {clip(text)} is not true, false or empty")
        return WINNABLE_OF[WINNABLE_TEXT.index(text)]

    def check(self, name, value, outcome):
        if value is not WINNABLE_OF[outcome]:
            shown = WINNABLE_TEXT[int(value)] if isinstance(value, bool) else (
                "empty" if value is None else clip(value))
            raise BadRow(f"{name} {shown} contradicts outcome {OUTCOME_NAMES[outcome]}")
        return value

    def arrow_ok(self, pa, t) -> bool:
        return pa.types.is_boolean(t)

    def csv_values(self, fields, name, outcome):
        found = lookup(fields.windows, *fields.field(name), lookup_table(WINNABLE_TEXT))
        return None if found is None or (found != outcome).any() else found

    def parquet_values(self, column, outcome):
        decided = outcome != UNKNOWN
        if (valid(column) != decided).any() or (
                column.fill_null(False).to_numpy(zero_copy_only=False)[decided]
                != (outcome[decided] == WON)).any():
            return None
        return outcome
