"""whfb8's classes of a round's lead (fight.lead_class): the exact solver plays the combat
result and the break tests once for each class of the lead's values (odds.core.walk), so two
leads of one class must play the rest of the round alike and two that do not must be apart
(R2-11, R2-12). Checked here on states of the bundled Goblin horde fight; that the solver's
answers are unchanged by it is tests/test_exact_against_reference.py's and the parity
suites'."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import odds
from odds.rulesets import get_ruleset
from odds.rulesets.whfb8 import fight

SCENARIO = Path(__file__).resolve().parents[1] / "data" / "scenarios" / \
    "whfb8_chaos_warriors_vs_goblin_horde.toml"
LEADS = range(-30, 31)


def _start(scenario):
    """The plan and the state as the first round's combat result begins."""
    packed = get_ruleset("whfb8").compile(scenario).packed
    state = np.zeros(fight.fields(packed), np.int64)
    fight.begin(packed, state)
    state[fight.ROUNDS] = 1
    state[fight.PHASE] = fight.RESULT
    return packed, state


def _classes(packed, state):
    return {lead: fight.lead_class(packed, state, lead) for lead in LEADS}


def _expected(packed, state, ld):
    """The classes as R2-11 and R2-12 read the lead: the winner and the margin, alike past
    the loser's Ld ``ld[loser]`` (None: the margin is not read at all)."""
    out = {}
    for lead in LEADS:
        diff = fight._diff(packed, state, fight._overkill(state, lead))
        loser = 1 if diff > 0 else 0
        read = ld[loser]
        out[lead] = (0,) if diff == 0 else (loser, None if read is None else
                                            min(abs(diff), read))
    return out


def _same_partition(got, want):
    for a in LEADS:
        for b in LEADS:
            assert (got[a] == got[b]) == (want[a] == want[b]), (a, b, got[a], got[b])


def test_a_margin_past_the_losers_ld_reads_alike_R2_11_R2_12():
    """Neither unit is Steadfast (4 ranks each): the margin counts up to the loser's Ld (8
    for the Warriors, 5 for the Goblins); every larger margin needs a double 1 alike."""
    packed, state = _start(odds.load(SCENARIO))
    _same_partition(_classes(packed, state), _expected(packed, state, {0: 8, 1: 5}))


def test_a_steadfast_loser_reads_no_margin_R2_12():
    """Five Warriors left (one rank) against the Goblins' four: Goblins that lose test on
    their unmodified Ld whatever the margin, one class."""
    packed, state = _start(odds.load(SCENARIO))
    state[fight._n(packed, 0, 0)] = 5
    _same_partition(_classes(packed, state), _expected(packed, state, {0: 8, 1: None}))


def test_an_unstable_loser_reads_every_margin_R2_12():
    """Unstable Goblins lose a wound per point of the margin: every margin is its own
    class."""
    data = odds.load(SCENARIO).to_dict()
    data["defender"]["models"][0]["rules"] = ["Unstable"]
    packed, state = _start(odds.from_dict(data))
    got = _classes(packed, state)
    _same_partition(got, _expected(packed, state, {0: 8, 1: 100}))


def test_a_side_with_no_unit_left_does_not_read_the_lead_R2_11():
    packed, state = _start(odds.load(SCENARIO))
    state[fight._u(packed, fight.INSIDE, 1, 0)] = 0
    assert len(set(_classes(packed, state).values())) == 1
