"""One deal analysed: the verdict and everything a player can learn from it.

``analyse_deal`` puts together the searches of ``solver.pyramid``:

* the verdict and, for a won deal, a shortest line (``optimal.api.solve_optimal``);
* for a lost deal, a short proof when one exists (``reasons.find_reason``; otherwise the number
  of positions the search tried) and the best partial result (``partial.best_partial``);
* for a won deal, at each step of the shortest line how many legal moves there are and how many
  of them keep the deal winnable (``choices.line_choices``), the random and greedy players' win
  rates (``playouts.playout_rates``) and where the random rate ranks among the winnable deals of
  the difficulty table (``difficulty.difficulty_rank``).

``DealAnalysis`` holds the parts as they came, ``to_dict`` gives the JSON document (docs/json.md,
``pyramid analyse``). The searches share the limits given (``max_states``, ``timeout``); a part a
limit stopped says so rather than guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.pyramid.model.state import packed_position
from solver.pyramid.model.explain import result_dict
from solver.pyramid.model.replay import Position
from solver.pyramid.model.rules import Rules
from solver.pyramid.model.outcome import REASON_STATES, REASON_TIMEOUT, Outcome, SolveResult


def is_narrow(choice) -> bool:
    """A point of a line (``choices.StepChoices``) where only one of two or more legal moves
    keeps the deal winnable."""
    return choice.winning == 1 and choice.legal > 1


@dataclass(frozen=True)
class DealAnalysis:
    """Everything ``analyse_deal`` found about one deal (from its start or a given position).

    ``reason``, ``partial`` are set for a deal that is not won (``partial`` also for an unknown
    verdict, as bounds); ``choices``, ``playouts`` and ``rank`` for a won one (``rank`` only from
    the deal's start, and only for rules the difficulty table covers)."""

    rules: Rules
    verdict: SolveResult
    reason: object | None = None
    """``reasons.LossReason``: a short proof that the deal is lost, when one exists."""
    partial: object | None = None
    """``partial.PartialResult``: the most cards that can be removed, and a line doing it."""
    choices: tuple = ()
    """``choices.StepChoices`` at each point of the shortest line."""
    choices_stopped: str | None = None
    """The limit (``"states"``, ``"timeout"``) that left the choices uncounted (``choices`` is
    empty): ``max_states`` stopped their searches, or a limit stopped the minimum-move search
    and the line is the partial search's win."""
    playouts: object | None = None
    """``playouts.PlayoutRates``: the random and greedy players' win rates."""
    rank: float | None = None
    """Share of the table's winnable deals that random play wins more often ("harder than");
    only from the deal's start and with at least as many playouts as the table's deals had
    (``difficulty.PLAYOUTS_PER_DEAL``)."""

    @property
    def narrow_steps(self) -> list[int]:
        """1-based numbers of the moves of the line that were the only winning move among two
        or more legal ones (a lone legal move, e.g. a draw, is forced, not narrow)."""
        return [c.number + 1 for c in self.choices if is_narrow(c)]

    def to_dict(self, deal) -> dict:
        """The JSON document of the analysis (without the deal's ident)."""
        from solver.pyramid.model.replay import format_step

        doc = result_dict(deal, self.rules, self.verdict)
        doc["loss_reason"] = None if self.reason is None else self.reason.kind
        doc["loss_proof"] = None if self.reason is None else self.reason.to_dict()
        doc["partial"] = None if self.partial is None else self.partial.to_dict()
        doc["choices"] = [{"move": c.number + 1, "legal": c.legal, "winning": c.winning,
                           "narrow": is_narrow(c),
                           "played": None if c.played is None else format_step(c.played)}
                          for c in self.choices]
        doc["choices_stopped"] = self.choices_stopped
        doc["narrow_steps"] = self.narrow_steps
        doc["playouts"] = None if self.playouts is None else self.playouts.to_dict()
        doc["harder_than"] = self.rank
        return doc


def analyse_deal(deal, rules: Rules = Rules(), start: Position | None = None, max_states: int = 0, timeout: float | None = None,
                 playouts: int | None = None, seed: int = 0, jobs: int = 1,
                 progress: bool = False, workspace=None) -> DealAnalysis:
    """Analyse ``deal`` under ``rules`` from its start, or from the position ``start`` (after
    some moves; ``solver.pyramid.model.replay.Position``).

    ``playouts``: games per player (``None``: ``playouts.DEFAULT_PLAYOUTS``; 0: none), seeded
    with ``seed`` and run by ``jobs`` processes. ``workspace``: an ``OptimalWorkspace`` whose
    kernels are loaded (so that no search's time includes loading them).
    """
    from solver.pyramid.analysis.choices import SearchLimitReached, line_choices
    from solver.pyramid.optimal.api import solve_optimal
    from solver.pyramid.analysis.partial import best_partial
    from solver.pyramid.analysis.reasons import find_reason

    position = start
    start = None if position is None else packed_position(position)
    verdict = solve_optimal(deal, rules, start=start, max_states=max_states, timeout=timeout,
                            workspace=workspace)
    if verdict.outcome != Outcome.WON:
        reason = find_reason(deal, rules, start) if verdict.outcome == Outcome.LOST else None
        partial = best_partial(deal, rules, start=start, max_states=max_states, timeout=timeout)
        if partial.best < partial.most:
            return DealAnalysis(rules, verdict, reason=reason, partial=partial)
        # A limit stopped the minimum-move search, but the partial search found a win: the
        # deal is winnable, by a line not proven the shortest (as ``solve --any`` reports one).
        verdict = SolveResult(Outcome.WON, list(partial.line),
                              states=verdict.states + partial.states,
                              seconds=verdict.seconds + partial.seconds, optimal=False,
                              lower_bound=verdict.lower_bound)
        return DealAnalysis(rules, verdict, choices_stopped=limit_reason(max_states, timeout),
                            playouts=rates_of(deal, rules, start, playouts, seed, jobs,
                                              progress))
    if not verdict.solution:  # the position given is already won: nothing to choose or play
        return DealAnalysis(rules, verdict)
    try:
        choices = tuple(line_choices(deal, rules, verdict.solution, start=position,
                                     max_states=max_states, workspace=workspace))
        stopped = None
    except SearchLimitReached:
        choices, stopped = (), REASON_STATES
    rates, rank = difficulty_of(deal, rules, start, playouts, seed, jobs, progress)
    return DealAnalysis(rules, verdict, choices=choices, choices_stopped=stopped,
                        playouts=rates, rank=rank)


def limit_reason(max_states: int, timeout: float | None) -> str:
    """The limit that stops the searches given these limits: ``"timeout"`` when a time limit is
    set, else ``"states"``."""
    return REASON_TIMEOUT if timeout is not None else REASON_STATES


def rates_of(deal, rules: Rules, start, playouts: int | None, seed: int, jobs: int,
             progress: bool):
    """Both players' ``PlayoutRates`` from ``start`` (None with ``playouts`` 0)."""
    from solver.pyramid.analysis.playouts import DEFAULT_PLAYOUTS, playout_rates

    games = DEFAULT_PLAYOUTS if playouts is None else playouts
    if games == 0:
        return None
    return playout_rates(deal, rules, games=games, seed=seed, jobs=jobs, start=start,
                         progress=progress)


def difficulty_of(deal, rules: Rules, start, playouts: int | None = None, seed: int = 0,
                  jobs: int = 1, progress: bool = False):
    """``(rates, rank)`` of a won deal from the packed position ``start`` (None: the deal's
    start): both players' ``PlayoutRates`` (``rates_of``) and the difficulty rank of the
    random player's rate (``difficulty.difficulty_rank``; None unless from the deal's start,
    with at least as many playouts as the table's deals had, under rules the table covers)."""
    from solver.pyramid.analysis.difficulty import PLAYOUTS_PER_DEAL, difficulty_rank

    rates = rates_of(deal, rules, start, playouts, seed, jobs, progress)
    rank = None
    if rates is not None and start is None and rates.games >= PLAYOUTS_PER_DEAL:
        rank = difficulty_rank(rates.random["p"], rules)
    return rates, rank


def playout_lines(rates, rank: float | None, rules: Rules, from_start: bool) -> list[str]:
    """The two players' win rates and the difficulty rank, in the sentences of ``pyramid
    analyse`` (``rates``, ``rank``: ``difficulty_of``; ``from_start``: the analysis began at the
    deal's start, not after some moves; only such deals are ranked)."""
    from solver.core.stats import fmt_p
    from solver.pyramid.analysis.difficulty import PLAYOUTS_PER_DEAL, TABLE_SEEDS, table_rules

    if rates is None:
        return []
    lines = [f"Random play wins {fmt_p(rates.random)} of {rates.games:,} games (95% interval).",
             f"Greedy play wins {fmt_p(rates.greedy)} of {rates.games:,} games."]
    first, last = TABLE_SEEDS
    if rank is not None:
        lines.append(f"Difficulty: harder than {rank:.0%} of winnable deals (by the "
                     f"random-play win rate, among the winnable deals of seeds "
                     f"{first:,}..{last:,} under these rules).")
    elif from_start and rates.games < PLAYOUTS_PER_DEAL:
        lines.append(f"No difficulty rank: it needs at least {PLAYOUTS_PER_DEAL:,} playouts "
                     f"(as many as each deal of the table had).")
    elif from_start and not table_rules():
        lines.append("No difficulty rank: the difficulty table (data/difficulty.json) was not "
                     "found in this installation.")
    elif from_start and rules not in table_rules():
        lines.append("No difficulty rank: the table covers the rules of the presets only "
                     "(--rules standard, --rules msc).")
    return lines
