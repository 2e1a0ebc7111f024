"""wh40k3 scenario schema, weapons and dice charts (semantics in README.md here)."""
from __future__ import annotations

from dataclasses import dataclass

from odds.core import schema as s
from odds.core.catalogue import NO_OWN, Section, catalogue, rule_table, unknown_name
from odds.core.charts import NEVER, d6_charts
from odds.core.effects import reroll
from odds.errors import ScenarioError

NO_SAVE = NEVER  # a "7+" roll: never made

PROFILE = {
    "WS": (s.integer(1, 10), s.REQUIRED),
    "S": (s.integer(1, 10), s.REQUIRED),
    "T": (s.integer(1, 10), s.REQUIRED),
    "W": (s.integer(1, 20), s.REQUIRED),
    "I": (s.integer(1, 10), s.REQUIRED),
    "A": (s.integer(1, 10), s.REQUIRED),
    "Ld": (s.integer(1, 10), s.REQUIRED),
    "Sv": (s.integer(2, 6), None),
    "Inv": (s.integer(2, 6), None),
}

GROUP_KEYS = {
    "character": (s.boolean, False),
    "monstrous": (s.boolean, False),
    "rules": (s.distinct_names, []),
    "fights_with": (s.text, None),
    "points": (s.number(0), None),
}

SIDE_KEYS = {  # the keys of a unit: the side's, or each of its [[units]] (R0-13)
    "in_contact": (s.integer(1), None),
    "within_2in": (s.integer(0), None),
    "Ld": (s.integer(1, 10), None),
    "strikes": (s.text, None),
    "engaged": (s.boolean, True),
    "distance": (s.number(0, 24), None),
    "in_cover": (s.boolean, False),
}

ENGAGEMENT = {
    "charger": (s.choice("attacker", "defender"), "attacker"),
    "attacker_in_cover": (s.boolean, False),
    "defender_in_cover": (s.boolean, False),
    "pursue": (s.boolean, True),
    "pile_in": (s.choice("all", "refill"), "all"),
    "pursuit_difficult_terrain": (s.boolean, False),
    "pursuit_halving_affects_catch": (s.boolean, False),
    "charge_distance": (s.number(0, 6), None),
    "charge_through_difficult_terrain": (s.boolean, False),
}

ATTACK_KEYS = {  # effects on the to-hit and to-wound dice (R0-5, R0-7): a rule's or a weapon's
    "reroll_hit": (reroll, None),
    "reroll_wound": (reroll, None),
    "hit_modifier": (s.integer(-3, 3), 0),
    "wound_modifier": (s.integer(-3, 3), 0),
}


def _pair(value, where: s.Where) -> dict:
    """A weapon's ``pair``: the attack effects it adds when the model carries two (the name
    listed twice), only the keys given."""
    checked = s.fields(value, ATTACK_KEYS, where)
    return {key: checked[key] for key in value}


WEAPON_KEYS = {
    "two_weapon": (s.boolean, False),
    "strength_mult": (s.integer(1, 10), 1),
    "strength_bonus": (s.integer(-9, 9), 0),
    "strength_cap": (s.integer(1, 10), 10),
    "ignores_armour": (s.boolean, False),
    "strikes_last": (s.boolean, False),
    "save_cap": (s.integer(2, 6), None),
    "frag": (s.boolean, False),
    "removed_last": (s.boolean, False),
    **ATTACK_KEYS,
    "pair": (_pair, None),
    "points": (s.number(0), 0),
}

WHEN = ("always", "charging", "charged")

RULE_KEYS = {  # data/wh40k3/special_rules.toml
    "extra_attacks": (s.integer(0, 5), 0),
    "strength_bonus": (s.integer(-9, 9), 0),
    "initiative_bonus": (s.integer(-9, 9), 0),
    **ATTACK_KEYS,
    "fearless": (s.boolean, False),
    "counter_attack": (s.boolean, False),
    "when": (s.choice(*WHEN), "always"),
}

ROUND_KEYS = ("extra_attacks", "strength_bonus", "initiative_bonus", *ATTACK_KEYS)

MAX_GROUPS = 200  # model groups a side: the plan's per-pair arrays grow as groups squared

NORMAL = "none"  # fights_with value: decline every special weapon (R0-2)


@dataclass(frozen=True)
class Weapon:
    """One close-combat weapon or item of wargear and its effects (R0-3, R0-4, R0-8, R0-9)."""

    name: str
    two_weapon: bool = False
    strength_mult: int = 1
    strength_bonus: int = 0
    strength_cap: int = 10
    ignores_armour: bool = False
    strikes_last: bool = False
    save_cap: int | None = None
    frag: bool = False
    removed_last: bool = False
    reroll_hit: str | None = None
    reroll_wound: str | None = None
    hit_modifier: int = 0
    wound_modifier: int = 0
    pair: dict | None = None
    points: float = 0

    @property
    def special(self) -> bool:
        """Used only in base contact (R0-2): it changes S, saves, strike order or the dice."""
        return (self.strength_mult != 1 or self.strength_bonus != 0 or self.ignores_armour
                or self.strikes_last or self.save_cap is not None or self.reroll_hit is not None
                or self.reroll_wound is not None or self.hit_modifier != 0
                or self.wound_modifier != 0 or self.pair is not None)

    def strength(self, s_value: int, bonus: int = 0) -> int:
        """S in contact: S x strength_mult + strength_bonus, plus a rule's ``bonus`` (after the
        multiplier, *assumption*), between 1 and strength_cap (R0-7, R0-8)."""
        return max(1, min(self.strength_cap,
                          s_value * self.strength_mult + self.strength_bonus + bonus))


BARE_HANDS = Weapon("none")


def weapons(scenario) -> dict[str, Weapon]:
    """The bundled weapons, overridden and extended by the scenario's ``[weapons]``."""
    entries = catalogue(("wh40k3", "weapons.toml"), scenario, WEAPON_KEYS)
    return {name: Weapon(name, **spec) for name, spec in entries.items()}


@dataclass(frozen=True)
class SpecialRule:
    """One special rule's effects (data/wh40k3/special_rules.toml, or the scenario's own)."""

    name: str
    extra_attacks: int = 0
    strength_bonus: int = 0
    initiative_bonus: int = 0
    reroll_hit: str | None = None
    reroll_wound: str | None = None
    hit_modifier: int = 0
    wound_modifier: int = 0
    fearless: bool = False
    counter_attack: bool = False
    when: str = "always"


def special_rules(scenario) -> dict[str, SpecialRule]:
    """The bundled special rules, overridden and extended by the scenario's [special_rules]."""
    return {name: SpecialRule(name, **spec) for name, spec in
            rule_table("wh40k3", scenario, RULE_KEYS, ROUND_KEYS).items()}


def group_rules(group, table: dict[str, SpecialRule]) -> list[SpecialRule]:
    """The special rules a model group names, in its order."""
    return [table[name] for name in group.options["rules"]]


def active(rules, charging: bool, charged: bool) -> list:
    """The rules in force in a round: ``when`` always, or on the charge for a side that
    charged this round (``charging``) or was charged (``charged``)."""
    return [x for x in rules if x.when == "always" or (x.when == "charging" and charging)
            or (x.when == "charged" and charged)]


def attack_sources(rules, weapon: Weapon, pair: bool) -> list:
    """What changes a model's dice in contact: its active rules, its fighting weapon and, when
    it carries two of the weapon (``pair``), the weapon's ``pair`` effects."""
    both = [SpecialRule(f"pair of {weapon.name}", **weapon.pair)] if pair and weapon.pair else []
    return list(rules) + [weapon] + both


def pair_of(group, weapon: Weapon) -> bool:
    """The group carries its fighting weapon twice (one in each hand)."""
    return group.equipment.count(weapon.name) >= 2


def fighting_weapon(group, table: dict[str, Weapon]) -> Weapon:
    """The weapon a model in base contact fights with (R0-2, README "Fighting weapon")."""
    choice = group.options.get("fights_with")
    if choice == NORMAL:
        return BARE_HANDS
    if choice is not None:
        return table[choice]
    special = [table[name] for name in group.equipment if table[name].special]
    return special[0] if special else BARE_HANDS  # several: the same weapon twice (a pair)


def charts() -> tuple[list[list[int]], list[list[int]]]:
    """The to-hit and to-wound charts of §1.1 (``NO_SAVE`` stands for "N")."""
    to_hit, to_wound = d6_charts("wh40k3", "to_hit", "to_wound")
    return to_hit, to_wound


def points(scenario, which: str) -> float | None:
    """A side's points: each model's ``points`` plus its equipment's; None if none are given."""
    groups = [g for unit in scenario.side(which).every_unit for g in unit.models]
    if all(g.options["points"] is None for g in groups):
        return None
    table = weapons(scenario)
    return sum(g.count * ((g.options["points"] or 0) + sum(table[n].points for n in g.equipment))
               for g in groups)


def check(scenario) -> None:
    """Cross-field checks: weapons known and usable, cover, places, units (R0-1, R0-2, R0-4,
    R0-13)."""
    _check_group_count(scenario)
    table = weapons(scenario)
    known = special_rules(scenario)
    e = scenario.engagement
    charger = e["charger"]
    charged = "defender" if charger == "attacker" else "attacker"
    for key in ("attacker", "defender"):
        enemy = "defender" if key == "attacker" else "attacker"
        units = scenario.unit_wheres(key)
        for unit, where in units:
            for i, group in enumerate(unit.models):
                _check_group(group, table, where / "models" / i)
                _check_rules(group, known, where / "models" / i / "rules")
            _check_counter_attack(unit, known, where)
            _check_places(unit, where)
            _check_unit(unit, where, scenario.side(enemy).every_unit, key == charger)
        _check_fresh(units)
    if e[f"{charger}_in_cover"]:
        raise ScenarioError(f"only the charged side ({charged}) can be defending in cover (R0-4)",
                            scenario.source, f"engagement.{charger}_in_cover")
    if e["charge_through_difficult_terrain"] and e["charge_distance"] is None:
        raise ScenarioError("needs engagement.charge_distance (inches to the enemy)",
                            scenario.source, "engagement.charge_through_difficult_terrain")
    if e["charge_through_difficult_terrain"] and (scenario.attacker.units
                                                  or scenario.defender.units):
        raise ScenarioError("is for a charge of one unit against one: odds does not play a "
                            "charge of several units through difficult terrain",
                            scenario.source, "engagement.charge_through_difficult_terrain")


def _check_rules(group, known: dict[str, SpecialRule], where: s.Where) -> None:
    for i, name in enumerate(group.options["rules"]):
        if name not in known:
            raise unknown_name(name, known, where / i, "`odds weapons wh40k3` lists them",
                               kind="special rule")


def counter_attacks(unit, known: dict[str, SpecialRule]) -> bool:
    """Every model of the unit has Counter-attack (README "Special rules")."""
    return all(any(r.counter_attack for r in group_rules(g, known)) for g in unit.models)


def _check_counter_attack(unit, known: dict[str, SpecialRule], where: s.Where) -> None:
    """Counter-attack is the whole unit's: a model without it (a character that joined the
    unit) takes it away from the rest, and odds asks for it on every group or none."""
    having = [any(r.counter_attack for r in group_rules(g, known)) for g in unit.models]
    if any(having) and not all(having):
        i = having.index(False)
        raise (where / "models" / i / "rules").error(
            f"Counter-attack is a whole unit's rule: give it to every group of the unit or to "
            f"none ({unit.models[i].name!r} has none)")


def _check_places(unit, where: s.Where) -> None:
    """in_contact and within_2in fit the unit (R0-2)."""
    total = sum(g.count for g in unit.models)
    placed = (unit.options["in_contact"] or 0) + (unit.options["within_2in"] or 0)
    if placed > total:
        raise (where / "in_contact").error(
            f"in_contact + within_2in is {placed} but the unit has {total} models")
    if unit.options["within_2in"] and unit.options["in_contact"] is None:
        raise (where / "within_2in").error("needs in_contact too (how many are in contact)")


def _check_unit(unit, where: s.Where, enemies, charging: bool) -> None:
    """strikes names an enemy unit in the fight; a unit waiting out of the fight has its
    distance; only a charged or waiting unit is in cover (R0-4, R0-12, R0-13)."""
    o = unit.options
    names = [u.name for u in enemies]
    if o["strikes"] is not None:
        if o["strikes"] not in names:
            raise (where / "strikes").error(
                f"must name an enemy unit, one of {', '.join(map(repr, names))}; got "
                f"{o['strikes']!r}")
        target = enemies[names.index(o["strikes"])]
        if o["engaged"] and not target.options["engaged"]:
            raise (where / "strikes").error(
                f"{target.name!r} is not in the fight at the start (engaged = false): strike "
                "a unit in the fight; the unit strikes the units that reach it")
    if o["engaged"] and o["distance"] is not None:
        raise (where / "distance").error("is for a unit out of the fight: it needs "
                                         "engaged = false")
    if not o["engaged"] and o["distance"] is None:
        raise (where / "distance").error("is required for a unit with engaged = false "
                                         "(inches from the combat)")
    if o["in_cover"] and charging and o["engaged"]:
        raise (where / "in_cover").error("only a charged unit can be defending in cover "
                                         "(R0-4): this one is charging")


def _check_fresh(units) -> None:
    """A side fights with at least one unit and keeps at most one out of the fight."""
    waiting = [w for u, w in units if not u.options["engaged"]]
    if len(waiting) == len(units):
        raise (units[0][1] / "engaged").error("a side needs at least one unit in the fight "
                                              "(engaged = true) at the start")
    if len(waiting) > 1:
        raise (waiting[1] / "engaged").error(
            "a side may keep at most one unit out of the fight (engaged = false): which one "
            "an advance would reach depends on positions odds does not model")


def _check_group_count(scenario) -> None:
    """At most MAX_GROUPS model groups a side: the plan's per-pair arrays grow as groups
    squared (8 MB at the bound; its shared binomial tables stay under 15 MB whatever the
    groups), so a plan stays far below 1 GB."""
    for key in ("attacker", "defender"):
        groups = sum(len(u.models) for u in scenario.side(key).every_unit)
        if groups > MAX_GROUPS:
            raise ScenarioError(
                f"has {groups} model groups; a side may have at most {MAX_GROUPS} (models with "
                f"the same profile and equipment can be one group with a larger count)",
                scenario.source, f"{key}.{'units' if scenario.side(key).units else 'models'}")


def _check_group(group, table: dict[str, Weapon], where: s.Where) -> None:
    for j, name in enumerate(group.equipment):
        if name not in table:
            raise unknown_name(name, table, where / "equipment" / j, "`odds weapons wh40k3` lists them")
    # a pair of close-combat weapons or pistols (two_weapon) is the two-weapon bonus (R0-3);
    # any other item listed again would only count its points twice
    s.once_each(group.equipment, where / "equipment",
                twice_ok={n for n in group.equipment if table[n].two_weapon})
    choice = group.options.get("fights_with")
    if choice is not None and choice != NORMAL and choice not in group.equipment:
        raise (where / "fights_with").error(
            f"must be one of the group's equipment or {NORMAL!r}, got {choice!r}")
    special = list(dict.fromkeys(n for n in group.equipment if table[n].special))
    if choice is None and len(special) > 1:
        raise (where / "fights_with").error(
            f"the group carries several special weapons ({', '.join(special)}): say which it "
            f"fights with, or {NORMAL!r}")


def catalogues() -> list[Section]:
    """What a scenario may name: the bundled weapons and wargear, and special rules."""
    return [Section("weapons and wargear", "group", "equipment", weapons(NO_OWN), WEAPON_KEYS),
            Section("special rules", "group", "rules", special_rules(NO_OWN), RULE_KEYS,
                    own="special_rules")]
