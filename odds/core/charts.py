"""The D6 dice charts several rulesets share in shape: to hit (WS against WS) and to wound
(S against T), 10 x 10 tables of the roll needed, kept as data in ``data/<ruleset>/``."""
from __future__ import annotations

from functools import lru_cache

from odds.core import schema as s
from odds.core.data import data_path, load_table

NEVER = 7  # a "7+" roll on a D6: never made ("N" on a to-wound chart, no save)


@lru_cache(maxsize=None)
def d6_charts(ruleset_id: str, *keys: str) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The 10 x 10 charts ``keys`` of ``data/<ruleset_id>/charts.toml``, rows indexed by the
    striker's value - 1 and columns by the target's; "N" becomes :data:`NEVER`. Read and
    checked once (tuples: nothing can change them)."""
    table = load_table(ruleset_id, "charts.toml")
    where = s.Where(str(data_path(ruleset_id, "charts.toml")), "")
    out = []
    for key in keys:
        rows = table.get(key)
        if not (isinstance(rows, list) and len(rows) == 10
                and all(isinstance(r, list) and len(r) == 10 for r in rows)):
            raise (where / key).error("must be 10 rows of 10 entries")
        out.append(tuple(tuple(NEVER if v == "N" else s.integer(2, 6)(v, where / key / i)
                                for v in row) for i, row in enumerate(rows)))
    return tuple(out)
