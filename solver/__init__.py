"""pyramid: exact Pyramid Solitaire solving and fast random-play engines for four more card games.

The public Python API is this package's top level (``__all__``); each name is imported from its
module on first use, so ``import solver`` loads neither numpy nor numba::

    >>> import solver
    >>> deal = solver.deal_from_seed(1)               # or solver.parse_deal("7d 9c 4d ...")
    >>> result = solver.solve(deal)                   # minimum moves; solve(deal, minimal=False)
    >>> result.outcome.name, result.moves
    ('WON', 55)
    >>> solver.replay(deal, solver.Rules(), result.solution).won
    True
    >>> solver.describe_steps(deal, solver.Rules(), result.solution)[0]
    ' 1. Kc       remove Kc (pyramid row 7, card 1)'
    >>> solver.score(range(20), "msc").won           # many deals, in this process
    13

Pyramid: ``Rules``/``find_rules`` (the rules; presets ``standard``, ``msc``), ``Deal`` (a deal
checked once, with its search tables built on demand), ``deal_from_seed``,
``deals_from_seeds``, ``parse_deal``, ``format_deal``, ``draw_deal`` (deals), ``solve`` (either
search), ``solve_winnable`` (any winning line), ``solve_optimal`` (minimum moves), ``Outcome``,
``SolveResult``, ``parse_solution``/``format_solution``/``replay``/``Position`` (check a line of
play), ``explain_steps``/``describe_steps`` (a line of play, readable). Analysis:
``analyse_deal`` (everything ``pyramid analyse`` prints), ``best_partial`` (the most cards a lost
deal lets go), ``find_reason`` (a short proof of a loss), ``first_losing_move`` (where a line of
play lost the deal), ``line_choices`` (legal and winning moves along a line), ``playout_rates``
(random and greedy players), ``difficulty_rank``, ``rules_matrix`` (every rule combination).
Challenges (Microsoft Solitaire Collection's, ``msc`` rules unless told): ``score_challenge``
(the most points a deal gives, or the fewest moves to a target), ``card_challenge`` (the most
cards of a rank, or the fewest moves to a count). Batch: ``score`` (many
deals in memory), ``plan_batch``/``run_batch``/``SeedSource``/``LineSource``/``summarise_file``
(files of results, on every core or a Dask cluster). Other games: ``simulate`` (a seeded
random-play run of any game, by name), ``find_game`` (a game's declaration: its options, rules
and functions).

Importing the package points numba's on-disk cache at a directory named after a hash of every
source file in ``solver/`` and its packages. numba notices when a kernel's own file changes, but not when a kernel
it calls in another module does; keying the whole cache on all the sources means a stale compiled
kernel can never be loaded. Set ``NUMBA_CACHE_DIR`` to choose the place yourself.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
from pathlib import Path

PUBLIC = {
    "Rules": "solver.pyramid.model.rules",
    "find_rules": "solver.pyramid.model.rules",
    "Deal": "solver.pyramid.model.deals",
    "deal_from_seed": "solver.pyramid.model.deals",
    "deals_from_seeds": "solver.pyramid.model.deals",
    "parse_deal": "solver.pyramid.model.deals",
    "format_deal": "solver.pyramid.model.deals",
    "draw_deal": "solver.pyramid.model.deals",
    "solve": "solver.api",
    "score": "solver.api",
    "Scores": "solver.api",
    "solve_winnable": "solver.pyramid.winnable.solve",
    "solve_optimal": "solver.pyramid.optimal.api",
    "Outcome": "solver.pyramid.model.outcome",
    "SolveResult": "solver.pyramid.model.outcome",
    "parse_solution": "solver.pyramid.model.replay",
    "format_solution": "solver.pyramid.model.replay",
    "replay": "solver.pyramid.model.replay",
    "Position": "solver.pyramid.model.replay",
    "explain_steps": "solver.pyramid.model.explain",
    "describe_steps": "solver.pyramid.model.explain",
    "analyse_deal": "solver.pyramid.analysis.deal",
    "best_partial": "solver.pyramid.analysis.partial",
    "find_reason": "solver.pyramid.analysis.reasons",
    "first_losing_move": "solver.pyramid.analysis.losing_move",
    "line_choices": "solver.pyramid.analysis.choices",
    "playout_rates": "solver.pyramid.analysis.playouts",
    "difficulty_rank": "solver.pyramid.analysis.difficulty",
    "rules_matrix": "solver.pyramid.analysis.rules_matrix",
    "score_challenge": "solver.pyramid.challenge.api",
    "card_challenge": "solver.pyramid.challenge.api",
    "plan_batch": "solver.batch.plan",
    "run_batch": "solver.batch.run",
    "summarise_file": "solver.batch.run",
    "SeedSource": "solver.batch.sources",
    "LineSource": "solver.batch.sources",
    "simulate": "solver.api",
    "find_game": "solver.games",
}
"""Each public name -> the module that defines it (imported when the name is first used)."""
__all__ = sorted(PUBLIC)


def __getattr__(name: str):
    """A public name, imported from its module on first use (PEP 562)."""
    module = PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(PUBLIC))


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


NO_NUMBA_COLOUR = "NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING"
"""Set (unless the user set it) before numba is imported: with colorama installed (the docs
extra brings it), numba initialises it for coloured error messages, and colorama's exit hook then
writes a colour reset to a terminal after every command, ``--no-color`` and ``NO_COLOR``
notwithstanding."""


_configure_numba_cache()
os.environ.setdefault(NO_NUMBA_COLOUR, "1")
