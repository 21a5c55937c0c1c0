"""``pyramid play`` driven headless through Textual's pilot: a whole game won by keys alone,
the solver's status, hints, undo and redo, the warning before a losing move, the mouse, the
saved line, a terminal too small, and no terminal at all (the pilot's helpers:
tests/play_pilot.py)."""

from __future__ import annotations

from click.testing import CliRunner

from cli.main import cli
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.replay import replay
from solver.pyramid.model.rules import PRESETS
from solver.pyramid.play.app import STOCK, Board, PlayApp, pyramid_column
from solver.pyramid.play.session import WINNABLE, assess, move_loses
from solver.pyramid.model.state import packed_position
from solver.api import solve
from tests.play_pilot import (SIZE, PtyCommand, first_losing_position, play_by_keys, run,
                               settled)


def test_a_whole_game_won_with_the_keyboard_alone():
    async def go():
        deal = Deal.from_seed(12)
        rules = PRESETS["standard"]
        shortest = solve(deal, rules).solution
        app = PlayApp(deal, rules, "Seed 12")
        async with app.run_test(size=SIZE) as pilot:
            await settled(app, pilot)
            assert app.status.kind == WINNABLE and app.status.moves == len(shortest)
            assert "winnable — 48 moves at best" in app.status_text()
            for step in shortest:
                await play_by_keys(app, pilot, step)
            await pilot.pause()
            assert app.game.is_won() and len(app.game.played) == len(shortest)
            assert app.status_text() == "solver: won"
            for _ in range(500):
                await pilot.pause(0.02)
                if "Won in 48 moves; the fewest that win are 48." in app.message_text:
                    break
            assert "Won in 48 moves; the fewest that win are 48." in app.message_text
            await pilot.press("q")
        assert replay(deal, rules, app.game.played).position.is_won()
        assert app.return_value == app.game.saved_line()
    run(go())


def test_solve_plays_a_shortest_line_and_every_hint_is_a_winning_move():
    async def go():
        deal = Deal.from_seed(1)
        rules = PRESETS["msc"]
        app = PlayApp(deal, rules, "Seed 1")
        async with app.run_test(size=SIZE) as pilot:
            await settled(app, pilot)
            for _ in range(3):  # hints on the way: each a first move of a shortest win
                await pilot.press("h")
                step = app.status.line[0]
                assert "Hint: " in app.message_text
                after = app.game.position.copy()
                after.apply(step)
                assert assess(after).moves == app.status.moves - 1
                await play_by_keys(app, pilot, step)
                await settled(app, pilot)
            moves = len(app.game.played) + app.status.moves
            await pilot.press("s")
            for _ in range(400):
                await pilot.pause(0.05)
                if app.game.is_won():
                    break
            assert app.game.is_won() and len(app.game.played) == moves
    run(go())


def test_undo_and_redo():
    async def go():
        deal = Deal.from_seed(12)
        app = PlayApp(deal, PRESETS["standard"], "Seed 12")
        async with app.run_test(size=SIZE) as pilot:
            await settled(app, pilot)
            start = app.game.position.key()
            await pilot.press("d", "d")
            two = app.game.position.key()
            await pilot.press("u")
            await pilot.press("u")
            assert app.game.position.key() == start
            await pilot.press("u")
            assert "Nothing to undo" in app.message_text
            await pilot.press("r", "r")
            assert app.game.position.key() == two
            await settled(app, pilot)
            assert app.status.moves == 46  # two draws off a 48-move win that starts with Kh
    run(go())


def test_a_losing_move_is_questioned_and_played_only_on_y():
    rules = PRESETS["msc"]
    seed, before, losing = first_losing_position(rules)

    async def go():
        deal = Deal.from_seed(seed)
        app = PlayApp(deal, rules, f"Seed {seed}", before)
        async with app.run_test(size=SIZE) as pilot:
            await settled(app, pilot)
            await play_by_keys(app, pilot, losing)
            assert "loses the deal" in app.message_text
            assert len(app.game.played) == len(before)  # not played yet
            await pilot.press("x")
            assert "Not played" in app.message_text and len(app.game.played) == len(before)
            await play_by_keys(app, pilot, losing)
            await pilot.press("y")
            assert len(app.game.played) == len(before) + 1
            await settled(app, pilot)
            assert app.status.kind == "lost" and "can still be cleared" in app.status_text()
    run(go())


def test_no_question_with_no_warn_but_the_move_is_marked():
    rules = PRESETS["msc"]
    seed, before, losing = first_losing_position(rules)

    async def go():
        app = PlayApp(Deal.from_seed(seed), rules, f"Seed {seed}", before, warn=False)
        async with app.run_test(size=SIZE) as pilot:
            await settled(app, pilot)
            await play_by_keys(app, pilot, losing)
            assert len(app.game.played) == len(before) + 1
            assert "lost the deal" in app.message_text
            assert app.marked == [len(before) + 1]
    run(go())


def test_a_king_and_the_stock_by_mouse():
    async def go():
        deal = Deal.from_seed(12)  # Kh at the end of the bottom row
        app = PlayApp(deal, PRESETS["standard"], "Seed 12")
        async with app.run_test(size=SIZE) as pilot:
            await settled(app, pilot)
            board = app.query_one(Board)
            line, column = pyramid_column(27)
            await pilot.click(Board, offset=(column + 1 + 1, line))  # the board's padding is 1
            assert app.game.saved_line() == "Kh"
            spot = next(s for s in board.spots if s.target == STOCK)
            await pilot.click(Board, offset=(spot.column + 2, spot.line))
            assert app.game.saved_line() == "Kh draw"
    run(go())


def test_a_terminal_too_small_says_how_big_it_must_be():
    async def go():
        app = PlayApp(Deal.from_seed(12), PRESETS["standard"], "Seed 12")
        async with app.run_test(size=(40, 12)) as pilot:
            await pilot.pause()
            title = str(app.query_one("#title").render())
            assert "needs at least 60x20" in title
    run(go())


def test_the_status_agrees_with_the_solver_after_each_move():
    async def go():
        deal = Deal.from_seed(5)
        rules = PRESETS["standard"]
        app = PlayApp(deal, rules, "Seed 5")
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(6):
                await settled(app, pilot)
                result = solve(deal, rules, start=packed_position(app.game.position))
                if app.status.kind == WINNABLE:
                    assert app.status.moves == result.moves
                else:
                    assert result.moves is None
                await pilot.press("d")
    run(go())


def test_without_a_terminal_one_line_and_exit_2():
    r = CliRunner().invoke(cli, ["play", "--seed", "3"])
    assert r.exit_code == 2
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "needs a terminal" in lines[0]
    assert "Traceback" not in r.output


def test_the_real_command_in_a_pseudo_terminal(tmp_path):
    """``pyramid play`` itself in a pseudo-terminal: it draws the game and the solver's status,
    takes a key, and on Ctrl-C quits cleanly, printing the moves and writing them to --save."""
    saved = tmp_path / "moves.txt"
    command = PtyCommand(["play", "--seed", "12", "--save", str(saved)])
    try:
        plain = command.read_until(rb"winnable", 300)
        assert b"Seed 12" in plain and b"winnable" in plain, plain[-2000:]
        command.write(b"d")
        plain = command.read_until(rb"47", 60)
        assert b"47" in plain
        command.write(b"\x03")  # Ctrl-C
        plain = command.read_until(rb"Moves played \(1\): draw", 60)
        assert b"Moves played (1): draw" in plain, plain[-2000:]
    finally:
        status = command.close()
    assert status == 0
    assert saved.read_text() == "draw\n"


def test_a_deal_typed_in_the_real_command_is_played_and_printed():
    """``pyramid play --enter`` in a pseudo-terminal: the deal typed in row by row is the game,
    and its text is printed at the end for --deal."""
    deal = Deal.from_seed(12)
    texts = deal.text().split()
    command = PtyCommand(["play", "--enter"])
    try:
        command.read_until(rb"Type in the deal", 300)
        at = 0
        for size in (1, 2, 3, 4, 5, 6, 7, 24):
            command.write(" ".join(texts[at:at + size]).encode() + b"\r")
            at += size
        plain = command.read_until(rb"winnable", 120)
        assert b"winnable" in plain and b"48 moves at best" in plain, plain[-2000:]
        command.write(b"q")
        plain = command.read_until(rb"No move played", 60)
        assert f"Deal entered: {deal.text()}".encode() in plain, plain[-2000:]
    finally:
        status = command.close()
    assert status == 0


def test_the_limits_help_of_play_says_what_they_do_there():
    """play has no exit 3: its --max-states and --timeout say the status shows unknown; solve's
    help still says exit 3."""
    import re

    def option_help(command: str, option: str) -> str:
        out = CliRunner().invoke(cli, [command, "--help"]).stdout
        flat = re.sub(r"\s+", " ", out)
        return flat[flat.index(option + " "):].split(" --")[0]  # up to the next option

    for option in ("--max-states", "--timeout"):
        assert "the status shows unknown" in option_help("play", option)
        assert "exit 3" not in option_help("play", option)
        assert "exit 3" in option_help("solve", option)


def test_the_warning_appears_exactly_on_the_moves_that_lose():
    """Random games played through the app by keys: the question comes exactly on the moves
    ``move_loses`` says lose the deal (mostly declined, to see more of them), and
    every other move is played at once."""
    import random

    rules = PRESETS["msc"]
    rng = random.Random(33)
    seen = {True: 0, False: 0}

    async def game(seed):
        app = PlayApp(Deal.from_seed(seed), rules, f"Seed {seed}")
        async with app.run_test(size=SIZE) as pilot:
            await settled(app, pilot)
            for _ in range(40):
                steps = app.game.legal()
                if not steps:
                    break
                step = rng.choice(steps)
                loses = bool(move_loses(app.game.position, step))
                played = len(app.game.played)
                await play_by_keys(app, pilot, step)
                seen[loses] += 1
                if not loses:
                    assert app.pending is None and app.game.played[played:] == [step]
                    continue
                assert app.pending == step and "loses the deal" in app.message_text
                assert len(app.game.played) == played
                if rng.random() < 0.8:
                    await pilot.press("x")
                    assert app.pending is None and len(app.game.played) == played
                else:
                    await pilot.press("y")
                    assert app.game.played[played:] == [step]
    for seed in (1, 2, 5, 6):  # deals winnable under msc
        run(game(seed))
    assert seen[True] >= 3 and seen[False] >= 10, seen


def test_the_board_comes_before_the_solver_and_waits_for_it(monkeypatch):
    """The kernels load in a worker after the first frame: until they have, the status says so
    and a move (which the solver checks) is refused; once loaded the same move plays."""
    import threading

    import solver.pyramid.play.app as app_module

    gate = threading.Event()
    real = app_module.load_kernels

    def slow_load(rules):
        gate.wait(30)
        real(rules)

    monkeypatch.setattr(app_module, "load_kernels", slow_load)

    async def go():
        app = PlayApp(Deal.from_seed(1), PRESETS["standard"], "Seed 1")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.1)
            assert app.status_text() == "solver: loading…"
            await pilot.press("d")
            assert app.game.played == [] and "still loading" in app.message_text
            gate.set()
            await settled(app, pilot)
            await pilot.press("d")
            assert len(app.game.played) == 1
    run(go())


def test_kernels_that_cannot_load_for_memory_leave_the_game_without_the_solver(monkeypatch):
    import solver.pyramid.play.app as app_module

    def no_memory(rules):
        raise MemoryError()

    monkeypatch.setattr(app_module, "load_kernels", no_memory)

    async def go():
        app = PlayApp(Deal.from_seed(1), PRESETS["standard"], "Seed 1")
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(200):
                await pilot.pause(0.02)
                if app.load_failure is not None:
                    break
            assert not app.assistant and "could not load (out of memory" in app.message_text
            await pilot.press("a")  # it cannot be switched on: the same words again
            assert not app.assistant and "could not load" in app.message_text
            await pilot.press("d")  # the game goes on
            assert len(app.game.played) == 1
    run(go())
