"""Rulesets are plug-ins: one registered in a process (as an installed package's entry point
would be) is known by its id everywhere a ruleset is named."""
from __future__ import annotations

import dataclasses

import pytest

from odds import rulesets
from odds.analysis.result import flag_columns
from odds.rulesets import get_ruleset, register, ruleset_ids


@pytest.fixture
def twin():
    """blackpowder's Ruleset under another id, registered for one test."""
    ruleset = dataclasses.replace(get_ruleset("blackpowder"), id="bp_twin",
                                  flag_columns=("attacker_shaken", "twin_flag"))
    register(ruleset)
    yield ruleset
    del rulesets._REGISTERED["bp_twin"]


def test_a_registered_ruleset_is_known_by_its_id(twin):
    assert get_ruleset("bp_twin") is twin
    assert "bp_twin" in ruleset_ids() and set(rulesets.BUILT_IN) < set(ruleset_ids())
    assert "twin_flag" in flag_columns()  # the analysis sees its columns


def test_a_second_ruleset_of_a_known_id_or_not_a_ruleset_is_refused(twin):
    with pytest.raises(ValueError, match="already known"):
        register(twin)
    with pytest.raises(ValueError, match="already known"):
        register(get_ruleset("wh40k3"))
    with pytest.raises(TypeError, match="Ruleset"):
        register("wh40k3")


def test_every_catalogue_comes_through_the_ruleset():
    """`odds weapons` and the explorer read each ruleset's catalogues() (no branch on an id)."""
    for ruleset_id in rulesets.BUILT_IN:
        sections = get_ruleset(ruleset_id).catalogues()
        assert sections and all(section.entries for section in sections)
