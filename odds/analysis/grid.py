"""What the grids of results share (Comparison, Sweep, RoundRobin): a tidy frame, one row per
cell, written out the same way as CSV, JSON-ready data and HTML."""
from __future__ import annotations

import html
import json
import math

from odds.analysis import report


def records(frame) -> list[dict]:
    """A frame's rows as JSON-ready dicts: NaN and infinite numbers become None."""
    return [{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
             for k, v in row.items()} for row in frame.to_dict("records")]


class Grid:
    """The output of a grid of results. A grid has ``frame`` (tidy, one row per cell) and
    ``precision``, and says what it is (:meth:`_about`), what its data adds after the rows
    (:meth:`_after_rows`), and its HTML's title and tables (:meth:`_title`, :meth:`_tables`)."""

    def to_csv(self, path=None):
        """Tidy CSV, one row per cell (returns the text when path is None)."""
        return self.frame.to_csv(path, index=False)

    def to_dict(self) -> dict:
        """JSON-ready data (the CLI's ``--json``): what the grid is (its name, ruleset and
        axes), its seed and precision, then ``rows``, one per cell with every frame column,
        then what the grid adds (NaN and infinite numbers become null)."""
        return {**self._about(), "seed": report.grid_seed(self.frame),
                "precision": self.precision, "rows": records(self.frame),
                **self._after_rows()}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def _repr_html_(self) -> str:
        title = self._title()
        return ((f"<h4>{html.escape(title)}</h4>" if title else "")
                + "".join((f"<p>{html.escape(caption)}</p>" if caption else "")
                          + table.to_html(float_format="{:.4g}".format, na_rep="")
                          for caption, table in self._tables()))

    def _about(self) -> dict:
        raise NotImplementedError

    def _after_rows(self) -> dict:
        return {}

    def _title(self) -> str:
        return ""

    def _tables(self) -> list:
        """(caption or "", DataFrame) of each table the HTML shows, in order."""
        return [("", self.frame)]
