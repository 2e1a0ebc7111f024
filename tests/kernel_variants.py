"""The check shared by the kernel-variant tests of the rulesets written as a rule text
(tests/test_wh40k3_kernel_variants.py, tests/test_whfb8_kernel_variants.py,
tests/test_mordheim_kernel_variants.py): a plan's own
variant, compiled for its sizes, plays the same fights as the variant for any size."""
from __future__ import annotations

import numpy as np

from odds.core import walk


def own_variant_record(ruleset, kernel, any_size, scenario) -> np.ndarray:
    """The record of 3,000 fights (seed 11, from fight 500) the plan's own variant plays,
    asserted equal, bit for bit, to the record of ``any_size`` (the variant for any size)."""
    plan = ruleset.compile(scenario)
    packed = getattr(plan, "packed", None)  # wh40k3's and whfb8's kernels read it
    sizes = kernel._sizes(plan)  # whfb8's also: whether it has rare rules, its strikers
    assert sizes[:2] == (packed.G, packed.U) if packed else sizes == (plan.warriors,)
    records = []
    for play in (kernel.entry(plan), any_size):
        out = np.zeros((len(ruleset.columns(scenario)), 3000), np.int32)
        walk.play_in_threads(play, packed or plan, 11, 500, out)
        records.append(out)
    assert np.array_equal(*records)
    return records[0]
