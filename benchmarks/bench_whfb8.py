"""Fights per second of the whfb8 kernels (1 and 2 threads) against the pure-Python references.

    python benchmarks/bench_whfb8.py [--trials N] [--reference-trials M] [--passes K]

For each bundled scenario (the first is the 40-goblin horde against 20 Chaos Warriors; the
last two, a Chaos Lord's Warriors alone and with Knights in the flank against a Night Goblin
horde, are played by the rule text, fight.py, against tests/naive_whfb8_units.py) it prints
the machine, the trial counts, the median rate of K kernel passes after compilation and the
reference's rate. The machine is shared: compare ratios within one run.
"""
from __future__ import annotations

import random
from functools import partial

import odds
from odds.rulesets.whfb8.units import led

import common

naive_whfb8 = common.naive("whfb8")  # tests/naive_whfb8.py
naive_units = common.naive("whfb8_units")  # tests/naive_whfb8_units.py

SCENARIOS = ("whfb8_chaos_warriors_vs_goblin_horde.toml", "whfb8_knights_lance_charge.toml",
             "whfb8_flank_charge_spearmen.toml", "whfb8_witch_elves_vs_swordsmen.toml",
             "whfb8_chaos_lord_warriors_alone.toml", "whfb8_chaos_lord_combined_charge.toml")


def reference(scenario):
    if led(scenario):
        return partial(naive_units.play, scenario, random.Random(0))
    return partial(naive_whfb8.play_fight, scenario, random.Random(0),
                   naive_whfb8.prepare(scenario))


if __name__ == "__main__":
    cases = []
    for name in SCENARIOS:
        scenario = odds.load(common.SCENARIO_DIR / name)
        cases.append((f"{scenario.name} ({name})", scenario))
    common.main(__doc__, cases, reference, trials=2_000_000, reference_trials=5_000, passes=3)
