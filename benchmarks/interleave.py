"""The searches' speed in two trees of this repository, measured interleaved: the speed check of
a change that must not change speed (issue 31: the package split, the ``Deal`` object, the
kernels called by name).

    python benchmarks/interleave.py OLD_TREE NEW_TREE [--repeats 3] [--write]

Each round runs, for the old tree and then the new one, each tree's own ``bench_winnability.py``,
``bench_limited.py`` and ``bench_optimal.py`` (``--no-write``, fixed sizes below) with
``PYTHONPATH`` set to that tree, so that load on the machine hits both alike; the kernels are
compiled beforehand by a first, untimed round. Figures read from the benchmarks' own output:

* winnability: deals per second, the one-core throughput row and each per-deal sample row;
* limited recycles: deals per second of every row (each rule combination, and the issue rows);
* minimum moves: the seconds of all deals together per preset (``--per-seed``).

Printed: for each figure the median over the rounds of new / old (a rate: above 1 is faster; a
time: below 1 is faster) and the spread of those ratios. ``--write`` puts the table into
``benchmarks/RESULTS.md`` as the section ``## Interleaved: OLD_TREE against NEW_TREE``.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import machine, now_utc, write_section  # noqa: E402

WINNABILITY = ["--deals", "100000", "--sample", "10000", "--jobs", "1", "--no-write"]
LIMITED = ["--deals", "100", "--issue-deals", "500", "--no-write"]
OPTIMAL = ["--seeds", "0:300", "--no-write"]


def run(tree: Path, script: str, args: list[str]) -> str:
    """The output of ``tree``'s benchmark ``script`` run with ``args`` under ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, str(tree / "benchmarks" / script), *args], env=env,
                          capture_output=True, text=True, cwd=tree, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{tree / 'benchmarks' / script} failed:\n{done.stderr[-2000:]}")
    return done.stdout


def table_rows(text: str) -> list[list[str]]:
    """The cells of every markdown table row of ``text`` (separator rows left out)."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|") and not re.match(r"\|\s*-", line):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def number(cell: str) -> float:
    return float(cell.replace(",", "").split()[0])


def winnability(tree: Path) -> dict[str, float]:
    """Deals per second: the one-core throughput and every per-deal sample."""
    out = {}
    for row in table_rows(run(tree, "bench_winnability.py", WINNABILITY)):
        if row[0] == "1" and len(row) == 5:
            out["winnability: throughput, 1 core"] = number(row[2])
        elif len(row) == 11 and row[0] != "sample":
            out[f"winnability: {row[0]}, per deal"] = number(row[4])
    return out


def limited(tree: Path) -> dict[str, float]:
    """Deals per second of every row of the limited-recycles benchmark."""
    return {f"limited: {row[0]}": number(row[4])
            for row in table_rows(run(tree, "bench_limited.py", LIMITED))
            if len(row) == 8 and row[0] != "combination" and row[2][:1].isdigit()}


def optimal(tree: Path) -> dict[str, float]:
    """Seconds of all deals per preset (the benchmark's per-seed lines)."""
    with tempfile.NamedTemporaryFile("r", suffix=".tsv") as per_seed:
        run(tree, "bench_optimal.py", [*OPTIMAL, "--per-seed", per_seed.name])
        totals: dict[str, float] = {}
        for line in Path(per_seed.name).read_text().splitlines():
            cells = line.split()
            if len(cells) >= 6 and cells[0] in ("standard", "msc"):
                key = f"minimum moves: {cells[0]}, seconds of all deals"
                totals[key] = totals.get(key, 0.0) + float(cells[5])
    return totals


MEASURES = (winnability, limited, optimal)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="write the table into RESULTS.md")
    args = ap.parse_args()
    old, new = args.old.resolve(), args.new.resolve()
    for tree in (old, new):  # compile (or load) every kernel before any timing
        for measure in MEASURES:
            measure(tree)
    ratios: dict[str, list[float]] = {}
    firsts: dict[str, tuple[float, float]] = {}
    for r in range(args.repeats):
        for measure in MEASURES:
            before, after = measure(old), measure(new)
            for key in before.keys() & after.keys():
                ratios.setdefault(key, []).append(after[key] / before[key])
                firsts.setdefault(key, (before[key], after[key]))
        print(f"round {r + 1} of {args.repeats} done", file=sys.stderr)
    lines = ["| figure | old | new | new / old, median | ratios (min .. max) |",
             "| --- | --- | --- | --- | --- |"]
    for key in sorted(ratios):
        a, b = firsts[key]
        rs = ratios[key]
        lines.append(f"| {key} | {a:,.2f} | {b:,.2f} | {statistics.median(rs):.3f} | "
                     f"{min(rs):.3f} .. {max(rs):.3f} |")
    cmd = (f"python benchmarks/interleave.py {args.old} {args.new} --repeats {args.repeats}")
    text = "\n".join([f"## Interleaved: {args.old.name} against {args.new.name}", "",
                      f"`{cmd}`, {now_utc()}. Machine: {machine()}.", "",
                      "Rates are deals per second (above 1: the new tree is faster), the "
                      "minimum-move figures seconds (below 1: faster). Old and new columns: "
                      "the first round.", "", *lines, ""])
    print(text)
    if args.write:
        write_section(f"## Interleaved: {args.old.name} against {args.new.name}", text)


if __name__ == "__main__":
    main()
