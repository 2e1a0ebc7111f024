"""The whfb8 kernel's compiled variants (odds/rulesets/whfb8/kernel.py): a variant for a
small plan's sizes (bodies and units a side, and strikers for one unit a side without
heroes) plays the same fights as the variant for any size, bit for bit (the sizes are only
constants of the compiled code), one unit or several with characters and champions (R2-1,
R2-4)."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from kernel_variants import own_variant_record

import odds
from odds.core import walk
from odds.rulesets import get_ruleset
from odds.rulesets.whfb8 import fight, kernel

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
RULESET = get_ruleset("whfb8")
ANY_SIZE = walk.kernel(fight)  # the variant a plan too big for its own would get


@pytest.mark.parametrize("name", ["whfb8_chaos_lord_warriors_alone",
                                  "whfb8_chaos_lord_combined_charge",
                                  "whfb8_witch_elves_vs_swordsmen",
                                  "whfb8_knights_lance_charge"])
def test_a_plans_own_variant_plays_the_same_fights_R2_1_R2_4(name):
    """Each of these has none of the rare rules (kernel.rare): its variant leaves their
    steps out, the variant for any size plays them, and the fights are the same."""
    scenario = odds.load(SCENARIOS / f"{name}.toml")
    assert kernel._sizes(RULESET.compile(scenario))[2] == 0
    record = own_variant_record(RULESET, kernel, ANY_SIZE, scenario)
    assert len(np.unique(record[1])) > 1  # fights that end differently


def test_a_plan_with_rare_rules_has_a_variant_that_plays_them_R2_8_R2_12():
    """Killing Blow and Unstable are rare rules: the plan's variant keeps their steps and
    plays the fights of the variant for any size."""
    scenario = odds.load(SCENARIOS / "whfb8_witch_elves_vs_swordsmen.toml").to_dict()
    scenario["attacker"]["models"][0]["rules"] = ["Killing Blow"]
    scenario["defender"]["models"][0]["rules"] = ["Unstable"]
    scenario = odds.from_dict(scenario)
    assert kernel._sizes(RULESET.compile(scenario)) == (1, 1, 1, 4)
    record = own_variant_record(RULESET, kernel, ANY_SIZE, scenario)
    assert len(np.unique(record[1])) > 1


def test_plans_past_the_variants_sizes_take_the_variant_for_any_size():
    for bodies, units in ((kernel.MOST_BODIES + 1, 1), (2, kernel.MOST_UNITS + 1)):
        plan = SimpleNamespace(packed=SimpleNamespace(G=bodies, U=units, L=4))
        assert kernel._sizes(plan) is None
    named = SimpleNamespace(packed=SimpleNamespace(G=4, U=2, L=10), rolls=True)
    assert kernel.variant(named) == ("2 units and 2 characters or champions a side, with rare "
                                     "rules")
    named = SimpleNamespace(packed=SimpleNamespace(G=1, U=1, L=5), rolls=False,
                            multiplies=False, tables={k: np.zeros(1) for k in (
                                "p_slay", "unstable", "daemonic", "strength_in_numbers")})
    assert kernel.variant(named) == "1 unit and 0 characters or champions a side, 5 strikers"
