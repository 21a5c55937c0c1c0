"""The kinds of value of a challenge's own columns (``solver.batch.challenge``), each written and
read in every format as ``solver.batch.kinds`` says of a kind: a value every decided deal has and
an unknown deal lacks (``DecidedCount``: ``max_score``, ``max_removed``, ``moves``;
``DecidedFlag``: ``clears_pyramid``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.batch.analysis import BadRow
from solver.batch.challenge import CHALLENGE_OUTCOMES, NO_FLAG, NO_VALUE
from solver.batch.fields import given_numbers, lookup
from solver.batch.kinds import MAX_INTEGER, UNKNOWN, WINNABLE_TEXT, WonCount, Winnable, \
    integer, lookup_table, valid
from solver.batch.summary import NO_MOVES
from solver.core.text import clip

assert NO_VALUE == NO_MOVES and WINNABLE_TEXT[NO_FLAG] == "", "a challenge's empty fields"
assert CHALLENGE_OUTCOMES.index("unknown") == UNKNOWN, "one unknown code in every table"


@dataclass(frozen=True)
class DecidedCount(WonCount):
    """A whole number 0 .. ``most`` that every decided deal has and an unknown deal lacks (a
    challenge's ``max_score``, ``max_removed`` and ``moves``): written as ``WonCount`` is, empty
    (``NO_VALUE``) for an unknown deal."""

    most: int = MAX_INTEGER
    needs_outcome = True

    def check(self, name, value, outcome):
        if value is None:
            if outcome != UNKNOWN:
                raise BadRow(f"{name} is empty for a deal {CHALLENGE_OUTCOMES[outcome]}")
            return NO_VALUE
        n = integer(name, value)
        if outcome == UNKNOWN:
            raise BadRow(f"{name} {n} given for an unknown deal")
        if n > self.most:
            raise BadRow(f"{name} {n} is more than {self.most:,}")
        return n

    def csv_values(self, fields, name, outcome):
        starts, lens = fields.field(name)
        given = lens > 0
        if (given != (outcome != UNKNOWN)).any():
            return None
        values = given_numbers(fields.windows, starts, lens, given, NO_VALUE)
        return None if values is None or (values > self.most).any() else values

    def parquet_values(self, column, outcome):
        given = valid(column)
        if (given != (outcome != UNKNOWN)).any():
            return None
        values = column.fill_null(NO_VALUE).to_numpy().astype(np.int64)
        return None if (values[given] < 0).any() or (values > self.most).any() else values


@dataclass(frozen=True)
class DecidedFlag(Winnable):
    """true or false for every decided deal, empty for an unknown one (a challenge's
    ``clears_pyramid``): written from codes (0 false, 1 true, ``NO_FLAG`` empty: the texts of
    ``Winnable``), a nullable bool in Parquet, the code (int8) in a block."""

    dtype = np.int8

    def arrow_array(self, pa, values):
        return pa.array(values == 1, mask=values == NO_FLAG, type=self.arrow_type(pa))

    def check(self, name, value, outcome):
        if value is None:
            if outcome != UNKNOWN:
                raise BadRow(f"{name} is empty for a deal {CHALLENGE_OUTCOMES[outcome]}")
            return NO_FLAG
        if not isinstance(value, bool):
            raise BadRow(f"{name} {clip(value)} is not true or false")
        if outcome == UNKNOWN:
            raise BadRow(f"{name} {WINNABLE_TEXT[value]} given for an unknown deal")
        return int(value)

    def csv_values(self, fields, name, outcome):
        found = lookup(fields.windows, *fields.field(name), lookup_table(WINNABLE_TEXT))
        if found is None or ((found == NO_FLAG) != (outcome == UNKNOWN)).any():
            return None
        return found.astype(np.int8)

    def parquet_values(self, column, outcome):
        given = valid(column)
        if (given != (outcome != UNKNOWN)).any():
            return None
        flags = column.fill_null(False).to_numpy(zero_copy_only=False)
        return np.where(given, flags, NO_FLAG).astype(np.int8)
