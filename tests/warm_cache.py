"""Compile every kernel variant and exact solver into numba's cache before the tests run.

With pytest-xdist, each worker would otherwise compile every kernel it meets, both workers
the same ones at the same time; conftest.py runs this first, its two halves in two
processes at once, so each kernel is compiled once and the workers load it from the cache.
``python tests/warm_cache.py 0`` (or 1) warms one half.
"""
from __future__ import annotations

import sys
from pathlib import Path

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
HALVES = (  # about equal compile times: wh40k3's kernel variants and solver are the largest;
    # blackpowder and d10skirmish together, as their solvers share the core's compiled walk
    ("wh40k3_assault_marines_vs_boyz.toml", "wh40k3_two_squads_vs_ork_mob.toml",
     "whfb8_chaos_lord_combined_charge.toml", "d10skirmish_paratrooper_pushes_sniper.toml",
     "blackpowder_cuirassiers_charge_lancers.toml"),
    ("mordheim_captain_vs_night_runner.toml", "whfb8_knights_lance_charge.toml"),
)
VARIANT_FLAGS = ("skilled", "extra")  # mordheim's and whfb8's second kernel variants


def warm(name: str, solve: bool) -> bool:
    """Play a few fights of the scenario in each kernel variant, and with ``solve`` solve it
    exactly if the solver covers it. Returns whether it was solved."""
    import odds
    from odds.core import exact, runner
    from odds.rulesets import get_ruleset

    scenario = odds.load(SCENARIOS / name)
    ruleset = get_ruleset(scenario.ruleset)
    plan = ruleset.compile(scenario)
    plans = [plan] + [plan._replace(**{flag: not getattr(plan, flag)})
                      for flag in VARIANT_FLAGS if hasattr(plan, flag)]
    for each in plans:
        runner.run(ruleset, each, 64, 0)
    if solve and exact.covers(ruleset, scenario) is None:
        odds.simulate(scenario, method="exact")
        return True
    return False


if __name__ == "__main__":
    import time

    seen = set()
    for name in HALVES[int(sys.argv[1])]:
        ruleset = name.split("_")[0]
        start = time.process_time()
        if warm(name, solve=ruleset not in seen):
            seen.add(ruleset)
        print(f"warm_cache: {name}: kernels ready ({time.process_time() - start:.0f} CPU s)",
              file=sys.stderr, flush=True)
