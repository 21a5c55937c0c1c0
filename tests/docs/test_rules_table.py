"""The table of pruning rules and proofs (docs/internals.md, "Pruning rules and proofs") names
real code and real tests: every ``module.py:name`` is defined in that module of
``solver/pyramid/``, every ``test_file.py::test_name`` is a test of ``tests/pyramid/``, and
every row names a test."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "internals.md"
SECTION = "## Pruning rules and proofs"
CODE = re.compile(r"`([\w/]+\.py):(\w+)`")
TEST = re.compile(r"`(test_\w+\.py)::(test_\w+)`")


def section() -> str:
    """The text of the section, up to the next section."""
    text = PAGE.read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start:] if end < 0 else text[start:end]


def rows() -> list[str]:
    """The table's rows (the header and its rule left out)."""
    lines = [line for line in section().splitlines() if line.startswith("| ")]
    return lines[2:]


def defines(path: Path, name: str) -> bool:
    return re.search(rf"^\s*(?:def|class) {name}\b|^{name} = ", path.read_text(), re.M) is not None


def undefined(pattern: re.Pattern, folder: Path, joint: str) -> tuple[int, list[str]]:
    """How many names ``pattern`` finds in the section (``(file, name)`` pairs, the file under
    ``folder``), and those of them whose file does not define them."""
    named = pattern.findall(section())
    return len(named), [f"{file}{joint}{name}" for file, name in named
                        if not (folder / file).is_file() or not defines(folder / file, name)]


def test_every_module_and_name_exists():
    count, missing = undefined(CODE, ROOT / "solver" / "pyramid", ":")
    assert count >= 30 and not missing, missing


def test_every_test_named_exists():
    count, missing = undefined(TEST, ROOT / "tests" / "pyramid", "::")
    assert count >= 30 and not missing, missing


def test_every_row_names_a_test():
    table = rows()
    assert len(table) >= 30
    assert all(len(row.split(" | ")) == 4 for row in table), "a row without four cells"
    assert [row[:40] for row in table if not TEST.search(row.split(" | ")[3])] == []


def test_the_check_catches_a_name_that_moved():
    assert CODE.findall("`winnable/prune.py:forced_pair`, `model/state.py:no_such`") == [
        ("winnable/prune.py", "forced_pair"), ("model/state.py", "no_such")]
    state = ROOT / "solver" / "pyramid" / "model" / "state.py"
    assert defines(state, "gen_concrete") and not defines(state, "no_such")
