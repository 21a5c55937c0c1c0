"""Saying once, on stderr, that numba is compiling: at the moment it really starts.

numba loads a kernel from its on-disk cache (``cache=True``) when it can and compiles it only
when the cache has no usable copy; every real compilation is announced on numba's event bus as
a ``numba:compile`` event, which a cache hit never sends. Listening for that event tells a cold
cache from a warm one exactly, whatever the machine's load (a timer cannot: a busy machine can
take seconds just to load the cache).
"""

from __future__ import annotations

import contextlib
import sys
from typing import TextIO

COMPILE_EVENT = "numba:compile"
"""The numba event sent when a function is really compiled (not loaded from the cache)."""


@contextlib.contextmanager
def compile_notice(message: str, stream: TextIO | None = None):
    """While the block runs, print ``message`` once on ``stream`` (default stderr) as soon as
    numba starts compiling anything; print nothing when every kernel comes from the cache.

    Example::

        with compile_notice("Compiling the solver kernels..."):
            load_kernels()
    """
    from numba.core import event  # numba only when a kernel is about to be used

    said = False

    class _Notice(event.Listener):
        def on_start(self, ev) -> None:
            nonlocal said
            if not said:
                said = True
                print(message, file=stream if stream is not None else sys.stderr, flush=True)

        def on_end(self, ev) -> None:
            pass

    with event.install_listener(COMPILE_EVENT, _Notice()):
        yield
