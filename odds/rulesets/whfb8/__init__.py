"""Warhammer Fantasy Battles 8th edition melee of two ranked units (R2-x),
with the "Warhammer Resurrection" supporting attacks as an option. See README.md here."""
from odds.core.ruleset import Ruleset
from odds.rulesets.whfb8 import rules
from odds.rulesets.whfb8.compile import compile_plan


RULESET = Ruleset(
    id="whfb8",
    title="Warhammer Fantasy Battles 8th edition",
    profile=rules.PROFILE,
    group_keys=rules.GROUP_KEYS,
    side_keys=rules.SIDE_KEYS,
    engagement=rules.ENGAGEMENT,
    rules=rules.RULES,
    check=rules.check,
    compile=compile_plan,
    kernel="odds.rulesets.whfb8.kernel",
    exact="odds.rulesets.whfb8.exact",
    own_special_rules=True,
    points=rules.points,
    rule_ids=tuple(f"R2-{i}" for i in range(1, 15)),
)
