"""Mordheim close combat (R1-x): individual warriors. See README.md here."""
from odds.core.ruleset import Ruleset
from odds.rulesets.mordheim import rules
from odds.rulesets.mordheim.compile import EXTRA_COLUMNS, compile_plan


RULESET = Ruleset(
    catalogues=rules.catalogues,
    id="mordheim",
    title="Mordheim",
    profile=rules.PROFILE,
    group_keys=rules.GROUP_KEYS,
    side_keys=rules.SIDE_KEYS,
    engagement=rules.ENGAGEMENT,
    check=rules.check,
    compile=compile_plan,
    kernel="odds.rulesets.mordheim.kernel",
    exact="odds.rulesets.mordheim.exact",
    rule_ids=tuple(f"R1-{i}" for i in range(1, 13)),
    extra_columns=EXTRA_COLUMNS,
    default_max_rounds=20,
    own_special_rules=True,
    lost=("warrior out of action", "warriors out of action"),
)
