"""``pyramid warmup``: compile the numba kernels of the commands now, so that their first real
run starts from the cache.

Every kernel is compiled on first use and then kept in numba's on-disk cache; a command's first
run after installing or upgrading therefore pays for compiling (``pyramid solve``: about half a
minute on a 2-core machine). ``warmup`` pays it up front: for each command named it runs that
command's own command lines on small inputs (``WARM_RUNS``), in a fresh process of its own,
with their output discarded, so exactly the kernels those commands use are compiled, for the
argument types they really pass. A command whose kernels are all in the cache takes about a
second and a half (the process start). Nothing it runs writes anywhere but numba's cache and a
temporary directory.

Exit codes: 0 done; 2 bad input; 70 a command line failed (a bug: its last line on stderr is
shown); 74 numba's cache directory cannot be written (numba would then compile without keeping
anything, so the warm-up would be useless); 130 Ctrl-C (what was compiled so far stays in the
cache).

This module is imported for ``pyramid --help``, so it imports no solver module (numba) at the top.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from cli.common import echo_json, hidden_by_json, json_option, progress_options
from cli.main import EXIT_INTERNAL, EXIT_IO, cli

GAMES = ("old-maid", "black-maria", "hearts", "one-card", "duizenden")
"""The other games, warmed by ``warmup all`` (or by name)."""


def warm_runs(command: str, tmp: Path) -> tuple[tuple[str, ...], ...]:
    """The command lines that compile ``command``'s kernels: its default path, the limited-recycles
    search (``--rules msc``) beside the unlimited one, a lost deal (seed 9) beside a won one
    (seed 1), so that every search a user can reach through its options is compiled. ``tmp``
    takes the files ``batch`` writes."""
    if command == "solve":
        return (("solve", "--seed", "1"), ("solve", "--seed", "1", "--rules", "msc"),
                ("solve", "--seed", "1", "--any"), ("solve", "--seed", "1", "--any", "--rules",
                                                    "msc"),
                ("solve", "--seed", "9"))
    if command == "hint":
        return (("hint", "--seed", "1"), ("hint", "--seed", "1", "--rules", "msc"))
    if command == "check":
        return tuple(("check", "--seed", "1", *rules, "--solution", "draw draw draw")
                     for rules in ((), ("--rules", "msc")))
    if command == "analyse":
        return tuple(("analyse", "--seed", seed, *rules, "--jobs", "1", "--quiet")
                     for rules in ((), ("--rules", "msc")) for seed in ("1", "9"))
    if command == "batch":
        return tuple(("batch", "--seeds", "0:40", *rules, *extra, "--jobs", "1", "--quiet",
                      "--force", "--out", str(tmp / f"warm-{i}.csv"))
                     for i, (rules, extra) in enumerate(
                         (rules, extra) for rules in ((), ("--rules", "msc"))
                         for extra in ((), ("--optimal",), ("--analyse", "--playouts", "20"))))
    runs = (("simulate", command, "--games", "20", "--jobs", "1", "--quiet"),)
    if command == "old-maid":  # the one game with a deal analysis of its own
        runs += (("analyse", command, "--trials", "20", "--jobs", "1", "--quiet"),)
    return runs


PYRAMID_COMMANDS = ("solve", "hint", "check", "analyse", "batch")
"""The Pyramid commands, warmed by default."""
TARGETS = (*PYRAMID_COMMANDS, *GAMES)
ALL = "all"


class Target(click.Choice):
    """A command to warm: one of ``TARGETS`` or ``all``, in any case; a game may also be named by
    one of its older spellings (``oldmaid``: the registry's ``solver.games.ALIASES``, accepted
    wherever a game is named), which completion and the error do not list."""

    def __init__(self) -> None:
        super().__init__((*TARGETS, ALL), case_sensitive=False)

    def convert(self, value, param, ctx):
        from solver.games import ALIASES

        return super().convert(ALIASES.get(str(value).lower(), value), param, ctx)


@cli.command()
@click.argument("commands", nargs=-1, metavar="[COMMAND]...",
                type=Target())
@progress_options
@json_option
def warmup(commands: tuple[str, ...], progress: bool | None, as_json: bool) -> None:
    """Compile the kernels of the commands now, so that their first run starts from the cache.
    COMMAND: solve, hint, check, analyse, batch (the default: all five), a game (old-maid,
    black-maria, hearts, one-card, duizenden) or 'all' (every one). Run it once after installing
    or upgrading; a command already compiled takes about a second. Exit 0 done, 2 bad input, 70 a
    command failed, 130 interrupted."""
    from solver.core.compiling import run_logged
    from solver.core.progress import progress_bar

    check_cache_writable(cache_dir())
    names = [c.lower() for c in commands] or list(PYRAMID_COMMANDS)
    chosen = [t for t in TARGETS if t in names or ALL in names]
    rows = []
    bar = progress_bar(hidden_by_json(progress, as_json), total=len(chosen), desc="compiling",
                       unit="command")
    try:
        with tempfile.TemporaryDirectory(prefix="pyramid-warmup-") as tmp:
            for name in chosen:
                bar.set_postfix_str(name)
                run = run_logged(warm_runs(name, Path(tmp)))
                if run.error:
                    bar.close()
                    click.echo(f"Error: warming '{name}' failed with exit code {run.code}: "
                               f"{run.error}", err=True)
                    raise click.exceptions.Exit(EXIT_INTERNAL)
                rows.append({"command": name, "compiled": len(run.events),
                             "seconds": round(run.wall, 2)})
                bar.update()
    finally:
        bar.close()
    total = round(sum(r["seconds"] for r in rows), 2)
    if as_json:
        echo_json({"commands": rows, "seconds": total, "cache_dir": cache_dir()})
        return
    for r in rows:
        what = (f"compiled {r['compiled']} kernel signatures" if r["compiled"]
                else "already in the cache")
        click.echo(f"{r['command']:<12} {what} ({r['seconds']:.1f} s)")
    click.echo(f"Done in {total:.1f} s; numba's cache: {cache_dir()}")


def cache_dir() -> str:
    """The numba cache directory the commands use: ``NUMBA_CACHE_DIR``, which importing
    ``solver`` (as ``cli.main`` does) sets when it is unset."""
    import os

    return os.environ["NUMBA_CACHE_DIR"]


def check_cache_writable(path: str) -> None:
    """Exit with ``EXIT_IO`` and one line when the cache directory ``path`` cannot be created or
    written (numba would only warn, compile, and keep nothing)."""
    import os

    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".pyramid-warmup-"):
            pass
    except OSError as e:
        click.echo(f"Error: numba's cache directory {path} cannot be written "
                   f"({e.strerror or e}); set NUMBA_CACHE_DIR to a writable directory", err=True)
        raise click.exceptions.Exit(EXIT_IO) from None
