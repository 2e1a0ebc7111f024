"""Mordheim scenario schema, weapons, dice charts and warriors (README.md here)."""
from __future__ import annotations

from dataclasses import dataclass

from odds.core import schema as s
from odds.core.catalogue import (NO_OWN, Section, active_rules, catalogue, rule_table,
                                 unknown_name)
from odds.core.charts import NEVER, d6_charts
from odds.core.data import data_path, load_table
from odds.core.effects import reroll, strongest_reroll

MAX_WARRIORS = 20  # per side: a whole warband at most
NO_SAVE = NEVER  # a "7+" roll: never made (no armour, or "N" on the to-wound chart)
KINDS = ("weapon", "buckler", "shield", "armour", "helmet")

PROFILE = {key: (s.integer(lo, hi), s.REQUIRED) for key, lo, hi in (
    ("M", 0, 12), ("WS", 1, 10), ("BS", 0, 10), ("S", 1, 10), ("T", 1, 10), ("W", 1, 10),
    ("I", 1, 10), ("A", 1, 10), ("Ld", 2, 12))}

GROUP_KEYS = {
    "causes_fear": (s.boolean, False),   # R1-6
    "mounted": (s.boolean, False),       # R1-10: lance, spear charge bonus
    "rules": (s.distinct_names, []),     # skills and special rules (special_rules.toml)
}

SIDE_KEYS: dict = {}


def _contacts(value, where: s.Where) -> list[list[str]]:
    if not isinstance(value, (list, tuple)) or not value:
        raise where.error("must list [attacker warrior, defender warrior] pairs")
    pairs = []
    for i, pair in enumerate(value):
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
            raise (where / i).error(f"must be [attacker warrior, defender warrior], got {pair!r}")
        pair = [s.text(pair[0], where / i / 0), s.text(pair[1], where / i / 1)]
        if pair in pairs:
            raise (where / i).error(f"{pair!r} is listed twice (first at [{pairs.index(pair)}])")
        pairs.append(pair)
    return pairs


ENGAGEMENT = {
    "charger": (s.choice("attacker", "defender"), "attacker"),
    "contacts": (_contacts, None),  # default: every warrior touches every enemy (R1-1)
    "all_alone": (s.boolean, True),  # R1-11
}

WEAPON_KEYS = {
    "kind": (s.choice(*KINDS), "weapon"),
    "strength_bonus": (s.integer(-3, 5), 0),
    "strength": (s.integer(0, 10), 0),
    "heavy": (s.boolean, False),
    "save_modifier": (s.integer(-6, 3), 0),
    "concussion": (s.boolean, False),
    "parry": (s.boolean, False),
    "strike_first": (s.boolean, False),
    "strikes_last": (s.boolean, False),
    "two_handed": (s.boolean, False),
    "unwieldy": (s.boolean, False),
    "difficult": (s.boolean, False),
    "single_attack": (s.boolean, False),
    "once_per_combat": (s.boolean, False),
    "crit_on": (s.integer(2, 6), 6),
    "mounted_charge_bonus": (s.integer(0, 5), 0),
    "mounted_only": (s.boolean, False),
    "save": (s.integer(2, 7), NO_SAVE),
    "save_bonus": (s.integer(0, 3), 0),
    "avoid_stun": (s.integer(2, 7), NO_SAVE),
}


@dataclass(frozen=True)
class Weapon:
    """One item of equipment (R1-10); the fields are WEAPON_KEYS."""

    name: str
    kind: str = "weapon"
    strength_bonus: int = 0
    strength: int = 0
    heavy: bool = False
    save_modifier: int = 0
    concussion: bool = False
    parry: bool = False
    strike_first: bool = False
    strikes_last: bool = False
    two_handed: bool = False
    unwieldy: bool = False
    difficult: bool = False
    single_attack: bool = False
    once_per_combat: bool = False
    crit_on: int = 6
    mounted_charge_bonus: int = 0
    mounted_only: bool = False
    save: int = NO_SAVE
    save_bonus: int = 0
    avoid_stun: int = NO_SAVE

    def hit_strength(self, user_s: int, first_round: bool, charging_mounted: bool,
                     skill_bonus: int = 0) -> int:
        """The Strength of a blow (R1-3, R1-10): fixed, or the user's plus his skills'
        ``skill_bonus`` (Mighty Blow), plus the weapon's bonuses, 1..10."""
        value = self.strength or user_s + skill_bonus
        if not self.heavy or first_round:
            value += self.strength_bonus
        if charging_mounted:
            value += self.mounted_charge_bonus
        return max(1, min(10, value))


RULE_KEYS = {  # data/mordheim/special_rules.toml, and a scenario's [special_rules."name"]
    "strength_bonus": (s.integer(-3, 5), 0),
    "reroll_hit": (reroll, None),
    "reroll_wound": (reroll, None),
    "crit_on": (s.integer(2, 6), 6),
    "critical_modifier": (s.integer(-3, 3), 0),
    "injury_modifier": (s.integer(-3, 3), 0),
    "enemy_strength_modifier": (s.integer(-3, 3), 0),
    "special_save": (s.integer(2, 6), None),
    "strike_first": (s.boolean, False),
    "ignores_strikes_last": (s.boolean, False),
    "causes_fear": (s.boolean, False),
    "frenzy": (s.boolean, False),
    "immune_to_psychology": (s.boolean, False),
    "when": (s.choice("always", "first round", "charging"), "always"),
}
ROUND_KEYS = ("strength_bonus", "reroll_hit", "reroll_wound")  # the keys `when` may limit


@dataclass(frozen=True, kw_only=True)
class Skills:
    """The effects of a skill or special rule (the fields are RULE_KEYS but ``when``), or of
    a warrior's rules in force in one round stacked (:func:`in_force`) as
    :mod:`odds.core.effects` says: modifiers add, re-rolls do not stack, the lowest critical
    range and the best special save apply, yes/no effects hold if any rule gives them."""

    strength_bonus: int = 0
    reroll_hit: str | None = None
    reroll_wound: str | None = None
    crit_on: int = 6
    critical_modifier: int = 0
    injury_modifier: int = 0
    enemy_strength_modifier: int = 0
    special_save: int | None = None  # stacked: NO_SAVE when none
    strike_first: bool = False
    ignores_strikes_last: bool = False
    causes_fear: bool = False
    frenzy: bool = False
    immune_to_psychology: bool = False


@dataclass(frozen=True)
class SpecialRule(Skills):
    """One skill or special rule (data/mordheim/special_rules.toml, or the scenario's own)."""

    name: str
    when: str = "always"


def in_force(rules, first_round: bool, charging: bool) -> Skills:
    """The stacked effects of ``rules`` in one round: ``first_round`` of the combat, and
    ``charging`` if the warrior's side charged."""
    on = active_rules(rules, first_round, charging)
    return Skills(
        strength_bonus=sum(r.strength_bonus for r in on),
        reroll_hit=strongest_reroll([r.reroll_hit for r in on]),
        reroll_wound=strongest_reroll([r.reroll_wound for r in on]),
        crit_on=min([r.crit_on for r in on] + [6]),
        critical_modifier=sum(r.critical_modifier for r in on),
        injury_modifier=sum(r.injury_modifier for r in on),
        enemy_strength_modifier=sum(r.enemy_strength_modifier for r in on),
        special_save=min([r.special_save for r in on if r.special_save] + [NO_SAVE]),
        **{key: any(getattr(r, key) for r in on) for key in (
            "strike_first", "ignores_strikes_last", "causes_fear", "frenzy",
            "immune_to_psychology")})


def special_rules(scenario) -> dict[str, SpecialRule]:
    """The bundled skills and special rules, overridden and extended by the scenario's
    [special_rules]."""
    return {name: SpecialRule(name, **spec) for name, spec in
            rule_table("mordheim", scenario, RULE_KEYS, ROUND_KEYS).items()}


@dataclass(frozen=True)
class Warrior:
    """One individual (R1-1): profile, the weapons he strikes with, armour and flags."""

    name: str
    side: int               # 0 attacker, 1 defender
    profile: dict
    weapons: tuple          # (main hand,) or (main hand, off hand); fist if unarmed (R1-3)
    save: int               # armour save roll needed incl. shield, NO_SAVE if none (R1-8)
    avoid_stun: int         # helmet save, NO_SAVE if none (R1-8)
    parry_items: int        # swords and bucklers carried (R1-5)
    causes_fear: bool       # the group's causes_fear or a rule's (Fearsome)
    mounted: bool
    rules: tuple = ()       # his SpecialRules, in the group's order

    def skills(self, first_round: bool, charger: int) -> Skills:
        """His rules in force in a round (``charger``: the side that charged, 0 or 1)."""
        return in_force(self.rules, first_round, first_round and self.side == charger)

    def blow_strength(self, weapon: Weapon, first_round: bool, charger: int) -> int:
        """The Strength of his blows with ``weapon`` in a round (R1-7, R1-10)."""
        charging = first_round and self.side == charger
        return weapon.hit_strength(self.profile["S"], first_round, charging and self.mounted,
                                   self.skills(first_round, charger).strength_bonus)


def weapons(scenario) -> dict[str, Weapon]:
    """The bundled equipment, overridden and extended by the scenario's ``[weapons]``."""
    entries = catalogue(("mordheim", "weapons.toml"), scenario, WEAPON_KEYS)
    return {name: Weapon(name, **spec) for name, spec in entries.items()}


def charts() -> tuple[list[list[int]], list[list[int]], list[int]]:
    """to_hit, to_wound (NO_SAVE for "N") and the save modifier by Strength (R1-4, R1-7, R1-8)."""
    table = load_table("mordheim", "charts.toml")
    where = s.Where(str(data_path("mordheim", "charts.toml")), "")
    to_hit, to_wound = d6_charts("mordheim", "to_hit", "to_wound")
    mods = table.get("save_modifier_by_strength")
    if not (isinstance(mods, list) and len(mods) == 10):
        raise (where / "save_modifier_by_strength").error("must list 10 entries (S 1..10)")
    return to_hit, to_wound, [s.integer(0, 6)(v, where / "save_modifier_by_strength" / i)
                            for i, v in enumerate(mods)]


def warrior_names(side) -> list[str]:
    """Each warrior's name: the group's, numbered ``name 1``, ``name 2`` ... if count > 1
    (:func:`check` refuses a side where two warriors would get the same name)."""
    return [g.name if g.count == 1 else f"{g.name} {k + 1}"
            for g in side.models for k in range(g.count)]


def warriors(scenario) -> list[Warrior]:
    """Every warrior, attackers first, in the order listed (the allocation order, R1-3)."""
    table = weapons(scenario)
    known = special_rules(scenario)
    out = []
    for side_index, key in enumerate(("attacker", "defender")):
        side = scenario.side(key)
        names = iter(warrior_names(side))
        for group in side.models:
            items = [table[n] for n in group.equipment]
            hands = tuple(w for w in items if w.kind == "weapon") or (table["fist"],)
            armour = min((w.save for w in items if w.kind == "armour"), default=NO_SAVE)
            bonus = sum(w.save_bonus for w in items if w.kind == "shield")
            save = armour - bonus  # a shield alone: 7 - 1 = 6+ (R1-8)
            chosen = tuple(known[name] for name in group.options["rules"])
            for _ in range(group.count):
                out.append(Warrior(
                    name=next(names), side=side_index, profile=dict(group.profile),
                    weapons=hands, save=max(2, save),
                    avoid_stun=min((w.avoid_stun for w in items), default=NO_SAVE),
                    parry_items=sum(w.parry for w in items),
                    causes_fear=group.options["causes_fear"] or any(
                        r.causes_fear for r in chosen),
                    mounted=group.options["mounted"], rules=chosen))
    return out


def contact_pairs(scenario) -> set[tuple[int, int]]:
    """(attacker index, defender index) pairs in base contact (R1-1), indices per side."""
    names = [warrior_names(scenario.side(k)) for k in ("attacker", "defender")]
    pairs = scenario.engagement["contacts"]
    if pairs is None:
        return {(i, j) for i in range(len(names[0])) for j in range(len(names[1]))}
    return {(names[0].index(a), names[1].index(d)) for a, d in pairs}


def check(scenario) -> None:
    """Cross-field checks: equipment known and carried legally (R1-10), contacts (R1-1)."""
    table = weapons(scenario)
    known = special_rules(scenario)
    for key in ("attacker", "defender"):
        where = scenario.where(key)
        side = scenario.side(key)
        for i, group in enumerate(side.models):
            _check_equipment(group, table, where / "models" / i)
            for j, name in enumerate(group.options["rules"]):
                if name not in known:
                    raise unknown_name(name, known, where / "models" / i / "rules" / j,
                                       "`odds weapons mordheim` lists them", kind="special rule")
        if sum(g.count for g in side.models) > MAX_WARRIORS:
            raise (where / "models").error(f"at most {MAX_WARRIORS} warriors a side (a "
                                           "warband), each simulated on his own")
        _check_names(side, where / "models")
    where = s.Where(scenario.source, "engagement") / "contacts"
    pairs = scenario.engagement["contacts"]
    if pairs is None:
        return
    names = [warrior_names(scenario.side(k)) for k in ("attacker", "defender")]
    for i, pair in enumerate(pairs):
        for k, side in enumerate(("attacker", "defender")):
            if pair[k] not in names[k]:
                raise (where / i / k).error(
                    f"no {side} warrior {pair[k]!r}; {side} warriors: {', '.join(names[k])}")
    for k, side in enumerate(("attacker", "defender")):
        lonely = [n for n in names[k] if all(p[k] != n for p in pairs)]
        if lonely:
            raise where.error(f"{side} warrior {lonely[0]!r} touches no enemy: every warrior "
                              "in the fight must be in base contact with one")


def _check_names(side, where: s.Where) -> None:
    """Warrior names must differ (contacts name warriors): a group "Marksman" of two makes
    "Marksman 1" and "Marksman 2", so no other group may be called "Marksman 1"."""
    groups = [i for i, g in enumerate(side.models) for _ in range(g.count)]
    names = warrior_names(side)
    for k, name in enumerate(names):
        a, b = side.models[groups[names.index(name)]], side.models[groups[k]]
        if a.name != b.name:  # two groups of one name: odds.scenario refuses that itself
            raise (where / groups[k] / "name").error(
                f"two warriors would be named {name!r} (groups {a.name!r} and {b.name!r}): a "
                "group of several models numbers its warriors 'name 1', 'name 2' ...; rename "
                "one group")


def _check_equipment(group, table: dict[str, Weapon], where: s.Where) -> None:
    for j, name in enumerate(group.equipment):
        if name not in table:
            raise unknown_name(name, table, where / "equipment" / j,
                               "`odds weapons mordheim` lists them")
    items = [table[n] for n in group.equipment]
    hand = [w for w in items if w.kind == "weapon"]
    held = hand + [w for w in items if w.kind in ("buckler", "shield")]
    at = where / "equipment"
    for kind in ("armour", "helmet", "buckler", "shield"):
        if sum(w.kind == kind for w in items) > 1:
            raise at.error(f"carries more than one {kind}")
    if len(held) > 2:
        raise at.error(f"{', '.join(w.name for w in held)}: a warrior has two hands (R1-10)")
    for w in hand:
        if w.two_handed and len(held) > 1:
            raise at.error(f"{w.name} is two-handed: no second weapon, shield or buckler")
        if w.unwieldy and len(hand) > 1:
            raise at.error(f"{w.name} is unwieldy: only a shield or buckler in the other hand")
        if w.difficult and (len(hand) > 1 or any(v.kind == "buckler" for v in items)):
            raise at.error(f"{w.name} is difficult to use: no second weapon or buckler")
        if w.mounted_only and not group.options["mounted"]:
            raise at.error(f"{w.name} is a cavalry weapon: the group must be mounted = true")
        if w.single_attack and len(hand) > 1:
            raise at.error(f"{w.name} is for the unarmed only")
    if hand and hand[0].once_per_combat:
        raise at.error(f"{hand[0].name} strikes in hand-to-hand only beside another "
                       "close-combat weapon: list that weapon first (R1-3)")


def catalogues() -> list[Section]:
    """What a scenario may name: the bundled weapons and armour, skills and special rules."""
    return [Section("weapons and armour", "group", "equipment", weapons(NO_OWN), WEAPON_KEYS,
                    kind=lambda name, e: e["kind"]),
            Section("skills and special rules", "group", "rules", special_rules(NO_OWN),
                    RULE_KEYS, own="special_rules")]
