"""whfb8 scenario schema, equipment, dice charts and checks (README.md here)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from odds.core import schema as s
from odds.core.catalogue import NO_OWN, Section, own_entries, rule_table, unknown_name
from odds.core.charts import NEVER, d6_charts
from odds.core.data import data_path, load_table
from odds.core.effects import dice, reroll

NO_SAVE = NEVER  # a "7+" roll: never made

PROFILE = {
    "M": (s.integer(1, 10), s.REQUIRED),
    "WS": (s.integer(1, 10), s.REQUIRED),
    "S": (s.integer(1, 10), s.REQUIRED),
    "T": (s.integer(1, 10), s.REQUIRED),
    "W": (s.integer(1, 10), s.REQUIRED),
    "I": (s.integer(1, 10), s.REQUIRED),
    "A": (s.integer(1, 10), s.REQUIRED),
    "Ld": (s.integer(1, 10), s.REQUIRED),
    "Sv": (s.integer(1, 6), None),
    "Ward": (s.integer(2, 6), None),
}

MOUNT = {  # a mounted model's steed: it fights beside its rider, never supports (R2-5)
    "WS": (s.integer(1, 10), s.REQUIRED),
    "S": (s.integer(1, 10), s.REQUIRED),
    "I": (s.integer(1, 10), s.REQUIRED),
    "A": (s.integer(0, 10), s.REQUIRED),
}


@dataclass(frozen=True)
class TroopType:
    """A troop type's data (data/whfb8/troop_types.toml): how its ranks, supporting attacks
    and Horde count (R2-5, R2-11, R2-12), and being mounted."""

    name: str
    rank_models: int    # models that make a rank (rank bonus, Steadfast, disruption)
    horde_files: int    # a front this wide is a Horde (0: never)
    support_max: int    # supporting attacks a supporting model makes at most (8e)
    mounted: bool
    killing_blow: bool  # slain by a (man-sized) Killing Blow
    stomped: bool       # takes Stomps


TROOP_KEYS = {"rank_models": (s.integer(1, 10), s.REQUIRED),
              "horde_files": (s.integer(0, 100), s.REQUIRED),
              "support_max": (s.integer(1, 10), s.REQUIRED),
              "mounted": (s.boolean, s.REQUIRED),
              "killing_blow": (s.boolean, s.REQUIRED), "stomped": (s.boolean, s.REQUIRED)}


def troop_types() -> dict[str, TroopType]:
    """The troop types (R2-5, R2-9) from data/whfb8/troop_types.toml."""
    return dict(_troop_types())


@lru_cache(maxsize=1)
def _troop_types() -> dict[str, TroopType]:
    """troop_types(), read and checked once."""
    where = s.Where(str(data_path("whfb8", "troop_types.toml")), "")
    return {name: TroopType(name, **s.fields(spec, TROOP_KEYS, where / name))
            for name, spec in load_table("whfb8", "troop_types.toml").items()}


def mounted(group) -> bool:
    return troop_types()[group.options["troop_type"]].mounted


def _troop_type(value, where: s.Where) -> str:
    return s.choice(*troop_types())(value, where)


def _mount(value, where: s.Where) -> dict:
    return s.fields(value, MOUNT, where)


GROUP_KEYS = {
    "troop_type": (_troop_type, "infantry"),
    "mount": (_mount, None),
    "rules": (s.distinct_names, []),
    "fights_with": (s.text, None),
    "points": (s.number(0), None),
    "character": (s.boolean, False),
    "champion": (s.boolean, False),
    "general": (s.boolean, False),
    "battle_standard": (s.boolean, False),
}

SIDE_KEYS = {
    "width": (s.integer(1, 100), s.REQUIRED),
    "standard": (s.boolean, False),
    "musician": (s.boolean, False),
    "champion": (s.boolean, False),
    "battle_standard": (s.boolean, False),
    "general_Ld": (s.integer(1, 10), None),
    "in_contact": (s.integer(1, 100), None),
    "charges": (s.text, None),
    "facing": (s.choice("front", "flank", "rear"), None),
    "attack_character": (s.choice("never", "always", "if_can_wound"), "never"),
}

CHALLENGE = ("never", "always", "champion_only")  # whether and with whom a side challenges
ACCEPT = ("always", "never", "champion_first")    # how a challenged side answers

ENGAGEMENT = {
    "charger": (s.choice("attacker", "defender"), "attacker"),
    "facing": (s.choice("front", "flank", "rear"), "front"),
    "reaction": (s.choice("hold", "flee"), "hold"),
    "charge_distance": (s.number(0, 30), None),
    "pursue": (s.boolean, True),
    "challenge": (s.choice(*CHALLENGE), "never"),
    "accept": (s.choice(*ACCEPT), "always"),
    **{f"{side}_{key}": (s.choice(*values), None) for side in ("attacker", "defender")
       for key, values in (("challenge", CHALLENGE), ("accept", ACCEPT))},
}

RULES = {
    "supporting_attacks": (s.choice("8e", "resurrection"), "8e"),
    "refusal": (s.choice("8e", "no_penalty"), "8e"),  # R2-4: a refused challenge
    "same_strike_order": (s.choice("simultaneous", "initiative"), "simultaneous"),  # R2-6
    "battle_standard_rerolls": (s.choice("all", "break"), "all"),  # R2-7, R2-12, R2-13
    "disrupted_steadfast": (s.boolean, True),  # R2-11, R2-12
}

def _killing_blow(value, where: s.Where) -> str:
    return s.choice("man-sized", "any")(value, where)


ATTACK_KEYS = {  # a special rule's or a weapon's effects on its bearer's attack dice (R2-7 ... R2-9)
    "reroll_hit": (reroll, None),
    "reroll_wound": (reroll, None),
    "hit_modifier": (s.integer(-3, 3), 0),
    "wound_modifier": (s.integer(-3, 3), 0),
    "hits_on": (s.integer(2, 6), None),
    "wounds_on": (s.integer(2, 6), None),
    "poisoned": (s.boolean, False),
    "killing_blow": (_killing_blow, None),
    "armour_piercing": (s.integer(0, 6), 0),
    "ignores_armour": (s.boolean, False),
    "flaming": (s.boolean, False),
    "enemy_rerolls_armour": (s.boolean, False),
    "multiple_wounds": (dice, None),
}

RULE_KEYS = {  # data/whfb8/special_rules.toml
    "strikes_first": (s.boolean, False),
    "strikes_last": (s.boolean, False),
    "extra_rank": (s.boolean, False),
    "extra_attacks": (s.integer(0, 5), 0),
    "random_attacks": (dice, None),
    "impact_hits": (dice, None),
    "stomp": (dice, None),
    **ATTACK_KEYS,
    "regeneration": (s.integer(2, 6), None),
    "reroll_armour": (reroll, None),
    "reroll_ward": (reroll, None),
    "causes_fear": (s.boolean, False),
    "frenzy": (s.boolean, False),
    "stubborn": (s.boolean, False),
    "unbreakable": (s.boolean, False),
    "swiftstride": (s.boolean, False),
    "immune_to_psychology": (s.boolean, False),
    "cold_blooded": (s.boolean, False),
    "unstable": (s.boolean, False),
    "daemonic_instability": (s.boolean, False),
    "strength_in_numbers": (s.boolean, False),
    "when": (s.choice("always", "first round", "charging"), "always"),
}


@dataclass(frozen=True, kw_only=True)
class AttackEffects:
    """The effects of ATTACK_KEYS on a bearer's attack dice: a special rule's, a weapon's, or
    several stacked (:func:`odds.rulesets.whfb8.attack.striking`)."""

    reroll_hit: str | None = None
    reroll_wound: str | None = None
    hit_modifier: int = 0
    wound_modifier: int = 0
    hits_on: int | None = None
    wounds_on: int | None = None
    poisoned: bool = False
    killing_blow: str | None = None
    armour_piercing: int = 0
    ignores_armour: bool = False
    flaming: bool = False
    enemy_rerolls_armour: bool = False
    multiple_wounds: tuple | None = None


@dataclass(frozen=True)
class SpecialRule(AttackEffects):
    """One special rule's effects (data/whfb8/special_rules.toml, or the scenario's own)."""

    name: str
    strikes_first: bool = False
    strikes_last: bool = False
    extra_rank: bool = False
    extra_attacks: int = 0
    random_attacks: tuple | None = None
    impact_hits: tuple | None = None
    stomp: tuple | None = None
    regeneration: int | None = None
    reroll_armour: str | None = None
    reroll_ward: str | None = None
    causes_fear: bool = False
    frenzy: bool = False
    stubborn: bool = False
    unbreakable: bool = False
    swiftstride: bool = False
    immune_to_psychology: bool = False
    cold_blooded: bool = False
    unstable: bool = False
    daemonic_instability: bool = False
    strength_in_numbers: bool = False
    when: str = "always"


ROUND_KEYS = ("extra_attacks", *ATTACK_KEYS, "regeneration", "reroll_armour", "reroll_ward")


def special_rules(scenario) -> dict[str, SpecialRule]:
    """The bundled special rules, overridden and extended by the scenario's [special_rules]."""
    return {name: SpecialRule(name, **spec) for name, spec in
            rule_table("whfb8", scenario, RULE_KEYS, ROUND_KEYS).items()}


def group_rules(group, table: dict[str, SpecialRule]) -> list[SpecialRule]:
    """The special rules a model group names, in its order (``table``: special_rules())."""
    return [table[name] for name in group.options["rules"]]


EQUIPMENT_KEYS = {
    "strength_bonus": (s.integer(0, 9), 0),
    "first_round_strength": (s.integer(0, 9), 0),
    "charge_strength": (s.integer(0, 9), 0),
    "extra_rank": (s.boolean, False),
    "extra_attack": (s.integer(0, 5), 0),
    "strikes_last": (s.boolean, False),
    "mounted_only": (s.boolean, False),
    "armour": (s.integer(1, 6), None),
    "armour_bonus": (s.integer(0, 5), 0),
    "parry": (s.boolean, False),
    "points": (s.number(0), 0),
    **ATTACK_KEYS,
}


ARMOUR_KEYS = ("mounted_only", "armour", "armour_bonus", "parry", "points")


@dataclass(frozen=True)
class Equipment(AttackEffects):
    """A weapon or an item of armour and its effects (R2-9, R2-10)."""

    name: str
    strength_bonus: int = 0
    first_round_strength: int = 0
    charge_strength: int = 0
    extra_rank: bool = False
    extra_attack: int = 0
    strikes_last: bool = False
    mounted_only: bool = False
    armour: int | None = None
    armour_bonus: int = 0
    parry: bool = False
    points: float = 0

    @property
    def is_weapon(self) -> bool:
        """A weapon other than the plain hand weapon every model has (R2-10): it changes how
        its bearer fights."""
        return any(getattr(self, key) != default for key, (_, default) in EQUIPMENT_KEYS.items()
                   if key not in ARMOUR_KEYS)


HAND_WEAPON = Equipment("hand weapon")


def equipment(scenario) -> dict[str, Equipment]:
    """The bundled weapons and armour, overridden and extended by the scenario's [weapons]."""
    table = {}
    path = str(data_path("whfb8", "weapons.toml"))
    bundled = load_table("whfb8", "weapons.toml")
    for section in ("weapons", "armour"):
        for name, spec in bundled.get(section, {}).items():
            table[name] = Equipment(name, **s.fields(spec, EQUIPMENT_KEYS,
                                                     s.Where(path, section) / name))
    for name, spec in own_entries(scenario, EQUIPMENT_KEYS).items():
        table[name] = Equipment(name, **spec)
    return table


def fighting_weapon(group, table: dict[str, Equipment]) -> Equipment:
    """The weapon the group fights with for the whole combat (R2-10): ``fights_with``, else
    its one special weapon, else the hand weapon."""
    if group.options["fights_with"] is not None:
        return table[group.options["fights_with"]]
    special = [table[n] for n in group.equipment if table[n].is_weapon]
    return special[0] if special else HAND_WEAPON


def charts() -> tuple[list[list[int]], list[list[int]]]:
    """The WS chart and the S-vs-T chart (R2-7, R2-8); ``NO_SAVE`` stands for "N"."""
    to_hit, to_wound = d6_charts("whfb8", "to_hit", "to_wound")
    return to_hit, to_wound


def points(scenario, which: str) -> float | None:
    """A side's points: each model's ``points`` plus its equipment's, over all its units'
    groups; None if none are given (:func:`check` refuses points on only some groups)."""
    groups = [g for u in scenario.side(which).every_unit for g in u.models]
    if groups[0].options["points"] is None:
        return None
    table = equipment(scenario)
    return sum(g.count * (g.options["points"] + sum(table[n].points for n in g.equipment))
               for g in groups)


def _check_points(scenario, which: str) -> None:
    given = [(g.options["points"] is not None, where / "models" / j / "points")
             for unit, where in scenario.unit_wheres(which) for j, g in enumerate(unit.models)]
    if any(ok for ok, _ in given) and not all(ok for ok, _ in given):
        missing = next(w for ok, w in given if not ok)
        raise missing.error("is required when another group of the side gives points "
                            "(a side's points are every model's)")


def check(scenario) -> None:
    """Cross-field checks: equipment known and usable, rules known, reactions; sides of
    several units and heroes (:func:`odds.rulesets.whfb8.units.check`)."""
    from odds.rulesets.whfb8 import units

    table = equipment(scenario)
    known = special_rules(scenario)
    for key in ("attacker", "defender"):
        for unit, where in scenario.unit_wheres(key):
            for j, group in enumerate(unit.models):
                if j > 0 and not units.led(scenario):
                    raise (where / "models" / j).error(
                        "a unit has one rank-and-file group: mark a character or champion "
                        "with `character = true` or `champion = true`")
                _check_group(group, table, where / "models" / j)
                _check_rules(group, known, scenario, where / "models" / j / "rules")
        _check_points(scenario, key)
    units.check_charges(scenario)
    if units.led(scenario):
        units.check(scenario, lambda group: [known[name] for name in group.options["rules"]])
    e = scenario.engagement
    if e["reaction"] == "flee" and e["charge_distance"] is None:
        raise s.Where(scenario.source, "engagement.charge_distance").error(
            "is required when reaction = 'flee' (inches between the units, R2-2)")


def _check_rules(group, known: dict, scenario, where: s.Where) -> None:
    """The group's rules are in ``known`` (the scenario's special rules) and fit its
    reaction."""
    for i, name in enumerate(group.options["rules"]):
        if name not in known:
            raise unknown_name(name, known, where / i, "`odds weapons whfb8` lists them",
                               kind="special rule")
    chosen = [known[name] for name in group.options["rules"]]
    if any(r.immune_to_psychology for r in chosen) and \
            scenario.engagement["reaction"] == "flee" and group in _charged(scenario).models:
        raise s.Where(scenario.source, "engagement.reaction").error(
            "a unit Immune to Psychology may not flee as a charge reaction (it holds)")


def _charged(scenario):
    return scenario.side("defender" if scenario.engagement["charger"] == "attacker"
                         else "attacker")


def _check_group(group, table: dict[str, Equipment], where: s.Where) -> None:
    on_mount = mounted(group)
    for j, name in enumerate(group.equipment):
        if name not in table:
            raise unknown_name(name, table, where / "equipment" / j, "`odds weapons whfb8` lists them",
                               kind="weapon or armour")
        if table[name].mounted_only and not on_mount:
            raise (where / "equipment" / j).error(
                f"{name!r} is for mounted models only (a mounted troop_type, e.g. 'cavalry')")
    s.once_each(group.equipment, where / "equipment")  # a second shield is not +2 (R2-9)
    if on_mount and group.options["mount"] is None:
        raise (where / "mount").error(
            f"is required for {group.options['troop_type']} (the steed's WS, S, I, A)")
    if not on_mount and group.options["mount"] is not None:
        raise (where / "mount").error(
            "only a mounted troop_type (e.g. 'cavalry') has a mount")
    choice = group.options["fights_with"]
    if choice is not None and choice != HAND_WEAPON.name and choice not in group.equipment:
        raise (where / "fights_with").error(
            f"must be one of the group's equipment or 'hand weapon', got {choice!r}")
    if choice is not None and choice in table and not (table[choice].is_weapon
                                                       or choice == HAND_WEAPON.name):
        raise (where / "fights_with").error(f"{choice!r} is armour, not a weapon")
    special = [n for n in group.equipment if table[n].is_weapon]
    if choice is None and len(special) > 1:
        raise (where / "fights_with").error(
            f"the group carries several weapons ({', '.join(special)}): say which it fights "
            f"with (R2-10: one weapon for the whole combat)")


def catalogues() -> list[Section]:
    """What a scenario may name: the bundled weapons and armour, special rules and troop
    types."""
    armour = load_table("whfb8", "weapons.toml").get("armour", {})
    return [Section("weapons and armour", "group", "equipment", equipment(NO_OWN),
                    EQUIPMENT_KEYS, kind=lambda name, e: "armour" if name in armour
                    else "weapon"),
            Section("special rules", "group", "rules", special_rules(NO_OWN), RULE_KEYS,
                    own="special_rules"),
            Section("troop types", "group", "troop_type", troop_types(), TROOP_KEYS, own=None)]
