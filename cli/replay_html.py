"""``--html FILE`` of solve, hint, check and analyse: what each command's page shows.

The page itself is ``solver.pyramid.analysis.replay_page``; this module only chooses its title, verdict,
notes and line from what a command found, checks the file name before any search and writes the
page. A name that cannot be written (a directory, a folder that does not exist or cannot be
written, a full disk) is one line on stderr and exit 2, as for ``batch --out``; so are ``-`` and
a write-protected page. Light to import:
click and ``cli.common``; the engines load when a function runs.
"""

from __future__ import annotations

import click

from cli.common import InputError, input_errors

OPTION = "--html"
"""The option's name, in its help and its errors."""
LINE_WON = "A minimum-move solution"
LINE_ANY = "A winning line (not proven the shortest)"
LINE_PARTIAL = "The best partial line"
LINE_NONE = "No line (the search stopped before finding one)"
LINE_PLAYED = "The moves given"
LINE_CHALLENGE = "The challenge's line"
LINE_FOUND = "The best line found (a limit stopped the search)"
LINE_CLEARING = "The best line that clears the pyramid"
"""What the page calls its line (``ReplayPage.line``, ``PageLine.line``)."""


def html_option(f):
    """``--html FILE``: also write the line as one self-contained HTML page."""
    return click.option(OPTION, "html_path", default=None, metavar="FILE",
                        help="Also write the deal and its line of play as one self-contained "
                             "HTML page (no network): step through it with Next/Previous, the "
                             "arrow keys or a slider; FILE#step=N opens move N. FILE is a file "
                             "name ('-' is refused: stdout carries the usual output); a "
                             "replaced page keeps its permissions, a write-protected one is "
                             "refused.")(f)


def check_html_path(path: str | None) -> None:
    """Refuse (``InputError``) a ``--html`` file name that must not or cannot be written, before
    any search: ``-`` and a write-protected page (``solver.pyramid.analysis.replay_page.check_page_path``),
    then what ``batch --out`` refuses (``solver.batch.io.check_writable``)."""
    if path is None:
        return
    from solver.batch.io import check_writable
    from solver.pyramid.analysis.replay_page import check_page_path

    with input_errors():
        check_page_path(path, OPTION)
        check_writable(path, OPTION)


def write_page(path: str, page) -> None:
    """Write the ``ReplayPage`` to ``path``; a write that fails (a full disk) is an
    ``InputError`` naming the file."""
    from solver.core.text import clip
    from solver.pyramid.analysis.replay_page import page_data, render_html, write_html

    text = render_html(page_data(page))
    try:
        write_html(path, text)
    except OSError as e:
        raise InputError(f"{OPTION} {clip(path)}: cannot write it ({e.strerror or e})") from None


def save_result_page(path: str, ident: dict, deal, rules, result, pos, played,
                     max_states: int, timeout: float | None, notes: tuple = ()) -> None:
    """``--html`` of solve and hint: the result's page (``result_page``; a lost deal's best
    partial line is searched here, within the same limits)."""
    from cli.common import engines_loading
    from solver.pyramid.model.sentences import deal_title

    with engines_loading():  # the partial search's kernels, for a lost deal
        page = result_page(f"{deal_title(ident)} ({rules.describe()})", deal, rules, result,
                           played, pos, max_states, timeout, notes)
    write_page(path, page)


def as_note(line: str) -> str:
    """A sentence of the text output as a note of the page (a colon introducing the numbered
    steps of the text output ends it with a full stop instead)."""
    return line[:-1] + "." if line.endswith(":") else line


def result_page(title: str, deal, rules, result, played, start_pos, max_states: int,
                timeout: float | None, notes: tuple = ()):
    """The page of a search's result (``solve``, ``hint``): a win's line; for a lost deal the
    reason and the best partial line (``partial.best_partial`` within the same limits); for an
    undecided one no line. ``played`` (the ``--after`` moves) come first, marked as played;
    ``notes`` go before the page's own."""
    from solver.pyramid.model.sentences import verdict_text
    from solver.pyramid.analysis.replay_page import ReplayPage, reason_cards
    from solver.pyramid.model.outcome import Outcome

    reason = None
    if result.outcome == Outcome.WON:
        line, steps = (LINE_WON if result.optimal else LINE_ANY), list(result.solution)
    elif result.outcome == Outcome.LOST:
        from solver.pyramid.model.sentences import partial_sentence, reason_sentence
        from solver.pyramid.model.state import packed_position
        from solver.pyramid.analysis.partial import best_partial
        from solver.pyramid.analysis.reasons import find_reason

        start = None if start_pos is None else packed_position(start_pos)
        part = best_partial(deal, rules, start=start, max_states=max_states, timeout=timeout)
        reason = find_reason(deal, rules, start)
        notes += (reason_sentence(reason, result.states),
                  as_note(partial_sentence(part, len(played))))
        line, steps = LINE_PARTIAL, list(part.line)
    else:
        line, steps = LINE_NONE, []
    return ReplayPage(deal, rules, title, verdict_text(result, len(played)), line,
                      tuple(played) + tuple(steps), first=len(played), notes=notes,
                      why_cards=reason_cards(reason))


def analysis_page(title: str, deal, rules, analysis, played, verdict: str):
    """The page of ``analyse``: the shortest line and its narrow steps, or the reason and the
    best partial line."""
    from solver.pyramid.model.sentences import partial_sentence, reason_sentence
    from solver.pyramid.analysis.replay_page import ReplayPage, reason_cards
    from solver.pyramid.model.outcome import Outcome

    v = analysis.verdict
    if v.outcome == Outcome.WON:
        notes = ()
        if analysis.narrow_steps:
            notes = (f"Narrow steps (only one move keeps the deal winnable): "
                     f"{', '.join(map(str, analysis.narrow_steps))}.",)
        line, steps = (LINE_WON if v.optimal else LINE_ANY), list(v.solution)
    else:
        notes = (as_note(partial_sentence(analysis.partial, len(played))),)
        if v.outcome == Outcome.LOST:
            notes = (reason_sentence(analysis.reason, v.states),) + notes
        line, steps = LINE_PARTIAL, list(analysis.partial.line)
    return ReplayPage(deal, rules, title, verdict, line, tuple(played) + tuple(steps),
                      first=len(played), notes=notes, why_cards=reason_cards(analysis.reason))


def check_page(title: str, deal, rules, steps, result, losing):
    """The page of ``check``: the player's legal moves (up to an illegal one), the move that
    lost the deal marked."""
    from solver.pyramid.model.sentences import losing_summary
    from solver.pyramid.model.outcome import STATUS_LOST_AT
    from solver.pyramid.analysis.replay_page import ReplayPage

    notes = () if losing is None else tuple(as_note(s) for s in losing_summary(losing))
    marked = losing.move if losing is not None and losing.status == STATUS_LOST_AT else None
    legal = tuple(steps[:result.moves])
    message = result.message()
    return ReplayPage(deal, rules, title, message[:1].upper() + message[1:] + ".", LINE_PLAYED,
                      legal, first=0, marked=marked, notes=notes)


def challenge_page(ident: dict, deal, rules, result, played):
    """The page of a score or card challenge (``challenge.api``'s result): its best line (after
    the ``--after`` moves ``played``), titled with the challenge, its goal and the rules; for a
    card challenge the count of the rank's cards gone at every step and, when there is one, the
    best line that clears the pyramid as a second line. The scores and counts the page shows are
    the replay checker's (``replay_page.position_data``), not the search's."""
    from solver.pyramid.analysis.replay_page import PageLine, ReplayPage
    from solver.pyramid.model.sentences import challenge_title, challenge_verdict, plural

    sentences = challenge_verdict(result)
    notes = tuple(sentences[1:])
    if played:
        notes += (f"The line goes on from the {plural(len(played), 'move')} played (--after); "
                  f"points and cards count from the deal's start.",)
    clearing = getattr(result, "clearing", None)
    more = () if clearing is None else (
        PageLine(LINE_CLEARING, tuple(played) + tuple(clearing.line)),)
    return ReplayPage(deal, rules, challenge_title(ident, result), sentences[0],
                      LINE_FOUND if result.outcome == "unknown" else LINE_CHALLENGE,
                      tuple(played) + tuple(result.best.line), first=len(played), notes=notes,
                      rank=getattr(result, "rank", None), more_lines=more)
