"""The documentation site builds with ``mkdocs build --strict`` (a broken link, a missing anchor or
a page left out of the navigation fails), and every repository path the README and ``docs/``
name exists."""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys

from doc_examples import PAGES, ROOT

TOP = ("solver", "tests", "benchmarks", "data", "docs", "cli")
PATH = re.compile(r"(?<![\w./~-])(?:%s)/[\w./*<>-]*" % "|".join(TOP))
"""A repository path as the pages write it: a top folder of the repository, a slash, and the
rest (``<game>`` a placeholder, ``*`` a pattern); not part of a longer path or a URL."""


def named_paths(text: str) -> list[str]:
    """Every repository path ``text`` names, in prose, backticks, links or code blocks."""
    found = []
    for m in PATH.finditer(text):
        found.append(m.group(0).rstrip(".,:;"))
    return found


def missing(path: str) -> bool:
    """Whether ``path`` names nothing in the repository (a placeholder ``<...>`` is checked up
    to its first placeholder, a pattern must match something)."""
    path = path.split("<", 1)[0]
    if "*" in path:
        return not glob.glob(str(ROOT / path))
    return not (ROOT / path).exists()


def test_every_path_the_pages_name_exists():
    bad = [f"{page}: {path}" for page in PAGES
           for path in named_paths((ROOT / page).read_text()) if missing(path)]
    assert not bad, "paths named in the docs that do not exist:\n" + "\n".join(bad)


def test_the_path_check_catches_a_path_that_moved():
    text = ("`tests/golden_deals.txt` pins 21 seeds; see [the rules](docs/pyramid.md#deals), "
            "`python benchmarks/bench_batch.py`, `solver/games/<game>/report.py`, "
            "`tests/games/test_oldmaid*.py`, and `~/.cache/pyramid/numba-<hash>`.")
    paths = named_paths(text)
    assert paths == ["tests/golden_deals.txt", "docs/pyramid.md", "benchmarks/bench_batch.py",
                     "solver/games/<game>/report.py", "tests/games/test_oldmaid*.py"]
    assert [p for p in paths if missing(p)] == ["tests/golden_deals.txt"]


def test_the_site_builds_strictly(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    # Not --quiet: it hides the warnings, and --strict then has none to count.
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--site-dir", str(tmp_path / "site")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "commands" / "index.html").is_file()
