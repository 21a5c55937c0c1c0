"""The Pyramid side of ``pyramid show`` (``show_pyramid``): a deal as a triangle and as text.

The ``show`` group of ``cli.main`` calls it when no game is named. Cheap to import; the engines
load inside the function.
"""

from __future__ import annotations

import click

from cli.common import InputError, echo_json, engines_loading, want_color
from cli.options import load_one_deal


def show_pyramid(seed, deal_text, as_json, no_color: bool = False) -> None:
    """``pyramid show --seed N`` / ``--deal TEXT``: the deal as a triangle and as text."""
    if seed is None and deal_text is None:
        raise InputError("show a Pyramid deal with --seed N or --deal TEXT, or another game's "
                         "deal with 'pyramid show GAME' (see 'pyramid show --help')")
    if seed is not None and deal_text is not None:
        raise InputError("give --seed N or --deal TEXT, not both")
    with engines_loading():
        ident, deal = load_one_deal(seed, deal_text)
        from solver.pyramid.model.deals import draw_deal, format_deal
    if as_json:
        echo_json({**ident, "deal": format_deal(deal)})
        return
    if seed is not None:
        click.echo(f"Deal {seed}")
    click.echo(draw_deal(deal, color=want_color(no_color)))
    click.echo(format_deal(deal))
