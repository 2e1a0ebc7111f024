"""Shared checks of an exact solver against the simulation (issue 12): every outcome
probability and every column's mean within |z| < 4 of a fixed-seed simulation, with the
standard error taken from the exact distribution, and the exact masses summing to 1."""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

import odds
from odds.analysis.result import OUTCOMES
from odds.core import exact
from odds.rulesets import get_ruleset
from odds.scenario import as_scenario

Z = 4.0
RARE = 10  # expected counts below this are tested by the exact binomial tail


def solved(scenario, max_states: int | None = None):
    """The exact tally of ``scenario`` (a path, dict or Scenario); ``max_states`` default:
    the ruleset's bound."""
    scenario = as_scenario(scenario)
    ruleset = get_ruleset(scenario.ruleset)
    return exact.solve(ruleset, ruleset.compile(scenario), ruleset.columns(scenario),
                       max_states)


def outcome_probabilities(tally) -> dict[str, float]:
    """Each :data:`OUTCOMES` key's share of the tally (mass or count over the total)."""
    total = tally.total
    return {k: sum(float(tally.outcomes[w, e].sum()) for w, e in cells) / total
            for k, cells in OUTCOMES.items()}


def column_moments(tally, column: str) -> tuple[float, float]:
    """Mean and variance of one column (``rounds`` or any later one) over all fights."""
    h = tally.outcomes.sum(axis=(0, 1)) if column == "rounds" else tally.histogram(column)
    h = h / h.sum()
    v = np.arange(len(h))
    mean = float(v @ h)
    return mean, float((v - mean) ** 2 @ h)


def assert_sums_to_one(tally, tolerance: float = 1e-12) -> None:
    assert abs(tally.outcomes.sum() - 1) < tolerance, tally.outcomes.sum()
    for name, h in tally.by_winner.items():
        assert abs(h.sum() - 1) < tolerance, (name, h.sum())
        # each column's histogram splits every winner's mass the same way as the outcomes
        assert np.allclose(h.sum(axis=1), tally.outcomes.sum(axis=(1, 2)), rtol=0, atol=1e-12)


def assert_parity(scenario, trials: int = 200_000, seed: int = 1, z: float = Z,
                  tally=None, simulated=None) -> dict[str, float]:
    """Exact against ``trials`` simulated fights: each outcome probability, each yes/no
    column's probability and each column's mean within |z| standard errors. Returns the
    largest |z| per key (for reports). A key the exact solver calls certain (p 0 or 1, or a
    mean of zero variance) must be exactly that in the simulation. ``simulated``: a tally of
    ``trials`` fights played elsewhere (e.g. by a naive reference) instead of the kernel's."""
    scenario = as_scenario(scenario)
    tally = tally if tally is not None else solved(scenario)
    assert_sums_to_one(tally)
    if simulated is None:
        simulated = odds.simulate(scenario, trials=trials, seed=seed, quiet=True).tally
    assert simulated.columns == tally.columns
    zs = {}
    p_exact, p_mc = outcome_probabilities(tally), outcome_probabilities(simulated)
    for key, p in p_exact.items():
        zs[key] = (_rare(key, round(p_mc[key] * trials), trials, p, z)
                   if min(p, 1 - p) * trials < RARE else
                   _z(key, p_mc[key] - p, p * (1 - p) / trials, z))
    for column in ("rounds",) + tally.columns[3:]:
        mean, var = column_moments(tally, column)
        mc_mean, _ = column_moments(simulated, column)
        zs[column] = _z(column, mc_mean - mean, var / trials, z)
    return zs


def _rare(key: str, k: int, n: int, p: float, bound: float) -> float:
    """An outcome expected fewer than RARE times (or all but RARE), where the normal z is
    no guide: the exact binomial two-sided tail of the count seen must be at least the
    normal tail of ``bound`` (6.3e-5 for |z| < 4). Returns the equivalent |z|."""
    if min(p, 1 - p) < 1e-12:  # certain, or impossible, up to the masses' rounding
        assert k == round(p) * n, f"{key}: exact says certain, simulation saw {k} of {n}"
        return 0.0
    tail = 2 * min(stats.binom.cdf(k, n, p), stats.binom.sf(k - 1, n, p))
    assert tail >= 2 * stats.norm.sf(bound), f"{key}: simulated {k} of {n}, exact p = {p:.3g}"
    return float(stats.norm.isf(min(1.0, tail) / 2))


def _z(key: str, difference: float, variance: float, bound: float) -> float:
    if variance <= 1e-15:
        assert abs(difference) < 1e-9, f"{key}: exact says certain, simulation differs by " \
                                       f"{difference}"
        return 0.0
    z = difference / math.sqrt(variance)
    assert abs(z) < bound, f"{key}: simulation - exact = {difference:.5f}, z = {z:.2f}"
    return abs(z)
