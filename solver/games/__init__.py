"""The games other than Pyramid, one package each, and their registry.

``GAMES`` maps each game's canonical name to its ``Game`` declaration (``solver.games.base``);
``find_game`` also accepts the aliases. Importing this module loads the declarations only (plain
Python, no numba): the command line builds its game commands from them.

Adding a game: a package ``solver/games/<game>/`` whose ``__init__.py`` declares a ``Game``, and
one line in ``REGISTERED`` below (see docs/games.md, "Adding a game").
"""

from __future__ import annotations

from solver.games import duizenden, hearts, oldmaid, onecard
from solver.games.base import Game

REGISTERED: tuple[Game, ...] = (
    oldmaid.GAME,
    hearts.BLACK_MARIA_GAME,
    hearts.HEARTS_GAME,
    onecard.GAME,
    duizenden.GAME,
)
"""Every game, in the order help lists them."""


def build_registry(games: tuple[Game, ...]) -> tuple[dict[str, Game], dict[str, str]]:
    """(name -> game, alias -> name). Raises ``ValueError`` when a name or alias is taken twice."""
    by_name: dict[str, Game] = {}
    aliases: dict[str, str] = {}
    for game in games:
        for word in (game.name, *game.aliases):
            if word in by_name or word in aliases:
                raise ValueError(f"the game name {word!r} is declared twice")
            if word == game.name:
                by_name[word] = game
            else:
                aliases[word] = game.name
    return by_name, aliases


GAMES, ALIASES = build_registry(REGISTERED)
"""``GAMES``: canonical name -> ``Game``; ``ALIASES``: other accepted spelling -> name."""


def find_game(name: str) -> Game:
    """The game called ``name`` or one of its aliases (any case). Raises ``ValueError`` naming
    the games."""
    key = str(name).strip().lower()
    key = ALIASES.get(key, key)
    if key not in GAMES:
        raise ValueError(f"unknown game {name!r} (choose from {', '.join(GAMES)})")
    return GAMES[key]


def games_with(command: str) -> list[str]:
    """The canonical names of the games that have ``command`` (``simulate``, ``show`` or
    ``analyse``), in registry order."""
    return [name for name, game in GAMES.items() if command in game.commands]


def lacking_command(name: str, command: str, prog: str = "pyramid") -> str | None:
    """For a game (by name or alias) that exists but has no ``command``: a sentence saying so,
    which games have it and which commands this game has (as ``prog`` commands); None for an
    unknown name or a game that has the command."""
    try:
        game = find_game(name)
    except ValueError:
        return None
    if command in game.commands:
        return None
    others = " or ".join(f"'{prog} {c} {game.name}'" for c in game.commands)
    have = games_with(command)
    return (f"{game.name} has no {command} command ({' and '.join(have)} "
            f"{'has' if len(have) == 1 else 'have'} one); try {others}.")
