"""The fields of a block of results CSV text, read with numpy a whole column at a time.

``CsvFields`` cuts a block of whole lines into fields from the positions of its commas and
newlines; ``number`` reads whole numbers and times from their digits, ``lookup`` looks words up
(``winnable``, ``outcome``, ``reason``) by their bytes packed into one integer each. These are
the parts each column kind (``solver.batch.kinds``) and the analysis columns
(``solver.batch.quick``) read their fields with.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

DOT, ZERO = b".", b"0"
MAX_DIGITS = 18
"""Most digits of a whole number read here (int64 holds them all)."""
MAX_TIME_DIGITS = 15
"""Most digits of a time read here: below 2**53, its digits then divide by a power of ten into
exactly the double ``float()`` gives (both are the correctly rounded quotient)."""
KEY_BYTES = 8
"""Bytes of a word packed into one integer key (every outcome, reason and winnable text fits)."""
POW10 = 10 ** np.arange(MAX_DIGITS + 1, dtype=np.int64)
WINDOW = MAX_DIGITS + 1
"""Bytes of a field looked at, at most (a number's digits and point, or a key's bytes)."""


def word_key(word: str) -> int:
    """``word``'s bytes as one little-endian integer (``lookup`` packs fields the same way)."""
    if len(word) > KEY_BYTES:
        raise ValueError(f"{word!r} is longer than {KEY_BYTES} bytes")
    return int.from_bytes(word.encode("ascii"), "little")


def word_table(words) -> tuple[np.ndarray, np.ndarray]:
    """``(sorted keys, their indices in words)`` for looking fields up with ``lookup``."""
    keys = np.array([word_key(w) for w in words], dtype=np.uint64)
    order = np.argsort(keys)
    return keys[order], order


class Deals(Sequence):
    """The deal texts of a CSV block, cut from its text only when asked for (the summary needs
    the ten slowest)."""

    def __init__(self, text: str, starts: np.ndarray, stops: np.ndarray) -> None:
        self.text, self.starts, self.stops = text, starts, stops

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        return self.text[self.starts[i]:self.stops[i]]


def windows_of(chunk: bytes) -> np.ndarray:
    """Row ``i``: the ``WINDOW`` bytes of ``chunk`` from index ``i`` on (zeros past its end), a
    view: a field's bytes are one row, gathered without index arithmetic."""
    padded = np.frombuffer(chunk + bytes(WINDOW), dtype=np.uint8)
    return np.lib.stride_tricks.as_strided(padded, shape=(len(chunk), WINDOW), strides=(1, 1),
                                           writeable=False)


def gather(windows: np.ndarray, starts: np.ndarray, lens: np.ndarray, width: int):
    """``(bytes, inside)``: each field's first ``width`` bytes as a row (0 past its end), and
    which of them are the field's."""
    inside = np.arange(width) < lens[:, None]
    return np.where(inside, windows[starts, :width], np.uint8(0)), inside


def lookup(windows, starts, lens, table) -> np.ndarray | None:
    """Each field's index in the table's words; ``None`` if a field is none of them."""
    if lens.max(initial=0) > KEY_BYTES:
        return None
    b, _ = gather(windows, starts, lens, KEY_BYTES)
    keys = np.ascontiguousarray(b).view("<u8").ravel()
    sorted_keys, index = table
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    if (sorted_keys[at] != keys).any():
        return None
    return index[at]


def number(windows, starts, lens, decimal: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """``(digits as an integer, digits after the point)`` of fields of 1 .. ``MAX_DIGITS``
    ASCII digits (with ``decimal``: 1 .. ``MAX_TIME_DIGITS`` and at most one point among them);
    ``None`` otherwise. Read a column of bytes at a time, all fields at once."""
    most = MAX_TIME_DIGITS if decimal else MAX_DIGITS
    if lens.min(initial=1) < 1 or lens.max(initial=0) > most + decimal:
        return None
    b = windows[starts, :int(lens.max(initial=1))]
    n = len(starts)
    value = np.zeros(n, dtype=np.int64)
    places = np.zeros(n, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    seen = np.zeros(n, dtype=bool)  # the point came already
    for j in range(b.shape[1]):
        byte = b[:, j]
        inside = j < lens
        digit = inside & (byte - ZERO[0] < 10)  # uint8: bytes below '0' wrap round to >= 10
        point = inside & (byte == DOT[0]) if decimal else False
        if (inside & ~(digit | point)).any() or (seen & point).any():
            return None
        value = np.where(digit, value * 10 + (byte - ZERO[0]), value)
        count += digit
        if decimal:
            places += seen & digit
            seen |= point
    if (count < 1).any() or (count > most).any():
        return None
    return value, places


def given_numbers(windows, starts, lens, given, missing: int) -> np.ndarray | None:
    """Whole numbers (``number``) in the fields where ``given``, ``missing`` elsewhere; ``None``
    if one of those fields is not one."""
    value = np.full(len(lens), missing, dtype=np.int64)
    if given.any():
        parsed = number(windows, starts[given], lens[given], decimal=False)
        if parsed is None:
            return None
        value[given] = parsed[0]
    return value


class CsvFields:
    """The fields of a block of whole results CSV lines: ``field(name)`` is ``(starts, lens)``
    of that column's field in every line (``codes``: the block's bytes, ``windows``: theirs
    from each index on, ``windows_of``)."""

    def __init__(self, chunk: bytes, codes: np.ndarray, header: list[str], starts: np.ndarray,
                 lens: np.ndarray) -> None:
        self.chunk = chunk
        self.codes = codes
        self.header = header
        self.starts = starts
        self.lens = lens
        self.windows = windows_of(chunk)

    def field(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        k = self.header.index(name)
        return self.starts[:, k], self.lens[:, k]

    @functools.cached_property
    def text(self) -> str:
        """The block as text (it is ASCII)."""
        return self.chunk.decode("ascii")
