"""The parts directory of a run, ``<out>.parts/``: its lock, its manifest, one file per finished
chunk (and its record), reopened to resume and joined into the output at the end (the layout is
described in ``solver.batch.run``).
"""

from __future__ import annotations

import errno
import fcntl
import glob
import json
import os
import re

from solver.batch.io import assemble, clip, write_part, write_text_atomic
from solver.batch.plan import MANIFEST, BatchFailed, BatchInterrupted, BatchPlan, fault_message
from solver.batch.summary import NS_PER_MS, Summary
from solver.batch.work import ChunkResult
from solver.pyramid.deals import format_deal


def lock_parts(plan: BatchPlan) -> int:
    """Create ``<out>.parts`` if needed and lock it for this run; the lock's file descriptor.
    Raises ``BatchFailed`` when another run holds it."""
    d = plan.parts_dir
    try:
        os.makedirs(d, exist_ok=True)
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as e:
        raise BatchFailed(f"cannot create {d}: {e.strerror or e}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        os.close(fd)
        if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise
        raise BatchFailed(f"another pyramid batch run is writing {plan.out} (it holds {d}): "
                          f"wait for it to end, or stop it and run again with --resume") from None
    return fd


_JOIN_TMP = re.compile(r"\.tmp-\d+$")


def open_parts(plan: BatchPlan, resume: bool) -> dict[int, dict]:
    """Reopen the (locked) ``<out>.parts`` or start a run in it; the done chunks' records by
    index. Temporary files of writes cut short by a kill are removed, the join's included."""
    d = plan.parts_dir
    manifest_path = os.path.join(d, MANIFEST)
    if os.path.exists(manifest_path):
        if not resume:
            raise ValueError(f"{d} holds an unfinished run: continue it with --resume, or "
                             f"delete that directory to start again")
        with open(manifest_path, encoding="utf-8") as f:
            old = json.load(f)
        new = plan.manifest()
        if ("analyse" in old) != ("analyse" in new):  # analysed and plain parts never mix
            made = "with" if "analyse" in old else "without"
            raise ValueError(f"cannot resume: the interrupted run was made {made} --analyse; "
                             f"resume it {made} --analyse, or delete {d} to start again")
        diff = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
        if diff:
            raise ValueError("cannot resume: the interrupted run had different "
                             + ", ".join(f"{k} ({_short(old.get(k))} there, {_short(new.get(k))} "
                                         f"now)" for k in diff))
        stale = glob.glob(os.path.join(d, "*.tmp-*")) + [
            p for p in glob.glob(glob.escape(plan.out) + ".tmp-*") if _JOIN_TMP.search(p)]
        for tmp in stale:
            os.unlink(tmp)  # we hold the lock: no other run is writing them
    else:
        write_text_atomic(manifest_path, json.dumps(plan.manifest(), indent=1))
    done = {}
    ext = plan.fmt
    for path in glob.glob(os.path.join(d, "part-*.json")):
        with open(path, encoding="utf-8") as f:
            rec = json.load(f)
        if os.path.exists(plan.part(rec["index"], ext)):
            done[rec["index"]] = rec
    return done


def _short(v) -> str:
    return clip(json.dumps(v, separators=(",", ":")))


def save_chunk(plan: BatchPlan, r: ChunkResult, digest: str) -> dict:
    """Write a finished chunk: its rows, then its record (which marks it done)."""
    id_column = plan.source.id_column
    write_part(plan.part(r.index, plan.fmt), r, plan.fmt, id_column)
    s = Summary(id_column)
    s.add(r.ids, lambda i: format_deal(r.deals[i]), r.outcome, r.moves, r.states, r.ns / NS_PER_MS,
          r.reason, r.analysis)
    rec = {"index": r.index, "rows": len(r), "digest": digest, "summary": s.state()}
    write_text_atomic(plan.part(r.index, "json"), json.dumps(rec))
    return rec


def join_parts(plan: BatchPlan, n_chunks: int, deals: int) -> None:
    """Join the chunk files into ``plan.out``; a fault or Ctrl-C keeps them for ``--resume``."""
    try:
        assemble(plan.out, [plan.part(k, plan.fmt) for k in range(n_chunks)], plan.fmt,
                 plan.source.id_column, plan.analyse)
    except KeyboardInterrupt:
        raise BatchInterrupted(deals, deals, plan.parts_dir) from None
    except (OSError, MemoryError) as e:
        raise BatchFailed(f"{fault_message(e, plan.parts_dir)}; all {deals} deals are scored and "
                          f"kept in {plan.parts_dir}: run the same command with --resume to "
                          f"write {plan.out}") from None
