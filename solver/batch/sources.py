"""Where a batch's deals come from: a range of seeds or a deal file, cut into fixed chunks.

A source yields ``(index, payload, digest)`` per chunk: the payload is what a worker needs to
score the chunk (``(first, stop)`` seeds, or the chunk's ``(line number, text)`` lines), the
digest lets a resumed run check that its input is the interrupted run's. Chunks are cut by count
alone, never by the job count, so the same input always gives the same chunks.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from solver.core.text import clip
from solver.core.rng import MAX_SEED
from solver.pyramid.model.sources import DealFile


@dataclass(frozen=True)
class SeedSource:
    """Seeds ``start`` .. ``stop - 1``."""

    start: int
    stop: int
    id_column = "seed"

    def describe(self) -> dict:
        return {"kind": "seeds", "start": self.start, "stop": self.stop}

    def total(self) -> int:
        return self.stop - self.start

    @staticmethod
    def chunk_ids(payload: tuple[int, int]) -> np.ndarray:
        """The ids of a chunk's rows: its seeds."""
        first, stop = payload
        return np.arange(first, stop, dtype=np.int64)

    def chunks(self, size: int) -> Iterator[tuple[int, tuple[int, int], str]]:
        """``(index, (first, stop), digest)`` per chunk."""
        for k, first in enumerate(range(self.start, self.stop, size)):
            yield k, (first, min(first + size, self.stop)), ""


@dataclass(frozen=True)
class LineSource:
    """The deals of a deal file, one per line (``-`` = stdin); blank lines are skipped. The file
    is read by ``solver.pyramid.model.sources.DealFile`` (what it accepts, how it refuses); only a
    regular file is counted beforehand (for the progress bar's total), the others are read once.
    """

    path: str
    id_column = "line"

    def describe(self) -> dict:
        return {"kind": "lines"}  # the content is checked chunk by chunk (digests), not the name

    def name(self) -> str:
        return DealFile(self.path).name

    def check(self) -> int | None:
        """Refuse a path that cannot be a deal file. A regular file is read through and every line
        checked now, before any deal is scored (the refusals of ``DealFile.deals``), and its deals
        are counted (returned: what ``total`` would count again); stdin or a pipe can be read only
        once, so its lines are checked as they arrive (``None``)."""
        source = DealFile(self.path)
        source.check()
        return source.check_deals() if source.is_regular() else None

    @staticmethod
    def chunk_ids(payload: tuple) -> np.ndarray:
        """The ids of a chunk's rows: the line numbers of its deals."""
        return np.array([lineno for lineno, _ in payload], dtype=np.int64)

    def total(self) -> int | None:
        """Non-blank lines of a regular file (one quick pass); ``None`` for stdin or a pipe."""
        return DealFile(self.path).count()

    def chunks(self, size: int) -> Iterator[tuple[int, tuple, str]]:
        """``(index, ((line number, text), ...), digest)`` per chunk, read lazily."""
        source = DealFile(self.path)
        k = 0
        block: list = []
        for item in source.lines():
            block.append(item)
            if len(block) == size:
                yield k, tuple(block), lines_digest(block)
                k += 1
                block = []
        if block:
            yield k, tuple(block), lines_digest(block)
        elif k == 0:
            raise ValueError(source.no_deal())


def lines_digest(block) -> str:
    """A digest of a chunk's lines (with their numbers): a resumed run checks its input with it."""
    h = hashlib.blake2b(digest_size=16)
    for lineno, text in block:
        h.update(f"{lineno}\t{text}\n".encode())
    return h.hexdigest()


def parse_seed_range(text: str) -> SeedSource:
    """``"A:B"`` -> seeds A .. B-1. Raises ``ValueError`` naming the expected form."""
    t = text.strip().replace("_", "")
    form = "must be START:STOP (STOP excluded), e.g. 0:1000000"
    if ":" not in t:
        raise ValueError(f"{form}, not {clip(text)}")
    a, b = t.split(":", 1)
    try:
        start, stop = int(a), int(b)
    except ValueError:
        raise ValueError(f"{form}, not {clip(text)}") from None
    if not 0 <= start < stop <= MAX_SEED + 1:
        raise ValueError(f"{clip(text)} must satisfy 0 <= START < STOP <= 2**63")
    return SeedSource(start, stop)
