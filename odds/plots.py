"""Charts of results, comparisons and sweeps (matplotlib).

Each function draws on ``ax`` when given (else a new figure), returns the Axes, and never
calls ``show()``. Probabilities are shown in percent with their 95% intervals.
"""
from __future__ import annotations

import numpy as np

SIDE_COLOURS = {"attacker": "#1f77b4", "defender": "#d62728"}


def _axes(ax, size=(7, 4)):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=size, layout="constrained")
    return ax


def outcome_bars(result, ax=None):
    """Bar chart of how the fight ends, each bar with its 95% interval whisker."""
    ax = _axes(ax)
    probs = result.probabilities()
    keys = [k for k in ("attacker_wins", "defender_wins", "defender_destroyed", "defender_fled",
                        "attacker_destroyed", "attacker_fled", "both_destroyed", "unresolved",
                        "no_fight") if k in ("attacker_wins", "defender_wins") or probs[k][0] > 0]
    p = np.array([probs[k][0] for k in keys]) * 100
    err = np.array([[probs[k][0] - probs[k][1], probs[k][2] - probs[k][0]] for k in keys]).T * 100
    colours = [SIDE_COLOURS["attacker"] if k.startswith(("attacker_wins", "defender_"))
               else SIDE_COLOURS["defender"] if k.startswith(("defender_wins", "attacker_"))
               else "grey" for k in keys]
    bars = ax.bar(range(len(keys)), p, yerr=err, capsize=4, color=colours)
    ax.bar_label(bars, labels=[f"{v:.1f}%" for v in p], padding=3, fontsize=8)
    ax.set_xticks(range(len(keys)), [k.replace("_", "\n") for k in keys], fontsize=8)
    ax.set_ylabel("probability (%)")
    ax.set_ylim(0, min(100, max(p) * 1.2 + 5))
    ax.set_title(f"{result.scenario.name}: outcomes ({result.trials:,} fights, 95% intervals)",
                 fontsize=10)
    return ax


def loss_distributions(result, ax=None):
    """Distribution of models lost by each side (bars side by side, 95% whiskers)."""
    ax = _axes(ax)
    width = 0.4
    for i, side in enumerate(("attacker", "defender")):
        t = result.losses(side)
        k = t.index.to_numpy()
        err = np.vstack([t["probability"] - t["probability_low"],
                         t["probability_high"] - t["probability"]]) * 100
        name = result.scenario.side(side).name
        ax.bar(k + (i - 0.5) * width, t["probability"] * 100, width, yerr=err, capsize=2,
               color=SIDE_COLOURS[side], label=f"{name} ({side})")
    ax.set_xlabel("models lost")
    ax.set_ylabel("probability (%)")
    ax.legend(fontsize=8)
    ax.set_title(f"{result.scenario.name}: models lost", fontsize=10)
    return ax


def rounds_to_decision(result, ax=None):
    """Probability the fight ends in each round, stacked by how, and P(decided by round r)."""
    ax = _axes(ax)
    t = result.rounds()
    t = t.loc[t.index >= 1]
    bottom = np.zeros(len(t))
    colours = {"destroyed": "#444444", "caught": "#ff7f0e", "fled": "#2ca02c",
               "mutual_destruction": "#9467bd", "unresolved": "#bbbbbb"}
    for way, colour in colours.items():
        if t[way].sum() > 0:
            ax.bar(t.index, t[way] * 100, bottom=bottom, color=colour,
                   label=way.replace("_", " "))
            bottom += t[way].to_numpy() * 100
    ax.set_xlabel("round")
    ax.set_ylabel("ends in this round (%)")
    twin = ax.twinx()
    twin.plot(t.index, t["decided_by"] * 100, "k.-", label="decided by round r")
    twin.fill_between(t.index, t["decided_by_low"] * 100, t["decided_by_high"] * 100,
                      color="k", alpha=0.15)
    twin.set_ylabel("decided by round r (%)")
    twin.set_ylim(0, 105)
    handles = ax.get_legend_handles_labels()
    more = twin.get_legend_handles_labels()
    ax.legend(handles[0] + more[0], handles[1] + more[1], fontsize=8, loc="center right")
    ax.set_xticks(t.index)
    ax.set_title(f"{result.scenario.name}: rounds to decision", fontsize=10)
    return ax


def result_figure(result):
    """The three result charts on one figure (what ``odds simulate --plot`` writes)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(18, 5), layout="constrained")
    outcome_bars(result, axes[0])
    loss_distributions(result, axes[1])
    rounds_to_decision(result, axes[2])
    return fig


def comparison_heatmap(comparison, column: str = "attacker_wins", ax=None):
    """Variants x opponents coloured by one probability, annotated "p% [low, high]"."""
    f = comparison.frame
    variants, opponents = comparison.variants, comparison.opponents
    ax = _axes(ax, size=(2.2 * len(opponents) + 3, 0.7 * len(variants) + 2))
    grid = f.pivot(index="variant", columns="opponent", values=column).reindex(
        index=variants, columns=opponents).to_numpy() * 100
    low = f.pivot(index="variant", columns="opponent", values=column + "_low").reindex(
        index=variants, columns=opponents).to_numpy() * 100
    high = f.pivot(index="variant", columns="opponent", values=column + "_high").reindex(
        index=variants, columns=opponents).to_numpy() * 100
    image = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=100, aspect="auto")
    for i in range(len(variants)):
        for j in range(len(opponents)):
            ax.text(j, i, f"{grid[i, j]:.1f}%\n[{low[i, j]:.1f}, {high[i, j]:.1f}]",
                    ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(opponents)), opponents, rotation=20, ha="right")
    ax.set_yticks(range(len(variants)), variants)
    ax.set_xlabel("opponent")
    ax.set_ylabel("variant")
    ax.figure.colorbar(image, ax=ax, label=f"{column.replace('_', ' ')} (%)")
    ax.set_title(f"{comparison.name}: {column.replace('_', ' ')} (95% intervals)", fontsize=10)
    return ax


def sweep_curve(sweep, column: str = "attacker_wins", ax=None):
    """One probability against the swept value, with its 95% band."""
    ax = _axes(ax)
    f = sweep.frame
    x = f["value"].to_numpy()
    ax.plot(x, f[column] * 100, "o-", color=SIDE_COLOURS["attacker"],
            label=column.replace("_", " "))
    ax.fill_between(x, f[column + "_low"] * 100, f[column + "_high"] * 100,
                    color=SIDE_COLOURS["attacker"], alpha=0.25, label="95% interval")
    ax.set_xlabel(sweep.path)
    ax.set_ylabel(f"{column.replace('_', ' ')} (%)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(f"{f['scenario'].iloc[0]}: {column.replace('_', ' ')} vs {sweep.path}",
                 fontsize=10)
    return ax
