"""whfb8 sides of several units, characters and champions (README.md here, "Characters,
champions and several units"): who is a hero, which unit charged which, and the checks."""
from __future__ import annotations

from odds.core import charges
from odds.core import schema as s

# the rules of a whole unit: on a character or champion they are an error (they come from
# the rank-and-file)
UNIT_RULE_KEYS = ("causes_fear", "frenzy", "stubborn", "unbreakable", "swiftstride",
                  "immune_to_psychology", "cold_blooded", "strength_in_numbers", "unstable",
                  "daemonic_instability", "extra_rank", "impact_hits", "stomp")

HERO_COLUMNS = ("challenges", "attacker_challenges_won", "defender_challenges_won",
                "attacker_characters_slain", "defender_characters_slain",
                "attacker_champions_slain", "defender_champions_slain")


def is_hero(group) -> bool:
    """A character or a champion: one model with its own profile (R2-4)."""
    return bool(group.options["character"] or group.options["champion"])


def rank_and_file(unit):
    """The unit's rank-and-file group, or None for a unit of characters alone."""
    return next((g for g in unit.models if not is_hero(g)), None)


def heroes(unit) -> list:
    """The unit's characters and champion, in file order."""
    return [g for g in unit.models if is_hero(g)]


def led(scenario) -> bool:
    """Whether the fight has several units a side or a character or champion: it is played
    with the hero columns, else solved by the one-unit exact solver (exact_one) where it
    takes the fight."""
    return heroes_and_units(scenario) is not None


def heroes_and_units(scenario) -> str | None:
    """What makes :func:`led` true, in words ("the attacker has 2 units; the attacker's unit
    'Chaos Warriors' has the character 'Chaos Lord'"), or None."""
    said = []
    for key in ("attacker", "defender"):
        units = scenario.side(key).every_unit
        if len(units) > 1:
            said.append(f"the {key} has {len(units)} units")
        for unit in units:
            heroes = [f"the {'champion' if g.options['champion'] else 'character'} {g.name!r}"
                      for g in unit.models if is_hero(g)]
            if heroes:
                said.append(f"the {key}'s unit {unit.name!r} has {' and '.join(heroes)}")
    return "; ".join(said) or None


def columns(scenario) -> tuple[str, ...]:
    """The challenge and hero columns, for a fight with several units or heroes."""
    return HERO_COLUMNS if led(scenario) else ()


def charger(scenario) -> str:
    return scenario.engagement["charger"]


def charged(scenario) -> str:
    return "defender" if charger(scenario) == "attacker" else "attacker"


def engagements(scenario) -> list[tuple[int, int, str]]:
    """(charging unit, charged unit, face) for every charging unit, in file order (R2-1):
    its ``charges`` unit (else the enemy's first), on its ``facing`` (else the
    engagement's)."""
    enemy = [u.name for u in scenario.side(charged(scenario)).every_unit]
    out = []
    for i, unit in enumerate(scenario.side(charger(scenario)).every_unit):
        target = unit.options["charges"]
        out.append((i, enemy.index(target) if target is not None else 0,
                    unit.options["facing"] or scenario.engagement["facing"]))
    return out


def policy(scenario, side: str, key: str) -> str:
    """A side's challenge or accept policy: its own, else the engagement's."""
    return scenario.engagement[f"{side}_{key}"] or scenario.engagement[key]


def check(scenario, rules_of) -> None:
    """The cross-field checks of a fight with several units or heroes (``rules_of(group)``:
    a group's special rules)."""
    for key in ("attacker", "defender"):
        generals = bearers = 0
        for unit, where in scenario.unit_wheres(key):
            _check_unit(unit, where, rules_of)
            for j, group in enumerate(unit.models):
                generals += group.options["general"]
                bearers += group.options["battle_standard"]
                for what, number in (("general", generals), ("battle_standard", bearers)):
                    if number > 1 and group.options[what]:
                        raise (where / "models" / j / what).error(
                            f"a side has at most one {what.replace('_', ' ')} (a second one)")
        if bearers:
            for unit, where in scenario.unit_wheres(key):
                if unit.options["battle_standard"]:
                    raise (where / "battle_standard").error(
                        "the side has a battle standard bearer among its characters: give "
                        "the battle standard once, on the character or as this unit key")
    e = scenario.engagement
    if e["reaction"] == "flee":
        raise s.Where(scenario.source, "engagement.reaction").error(
            "the flee reaction is not played yet with several units a side or with "
            "characters and champions")


def _check_unit(unit, where: s.Where, rules_of) -> None:
    plain = [j for j, g in enumerate(unit.models) if not is_hero(g)]
    champions = [j for j, g in enumerate(unit.models) if g.options["champion"]]
    if len(plain) > 1:
        raise (where / "models" / plain[1]).error(
            "a unit has one rank-and-file group: mark a character or champion with "
            "`character = true` or `champion = true`, or make it a unit of its own")
    if len(champions) > 1:
        raise (where / "models" / champions[1] / "champion").error(
            "a unit has at most one champion")
    if champions and not plain:
        raise (where / "models" / champions[0] / "champion").error(
            "a champion leads rank-and-file: the unit has none")
    if champions and unit.options["champion"]:
        raise (where / "champion").error(
            "the unit has a champion group: the unit key `champion = true` (a rank-and-file "
            "model with +1 A) and a champion of its own cannot both be given")
    if unit.options["in_contact"] is not None:
        raise (where / "in_contact").error(
            "is not played yet with several units a side or with characters and champions")
    troop = unit.models[plain[0]].options["troop_type"] if plain else None
    for j, group in enumerate(unit.models):
        w = where / "models" / j
        for key in ("unstable", "daemonic_instability"):
            if any(getattr(r, key) for r in rules_of(group)):
                raise (w / "rules").error(
                    "Unstable and Daemonic Instability are not played yet with several units "
                    "a side or with characters and champions")
        if not is_hero(group):
            for key in ("general", "battle_standard"):
                if group.options[key]:
                    raise (w / key).error("is for a character (`character = true`)")
            continue
        if group.options["character"] and group.options["champion"]:
            raise (w / "champion").error("a model is a character or a champion, not both")
        if group.count != 1:
            raise (w / "count").error(f"a character or champion is one model, got {group.count}")
        if group.options["champion"]:
            for key in ("general", "battle_standard"):
                if group.options[key]:
                    raise (w / key).error("is for a character, not a champion")
        if troop is not None and group.options["troop_type"] != troop:
            raise (w / "troop_type").error(
                f"a character or champion has its unit's troop type ({troop!r}), got "
                f"{group.options['troop_type']!r}")
        for i, rule in enumerate(rules_of(group)):
            if any(getattr(rule, key) for key in UNIT_RULE_KEYS):
                raise (w / "rules" / i).error(
                    f"{rule.name!r} acts on a whole unit: give it to the unit's rank-and-file "
                    f"(a character's or champion's own rules act on its attacks, saves and "
                    f"strike order)")


def check_charges(scenario) -> None:
    """``charges`` names an enemy unit and ``facing`` is on the charging side; every charged
    unit is charged (R2-1)."""
    on, off = charger(scenario), charged(scenario)
    enemy = [u.name for u in scenario.side(off).every_unit]
    hit = set()
    for unit, where in scenario.unit_wheres(on):
        charges.check_target(unit.options, where, off, enemy)
        target = unit.options["charges"]
        hit.add(enemy.index(target) if target is not None else 0)
    for i, (unit, where) in enumerate(scenario.unit_wheres(off)):
        charges.check_charged(unit.options, where, on)
        if i not in hit:
            raise charges.uncharged(unit.name, where, on, "combat")
