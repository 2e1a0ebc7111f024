"""Statistical parity for sides of several units (R0-10 ... R0-13): the wh40k3 kernel
(``odds.simulate``) against the one-die-at-a-time reference ``tests/naive_wh40k3.py`` on the
multi-unit scenarios of ``tests/units_scenarios.py``.

Besides the side-level statistics of ``test_wh40k3_parity`` (every P(winner, end) and the
means of rounds, losses and wounds), each unit's fate probabilities (standing, destroyed,
caught, fled, unreached) and its mean models lost and wounds suffered must agree, |z| < 4
each, with pooled variances as there. Nothing simulated is hard-coded.
"""
from __future__ import annotations

import numpy as np
import pytest

import naive_wh40k3 as naive
import odds
from odds.core.outcome import COLUMNS, UNIT_FATES, unit_columns
from test_wh40k3_parity import (KERNEL_SEED, REFERENCE_SEED, Z_MAX, compare, kernel_summary,
                                reference_summary, z_mean, z_proportion)
from units_scenarios import SCENARIOS, scenario

KERNEL_TRIALS = 200_000
REFERENCE_TRIALS = 3_000


def unit_disagreements(kernel_tally, reference, columns) -> list[str]:
    """Every per-unit statistic with |z| >= Z_MAX: each fate's probability, then the means
    of models lost and wounds suffered."""
    bad = []
    n1, n2 = kernel_tally.trials, len(reference)
    for column in columns:
        h1 = kernel_tally.histogram(column)
        values = reference[column].to_numpy()
        if column.endswith(".fate"):
            values = np.asarray(pd_codes(reference[column]))
            for code, fate in enumerate(UNIT_FATES):
                k1 = int(h1[code]) if code < len(h1) else 0
                k2 = int((values == code).sum())
                if k1 or k2:
                    z = z_proportion(k1, n1, k2, n2)
                    if abs(z) >= Z_MAX:
                        bad.append(f"P({column} = {fate}): kernel {k1 / n1:.4f} reference "
                                   f"{k2 / n2:.4f}, z = {z:.2f}")
            continue
        z, m1, m2 = z_mean(h1, np.bincount(values.astype(np.int64)))
        if abs(z) >= Z_MAX:
            bad.append(f"mean {column}: kernel {m1:.4f} reference {m2:.4f}, z = {z:.2f}")
    return bad


def pd_codes(series):
    """Fate codes of a reference column (codes already, or categorical labels)."""
    if hasattr(series, "cat"):
        return series.cat.codes.to_numpy()
    return series.to_numpy()


@pytest.mark.parametrize("name", [pytest.param(n, id=f"R0-13_{n}") for n in SCENARIOS])
def test_kernel_matches_reference_several_units_R0_13(name):
    """Kernel vs reference on one multi-unit scenario: side outcomes and every unit's."""
    sc = scenario(name)
    result = odds.simulate(sc, trials=KERNEL_TRIALS, seed=KERNEL_SEED, quiet=True)
    df = naive.play(sc, REFERENCE_TRIALS, seed=REFERENCE_SEED)
    bad = compare(kernel_summary(result), reference_summary(df))
    bad += unit_disagreements(result.tally, df, unit_columns(sc))
    assert not bad, f"{name}: kernel and reference disagree:\n  " + "\n  ".join(bad)


def test_kernel_unit_columns_add_up_R0_13():
    """Per fight, a side's losses and wounds are its units' sums; a destroyed or caught unit
    lost every model, an unreached one none, and a beaten side ends as its units did."""
    sc = scenario("two_v_two_both_fresh")
    record = odds.simulate(sc, trials=20_000, seed=3, keep_fights=True,
                           quiet=True).fights_record
    columns = COLUMNS + unit_columns(sc)
    col = {c: record[columns.index(c)] for c in columns}
    for key in ("attacker", "defender"):
        units = sc.side(key).every_unit
        lost = sum(col[f"{key}.units[{i}].lost"] for i in range(len(units)))
        wounds = sum(col[f"{key}.units[{i}].wounds"] for i in range(len(units)))
        assert np.array_equal(lost, col[f"{key}_lost"])
        assert np.array_equal(wounds, col[f"{key}_wounds"])
        for i, unit in enumerate(units):
            fate, gone = col[f"{key}.units[{i}].fate"], col[f"{key}.units[{i}].lost"]
            size = sum(g.count for g in unit.models)
            assert np.all(gone[(fate == 1) | (fate == 2)] == size)
            assert np.all(gone[fate == 4] == 0)
    beaten = record[0] == 1  # the attacker won: the defender's end follows its units' fates
    fates = np.stack([col[f"defender.units[{i}].fate"] for i in range(3)])
    fled = (fates == 3).any(axis=0)
    caught = (fates == 2).any(axis=0)
    expected = np.where(fled, 2, np.where(caught, 1, 0))
    assert np.array_equal(record[1][beaten], expected[beaten])


def test_one_unit_lists_play_as_plain_sides():
    """A side written as a list of one unit is that unit: the same numbers, bit for bit."""
    plain = odds.load("data/scenarios/wh40k3_assault_marines_vs_boyz.toml")
    data = plain.to_dict()
    data["attacker"] = {"units": [data["attacker"]]}
    listed = odds.from_dict(data)
    a = odds.simulate(plain, trials=20_000, seed=5, keep_fights=True, quiet=True)
    b = odds.simulate(listed, trials=20_000, seed=5, keep_fights=True, quiet=True)
    assert np.array_equal(a.fights_record, b.fights_record)
