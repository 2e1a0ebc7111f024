"""The wh40k3 kernel's compiled variants (odds/rulesets/wh40k3/kernel.py): a variant for a
small plan's sizes plays the same fights as the variant for any size, bit for bit (the
sizes are only constants of the compiled code); a record without the per-unit columns
takes the shared ones (R0-13, R0-16)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kernel_variants import own_variant_record

import odds
from odds.core import runner, walk
from odds.core.outcome import COLUMNS
from odds.rulesets import get_ruleset
from odds.rulesets.wh40k3 import fight, kernel

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
RULESET = get_ruleset("wh40k3")
ANY_SIZE = walk.kernel(fight)  # the variant a plan too big for its own would get


@pytest.mark.parametrize("name", ["wh40k3_assault_marines_vs_boyz",
                                  "wh40k3_two_squads_vs_ork_mob"])
def test_a_plans_own_variant_plays_the_same_fights_R0_13(name):
    record = own_variant_record(RULESET, kernel, ANY_SIZE,
                                odds.load(SCENARIOS / f"{name}.toml"))
    assert len(np.unique(record[0])) > 1  # fights that end differently


def test_plans_past_the_variants_sizes_take_the_variant_for_any_size():
    from types import SimpleNamespace

    for groups, units in ((kernel.MOST_GROUPS + 1, 1), (1, kernel.MOST_UNITS + 1)):
        plan = SimpleNamespace(packed=SimpleNamespace(G=groups, U=units))
        assert kernel._sizes(plan) is None


def test_a_record_without_unit_columns_takes_the_shared_ones_R0_13_R0_16():
    scenario = odds.load(SCENARIOS / "wh40k3_two_squads_vs_ork_mob.toml")
    plan = RULESET.compile(scenario)
    _, shared = runner.run(RULESET, plan, 2000, 3, keep_fights=True)
    _, every = runner.run(RULESET, plan, 2000, 3, keep_fights=True,
                          columns=RULESET.columns(scenario))
    assert len(shared) == len(COLUMNS) + len(RULESET.extra_columns) < len(every)
    assert np.array_equal(shared, every[:len(shared)])
