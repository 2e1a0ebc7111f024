"""Black Powder (1st ed.) melee with Pike & Shotte additions (R4-x, §5.x).
See README.md here."""
from odds.core.ruleset import Ruleset
from odds.rulesets.blackpowder import brigade, rules
from odds.rulesets.blackpowder.compile import compile_plan


RULESET = Ruleset(
    catalogues=rules.catalogues,
    id="blackpowder",
    title="Black Powder (1st ed.) with Pike & Shotte additions",
    profile=rules.PROFILE,  # a unit's profile table (single_unit: no model groups)
    group_keys={},
    side_keys=rules.SIDE_KEYS,
    engagement=rules.ENGAGEMENT,
    check=brigade.check,
    compile=compile_plan,
    kernel="odds.rulesets.blackpowder.kernel",
    exact="odds.rulesets.blackpowder.exact",
    points=rules.points,
    # R4-3: who contacts which face is given (charges, facing), the room on a face is played,
    # measuring is table-top movement (README); R4-1's order roll is played when the
    # scenario gives a staff rating
    rule_ids=("R4-1", "R4-2", "R4-3", "R4-4", "R4-5", "R4-6"),
    extra_columns=("attacker_shaken", "defender_shaken", "sweeping_advance"),
    flag_columns=("attacker_shaken", "defender_shaken", "sweeping_advance"),
    single_unit=True,
    multi_unit=True,  # a brigade's units in one melee (brigade.py)
    fresh_key="in_melee",
    unit_flags=("shaken",),  # each unit's, with several units a side (§5.4)  # a fresh unit (§5.4); its `engaged` is a target already fighting
    # a unit has no models: its casualties (beyond stamina discarded) and failed saves
    lost=("casualty", "casualties"),
    wounds="failed saves",
)
