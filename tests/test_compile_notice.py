"""The first run of a ruleset compiles its kernel for up to a few minutes: odds says so on
stderr (unless quiet) when no numba cache exists for it, and says nothing otherwise."""
import importlib.util
import itertools
from pathlib import Path
from types import SimpleNamespace

import pytest

import odds
from odds.core import runner
from odds.core.ruleset import Ruleset, _entry_dispatchers, needs_compiling

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
NOTICE = ("odds: compiling the toy kernel, once (10 to 40 CPU seconds, by ruleset); "
          "later runs load it from the cache\n")
COMPILED = '''
from numba import njit


@njit(cache=True)
def play_chunk(plan, seed, first_trial, out):
    out[0, 0] = seed
'''
THREADED = '''
from numba import njit


@njit(cache=True, nogil=True)
def play_trials(seed, out):
    out[0, 0] = seed


def play_chunk(plan, seed, first_trial, out):
    def one_thread():
        play_trials(seed, out)

    one_thread()
'''
_names = itertools.count()


def _module(path):
    """A fresh import of the kernel file (new dispatchers, nothing compiled in-process)."""
    spec = importlib.util.spec_from_file_location(f"toy_kernel_{next(_names)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("source", [COMPILED, THREADED], ids=["njit", "python wrapper"])
def test_compiling_is_told_apart_from_loading_the_cache(tmp_path, source):
    import numpy as np

    path = tmp_path / "kernel.py"
    path.write_text(source)
    module = _module(path)
    assert needs_compiling(module)  # no cache yet
    module.play_chunk(None, 3, 0, np.zeros((1, 1), np.int64))  # compiles, writes the cache
    assert not needs_compiling(module)  # compiled in this process
    assert not needs_compiling(_module(path))  # another process would load the cache
    path.write_text(source + "\n# edited\n")  # the source changed: the cache is stale
    assert needs_compiling(_module(path))


@pytest.mark.parametrize("scenario,loop", [("d10skirmish_trooper_charges_sniper", "play_trials"),
                                           ("d10skirmish_two_troopers_charge_a_brute",
                                            "play_gang")])
def test_the_threaded_kernel_is_found_behind_its_python_wrapper(scenario, loop):
    """d10skirmish's play_chunk is plain Python running, on each thread, the loop its
    ``entry(plan)`` names: the schedule's for one fighter a side, the gang's for a gang."""
    rules = odds.rulesets.get_ruleset("d10skirmish")
    module = importlib.import_module(rules.kernel)
    plan = rules.compile(odds.load(SCENARIOS / f"{scenario}.toml"))
    expected = module.play_trials if loop == "play_trials" else module.play_gang(plan)
    assert _entry_dispatchers(module, plan) == [expected]


@pytest.mark.parametrize("ruleset", ["blackpowder", "d10skirmish", "mordheim", "wh40k3"])
def test_a_rule_texts_exact_solver_is_found_behind_its_compiled_parts(ruleset):
    """An exact solver on one rule text names its compiled parts as one tuple (COMPILED,
    odds.core.walk.solver): they are what a first solve compiles, and the notice looks at."""
    solver = odds.core.exact.module(odds.rulesets.get_ruleset(ruleset))
    assert {d.py_func.__name__ for d in _entry_dispatchers(solver, entry="solve")} == {
        "walk", "rows"}


@pytest.mark.parametrize("ruleset,scenario,parts", [
    ("whfb8", "whfb8_chaos_warriors_vs_goblin_horde", {"_walk"}),
    ("whfb8", "whfb8_chaos_lord_warriors_alone", {"walk", "rows"}),
])
def test_the_notice_looks_at_the_parts_a_plans_solve_compiles(ruleset, scenario, parts):
    """A solver whose compiled parts depend on the plan names them (``compiled(plan)``): a
    part the plan never calls (whfb8's other solver) is not compiled by its solve, and would
    otherwise have the notice say so at every solve."""
    rules = odds.rulesets.get_ruleset(ruleset)
    plan = rules.compile(odds.load(SCENARIOS / f"{scenario}.toml"))
    solver = odds.core.exact.module(rules)
    assert {d.py_func.__name__ for d in _entry_dispatchers(solver, plan, "solve")} == parts


def _toy(compiling: bool, kernel: str = "odds.rulesets.d10skirmish.exchange"):
    """A ruleset that plays nothing, with a real module for its kernel (no variants)."""
    return SimpleNamespace(id="toy", extra_columns=(), needs_compiling=lambda plan=None: compiling,
                           play=lambda plan, seed, first, out: None, kernel=kernel)


@pytest.mark.parametrize("compiling,notice,said", [
    (True, True, NOTICE), (True, False, ""), (False, True, ""),
])
def test_the_runner_says_it_compiles_once(capsys, compiling, notice, said):
    runner.run(_toy(compiling), None, 10, 1, notice=notice)
    assert capsys.readouterr().err == said


@pytest.mark.parametrize("quiet,said", [(False, True), (True, False)])
def test_simulate_announces_unless_quiet(capsys, monkeypatch, marines_vs_boyz, quiet, said):
    monkeypatch.setattr(Ruleset, "needs_compiling", lambda self, plan=None: True)
    odds.simulate(marines_vs_boyz, trials=10, quiet=quiet)
    err = capsys.readouterr().err
    assert ("odds: compiling the wh40k3 kernel for 2 model groups and 1 unit a side" in err) \
        is said


@pytest.mark.parametrize("groups,units,variant", [
    (2, 1, "2 model groups and 1 unit a side"), (1, 2, "1 model group and 2 units a side"),
    (4, 1, "any number of model groups and units"),
    (1, 3, "any number of model groups and units")])
def test_a_kernel_compiled_in_variants_names_the_variant(capsys, groups, units, variant):
    """wh40k3's kernel compiles a variant for each small plan's sizes and one for the rest:
    the notice says which one is compiling, so a second notice is not taken for a repeat."""
    plan = SimpleNamespace(packed=SimpleNamespace(G=groups, U=units))
    runner.run(_toy(True, "odds.rulesets.wh40k3.kernel"), plan, 10, 1, notice=True)
    assert capsys.readouterr().err == (
        f"odds: compiling the toy kernel for {variant} (one of its variants, each compiled on "
        "its first use), once (10 to 40 CPU seconds, by ruleset); later runs load it "
        "from the cache\n")


def test_each_kernel_variant_keeps_a_cache_index_of_its_own():
    """A variant's sizes are in its cache index's name (odds.core.cache): one variant
    compiled does not make another look cached."""
    from odds.core import cache, walk
    from odds.rulesets.wh40k3 import fight

    def name(variant):
        play = walk.kernel(fight, variant=variant).py_func
        for locator in (cache.UserProvidedLocator, cache.InTreeLocator):
            found = locator.from_function(play, walk.__file__)
            if found is not None:
                return found.get_disambiguator()
        pytest.skip("no numba cache folder can be written here")

    names = [name(v) for v in ((1, 1), (2, 1), 0)]
    assert names[0].endswith("-odds.rulesets.wh40k3.fight-1x1")
    assert names[1].endswith("-odds.rulesets.wh40k3.fight-2x1")
    assert names[2].endswith("-odds.rulesets.wh40k3.fight")
