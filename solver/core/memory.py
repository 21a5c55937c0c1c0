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
"""

from __future__ import annotations

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
