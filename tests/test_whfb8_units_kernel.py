"""The whfb8 kernel of several units and heroes (kernel_units) plays a one-unit fight as the
one-unit kernel does: both kernels on the same one-unit scenarios, compared by two-sample
z-scores on P(winner, end) and the mean of every shared column (|z| < 4, fixed seeds).

The one-unit kernel is itself checked against tests/naive_whfb8.py and the exact solver, so
this pins every one-unit rule (R2-1 ... R2-14) in the kernel of several units too.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import odds
from odds.core.outcome import COLUMNS, empty_record
from odds.rulesets import get_ruleset
from odds.rulesets.whfb8 import kernel_units
from odds.rulesets.whfb8.compile_units import compile_units
from odds.rulesets.whfb8.units import HERO_COLUMNS

Z_MAX = 4.0
TRIALS = 60_000
SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
BUNDLED = ["whfb8_chaos_warriors_vs_goblin_horde", "whfb8_flank_charge_spearmen",
           "whfb8_knights_lance_charge", "whfb8_witch_elves_vs_swordsmen"]


def disagreements(a: np.ndarray, b: np.ndarray) -> list[str]:
    """The columns where two records of the same fight differ by |z| >= Z_MAX."""
    bad = []
    for c, name in enumerate(COLUMNS):
        x, y = a[c].astype(float), b[c].astype(float)
        if c <= 1:  # winner, end: each value's probability
            for v in np.union1d(x, y):
                p, q = (x == v).mean(), (y == v).mean()
                pooled = (p + q) / 2
                se = np.sqrt(pooled * (1 - pooled) * 2 / TRIALS)
                if se > 0 and abs(p - q) / se >= Z_MAX:
                    bad.append(f"P({name}={int(v)}): {p:.4f} vs {q:.4f}")
        else:
            se = np.sqrt(x.var() / TRIALS + y.var() / TRIALS)
            if se > 0 and abs(x.mean() - y.mean()) / se >= Z_MAX:
                bad.append(f"mean {name}: {x.mean():.3f} vs {y.mean():.3f}")
    return bad


@pytest.mark.parametrize("name", BUNDLED)
def test_units_kernel_plays_one_unit_fights_as_the_one_unit_kernel_R2_1(name):
    """R2-1 ... R2-14: one unit a side, both kernels, the same distribution."""
    scenario = odds.load(SCENARIOS / f"{name}.toml")
    ruleset = get_ruleset("whfb8")
    one = empty_record(TRIALS)
    ruleset.play(ruleset.compile(scenario), 1, 0, one)
    several = empty_record(TRIALS, HERO_COLUMNS)
    kernel_units.play_chunk(compile_units(scenario), 2, 0, several)
    assert not (several[len(COLUMNS):] != 0).any()  # no heroes: no challenge, none slain
    bad = disagreements(one, several)
    assert not bad, f"{name}: " + "; ".join(bad)


def test_the_comparison_can_fail():
    """The z-test above tells two different fights apart (the same kernel, 2 models more)."""
    scenario = odds.load(SCENARIOS / "whfb8_chaos_warriors_vs_goblin_horde.toml")
    data = scenario.to_dict()
    data["attacker"]["models"][0]["count"] += 2
    ruleset = get_ruleset("whfb8")
    a, b = empty_record(TRIALS), empty_record(TRIALS)
    ruleset.play(ruleset.compile(scenario), 1, 0, a)
    ruleset.play(ruleset.compile(odds.from_dict(data)), 2, 0, b)
    assert disagreements(a, b)


def test_a_record_of_the_shared_columns_only_is_filled_safely():
    """A record with only the shared columns (runner.run's default) gets them, and nothing
    is written past its rows: the same shared columns as a full record."""
    scenario = odds.load(SCENARIOS / "whfb8_chaos_lord_combined_charge.toml")
    ruleset = get_ruleset("whfb8")
    plan = ruleset.compile(scenario)
    short = empty_record(3_000)
    full = empty_record(3_000, ruleset.own_columns(scenario)
                        + tuple(ruleset.columns(scenario)[len(COLUMNS)
                                                          + len(ruleset.own_columns(scenario)):]))
    ruleset.play(plan, 5, 0, short)
    ruleset.play(plan, 5, 0, full)
    assert (short == full[:len(COLUMNS)]).all()
