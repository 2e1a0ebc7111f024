"""The import's report in words: what was read, dropped, left out and how it was read."""
from __future__ import annotations

from odds.analysis.report import count


def said(imported, brief: str | None = None) -> str:
    """One paragraph per kind of finding; ``brief``, the command that lists them all, counts
    the left out and the readings instead (for `odds roster`, which plays the list)."""
    report, army = imported.report, imported.army
    units = count(len(imported.units), "unit")
    lines = [f"{imported.source}: {army.game} list {army.name!r}: {units} read"]
    if report.problems:
        lines.append(f"dropped ({len(report.problems)}, --skip-unknown): map each in a --map "
                     "file to play it:")
        lines += [f"  {p}" for p in report.problems]
    for title, found in (("left out, no part in melee", report.left_out),
                         ("readings taken", report.notes)):
        if not found:
            continue
        if brief:
            lines.append(f"{title}: {len(found)} (`{brief}` lists them)")
        else:
            lines.append(f"{title} ({len(found)}):")
            lines += [f"  {x}" for x in found]
    return "\n".join(lines)
