"""Compile every kernel variant and exact solver into numba's cache before the tests run.

With pytest-xdist, each worker would otherwise compile every kernel it meets, both workers
the same ones at the same time; conftest.py runs this first in two processes at once, which
share out the compile tasks as they go: each takes the next task of PATHS (the longest
first) that no one has claimed yet (a claim is a file created exclusively in a folder both
are given), so they finish within about one task of each other on any machine.
``python tests/warm_cache.py FOLDER`` runs one such process.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
# Each task: steps (scenario, "kernel" | "exact") played in order by one process, the
# longest task first. A ruleset's paths are one task: they share compiled helpers, which a
# process compiles once and then loads from the cache (two processes would compile them
# both at once); blackpowder and d10skirmish are one task as their solvers share the core's
# compiled walk.
PATHS = (
    (("whfb8_knights_lance_charge.toml", "exact"),
     ("whfb8_knights_lance_charge.toml", "kernel"),
     ("whfb8_witch_elves_vs_swordsmen.toml", "kernel")),
    (("mordheim_captain_vs_night_runner.toml", "kernel"),
     ("mordheim_captain_vs_night_runner.toml", "exact")),
    (("wh40k3_assault_marines_vs_boyz.toml", "exact"),
     ("wh40k3_two_squads_vs_ork_mob.toml", "kernel"),
     ("wh40k3_assault_marines_vs_boyz.toml", "kernel"),
     ("wh40k3_ten_vs_ten.toml", "kernel")),
    (("blackpowder_cuirassiers_charge_lancers.toml", "kernel"),
     ("blackpowder_cuirassiers_charge_lancers.toml", "exact"),
     ("d10skirmish_paratrooper_pushes_sniper.toml", "kernel"),
     ("d10skirmish_paratrooper_pushes_sniper.toml", "exact")),
    (("whfb8_chaos_lord_warriors_alone.toml", "exact"),
     ("whfb8_chaos_lord_warriors_alone.toml", "kernel")),
    (("whfb8_chaos_lord_combined_charge.toml", "kernel"),),
)


def warm(name: str, path: str) -> None:
    """Compile (or load) one path of the scenario ``name``: its kernel variant or its exact
    solver."""
    import odds
    from odds.core import runner
    from odds.rulesets import get_ruleset

    scenario = odds.load(SCENARIOS / name)
    if path == "exact":
        odds.simulate(scenario, method="exact", quiet=True)
        return
    ruleset = get_ruleset(scenario.ruleset)
    plan = ruleset.compile(scenario)
    runner.run(ruleset, plan, 64, 0)


def claimed(folder: Path, k: int) -> bool:
    """Claim path k for this process: False when another process has it already."""
    try:
        os.close(os.open(folder / str(k), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


if __name__ == "__main__":
    import time

    folder = Path(sys.argv[1])
    for k, steps in enumerate(PATHS):
        if not claimed(folder, k):
            continue
        for name, path in steps:
            start = time.process_time()
            warm(name, path)
            print(f"warm_cache: {name} ({path}): ready ({time.process_time() - start:.0f} CPU s)",
                  file=sys.stderr, flush=True)
