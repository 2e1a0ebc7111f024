"""Charts of results, comparisons and sweeps (matplotlib).

Each function draws on ``ax`` when given (else a new figure), returns the Axes, and never
calls ``show()``. Probabilities (frame columns with ``_low``/``_high`` bounds) are drawn in
percent with their 95% intervals; means and ratios in their own units. Colours say whose
outcome it is: the attacker's colour for what is good for the attacker, the defender's for
what is good for the defender, grey for neither.
"""
from __future__ import annotations

import numbers
import re
import textwrap

import numpy as np

from odds.analysis import report
from odds.core import schema as s
from odds.core.ruleset import Ruleset
from odds.rulesets import get_ruleset

SIDE_COLOURS = {"attacker": "#1f77b4", "defender": "#d62728"}
NEUTRAL = "#8c8c8c"

GOOD_FOR = {  # outcomes and figures good for one side (colours, heatmap colour direction)
    "attacker": {"attacker_wins", "defender_destroyed", "defender_caught", "defender_fled",
                 "defender_losses_mean", "defender_wounds_mean", "points_destroyed",
                 "points_ratio", "wins_per_100_points"},
    "defender": {"defender_wins", "attacker_destroyed", "attacker_caught", "attacker_fled",
                 "attacker_losses_mean", "attacker_wounds_mean", "points_lost"},
}
# columns that are not probabilities, with what their unit is ({lost}, {wounds}: the words of
# the ruleset, Ruleset.lost and Ruleset.wounds)
AMOUNTS = {
    "mean_rounds": "mean rounds fought",
    "attacker_losses_mean": "attacker's mean {lost}",
    "defender_losses_mean": "defender's mean {lost}",
    "attacker_wounds_mean": "attacker's mean {wounds}",
    "defender_wounds_mean": "defender's mean {wounds}",
    "attacker_points": "attacker's points",
    "defender_points": "defender's points",
    "points_destroyed": "mean enemy points destroyed",
    "points_lost": "mean own points lost",
    "points_ratio": "points ratio (destroyed / lost)",
    "wins_per_100_points": "attacker wins per 100 points",
}
CENTRES = {"points_ratio": 1.0}  # break-even: the colour scale is centred there
NOT_METRICS = {"trials", "seed", "value", "states"}
OUTCOMES = (  # outcome bars, grouped by whose outcome it is
    ("attacker_wins", "defender_destroyed", "defender_fled"),
    ("defender_wins", "attacker_destroyed", "attacker_fled"),
    ("both_destroyed", "unresolved", "no_fight"),
)
ROUND_ENDS = {"destroyed": "#444444", "caught": "#ff7f0e", "fled": "#2ca02c",
              "mutual_destruction": "#9467bd", "unresolved": "#bbbbbb", "no_fight": "#dbdb8d"}
UNIT_FATES = {  # a unit's fate bar, left to right: destroyed in the fight first
    "destroyed": ("destroyed in the fight", ROUND_ENDS["destroyed"]),
    "caught": ("caught (destroyed by the pursuit)", ROUND_ENDS["caught"]),
    "fled": ("fled", ROUND_ENDS["fled"]),
    "unreached": ("never reached", ROUND_ENDS["unresolved"]),
    "standing": ("standing", "#f2f2f2"),
}
TOP_BAND = 0.85  # without a legend, the tallest bar (with its whisker) ends here
LABEL_POINTS = 14  # room for a value label above a bar


def _axes(ax, size=(7, 4)):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def _title(ax, text: str, fontsize: float = 10) -> None:
    """The title, wrapped to the axes' width as laid out (with a margin: charts drawn later
    in the same figure may narrow it)."""
    _laid_out(ax)
    _fitted(lambda lines: ax.set_title(lines, fontsize=fontsize), text,
            0.9 * ax.get_window_extent().width, ax.figure.canvas.get_renderer())


def _laid_out(ax) -> None:
    """Run the figure's layout, so sizes measured next are the ones drawn."""
    ax.figure.canvas.figure.draw_without_rendering()  # the root figure, even from a subfigure


def _fitted(show, text: str, width: float, renderer, along: str = "width"):
    """``show(lines)`` with ``text`` wrapped into the fewest lines ``width`` pixels wide (a
    vertical label: ``along="height"``, that many pixels high)."""
    chars = len(text)
    while True:
        artist = show(textwrap.fill(text, chars, break_long_words=False,
                                    break_on_hyphens=False))
        if chars <= 12 or getattr(artist.get_window_extent(renderer), along) <= width:
            return artist
        chars -= max(1, chars // 10)


def _ink(background) -> str:
    """Black or white, whichever reads on ``background`` (a colour)."""
    from matplotlib.colors import to_rgb

    r, g, b = to_rgb(background)
    return "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else "black"


def _side(key: str) -> str | None:
    return next((side for side, keys in GOOD_FOR.items() if key in keys), None)


def _colour(key: str) -> str:
    side = _side(key)
    return SIDE_COLOURS[side] if side else NEUTRAL


UNIT_FIGURE = re.compile(r"^(attacker|defender)\.units\[(.+)\]\.(\w+)$")
UNIT_MEANS = {"losses_mean": "mean {lost}", "wounds_mean": "mean {wounds}"}


def _label(column: str, ruleset=Ruleset) -> str:
    """A column in words, losses and wounds in those of ``ruleset`` (a Ruleset; by default
    the shared words, models lost and wounds taken); a unit's figure
    ``defender.units[Gretchin].unreached`` as "Gretchin unreached (defender)"."""
    unit = UNIT_FIGURE.match(column)
    if unit:
        side, name, figure = unit.groups()
        said = UNIT_MEANS.get(figure) or (f"mean {figure.removesuffix('_mean')}"
                                          if figure.endswith("_mean") else figure)
        text = f"{name} {said.replace('_', ' ')} ({side})"
    else:
        text = AMOUNTS.get(column, column.replace("_", " "))
    return text.format(lost=ruleset.lost[1], wounds=ruleset.wounds)


def _ruleset(frame):
    """The Ruleset of a comparison's or sweep's rows (its words for losses and wounds)."""
    return get_ruleset(frame["ruleset"].iloc[0])


def _percent(v: float, points: bool = False) -> str:
    """A percentage for a label: 0%, <0.01% (rare but seen), 0.35%, 88.6%; with ``points``
    a difference in percentage points, signed and without a unit: 0, <+0.01, -0.35, +2.3."""
    sign, unit = ("+", "") if points else ("-", "%")
    if v == 0:
        return f"0{unit}"
    if abs(v) >= 1:
        return f"{v:{sign}.1f}{unit}"
    if abs(v) >= 0.01:
        return f"{v:{sign}.2f}{unit}"
    return f">-0.01{unit}" if v < 0 else f"<{sign * points}0.01{unit}"


def _amount(v: float, sign: str = "-") -> str:
    """A mean or ratio for a label (``sign="+"``: a difference, signed)."""
    if not np.isfinite(v):
        return "n/a" if np.isnan(v) else "∞"
    sign = sign if v else "-"  # nothing to sign at 0
    return (f"{v:{sign},.0f}" if abs(v) >= 100 else f"{v:{sign}.1f}" if abs(v) >= 10
            else f"{v:{sign}.2f}")


def _headroom(ax, tallest: float, percent: bool, free: float = TOP_BAND) -> None:
    """The y range from 0 so the tallest bar ends at ``free`` of the height; percent axes
    tick to 100 only."""
    top = max(tallest, 1e-9) / free
    ax.set_ylim(0, top)
    if percent and top > 100:
        ax.set_yticks(range(0, 101, 20))


def _legend_band(ax, handles, labels, label_points: float = LABEL_POINTS, host=None,
                 **options) -> float:
    """Place a legend at the top of ``ax`` (drawn by ``host``, e.g. its twin), as few rows as
    fit the width, and return the fraction of the height left below it for the data (the
    figure is laid out first, so the legend's real size is measured)."""
    host = host or ax
    renderer = ax.figure.canvas.get_renderer()
    for ncol in range(min(len(handles), options.pop("ncol", 1)), 0, -1):
        legend = host.legend(handles, labels, ncol=ncol, fontsize=8, **options)
        _laid_out(ax)
        width = ax.get_window_extent(renderer).width
        if legend.get_window_extent(renderer).width <= 0.98 * width or ncol == 1:
            break
    height = ax.get_window_extent(renderer).height
    taken = legend.get_window_extent(renderer).height + label_points * ax.figure.dpi / 72
    return max(0.4, 1 - taken / height - 0.04)


def _integer_ticks(axis) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10], min_n_ticks=1))


def metric_columns(frame) -> list[str]:
    """The columns of a comparison or sweep frame that can be charted."""
    return [c for c in frame.columns
            if c not in NOT_METRICS and not c.endswith(("_low", "_high"))
            and frame[c].dtype.kind in "fiu"]


def _metric(frame, metric: str):
    """(values, low, high, percent) of one metric column; low/high are None without bounds.
    ``percent``: a probability, or a difference of probabilities (in percentage points)."""
    report.pick(metric, metric_columns(frame), "metric", "column")
    values = frame[metric].to_numpy(float)
    if not np.isfinite(values).any():
        hint = " (points figures need points on both sides)" if "points" in metric else ""
        raise (s.ARGUMENTS / "metric").error(f"{metric!r} has no values here{hint}")
    bounded = f"{metric}_low" in frame and f"{metric}_high" in frame
    low, high = ((frame[f"{metric}_low"].to_numpy(float), frame[f"{metric}_high"].to_numpy(float))
                 if bounded else (None, None))
    base = metric.removesuffix("_diff")  # a difference is in the unit of its column
    percent = f"{base}_low" in frame and f"{base}_high" in frame
    if percent:
        values, low, high = values * 100, low * 100, high * 100
    if bounded and report.solved(frame):  # exact: each interval is the point itself
        low, high = None, None
    return values, low, high, percent


def _axis_label(metric: str, percent: bool, ruleset) -> str:
    return f"{_label(metric, ruleset)} (%)" if percent else _label(metric, ruleset)


def outcome_bars(result, ax=None, *, title: str | None = None):
    """Bar chart of how the fight ends, each bar with its 95% interval whisker, coloured by
    whose outcome it is (with a legend saying so)."""
    ax = _axes(ax)
    probs = result.probabilities()
    keys = [k for group in OUTCOMES for k in group
            if k in ("attacker_wins", "defender_wins") or probs[k][0] > 0]
    p = np.array([probs[k][0] for k in keys]) * 100
    err = np.array([[probs[k][0] - probs[k][1], probs[k][2] - probs[k][0]] for k in keys]).T * 100
    exact = result.tally.exact  # no interval to draw: each is the point itself
    bars = ax.bar(range(len(keys)), p, yerr=None if exact else err, capsize=4,
                  color=[_colour(k) for k in keys])
    ax.bar_label(bars, labels=[_percent(v) for v in p], padding=3, fontsize=8)
    ax.set_xticks(range(len(keys)), [k.replace("_", "\n") for k in keys], fontsize=8)
    ax.set_ylabel("probability (%)")
    _title(ax, title or f"{result.scenario.name}: outcomes ({report.basis(result)})")
    free = _side_legend(ax, result, [_side(k) for k in keys])
    _headroom(ax, (p + err[1]).max(), percent=True, free=free)
    return ax


def _side_legend(ax, result, sides) -> float:
    """What the bar colours mean: good for the attacker, for the defender, for neither."""
    from matplotlib.patches import Patch

    handles = [Patch(color=SIDE_COLOURS[side],
                     label=textwrap.fill(f"good for {result.scenario.side(side).name} "
                                         f"({side})", 32))
               for side in ("attacker", "defender") if side in sides]
    if None in sides:
        handles.append(Patch(color=NEUTRAL, label="neither side"))
    return _legend_band(ax, handles, [h.get_label() for h in handles], loc="upper right",
                        title="colour", title_fontsize=8)


def loss_distributions(result, ax=None, *, title: str | None = None):
    """Distribution of each side's losses, in its ruleset's words (models lost; blackpowder:
    casualties), bars side by side, 95% whiskers on the counts that occurred: a comb of
    whiskers over empty counts would hide the bars."""
    ax = _axes(ax)
    width, tallest = 0.4, 0.0
    for i, side in enumerate(("attacker", "defender")):
        t = result.losses(side)
        x = t.index.to_numpy() + (i - 0.5) * width
        p = t["probability"].to_numpy() * 100
        err = np.vstack([p - t["probability_low"] * 100, t["probability_high"] * 100 - p])
        name = result.scenario.side(side).name
        ax.bar(x, p, width, color=SIDE_COLOURS[side], label=f"{name} ({side})")
        seen = p > 0
        if not result.tally.exact:
            ax.errorbar(x[seen], p[seen], yerr=err[:, seen], fmt="none", ecolor="black",
                        elinewidth=1, capsize=2 if len(p) <= 30 else 0)
        tallest = max(tallest, (p + err[1])[seen].max())
    lost = get_ruleset(result.scenario.ruleset).lost[1]
    ax.set_xlabel(lost)
    ax.set_ylabel("probability (%)")
    _integer_ticks(ax.xaxis)
    _title(ax, title or f"{result.scenario.name}: {lost} ({report.basis(result)})")
    free = _legend_band(ax, *ax.get_legend_handles_labels(), label_points=4, loc="upper right")
    _headroom(ax, tallest, percent=True, free=free)
    return ax


def rounds_to_decision(result, ax=None, *, title: str | None = None):
    """Probability the fight ends in each round, stacked by how, and P(decided by round r);
    from round 0 when some fights end there (before the first round: closing fire, a charged
    unit fleeing at once, no fight), else from round 1."""
    ax = _axes(ax)
    t = result.rounds()
    t = t.loc[int(t.loc[0, list(ROUND_ENDS)].sum() == 0):]
    bottom = np.zeros(len(t))
    for way, colour in ROUND_ENDS.items():
        if t[way].sum() > 0:
            ax.bar(t.index, t[way] * 100, bottom=bottom, color=colour,
                   label=way.replace("_", " "))
            bottom += t[way].to_numpy() * 100
    ax.set_xlabel("round")
    ax.set_ylabel("ends in this round (%)")
    _integer_ticks(ax.xaxis)
    twin = ax.twinx()
    twin.plot(t.index, t["decided_by"] * 100, "k.-", label="decided by round r (right axis)")
    if not result.tally.exact:
        twin.fill_between(t.index, t["decided_by_low"] * 100, t["decided_by_high"] * 100,
                          color="k", alpha=0.15)
    twin.set_ylabel("decided by round r (%)")
    _title(ax, title or f"{result.scenario.name}: rounds to decision ({report.size(result)})")
    handles, labels = ax.get_legend_handles_labels()
    more, more_labels = twin.get_legend_handles_labels()
    free = _legend_band(ax, handles + more, labels + more_labels, label_points=4, host=twin,
                        loc="upper center", ncol=3)
    _headroom(ax, bottom.max() if len(t) else 1.0, percent=True, free=free)
    _headroom(twin, 100, percent=True, free=free)  # both below the legend
    return ax


def result_figure(result):
    """The three result charts on one figure (what ``odds simulate --plot`` writes), and
    with several units a side a fourth, each unit's outcome (:func:`unit_losses`)."""
    import matplotlib.pyplot as plt

    sc = result.scenario
    several = bool(sc.attacker.units or sc.defender.units)
    fig, axes = plt.subplots(*((2, 2) if several else (1, 3)),
                             figsize=(16, 11) if several else (18, 5.5), layout="constrained")
    axes = axes.ravel()
    _fitted(lambda lines: fig.suptitle(lines, fontsize=12),
            f"{sc.name} [{sc.ruleset}]: {sc.attacker.name} (attacker) vs {sc.defender.name} "
            f"(defender), {report.basis(result, seed=True)}",
            0.95 * fig.bbox.width, fig.canvas.get_renderer())
    lost = get_ruleset(sc.ruleset).lost[1]
    for ax, chart, title in ((axes[0], outcome_bars, "How the fight ends"),
                             (axes[1], loss_distributions, lost[0].upper() + lost[1:]),
                             (axes[2], rounds_to_decision, "Rounds to decision")):
        chart(result, ax, title=title)
    if several:  # a side of several units: how each unit came out (R0-13)
        unit_losses(result, axes[3], title="Each unit")
    return fig


def unit_losses(result, ax=None, *, title: str | None = None):
    """Each unit's outcome (R0-13), one row per unit labelled "unit (side)": above, how its
    fights ended for it (a bar of its fates stacked to 100%, the whisker the 95% interval of
    "destroyed", caught included); below, its mean losses (in its ruleset's words: models
    lost...) as a bar in its side's colour over the unit's whole strength. A side of one
    unit is one row."""
    frame = result.units()
    ax = _axes(ax, size=(8, 1.9 + 0.8 * len(frame)))
    rows = np.arange(len(frame))
    shown = [fate for fate in UNIT_FATES if (frame[fate] > 0).any() or fate == "destroyed"]
    lost = get_ruleset(result.scenario.ruleset).lost
    _fate_bars(ax, frame, rows - 0.17, shown)
    ruleset = get_ruleset(result.scenario.ruleset)
    _lost_bars(ax, frame, rows + 0.24, lost,
               [f for f in ruleset.unit_flags if f in frame.columns],
               [f"{c}_mean" for c in ruleset.unit_counts if f"{c}_mean" in frame.columns])
    ax.set_yticks(rows, [textwrap.fill(f"{u.unit} ({u.side})", 24, break_long_words=False)
                         for u in frame.itertuples()], fontsize=9)
    for tick, side in zip(ax.get_yticklabels(), frame["side"]):
        tick.set_color(SIDE_COLOURS[side])
    ax.set_ylim(len(frame) - 0.45, -0.6)
    ax.set_xlim(0, 100)
    counted = bool(frame["models"].notna().any())
    ax.set_xlabel("percent of fights (fate bars)"
                  + f" and of the unit (mean {lost[1]})" * counted)
    _title(ax, title or f"{result.scenario.name}: each unit's fate and mean {lost[1]} "
                        f"({report.basis(result)})")
    _legend_below(ax, ncol=3)
    return ax


def _legend_below(ax, **options) -> None:
    """The legend under the x-axis label, at a fixed distance from it (the layout may resize
    the axes afterwards: the offset is in points, not a share of the axes)."""
    from matplotlib.transforms import ScaledTranslation

    _laid_out(ax)
    renderer = ax.figure.canvas.get_renderer()
    below = ax.get_window_extent(renderer).y0 - ax.xaxis.label.get_window_extent(renderer).y0
    offset = ScaledTranslation(0, -(below + 4) / ax.figure.dpi, ax.figure.dpi_scale_trans)
    ax.legend(*ax.get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0),
              bbox_transform=ax.transAxes + offset, fontsize=8, frameon=False, **options)


def _fate_bars(ax, frame, y, fates) -> None:
    """The stacked fate bars, each segment labelled with its percent where it fits, and the
    whisker of P(destroyed) just under the end of the destroyed and caught segments (clear
    of the labels)."""
    from matplotlib import patheffects

    left = np.zeros(len(frame))
    for fate in fates:
        name, colour = UNIT_FATES[fate]
        width = (frame[fate] - frame["caught"] * (fate == "destroyed")).to_numpy() * 100
        bars = ax.barh(y, width, 0.34, left=left, color=colour, edgecolor="#999999",
                       linewidth=0.5, label=name)
        ax.bar_label(bars, labels=[_percent(w) if w >= 8 else "" for w in width],
                     label_type="center", fontsize=7, color=_ink(colour))
        left += width
    p = frame["destroyed"].to_numpy() * 100
    err = np.vstack([p - frame["destroyed_low"] * 100, frame["destroyed_high"] * 100 - p])
    if not err.any():  # exact: no interval to draw
        return
    whiskers = ax.errorbar(p, y + 0.21, xerr=err, fmt="none", ecolor="black", elinewidth=1.2,
                           capsize=2.5, label="95% interval of destroyed (caught included)")
    for line in (*whiskers.lines[1], *whiskers.lines[2]):  # caps, bars: readable on dark
        line.set_path_effects([patheffects.withStroke(linewidth=3, foreground="white")])


def _lost_bars(ax, frame, y, lost: tuple[str, str], flags=(), means=()) -> None:
    """Mean losses as a share of the unit (side colours) with "mean x of N models lost"
    beside (``lost``: the ruleset's words, one and several); a unit without a model count
    (no model groups) gets "mean x casualties" alone; then each unit flag's percent
    ("shaken 91.6%") and each unit count's mean ("mean exchanges 2.31"), which alone
    label a unit of one model (a d10skirmish fighter: its fate bar says how often it fell)."""
    import pandas as pd

    for yi, u in zip(y, frame.itertuples()):
        colour = SIDE_COLOURS[u.side]
        text = f"mean {_amount(u.losses_mean)} {lost[1]}"
        share = 0.0
        if not pd.isna(u.models):
            share = 100 * u.losses_mean / u.models if u.models else 0.0
            ax.barh(yi, 100, 0.26, color=colour, alpha=0.15)
            ax.barh(yi, share, 0.26, color=colour)
            text = f"mean {_amount(u.losses_mean)} of {report.count(u.models, *lost)}"
        more = [f"{flag} {_percent(100 * getattr(u, flag))}" for flag in flags]
        more += [f"mean {mean.removesuffix('_mean')} {_amount(getattr(u, mean))}"
                 for mean in means]
        alone = not pd.isna(u.models) and u.models == 1  # its fate bar says how often it fell
        text = ", ".join(more if alone and more else [text, *more])
        inside = share > 60
        ax.text(share - 1 if inside else share + 1, yi, text, va="center", fontsize=8,
                ha="right" if inside else "left", color="white" if inside else "black")


def comparison_heatmap(comparison, metric: str = "attacker_wins", ax=None,
                       axes: tuple[str, str] = ("variant", "opponent"), names: dict | None = None):
    """Variants x opponents coloured by one metric, each cell annotated with its value (and
    for probabilities its 95% interval). Green is good for the attacker. A difference from
    the baseline (``attacker_wins_diff``) is signed, centred on 0, named with its baseline,
    and for probabilities in percentage points. ``axes``: the labels of the rows and the
    columns; ``names``: what some columns are called, in place of their own labels
    (``{"attacker_wins": "Orks' unit wins"}``; a difference is named after its column)."""
    import matplotlib.pyplot as plt

    f = comparison.frame
    variants, opponents = comparison.variants, comparison.opponents
    values, low, high, percent = _metric(f, metric)
    ax = _axes(ax, size=(2.2 * len(opponents) + 3.5, 0.8 * len(variants) + 2.2))

    def grid(v):
        return (f.assign(_v=v).pivot(index="variant", columns="opponent", values="_v")
                .reindex(index=variants, columns=opponents).to_numpy())

    cells = grid(values)
    finite = cells[np.isfinite(cells)]
    difference = metric.endswith("_diff")  # a variant minus its baseline: centred on 0

    def shown(v: float) -> str:
        return (_percent(v, points=difference) if percent and np.isfinite(v)
                else _amount(v, "+" if difference else "-"))

    cmap = {"attacker": "RdYlGn", "defender": "RdYlGn_r"}.get(
        _side(metric.removesuffix("_diff")), "viridis")
    centre = CENTRES.get(metric, 0.0 if difference or finite.min() < 0 else None)
    if percent and centre is None:
        vmin, vmax = 0, 100
    elif centre is not None and (difference or finite.min() < centre < finite.max()) \
            and np.abs(finite - centre).max() > 0:
        reach = np.abs(finite - centre).max()
        vmin, vmax = centre - reach, centre + reach
        cmap = "RdBu" if cmap == "viridis" else cmap
    else:
        vmin, vmax = finite.min(), finite.max()
        if vmin == vmax:
            vmin, vmax = vmin - 0.5 * abs(vmin or 1), vmax + 0.5 * abs(vmax or 1)
    image = ax.imshow(np.ma.masked_invalid(cells), vmin=vmin, vmax=vmax, aspect="auto",
                      cmap=plt.get_cmap(cmap).with_extremes(bad="#dddddd"))
    lows, highs = (grid(low), grid(high)) if low is not None else (None, None)
    for i in range(len(variants)):
        for j in range(len(opponents)):
            v = cells[i, j]
            text = shown(v)
            if lows is not None and np.isfinite(v):
                text += f"\n[{shown(lows[i, j])}, {shown(highs[i, j])}]".replace("%", "")
            rgb = image.cmap(image.norm(v))[:3] if np.isfinite(v) else (0.87,) * 3
            ax.text(j, i, text, ha="center", va="center", fontsize=9, color=_ink(rgb))
    ax.set_xticks(range(len(opponents)), [textwrap.fill(o, 16) for o in opponents], fontsize=9)
    ax.set_yticks(range(len(variants)), [textwrap.fill(v, 20) for v in variants], fontsize=9)
    ax.set_ylabel(axes[0])
    ax.set_xlabel(axes[1])
    bar = ax.figure.colorbar(image, ax=ax)
    base = metric.removesuffix("_diff")
    label = (names or {}).get(base) or _label(base, _ruleset(f))
    label += f", difference from baseline {f['baseline'].iloc[0]!r}" * difference
    _title(ax, f"{comparison.name}: {label} ({_fights(f, 'cell')}"
               + (", 95% intervals)" if low is not None else ")"))
    _laid_out(ax)  # the bar's height under the title, which the label is wrapped to
    _fitted(lambda lines: bar.ax.set_ylabel(lines),
            label + (" (percentage points)" if difference else " (%)") * percent,
            0.95 * bar.ax.get_window_extent().height, ax.figure.canvas.get_renderer(),
            along="height")
    return ax


def ranking_bars(robin, ax=None):
    """A round robin's ranking: each of MINE's units' mean win probability over the
    opponents (horizontal bars, best on top) with its 95% interval, the mean loss
    probability as a thinner bar in the defender's colour."""
    rank = robin.ranking()
    ax = _axes(ax, size=(7, 0.55 * len(rank) + 1.8))
    y = np.arange(len(rank))[::-1]
    win, loss = 100 * rank["win"].to_numpy(), 100 * rank["loss"].to_numpy()
    err = np.vstack([win - 100 * rank["win_low"].to_numpy(),
                     100 * rank["win_high"].to_numpy() - win])
    bars = ax.barh(y + 0.12, win, 0.5, xerr=err, capsize=4, color=SIDE_COLOURS["attacker"],
                   label=f"{report.possessive(robin.mine.name)} unit wins")
    ax.barh(y - 0.25, loss, 0.22, color=SIDE_COLOURS["defender"], label="loses")
    ax.bar_label(bars, labels=[_percent(v) for v in win], padding=4, fontsize=8)
    ax.set_yticks(y, [textwrap.fill(u, 24) for u in rank["unit"]], fontsize=9)
    ax.set_xlim(0, 112)
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel("mean over the opponents (%)")
    ax.grid(alpha=0.3, axis="x")
    ax.set_axisbelow(True)
    _legend_below(ax, ncols=2)
    _title(ax, f"{robin.name}: ranking ({_fights(robin.frame, 'cell')}"
               + (")" if report.solved(robin.frame) else ", 95% intervals)"))
    return ax


def round_robin_figure(robin, metric: str = "attacker_wins"):
    """A round robin's heatmap of one metric (one per side charging, stacked) beside the
    ranking, in one figure."""
    import matplotlib.pyplot as plt

    chargers = list(dict.fromkeys(robin.frame["charger"]))
    rows, columns = len(robin.mine.units), len(robin.opponents.units)
    height = len(chargers) * (0.8 * rows + 2.4)
    fig = plt.figure(figsize=(2.2 * columns + 11, height), layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[2.2 * columns + 3.5, 7.5])
    for charger, ax in zip(chargers, np.atleast_1d(left.subplots(len(chargers), 1))):
        robin.heatmap(metric, ax=ax, charger=charger)
    robin.plot_ranking(ax=right.subplots())
    return fig


def sweep_curve(sweep, metric: str = "attacker_wins", ax=None):
    """One metric against the swept value, with its 95% band: a curve for numbers, bars at
    separate positions for other values (true/false, names)."""
    ax = _axes(ax)
    f = sweep.frame
    y, low, high, percent = _metric(f, metric)
    ruleset = _ruleset(f)
    raw = list(f["value"])
    colour = _colour(metric)
    numeric = all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                  for v in raw)
    if numeric:
        x = np.asarray(raw, float)
        ax.plot(x, y, "o-", color=colour, label=_label(metric, ruleset))
        if low is not None:
            ax.fill_between(x, low, high, color=colour, alpha=0.25, label="95% interval")
            ax.legend(fontsize=8, loc="best")
        if len(raw) <= 12:
            ax.set_xticks(x, [_shown_value(v) for v in raw])
        elif all(float(v).is_integer() for v in raw):
            _integer_ticks(ax.xaxis)
    else:
        x = np.arange(len(raw))
        err = None if low is None else np.vstack([y - low, high - y])
        bars = ax.bar(x, y, 0.6, yerr=err, capsize=6, color=colour)
        ax.bar_label(bars, labels=[_percent(v) if percent else _amount(v) for v in y],
                     padding=3, fontsize=8)
        ax.set_xticks(x, [textwrap.fill(_shown_value(v), 16) for v in raw])
        ax.set_xlim(-0.6, len(raw) - 0.4)
    tallest = np.nanmax(high if high is not None else y)
    if percent and not numeric:
        _headroom(ax, tallest, percent=True)
    elif percent and np.nanmin(y if low is None else low) >= 0:  # a margin: 0% and 100% stay whole
        ax.set_ylim(-3, 103)
        ax.set_yticks(range(0, 101, 20))
    elif np.nanmin(y) >= 0:
        _headroom(ax, tallest, percent=False)
    readable = parameter_label(sweep.path, sweep.results[0].scenario if sweep.results else None)
    ax.set_xlabel(readable)
    ax.annotate(sweep.path, xy=(0.5, 0), xycoords=ax.xaxis.label, xytext=(0, -2),
                textcoords="offset points", ha="center", va="top", fontsize=7, color="grey")
    ax.set_ylabel(_axis_label(metric, percent, ruleset))
    ax.grid(alpha=0.3, axis="both" if numeric else "y")
    ax.set_axisbelow(True)
    _title(ax, f"{f['scenario'].iloc[0]}: {_label(metric, ruleset)} by {readable} "
               f"({_fights(f, 'point')}" + (", 95% intervals)" if low is not None else ")"))
    return ax


def _fights(frame, per: str) -> str:
    """"2,000 fights a cell" ("1 fight a cell"), or "1,000-4,000 fights a cell" when the rows
    differ (precision runs); "solved exactly" when they were."""
    if report.solved(frame):
        return "solved exactly"
    lo, hi = int(frame["trials"].min()), int(frame["trials"].max())
    return (report.count(lo, "fight") if lo == hi else f"{lo:,}-{hi:,} fights") + f" a {per}"


def _shown_value(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ", ".join(map(str, v))
    return str(v)


SECTIONS = ("attacker", "defender", "engagement", "simulation", "rules", "weapons")


def parameter_label(path: str, scenario=None) -> str:
    """A path in words: ``defender.models[Boy].count`` -> "Boy count (defender)"; list
    indexes become the entry's name when the scenario is given (``models[0]`` -> its name)."""
    parts = re.findall(r"[^.\[\]]+", path)
    section = parts[0] if parts[0] in SECTIONS else None
    node = scenario.to_dict() if scenario is not None else None
    if section and isinstance(node, dict):
        node = node.get(section)
    words = []
    for part in parts[1:] if section else parts:
        if isinstance(node, list):
            node = next((e for i, e in enumerate(node)
                         if str(i) == part or (isinstance(e, dict) and e.get("name") == part)),
                        None)
            name = node.get("name") if isinstance(node, dict) else None
            words.append(str(name) if name else _entry(part))
            continue
        node = node.get(part) if isinstance(node, dict) else None
        if part.isdigit():
            words.append(_entry(part))
        elif part not in ("models", "profile", "units"):
            words.append(part if part.isupper() else part.replace("_", " "))
    text = " ".join(words)
    return f"{text} ({section})" if section and text else text or path


def _entry(part: str) -> str:
    return f"entry {part}" if part.isdigit() else part
