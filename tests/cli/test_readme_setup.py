"""The README's two set-up commands, run exactly as written in a brand-new virtual environment.

Marked slow (it installs the package and its dependencies from the package index); ``.ci/run``
does the same on every run by construction, since it builds its own environment.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
QUICK_TEST_FILE = "tests/core/test_cards.py"
"""The one quick test file the fresh-environment check runs (its install half is what matters)."""


def quick_start_commands() -> list[str]:
    """The shell commands of the README's Quick start section, in order."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, re.S)]


def test_quick_start_names_an_install_and_run_and_a_test_command():
    run_cmd, test_cmd = quick_start_commands()
    assert "pip install" in run_cmd and "pyramid solve --seed" in run_cmd
    assert "pip install" in test_cmd and "pytest" in test_cmd
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_cmd in ci and "venv" in ci
    assert (ROOT / QUICK_TEST_FILE).is_file()


@pytest.mark.slow
def test_quick_start_in_a_fresh_venv(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    # Use the working tree as it is (tests run before a commit too).
    for rel in subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.split():
        src = ROOT / rel
        if src.is_file():
            (clone / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, clone / rel)
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bindir = env_dir / "bin"
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "HOME": str(tmp_path),
           "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    run_cmd, test_cmd = quick_start_commands()
    r = subprocess.run(["bash", "-c", run_cmd], cwd=clone, env=env, capture_output=True,
                       text=True, timeout=1800)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Winnable" in r.stdout
    # Installed under its own distribution name, not the web framework's.
    shown = subprocess.run([str(bindir / "python"), "-m", "pip", "list", "--format", "freeze"],
                           env=env, capture_output=True, text=True, check=True).stdout
    names = {line.split("==")[0].lower() for line in shown.split()}
    assert "pyramid-solitaire" in names and "pyramid" not in names
    # The test command, limited to one quick file so the check stays affordable: the install
    # half is what can go missing.
    r = subprocess.run(["bash", "-c", test_cmd.replace("pytest -q", f"pytest -q {QUICK_TEST_FILE}")],
                       cwd=clone, env=env, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert " passed" in r.stdout
