"""Batch scoring commands: ``pyramid batch`` (score many deals into a CSV/Parquet file, resumable,
local or on a Dask cluster) and ``pyramid stats`` (summarise such a file).

Exit codes of ``batch``: 0 done; 1 a fault stopped the run (disk full, the Dask scheduler lost,
out of memory, also while loading, a worker killed, the output in use by another run: the
finished chunks are kept and ``--resume`` continues); 2 bad input or options (nothing is scored, nothing left behind);
130 Ctrl-C (the finished chunks are kept). ``stats``: 0, or 2 for a file it cannot summarise.

This module is imported for ``pyramid --help``, so it imports no solver module (numba) at the
top: the commands import what they need when they run.
"""

from __future__ import annotations

import contextlib
import sys

import click

from cli.common import (Choice, InputError, echo_json, input_errors, json_option, jobs_option,
                        progress_options)
from cli.main import cli
from cli.options import chosen_rules_options

EXIT_FAILED = 1
"""A fault stopped the run; its finished chunks are kept for --resume."""
EXIT_INTERRUPTED = 130


def _source(seeds: str | None, deal_file: str | None):
    from solver.batch.sources import LineSource, parse_seed_range

    if (seeds is None) == (deal_file is None):
        raise InputError("give exactly one of --seeds START:STOP or --deal-file PATH")
    if seeds is not None:
        with input_errors("bad --seeds: "):
            return parse_seed_range(seeds)
    return LineSource(deal_file)


@contextlib.contextmanager
def _memory_is_a_fault():
    """Memory running out while the engines load and the run is planned, before any deal is
    scored, is a fault of the run as it is later (exit 1), not an unknown answer (the frame's 3)."""
    from solver.core.memory import MORE_MEMORY, out_of_memory, out_of_memory_text

    try:
        yield
    except Exception as e:  # noqa: BLE001 - only memory running out is answered here
        if not out_of_memory(e):
            raise
        click.echo(f"Error: {out_of_memory_text(e)} while loading: {MORE_MEMORY}; no deal was "
                   f"scored and nothing is kept", err=True)
        sys.exit(EXIT_FAILED)


def _describe_source(source) -> str:
    if source.id_column == "line":
        return f"the deals of {source.name()}"
    return f"seeds {source.start}..{source.stop - 1}"


@cli.command()
@click.option("--seeds", default=None, metavar="START:STOP",
              help="Score the deals of seeds START .. STOP-1, e.g. 0:1000000.")
@click.option("--deal-file", default=None, metavar="PATH",
              help="Score the deals of a file, one per line ('-' = stdin); blank lines skipped. "
                   "stdin or a pipe is read as its lines arrive: each chunk is scored and "
                   "written when its last line is in.")
@chosen_rules_options("standard; msc with --challenge")
@click.option("--challenge", type=Choice(("score", "cards")), default=None,
              help="Answer Microsoft's score challenge (the most points of each deal) or card "
                   "challenge (the most cards of --rank) instead of the winnability: max_score "
                   "or max_removed, the fewest moves of a best line, whether it clears the "
                   "pyramid.")
@click.option("--rank", default=None, metavar="R",
              help="The rank of --challenge cards: A, 2..9, T or 10, J, Q, K.")
@click.option("--optimal", is_flag=True, help="Also find the minimum number of moves of won deals.")
@click.option("--analyse", is_flag=True,
              help="Add the analysis columns: most cards cleared and the short reason of lost "
                   "deals, random and greedy play win rates of won deals.")
@click.option("--playouts", type=int, default=None, metavar="N",
              help="Random (and greedy) playouts per won deal with --analyse (1 .. 1000000; "
                   "default 1000).")
@click.option("--max-states", type=click.IntRange(min=0), default=0, show_default=True,
              help="Positions a deal's search may expand (0 = no limit); outcome 'unknown' if hit.")
@click.option("--timeout", type=float, default=None, metavar="SECONDS",
              help="Time limit per deal with --optimal or --challenge (outcome 'unknown').")
@click.option("--out", "-o", default="results.csv", show_default=True, metavar="PATH",
              help="Results file (.csv, .parquet or .pq); its parts live in PATH.parts/ until the "
                   "run is complete.")
@click.option("--format", "fmt", default=None, metavar="csv|parquet",
              help="Output format (default: by the suffix of --out; any other suffix needs it).")
@click.option("--force", is_flag=True,
              help="Replace an existing results file, or start an interrupted run again (the "
                   "deals kept in PATH.parts/ are thrown away).")
@jobs_option
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Run the chunks on this Dask distributed scheduler instead of local processes.")
@click.option("--chunk", type=click.IntRange(min=1), default=None,
              help="Deals per chunk (default 10000; 250 with --optimal).")
@click.option("--resume", is_flag=True,
              help="Continue an interrupted run of the same command (same input and options).")
@progress_options
@json_option
def batch(seeds, deal_file, rules, challenge, rank, optimal, analyse, playouts, max_states,
          timeout, out, fmt, force, jobs, scheduler, chunk, resume, progress, as_json) -> None:
    """Score many Pyramid deals: winnability (and minimum moves), or a score or card challenge,
    one row per deal, in a file.

    Finished chunks are kept on disk as they complete; after Ctrl-C, a kill or a crash, run the
    same command with --resume to score only what is missing. Exit codes: 0 done, 1 a fault
    stopped the run (finished chunks kept, --resume continues), 2 bad input, 130 interrupted.
    """
    with _memory_is_a_fault():
        from solver.core.memory import check_room_to_load

        if scheduler is None:  # the engines load here or in worker processes of the same limit
            check_room_to_load()
        from solver.batch.challenge import CHALLENGE_PRESET, check_challenge
        from solver.batch.plan import BatchFailed, BatchInterrupted, plan_batch
        from solver.batch.run import run_batch
        from solver.batch.summary import summary_text

        source = _source(seeds, deal_file)
        with input_errors():
            chosen = check_challenge(challenge, rank)
            rules = rules("standard" if chosen is None else CHALLENGE_PRESET)
            plan = plan_batch(source, out, rules, fmt, optimal, max_states, timeout, chunk,
                              force, analyse, playouts, chosen)
    try:
        with input_errors():
            summary = run_batch(plan, jobs=jobs, resume=resume, progress=progress,
                                scheduler=scheduler, force=force)
    except BatchInterrupted as e:
        click.echo(str(e), err=True)
        sys.exit(EXIT_INTERRUPTED)
    except BatchFailed as e:
        click.echo(f"Error: {e}", err=True)
        sys.exit(EXIT_FAILED)
    if as_json:
        echo_json(summary)
        return
    run = summary["run"]
    click.echo(f"Scored {_describe_source(source)} under {rules.describe()}"
               + (", minimum moves" if optimal else "")
               + (f", analysed ({plan.playouts} playouts per won deal)" if analyse else "")
               + (f": {chosen.describe()}" if chosen is not None else ""))
    click.echo(summary_text(summary))
    resumed = (f" ({run['resumed_deals']} more from the interrupted run)"
               if run["resumed_deals"] else "")
    click.echo(f"Time: {run['scored_deals']} deals in {run['wall_seconds']:.1f} s on "
               f"{run['executor']}, {run['deals_per_second']:.0f} deals/s{resumed}")
    click.echo(f"Results: {run['out']} ({run['format']})")


@cli.command()
@click.argument("file", metavar="FILE")
@click.option("--format", "fmt", default=None, metavar="csv|parquet",
              help="csv or parquet (default: by the file's name, else by its content).")
@click.option("--plot", default=None, metavar="OUT.png",
              help="Draw the panels the file can fill: the histogram of minimum moves (made "
                   "with --optimal), the win rate, and the random-play win rate against minimum "
                   "moves (made with --analyse --optimal); needs matplotlib.")
@json_option
def stats(file, fmt, plot, as_json) -> None:
    """Summarise a results file of pyramid batch (CSV or Parquet): outcomes, win rate, moves,
    and for a file made with --analyse the most cards cleared of lost deals, their reasons and
    the random and greedy play win rates; for a file made with --challenge the distribution of
    the best score (or cards removed), the moves of the best lines and how many clear the
    pyramid.

    Every row is checked; a bad row is an error naming the file and its line. Exit code 2 for a
    file that cannot be summarised.
    """
    from solver.batch.run import summarise_file
    from solver.batch.summary import summary_text

    with input_errors():
        if plot is not None:
            from solver.batch.plot import check_plot_path, check_plottable, require_matplotlib

            check_plot_path(plot)
            require_matplotlib()
        summary = summarise_file(file, fmt)
        if plot is not None:
            check_plottable(summary)
    if plot is not None:
        from solver.batch.plot import plot_summary

        try:
            note = plot_summary(summary, plot, title=file)
        except (OSError, ValueError) as e:
            raise InputError(f"cannot write the plot {plot}: {getattr(e, 'strerror', None) or e}") \
                from None
        if note:
            click.echo(f"Note: {note}", err=True)
    if as_json:
        echo_json(summary)
        return
    click.echo(f"{file}:")
    click.echo(summary_text(summary))
    if plot is not None:
        click.echo(f"Plot: {plot}")
