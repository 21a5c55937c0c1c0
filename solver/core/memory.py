"""How much more memory this process may allocate: the searches size their tables by it.

``available_bytes()`` is the smallest of the limits that apply, each read when asked (they change
as the process and the rest of the machine run):

* the address-space limit (``ulimit -v``, ``RLIMIT_AS``) minus the address space in use now
  (``VmSize`` in ``/proc/self/status``);
* the memory the kernel says it can hand out without swapping (``MemAvailable`` in
  ``/proc/meminfo``);
* a cgroup v2 limit (``/sys/fs/cgroup/memory.max`` minus ``memory.current``), as in a container.

A limit that cannot be read (another operating system, no cgroup) does not count. The searches
take ``budget_bytes()``: that figure less a safety margin (``SAFETY_FRACTION`` of it and
``SAFETY_BYTES`` more), kept for Python, the result and whatever else the process still needs.
Reading the figures costs some tens of microseconds, so the searches ask only when they are about
to allocate (at the start of a search and when a table grows), never per position.

Memory runs out in more ways than a ``MemoryError``: under an address-space limit the dynamic
loader cannot map a library (numba's llvmlite then raises ``OSError: Could not find/load shared
object file 'libllvmlite.so'``, the loader's "failed to map segment" as its context), and LLVM
reports "LLVM ERROR: out of memory" on stderr and aborts the process. ``out_of_memory(e)`` tells
all of them from a real input/output error; ``says_out_of_memory(text)`` reads a dead worker
process's stderr.
"""

from __future__ import annotations

import errno
import resource
import time
from pathlib import Path

KIB = 1024
SAFETY_BYTES = 64 * KIB * KIB
"""Left unallocated whatever the limits say: room for Python objects, results and numba."""
SAFETY_FRACTION = 0.1
"""And this share of what is available on top (other processes may allocate meanwhile)."""
UNLIMITED = 1 << 62
"""The figure returned when no limit applies or none could be read."""

OUT_OF_MEMORY = "out of memory"
"""How an error line names memory running out (``out_of_memory_text``)."""
MORE_MEMORY = "allow it more memory (ulimit -v, a container's limit) or free some"
"""What to do about it, in the error line."""
OUT_OF_MEMORY_WORDS = ("out of memory", "MemoryError", "Cannot allocate memory",
                       "allocation failed", "Allocation failed", "failed to map segment",
                       "cannot map zero-fill pages", "std::bad_alloc")
"""Text that says memory ran out: Python's and LLVM's words (``Buffer allocation failed``),
numba's, ``strerror(ENOMEM)``, the dynamic loader's when it cannot map a library, C++'s failed
allocation."""

LOAD_ADDRESS_SPACE = 440 * KIB * KIB
"""Address space (``ulimit -v``) the engines need to load their compiled kernels. Below it LLVM
may abort the whole process while mapping them ("LLVM ERROR: out of memory", C++'s
``std::bad_alloc``: a crash no handler can catch, seen under limits from 330 to 400 MB, while
every command ran at 410 MB and above; numba 0.68, on this project's machine), so a command that
loads them refuses at once instead (``check_room_to_load``)."""

PROC_STATUS = Path("/proc/self/status")
PROC_MEMINFO = Path("/proc/meminfo")
CGROUP_MAX = Path("/sys/fs/cgroup/memory.max")
CGROUP_CURRENT = Path("/sys/fs/cgroup/memory.current")


def _proc_field_bytes(path: Path, name: str) -> int | None:
    """The ``name: N kB`` line of a /proc file, in bytes; None when absent or unreadable."""
    try:
        with path.open() as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1]) * KIB
    except (OSError, ValueError, IndexError):
        return None
    return None


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None  # absent, unreadable, or "max" (no limit)


def address_space_used() -> int | None:
    """Bytes of address space this process uses now (``VmSize``); None when unknown."""
    return _proc_field_bytes(PROC_STATUS, "VmSize")


def address_space_left() -> int | None:
    """Bytes of address space ``RLIMIT_AS`` still allows; None when unlimited or unknown."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    used = address_space_used()
    if used is None:
        return None
    return max(0, soft - used)


def available_bytes() -> int:
    """The most this process could allocate now (``UNLIMITED`` when no limit is known)."""
    limits = [address_space_left(), _proc_field_bytes(PROC_MEMINFO, "MemAvailable")]
    cg_max, cg_current = _read_int(CGROUP_MAX), _read_int(CGROUP_CURRENT)
    if cg_max is not None and cg_current is not None:
        limits.append(max(0, cg_max - cg_current))
    known = [x for x in limits if x is not None]
    return min(known) if known else UNLIMITED


_last_budget: list = [float("-inf"), UNLIMITED]
"""``[monotonic time, budget]`` of the last reading (for ``budget_bytes(max_age=...)``)."""


def budget_bytes(max_age: float = 0.0) -> int:
    """What a search may allocate now: ``available_bytes()`` less the safety margin (>= 0).

    ``max_age`` > 0 accepts a reading up to that many seconds old (for callers that start many
    short searches a second; an allocation that fails anyway is still caught by the search).
    """
    now = time.monotonic()
    if max_age > 0 and now - _last_budget[0] <= max_age:
        return _last_budget[1]
    avail = available_bytes()
    budget = UNLIMITED if avail >= UNLIMITED else max(
        0, int(avail * (1 - SAFETY_FRACTION)) - SAFETY_BYTES)
    _last_budget[:] = [now, budget]
    return budget


def fits(nbytes: int) -> bool:
    """Whether allocating ``nbytes`` more stays within ``budget_bytes()``."""
    if nbytes < 0:
        raise ValueError(f"nbytes must be >= 0, not {nbytes}")
    return nbytes <= budget_bytes()


def says_out_of_memory(text: str) -> bool:
    """Whether ``text`` (an error message, a process's stderr) says memory ran out."""
    return any(word in text for word in OUT_OF_MEMORY_WORDS)


def out_of_memory(e: BaseException | None) -> bool:
    """Whether memory running out is behind ``e`` or an exception it was raised from: a
    ``MemoryError``, an ``OSError`` of ``ENOMEM``, or an ``OSError``/``ImportError`` whose message
    says so (a library the loader could not map). Other exceptions' messages are not read: they
    may quote the user's input."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, MemoryError):
            return True
        if isinstance(e, (OSError, ImportError)) and (
                getattr(e, "errno", None) == errno.ENOMEM or says_out_of_memory(str(e))):
            return True
        e = e.__cause__ or e.__context__
    return False


def out_of_memory_text(e: BaseException) -> str:
    """How an error line names the memory running out behind ``e``: ``out of memory``, or the
    message of an exception that starts so and says where (``out of memory in a worker process
    (LLVM ERROR: out of memory)``)."""
    text = str(e)
    return text if text.startswith(OUT_OF_MEMORY) else OUT_OF_MEMORY


def as_memory_error(e: BaseException) -> BaseException:
    """``e``, or a ``MemoryError`` saying what ``e`` said when memory running out is behind it
    (``out_of_memory``): what a worker process sends back, since its chain of causes, which tells
    a library that could not be mapped from a missing one, is lost on the way."""
    if isinstance(e, MemoryError) or not out_of_memory(e):
        return e
    return MemoryError(f"{type(e).__name__}: {e}")


def check_room_to_load() -> None:
    """Refuse (``MemoryError``, saying how much is needed and allowed) to load the engines under
    an address-space limit smaller than ``LOAD_ADDRESS_SPACE``, where loading them could crash
    the process instead of failing cleanly."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY and soft < LOAD_ADDRESS_SPACE:
        raise MemoryError(f"{OUT_OF_MEMORY} (the engines need {LOAD_ADDRESS_SPACE // KIB:,} KiB "
                          f"of address space to load; ulimit -v allows {soft // KIB:,})")
