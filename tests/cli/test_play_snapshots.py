"""Screenshots of ``pyramid play`` (SVG, committed), compared with what the app draws now
(pytest-textual-snapshot): a fresh deal, the warning before a losing move, the end summary; and
the README's screenshot of a game in progress (docs/play.svg), made by the same export.

Each shot is deterministic: a fixed terminal size, seeded deals, no clock, and the solver's
answer (or the summary) waited for before the shot. After a deliberate change of the screen,
write the pictures again with ``python -m pytest tests/cli/test_play_snapshots.py -n 1
--snapshot-update`` (the snapshots live in ``tests/cli/__snapshots__/test_play_snapshots/``)
and look at them before committing.
"""

from __future__ import annotations

from pathlib import Path

from pytest_textual_snapshot import normalize_svg
from textual._doc import take_svg_screenshot

from solver.api import solve
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.rules import PRESETS
from solver.pyramid.play.app import PlayApp
from tests.play_pilot import SIZE, first_losing_position, play_by_keys, settled

README_SHOT = Path(__file__).resolve().parents[2] / "docs" / "play.svg"
"""The README's screenshot of a game in progress."""
README_MOVES = "Js+2d draw 3c+Td 7c+6d 9d+4h"
"""Its moves: seed 32 under msc, five moves in."""


def settle(app):
    async def before(pilot) -> None:
        await settled(app, pilot)
    return before


def test_a_fresh_deal(snap_compare):
    app = PlayApp(Deal.from_seed(1), PRESETS["standard"], "Seed 1")
    assert snap_compare(app, terminal_size=SIZE, run_before=settle(app))


def test_the_warning_before_a_losing_move(snap_compare):
    rules = PRESETS["msc"]
    seed, before, losing = first_losing_position(rules)
    app = PlayApp(Deal.from_seed(seed), rules, f"Seed {seed}", before)

    async def warn(pilot) -> None:
        await settled(app, pilot)
        await play_by_keys(app, pilot, losing)
        assert app.pending is not None

    assert snap_compare(app, terminal_size=SIZE, run_before=warn)


def test_the_end_summary(snap_compare):
    deal, rules = Deal.from_seed(12), PRESETS["standard"]
    line = solve(deal, rules).solution
    app = PlayApp(deal, rules, "Seed 12", line[:-1])

    async def win(pilot) -> None:
        await settled(app, pilot)
        await play_by_keys(app, pilot, line[-1])
        for _ in range(1000):
            await pilot.pause(0.02)
            if "Won in" in app.message_text:
                return
        raise AssertionError("no summary")

    assert snap_compare(app, terminal_size=SIZE, run_before=win)


def game_in_progress() -> str:
    """The README's screenshot: seed 32 under msc after ``README_MOVES``, the status shown,
    and a hint asked for (``h``)."""
    from solver.pyramid.model.replay import parse_solution

    app = PlayApp(Deal.from_seed(32), PRESETS["msc"], "Seed 32", parse_solution(README_MOVES))

    async def hint(pilot) -> None:
        await settled(app, pilot)
        await pilot.press("h")

    return take_svg_screenshot(app=app, terminal_size=SIZE, run_before=hint,
                               title="pyramid play --seed 32 --rules msc")


def test_the_readme_screenshot_is_the_game_as_drawn_now(request):
    shot = normalize_svg(game_in_progress())
    if request.config.option.update_snapshots:
        README_SHOT.write_text(shot)
    assert README_SHOT.read_text() == shot, ("docs/play.svg is not the screen drawn now: write "
                                             "it again with --snapshot-update")
