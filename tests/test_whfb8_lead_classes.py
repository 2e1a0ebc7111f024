"""whfb8's classes of a round's lead (fight.lead_classes): the exact solver plays the combat
result and the break tests once for each class of the lead's values (odds.core.walk), so two
leads of one class must play the rest of the round alike -- but for the chances of the
round's first pick where the class gives them, which the solver mixes by each lead's share
-- and two that do not must be apart (R2-11, R2-12). Checked here on states of the bundled
Goblin horde fight and the combined charge; that the solver's answers are unchanged by it
is tests/test_exact_against_reference.py's and the parity suites'."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_whfb8_exact import p_hold

import odds
from odds.rulesets import get_ruleset
from odds.rulesets.whfb8 import fight

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
SCENARIO = SCENARIOS / "whfb8_chaos_warriors_vs_goblin_horde.toml"
COMBINED = SCENARIOS / "whfb8_chaos_lord_combined_charge.toml"  # two units charge
LEADS = range(-30, 31)


def _start(scenario):
    """The plan and the state as the first round's combat result begins."""
    packed = get_ruleset("whfb8").compile(scenario).packed
    state = np.zeros(fight.fields(packed), np.int64)
    fight.begin(packed, state)
    state[fight.ROUNDS] = 1
    state[fight.PHASE] = fight.RESULT
    return packed, state


def _read(packed, state):
    """{lead: (its class, the chances of its class's mixed first pick or None)}."""
    classes, chances = np.zeros(len(LEADS), np.int64), np.zeros((len(LEADS), 16))
    assert fight.lead_classes(packed, state, LEADS[0], LEADS[-1], classes, chances) == 2
    return {lead: (int(classes[i]), None if chances[i, 0] < 0 else tuple(chances[i, :2]))
            for i, lead in enumerate(LEADS)}


def _classes(packed, state):
    return {lead: c for lead, (c, _) in _read(packed, state).items()}


def _margins(packed, state):
    """{lead: (the losing side, 0 the attacker or 1 the defender; the margin)}, a draw
    (None, 0)."""
    out = {}
    for lead in LEADS:
        diff = fight._diff(packed, state,
                           fight._overkill(state, lead) + fight._scores(packed, state))
        out[lead] = (None, 0) if diff == 0 else (1 if diff > 0 else 0, abs(diff))
    return out


def _expected(packed, state, ld):
    """The classes as R2-11 and R2-12 read the lead: the loser and the margin, alike past
    the loser's Ld ``ld[loser]`` (None: the margin is not read at all; "mixed": one class
    for the loser, its test's chances mixed)."""
    out = {}
    for lead, (loser, margin) in _margins(packed, state).items():
        read = None if loser is None else ld[loser]
        out[lead] = ("draw",) if loser is None else (loser,) if read in (None, "mixed") else \
            (loser, min(margin, read))
    return out


def _same_partition(got, want):
    for a in LEADS:
        for b in LEADS:
            assert (got[a] == got[b]) == (want[a] == want[b]), (a, b, got[a], got[b])


def test_one_unit_that_tests_is_one_class_its_break_test_mixed_R2_11_R2_12():
    """Neither unit is Steadfast (4 ranks each): each loser's one test reads the margin, on
    its Ld (8 for the Warriors, 5 for the Goblins) less it: one class a loser, and each
    lead gives its test's chances (broke, held), a double 1 holding past the Ld."""
    packed, state = _start(odds.load(SCENARIO))
    read = _read(packed, state)
    _same_partition(_classes(packed, state),
                    _expected(packed, state, {0: "mixed", 1: "mixed"}))
    for lead, (loser, margin) in _margins(packed, state).items():
        if loser is None:
            assert read[lead][1] is None
            continue
        held = p_hold({0: 8, 1: 5}[loser] - margin)
        assert read[lead][1] == pytest.approx((1 - held, held), abs=1e-15), lead


def test_a_margin_past_the_losers_ld_reads_alike_with_two_units_testing_R2_11_R2_12():
    """The combined charge's Warriors and Knights both test when the attacker loses: the
    first pick is one unit's, the margin is kept for the other, so the margins are classes
    of their own (alike past the highest Ld), nothing mixed."""
    packed, state = _start(odds.load(COMBINED))
    x = 0  # the charging side loses where the lead is low enough
    ld = max(fight._unit_ld(packed, state, x, u) for u in range(fight.units(packed, x)))
    read = _read(packed, state)
    margins = _margins(packed, state)
    losing = [lead for lead in LEADS if margins[lead][0] == x]
    assert len(losing) > ld and all(read[lead][1] is None for lead in losing)
    got = {lead: read[lead][0] for lead in losing}
    want = {lead: min(margins[lead][1], ld) for lead in losing}
    for a in losing:
        for b in losing:
            assert (got[a] == got[b]) == (want[a] == want[b]), (a, b)


def test_a_steadfast_loser_reads_no_margin_R2_12():
    """Five Warriors left (one rank) against the Goblins' four: Goblins that lose test on
    their unmodified Ld whatever the margin, one class."""
    packed, state = _start(odds.load(SCENARIO))
    state[fight._n(packed, 0, 0)] = 5
    _same_partition(_classes(packed, state),
                    _expected(packed, state, {0: "mixed", 1: None}))
    read, margins = _read(packed, state), _margins(packed, state)
    assert all(read[lead][1] is None for lead in LEADS if margins[lead][0] == 1)


def test_an_unstable_loser_reads_every_margin_R2_12():
    """Unstable Goblins lose a wound per point of the margin: every margin is its own
    class."""
    data = odds.load(SCENARIO).to_dict()
    data["defender"]["models"][0]["rules"] = ["Unstable"]
    packed, state = _start(odds.from_dict(data))
    got = _classes(packed, state)
    _same_partition(got, _expected(packed, state, {0: "mixed", 1: 100}))


def test_a_side_with_no_unit_left_does_not_read_the_lead_R2_11():
    packed, state = _start(odds.load(SCENARIO))
    state[fight._u(packed, fight.INSIDE, 1, 0)] = 0
    assert len(set(_classes(packed, state).values())) == 1
