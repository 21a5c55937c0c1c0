"""The public Python API: the README's "Python API" example runs and prints what the README says,
every name of ``solver.__all__`` resolves, the examples in the API's docstrings hold, and
``import solver`` stays cheap (no numpy, no numba until a function is used)."""

from __future__ import annotations

import doctest
import json
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import solver
from solver.core.extras import DISTRIBUTION, install_hint

ROOT = Path(__file__).resolve().parents[2]
DOCTESTED = ("solver", "solver.api", "solver.pyramid.model.explain", "solver.core.extras")
"""The modules whose docstring examples are the API's documentation."""


def readme_example() -> tuple[str, str]:
    """``(code, output)``: the ``python`` block of the README's "Python API" section and the
    ``text`` block after it."""
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    output = re.search(r"```text\n(.*?)```", section[code.end():], re.S)
    return code.group(1), output.group(1)


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def test_the_readme_example_prints_what_the_readme_shows():
    code, expected = readme_example()
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout == expected


@pytest.mark.parametrize("name", solver.__all__)
def test_every_public_name_resolves_and_is_documented(name):
    value = getattr(solver, name)
    assert value.__doc__ and value.__doc__.strip(), f"{name} has no docstring"


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'solve_everything'"):
        solver.solve_everything  # noqa: B018
    assert set(solver.__all__) <= set(dir(solver))


@pytest.mark.parametrize("module", DOCTESTED)
def test_the_docstring_examples_hold(module):
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0, f"{module} has no examples"
    assert result.failed == 0


def test_importing_the_package_loads_no_engine():
    """``import solver`` and looking up ``Rules`` cost no numpy and no numba; using a solver
    function loads them."""
    proc = run_python("import sys, solver\n"
                      "r = solver.Rules()\n"
                      "print(sorted(m for m in ('numpy', 'numba') if m in sys.modules))\n"
                      "solver.deal_from_seed(1)\n"
                      "print(sorted(m for m in ('numpy', 'numba') if m in sys.modules))\n")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines() == ["[]", "['numba', 'numpy']"]


@pytest.mark.parametrize("deal, rules, error", [
    (True, None, "not a bool"),
    ("7d 9c", None, "too few cards"),
    (1, "vegas", "vegas"),
    (1, 3, "rules must be a Rules or a preset name"),
])
def test_solve_refuses_bad_input_with_a_value_error(deal, rules, error):
    with pytest.raises(ValueError, match=error):
        solver.solve(deal, rules)


def test_solve_takes_a_seed_a_text_or_card_ids_alike():
    deal = solver.deal_from_seed(3)
    results = [solver.solve(d, "msc", minimal=False)
               for d in (3, solver.format_deal(deal), deal)]
    assert len({(r.outcome, tuple(r.solution)) for r in results}) == 1
    with pytest.raises(ValueError, match="with minimal=False use max_states"):
        solver.solve(3, minimal=False, timeout=1.0)


def test_score_agrees_with_one_search_per_deal():
    scores = solver.score(range(8), "msc")
    singles = [solver.solve_winnable(solver.deal_from_seed(s), solver.find_rules("msc"))
               for s in range(8)]
    assert [int(o) for o in scores.outcomes] == [int(r.outcome) for r in singles]
    assert scores.won == sum(r.winnable for r in singles)


def test_the_distribution_is_named_in_the_hints_and_the_version():
    from cli.main import cli

    assert DISTRIBUTION == "pyramid-solitaire"
    assert install_hint("parquet") == "pip install 'pyramid-solitaire[parquet]'"
    with pytest.raises(ValueError, match="unknown extra"):
        install_hint("gpu")
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'name = "{DISTRIBUTION}"' in pyproject
    assert 'pyramid = "cli.main:main"' in pyproject
    result = CliRunner().invoke(cli, ["--version"], prog_name="pyramid")
    assert result.exit_code == 0 and re.fullmatch(r"pyramid, version \S+\n", result.output)


def test_simulate_gives_what_the_command_prints_as_json():
    """``solver.simulate(GAME, **options)`` is ``pyramid simulate GAME --json`` with the
    options by their Python names; the ones not given take the command's defaults."""
    from cli.main import cli

    result = CliRunner().invoke(cli, ["simulate", "one-card", "--games", "40", "--seed", "5",
                                      "--players", "3", "--quiet", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == json.loads(json.dumps(
        solver.simulate("onecard", games=40, seed=5, players=3)))


@pytest.mark.parametrize("game, options, error", [
    ("old-maid", {"bogus": 1}, "old-maid has no option bogus"),
    ("chess", {}, "unknown game 'chess'"),
    ("old-maid", {"variants": ("nope",)}, "--variant"),
])
def test_simulate_refuses_bad_input_with_a_value_error(game, options, error):
    with pytest.raises(ValueError, match=error):
        solver.simulate(game, games=10, **options)
