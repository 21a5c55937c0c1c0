"""pyramid: exact Pyramid Solitaire solving and fast random-play engines for four more card games.

Importing the package points numba's on-disk cache at a directory named after a hash of every
source file in ``solver/`` and its packages. numba notices when a kernel's own file changes, but not when a kernel
it calls in another module does; keying the whole cache on all the sources means a stale compiled
kernel can never be loaded. Set ``NUMBA_CACHE_DIR`` to choose the place yourself.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path


def _configure_numba_cache() -> None:
    """Point numba's cache at the source-hash directory, without importing numba.

    numba reads ``NUMBA_CACHE_DIR`` when it is first imported, so the environment variable is
    enough (and keeps ``pyramid --help`` from paying for numba); worker processes inherit it.
    Only when numba is already loaded is its live config changed as well.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for source in sorted(root.rglob("*.py")):
        digest.update(source.relative_to(root).as_posix().encode())
        digest.update(source.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pyramid"
    cache_dir = str(base / f"numba-{digest.hexdigest()[:16]}")
    os.environ["NUMBA_CACHE_DIR"] = cache_dir
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.config.CACHE_DIR = cache_dir


_configure_numba_cache()
