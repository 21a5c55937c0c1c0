"""The statistics layer: Wilson intervals and means, checked against hand computations."""

from __future__ import annotations

import math

from solver.core.stats import fmt_mean, fmt_p, mean_ci, wilson


def test_mean_of_nothing_and_of_one_value_has_no_interval():
    assert mean_ci([]) == {"mean": None, "lo": None, "hi": None, "n": 0}
    assert mean_ci([0.25]) == {"mean": 0.25, "lo": None, "hi": None, "n": 1}
    assert fmt_mean(mean_ci([0.25])) == "0.250 [n/a]"
    assert fmt_mean(mean_ci([])) == "n/a"


def test_mean_interval_by_hand():
    m = mean_ci([0.0, 1.0, 0.5, 0.5])
    sd = math.sqrt(((0.5 ** 2) * 2) / 3)
    half = 1.959963984540054 * sd / 2
    assert m["n"] == 4 and m["mean"] == 0.5
    assert math.isclose(m["lo"], 0.5 - half) and math.isclose(m["hi"], 0.5 + half)


def test_wilson_by_hand():
    w = wilson(8, 10)
    z = 1.959963984540054
    centre = (0.8 + z * z / 20) / (1 + z * z / 10)
    half = z * math.sqrt(0.8 * 0.2 / 10 + z * z / 400) / (1 + z * z / 10)
    assert math.isclose(w["lo"], centre - half) and math.isclose(w["hi"], centre + half)
    assert wilson(0, 0) == {"p": None, "lo": None, "hi": None, "n": 0}
    assert wilson(0, 5)["lo"] == 0.0 and wilson(5, 5)["hi"] == 1.0
    assert fmt_p(wilson(0, 0)) == "n/a"
