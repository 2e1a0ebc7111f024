"""Warhammer Fantasy Battles 8th edition melee of ranked units, their characters and champions
(R2-x), with the
"Warhammer Resurrection" supporting attacks as an option. See README.md here."""
from odds.core.ruleset import Ruleset
from odds.rulesets.whfb8 import compile, rules, units


def compile_plan(scenario):
    """The plan of a checked scenario: of several units or heroes (compile_units), else of
    one unit a side (compile)."""
    if units.led(scenario):
        from odds.rulesets.whfb8.compile_units import compile_units

        return compile_units(scenario)
    return compile.compile_plan(scenario)


RULESET = Ruleset(
    catalogues=rules.catalogues,
    id="whfb8",
    title="Warhammer Fantasy Battles 8th edition",
    profile=rules.PROFILE,
    group_keys=rules.GROUP_KEYS,
    side_keys=rules.SIDE_KEYS,
    engagement=rules.ENGAGEMENT,
    rules=rules.RULES,
    check=rules.check,
    compile=compile_plan,
    kernel="odds.rulesets.whfb8.play",
    exact="odds.rulesets.whfb8.exact",
    own_special_rules=True,
    points=rules.points,
    multi_unit=True,
    scenario_columns=units.columns,
    rule_ids=tuple(f"R2-{i}" for i in range(1, 15)),
)
