"""Generic effects on the D6 rolls of an attack, computed exactly: re-rolls and modifiers.

A ruleset's special rules (data) say which roll of the attack chain an effect touches; this
module turns a roll's target, modifier and re-rolls into the distribution of the die's
**final face**, from which every probability the kernels need follows, including the ones
that depend on the face (a natural 6 that wounds automatically, or that ignores armour).

Stacking, the same for every ruleset:

- **Re-rolls do not stack.** A die is re-rolled at most once. The roller's own re-roll of
  ``"failures"`` includes its re-roll of ``"ones"``. The enemy's forced re-roll of
  ``"successes"`` (of a save) touches only the faces that succeed, the roller's only faces
  that fail, so both may apply to one roll and each die is still re-rolled once at most.
- **Modifiers add**, and the roll needed is then clamped to what the die can show: a
  natural 1 always fails, and a natural 6 succeeds when ``six_succeeds`` says so.
- **A fixed roll needed** ("always hits on 3+") is a cap: the best of several applies.
"""
from __future__ import annotations

import re

import numpy as np

from odds.core import schema as s

REROLLS = ("ones", "failures")  # the roller's own re-rolls of a roll, weakest first
FACES = np.arange(7)            # index = the face shown; index 0 is unused


def succeeds(needed: int, modifier: int = 0, six_succeeds: bool = True) -> np.ndarray:
    """(7,) bool: faces 1-6 that make a roll of ``needed``+ with ``modifier`` added to the
    die. A natural 1 always fails; a natural 6 succeeds if ``six_succeeds`` (a roll that
    could succeed unmodified), else only when 6 + modifier >= needed."""
    ok = (FACES >= 2) & (FACES + modifier >= needed)
    ok[0] = False
    if six_succeeds:
        ok[6] = True
    return ok


def final_faces(success: np.ndarray, reroll: str | None = None,
                forced: bool = False) -> np.ndarray:
    """(7,) probability of each final face after at most one re-roll: the roller re-rolls
    ``"ones"`` or ``"failures"`` (``reroll``), the enemy makes it re-roll successes
    (``forced``)."""
    again = np.zeros(7, bool)
    if reroll == "ones":
        again[1] = True
    elif reroll == "failures":
        again[1:] = ~success[1:]
    elif reroll is not None:
        raise ValueError(f"reroll must be one of {REROLLS} or None, got {reroll!r}")
    if forced:
        again[1:] |= success[1:]
    p = np.full(7, 1 / 6)
    p[0] = 0.0
    share = p[again].sum()
    p[again] = 0.0
    p[1:] += share / 6
    return p


def p_success(needed: int, modifier: int = 0, reroll: str | None = None,
              forced: bool = False, six_succeeds: bool = True) -> float:
    """P(the roll succeeds) after modifier and re-rolls (:func:`succeeds`, :func:`final_faces`)."""
    ok = succeeds(needed, modifier, six_succeeds)
    return float(final_faces(ok, reroll, forced)[ok].sum())


def strongest_reroll(rerolls) -> str | None:
    """The one re-roll that applies among several sources' (re-rolls do not stack)."""
    given = [r for r in rerolls if r is not None]
    return max(given, key=REROLLS.index) if given else None


def reroll(value, where: s.Where) -> str | None:
    """A re-roll key's value in data: ``"ones"`` or ``"failures"``."""
    return s.choice(*REROLLS)(value, where)


def dice(value, where: s.Where) -> tuple[int, int, int]:
    """A number of attacks, hits or wounds written in data: a whole number 1-10, or dice
    "D3", "D6", "2D6", "D3+1" ... (D3 and D6 only). Returns (dice, sides, plus)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if 1 <= value <= 10:
            return 0, 6, value
        raise where.error(f"must be a whole number 1-10 or dice such as 'D3', 'D6', '2D6', "
                          f"'D3+1', got {value}")
    text = value.strip().upper() if isinstance(value, str) else None
    match = _DICE.fullmatch(text) if text else None
    if not match:
        raise where.error(f"must be a whole number 1-10 or dice such as 'D3', 'D6', '2D6', "
                          f"'D3+1', got {value!r}")
    count, sides, plus = match.groups()
    return int(count or 1), int(sides), int(plus or 0)


_DICE = re.compile(r"([1-4])?D([36])(?:\+([1-6]))?")


def dice_pmf(spec: tuple[int, int, int]) -> np.ndarray:
    """P(value) for value = 0 .. max of a :func:`dice` spec (dice, sides, plus)."""
    count, sides, plus = spec
    out = np.zeros(plus + 1)
    out[plus] = 1.0
    for _ in range(count):
        out = np.convolve(out, np.r_[0.0, np.full(sides, 1 / sides)])
    return out
