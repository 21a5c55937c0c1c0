"""The one shape every game takes: a ``Game`` declaration, its options as data, and ``Trace``.

A game package (``solver/games/<game>/``) declares one ``Game`` in its ``__init__.py`` and the
registry (``solver/games/__init__.py``) lists it. The command line builds ``simulate GAME``,
``show GAME`` and ``analyse GAME`` from the declaration alone: each ``Option`` becomes a click
option, the values of the options marked ``rule`` go to ``rules_from_options``, the others to
``simulate`` / ``trace`` / ``analyse`` by name.

Plain Python only: the registry is imported by ``pyramid --help`` and shell completion, so a
declaration must not import numba. The engines are loaded inside the declared functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from solver.core.runner import MAX_GAMES

COMMANDS = ("simulate", "show", "analyse")
"""The commands a game can take part in."""
SIMULATE, SHOW, ANALYSE = COMMANDS
OPTION_KINDS = ("int", "seed", "flag", "choice", "text")
"""How an option's value is read: a whole number in ``lo .. hi`` (either end open when ``None``),
a seed (0 .. 2**63-1), an on/off flag, one of ``choices`` (any case), or free text."""
DEFAULT_SEED = 0
"""Every game's ``--seed`` defaults to 0, for ``simulate`` and ``show`` alike."""
RUN_OPTIONS = ("jobs", "quiet")
"""Options every ``simulate`` and ``analyse`` takes, added by the command line (with ``--json``
for every command)."""


@dataclass(frozen=True)
class Option:
    """One command-line option of a game, as data.

    ``name`` is the Python parameter the value is passed as; ``flags`` the spellings on the
    command line (``("--players", "-p")``, or ``("--draws/--no-draws",)`` for an on/off pair);
    ``commands`` which of ``COMMANDS`` take it; ``rule`` whether the value goes to the game's
    ``rules_from_options`` (otherwise to the command's function); ``render`` whether it only
    changes how a trace is printed (``render_trace``); ``completions`` the words shell completion
    offers for a ``text`` option (a ``choice`` offers its ``choices``).
    """

    name: str
    flags: tuple[str, ...]
    kind: str = "int"
    default: Any = None
    help: str = ""
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str, ...] = ()
    multiple: bool = False
    metavar: str | None = None
    show_default: bool = False
    commands: tuple[str, ...] = COMMANDS
    rule: bool = False
    render: bool = False
    completions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in OPTION_KINDS:
            raise ValueError(f"option {self.name}: kind must be one of {', '.join(OPTION_KINDS)}, "
                             f"not {self.kind!r}")
        if not self.flags or not all(f.startswith("-") for f in self.flags):
            raise ValueError(f"option {self.name}: flags must start with '-', not {self.flags!r}")
        unknown = set(self.commands) - set(COMMANDS)
        if unknown:
            raise ValueError(f"option {self.name}: unknown commands {sorted(unknown)}")
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"option {self.name}: a choice needs choices")


def players(lo: int, hi: int, default: int, **kw) -> Option:
    """``--players/-p``: ``lo .. hi`` players."""
    return Option("players", ("--players", "-p"), "int", default,
                  f"Number of players ({lo}..{hi}).", lo=lo, hi=hi, show_default=True, **kw)


def games(default: int, commands: tuple[str, ...] = (SIMULATE,)) -> Option:
    """``--games/-n`` of ``simulate``: 1 .. ``MAX_GAMES`` (every game's record stays in memory)."""
    return Option("games", ("--games", "-n"), "int", default,
                  f"Number of games to simulate. (1 .. {MAX_GAMES:,})", lo=1, hi=MAX_GAMES,
                  show_default=True, commands=commands)


def trials(default: int, help: str) -> Option:
    """``--trials/-t`` of ``analyse``: 1 .. ``MAX_GAMES`` random-play trials of one deal."""
    return Option("trials", ("--trials", "-t"), "int", default, f"{help} (1 .. {MAX_GAMES:,})",
                  lo=1, hi=MAX_GAMES, show_default=True, commands=(ANALYSE,))


def seed(help: str, commands: tuple[str, ...]) -> Option:
    """``--seed`` (default 0); ``show`` and ``analyse`` say the default in the help."""
    shown = f" [default: {DEFAULT_SEED}]" if SIMULATE not in commands else ""
    return Option("seed", ("--seed",), "seed", DEFAULT_SEED, help + shown, commands=commands)


def game_index(help: str, default: int | None = None) -> Option:
    """``--game I`` of ``show``: game I of a simulation run (0 .. ``MAX_GAMES`` - 1)."""
    return Option("game_index", ("--game",), "int", default, help, lo=0, hi=MAX_GAMES - 1,
                  show_default=default is not None, commands=(SHOW,))


@dataclass(frozen=True)
class Trace:
    """One game (or deal, or round) played out, as ``show GAME`` prints it: every game's log in
    one structure.

    ``head`` lines (the table, the deal) come first, then ``events_title`` and one line per
    event (a draw, a trick, a turn), then the ``tail`` lines (the result). ``record`` is the same
    game as JSON (docs/json.md: it begins with ``game``, ``seed`` and ``rules``).
    """

    game: str
    seed: int
    rules: dict
    head: tuple[str, ...]
    events: tuple[str, ...]
    tail: tuple[str, ...]
    record: dict = field(repr=False)
    events_title: str | None = None


def render_trace(trace: Trace, events: bool = True) -> str:
    """The trace as text; ``events=False`` leaves the play out (head and result only)."""
    lines = list(trace.head)
    if events:
        lines += [trace.events_title] if trace.events_title is not None else []
        lines += trace.events
    return "\n".join(lines + list(trace.tail))


def from_dealer(place: int) -> str:
    """A place at the table counted from the dealer, clockwise (0 the dealer, 1 the dealer's
    left, ...), in words: ``the dealer``, ``left of the dealer``, ``2nd left of the dealer``.
    Reports by place relative to the dealer use these words, never ``seat N``: a seat is a fixed
    place at the table (0..n-1, as ``--dealer`` and ``show`` count), the same word in every
    game."""
    if place == 0:
        return "the dealer"
    if place == 1:
        return "left of the dealer"
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix} left of the dealer"


def seat_name(seat: int, dealer: int) -> str:
    """``seat 2``, or ``seat 2 (dealer)`` for the dealer's seat."""
    return f"seat {seat}" + (" (dealer)" if seat == dealer else "")


COMMON_KEYS = ("game", "seed", "rules")
"""Keys every game's JSON carries (docs/json.md): the canonical name, the seed, the rules object."""


def checked_json(d: dict) -> dict:
    """``d`` if it carries ``COMMON_KEYS`` with ``rules`` an object; ``ValueError`` otherwise."""
    missing = [key for key in COMMON_KEYS if key not in d]
    if missing or not isinstance(d["rules"], dict):
        raise ValueError(f"a game's JSON must carry {', '.join(COMMON_KEYS)} (rules an object); "
                         f"missing: {', '.join(missing) or 'rules as an object'}")
    return d


def trace_json(trace: Trace) -> dict:
    """The trace as JSON (``record``, checked to carry ``COMMON_KEYS``)."""
    return checked_json(trace.record)


def summary_json(summary: dict) -> dict:
    """A summary (a JSON-ready dict) as JSON, checked to carry ``COMMON_KEYS``."""
    return checked_json(summary)


def no_warnings(summary: dict) -> list[str]:
    """A game whose summaries need no warning on stderr."""
    return []


@dataclass(frozen=True)
class Game:
    """A game as the command line and the runner see it.

    - ``name`` is the canonical name (commands, JSON ``game``); ``aliases`` other spellings
      accepted but not listed; ``title`` the one-line description; ``help`` the description
      of each command (``{"simulate": ..., "show": ..., "analyse": ...}``).
    - ``options``: the options as data (``Option``), in the order help lists them.
    - ``rules_from_options(**rule_values)``: the game's rules object from the options marked
      ``rule``; raises ``ValueError`` with a message fit for the user.
    - ``run_chunk(seed, first_game, n_games, params)``: the chunk function of
      ``solver.core.runner.run_games``; ``chunk_params(rules, **values)`` its ``params``;
      ``summarise(records, rules, seed, **values)`` the summary of the records it returns.
    - ``simulate(rules, seed=, games=, jobs=, progress=, **values)``: a run, summarised (a
      JSON-ready dict beginning ``game``, ``seed``, ``rules``); ``render_summary(summary, rules)``
      its text; ``warnings(summary)`` lines for stderr.
    - ``trace(rules, seed=, **values)``: one game played out (``Trace``).
    - ``analyse`` / ``render_analysis``: one deal analysed (``None`` for games without).
    """

    name: str
    title: str
    options: tuple[Option, ...]
    rules_from_options: Callable[..., Any]
    run_chunk: Callable[[int, int, int, dict], dict]
    chunk_params: Callable[..., dict]
    summarise: Callable[..., dict]
    simulate: Callable[..., dict]
    render_summary: Callable[[dict, Any], str]
    trace: Callable[..., Trace]
    help: dict = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    warnings: Callable[[dict], list[str]] = no_warnings
    analyse: Callable[..., dict] | None = None
    render_analysis: Callable[[dict, Any], str] | None = None

    def __post_init__(self) -> None:
        if (self.analyse is None) != (self.render_analysis is None):
            raise ValueError(f"{self.name}: analyse and render_analysis go together")
        for command in self.commands:
            names = [o.name for o in self.options_for(command)]
            if len(set(names)) != len(names):
                raise ValueError(f"{self.name} {command}: an option is declared twice")

    @property
    def commands(self) -> tuple[str, ...]:
        """The commands this game has (``analyse`` only with an ``analyse`` function)."""
        return COMMANDS if self.analyse is not None else (SIMULATE, SHOW)

    def options_for(self, command: str) -> tuple[Option, ...]:
        """The options of ``command``, in help order."""
        return tuple(o for o in self.options if command in o.commands)

    def split_values(self, command: str, values: dict) -> tuple[dict, dict, dict]:
        """``values`` of ``command``'s options as (rule values, command values, render values)."""
        rule, run, render = {}, {}, {}
        for o in self.options_for(command):
            (rule if o.rule else render if o.render else run)[o.name] = values[o.name]
        return rule, run, render


PROTOCOL = ("rules_from_options", "run_chunk", "chunk_params", "summarise", "simulate",
            "render_summary", "trace")
"""The functions every game's module provides, under these names."""
OPTIONAL = ("warnings", "analyse", "render_analysis")
"""The functions a game's module may provide."""


def declare(module, **fields) -> Game:
    """A ``Game`` whose functions are ``module``'s functions of the same names (``PROTOCOL``,
    and ``OPTIONAL`` where the module has them); ``fields`` give the rest (name, title, options,
    help, aliases) and may replace a function. Raises ``ValueError`` naming a missing one."""
    missing = [name for name in PROTOCOL if name not in fields and not hasattr(module, name)]
    if missing:
        raise ValueError(f"{module.__name__} lacks {', '.join(missing)}")
    found = {name: getattr(module, name) for name in PROTOCOL + OPTIONAL if hasattr(module, name)}
    return Game(**{**found, **fields})
