"""Batch scoring commands: ``pyramid batch`` (score many deals into a CSV/Parquet file, resumable,
local or on a Dask cluster) and ``pyramid stats`` (summarise such a file)."""

from __future__ import annotations

import sys

import click

from cli.common import InputError, echo_json, input_errors, jobs_option, json_option, quiet_option
from cli.main import cli
from cli.pyramid_cmds import rules_options
from solver.batch import BatchInterrupted, plan_batch, run_batch, summarise_file
from solver.batch_io import FORMATS, LineSource, parse_seed_range
from solver.batch_summary import summary_text

EXIT_INTERRUPTED = 130


def _source(seeds: str | None, deal_file: str | None):
    if (seeds is None) == (deal_file is None):
        raise InputError("give exactly one of --seeds START:STOP or --deal-file PATH")
    if seeds is not None:
        with input_errors("bad --seeds: "):
            return parse_seed_range(seeds)
    return LineSource(deal_file)


def _describe_source(source) -> str:
    if isinstance(source, LineSource):
        return f"the deals of {source.name()}"
    return f"seeds {source.start}..{source.stop - 1}"


@cli.command()
@click.option("--seeds", default=None, metavar="START:STOP",
              help="Score the deals of seeds START .. STOP-1, e.g. 0:1000000.")
@click.option("--deal-file", default=None, metavar="PATH",
              help="Score the deals of a file, one per line ('-' = stdin); blank lines skipped.")
@rules_options
@click.option("--optimal", is_flag=True, help="Also find the minimum number of moves of won deals.")
@click.option("--max-states", type=click.IntRange(min=0), default=0, show_default=True,
              help="Positions a deal's search may expand (0 = no limit); outcome 'unknown' if hit.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="SECONDS", help="Time limit per deal with --optimal (outcome 'unknown').")
@click.option("--out", "-o", default="results.csv", show_default=True, metavar="PATH",
              help="Results file; its parts live in PATH.parts/ until the run is complete.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="csv or parquet (default: parquet for a .parquet name, else csv).")
@jobs_option
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Run the chunks on this Dask distributed scheduler instead of local processes.")
@click.option("--chunk", type=click.IntRange(min=1), default=None,
              help="Deals per chunk (default 10000; 250 with --optimal).")
@click.option("--resume", is_flag=True,
              help="Continue an interrupted run of the same command (same input and options).")
@quiet_option
@json_option
def batch(seeds, deal_file, rules, optimal, max_states, timeout, out, fmt, jobs, scheduler, chunk,
          resume, quiet, as_json) -> None:
    """Score many Pyramid deals: winnability (and minimum moves), one row per deal, in a file.

    Finished chunks are kept on disk as they complete; after Ctrl-C, a kill or a crash, run the
    same command with --resume to score only what is missing.
    """
    source = _source(seeds, deal_file)
    with input_errors():
        plan = plan_batch(source, out, rules, fmt, optimal, max_states, timeout, chunk)
    try:
        with input_errors():
            summary = run_batch(plan, jobs=jobs, resume=resume, progress=not quiet,
                                scheduler=scheduler)
    except BatchInterrupted as e:
        click.echo(str(e), err=True)
        sys.exit(EXIT_INTERRUPTED)
    if as_json:
        echo_json(summary)
        return
    run = summary["run"]
    click.echo(f"Scored {_describe_source(source)} under {rules.describe()}"
               + (", minimum moves" if optimal else ""))
    click.echo(summary_text(summary))
    resumed = f" ({run['resumed_deals']} more from the interrupted run)" if run["resumed_deals"] else ""
    click.echo(f"Time: {run['scored_deals']} deals in {run['wall_seconds']:.1f} s on "
               f"{run['executor']}, {run['deals_per_second']:.0f} deals/s{resumed}")
    click.echo(f"Results: {run['out']} ({run['format']})")


@cli.command()
@click.argument("file", metavar="FILE")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="csv or parquet (default: by the file name).")
@click.option("--plot", default=None, metavar="OUT.png",
              help="Draw the histogram of minimum moves and the win rate (needs matplotlib).")
@json_option
def stats(file, fmt, plot, as_json) -> None:
    """Summarise a results file of pyramid batch (CSV or Parquet): outcomes, win rate, moves."""
    with input_errors():
        if plot is not None:
            from solver.batch_plot import require_matplotlib

            require_matplotlib()
        summary = summarise_file(file, fmt)
    if plot is not None:
        from solver.batch_plot import plot_summary

        with input_errors("cannot write the plot: "):
            plot_summary(summary, plot, title=file)
    if as_json:
        echo_json(summary)
        return
    click.echo(f"{file}:")
    click.echo(summary_text(summary))
    if plot is not None:
        click.echo(f"Plot: {plot}")
