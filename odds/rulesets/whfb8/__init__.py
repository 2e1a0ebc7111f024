"""Warhammer Fantasy Battles 8th edition melee of ranked units, their characters and champions
(R2-x), with the
"Warhammer Resurrection" supporting attacks as an option. See README.md here."""
from odds.core.ruleset import Ruleset
from odds.rulesets.whfb8 import compile, rules, units

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
    compile=compile.compile_plan,
    kernel="odds.rulesets.whfb8.kernel",
    exact="odds.rulesets.whfb8.exact",
    own_special_rules=True,
    points=rules.points,
    multi_unit=True,
    scenario_columns=units.columns,
    rule_ids=tuple(f"R2-{i}" for i in range(1, 15)),
)
