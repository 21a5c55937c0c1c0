"""Every kernel of the Pyramid searches runs with ``nogil`` (``solver.core.jit``): a search in a
worker thread (``pyramid play``'s status after a move) then leaves the thread that draws the
screen free, however long one kernel call takes. A kernel compiled without it holds Python's
lock for its whole call (seen: 30 to 270 ms per call, a keypress drawn that late)."""

import importlib
import pkgutil

from numba.core.registry import CPUDispatcher

import solver.pyramid


def pyramid_kernels():
    """``(module.name, dispatcher)`` of every numba kernel defined in ``solver.pyramid`` (the
    terminal game's screens, which need Textual, apart)."""
    out = []
    for info in pkgutil.walk_packages(solver.pyramid.__path__, "solver.pyramid."):
        if info.name.startswith("solver.pyramid.play"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == info.name:
                out.append((f"{info.name}.{name}", obj))
    return out


def test_every_search_kernel_lets_go_of_the_gil():
    kernels = pyramid_kernels()
    assert len(kernels) > 50  # the walk found them (astar_run, max_search, the dfs, ...)
    names = {name.rsplit(".", 1)[1] for name, _ in kernels}
    assert {"astar_run", "max_search", "fewest_search", "rehash_tagged"} <= names
    held = [name for name, disp in kernels if not disp.targetoptions.get("nogil")
            and disp.targetoptions.get("inline", "never") == "never"]
    assert held == []
