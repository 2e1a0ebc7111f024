"""Fuzz tests for rosters and profile packs, as tests/test_fuzz.py does for scenarios: seeded
mutants of every bundled roster (played against itself, and against the bundled opponent
list of its ruleset) and of every bundled pack (given as a pack of one's own, to `odds
units`, `odds validate` and a scenario that picks from it). Every run exits 0, or exits 2
with one `odds: error: FILE: ...` line naming the mutated file, never a traceback."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import mutants as m
from test_fuzz import TRIALS, no_failures, run_cli

ROSTERS = sorted((m.DATA / "rosters").glob("*.toml"))
PACKS = [m.DATA / ruleset / "units.toml" for ruleset in m.RULESETS]
PER_ROSTER = 20
PER_PACK = 30


@pytest.mark.parametrize("source", ROSTERS, ids=lambda p: p.name)
def test_cli_on_roster_mutants(source: Path, tmp_path: Path):
    path = tmp_path / source.name
    other = next(r for r in ROSTERS if r != source and r.name.split("_")[0]
                 == source.name.split("_")[0])
    failures, batch = [], m.mutants(source, PER_ROSTER)
    for mutant in batch:
        path.write_bytes(mutant.text)
        rng = random.Random(mutant.id)
        head = ["--trials", str(TRIALS // 5), "--quiet"]
        argv = rng.choice((["roster", str(path), *head], ["roster", str(path), *head, "--json"],
                           ["roster", str(path), str(other), "--both-ways", *head],
                           ["roster", str(other), str(path), *head],
                           ["validate", str(path)], ["simulate", str(path), *head]))
        wrong_kind = argv[0] == "simulate"
        # with the other list, a mutant may make the two lists disagree (their shared tables):
        # the other file may be the one named then
        files = (str(path), str(other)) if str(other) in argv else (str(path),)
        failures += run_cli(argv, mutant.describe(), files,
                            must_fail="a roster given to simulate" if wrong_kind
                            else mutant.must_fail)
    no_failures(failures, len(batch))


@pytest.mark.parametrize("source", PACKS, ids=lambda p: p.parent.name)
def test_cli_on_pack_mutants(source: Path, tmp_path: Path):
    path = tmp_path / "my_pack.toml"
    ruleset = source.parent.name
    first = next(line.split('"')[1] for line in source.read_text("utf-8").splitlines()
                 if line.startswith("name = ") and "bundled" not in line)
    scenario = tmp_path / "picks.toml"
    scenario.write_text(f'ruleset = "{ruleset}"\npacks = ["my_pack.toml"]\n[attacker]\n'
                        f'unit = "{first}"\n[defender]\nunit = "{first}"\nname = "copy"\n',
                        encoding="utf-8")
    failures, batch = [], m.mutants(source, PER_PACK)
    for mutant in batch:
        path.write_bytes(mutant.text)
        rng = random.Random(mutant.id)
        argv = rng.choice((["units", ruleset, "--pack", str(path)], ["validate", str(path)],
                           ["simulate", str(scenario), "--trials", str(TRIALS), "--quiet"]))
        # a mutant may also break the scenario's pick (e.g. rename the unit): then the error
        # is the scenario's, naming the unit it picks
        files = (str(path), str(scenario)) if argv[0] == "simulate" else (str(path),)
        failures += run_cli(argv, mutant.describe(), files, must_fail=mutant.must_fail)
    no_failures(failures, len(batch))
