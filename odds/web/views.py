"""What the page shows of an answer, drawn on the run's worker thread (so drawing never
holds up the server): the HTML tables with their intervals, the charts ``odds`` draws for
the same command (one PNG) and the CSV the command's ``--csv`` writes."""
from __future__ import annotations

import io
from dataclasses import dataclass

from odds.analysis import report


@dataclass(frozen=True)
class View:
    html: str
    png: bytes
    csv: str
    note: str  # the run in words: fights or exact, seed, why a solver was not used


def _png(figure) -> bytes:
    import matplotlib.pyplot as plt

    try:
        out = io.BytesIO()
        figure.savefig(out, format="png", dpi=80)
        return out.getvalue()
    finally:
        plt.close(figure)


def of_result(result) -> View:
    """A matchup's answer: ``odds simulate``'s table, ``--plot`` and ``--csv``."""
    from odds.plots import result_figure

    note = report.size(result) + ("" if result.tally.exact else f", seed {result.seed}")
    if result.method_note:
        note += f" ({result.method_note})"
    return View(result._repr_html_(), _png(result_figure(result)), result.to_csv(), note)


def of_comparison(comparison, metric: str = "attacker_wins") -> View:
    """A comparison's answer: ``odds compare``'s table, heatmap and CSV."""
    return View(comparison._repr_html_(), _png(comparison.heatmap(metric).figure),
                comparison.to_csv(), _grid_note(comparison))


def of_round_robin(robin) -> View:
    """A round robin's answer: ``odds roster``'s tables, heatmaps beside the ranking, CSV."""
    from odds.plots import round_robin_figure

    return View(robin._repr_html_(), _png(round_robin_figure(robin)), robin.to_csv(),
                _grid_note(robin))


def _grid_note(grid) -> str:
    frame = grid.frame
    if (frame["method"] == "exact").all():
        return f"{len(frame)} cells, solved exactly"
    return (f"{len(frame)} cells, {int(frame['trials'].max()):,} fights a cell, seed "
            f"{report.grid_seed(frame)}")
