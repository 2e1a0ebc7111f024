"""The mordheim kernel's compiled variants (odds/rulesets/mordheim/kernel.py): the variant
for a fight's number of warriors plays the same fights as the variant for any number, bit
for bit (the number is only a constant of the compiled code), R1-1 ... R1-12."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from kernel_variants import own_variant_record

import odds
from odds.core import walk
from odds.rulesets import get_ruleset
from odds.rulesets.mordheim import fight, kernel

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
ANY_SIZE = walk.kernel(fight)  # the variant a fight of more warriors would get


@pytest.mark.parametrize("name", ["mordheim_captain_vs_skaven", "mordheim_two_on_one"])
def test_a_plans_own_variant_plays_the_same_fights_R1_12(name):
    record = own_variant_record(get_ruleset("mordheim"), kernel, ANY_SIZE,
                                odds.load(SCENARIOS / f"{name}.toml"))
    assert len(np.unique(record[0])) > 1  # fights that end differently


def test_fights_past_the_variants_sizes_take_the_variant_for_any_size():
    assert kernel._sizes(SimpleNamespace(warriors=kernel.MOST_WARRIORS + 1)) is None
    assert kernel.variant(SimpleNamespace(warriors=2)) == "2 warriors"
