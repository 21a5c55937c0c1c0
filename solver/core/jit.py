"""How the search kernels are compiled: ``kernel``, and ``noalloc`` for one that allocates
nothing.

numba counts references to every array it handles: taking an array out of a tuple of tables,
passing it on or letting it go updates a counter with an atomic instruction, and numba's pass
that removes such pairs of updates leaves many in place (a call of the minimum-move bound made
18 of them, for nine tables it only reads). A kernel that allocates nothing and returns no
array needs no counting: ``@noalloc`` compiles it with numba's runtime (NRT) off, which
drops every such update. The arrays it reads stay owned by its caller.

numba refuses to compile a ``noalloc`` kernel that allocates (``np.empty`` and the like), so
the rule cannot be broken by accident. A kernel that returns an array must not be ``noalloc``
either: its caller would drop a reference that was never taken (``tests/pyramid/test_noalloc.py``
checks every kernel the searches reach).

Every kernel of the searches runs with ``nogil`` (``KERNEL_OPTIONS``, which both decorators
use): it touches no Python object, so it lets go of Python's global lock while it runs. A search in a worker thread (``pyramid play``'s status)
then never holds up the thread that draws the screen, however long one kernel call takes.
"""

from __future__ import annotations

from numba import njit

KERNEL_OPTIONS = {"cache": True, "nogil": True}
"""numba's options of a search kernel (``kernel``): cached on disk, and ``nogil``, so that other
threads run meanwhile."""
NOALLOC_OPTIONS = {**KERNEL_OPTIONS, "_nrt": False}
"""numba's options of a ``noalloc`` kernel (``_nrt`` is numba's switch of its runtime)."""


def noalloc(fn=None, **options):
    """``njit(cache=True)`` without reference counting, for a kernel that allocates nothing;
    ``@noalloc`` or ``@noalloc(inline="always")`` (further numba options)."""
    if fn is None:
        return lambda f: njit(**NOALLOC_OPTIONS, **options)(f)
    return njit(**NOALLOC_OPTIONS, **options)(fn)


def kernel(fn):
    """``njit`` with ``KERNEL_OPTIONS``: a search kernel that may allocate (``@kernel``)."""
    return njit(**KERNEL_OPTIONS)(fn)
