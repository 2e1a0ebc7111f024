"""A property suite for the exact solvers (issue 12): seeded variants of every bundled
scenario (a count, a characteristic or max_rounds nudged by one, within what the scenario
accepts) are solved exactly and checked against a fixed-seed simulation, with |z| < 4.5
over every outcome probability and every column's mean, and the masses sum to 1.

Variant ``k`` of a file is drawn from ``random.Random("<file name>#<k>")``, so the list is
the same on every run; a variant the solver cannot take within its bound is skipped (the
bound itself is tested in each ruleset's solver tests)."""
from __future__ import annotations

import copy
import random
import tomllib

import pytest

from exact_parity import assert_parity, solved
from mutants import SCENARIOS
from odds.core import exact
from odds.errors import ScenarioError
from odds.rulesets import get_ruleset
from odds.scenario import from_dict

PER_SCENARIO = 6
TRIALS = 20_000
NUDGED = ("count", "max_rounds", "WS", "BS", "S", "T", "W", "I", "A", "Ld", "Sv", "M", "MS",
          "stamina", "hand_to_hand", "morale")


def _leaves(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _leaves(value, path + (i,))
    elif type(node) is int and path and path[-1] in NUDGED:
        yield path, node


def variant(source, k: int):
    """Variant k of a bundled scenario: one whole number nudged by one (or max_rounds set to
    1-4), re-drawn until the scenario accepts it; None when none is accepted."""
    rng = random.Random(f"{source.name}#{k}")
    base = tomllib.loads(source.read_text("utf-8"))
    for _ in range(20):
        data = copy.deepcopy(base)
        leaves = list(_leaves(data))
        if rng.random() < 0.3:
            data.setdefault("simulation", {})["max_rounds"] = rng.randint(1, 4)
            what = f"max_rounds = {data['simulation']['max_rounds']}"
        else:
            path, value = rng.choice(leaves)
            node = data
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value + rng.choice((-1, 1))
            what = f"{'.'.join(map(str, path))} = {node[path[-1]]}"
        try:
            return from_dict(data, str(source)), what
        except ScenarioError:
            continue
    return None


CASES = [(source, k) for source in SCENARIOS for k in range(PER_SCENARIO)
         if get_ruleset(tomllib.loads(source.read_text("utf-8"))["ruleset"]).exact]


@pytest.mark.parametrize("source, k", CASES, ids=[f"{s.stem}#{k}" for s, k in CASES])
def test_exact_agrees_with_the_simulation_on_variants(source, k):
    made = variant(source, k)
    if made is None:
        pytest.skip("no accepted variant")
    scenario, what = made
    if exact.covers(get_ruleset(scenario.ruleset), scenario) is not None:
        pytest.skip("not covered")
    try:
        tally = solved(scenario, max_states=None)  # the ruleset's default bound
    except exact.TooManyStates as e:
        pytest.skip(f"{what}: {e}")
    assert_parity(scenario, trials=TRIALS, seed=1000 + k, z=4.5, tally=tally)
