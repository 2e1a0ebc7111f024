"""Warhammer 40,000 3rd edition close combat (R0-x). See README.md here."""
from odds.core.ruleset import Ruleset
from odds.rulesets.wh40k3 import rules
from odds.rulesets.wh40k3.compile import compile_plan


RULESET = Ruleset(
    catalogues=rules.catalogues,
    id="wh40k3",
    title="Warhammer 40,000 3rd edition",
    profile=rules.PROFILE,
    group_keys=rules.GROUP_KEYS,
    side_keys=rules.SIDE_KEYS,
    engagement=rules.ENGAGEMENT,
    check=rules.check,
    compile=compile_plan,
    kernel="odds.rulesets.wh40k3.kernel",
    exact="odds.rulesets.wh40k3.exact",
    own_special_rules=True,
    points=rules.points,
    rule_ids=tuple(f"R0-{i}" for i in range(1, 17)),
    multi_unit=True,
)
