"""The shell examples of the README and ``docs/``: found, run, and compared with the text shown.

An *example block* is a fenced code block (any info string but ``python``) that holds a line
starting with ``$ ``. Its ``$ `` lines are commands; the lines after each command, up to the
next command or the end of the block, are the output shown for it. The conventions, stated
for readers in ``docs/contributing.md``:

* a block is one shell session (bash) in a new, empty folder, so a later command sees the files
  and shell variables of an earlier one in the same block, never those of another block;
* a command ending in ``# exit N`` must exit with status N (other commands' status is not
  checked: ``solve`` exits 1 for a lost deal, as documented);
* what is compared is stdout and stderr together, as a terminal shows them, less the one-time
  ``Compiling ...`` notice of a cold numba cache; trailing spaces and trailing empty lines are
  ignored;
* a line ``...`` (indented or not, perhaps followed by a remark in parentheses:
  ``...  (draws 13 to 40)``) stands for any number of lines (none included), and ``...`` inside
  a line for any text within that line;
* a number directly followed by a unit of time or speed (``ms``, ``s``, ``seconds``,
  ``deals/s``, ``games/s``) is compared as "a number", and in a line holding one, a run of
  spaces matches any run of spaces (columns shift when such a number's width changes);
* everything else must match exactly.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")))
"""Every documentation page, relative to the repository's top."""

ELLIPSIS = "..."
UNITS = ("deals/s", "games/s", "seconds", "ms", "s")
MACHINE_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?= ?(?:%s)(?![\w/]))"
                            % "|".join(re.escape(u) for u in UNITS))
"""A figure that depends on the machine: a number directly followed by a unit of time or speed."""
EXIT_COMMENT = re.compile(r"\s#\s*exit (\d+)\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
COMPILE_NOTICE = re.compile(r"^Compiling ")
GAP = re.compile(r"^\s*\.\.\.(\s+\(.*\))?\s*$")
"""A line standing for any number of lines."""


@dataclass
class Command:
    line: int
    """The 1-based line of the page where the command stands."""
    text: str
    expected: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int | None:
        m = EXIT_COMMENT.search(self.text)
        return int(m.group(1)) if m else None


@dataclass
class Block:
    page: str
    line: int
    commands: list[Command]

    @property
    def ident(self) -> str:
        return f"{self.page}:{self.line}"


def blocks_of(page: str, text: str | None = None) -> list[Block]:
    """The example blocks of one page (``text`` given: of that text, named ``page``)."""
    if text is None:
        text = (ROOT / page).read_text()
    lines = text.splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3)
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            line = lines[i]
            body.append(line[indent:] if not line[:indent].strip() else line.lstrip())
            i += 1
        i += 1
        if info == "python" or not any(b.startswith("$ ") for b in body):
            continue
        commands: list[Command] = []
        for n, b in enumerate(body):
            if b.startswith("$ "):
                commands.append(Command(start + 2 + n, b[2:]))
            elif not commands:
                raise ValueError(f"{page}:{start + 2 + n}: output before the first command")
            else:
                commands[-1].expected.append(b)
        found.append(Block(page, start + 1, commands))
    return found


def all_blocks() -> list[Block]:
    return [b for page in PAGES for b in blocks_of(page)]


# -- comparing ------------------------------------------------------------------------------------

def line_pattern(expected: str) -> re.Pattern:
    """The regular expression one expected line stands for (the conventions above)."""
    loose = bool(MACHINE_NUMBER.search(expected))
    out = []
    for k, piece in enumerate(expected.split(ELLIPSIS)):
        if k:
            out.append(".*")
        pos = 0
        for m in MACHINE_NUMBER.finditer(piece):
            out.append(_literal(piece[pos:m.start()], loose))
            out.append(r"\d[\d,]*(?:\.\d+)?")
            pos = m.end()
        out.append(_literal(piece[pos:], loose))
    return re.compile("".join(out))


def _literal(text: str, loose: bool) -> str:
    if not loose:
        return re.escape(text)
    return " +".join(re.escape(part) for part in re.split(r" +", text))


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` lines are what ``expected`` shows (trailing spaces and blank lines
    at the end ignored on both sides)."""
    exp = _trim(expected)
    act = _trim(actual)
    pats = [None if GAP.match(e) else line_pattern(e) for e in exp]

    @lru_cache(maxsize=None)
    def go(i: int, j: int) -> bool:
        if i == len(pats):
            return j == len(act)
        if pats[i] is None:
            return go(i + 1, j) or (j < len(act) and go(i, j + 1))
        return j < len(act) and pats[i].fullmatch(act[j]) is not None and go(i + 1, j + 1)

    return go(0, 0)


def _trim(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


# -- running --------------------------------------------------------------------------------------

MARK = "\x1eEXAMPLE-END"


@dataclass
class Ran:
    command: Command
    output: list[str]
    code: int

    def problem(self) -> str | None:
        """What is wrong with this command's run, or None."""
        want = self.command.exit_code
        if want is not None and want != self.code:
            return f"exit {self.code}, documented {want}"
        if not matches(self.command.expected, self.output):
            return "output differs"
        return None


def run_block(block: Block, folder: Path, timeout: float = 600) -> list[Ran]:
    """Run the block's commands in one bash session in ``folder``, each one's stdout and stderr
    together."""
    script = []
    for c in block.commands:
        script.append(f"{{ {c.text}\n}} 2>&1\nprintf '\\n{MARK} %s\\n' $?")
    # Unbuffered, so that stdout and stderr interleave as they do in a terminal.
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100", PYTHONUNBUFFERED="1")
    env.pop("NO_COLOR", None)
    env.pop("PYRAMID_DEBUG", None)
    # The `pyramid` of the documentation is this checkout's, wherever the test runs.
    bindir = folder / ".bin"
    bindir.mkdir(exist_ok=True)
    shim = bindir / "pyramid"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m cli "$@"\n')
    shim.chmod(0o755)
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.run(["bash", "-c", "\n".join(script)], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=timeout)
    pieces = re.split("\n" + MARK + r" (\d+)\n", proc.stdout)
    ran = []
    for k, c in enumerate(block.commands):
        out = pieces[2 * k].split("\n") if 2 * k < len(pieces) else []
        code = int(pieces[2 * k + 1]) if 2 * k + 1 < len(pieces) else -1
        ran.append(Ran(c, [line for line in out if not COMPILE_NOTICE.match(line)], code))
    return ran


def report(ran: list[Ran]) -> str:
    """A readable account of every command that went wrong: a diff of the text shown (-) and
    the output (+)."""
    parts = []
    for r in ran:
        problem = r.problem()
        if problem:
            diff = difflib.unified_diff(_trim(r.command.expected), _trim(r.output), "shown",
                                        "printed", lineterm="", n=1)
            parts.append(f"line {r.command.line}: $ {r.command.text}\n  {problem}\n"
                         + "\n".join("    " + d for d in diff))
    return "\n".join(parts)
