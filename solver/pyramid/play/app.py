"""``pyramid play``: a full-screen terminal game of Pyramid with the exact solver at your side,
built on Textual (the optional extra ``play``).

The screen: the deal's title and rules, the pyramid (``--`` where a card is gone), the stock (how
many cards are left, and its top card when the rules show it), the waste fanned (its top last),
the moves played and the recycles left, the solver's status line, and a line for messages.

Play with the mouse (click two cards, or a king, or the stock to draw) or with the keyboard
alone: the cursor keys move between the cards you can pick, Enter picks the card under the
cursor (a second card that pairs with the first plays the pair), ``d`` draws (or turns the
waste over), ``u`` undoes, ``r`` redoes, ``h`` shows a hint, ``s`` plays the rest of a shortest
line step by step, ``a`` switches the solver off and on, ``n`` deals a new random deal, ``q``
(or Ctrl-C) quits, ``?`` shows the keys.

Without a deal (``pyramid play --enter``) the entry screen comes first
(``solver.pyramid.play.entry_screen``): the game starts on the deal typed in
(``entered_deal``).

The solver runs in a worker thread after every move (``session.assess``) and never holds the
screen: a newer position makes an older answer void. Its kernels load in a worker thread too,
once the first frame is drawn (``load_solver``), so the board shows at once: the status line says
"loading" meanwhile (or "compiling" when numba's cache is cold, the first run only). Before a move that turns a winnable
position into a lost one the game asks ``y`` to play it anyway (``warn=False``: it plays the
move and marks it afterwards).
"""

from __future__ import annotations

import random
import threading

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from solver.core.compiling import on_first_compile
from solver.core.memory import MORE_MEMORY, out_of_memory, out_of_memory_text
from solver.pyramid.model.deals import Deal
from solver.pyramid.model.layout import COVER_MASK, PYRAMID_CARDS, PYRAMID_ROWS
from solver.pyramid.model.replay import STEP_DRAW, STEP_KING, STEP_RECYCLE, format_step
from solver.pyramid.model.rules import Rules
from solver.pyramid.play.board import STOCK, STOCK_TOP, WASTE, Board, pyramid_column
from solver.pyramid.play.entry_screen import EntryScreen
from solver.pyramid.play.session import (WINNABLE, Game, Status, assess, load_kernels,
                                         move_loses, summary)

MIN_WIDTH, MIN_HEIGHT = 60, 20
"""The smallest terminal the board fits in."""
HELP = ("keys: arrows move, Enter picks, d draw, u undo, r redo, h hint, s solve, "
        "a solver on/off, n new deal, q quit, ? help")
SOLVE_STEP_SECONDS = 0.3
"""The pause between the moves ``s`` plays."""


class PlayApp(App):
    """The terminal game (see the module docstring)."""

    CSS = """
    Screen { layout: vertical; }
    #title { height: 1; }
    Board { height: 12; padding: 0 1; }
    #info { height: 1; }
    #status { height: 1; }
    #message { height: auto; min-height: 2; }
    """
    BINDINGS = [
        Binding("left", "move(-1, 0)", show=False), Binding("right", "move(1, 0)", show=False),
        Binding("up", "move(0, -1)", show=False), Binding("down", "move(0, 1)", show=False),
        Binding("enter", "pick", show=False), Binding("d", "draw", show=False),
        Binding("u", "undo", show=False), Binding("r", "redo", show=False),
        Binding("h", "hint", show=False), Binding("s", "solve", show=False),
        Binding("a", "assistant", show=False), Binding("n", "new", show=False),
        Binding("q", "quit_game", show=False), Binding("question_mark", "help", show=False),
        Binding("y", "confirm", show=False),
        Binding("ctrl+c", "quit_game", show=False, priority=True),
    ]

    def __init__(self, deal, rules: Rules, title: str, moves=(), assistant: bool = True,
                 warn: bool = True, max_states: int = 0, timeout: float | None = None) -> None:
        """``deal`` None: the deal is typed in first on the entry screen (``entered``)."""
        super().__init__()
        self.rules = rules
        self.deal_title = title
        self.game = None if deal is None else Game(deal, rules, moves)
        self.entered_deal = None
        self.assistant = assistant
        self.warn = warn
        self.max_states = max_states
        self.timeout = timeout
        self.selected: list = []
        self.hinted: list = []
        self.cursor = 0
        self.status: Status | None = None
        self.generation = 0
        self.pending = None
        self.marked: list[int] = []
        self.solving = False
        self.message_text = HELP
        self.solver_ready = threading.Event()
        """Set once ``load_solver`` is done (``load_failure`` says whether the kernels could
        not load): searches wait for it."""
        self.loading_text = "loading…"
        """The status while the kernels load."""
        self.load_failure: str | None = None
        """Why the kernels could not load (memory ran out): the solver stays off."""

    # ---- layout

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        yield Board(self)
        yield Static(id="info")
        yield Static(id="status")
        yield Static(id="message")

    def on_mount(self) -> None:
        self.call_after_refresh(self.load_solver)
        if self.game is None:
            self.push_screen(EntryScreen(), self.entered)
            return
        self.changed()

    def entered(self, deal) -> None:
        """The entry screen's answer: the game on the deal typed in, or quit without one."""
        if deal is None:
            self.exit(None)
            return
        self.entered_deal = deal
        self.game = Game(deal, self.rules)
        self.message_text = f"Deal entered (pyramid play --deal takes it again): {deal.text()}"
        self.changed()

    def on_resize(self, event: events.Resize) -> None:
        self.refresh_all()

    def too_small(self) -> bool:
        return self.size.width < MIN_WIDTH or self.size.height < MIN_HEIGHT

    def refresh_all(self) -> None:
        """Draw everything again, and ask the solver about the position when it changed."""
        if self.game is None:
            return  # the entry screen is up
        title = self.query_one("#title", Static)
        board = self.query_one(Board)
        if self.too_small():
            title.update(f"The terminal is {self.size.width}x{self.size.height}: the game needs "
                         f"at least {MIN_WIDTH}x{MIN_HEIGHT}.")
            board.update("")
            return
        title.update(Text(f"{self.deal_title} ({self.rules.describe()})", style="bold"))
        self.keep_cursor()
        board.draw()
        pos = self.game.position
        rec = self.rules.recycles
        left = "unlimited" if rec is None else str(rec - pos.recycles_used)
        self.query_one("#info", Static).update(
            f"moves played {len(self.game.played)}   removed {28 - pos.pyramid_left()} of 28 "
            f"pyramid cards   recycles left {left}")
        self.query_one("#status", Static).update(self.status_text())
        self.query_one("#message", Static).update(self.message_text)

    def status_text(self) -> str:
        if self.game.is_won():
            return "solver: won"
        if not self.assistant:
            return "solver: off (a switches it on)"
        if not self.solver_ready.is_set():
            return f"solver: {self.loading_text}"
        if self.status is None:
            return "solver: working…"
        return f"solver: {self.status.text()}"

    def say(self, text: str) -> None:
        self.message_text = text
        self.refresh_all()

    # ---- targets and the cursor

    def targets(self) -> list:
        """The cards that can be picked now, in reading order, and the stock."""
        pos = self.game.position
        out: list = [p for p in range(PYRAMID_CARDS) if self.pickable(p)]
        if self.rules.stock_top and pos.stock:
            out.append(STOCK_TOP)
        out.append(STOCK)
        if pos.waste:
            out.append(WASTE)
        return out

    def pickable(self, p: int) -> bool:
        """Whether pyramid place ``p`` holds a card that can be picked: uncovered, or with the
        overlap rule covered by one card only, itself uncovered (the two may pair)."""
        pos = self.game.position
        if not pos.present >> p & 1:
            return False
        covers = pos.present & int(COVER_MASK[p])
        if not covers:
            return True
        if not self.rules.overlap or covers & (covers - 1):
            return False
        q = covers.bit_length() - 1
        return not pos.present & int(COVER_MASK[q])

    def cursor_target(self):
        targets = self.targets()
        return targets[self.cursor] if self.cursor < len(targets) else None

    def keep_cursor(self) -> None:
        self.cursor = min(self.cursor, len(self.targets()) - 1)

    def action_move(self, dx: int, dy: int) -> None:
        targets = self.targets()
        if dy == 0:
            self.cursor = (self.cursor + dx) % len(targets)
        else:
            self.cursor = self.nearest(targets, dy)
        self.refresh_all()

    def nearest(self, targets: list, dy: int) -> int:
        """The target on the next line up or down closest in column to the cursor's."""
        here = self.place(targets[self.cursor])
        best, best_key = self.cursor, None
        for i, t in enumerate(targets):
            line, column = self.place(t)
            if (line - here[0]) * dy <= 0:
                continue
            key = (abs(line - here[0]), abs(column - here[1]))
            if best_key is None or key < best_key:
                best, best_key = i, key
        return best

    def place(self, target) -> tuple[int, int]:
        if isinstance(target, int):
            return pyramid_column(target)
        for spot in self.query_one(Board).spots:
            if spot.target == target:
                return spot.line, spot.column
        return PYRAMID_ROWS + 1, 0

    # ---- picking cards and playing moves

    def card_of(self, target) -> int | None:
        pos = self.game.position
        if isinstance(target, int):
            return int(pos.deal[target])
        if target == WASTE and pos.waste:
            return pos.waste[-1]
        if target == STOCK_TOP and pos.stock:
            return pos.stock[-1]
        return None

    def action_pick(self) -> None:
        target = self.cursor_target()
        if target is not None:
            self.pick(target)

    def pick(self, target, by_mouse: bool = False) -> None:
        """Pick ``target``: the stock draws; a king is removed; a second card pairs with the
        first when they make 13, else it becomes the one picked."""
        if by_mouse and target in self.targets():
            self.cursor = self.targets().index(target)
        if target == STOCK:
            self.action_draw()
            return
        card = self.card_of(target)
        if card is None:
            return
        king = self.game.step_with([card])
        if king is not None and king[0] == STEP_KING:
            self.try_move(king)
            return
        if self.selected and self.selected[0] != target:
            step = self.game.step_with([self.card_of(self.selected[0]), card])
            if step is not None:
                self.try_move(step)
                return
        self.selected = [] if self.selected == [target] else [target]
        self.refresh_all()

    def action_draw(self) -> None:
        for step in self.game.legal():
            if step[0] in (STEP_DRAW, STEP_RECYCLE):
                self.try_move(step)
                return
        self.say("No card left to draw, and no recycle left.")

    def try_move(self, step) -> None:
        """Play ``step``, or first ask when it loses a winnable position."""
        self.selected = []
        if self.assistant and not self.solver_ready.is_set():
            self.say("The solver is still loading, and checks every move: play it again in a "
                     "moment (a switches the solver off).")
            return
        if self.assistant and self.warn and move_loses(self.game.position, step,
                                                       self.max_states):
            self.pending = step
            self.say(f"{format_step(step)} loses the deal: it can be won now, not after it. "
                     f"Press y to play it anyway, any other key to think again.")
            return
        self.play(step)

    def play(self, step) -> None:
        lost_it = self.assistant and not self.warn and move_loses(self.game.position, step,
                                                                    self.max_states)
        self.game.play(step)
        if lost_it:
            self.marked.append(len(self.game.played))
            self.message_text = f"Move {len(self.game.played)}, {format_step(step)}, lost the deal."
        else:
            self.message_text = f"Played {format_step(step)}."
        self.changed()

    def action_confirm(self) -> None:
        if self.pending is not None:
            step, self.pending = self.pending, None
            self.marked.append(len(self.game.played) + 1)
            self.play(step)

    def on_key(self, event: events.Key) -> None:
        if self.pending is not None and event.key != "y":
            self.pending = None
            self.say("Not played.")
            event.stop()

    def changed(self) -> None:
        """The position changed: forget the old answer and the hint, ask again."""
        self.hinted = []
        self.status = None
        self.generation += 1
        if self.game.is_won() or self.game.is_stuck():
            self.message_text = self.ending()
            self.sum_up(self.generation)
        self.refresh_all()
        if self.assistant and not self.game.is_won():
            self.ask_solver(self.generation, self.game.position.copy())

    @work(thread=True, group="loading")
    def load_solver(self) -> None:
        """Load (or, on a cold cache, compile) the kernels, then let the searches run."""
        def compiling() -> None:
            self.loading_text = ("compiling its kernels (the first run only: a minute or "
                                 "two)…")
            self.call_from_thread(self.refresh_all)

        try:
            with on_first_compile(compiling):
                load_kernels(self.rules)
        except Exception as e:  # noqa: BLE001 - only memory running out is answered here
            if not out_of_memory(e):
                raise
            self.load_failure = (f"The solver could not load ({out_of_memory_text(e)}): play "
                                 f"on without it; {MORE_MEMORY} to have it.")
            self.call_from_thread(self.cannot_load)
        finally:
            self.solver_ready.set()  # whatever happened: no search waits for ever
        self.call_from_thread(self.refresh_all)

    def cannot_load(self) -> None:
        """The kernels could not load: play on without the solver, saying why."""
        self.assistant = False
        self.solving = False
        self.say(self.load_failure)

    @work(thread=True, exclusive=True, group="solver")
    def ask_solver(self, generation: int, position) -> None:
        self.solver_ready.wait()
        if generation != self.generation or self.load_failure is not None:
            return  # the position changed while the kernels loaded, or they could not load
        status = assess(position, self.max_states, self.timeout)
        self.call_from_thread(self.answer, generation, status)

    def answer(self, generation: int, status: Status) -> None:
        if generation != self.generation:
            return  # the position changed since: a newer question is on its way
        self.status = status
        self.refresh_all()
        if self.solving:
            self.set_timer(SOLVE_STEP_SECONDS, self.solve_step)

    # ---- the keys

    def action_undo(self) -> None:
        self.pending = None
        if self.game.undo():
            self.message_text = "Took back a move."
            self.changed()
        else:
            self.say("Nothing to undo.")

    def action_redo(self) -> None:
        if self.game.redo():
            self.message_text = "Played again."
            self.changed()
        else:
            self.say("Nothing to redo.")

    def action_hint(self) -> None:
        status = self.status
        if status is None or not status.line:
            self.say("The solver is still working…" if self.assistant and status is None
                     else "No hint here.")
            return
        step = status.line[0]
        self.hinted = self.step_targets(step)
        verb = "wins fastest" if status.kind == WINNABLE else "keeps the most cards in reach"
        self.say(f"Hint: {format_step(step)} ({verb}).")

    def step_targets(self, step) -> list:
        if step[0] in (STEP_DRAW, STEP_RECYCLE):
            return [STOCK]
        out = []
        for c in step[1:]:
            for t in self.targets():
                if self.card_of(t) == c:
                    out.append(t)
        return out

    def action_solve(self) -> None:
        if not self.assistant:
            self.say("The solver is off: a switches it on.")
            return
        self.solving = True
        self.say("Playing a shortest line…")
        if self.status is not None:
            self.solve_step()

    def solve_step(self) -> None:
        status = self.status
        if not self.solving or status is None:
            return
        if self.game.is_won() or not status.line:
            self.solving = False
            return
        self.game.play(status.line[0])
        self.message_text = f"Played {format_step(self.game.played[-1])}."
        self.changed()

    def action_assistant(self) -> None:
        if self.load_failure is not None:
            self.say(self.load_failure)
            return
        self.assistant = not self.assistant
        self.solving = False
        self.message_text = "Solver on." if self.assistant else "Solver off."
        self.changed()

    def action_new(self) -> None:
        seed = random.randrange(1 << 31)
        self.game = Game(Deal.from_seed(seed), self.rules)
        self.deal_title = f"Seed {seed}"
        self.marked = []
        self.message_text = "A new deal."
        self.changed()

    def action_help(self) -> None:
        self.say(HELP)

    def action_quit_game(self) -> None:
        self.exit(None if self.game is None else self.game.saved_line())

    @work(thread=True, exclusive=True, group="summary")
    def sum_up(self, generation: int) -> None:
        self.solver_ready.wait()
        if self.load_failure is not None:
            return  # no summary without the solver: the game's own ending stands
        lines = summary(self.game, self.max_states, self.timeout)
        self.call_from_thread(self.summed_up, generation, lines)

    def summed_up(self, generation: int, lines: list[str]) -> None:
        if generation == self.generation:
            self.say("\n".join(lines + [self.ending()]))

    def ending(self) -> str:
        played = len(self.game.played)
        if self.game.is_won():
            return "q quits, n deals again."
        return f"No move left after {played} moves. u takes back, q quits."
