"""The D10 action-point skirmish game's melee (R3-x, A1-A6). See README.md here."""
from __future__ import annotations

import numpy as np

from odds.core.ruleset import Ruleset
from odds.rulesets.d10skirmish import gangs, rules
from odds.rulesets.d10skirmish.compile import compile_plan

ANSWERS = ("fight", "one", "flee")
OUTCOME = ("attacker_crits", "attacker_hits", "defender_crits", "defender_hits", "blocked")


def exchange_odds(scenario, *, started_by: str | None = None, answer: str = "fight",
                  trials: int = 1_000_000, seed: int = 1):
    """The odds of one exchange (R3-4 ... R3-7), by simulation: the criticals and hits each
    fighter lands, before armour, and the pairs that block.

    ``scenario`` is a d10skirmish Scenario, its TOML-shaped data or the path of its file. The
    fighter ``started_by`` ("attacker" or "defender"; default: the charger) rolls all its
    attacks; the other answers with ``answer``: "fight" (all its attacks), "one" (no AP left:
    1 die, R3-4) or "flee" (no dice, R3-8). Returns a DataFrame, one row per outcome
    (``OUTCOME`` columns) with its probability and Wilson 95% interval, the likeliest first.
    """
    import pandas as pd

    from odds.analysis.intervals import wilson
    from odds.rulesets.d10skirmish.kernel import tally_exchanges
    from odds.scenario import as_scenario

    scenario = as_scenario(scenario)
    if scenario.ruleset != RULESET.id:
        raise ValueError(f"a {RULESET.id} scenario is needed, got {scenario.ruleset!r}")
    started_by = started_by or scenario.engagement["charger"]
    for name, value, allowed in (("started_by", started_by, rules.SIDES),
                                 ("answer", answer, ANSWERS)):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, "
                             f"got {value!r}")
    plan = compile_plan(scenario)
    active = rules.SIDES.index(started_by)
    dice = [0, 0]
    dice[active] = int(plan.attacks[active])
    dice[1 - active] = {"fight": int(plan.attacks[1 - active]), "one": 1, "flee": 0}[answer]
    counts = np.zeros((dice[0] + 1,) * 2 + (dice[1] + 1,) * 2 + (min(dice) + 1,), np.int64)
    tally_exchanges(plan, active, dice[1 - active], trials, seed, counts)
    seen = np.argwhere(counts)
    k = counts[tuple(seen.T)]
    low, high = wilson(k, trials)
    frame = pd.DataFrame(seen, columns=list(OUTCOME))
    frame["probability"], frame["ci95_low"], frame["ci95_high"] = k / trials, low, high
    return frame.sort_values("probability", ascending=False, ignore_index=True)


RULESET = Ruleset(
    catalogues=rules.catalogues,
    id="d10skirmish",
    title="D10 action-point skirmish",
    profile=rules.PROFILE,
    group_keys=rules.GROUP_KEYS,
    side_keys=rules.SIDE_KEYS,
    engagement=rules.ENGAGEMENT,
    check=gangs.check,
    compile=compile_plan,
    kernel="odds.rulesets.d10skirmish.kernel",
    exact="odds.rulesets.d10skirmish.exact",
    # R3-1: a charger given a distance closes in by moves before it opens
    rule_ids=tuple(f"R3-{i}" for i in range(1, 10)),
    extra_columns=("exchanges", "pushed"),
    flag_columns=("pushed",),
    lost=("fighter down", "fighters down"),  # 1 when the fighter went down
    multi_unit=True,  # a gang: several fighters a side, a unit each (gangs.py, gang.py)
    unit_flags=("fought",),  # each fighter's: it got into base contact (R3-1)
    unit_counts=("exchanges",),  # each fighter's exchanges fought, a mean
)
