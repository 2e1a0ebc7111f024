"""Fights per second of the d10skirmish kernel, 1 and 2 threads, against the pure-Python
reference (tests/naive_d10skirmish.py; tests/naive_d10skirmish_gang.py for a gang).

    python benchmarks/bench_d10skirmish.py [--trials N] [--reference-trials N] [--passes K]

For each scenario: the median of K passes (after compilation) with 1 and 2 threads, the
reference's rate on one thread, and their ratio. The machine is shared: compare the ratios
of one run, not figures across runs.
"""
from __future__ import annotations

import random
from functools import partial

import odds

import common

naive_d10skirmish = common.naive("d10skirmish")  # tests/naive_d10skirmish.py
naive_gang = common.naive("d10skirmish_gang")  # tests/naive_d10skirmish_gang.py


def duel(adjust: int):
    """Two tough veterans to the end: W 8, ARM 4, MS 6 vs 6, AP 3, 30 turns at most."""
    veteran = {"name": "Veteran", "count": 1, "adjust": adjust,
               "profile": {"MS": 6, "AP": 3, "W": 8, "ARM": 4, "DMG": 1}}
    return odds.from_dict({"ruleset": "d10skirmish", "name": "duel",
                           "attacker": {"name": "A", "models": [veteran]},
                           "defender": {"name": "B", "models": [veteran]},
                           "simulation": {"max_rounds": 30}})


def reference(scenario):
    gang = any(scenario.side(k).units for k in ("attacker", "defender"))
    return partial((naive_gang if gang else naive_d10skirmish).play_fight, scenario,
                   random.Random(0))


if __name__ == "__main__":
    common.main(
        __doc__,
        [("bundled: trooper charges a sniper",
          odds.load(common.SCENARIO_DIR / "d10skirmish_trooper_charges_sniper.toml")),
         ("long duel, W 8, ARM 4, no abilities", duel(0)),
         ("long duel, both turn 1 die (R3-6)", duel(1)),
         ("gang: two troopers charge a brute, a sniper comes up",
          odds.load(common.SCENARIO_DIR / "d10skirmish_two_troopers_charge_a_brute.toml")),
         ("gang: three troopers against a brute and a sniper",
          odds.load(common.SCENARIO_DIR / "d10skirmish_three_troopers_against_a_brute.toml"))],
        reference,
        heading=lambda label, tally: f"{label}: {tally.mean('exchanges'):.2f} exchanges a fight",
        trials=2_000_000, reference_trials=5_000, passes=3)
