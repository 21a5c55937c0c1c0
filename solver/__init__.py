"""pyramid: exact Pyramid Solitaire solving and fast random-play engines for four more card games.

Importing the package points numba's on-disk cache at a directory named after a hash of every
source file in ``solver/``. numba notices when a kernel's own file changes, but not when a kernel
it calls in another module does; keying the whole cache on all the sources means a stale compiled
kernel can never be loaded. Set ``NUMBA_CACHE_DIR`` to choose the place yourself.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def _configure_numba_cache() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    digest = hashlib.sha256()
    for source in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pyramid"
    import numba

    numba.config.CACHE_DIR = str(base / f"numba-{digest.hexdigest()[:16]}")


_configure_numba_cache()
