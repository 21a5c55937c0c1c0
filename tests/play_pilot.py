"""Driving ``pyramid play`` (solver/pyramid/play/app.py) through Textual's pilot: what the tests
of the app (tests/cli/test_play.py) and of its screenshots (tests/cli/test_play_snapshots.py)
share."""

from __future__ import annotations

import asyncio

from solver.api import solve
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.replay import STEP_DRAW, STEP_RECYCLE, replay
from solver.pyramid.play.session import move_loses

SIZE = (100, 30)


def run(coro):
    return asyncio.run(coro)


async def settled(app, pilot) -> None:
    """Wait until the solver has answered about the position shown."""
    for _ in range(3000):
        await pilot.pause(0.02)
        if app.status is not None or not app.assistant or app.game.is_won():
            return
    raise AssertionError("the solver did not answer")


async def press_to(app, pilot, target) -> None:
    """Move the cursor to ``target`` with the right arrow and pick it with Enter."""
    for _ in range(len(app.targets()) + 1):
        if app.cursor_target() == target:
            await pilot.press("enter")
            return
        await pilot.press("right")
    raise AssertionError(f"{target!r} is not a target")


async def play_by_keys(app, pilot, step) -> None:
    """Play ``step`` with the keyboard alone: d for a draw or a recycle, else the cursor and
    Enter on each of its cards."""
    if step[0] in (STEP_DRAW, STEP_RECYCLE):
        await pilot.press("d")
        return
    for card in step[1:]:
        target = next(t for t in app.targets() if app.card_of(t) == card)
        await press_to(app, pilot, target)


def first_losing_position(rules, seeds=range(40)):
    """A seed, the moves reaching a winnable position, and a move there that loses it."""
    for seed in seeds:
        deal = Deal.from_seed(seed)
        win = solve(deal, rules, minimal=False)
        if not win.solution:
            continue
        pos = replay(deal, rules, []).position
        for i, good in enumerate(win.solution):
            for step in pos.legal_steps():
                if step[0] != STEP_RECYCLE and move_loses(pos, step):
                    return seed, list(win.solution[:i]), step
            pos.apply(good)
    raise AssertionError("no losing move found")
