"""The core of the rule text (issue 24): laws and ``pick`` (odds/core/dice.py), the exact walk
(odds/core/walk.py) and the cache stamps (odds/core/cache.py), on toy laws and stages whose
answers are known by hand."""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from odds.core import cache, states, walk
from odds.core.binomial import cdf_tables
from odds.core.dice import (ALIAS, CHANCE, KEPT, chance, law, laws, mix, new_path, next_path,
                            pick, pick_binomial, pick_until, replaying)
from odds.core.exact import TooBig, TooWide, binomial_pmf
from odds.core.rng import seed_stream

LAWS = [[0.2, 0.5, 0.3], [0.0, 0.25, 0.0, 0.75], [1.0], [0.1] * 10, [0.0, 1.0, 0.0]]


@pytest.mark.parametrize("probs", LAWS)
def test_alias_table_gives_each_outcome_its_probability(probs):
    """Walker's alias table: outcome j is drawn when the uniform falls in its own column's
    kept part or in another column that aliases it; the shares are the probabilities."""
    table = law(probs)
    m = len(probs)
    share = table[KEPT] / m
    for j in range(m):
        if table[KEPT, j] < 1:
            share[int(table[ALIAS, j])] += (1 - table[KEPT, j]) / m
    assert np.allclose(share, probs, atol=1e-15)
    assert np.array_equal(table[CHANCE], probs)


@njit(cache=True)
def _draws(table, n, seed):
    st = np.empty(4, np.uint64)
    seed_stream(st, seed, 0)
    counts = np.zeros(table.shape[1], np.int64)
    for _ in range(n):
        counts[pick(st, table)] += 1
    return counts


def test_the_kernel_draws_each_law_at_its_probabilities():
    """200,000 draws of a law with impossible outcomes: those never, the others within
    |z| < 4 (fixed seed); a law one outcome apart fails the same bound."""
    probs = np.array([0.0, 0.25, 0.0, 0.5, 0.05, 0.2])
    n = 200_000
    counts = _draws(law(probs), n, 7)
    assert counts[probs == 0].sum() == 0
    z = (counts - n * probs)[probs > 0] / np.sqrt(n * probs * (1 - probs))[probs > 0]
    assert np.abs(z).max() < 4
    wrong = np.array([0.0, 0.24, 0.0, 0.51, 0.05, 0.2])
    z = (counts - n * wrong)[wrong > 0] / np.sqrt(n * wrong * (1 - wrong))[wrong > 0]
    assert np.abs(z).max() > 4


A, B, C = law([0.5, 0.0, 0.5]), law([0.1, 0.9]), law([0.0, 0.3, 0.7])


@njit(cache=True)
def _toy_stage(dice, a, b, c):
    """A stage whose number of picks depends on the outcomes: a; if a is 2, then b; then c
    unless b was 1. Returns its outcome as one number."""
    x = pick(dice, a)
    y = -1
    z = -1
    if x == 2:
        y = pick(dice, b)
    if y != 1:
        z = pick(dice, c)
    return 100 * x + 10 * (y + 1) + (z + 1)


@njit(cache=True)
def _replay_all(a, b, c, mixed, m):
    """Every path of _toy_stage, its first pick mixed (dice.mix) by ``mixed[:m]`` (m = 0:
    from ``a``)."""
    path = new_path()
    mix(path, mixed, m)
    outcomes = np.empty(64, np.int64)
    chances = np.empty(64)
    n = 0
    more = True
    while more:
        outcomes[n] = _toy_stage(path, a, b, c)
        chances[n] = chance(path)
        n += 1
        more = next_path(path)
    return outcomes[:n], chances[:n], chance(path)


def test_replay_meets_every_way_a_stage_goes_once():
    """Every path of outcomes with probability above 0, once each, with its probability; the
    path is back at its first after the last."""
    outcomes, chances, reset = _replay_all(A, B, C, np.zeros(1), 0)
    by_hand = {
        0 * 100 + 0 + 2: 0.5 * 0.3, 0 * 100 + 0 + 3: 0.5 * 0.7,
        2 * 100 + 10 + 2: 0.5 * 0.1 * 0.3, 2 * 100 + 10 + 3: 0.5 * 0.1 * 0.7,
        2 * 100 + 20 + 0: 0.5 * 0.9,
    }
    assert dict(zip(outcomes.tolist(), chances.tolist())) == pytest.approx(by_hand)
    assert len(outcomes) == len(by_hand) and reset == 1.0


def test_a_mixed_first_pick_takes_the_mixture_and_only_the_first():
    """dice.mix (the walk's class of values read by value, each value's law weighted by its
    share): the first pick's outcomes have the mixture's chances, its zeros skipped; the
    later picks keep their own laws; a mixture with more outcomes than the law is refused."""
    mixed = np.array([0.25, 0.0, 0.75])
    outcomes, chances, _ = _replay_all(A, B, C, mixed, 3)
    by_hand = {
        0 * 100 + 0 + 2: 0.25 * 0.3, 0 * 100 + 0 + 3: 0.25 * 0.7,
        2 * 100 + 10 + 2: 0.75 * 0.1 * 0.3, 2 * 100 + 10 + 3: 0.75 * 0.1 * 0.7,
        2 * 100 + 20 + 0: 0.75 * 0.9,
    }
    assert dict(zip(outcomes.tolist(), chances.tolist())) == pytest.approx(by_hand)
    assert len(outcomes) == len(by_hand)
    mixed = np.array([0.5, 0.25, 0.25])  # outcome 1, of chance 0 in A, taken from the mixture
    outcomes, chances, _ = _replay_all(A, B, C, mixed, 3)
    assert sorted({o // 100 for o in outcomes.tolist()}) == [0, 1, 2]
    assert sum(chances) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="more outcomes than the law"):
        _replay_all(A, B, C, np.full(8, 0.125), 8)


def _until_by_hand(n, p, w):
    """pick_until's outcomes by brute force over every sequence of n dice."""
    out = np.zeros(n + 1)
    for mask in range(1 << n):
        rolls = [(mask >> i) & 1 for i in range(n)]
        chance_ = float(np.prod([p if r else 1 - p for r in rolls]))
        won = 0
        for i, r in enumerate(rolls):
            won += r
            if won == w:
                out[i + 1] += chance_
                break
        else:
            out[won] += chance_
    return out


@njit(cache=True)
def _replay_counts(kind, cdf, offset, top, n, p, w):
    """Every outcome of one pick_binomial (kind 0) or pick_until (kind 1) on the solver's
    path, with its chance; and whether replaying() said so."""
    path = new_path()
    out = np.zeros(n + 1)
    more = True
    while more:
        k = pick_binomial(path, cdf, offset, top, n, p, n) if kind == 0 else \
            pick_until(path, n, p, w)
        out[k] += chance(path)
        more = next_path(path)
    return out, replaying(path)


@njit(cache=True)
def _draw_counts(kind, cdf, offset, top, n, p, w, trials, seed):
    st = np.empty(4, np.uint64)
    seed_stream(st, seed, 0)
    out = np.zeros(n + 1, np.int64)
    for _ in range(trials):
        k = pick_binomial(st, cdf, offset, top, n, p, n) if kind == 0 else \
            pick_until(st, n, p, w)
        out[k] += 1
    return out, replaying(st)


def _largest_z(drawn, expected, trials):
    """The largest |z| of the draws of the outcomes whose chance is between 0 and 1; an
    outcome that is sure must be drawn every time (its z has no spread to divide by)."""
    assert (drawn[expected == 1.0] == trials).all()
    open_ = (expected > 1e-12) & (expected < 1.0)
    spread = np.sqrt(trials * expected * (1 - expected))
    return np.abs((drawn - trials * expected)[open_] / spread[open_]).max(initial=0.0)


@pytest.mark.parametrize("n,p,w", [(7, 0.3, 2), (9, 1 / 6, 1), (6, 5 / 6, 3), (5, 1.0, 2),
                                   (4, 0.5, 6)])
def test_until_counts_dice_to_the_wth_success_exactly_and_drawn(n, p, w):
    """pick_until against every sequence of n dice: the solver's path replays each outcome
    with its exact chance, the kernel draws them within |z| < 4 of it (fixed seed)."""
    expected = _until_by_hand(n, p, w)
    replayed, solver = _replay_counts(1, np.zeros(1), 0, 0, n, p, w)
    assert solver and np.allclose(replayed, expected, atol=1e-15)
    drawn, solver = _draw_counts(1, np.zeros(1), 0, 0, n, p, w, 200_000, 3)
    assert not solver
    assert drawn[expected == 0].sum() == 0 and _largest_z(drawn, expected, 200_000) < 4


@pytest.mark.parametrize("n", [0, 5, 12, 20])
def test_binomial_pick_reads_the_table_row_or_the_recurrence(n):
    """pick_binomial: each count with the table row's chance (n up to the table's top) or
    the recurrence's (past it); the kernel's draws within |z| < 4."""
    p = 0.4
    cdf, offset, top = cdf_tables(np.array([p]), np.array([12]))
    expected = binomial_pmf(n, p)
    replayed, _ = _replay_counts(0, cdf, offset[0], top[0], n, p, 1)
    assert np.allclose(replayed, expected, atol=1e-15)
    drawn, _ = _draw_counts(0, cdf, offset[0], top[0], n, p, 1, 200_000, 5)
    assert drawn[expected > 1e-12].sum() == 200_000
    assert _largest_z(drawn, expected, 200_000) < 4


def test_the_walk_lets_fights_behind_catch_up_so_equal_states_meet():
    """A fight that steps 1 or 2 until it reaches 12 (tests/uneven_walk.py): with its clock
    (how far it has come) the walk advances the fights behind first, so a position is met
    once, as one state, and never more than four are live (without it a position is met once
    for every number of stages that reaches it); the last step's law is exact (by hand, on
    the positions), and the kernel draws it within |z| < 4."""
    import uneven_walk as toy

    step = law([0.3, 0.7])  # a step of 1 with 0.3, of 2 with 0.7
    rows, weights, most = walk.solve(walk.solver(toy), toy, step, 4)
    mass = np.zeros(toy.GOAL + 2)
    mass[0] = 1.0
    ended = np.zeros(2)
    for at in range(toy.GOAL):
        for last, p in enumerate((0.3, 0.7)):
            if at + 1 + last >= toy.GOAL:
                ended[last] += mass[at] * p
            else:
                mass[at + 1 + last] += mass[at] * p
    got = np.bincount(rows[0], weights=weights, minlength=2)
    assert most <= 4 and np.allclose(got, ended, atol=1e-15)
    out = np.zeros((1, 100_000), np.int32)
    walk.kernel(toy)(step, 11, 0, out, 0, 100_000)
    z = (np.bincount(out[0], minlength=2) - 1e5 * ended) / np.sqrt(1e5 * ended * (1 - ended))
    assert np.abs(z).max() < 4


def test_table_adds_shifted_masses_and_refuses_what_leaves_the_span():
    """An entry of the walk's table takes masses shifted by what a stage added to each
    graded field, times the stage's chance; equal cores are one entry; a mass shifted out of
    its field's span is refused (the rule text's spans are too narrow); a pool too full to
    move a window adds nothing and asks for the table rebuilt, which keeps every mass."""
    base = np.array([0, 4])  # one graded field, values 0 .. 3

    def masses(tab, e):
        out = np.zeros(4)
        states.dense(tab, e, base, out)
        return out.tolist()

    tab = states.table(2, 3, 1)
    key = [0, 1, 2, 0]  # three fields, padded to a whole packed word (states.width)
    assert states.width(3) == len(key)
    e = states.entry(tab, np.array(key), 5)
    mass = np.array([0.5, 0.5, 0.0, 0.0])
    low, high = np.array([0]), np.array([1])
    assert states.add(tab, e, mass, low, high, np.array([1]), base, 0.5) == states.ADDED
    assert states.entry(tab, np.array(key), 5) == e
    assert states.add(tab, e, mass, low, high, np.array([2]), base, 0.5) == states.ADDED
    assert masses(tab, e) == [0.0, 0.25, 0.5, 0.25]
    assert (tab[2][e][0], tab[3][e][0]) == (1, 3)
    assert states.add(tab, e, mass, low, high, np.array([3]), base, 1.0) == states.BEYOND
    other = states.entry(tab, np.array([0, 1, 3, 0]), 6)
    assert other not in (e, -1) and tab[7][0] == 2
    assert states.entry(tab, np.array([0, 1, 4, 0]), 6) == -1  # full: the walk grows it
    tab[7][2] = len(tab[1])  # the pool used up: a new window has no room
    assert states.add(tab, other, mass, low, high, np.array([0]), base, 1.0) == states.NO_ROOM
    assert masses(tab, other) == [0.0] * 4
    grown = states.rebuilt(tab, 4, 4)
    assert states.add(grown, other, mass, low, high, np.array([0]), base, 1.0) == states.ADDED
    third = states.entry(grown, np.array([0, 1, 4, 0]), 6)
    assert grown[7][0] == 3 and third >= 0
    assert masses(grown, states.entry(grown, np.array(key), 5)) == [0.0, 0.25, 0.5, 0.25]
    assert masses(grown, other) == [0.5, 0.5, 0.0, 0.0]
    assert states.unpacked(grown[0][:3]).tolist() == [key, [0, 1, 3, 0], [0, 1, 4, 0]]


def test_table_windows_cover_only_the_values_reached():
    """Each field's masses take a window of the pool as long as the values they reached and
    half again (odds.core.states: sparse), not the field's whole span; a window outgrown
    moves, its masses with it, and the whole stays exact."""
    span = 1000
    base = np.array([0, span, 2 * span])  # two graded fields, values 0 .. 999 each
    tab = states.table(4, 3, 2)
    e = states.entry(tab, np.array([0, 1, 2, 0]), 0)
    mass = np.zeros(2 * span)
    mass[[0, 1, span + 5]] = 0.25, 0.75, 1.0
    low, high = np.array([0, 5]), np.array([1, 5])
    expected = np.zeros(2 * span)
    for step in range(60):
        shift = np.array([step, 2 * step])
        while (added := states.add(tab, e, mass, low, high, shift, base, 1 / 60)) \
                == states.NO_ROOM:
            tab = states.rebuilt(tab, 4, 2 * span)
        assert added == states.ADDED
        expected[shift[0]:shift[0] + 2] += mass[:2] / 60
        expected[span + 5 + shift[1]] += 1 / 60
    out = np.zeros(2 * span)
    states.dense(tab, e, base, out)
    assert np.allclose(out, expected, rtol=0, atol=1e-15)
    assert tab[11][e].sum() <= 1.5 * (61 + 119) + 4  # the windows: values reached, half again
@pytest.mark.parametrize("seed", range(5))
def test_table_keeps_each_field_in_16_bits_and_refuses_one_outside(seed):
    """A core is packed four fields a word: every field from -32,768 to 32,767 comes back
    as it was and tells cores apart; one outside is refused (OUTSIDE), and a walk that meets
    one stops with TooWide (tests/wide_walk.py), which auto answers by simulating."""
    rng = np.random.default_rng(seed)
    keys = rng.integers(-32768, 32768, size=(50, 8))
    keys[:, 0] = [-32768, 32767] * 25
    tab = states.table(64, 7, 0)
    entries = [states.entry(tab, keys[i], 0) for i in range(50)]
    assert entries == list(range(50))
    assert states.unpacked(tab[0][:50]).tolist() == keys.tolist()
    assert [states.entry(tab, keys[i], 0) for i in range(50)] == entries
    for wide in (32768, -32769, 1 << 40):
        beyond = keys[0].copy()
        beyond[rng.integers(8)] = wide
        assert states.entry(tab, beyond, 0) == states.OUTSIDE
    import wide_walk as toy

    with pytest.raises(TooWide, match="-32,768 .. 32,767"):
        walk.solve(walk.solver(toy), toy, law([0.5, 0.5]), 100)
    assert issubclass(TooWide, TooBig)


def test_tallies_paired_by_quantile_keep_each_distribution():
    """An ended core's tallies become states that pair their values by quantile: each
    tally's distribution given the core is kept exactly, at most one state per value."""
    tab = states.table(2, 4, 2)  # the two cores and their tallies, as the walk keeps them
    graded = np.array([2, 3])
    # tally 2 takes values 0 .. 5, tally 3 values 0 .. 9: a dense row of masses each, after
    # another, added to the core's entry
    tallies = [{7: {0: 0.25, 2: 0.75}, 8: {5: 1.0}},
               {7: {1: 0.1, 3: 0.3, 4: 0.6}, 8: {0: 0.75, 9: 0.25}}]
    base = np.array([0, 6, 16])
    for core in (7, 8):
        e = states.entry(tab, np.array([1, core, 0, 0]), 0)
        mass = np.zeros(16)
        low, high = np.zeros(2, np.int64), np.zeros(2, np.int64)
        for j, tally in enumerate(tallies):
            for value, m in tally[core].items():
                mass[base[j] + value] = m
            low[j], high[j] = min(tally[core]), max(tally[core])
        assert states.add(tab, e, mass, low, high, np.zeros(2, np.int64), base, 1.0) == \
            states.ADDED
    got_states, weights = states.paired(tab, np.zeros(2, np.int64), graded)
    assert len(got_states) <= 4 + 2  # core 7: at most 2 + 3 - 1 states; core 8: 2 + 1 - 1
    for core in (7, 8):
        mine = got_states[:, 1] == core
        for j, tally in enumerate(tallies):
            got = {}
            for v, w in zip(got_states[mine, graded[j]], weights[mine]):
                got[int(v)] = got.get(int(v), 0.0) + w
            assert got == pytest.approx(tally[core])


def test_a_signed_field_is_read_by_its_sign_and_multiplies_no_states():
    """A lead that three dice a round move by +-1, read by its sign at the round's end
    (tests/signed_walk.py): the walk keeps the lead beside the state, so the states live at
    once are the rounds won and lost so far (at most 3), never the lead's values, and the
    rounds won and lost have their law exactly (by brute force over
    every sequence of dice); the kernel draws them within |z| < 4."""
    import itertools

    import signed_walk as toy

    up = law([0.4, 0.6])  # -1 with 0.4, +1 with 0.6
    rows, weights, most = walk.solve(walk.solver(toy), toy, up, 10)
    expected = {}
    for dice in itertools.product((0, 1), repeat=toy.ROUNDS * toy.DICE):
        p, won, lost = 1.0, 0, 0
        for r in range(toy.ROUNDS):
            lead = sum(2 * d - 1 for d in dice[r * toy.DICE:(r + 1) * toy.DICE])
            won, lost = won + (lead > 0), lost + (lead < 0)
        for d in dice:
            p *= 0.6 if d else 0.4
        expected[won, lost] = expected.get((won, lost), 0.0) + p
    got = {(int(w), int(lo)): m for w, lo, m in zip(rows[0], rows[1], weights)}
    assert most <= 3 and got == pytest.approx(expected, abs=1e-15)
    out = np.zeros((2, 100_000), np.int32)
    walk.kernel(toy)(up, 11, 0, out, 0, 100_000)
    cases = sorted(expected)
    drawn = np.array([((out[0] == w) & (out[1] == lo)).sum() for w, lo in cases])
    assert _largest_z(drawn, np.array([expected[c] for c in cases]), 100_000) < 4


def test_cache_stamps_follow_the_sources_a_function_is_built_from():
    """A compiled function is stamped with its own folder, the core, and the folder of each
    module its closure holds: the core's walk over blackpowder's rule text with the core and
    blackpowder's folder, a plain core function with the core alone (so an edit to one
    ruleset leaves the others' kernels cached); the loop's index is the rule text's own."""
    import hashlib

    from odds.core import dice
    from odds.rulesets.blackpowder import exact as bp_exact
    from odds.rulesets.d10skirmish import kernel as d10_kernel

    bp_folder = cache.ODDS / "rulesets" / "blackpowder"
    core = cache.stamp(cache.CORE)
    by_hand = hashlib.sha256()
    for file in sorted(cache.CORE.glob("*.py")):
        by_hand.update(file.read_bytes())
    assert core == by_hand.hexdigest()
    locators = [f._cache._impl.locator  # numba internals
                for f in (bp_exact.COMPILED[0], d10_kernel.play_trials, dice._aliases)]
    assert all(isinstance(x, cache.InTreeLocator | cache.UserProvidedLocator) for x in locators)
    bp, d10, plain = (x.get_source_stamp() for x in locators)
    assert bp == cache.stamp(cache.CORE, bp_folder) and len({bp, d10, plain}) == 3
    assert plain == core
    # each rule text's loop keeps an index of its own: a plug-in's plan type in a shared one
    # would make it unreadable in a process without the plug-in
    bp_index, d10_index = (f._cache._cache_file._index_name  # numba internals
                           for f in (bp_exact.COMPILED[0], d10_kernel.play_trials))
    assert "blackpowder.fight" in bp_index and "d10skirmish.fight" in d10_index


def test_each_rule_texts_compiled_loops_have_names_of_their_own():
    """The core's loops are closures over a rule text, and numba names compiled code after
    its qualified name and a count kept by each process: two rule texts' walks compiled in
    two processes could get one name, and a process loading both from the cache then ran
    one walk with the other's stages. The rule text (and a kernel's variant) is in the name,
    so the names differ whatever the count."""
    import re

    import signed_walk
    import uneven_walk

    def names(*dispatchers):
        return [re.sub(r"B\d+v\d+", "", c.fndesc.mangled_name)  # the count left out
                for d in dispatchers for c in d.overloads.values()]

    up = law([0.4, 0.6])
    compiled = []
    for toy in (signed_walk, uneven_walk):
        solver = walk.solver(toy)
        walk.solve(solver, toy, up, 10)
        compiled.append(names(*solver))
        # the walk's stage loop, compiled into the walk (and cached with it)
        assert toy.solver_paths.py_func.__qualname__.endswith(f"paths.{toy.__name__}")
    assert all(len(c) == 2 for c in compiled) and not set(compiled[0]) & set(compiled[1])
    out = np.zeros((2, 10), np.int32)
    kernels = [walk.kernel(signed_walk), walk.kernel(uneven_walk)]
    for play in kernels:
        play(up, 11, 0, out, 0, 10)
    assert len(set(names(*kernels))) == 2
    # a kernel variant (odds.rulesets.whfb8.kernel) is named after its sizes too
    assert walk.kernel(signed_walk, variant=(3, 1)).py_func.__qualname__ == \
        "kernel.<locals>.play_trials.signed_walk.3x1"


def _compiled_call(reader):
    """A reader (an intrinsic, compiled code only) called from compiled code."""
    @njit
    def call(plan, *index):
        return reader(plan, *index)
    return call


def test_a_packed_plans_readers_read_each_value_where_pack_put_it():
    """Each table's reader (odds.core.packed) finds every value of its table, whatever the
    sizes: its start is the sizes of the tables before it, written as one sum of products of
    G, U and L (a constant where a kernel variant knows them)."""
    import itertools

    from odds.core.packed import pack, tables

    shapes = {"one": (), "per_unit": (2, "U"), "steps": ("L", "L"),
              "chances": (2, 2, "L", "G"), "catch": (2, 3, "U + 1", "U + 1")}
    readers = {}
    declared = tables(ints=shapes, reals={"p": ("G", 2)}, laws={"rolls": ("U",)},
                      namespace=readers)
    called = {name: _compiled_call(reader) for name, reader in readers.items()}
    rng = np.random.default_rng(7)
    for G, U, L in ((1, 1, 1), (3, 2, 4), (4, 3, 2)):
        sizes = {"G": G, "U": U, "L": L}
        values = {name: rng.integers(0, 1_000, [int(eval(str(d), {}, sizes)) for d in shape])
                  for name, shape in shapes.items()}
        values["p"] = rng.random((G, 2))
        chances = rng.random((U, 4))
        plan = pack(declared, {**values, "rolls": laws(chances / chances.sum(1)[:, None])},
                    np.zeros(1), G, U, L)
        for name, value in values.items():
            for index in itertools.product(*(range(n) for n in value.shape)):
                assert called[name](plan, *index) == value[index], (name, G, U, L, index)
        for u in range(U):  # a law table's reader gives the law
            assert np.allclose(called["rolls"](plan, u)[CHANCE], chances[u] / chances[u].sum())


def test_the_casts_give_plain_and_unsigned_numbers_and_one_compile_for_every_constant():
    """odds.core.casts: ``whole(n)`` is n as a plain int64, so a compiled function given
    whole(0) and whole(1) is compiled once (given 0 and 1, numba compiles it for each
    literal value); ``slot(i)`` is i as an unsigned index; both refuse what is not a whole
    number when the calling code is compiled."""
    from numba import types

    from odds.core.casts import slot, whole

    @njit
    def side(s):
        return 10 * s + 1

    @njit
    def both_plain():
        return side(whole(0)) + side(whole(1))

    @njit
    def both_literal():
        return side(0) + side(1)

    assert both_plain() == 12
    assert side.signatures == [(types.int64,)]
    assert both_literal() == 12 and len(side.signatures) == 3  # 0 and 1 each a compile

    @njit
    def unsigned(i, a):
        return slot(i), a[slot(i)]

    place, value = unsigned(2, np.arange(5) * 3)
    assert place == 2 and value == 6 and isinstance(place, (int, np.integer))

    @njit
    def not_whole(x):
        return whole(x)

    with pytest.raises(TypeError, match="whole takes a whole number, not float64"):
        not_whole(1.5)
