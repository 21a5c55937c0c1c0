"""``python -m solver.pyramid.optimal.warm``: compile (or load) the winnability kernels exactly as
``solve_optimal`` calls them, and nothing else.

``load_kernels`` runs this in a helper process when numba's cache is cold
(``solver.core.compiling.compile_aside``), so that the winnability kernels compile on one core
while the minimum-move kernels compile on the other.
"""

from __future__ import annotations


def load_winnability_kernels() -> None:
    """Load the kernels of ``solve_winnable`` for the argument types ``solve_optimal`` passes
    (the same under any rules: the kernels are compiled per argument types, not rule values)."""
    import numpy as np

    from solver.pyramid.model.layout import DECK_CARDS
    from solver.pyramid.model.rules import PRESETS
    from solver.pyramid.winnable.solve import Workspace, solve_winnable

    rules = PRESETS["standard"]
    solve_winnable(np.arange(DECK_CARDS, dtype=np.int64), rules, max_states=1,
                   workspace=Workspace.create(rules))


if __name__ == "__main__":
    load_winnability_kernels()
