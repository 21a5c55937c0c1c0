"""The settings of a batch run, checked before any work: ``plan_batch`` gives a ``BatchPlan``
(what ``manifest.json`` records), and the errors a run ends with.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from solver.batch.analysis import ANALYSE_CHUNK, DEFAULT_PLAYOUTS, check_playouts
from solver.batch.challenge import CHALLENGE_CHUNK, Challenge
from solver.batch.cluster import SchedulerLost
from solver.batch.io import check_writable, output_format, require_pyarrow
from solver.batch.sources import LineSource, SeedSource
from solver.batch.work import ChunkTask
from solver.core.memory import MORE_MEMORY, out_of_memory, out_of_memory_text
from solver.core.runner import WorkerDied
from solver.core.text import clip
from solver.pyramid.model.rules import Rules

MANIFEST_VERSION = 3
"""2: chunk summaries keep whole nanoseconds (``ns_total``); 3: part records hold the SHA-256 of
their part file (``solver.batch.verify``)."""
MAX_STATES = 2 ** 63 - 1
"""The largest ``max_states`` (the kernels count positions in int64)."""
WINNABLE_CHUNK = 10_000
"""Deals per chunk when deciding winnability (~0.3-0.5 s of work)."""
OPTIMAL_CHUNK = 250
"""Deals per chunk with ``optimal`` (minimum moves take far longer per deal)."""
PARTS_SUFFIX = ".parts"
"""The directory of a run's finished chunks is the output's name plus this."""
MANIFEST = "manifest.json"


class BatchInterrupted(Exception):
    """Ctrl-C stopped the run; finished chunks are kept and ``resume`` continues."""

    def __init__(self, done: int, total: int | None, parts: str) -> None:
        self.done, self.total, self.parts = done, total, parts
        of = f" of {total}" if total is not None else ""
        if not done:
            super().__init__("interrupted before any deal was finished; nothing is kept")
            return
        super().__init__(f"interrupted: {done}{of} deals are done and kept in {parts}; "
                         f"run the same command with --resume to continue")


class BatchFailed(Exception):
    """A fault stopped the run (disk full, the Dask scheduler lost, out of memory, the output in
    use by another run); the message says why and what is kept. Finished chunks stay on disk."""


def kept_message(done: int, parts: str, total: int | None = None) -> str:
    """The end of a failure message: what is kept and how to continue."""
    if not done:
        return "no deal was finished and nothing is kept"
    of = f" of {total}" if total is not None else ""
    return (f"the {done}{of} finished deals are kept in {parts}: run the same command with "
            f"--resume to continue")


@dataclass
class BatchPlan:
    """Validated settings of one run (what ``manifest.json`` records)."""

    source: SeedSource | LineSource
    out: str
    rules: Rules
    fmt: str
    optimal: bool
    max_states: int
    timeout: float | None
    chunk: int
    analyse: bool = False
    playouts: int = DEFAULT_PLAYOUTS
    deals: int | None = None
    """How many deals the input holds, when that is known before it is read (seeds; a regular
    deal file, counted by the check of every line); ``None`` for a stream."""
    challenge: Challenge | None = None
    """The challenge answered instead of the winnability (``--challenge``), or None."""

    @property
    def challenge_kind(self) -> str | None:
        """The challenge whose table the results are written in (None: ``COLUMNS``)."""
        return None if self.challenge is None else self.challenge.kind

    @property
    def parts_dir(self) -> str:
        return self.out + PARTS_SUFFIX

    def manifest(self) -> dict:
        """The run's settings; ``analyse`` (the playouts per deal) only in an analysed run's,
        ``challenge`` and ``rank`` only in a challenge's, so a plain run's manifest is what it
        was before ``--analyse`` and ``--challenge`` existed."""
        d = {"version": MANIFEST_VERSION, "source": self.source.describe(),
             "rules": self.rules.to_dict(), "format": self.fmt, "optimal": self.optimal,
             "max_states": self.max_states, "timeout": self.timeout, "chunk": self.chunk}
        if self.analyse:
            d["analyse"] = {"playouts": self.playouts}
        if self.challenge is not None:
            d.update(self.challenge.manifest())
        return d

    def part(self, index: int, ext: str) -> str:
        return os.path.join(self.parts_dir, f"part-{index:06d}.{ext}")

    def task(self, index: int, payload) -> ChunkTask:
        common = dict(index=index, rules=self.rules, optimal=self.optimal,
                      max_states=self.max_states, timeout=self.timeout, analyse=self.analyse,
                      playouts=self.playouts, challenge=self.challenge)
        if isinstance(self.source, SeedSource):
            return ChunkTask(seeds=payload, **common)
        return ChunkTask(lines=payload, **common)


def plan_batch(source, out: str, rules: Rules = Rules(), fmt: str | None = None,
               optimal: bool = False, max_states: int = 0, timeout: float | None = None,
               chunk: int | None = None, force: bool = False, analyse: bool = False,
               playouts: int | None = None, challenge: Challenge | None = None) -> BatchPlan:
    """Check the settings of a run before any work. Raises ``ValueError`` naming the option.

    ``out`` must be a new file (or, with ``force``, an existing regular file to replace, or the
    output of an interrupted run) in a directory where files can be written; its suffix gives
    the format unless ``fmt`` does (``solver.batch.io.output_format``). ``analyse`` adds the
    analysis columns with ``playouts`` playouts per won deal (default ``DEFAULT_PLAYOUTS``;
    ``playouts`` without ``analyse`` is refused). ``challenge`` answers that challenge for each
    deal instead (``solver.batch.challenge``; refused with ``optimal``, ``analyse`` or
    ``playouts``: its table has columns of its own, and its lines are the fewest moves already).
    """
    if not isinstance(source, (SeedSource, LineSource)):
        raise ValueError("source must be a SeedSource or a LineSource")
    if challenge is not None:
        check_alone(challenge, optimal=optimal, analyse=analyse, playouts=playouts)
    deals = source.check() if isinstance(source, LineSource) else source.total()
    check_output(out, force)
    fmt = output_format(out, fmt)
    if fmt == "parquet":
        require_pyarrow()
    if isinstance(max_states, bool) or not 0 <= max_states <= MAX_STATES:
        raise ValueError(f"--max-states must be 0 (no limit) .. 2**63-1, not {clip(max_states)}")
    if timeout is not None and not optimal and challenge is None:
        raise ValueError("--timeout applies to --optimal and --challenge only (winnability has "
                         "--max-states)")
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"--timeout must be a positive, finite number of seconds, not {timeout}")
    playouts = check_playouts(playouts, analyse)
    chunk = chunk or min(OPTIMAL_CHUNK if optimal else WINNABLE_CHUNK,
                         ANALYSE_CHUNK if analyse else WINNABLE_CHUNK,
                         CHALLENGE_CHUNK if challenge is not None else WINNABLE_CHUNK)
    if chunk <= 0:
        raise ValueError(f"--chunk must be positive, not {chunk}")
    return BatchPlan(source, out, rules, fmt, optimal, max_states, timeout, chunk, bool(analyse),
                     playouts, deals, challenge)


def check_alone(challenge: Challenge, **options) -> None:
    """Refuse an option given with ``--challenge`` (``options``: each one's value, None or
    False when not given): a challenge's results are a table of their own, whose lines are the
    fewest moves already."""
    given = [name for name, value in options.items() if value not in (None, False)]
    if given:
        raise ValueError(f"--challenge does not combine with --{given[0]}: a challenge's "
                         f"results have columns of their own (its best line in the fewest "
                         f"moves), not the winnability's")


def check_output(out: str, force: bool = False) -> None:
    """Refuse an ``out`` that cannot be written, or whose finished results would be overwritten
    without ``force`` (the output of an interrupted run may be: ``resume`` writes it again)."""
    check_writable(out, "--out")
    if os.path.lexists(out):
        if not os.path.isfile(out):
            raise ValueError(f"--out {clip(out)} exists and is not a regular file")
        unfinished = os.path.exists(os.path.join(out + PARTS_SUFFIX, MANIFEST))
        if not force and not unfinished:
            raise ValueError(f"--out {clip(out)} already exists: give --force to replace it, or "
                             f"another --out")


def fault_message(e: BaseException, parts: str) -> str | None:
    """What stopped the run, for a fault (not bad input, not a bug); ``None`` otherwise. A file
    of the ``parts`` directory is named by its base name (the message names the directory).
    Memory running out is said so, wherever it ran out (``solver.core.memory.out_of_memory``:
    a library that could not be loaded for it is no input/output error)."""
    if out_of_memory(e):
        return f"{out_of_memory_text(e)}: {MORE_MEMORY}, or use fewer --jobs"
    if isinstance(e, (SchedulerLost, WorkerDied)):
        return str(e)
    if isinstance(e, OSError):
        name = e.filename
        if name and os.path.dirname(os.path.abspath(name)) == os.path.abspath(parts):
            name = os.path.basename(name)
        where = f"cannot write {name}: " if name else ""
        return f"{where}{e.strerror or e}"
    return None
