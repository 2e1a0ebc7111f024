"""A Bradley-Terry rating with a charge advantage, fitted to the cells of a round robin.

When unit i charges unit j, P(i wins) = theta pi_i / (theta pi_i + pi_j) (Agresti's "home
advantage" form, with theta the charge advantage). The model is fitted by maximum likelihood
on log-strengths s_i = log pi_i, centred to sum to zero, and h = log theta.

Draws (fights neither side won: both destroyed, unresolved, no fight) count as half a win for
each side, the standard convention; Davidson's tie model is not used.
"""
from __future__ import annotations

import html
import math
from collections import deque
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Sequence

import numpy as np
from scipy.optimize import linprog
from scipy.special import expit, log_expit

from odds.analysis import report
from odds.analysis.intervals import Z95
from odds.core import schema as s

ELO = 400.0 / math.log(10.0)   # Elo points per unit of log-strength
PRIOR = 1.0                    # virtual drawn fights added to each played (charger, charged) pair
TOLERANCE = 1e-10              # relative size of the last Newton step
MAX_STEPS = 200
NOT_IDENTIFIABLE = ("unknown: one list charged in every cell, so the cells cannot tell the "
                    "bonus for charging from the units' strengths (play both ways round to "
                    "measure it); the strengths include it")


@dataclass(frozen=True)
class Rating:
    """A fitted rating: one log-strength per unit and the charge advantage theta.

    ``strength`` sums to zero; ``elo`` is ELO x strength (mean 0; a 400-point gap is 10:1
    odds, times theta for the charger). ``strength_se`` and ``elo_low``/``elo_high`` (95%)
    come from the observed information of the fit, so they measure the Monte Carlo noise of
    the cells, treated as independent. ``charge_advantage`` is NaN when the games cannot tell
    it apart from the strengths (``charge_note`` says why). ``max_residual`` is the largest
    gap between a pair's observed charger score (wins + draws/2 over fights) and the model's:
    a large one means one number per unit does not summarise the matchups (e.g. cycles where
    A beats B beats C beats A)."""

    names: tuple[str, ...]
    strength: np.ndarray
    strength_se: np.ndarray
    covariance: np.ndarray          # of the log-strengths
    charge_advantage: float
    charge_low: float
    charge_high: float
    charge_note: str
    max_residual: float
    prior: float
    elo: np.ndarray = field(init=False)
    elo_low: np.ndarray = field(init=False)
    elo_high: np.ndarray = field(init=False)

    def __post_init__(self):
        elo = ELO * self.strength
        half = Z95 * ELO * self.strength_se
        for key, value in (("elo", elo), ("elo_low", elo - half), ("elo_high", elo + half)):
            object.__setattr__(self, key, value)

    def index(self, unit: int | str, argument: str = "unit") -> int:
        """A unit's position, from its index or name (a mistake is blamed on ``argument``)."""
        if isinstance(unit, str):
            return self.names.index(report.pick(unit, self.names, argument, "unit"))
        if not isinstance(unit, Integral) or isinstance(unit, bool):
            raise TypeError(f"{argument} must be a unit's name or index, got {unit!r}")
        if not 0 <= unit < len(self.names):
            raise (s.ARGUMENTS / argument).error(
                f"unit must be a name or an index 0..{len(self.names) - 1}, got {unit!r}")
        return int(unit)

    def expected(self, i: int | str, j: int | str, charging: bool = True) -> float:
        """The model's P(i beats j) when i charges j (``charging=False``: j charges i).
        When the charge advantage is not identifiable, theta = 1 is used (the strengths then
        include it)."""
        h = 0.0 if math.isnan(self.charge_advantage) else math.log(self.charge_advantage)
        gap = self.strength[self.index(i, "i")] - self.strength[self.index(j, "j")]
        return float(expit(gap + h if charging else gap - h))

    def to_frame(self):
        """One row per unit, best first: unit, elo, elo_low, elo_high, elo_se, strength,
        strength_se; the charge advantage and its interval are in ``frame.attrs``."""
        import pandas as pd
        frame = pd.DataFrame({"unit": self.names, "elo": self.elo, "elo_low": self.elo_low,
                              "elo_high": self.elo_high, "elo_se": ELO * self.strength_se,
                              "strength": self.strength, "strength_se": self.strength_se})
        frame = frame.sort_values("elo", ascending=False, kind="stable").reset_index(drop=True)
        frame.attrs.update(charge_advantage=self.charge_advantage, charge_low=self.charge_low,
                           charge_high=self.charge_high, charge_note=self.charge_note,
                           max_residual=self.max_residual, prior=self.prior)
        return frame

    def to_dict(self) -> dict:
        """JSON-ready: ``units`` (the rows of :meth:`to_frame`), the charge advantage with
        its interval (None when not identifiable) and note, ``max_residual`` and ``prior``."""
        known = not math.isnan(self.charge_advantage)
        units = [{k: (float(v) if isinstance(v, (float, np.floating)) else v)
                  for k, v in row.items()} for row in self.to_frame().to_dict("records")]
        return {"model": "Bradley-Terry with a charge advantage", "units": units,
                "charge_advantage": self.charge_advantage if known else None,
                "charge_advantage_ci95": [self.charge_low, self.charge_high] if known else None,
                "charge_note": self.charge_note, "max_residual": self.max_residual,
                "prior": self.prior}

    def __repr__(self) -> str:
        """The summary line and the units best first, as printed in a REPL."""
        table = self.to_frame()[["unit", "elo", "elo_low", "elo_high"]].to_string(
            index=False, float_format=lambda x: f"{x:.0f}")
        return f"{self.summary()}\n{table}"

    def _repr_html_(self) -> str:
        """The same in a notebook: the summary and the table."""
        return (f"<p>{html.escape(self.summary())}</p>"
                + self.to_frame().to_html(index=False, float_format=lambda x: f"{x:.3g}"))

    def summary(self) -> str:
        """One line on the charge advantage and the fit, for printed reports."""
        if math.isnan(self.charge_advantage):
            charge = "charge advantage " + self.charge_note
        else:
            charge = (f"charge advantage x{self.charge_advantage:.2f} "
                      f"[{self.charge_low:.2f}, {self.charge_high:.2f}] on the odds")
        return (f"rating: Bradley-Terry on an Elo scale (mean 0; 400 points = 10:1 odds); "
                f"{charge}; largest gap between a cell and the model "
                f"{100 * self.max_residual:.1f} percentage points")


def bradley_terry(games: Sequence[Sequence], names: Sequence[str], *,
                  prior: float = PRIOR) -> Rating:
    """Fit the rating to ``games``, each (charger, charged, charger_wins, charged_wins, draws)
    with unit indices into ``names`` and counts of fights (floats allowed: expected counts,
    trials x probability).

    ``prior`` virtual drawn fights are added to each (charger, charged) pair that played, so
    that a unit winning (or losing) every fight still gets a finite rating, in the right
    order; with N fights a pair it moves a fit by about prior / N in win probability. With
    ``prior=0`` the fit is the plain maximum likelihood, refused when it is infinite.

    Raises ValueError (or TypeError) for bad games, a unit with no games, or units in groups
    that never met."""
    names = _check_names(names)
    prior = _check_prior(prior)
    score = _tally(games, len(names))
    charger, charged = np.nonzero(score.sum(axis=0) > 0)
    for unit, name in enumerate(names):
        if not np.any(charger == unit) and not np.any(charged == unit):
            raise ValueError(f"unit {name!r} has no games (no fights as charger or charged)")
    charge_known = _connected_levels(charger, charged, names)
    wins = score[0, charger, charged] + prior / 2
    losses = score[1, charger, charged] + prior / 2
    if prior == 0:
        _check_finite(charger, charged, wins, losses, charge_known, names)
    n = len(names)
    basis = _sum_zero_basis(n)
    design = basis[charger] - basis[charged]
    if charge_known:
        design = np.hstack([design, np.ones((len(charger), 1))])
    params, information = _newton(design, wins, losses)
    covariance = np.linalg.inv(information)
    strength = basis @ params[:n - 1]
    strength_cov = basis @ covariance[:n - 1, :n - 1] @ basis.T
    fitted = expit(design @ params)
    observed = score[0, charger, charged] / score[:, charger, charged].sum(axis=0)
    if charge_known:
        h, se = params[-1], math.sqrt(covariance[-1, -1])
        theta = (math.exp(h), math.exp(h - Z95 * se), math.exp(h + Z95 * se))
    else:
        theta = (math.nan,) * 3
    return Rating(names=names, strength=strength,
                  strength_se=np.sqrt(np.clip(np.diag(strength_cov), 0.0, None)),
                  covariance=strength_cov, charge_advantage=theta[0], charge_low=theta[1],
                  charge_high=theta[2], charge_note="" if charge_known else NOT_IDENTIFIABLE,
                  max_residual=float(np.max(np.abs(observed - fitted))), prior=prior)


def _check_names(names) -> tuple[str, ...]:
    if isinstance(names, str) or not all(isinstance(name, str) for name in names):
        raise TypeError(f"names must be a sequence of unit names (strings), got {names!r}")
    names = tuple(names)
    if len(names) < 2:
        raise ValueError(f"a rating needs at least 2 units, got {len(names)}")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"unit names must be distinct; repeated: {repeated}")
    return names


def _check_prior(prior) -> float:
    if isinstance(prior, bool) or not isinstance(prior, Real):
        raise TypeError(f"prior must be a number of virtual drawn fights, got {prior!r}")
    if not (math.isfinite(prior) and prior >= 0):
        raise ValueError(f"prior must be finite and >= 0, got {prior!r}")
    return float(prior)


def _tally(games, n: int) -> np.ndarray:
    """score[0, i, j] / score[1, i, j]: the charger's / the charged's wins plus half the draws,
    summed over the games where i charged j."""
    score = np.zeros((2, n, n))
    for k, game in enumerate(games):
        if isinstance(game, (str, bytes)) or not hasattr(game, "__len__") or len(game) != 5:
            raise TypeError(f"game {k}: expected (charger, charged, charger_wins, "
                            f"charged_wins, draws), got {game!r}")
        i, j, *counts = game
        for role, unit in (("charger", i), ("charged", j)):
            if isinstance(unit, bool) or not isinstance(unit, Integral):
                raise TypeError(f"game {k}: {role} must be a unit index (int), got {unit!r}")
            if not 0 <= unit < n:
                raise ValueError(f"game {k}: {role} index {unit} out of range 0..{n - 1}")
        if i == j:
            raise ValueError(f"game {k}: unit {i} cannot charge itself")
        for what, count in zip(("charger_wins", "charged_wins", "draws"), counts):
            if isinstance(count, bool) or not isinstance(count, Real):
                raise TypeError(f"game {k}: {what} must be a number, got {count!r}")
            if not (math.isfinite(count) and count >= 0):
                raise ValueError(f"game {k}: {what} must be finite and >= 0, got {count!r}")
        won, lost, drawn = (float(c) for c in counts)
        score[0, i, j] += won + drawn / 2
        score[1, i, j] += lost + drawn / 2
    return score


def _connected_levels(charger, charged, names) -> bool:
    """Refuse units in groups that never met; return whether the charge advantage is
    identifiable: False when every game's charger can be put exactly one level above the unit
    it charged (e.g. one list always charging the other), True when some cycle of games
    contradicts that (e.g. a pair played both ways)."""
    neighbours = [[] for _ in names]
    for i, j in zip(charger, charged):
        neighbours[i].append((j, -1))
        neighbours[j].append((i, +1))
    level = {0: 0}
    queue = deque([0])
    consistent = True
    while queue:
        unit = queue.popleft()
        for other, step in neighbours[unit]:
            if other not in level:
                level[other] = level[unit] + step
                queue.append(other)
            elif level[other] != level[unit] + step:
                consistent = False
    if len(level) < len(names):
        apart = [names[u] for u in range(len(names)) if u not in level]
        raise ValueError(f"units {apart} never met the others (directly or through "
                         f"opponents): no rating can compare the two groups")
    return not consistent


def _check_finite(charger, charged, wins, losses, charge_known, names) -> None:
    """With no prior, refuse games whose maximum likelihood is infinite: some direction of
    the parameters never lowers any pair's fit and raises some (a linear program)."""
    n = len(names)
    rows = np.zeros((len(charger), n + 1))
    rows[np.arange(len(charger)), charger] = 1.0
    rows[np.arange(len(charger)), charged] = -1.0
    rows[:, n] = 1.0 if charge_known else 0.0
    sign = np.where(losses == 0, 1.0, np.where(wins == 0, -1.0, 0.0))
    two_sided = sign == 0
    found = linprog(-(sign @ rows), A_ub=-(sign[:, None] * rows)[~two_sided],
                    b_ub=np.zeros(np.count_nonzero(~two_sided)),
                    A_eq=rows[two_sided] if two_sided.any() else None,
                    b_eq=np.zeros(np.count_nonzero(two_sided)) if two_sided.any() else None,
                    bounds=[(-1, 1)] * (n + 1), method="highs")
    if found.status == 0 and -found.fun > 1e-9:
        total = np.zeros(n)
        np.add.at(total, charger, losses)
        np.add.at(total, charged, wins)
        perfect = [names[u] for u in range(n) if total[u] == 0]
        who = f" (units that never lost: {perfect})" if perfect else ""
        raise ValueError(f"no finite maximum-likelihood rating: some units won or lost every "
                         f"fight against the rest{who}; use prior > 0")


def _sum_zero_basis(n: int) -> np.ndarray:
    """An orthonormal n x (n-1) basis of the vectors summing to zero."""
    centred = np.eye(n) - 1.0 / n
    q, _ = np.linalg.qr(centred[:, :n - 1])
    return q


def _newton(design, wins, losses):
    """Maximise sum(wins log p + losses log(1 - p)), p = expit(design @ params), by Newton's
    method with step halving; return the parameters and the observed information."""
    def loglik(params):
        m = design @ params
        return float(wins @ log_expit(m) + losses @ log_expit(-m))

    fights = wins + losses
    params = np.zeros(design.shape[1])
    current = loglik(params)
    for _ in range(MAX_STEPS):
        p = expit(design @ params)
        gradient = design.T @ (wins - fights * p)
        information = design.T @ (design * (fights * p * (1 - p))[:, None])
        step = np.linalg.solve(information, gradient)
        scale = 1.0
        while loglik(params + scale * step) < current and scale > 1e-12:
            scale /= 2
        params = params + scale * step
        current = loglik(params)
        if np.max(np.abs(scale * step)) <= TOLERANCE * max(1.0, np.max(np.abs(params))):
            p = expit(design @ params)
            return params, design.T @ (design * (fights * p * (1 - p))[:, None])
    raise ValueError(f"the rating fit did not converge in {MAX_STEPS} Newton steps")
