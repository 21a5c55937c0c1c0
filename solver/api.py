"""Conveniences of the public Python API (``solver``'s top level): one call per question.

The Pyramid functions take a deal in any of its forms (a deal number, deal text, 52 card ids) and
rules as a ``Rules`` or a preset name; ``simulate`` takes a game's name and its options by name.
Each checks its input and calls the module that does the work. The engines are imported inside
the functions, so importing this module stays cheap.
"""

from __future__ import annotations

from typing import NamedTuple

from solver.pyramid.model.rules import Rules, find_rules


def as_rules(rules: Rules | str | None) -> Rules:
    """``rules`` as a ``Rules``: a ``Rules`` as it is, a preset name (``"standard"``, ``"msc"``)
    looked up, None the standard rules. Anything else is a ``ValueError``.

    >>> as_rules("msc").recycles
    2
    """
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return find_rules(rules)
    raise ValueError(f"rules must be a Rules or a preset name, not {type(rules).__name__}")


def as_deal(deal):
    """``deal`` as a checked ``Deal`` (``Deal.of``): a ``Deal`` as it is, a deal number
    (``int``) dealt with ``deal_from_seed``, a string parsed with ``parse_deal``, anything else
    checked as 52 card ids. Raises ``ValueError`` for a bad deal.

    >>> as_deal(1).text().split()[:3]
    ['7d', '9c', '4d']
    """
    from solver.pyramid.model.deals import Deal

    return Deal.of(deal)


def solve(deal, rules: Rules | str | None = None, *, minimal: bool = True,
          max_states: int | None = None, timeout: float | None = None, start: int | None = None,
          workspace=None):
    """Settle ``deal`` (a deal number, deal text or 52 card ids) under ``rules``: a
    ``SolveResult`` with the outcome (``Outcome.WON``/``LOST``/``UNKNOWN``), a solution on a win,
    and the counters.

    ``minimal`` (the default) asks for a minimum-move solution (``solve_optimal``); False for any
    winning line, found by the much faster winnability search (``solve_winnable``; ``timeout``
    then does not apply). ``max_states`` and ``timeout`` end the search with ``UNKNOWN``.
    ``start``: a packed position to search from instead of the deal's start
    (``solver.pyramid.model.state.pack_position``); ``workspace``: one from ``search_workspace`` for
    the same ``minimal`` and rules, reused across searches (the commands load it, and with it
    every kernel, before the first search's clock starts).

    >>> result = solve(1)
    >>> result.outcome.name, result.moves, result.optimal
    ('WON', 55, True)
    """
    deal, rules = as_deal(deal), as_rules(rules)
    limits = {} if max_states is None else {"max_states": max_states}
    if minimal:
        from solver.pyramid.optimal.api import solve_optimal

        return solve_optimal(deal, rules, start=start, timeout=timeout, workspace=workspace,
                             **limits)
    if timeout is not None:
        raise ValueError("timeout limits the minimum-move search; with minimal=False use "
                         "max_states")
    from solver.pyramid.winnable.solve import solve_winnable

    return solve_winnable(deal, rules, start=start, workspace=workspace, **limits)


def search_workspace(rules: Rules | str | None = None, minimal: bool = True):
    """The workspace ``solve(..., minimal=minimal, workspace=...)`` reuses under ``rules``, with
    every kernel that search calls loaded (compiled on the first run), so that the first
    search's time is its own. None when memory is too short even for the workspace (the search
    then reports ``UNKNOWN``, reason "memory")."""
    from solver.pyramid.optimal.api import OptimalWorkspace, load_kernels
    from solver.pyramid.winnable.solve import Workspace

    rules = as_rules(rules)
    try:
        if not minimal:
            return Workspace.create(rules)  # loads the winnability kernel
        load_kernels()
        ws = OptimalWorkspace.create()
        ws.winnability(rules)
        return ws
    except MemoryError:
        return None


class Scores(NamedTuple):
    """The winnability of many deals: ``outcomes`` (``Outcome`` values, int8) and ``states``
    (positions expanded, int64), one entry per deal."""

    outcomes: object
    states: object

    @property
    def won(self) -> int:
        """How many deals are winnable."""
        from solver.pyramid.model.outcome import Outcome

        return int((self.outcomes == Outcome.WON).sum())


def score(deals, rules: Rules | str | None = None, max_states: int | None = None) -> Scores:
    """The winnability of many deals in this process: ``deals`` is an iterable of deal numbers
    (``range(1000)``) or an ``(n, 52)`` array of card ids. For files of millions of deals, on
    every core or a cluster, with resumable output, use ``plan_batch`` and ``run_batch``.

    >>> score(range(20)).won
    16
    """
    import numpy as np

    from solver.pyramid.model.deals import deals_from_seeds
    from solver.pyramid.winnable.solve import winnable_many

    rules = as_rules(rules)
    if not isinstance(deals, np.ndarray):
        deals = deals_from_seeds(np.fromiter(deals, dtype=np.int64))
    limits = {} if max_states is None else {"max_states": max_states}
    outcomes, states = winnable_many(deals, rules, **limits)
    return Scores(outcomes, states)


def simulate(game: str, *, jobs: int | None = 1, progress: bool = False, **options) -> dict:
    """Random-play ``game`` (``"old-maid"``, ``"black-maria"``, ``"hearts"``, ``"one-card"``,
    ``"duizenden"`` or an alias) with the options of ``pyramid simulate GAME``, given by their
    Python names (``seed``, ``games``, ``players``, ``variants``, ...; the rest take their
    defaults): the summary, a JSON-ready dict, the same as ``pyramid simulate GAME --json``
    prints. Game ``i`` of a run takes its randomness from stream ``i`` of ``seed``, so the
    result does not depend on ``jobs`` (worker processes, None = every core).

    >>> summary = simulate("old-maid", seed=1, games=1000, players=3)
    >>> summary["game"], summary["games"]
    ('old-maid', 1000)
    """
    from solver.games import find_game
    from solver.games.base import SIMULATE

    found = find_game(game)
    declared = {o.name: o for o in found.options_for(SIMULATE)}
    unknown = sorted(set(options) - set(declared))
    if unknown:
        raise ValueError(f"{found.name} has no option {', '.join(unknown)} (it takes "
                         f"{', '.join(declared)})")
    values = {name: (() if o.multiple and o.default is None else o.default)
              for name, o in declared.items()}
    values.update(options)
    rule_values, run_values, _ = found.split_values(SIMULATE, values)
    rules = found.rules_from_options(**rule_values)
    return found.simulate(rules, jobs=jobs, progress=progress, **run_values)
