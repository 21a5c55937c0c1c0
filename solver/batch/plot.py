"""A picture of a batch summary: the histogram of minimum moves and the win rate with its 95%
Wilson interval, and for an analysed file (``pyramid batch --analyse --optimal``) the mean
random-play win rate of won deals against their minimum number of moves (optional: needs
matplotlib, the ``plot`` extra)."""

from __future__ import annotations

from solver.batch.io import check_writable
from solver.core.extras import install_hint

IMAGE_SUFFIXES = (".png", ".svg", ".pdf", ".jpg", ".jpeg")
"""The image formats ``--plot`` can write (matplotlib's, chosen by the suffix)."""
NO_MOVES_NOTE = ("the random-play win rate against minimum moves is not drawn: the file has no "
                 "minimum moves (score with pyramid batch --analyse --optimal)")
"""What ``plot_summary`` says of an analysed file without minimum moves."""


def check_plot_path(path: str) -> None:
    """Refuse a ``--plot`` file that cannot be written or is no image name, before any work."""
    check_writable(path, "--plot")
    if not path.lower().endswith(IMAGE_SUFFIXES):
        raise ValueError(f"--plot {path}: name an image file ({', '.join(IMAGE_SUFFIXES)})")


def check_plottable(summary: dict) -> None:
    """Refuse (``ValueError``) a summary with no panel to draw: a challenge's (its distribution
    is in the text summary)."""
    if "challenge" in summary:
        raise ValueError("--plot draws the panels of a winnability file; a challenge's file has "
                         "none (its histogram is in the summary printed without --plot)")


def require_matplotlib():
    """``matplotlib.pyplot`` on the non-interactive Agg backend, or a ``ValueError`` saying how to
    install it."""
    try:
        import matplotlib
    except ImportError:
        raise ValueError("--plot needs matplotlib, which is not installed "
                         f"({install_hint('plot')})") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


PANEL_WIDTHS = {"moves": 3, "win_rate": 1, "random_by_moves": 3}
"""Each panel's share of the figure's width, in the order they are drawn."""
INCHES_PER_WIDTH = 2.5
"""Figure inches per unit of ``PANEL_WIDTHS``."""


def plot_panels(summary: dict) -> list[str]:
    """The panels ``summary`` can fill, in order: the histogram of minimum moves (a file made
    with ``--optimal`` that has won deals), the win rate (always), and the random-play rate
    against minimum moves (a file made with ``--analyse --optimal``). A panel with nothing to
    show is left out rather than drawn empty."""
    panels = ["moves"] if summary["moves_histogram"] else []
    panels.append("win_rate")
    if (summary.get("analysis") or {}).get("random_win_rate_by_moves"):
        panels.append("random_by_moves")
    return panels


def plot_summary(summary: dict, path: str, title: str = "") -> str | None:
    """Draw ``summary`` (``Summary.to_dict()``) into the image file ``path``, one panel per
    entry of ``plot_panels``; returns a note (``NO_MOVES_NOTE``) when an analysed summary has
    no minimum moves to draw its rates against, else None."""
    plt = require_matplotlib()
    panels = plot_panels(summary)
    widths = [PANEL_WIDTHS[p] for p in panels]
    fig, axes = plt.subplots(1, len(panels), figsize=(INCHES_PER_WIDTH * sum(widths) + 0.5, 4.2),
                             gridspec_kw={"width_ratios": widths}, squeeze=False)
    ax = dict(zip(panels, axes[0]))
    by_moves = (summary.get("analysis") or {}).get("random_win_rate_by_moves")
    if "random_by_moves" in ax:
        _plot_random_rate(ax["random_by_moves"], by_moves)
    if "moves" in ax:
        hist = {int(k): v for k, v in summary["moves_histogram"].items()}
        ax_moves = ax["moves"]
        ax_moves.bar(list(hist), list(hist.values()), width=0.85, color="#4C72B0")
        m = summary["moves"]
        ax_moves.axvline(m["mean"], color="#C44E52", linestyle="--",
                         label=f"mean {m['mean']:.2f}")
        ax_moves.legend()
        ax_moves.set_xlabel("minimum moves")
        ax_moves.set_ylabel("won deals")
        ax_moves.set_title(f"Minimum moves of {m['n']} won deals")
    ax_rate = ax["win_rate"]
    wr = summary["win_rate"]
    o = summary["outcomes"]
    if wr["n"]:
        ax_rate.errorbar([0], [wr["p"]], yerr=[[wr["p"] - wr["lo"]], [wr["hi"] - wr["p"]]],
                         fmt="o", color="#55A868", capsize=8, markersize=8)
        ax_rate.set_title(f"Win rate {wr['p']:.4f}\n[{wr['lo']:.4f}, {wr['hi']:.4f}]")
    else:
        ax_rate.set_title("Win rate n/a\n(no decided deal)")
    ax_rate.set_xlim(-1, 1)
    ax_rate.set_ylim(0, 1)
    ax_rate.set_xticks([])
    ax_rate.set_ylabel("win rate (95% Wilson interval)")
    ax_rate.text(0, 0.08, f"won {o['won']}\nlost {o['lost']}\nunknown {o['unknown']}",
                 ha="center", va="bottom", fontsize=9)
    fig.suptitle(f"{title}: {summary['deals']} deals" if title else f"{summary['deals']} deals")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return NO_MOVES_NOTE if "analysis" in summary and not by_moves else None


def _plot_random_rate(ax, by_moves: dict) -> None:
    """The mean random-play win rate of won deals per minimum move count, with its interval."""
    rates = list(by_moves.values())
    with_ci = [(int(m), r) for m, r in by_moves.items() if r["lo"] is not None]
    if with_ci:
        ax.errorbar([m for m, _ in with_ci], [r["p"] for _, r in with_ci],
                    yerr=[[r["p"] - r["lo"] for _, r in with_ci],
                          [r["hi"] - r["p"] for _, r in with_ci]],
                    fmt="o", color="#8172B2", capsize=3, markersize=4)
    single = [(int(m), r) for m, r in by_moves.items() if r["lo"] is None]
    if single:  # one deal at that count: its rate, without an interval (hollow)
        ax.plot([m for m, _ in single], [r["p"] for _, r in single], "o", mfc="none",
                color="#8172B2", markersize=4, label="one deal (no interval)")
        ax.legend(loc="upper right", fontsize="small")
    ax.set_xlabel("minimum moves")
    ax.set_ylabel("mean random-play win rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.set_title(f"Random play against minimum moves ({sum(r['n'] for r in rates)} won deals)")
