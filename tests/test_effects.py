"""odds.core.effects: a D6 roll's final face after re-rolls and modifiers, checked against
enumerating both dice (36 equally likely pairs) and against icepool."""
from __future__ import annotations

import itertools
from fractions import Fraction

import icepool
import pytest

from odds.core.effects import final_faces, p_success, strongest_reroll, succeeds


def enumerated(needed, modifier, reroll, forced, six_succeeds=True):
    """P(success) by listing (first die, second die): the second counts only when the first
    is re-rolled."""
    def ok(face):
        return face != 1 and (face + modifier >= needed or (six_succeeds and face == 6))

    total = Fraction(0)
    for first, second in itertools.product(range(1, 7), repeat=2):
        again = ((reroll == "ones" and first == 1) or (reroll == "failures" and not ok(first))
                 or (forced and ok(first)))
        total += Fraction(1, 36) * ok(second if again else first)
    return total


@pytest.mark.parametrize("needed", range(1, 9))
@pytest.mark.parametrize("modifier", (-2, -1, 0, 1, 2))
@pytest.mark.parametrize("reroll", (None, "ones", "failures"))
@pytest.mark.parametrize("forced", (False, True))
def test_p_success_matches_enumeration(needed, modifier, reroll, forced):
    """Re-rolls of 1s, of failures, forced re-rolls of successes, and modifiers on one die."""
    for six in (True, False):
        want = float(enumerated(needed, modifier, reroll, forced, six))
        assert p_success(needed, modifier, reroll, forced, six) == pytest.approx(want, abs=1e-15)


@pytest.mark.parametrize("needed", range(2, 7))
def test_reroll_failures_matches_icepool(needed):
    """A re-roll of every failure: icepool's d6.reroll(once) agrees with final_faces."""
    die = icepool.d6.reroll(lambda x: x < needed, depth=1)
    faces = final_faces(succeeds(needed), "failures")
    for face in range(1, 7):
        assert faces[face] == pytest.approx(float(die.probability(face)), abs=1e-15)
    assert faces.sum() == pytest.approx(1.0, abs=1e-15)


def test_reroll_ones_matches_icepool():
    die = icepool.d6.reroll([1], depth=1)
    faces = final_faces(succeeds(4), "ones")
    for face in range(1, 7):
        assert faces[face] == pytest.approx(float(die.probability(face)), abs=1e-15)


def test_natural_one_fails_and_six_succeeds():
    """A natural 1 fails even at +5; a 6 succeeds past the chart only when six_succeeds."""
    assert not succeeds(2, 5)[1]
    assert succeeds(9)[6] and not succeeds(9, six_succeeds=False)[6]
    assert p_success(7, six_succeeds=False) == 0.0


def test_rerolls_do_not_stack():
    """Failures includes ones; no re-roll is no re-roll."""
    assert strongest_reroll(["ones", "failures", None]) == "failures"
    assert strongest_reroll([None, "ones"]) == "ones"
    assert strongest_reroll([None]) is None
    with pytest.raises(ValueError, match="reroll must be one of"):
        final_faces(succeeds(4), "successes")
