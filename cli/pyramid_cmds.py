"""Pyramid commands: solve, check, hint, and the Pyramid side of show."""

from __future__ import annotations

import click

from cli.common import InputError, echo_json, input_errors
from solver.deals import deal_from_seed, draw_deal, format_deal, parse_deal


def load_one_deal(seed: int | None, deal_text: str | None):
    """The deal named by exactly one of ``--seed`` / ``--deal``."""
    if (seed is None) == (deal_text is None):
        raise InputError("give exactly one of --seed N or --deal TEXT")
    if seed is not None:
        return deal_from_seed(seed)
    with input_errors("bad --deal: "):
        return parse_deal(deal_text)


def show_pyramid(seed, deal_text, as_json) -> None:
    deal = load_one_deal(seed, deal_text)
    if as_json:
        echo_json({"seed": seed, "deal": format_deal(deal)})
        return
    if seed is not None:
        click.echo(f"Deal {seed}")
    click.echo(draw_deal(deal))
    click.echo(format_deal(deal))
