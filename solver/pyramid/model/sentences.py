"""The sentences a user reads about a Pyramid deal, in one place: the verdict of a search, why a
lost deal is lost, how far it can be taken, and where a line of play stopped being winnable (the
step texts themselves are ``solver.pyramid.model.explain``'s). The commands print them, the ``--html``
pages show them, and the JSON documents carry the facts behind them.

Cheap to import: the engines (numpy, numba) are imported inside the functions that need them.
"""

from __future__ import annotations

LIMIT_TEXT = {
    "states": "--max-states limit reached",
    "timeout": "--timeout reached",
    "memory": "out of memory",
    "depth": "lines too long to count",
}
"""What stopped an unknown search, for the text verdict (``SolveResult.reason``)."""


def plural(n: int, word: str) -> str:
    """``1 move``, ``2 moves``, ``1,000 moves``, ``2 sixes``."""
    return f"{n:,} {word if n == 1 else plural_of(word)}"


def plural_of(word: str) -> str:
    """``moves``, ``aces``, ``sixes``: the plural of a word of these sentences."""
    return word + ("es" if word.endswith("x") else "s")


def deal_title(ident: dict) -> str:
    """``Seed 7``, ``Line 3`` or ``Deal``: the heading of a deal's text output."""
    if "seed" in ident:
        return f"Seed {ident['seed']}"
    if "line" in ident:
        return f"Line {ident['line']}"
    return "Deal"


def verdict_text(result, played: int = 0) -> str:
    """One line: winnable in how many moves, not winnable, or unknown and which limit hit.

    ``played``: the moves given before the position searched (``--after``). The counts are
    from that position, so a page that numbers its moves from the deal's start ("move 2 of 35")
    says so: ``33 more moves after move 2 (the minimum; 35 in all)``."""
    from solver.pyramid.model.outcome import Outcome

    after = f" after move {played}" if played else ""
    if result.outcome == Outcome.WON and played:
        kind = "the minimum; " if result.optimal else "not proven the shortest; "
        return (f"Winnable: {plural(result.moves, 'more move')}{after} "
                f"({kind}{result.moves + played} in all).")
    if result.outcome == Outcome.WON:
        kind = "minimum" if result.optimal else "a winning line of"
        return f"Winnable: {kind} {result.moves} moves."
    if result.outcome == Outcome.LOST:
        return "Not winnable."
    bound = "" if result.lower_bound is None else (
        f" (at least {result.lower_bound} {'more ' if played else ''}moves{after})")
    return f"Unknown ({LIMIT_TEXT[result.reason]}){bound}."


def reason_sentence(reason, states: int) -> str:
    """``Why: ...``: the short proof that a deal is lost (a ``reasons.LossReason``), or how
    many positions the search tried when there is none."""
    if reason is not None:
        return f"Why: {reason.text}"
    return f"Why: no short reason: proven by trying all {states:,} positions."


def partial_sentence(part, played: int) -> str:
    """How far a lost (or undecided) deal can be taken: the best partial result (a
    ``partial.PartialResult``) in one sentence, without a final stop; ``played``: moves given
    with ``--after`` before its line."""
    what = "pyramid cards" if part.counted == "pyramid" else "cards"
    moves = len(part.line)
    word = "move" if moves == 1 else "moves"
    if played:  # the line goes on from the position the --after moves reached
        word += f" after the {plural(played, 'move')} played"
    if part.best == part.most:
        return f"Winnable all the same: a line of {moves} {word} wins (not proven the shortest)"
    if part.exact:
        return (f"Best partial result: {part.best} of {part.most} {what} removed, in {moves} "
                f"{word} (the fewest that remove {part.best})")
    return (f"Best partial result: between {part.best} and {part.upper} of {part.most} {what} "
            f"({LIMIT_TEXT[part.reason]}); {part.best} removed in {moves} {word}")


def check_score_sentence(replayed) -> str:
    """``Score: 105 points.``: the points a checked line's legal moves earn from the deal's start
    (a ``replay.ReplayResult``; the scoring table's, ``scoring.score_of``); after an illegal
    move, up to the last legal one."""
    from solver.pyramid.model.scoring import score_of

    where = ""
    if not replayed.ok and replayed.moves:
        where = f" after move {replayed.moves}, the last legal one"
    return f"Score: {plural(score_of(replayed.position), 'point')}{where}."


def losing_lines(deal, rules, steps, losing) -> list[str]:
    """The text of ``check``'s answer to "where did it go wrong" (a ``LosingMove``): after which
    move the deal stopped being winnable, a move that keeps it winnable there and the shortest
    win from there, numbered, with the running score from the deal's start."""
    from solver.pyramid.model.outcome import STATUS_LOST_AT, STATUS_STILL
    from solver.pyramid.model.explain import describe_steps, losing_start

    lines = losing_summary(losing)
    if losing.status not in (STATUS_LOST_AT, STATUS_STILL):
        return lines
    return lines + describe_steps(deal, rules, losing.win_from_there,
                                  losing_start(deal, rules, steps, losing), scored=True)


def losing_summary(losing) -> list[str]:
    """``losing_lines`` without the numbered win: the sentences alone (also the notes of
    ``check --html``)."""
    from solver.pyramid.model.outcome import STATUS_LOST_AT, STATUS_NEVER, STATUS_STILL
    from solver.pyramid.model.replay import format_step

    if losing.status == STATUS_NEVER:
        return ["It was never winnable."]
    if losing.status not in (STATUS_LOST_AT, STATUS_STILL):
        return ["Where it stopped being winnable is unknown (a search limit or the memory ran "
                "out)."]
    count = len(losing.win_from_there)
    word = "move wins" if count == 1 else "moves win"
    kind = "the minimum" if losing.optimal else "not proven the fewest"
    if losing.status == STATUS_STILL:
        return [f"It can still be won: {count} more {word} from here ({kind})."]
    return [f"It stopped being winnable after move {losing.move} ({format_step(losing.played)}).",
            f"Move {losing.move} could have been {format_step(losing.instead)}, which keeps it "
            f"winnable: {count} {word} from there, this one included ({kind}):"]


RANK_WORDS = ("ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
              "jack", "queen", "king")
"""A rank 1..13 as a card challenge's sentences name it."""


def rank_plural(rank: int) -> str:
    """``aces``, ``sixes``: the cards of a rank 1..13, in words."""
    return plural_of(RANK_WORDS[rank - 1])


def clears_text(line) -> str:
    """Whether a challenge line (``ChallengeLine``) clears the pyramid, as a clause."""
    return "clears the pyramid" if line.clears_pyramid else "leaves pyramid cards"


def challenge_amount(result, n: int) -> str:
    """``n`` in a challenge's units: ``105 points`` (score), ``2 aces`` (cards)."""
    if hasattr(result, "rank"):
        return plural(n, RANK_WORDS[result.rank - 1])
    return plural(n, "point")


def challenge_title(ident: dict, result) -> str:
    """The heading of a challenge's page: the deal, which challenge and its goal, what earlier
    deals brought, the rules: ``Seed 3, score challenge: 2,400 points, 950 points before this
    deal (2 recycles, ...)``."""
    if hasattr(result, "rank"):
        goal = f"card challenge: {challenge_amount(result, result.count)}"
    elif result.target is None:
        goal = "score challenge: the most points"
    else:
        goal = f"score challenge: {challenge_amount(result, result.target)}"
    if result.current:
        goal += f", {challenge_amount(result, result.current)} before this deal"
    return f"{deal_title(ident)}, {goal} ({result.rules.describe()})"


def challenge_verdict(result) -> list[str]:
    """The verdict of a score or card challenge (``ScoreChallenge``/``CardChallenge``), one
    sentence a line: reached, out of reach (how far short, the best instead), the most without a
    target, or unknown (the limit, and the best line proven so far)."""
    best = result.best
    cards = hasattr(result, "rank")

    def amount(n: int) -> str:
        return challenge_amount(result, n)
    moves = plural(best.moves, "move")
    verb = "remove" if cards else "earn"
    if result.outcome == "unknown":
        return [f"Unknown ({LIMIT_TEXT.get(result.reason, result.reason)}): the best line found "
                f"{verb}s {amount(best.value)} in {moves}; at most {amount(result.most)}."]
    needed = result.needed
    earlier = f" ({amount(result.current)} before this deal)" if result.current else ""
    if result.outcome == "reached" and needed == 0:
        goal = result.target if not cards else result.count
        return [f"Reached before this deal: the {amount(result.current)} of the earlier deals "
                f"meet the {amount(goal)} asked; no move is needed."]
    if result.outcome == "reached":
        return [f"Reached: {amount(best.value)} in {moves}, the fewest that {verb} the "
                f"{amount(needed)} needed{earlier}; the line {clears_text(best)}."]
    if needed is None:
        return [f"The most this deal gives: {amount(best.value)}, in {moves} at the fewest; the "
                f"line {clears_text(best)}."]
    lines = [f"Out of reach: at most {amount(best.value)}, {needed - best.value:,} short of the "
             f"{amount(needed)} needed{earlier}; the best line takes {moves}, the fewest, and "
             f"{clears_text(best)}."]
    clearing = getattr(result, "clearing", None)
    if clearing is not None:
        lines.append(f"Clearing the pyramid ends the deal: the best line that clears it "
                     f"{verb}s {amount(clearing.value)} in {plural(clearing.moves, 'move')}. "
                     f"Which is better depends on the next deal.")
    return lines
