"""The result of simulating one scenario: probabilities with Wilson 95% intervals, means,
loss distributions, per-fight rows on request, CSV and JSON."""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from odds.analysis.intervals import wilson
from odds.core.outcome import (ATTACKER, CAUGHT, DEFENDER, DESTROYED, ENDS, FLED, MUTUAL,
                               NO_FIGHT, NONE, UNRESOLVED, WINNERS)
from odds.core.tally import Tally

@dataclass
class Result:
    """What :func:`odds.simulate` returns."""

    scenario: object
    tally: Tally
    seed: int
    fights_record: np.ndarray | None = None
    precision_met: bool | None = None  # set by simulate(precision=...)

    @property
    def trials(self) -> int:
        return self.tally.trials

    def counts(self) -> dict[str, int]:
        """How many fights ended each way. The first five keys partition the trials."""
        o = self.tally.outcomes.sum(axis=2)  # [winner, end]
        out = {
            "attacker_wins": int(o[ATTACKER].sum()),
            "defender_wins": int(o[DEFENDER].sum()),
            "both_destroyed": int(o[NONE, MUTUAL]),
            "unresolved": int(o[NONE, UNRESOLVED]),
            "no_fight": int(o[NONE, NO_FIGHT]),
        }
        for winner, loser in ((DEFENDER, "attacker"), (ATTACKER, "defender")):
            out[f"{loser}_destroyed"] = int(o[winner, DESTROYED] + o[winner, CAUGHT])
            out[f"{loser}_caught"] = int(o[winner, CAUGHT])
            out[f"{loser}_fled"] = int(o[winner, FLED])
        return out

    def probabilities(self) -> dict[str, tuple[float, float, float]]:
        """Each count as (probability, low, high) with a Wilson 95% interval."""
        counts = self.counts()
        k = np.array(list(counts.values()))
        low, high = wilson(k, self.trials)
        return {key: (k[i] / self.trials, float(low[i]), float(high[i]))
                for i, key in enumerate(counts)}

    def means(self) -> dict[str, float]:
        rounds = self.tally.outcomes.sum(axis=(0, 1))
        out = {"mean_rounds": float(np.arange(len(rounds)) @ rounds / self.trials)}
        for side in ("attacker", "defender"):
            out[f"{side}_losses_mean"] = self.tally.mean(f"{side}_lost")
            out[f"{side}_wounds_mean"] = self.tally.mean(f"{side}_wounds")
        return out

    def summary(self):
        """One tidy DataFrame indexed by outcome: ``kind`` (probability or mean), ``value``,
        and for probabilities the Wilson 95% interval ``ci95_low``, ``ci95_high``."""
        import pandas as pd

        rows = [{"outcome": k, "kind": "probability", "value": p, "ci95_low": lo,
                 "ci95_high": hi} for k, (p, lo, hi) in self.probabilities().items()]
        rows += [{"outcome": k, "kind": "mean", "value": v} for k, v in self.means().items()]
        return pd.DataFrame(rows).set_index("outcome")

    def losses(self, side: str):
        """Distribution of models lost by ``side``: P(lost = k), P(lost >= k), P(lost <= k).

        Each probability has its Wilson 95% interval (``*_low``, ``*_high``).
        """
        h = self.tally.histogram(f"{side}_lost")
        return self._table("models_lost", {"probability": h, "at_least": h[::-1].cumsum()[::-1],
                                           "at_most": h.cumsum()})

    def cumulative(self):
        """For each k: P(the attacker destroys at least k), P(it loses at most k), and the same
        for the defender, with 95% intervals (destroyed = models the enemy lost)."""
        a = self.tally.histogram("attacker_lost")
        d = self.tally.histogram("defender_lost")
        n = max(len(a), len(d))
        a, d = np.pad(a, (0, n - len(a))), np.pad(d, (0, n - len(d)))
        return self._table("k", {
            "attacker_destroys_at_least": d[::-1].cumsum()[::-1],
            "attacker_loses_at_most": a.cumsum(),
            "defender_destroys_at_least": a[::-1].cumsum()[::-1],
            "defender_loses_at_most": d.cumsum(),
        })

    def rounds(self):
        """Per round r: P(the fight ends in round r) in each way, and P(decided by round r).

        "Decided" means it ended with a winner or mutual destruction; ``unresolved`` fights are
        counted at the round cap, ``no fight`` at round 0.
        """
        o = self.tally.outcomes  # [winner, end, rounds]
        ways = {name: o[:, end, :].sum(axis=0) for end, name in enumerate(ENDS)}
        ways["attacker_wins"] = o[ATTACKER].sum(axis=0)
        ways["defender_wins"] = o[DEFENDER].sum(axis=0)
        decided = o[ATTACKER].sum(axis=0) + o[DEFENDER].sum(axis=0) + o[NONE, MUTUAL]
        ways["decided_by"] = decided.cumsum()
        return self._table("round", {k.replace(" ", "_"): v for k, v in ways.items()})

    def quantiles(self, q=(0.05, 0.25, 0.5, 0.75, 0.95)):
        """Quantiles of rounds fought and of models lost by each side (rows) at ``q`` (columns)."""
        import pandas as pd

        rounds = self.tally.outcomes.sum(axis=(0, 1))
        rows = {"rounds": rounds}
        for side in ("attacker", "defender"):
            rows[f"{side}_lost"] = self.tally.histogram(f"{side}_lost")
        return pd.DataFrame({name: [_quantile(h, x) for x in q] for name, h in rows.items()},
                            index=pd.Index(q, name="quantile")).T

    def _table(self, index_name: str, counts: dict[str, np.ndarray]):
        """A DataFrame of probabilities from counts, each with its Wilson 95% interval."""
        import pandas as pd

        n = len(next(iter(counts.values())))
        columns = {}
        for name, k in counts.items():
            low, high = wilson(k, self.trials)
            columns[name] = k / self.trials
            columns[f"{name}_low"] = low
            columns[f"{name}_high"] = high
        return pd.DataFrame(columns, index=pd.RangeIndex(n, name=index_name))

    def headline_half_width(self) -> float:
        """The widest 95% interval half-width among the headline probabilities."""
        return max((hi - lo) / 2 for _, lo, hi in self.probabilities().values())

    def fights(self):
        """One row per fight (needs ``keep_fights=True``), outcome-record columns."""
        import pandas as pd

        if self.fights_record is None:
            raise ValueError("per-fight rows were not kept: simulate(..., keep_fights=True)")
        frame = pd.DataFrame(dict(zip(self.tally.columns, self.fights_record)))
        frame["winner"] = pd.Categorical.from_codes(frame["winner"], list(WINNERS))
        frame["end"] = pd.Categorical.from_codes(frame["end"], list(ENDS))
        return frame

    def to_dict(self) -> dict:
        """The headline numbers as plain JSON-ready data (the CLI's ``--json``)."""
        probs = self.probabilities()
        out = {"scenario": self.scenario.name, "ruleset": self.scenario.ruleset,
               "trials": self.trials, "seed": self.seed}
        out.update({k: p for k, (p, _, _) in probs.items()})
        out.update(self.means())
        for key in ("attacker_wins", "defender_wins"):
            out[f"{key}_ci95"] = [probs[key][1], probs[key][2]]
        if self.precision_met is not None:
            out["precision_met"] = self.precision_met
            out["ci95_half_width_max"] = self.headline_half_width()
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_csv(self, path=None):
        """Tidy CSV: the :meth:`summary` rows tagged with the scenario, ruleset, trials and
        seed, so reports concatenate. Returns the text when ``path`` is None."""
        tidy = self.summary().reset_index()
        for column, value in (("seed", self.seed), ("trials", self.trials),
                              ("ruleset", self.scenario.ruleset),
                              ("scenario", self.scenario.name)):
            tidy.insert(0, column, value)
        return tidy.to_csv(path, index=False)

    def plot(self, ax=None):
        """The outcome bar chart (see :mod:`odds.plots` for the others); returns the Axes."""
        from odds.plots import outcome_bars

        return outcome_bars(self, ax=ax)

    def __str__(self) -> str:
        return format_result(self)

    def _repr_html_(self) -> str:
        return (f"<h4>{self.scenario.name} ({self.scenario.ruleset}, {self.trials:,} fights, "
                f"seed {self.seed})</h4>"
                + self.summary().to_html(float_format="{:.4f}".format, na_rep=""))


def _quantile(histogram: np.ndarray, q: float) -> int:
    """The smallest value v that occurs with P(X <= v) >= q."""
    cdf = histogram.cumsum() / histogram.sum()
    return int(np.flatnonzero((cdf >= q - 1e-12) & (histogram > 0))[0])


def format_result(result: Result) -> str:
    """The readable table the CLI prints."""
    sc = result.scenario
    lines = [f"{sc.name}  [{sc.ruleset}]",
             f"{sc.attacker.name} (attacker) vs {sc.defender.name} (defender); "
             f"{result.trials:,} fights, seed {result.seed}", ""]
    lines.append(f"{'outcome':<22}{'probability':>12}   95% interval")
    probs = result.probabilities()
    for key, label in (("attacker_wins", "attacker wins"), ("defender_wins", "defender wins"),
                       ("both_destroyed", "both destroyed"), ("unresolved", "unresolved"),
                       ("no_fight", "no fight"),
                       ("defender_destroyed", "  defender destroyed"),
                       ("defender_caught", "    of which caught"),
                       ("defender_fled", "  defender fled"),
                       ("attacker_destroyed", "  attacker destroyed"),
                       ("attacker_caught", "    of which caught"),
                       ("attacker_fled", "  attacker fled")):
        p, lo, hi = probs[key]
        if key == "no_fight" and p == 0:
            continue
        lines.append(f"{label:<22}{100 * p:>11.2f}%   [{100 * lo:.2f}%, {100 * hi:.2f}%]")
    if result.precision_met is not None:
        lines.append(f"widest 95% half-width {100 * result.headline_half_width():.2f}% after "
                     f"{result.trials:,} fights: precision "
                     f"{'met' if result.precision_met else 'NOT met (trial cap reached)'}")
    m = result.means()
    lines += ["", f"mean rounds fought: {m['mean_rounds']:.2f}",
              f"mean models lost:   attacker {m['attacker_losses_mean']:.2f}, "
              f"defender {m['defender_losses_mean']:.2f}",
              f"mean wounds taken:  attacker {m['attacker_wounds_mean']:.2f}, "
              f"defender {m['defender_wounds_mean']:.2f}"]
    return "\n".join(lines)
