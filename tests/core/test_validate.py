"""solver.core.validate: the one integer check behind every public function's input errors."""

import numpy as np
import pytest

from solver.core.validate import check_int, is_int


@pytest.mark.parametrize("value", [0, -3, 7, np.int64(5), np.uint8(2), 2**70])
def test_integers_are_ints(value):
    assert is_int(value)
    assert check_int(value, "bad") == int(value)
    assert type(check_int(value, "bad")) is int


@pytest.mark.parametrize("value", [True, False, np.bool_(True), 1.0, "3", None, [1]])
def test_non_integers_are_refused_with_the_callers_message(value):
    assert not is_int(value)
    with pytest.raises(ValueError, match="^players must be an integer$"):
        check_int(value, "players must be an integer", 1, 9)


def test_bounds_are_inclusive_and_optional():
    assert check_int(2, "m", 2, 7) == 2
    assert check_int(7, "m", 2, 7) == 7
    assert check_int(-10**9, "m", hi=7) == -10**9
    assert check_int(10**9, "m", lo=2) == 10**9
    for bad in (1, 8):
        with pytest.raises(ValueError, match="^m$"):
            check_int(bad, "m", 2, 7)


def test_range_message_is_used_only_for_an_integer_out_of_range():
    with pytest.raises(ValueError, match="^out of range$"):
        check_int(8, "not an integer", 2, 7, "out of range")
    with pytest.raises(ValueError, match="^not an integer$"):
        check_int("8", "not an integer", 2, 7, "out of range")
    assert check_int(5, "not an integer", 2, 7, "out of range") == 5
