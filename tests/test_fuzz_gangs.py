"""A property suite for d10skirmish gangs (issue 30): seeded random fights of one or two
fighters a side, at least one side a gang (profiles, distances, sight, fighters out of the
fight, charge targets, policies, flight thresholds, and the engagement's options), each
solved exactly and checked against a fixed-seed simulation by tests/exact_parity.py: every
outcome probability and every column's mean, each fighter's included, within |z| < 4.5,
rare outcomes by their binomial tail; the masses sum to 1.

Gang ``k`` is drawn from ``random.Random("gang#<k>")``, so the list is the same on every
run; a draw the scenario checks refuse (e.g. a push onto a larger base) is drawn again."""
from __future__ import annotations

import random

import gang_scenarios as G
import pytest
from exact_parity import assert_parity, solved

from odds.errors import ScenarioError

GANGS = 24
TRIALS = 50_000


def _fighter(rng: random.Random, name: str, side: int, enemies: list[str], fresh_ok: bool):
    keys = {"target": rng.choice(["nearest", "weakest", "engaged"])}
    if side == 0 and (not fresh_ok or rng.random() < 0.7):
        keys["charges"] = rng.choice(enemies)
        if rng.random() < 0.6:
            keys["distance"] = rng.choice([0, 3, 6.5, 8, 11])
            if rng.random() < 0.2:
                keys["line_of_sight"] = False
    elif fresh_ok and (side == 0 or rng.random() < 0.5):
        keys.update(engaged=False, distance=rng.choice([2, 5, 9, 13]))
        if side == 0 and rng.random() < 0.5:
            keys["charges"] = rng.choice(enemies)
    wounds = rng.randint(1, 4)
    if wounds > 1 and rng.random() < 0.3:
        keys["flee_below"] = rng.randint(1, wounds - 1)
    group = {"base": rng.choice([25, 32])}
    if rng.random() < 0.3:
        group.update(adjust=1, adjust_for=rng.choice(["hits", "blocks"]))
    return G.U(name, rng.randint(3, 9), ap=rng.randint(2, 4), w=wounds, arm=rng.randint(0, 6),
               dmg=rng.randint(1, 2), m=rng.choice([3, 4, 5]), group=group, **keys)


def gang(k: int):
    """Random gang ``k``: one or two fighters a side, not one a side."""
    rng = random.Random(f"gang#{k}")
    while True:
        sizes = rng.choice([(2, 1), (1, 2), (2, 2)])
        names = [[f"{s}{i}" for i in range(n)] for s, n in zip("AD", sizes)]
        engagement = {key: value for key, value, p in (
            ("reaction_ap", rng.randint(1, 2), 0.3), ("turn_order", "alternate", 0.3),
            ("reaction", "flee", 0.2), ("opening_ends_activation", False, 0.2),
            ("melee_attack_ap", 2, 0.2), ("opening", "push", 0.15),
            ("crit_mode", "double", 0.15)) if rng.random() < p}
        sides = [[_fighter(rng, name, s, names[1 - s], fresh_ok=i > 0)
                  for i, name in enumerate(names[s])] for s in (0, 1)]
        try:
            return G.gang(*sides, max_rounds=rng.choice([3, 5]), **engagement)
        except ScenarioError:
            continue


@pytest.mark.parametrize("k", range(GANGS))
def test_a_random_gang_solves_as_it_simulates(k):
    scenario = gang(k)
    tally = solved(scenario)
    assert_parity(scenario, trials=TRIALS, seed=k + 1, z=4.5, tally=tally)
