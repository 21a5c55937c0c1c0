"""The parts directory of a run, ``<out>.parts/``: its lock, its manifest, one file per finished
chunk (and its record), reopened to resume and joined into the output at the end (the layout is
described in ``solver.batch.run``).

Nothing in it is trusted unread (``solver.batch.verify``): a resumed run checks every finished
part against its record and scores a damaged or missing one again, saying so in one line; the
join checks each part again as it copies it, and the joined file against the plan before it
replaces the output. A manifest or record that cannot be read is refused, naming the file and
the remedy (``--force`` starts the run again).
"""

from __future__ import annotations

import errno
import fcntl
import glob
import json
import os
import re
import shutil
from typing import Callable, Iterator

from solver.batch.io import assemble, csv_header, parquet_schema, write_part, write_text_atomic
from solver.batch.plan import (MANIFEST, MANIFEST_VERSION, BatchFailed, BatchInterrupted,
                               BatchPlan, fault_message)
from solver.batch.summary import NS_PER_MS, Summary
from solver.batch.verify import (Planned, csv_output_problem, ids_digest, parquet_output_problem,
                                 part_problem)
from solver.batch.work import ChunkResult
from solver.core.text import clip, shorten_path
from solver.pyramid.model.deals import format_deal

Notice = Callable[[str], None]
"""Where a run says, in one line, what it found and did (a damaged part scored again)."""
RECORD_FIELDS = {"index": int, "rows": int, "digest": str, "sha256": str, "summary": dict}
"""Every field of a part record and its JSON type."""
JSON_ERROR_CHARS = 60
"""At most this much of the JSON parser's message is quoted."""
_PART_NAME = re.compile(r"part-(\d+)\.json$")
_JOIN_TMP = re.compile(r"\.tmp-\d+$")


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


def start_again(plan: BatchPlan) -> str:
    """The remedy named when the parts of an interrupted run cannot be used."""
    return "give --force to start the run again (its finished deals are lost)"


def open_parts(plan: BatchPlan, resume: bool, notice: Notice, force: bool = False
               ) -> dict[int, dict]:
    """Reopen the (locked) ``<out>.parts`` or start a run in it; the done chunks' records by
    index, each part checked against its record (a damaged or missing part is removed with its
    record, said through ``notice``, and scored again). ``force`` throws an interrupted run's
    parts away. Temporary files of writes cut short by a kill are removed, the join's included.
    Raises ``ValueError`` for a manifest or record that cannot be used."""
    d = plan.parts_dir
    manifest_path = os.path.join(d, MANIFEST)
    if os.path.exists(manifest_path) and force:
        clear_parts(plan)
    if os.path.exists(manifest_path):
        if not resume:
            raise ValueError(f"{d} holds an unfinished run: continue it with --resume, or give "
                             f"--force to start again")
        check_manifest(plan, read_json(manifest_path, "manifest", plan))
        stale = glob.glob(os.path.join(d, "*.tmp-*")) + [
            p for p in glob.glob(glob.escape(plan.out) + ".tmp-*") if _JOIN_TMP.search(p)]
        for tmp in stale:
            os.unlink(tmp)  # we hold the lock: no other run is writing them
    else:
        write_text_atomic(manifest_path, json.dumps(plan.manifest(), indent=1))
    done = {}
    for path in sorted(glob.glob(os.path.join(d, "part-*.json"))):
        rec = read_record(path, plan)
        problem = part_problem(read_part(plan, rec["index"]), rec, plan.fmt)
        if problem is not None:
            drop_part(plan, rec, problem, notice)
            continue
        done[rec["index"]] = rec
    return done


def clear_parts(plan: BatchPlan) -> None:
    """Remove everything in the (locked) parts directory: ``--force`` starts the run again."""
    for name in os.listdir(plan.parts_dir):
        path = os.path.join(plan.parts_dir, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)


def read_json(path: str, what: str, plan: BatchPlan):
    """The JSON in ``path`` (the run's manifest or a part record), or a ``ValueError`` naming
    the file and the remedy."""
    try:
        with open(path, "rb") as f:
            return json.loads(f.read().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        why = f"not JSON: {clip(e, JSON_ERROR_CHARS, quote=False)}"
    except OSError as e:
        why = e.strerror or str(e)
    raise ValueError(f"{shorten_path(path)}: the {what} of the interrupted run cannot be read "
                     f"({why}); {start_again(plan)}")


def check_manifest(plan: BatchPlan, old) -> None:
    """Refuse to resume a run whose manifest ``old`` is not this run's settings."""
    path = os.path.join(plan.parts_dir, MANIFEST)
    if not isinstance(old, dict) or not isinstance(old.get("version"), int):
        raise ValueError(f"{shorten_path(path)} is not the manifest of a batch run; "
                         f"{start_again(plan)}")
    if old["version"] != MANIFEST_VERSION:
        raise ValueError(f"cannot resume: {shorten_path(path)} was written by another version of pyramid "
                         f"(manifest version {old['version']}, this one writes "
                         f"{MANIFEST_VERSION}); {start_again(plan)}")
    new = plan.manifest()
    for key, option in (("analyse", "--analyse"), ("challenge", "--challenge")):
        if (key in old) != (key in new):  # parts of two tables never mix
            made = "with" if key in old else "without"
            given = f" {old[key]}" if key == "challenge" and key in old else ""
            raise ValueError(f"cannot resume: the interrupted run was made {made} "
                             f"{option}{given}; resume it {made} {option}{given}, or give "
                             f"--force to start again")
    diff = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    if diff:
        raise ValueError("cannot resume: the interrupted run had different "
                         + ", ".join(f"{k} ({short(old.get(k))} there, {short(new.get(k))} "
                                     f"now)" for k in diff))


def read_record(path: str, plan: BatchPlan) -> dict:
    """The record of a finished part, every field checked (``RECORD_FIELDS``, the index its
    file's name says, a summary that can be read), or a ``ValueError`` naming the file."""
    rec = read_json(path, "part record", plan)
    name = _PART_NAME.search(path)
    why = None
    if not isinstance(rec, dict):
        why = "not a JSON object"
    else:
        missing = [k for k, kind in RECORD_FIELDS.items()
                   if not isinstance(rec.get(k), kind) or isinstance(rec.get(k), bool)]
        if missing:
            why = f"no valid {missing[0]!r}"
        elif name is None or int(name.group(1)) != rec["index"] or rec["index"] < 0:
            why = f"its index {rec['index']} is not its file's"
        elif rec["rows"] < 1:
            why = f"{rec['rows']} rows"
        else:
            try:
                Summary.from_state(rec["summary"])
            except (KeyError, TypeError, ValueError, AttributeError):
                why = "its summary cannot be read"
    if why is not None:
        raise ValueError(f"{shorten_path(path)} is not a part record of this run ({why}): "
                         f"remove it, or {start_again(plan)}")
    return rec


def read_part(plan: BatchPlan, index: int) -> bytes | None:
    """The bytes of chunk ``index``'s part file; ``None`` when there is none."""
    try:
        with open(plan.part(index, plan.fmt), "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def drop_part(plan: BatchPlan, rec: dict, problem: str, notice: Notice) -> None:
    """Remove a damaged part and its record, saying so: its chunk is scored again."""
    path = plan.part(rec["index"], plan.fmt)
    notice(f"{shorten_path(path)} {problem}: its {rec['rows']} deals are scored again")
    for p in (path, plan.part(rec["index"], "json")):
        if os.path.exists(p):
            os.unlink(p)


def short(v) -> str:
    return clip(json.dumps(v, separators=(",", ":")))


def save_chunk(plan: BatchPlan, r: ChunkResult, digest: str, want: Planned) -> dict:
    """Write a finished chunk: its rows, then its record (which marks it done). The rows must be
    the chunk's planned deals (a ``RuntimeError``, a bug, otherwise)."""
    if len(r) != want.rows or ids_digest(r.ids) != want.ids:
        raise RuntimeError(f"chunk {r.index} came back with other rows than its deals")
    id_column = plan.source.id_column
    sha = write_part(plan.part(r.index, plan.fmt), r, plan.fmt, id_column)
    s = Summary(id_column)
    s.add(r.ids, lambda i: format_deal(r.deals[i]), r.outcome, r.moves, r.states, r.ns / NS_PER_MS,
          r.reason, r.analysis, r.challenge)
    rec = {"index": r.index, "rows": len(r), "digest": digest, "sha256": sha,
           "summary": s.state()}
    write_text_atomic(plan.part(r.index, "json"), json.dumps(rec))
    return rec


class PartDamaged(Exception):
    """A part failed its check while it was being joined."""


def join_parts(plan: BatchPlan, planned: list[Planned], done: dict[int, dict],
               notice: Notice) -> list[int]:
    """Join the chunk files into ``plan.out``, each checked against its record as it is copied
    and the joined file against ``planned`` before it replaces ``plan.out``. Returns the chunks
    whose parts were found damaged (removed, said through ``notice``; nothing is joined then),
    or ``[]`` when the output is written. A fault or Ctrl-C keeps the parts for ``--resume``."""
    deals = sum(want.rows for want in planned)

    def parts() -> Iterator[bytes]:
        for want in planned:
            data = read_part(plan, want.index)
            if part_problem(data, done[want.index], plan.fmt) is not None:
                raise PartDamaged
            yield data

    try:
        assemble(plan.out, parts(), plan.fmt, plan.source.id_column, plan.analyse,
                 check=lambda tmp: check_output(plan, tmp, planned),
                 challenge=plan.challenge_kind)
    except PartDamaged:
        damaged = []
        for want in planned:
            rec = done[want.index]
            problem = part_problem(read_part(plan, want.index), rec, plan.fmt)
            if problem is not None:
                drop_part(plan, rec, problem, notice)
                damaged.append(want.index)
        return damaged
    except KeyboardInterrupt:
        raise BatchInterrupted(deals, deals, plan.parts_dir) from None
    except (OSError, MemoryError) as e:
        raise BatchFailed(f"{fault_message(e, plan.parts_dir)}; all {deals} deals are scored and "
                          f"kept in {plan.parts_dir}: run the same command with --resume to "
                          f"write {plan.out}") from None
    return []


def check_output(plan: BatchPlan, tmp: str, planned: list[Planned]) -> None:
    """Refuse (``BatchFailed``) a joined file that is not the plan's rows in order."""
    id_column = plan.source.id_column
    if plan.fmt == "csv":
        problem = csv_output_problem(tmp, csv_header(id_column, plan.analyse,
                                                     plan.challenge_kind), planned)
    else:
        problem = parquet_output_problem(tmp, parquet_schema(id_column, plan.analyse,
                                                             plan.challenge_kind),
                                         id_column, planned)
    if problem is not None:
        raise BatchFailed(f"the joined results do not match the input ({problem}), so "
                          f"{plan.out} was not written; the scored deals are kept in "
                          f"{plan.parts_dir}: run the same command with --resume to join them "
                          f"again")
