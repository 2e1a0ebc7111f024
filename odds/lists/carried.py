"""What a model carries, as an exported list gives it: equipment matched by name (the
game's table, then odds' own names), weapons read from their profiles (strength texts and
the ``[abilities]`` a rules text is read by), special rules, items bought by the unit, and
how many of an item each model holds. :class:`~odds.lists.reading.Reader` builds on it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from odds.lists.mapping import Mapping
from odds.lists.tree import Profile, Selection

STRENGTH = re.compile(  # "As User", "User x2", "User +2", "'+1", "As user (+2)", "S+1", "x 2"
    r"^'?\s*(?:as\s+)?(?:user|u|s)?\s*\(?\s*(?:(?P<mult>[x×*]\s*\d+)|(?P<bonus>[+-]\s*\d+))?"
    r"\s*\)?$", re.IGNORECASE)
EMPTY = ("", "-", "–", "—")


@dataclass
class Report:
    """What the import could not play (``problems``), left out as no part of a melee
    (``left_out``) and the readings it took (``notes``): one line each, naming the entry."""

    problems: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class Carried:
    """Reads what the selections of one list carry, with one mapping; collects the weapons
    read from profiles and the report."""

    def __init__(self, rules: Mapping, equipment: set[str], special_rules: dict[str, str]):
        self.m = rules
        self.equipment = equipment            # odds' equipment names, as written
        self.special_rules = special_rules    # casefolded -> odds' name
        self.weapons: dict[str, dict] = {}    # weapons read from their profiles
        self.report = Report()

    def _is_stat_line(self, p: Profile) -> bool:
        """A model's stat line: not a mount's, nor a race's maximum ("Human max")."""
        name = p.name.casefold()
        limit = any(name == w.casefold() or name.endswith(" " + w.casefold())
                    for w in self.m.limit_profiles)
        return self.m.has("model_profiles", p.kind) and not self._is_mount(p) and not limit

    def _is_mount(self, p: Profile) -> bool:
        return self.m.has("model_profiles", p.kind) and self.m.has("mounts", p.name)

    def _carried(self, item: Selection, group: dict, equipment: list[str]) -> list[str] | None:
        """What each model of a group carries of an item in its entry: the list counts the
        item over all the entry's models, so N per model is N times its models (a hero's
        two axes); fewer than its models arm that many of them (a group of their own, in a
        game whose units buy per model), or all of them where units buy for every model."""
        n, count = item.number, group["count"]
        if not equipment or n in (0, count) or group["name"].casefold() in self.m.fights_with:
            return equipment  # (the map's [fights_with] then says what they carry)
        if n < count:
            if self.m.unit_items != "number":
                return equipment
            group.setdefault("_some", []).append((item, equipment))
            return []
        if n % count:
            self.problem(item.path, f"{n} of it among {count} models: odds cannot tell who "
                         "carries how many; give what they fight with in a --map file: "
                         f"[fights_with] {_quoted(group['name'])} = [...]")
            return None
        self.report.notes.append(f"{item.path}: {n // count} for each model")
        return equipment * (n // count)

    def _item(self, item: Selection):
        """(odds equipment names, odds rule names) an upgrade gives, or None on a problem."""
        name, key = item.name, item.name.casefold()
        if self.m.has("in_profile", name):
            self.report.notes.append(f"{item.path}: already in the stat line as the list "
                                     "writes it")
            return [], []
        known = self._known(name, item.path)
        if known is not None:  # (and what is inside it: a Gromril Axe's "Gromril Weapon")
            return self._with_inside(item, (known, []))
        if any(self._is_mount(p) for p in item.profiles):  # read by _mount; its barding is
            return self._inside(item)                         # the rider's
        if key in self.m.rules or key in self.special_rules:
            rules = self._rules(item, [name])
            return None if rules is None else ([], rules)
        weapons = [p for p in item.profiles if self.m.has("weapon_profiles", p.kind)
                   or self.m.has("melee_profiles", p.kind)]
        armour = [p for p in item.profiles if self.m.has("armour_profiles", p.kind)]
        worn, unknown = self._by_name(item, armour)
        if weapons:  # ("Lance and Shield": a weapon's profile and an armour's)
            got = self._weapon(item, weapons)
            if got is not None and unknown is not None:
                self.problem(item.path, f"unknown armour {unknown.name!r}: map it in a --map "
                             f"file ([equipment] {_quoted(unknown.name)} = \"odds name\")")
                return None
            return self._with_inside(item, None if got is None else (got[0] + worn, got[1]))
        if armour and unknown is None:  # "Heavy Armor" holding "Heavy Armour"
            return self._with_inside(item, (worn, []))
        rules = [p.name for p in item.profiles if self.m.has("rule_profiles", p.kind)]
        others = [p for p in item.profiles if p.name not in rules
                  and not self.m.has("ignored_profiles", p.kind)]
        if not item.profiles and item.children:  # a choice holding the chosen items
            return self._inside(item)
        if not others and (rules or item.rules):  # a skill or rule taken as an upgrade
            got = self._rules(item, list(dict.fromkeys(rules + item.rules)))
            return None if got is None else ([], got)
        if any(self._is_stat_line(p) for p in others):
            self.problem(item.path, f"{name!r} is a model inside another model's entry (a "
                         f"{others[0].kind} profile): odds plays a model's upgrades, not a "
                         "model it carries; drop it, or give the unit as you want it played "
                         "in the roster")
            return None
        what = f" (a {others[0].kind} profile)" if others else ""
        self.problem(item.path, f"unknown entry {name!r}{what}: map it in a --map file "
                     f"([equipment] {_quoted(name)} = \"odds name\", or \"\" if it plays no "
                     "part in melee; `odds weapons "
                     f"{self.m.ruleset}` lists the names)")
        return None

    def _by_name(self, item: Selection, profiles: list[Profile]):
        """(odds equipment of the profiles, each known by its name; the first profile odds
        does not know, or None)."""
        worn = []
        for p in profiles:
            known = self._known(p.name, f"{item.path} > {p.name}")
            if known is None:
                return [], p
            worn += known
        return worn, None

    def _with_inside(self, item: Selection, got):
        """An item's own (equipment, rules) with those of the items inside it."""
        inside = self._inside(item) if got is not None else None
        return None if inside is None else (got[0] + inside[0], got[1] + inside[1])

    def _inside(self, item: Selection):
        """(equipment, rules) of the items inside an item, or None on a problem."""
        equipment, rules = [], []
        for child in item.children:
            got = self._item(child)
            if got is None:
                return None
            equipment += got[0]
            rules += got[1]
        return equipment, rules

    def _known(self, name: str, where: str) -> list[str] | None:
        """The odds equipment a name is (the mapping's table, then odds' own names), or None
        for a name odds does not know."""
        key = name.strip().casefold()
        if key in self.m.equipment:
            given = self.m.equipment[key]
            if not given:
                self.report.left_out.append(f"{where}: plays no part in melee")
            return given
        own = [e for e in self.equipment if e.casefold() == key]
        return own or None

    def _weapon(self, item: Selection, profiles: list[Profile]):
        equipment = []
        for p in profiles:
            known = self._known(p.name, f"{item.path} > {p.name}")
            if known is not None:  # "Laspistol & CCW": two profiles, each a weapon odds knows
                equipment += known
                continue
            values = {k.casefold(): v.strip() for k, v in p.values.items()}
            melee = self.m.has("melee_profiles", p.kind) or self.m.has(
                "melee_ranges", values.get(self.m.range.casefold(), ""))
            kind = values.get(self.m.type.casefold(), "") if self.m.type else ""
            if not melee and self.m.pistol and any(
                    kind.casefold().startswith(t.casefold()) for t in self.m.pistol_types):
                equipment.append(self.m.pistol)
                self.report.notes.append(f"{item.path}: {p.name!r} plays as odds' "
                                         f"{self.m.pistol!r} in close combat")
                continue
            if not melee:
                self.report.left_out.append(f"{item.path}: {p.name!r} is a shooting weapon "
                                            "(no part in melee)")
                continue
            strength = values.get(self.m.strength.casefold(), "")
            read = _strength(strength)
            effects, unread = self._abilities(p)
            if unread or read is None:
                why = (f"its {self.m.special[0] if self.m.special else 'text'} says "
                       f"{', '.join(map(repr, unread))}, which odds does not read (an "
                       f"[abilities] entry of a --map file reads it)" if unread
                       else f"its strength {strength!r} is not a form odds reads")
                self.problem(item.path, f"unknown close-combat weapon {p.name!r}: {why}; or "
                             f"map the weapon in a --map file: [equipment] "
                             f"{_quoted(item.name)} = \"odds weapon\" (`odds weapons "
                             f"{self.m.ruleset}` lists them)")
                return None
            weapon = {**self.m.read_weapon, **read, **effects}
            name, k = p.name.strip().lower(), 1
            while self.weapons.get(name, weapon) != weapon:  # two "Claws" of two strengths
                k += 1
                name = f"{p.name.strip().lower()} ({k})"
            self.weapons[name] = weapon
            equipment.append(name)
            self.report.notes.append(f"{item.path}: {p.name!r} read from its profile as "
                                     f"{_described(self.weapons[name])} (strength "
                                     f"{strength!r})")
        return equipment, []

    def _abilities(self, p: Profile) -> tuple[dict, list[str]]:
        """A weapon's rules text read by the mapping's ``[abilities]``, part by part ("Two
        handed, Strike last"; a page reference in brackets dropped): the weapon keys they
        give, and the parts odds does not read."""
        effects, unread = {}, []
        for column, text in p.values.items():
            if not self.m.has("special", column):
                continue
            for part in re.split(r"[,;.]", text):
                key = re.sub(r"\s*\([^)]*\)", "", part).strip().casefold()
                if key in EMPTY:
                    continue
                if key in self.m.abilities:
                    effects.update(self.m.abilities[key])
                else:
                    unread.append(part.strip())
        return effects, unread

    def _unit_items(self, items: list[Selection], groups: list[dict]) -> None:
        """Upgrades taken by the unit, not by a model: every model carries them (a unit's
        weapon bought once, its armour); rules and flags as the mapping says."""
        total = sum(g["count"] for g in groups)
        for item in items:
            got = self._item(item)
            if got is None:  # (a problem: the next items are read too, so each is said)
                continue
            equipment, rules = got
            if equipment and self.m.unit_items == "number" and 0 < item.number < total \
                    and not self.m.has("unit_wargear", item.name):
                self._split(item, equipment, groups)
                continue
            for group in groups:
                group["equipment"] = group["equipment"] + [e for e in equipment
                                                           if e not in group["equipment"]]
                if rules:
                    group["rules"] = list(dict.fromkeys(group.get("rules", []) + rules))
            if equipment and len(groups) > 1:
                self.report.notes.append(f"{item.path}: taken by the unit, so every model "
                                         f"carries it ({', '.join(equipment)})")

    def _split(self, item: Selection, equipment: list[str], groups: list[dict],
               largest: dict | None = None) -> None:
        """``number`` models carry an item: they are taken out of its group (for a
        unit-level item, the unit's largest ordinary group) as a group of their own. More
        than the group still has (another item took the rest) is a problem: the list does
        not say which models carry which."""
        plain = [g for g in groups if not g.get("character") and not g.get("champion")]
        largest = largest or max(plain or groups, key=lambda g: g["count"])
        n = item.number
        if n > largest["count"] or largest.get("_split"):
            self.problem(item.path, f"{n} of it, besides another item bought for some of "
                         "the unit's models: the list does not say which models carry which; "
                         "give the unit as you want it played in the roster (odds import -o), "
                         "or drop it")
            return
        if n == largest["count"]:
            largest["equipment"] = largest["equipment"] + equipment
        else:
            spent = largest["_spent"]
            share = None if spent is None else spent * n / largest["count"]
            largest["count"] -= n
            largest["_spent"] = None if spent is None else spent - share
            groups.append({**largest, "name": f"{largest['name']} with {item.name}",
                           "count": n, "equipment": largest["equipment"] + equipment,
                           "_spent": share, "_split": True})
        self.report.notes.append(f"{item.path}: {n} of the unit's models carry it; odds "
                                 f"plays them as their own group (which models carry it, "
                                 "the list does not say)")

    def _hands(self, group: dict, where: str) -> None:
        """The order a group's equipment is listed in: as the list has it, with the mapping's
        ``off_hand`` items (a mordheim pistol) after the others; or the map's
        ``[fights_with]`` for the group, instead of what the list gives it."""
        chosen = self.m.fights_with.get(group["name"].casefold())
        if chosen is not None:
            self.report.notes.append(f"{where}: fights with {', '.join(chosen) or 'nothing'} "
                                     f"([fights_with]; the list gives "
                                     f"{', '.join(group['equipment']) or 'nothing'})")
            group["equipment"] = list(chosen)
            return
        group["equipment"] = sorted(group["equipment"],
                                    key=lambda e: self.m.has("off_hand", e))

    def _rules(self, sel: Selection, names: list[str]) -> list[str] | None:
        """odds' names of the rules, or None when one is unknown (each one said)."""
        out, known = [], True
        for name in names:
            key = name.strip().casefold()
            # "Detachment (FAQ'ed)", "Hatred (High Elves)": the name without its note
            bare = re.sub(r"\s*\([^)]*\)\s*$", "", key)
            if key not in self.m.rules and key not in self.special_rules:
                key = bare
            if key in self.m.rules:
                if self.m.rules[key]:
                    out.append(self.m.rules[key])
                else:
                    self.report.left_out.append(f"{sel.path}: rule {name!r} plays no part "
                                                "in melee as odds plays it")
            elif key in self.special_rules:
                out.append(self.special_rules[key])
            else:
                self.problem(sel.path, f"unknown special rule {name!r}: map it in a --map "
                             f"file ([rules] {_quoted(name)} = \"odds rule\", or \"\" if it "
                             f"plays no part in melee; `odds weapons {self.m.ruleset}` lists "
                             "odds' rules)")
                known = False
        return out if known else None

    def problem(self, where: str, message: str) -> None:
        self.report.problems.append(f"{where}: {message}")


def _strength(text: str) -> dict | None:
    """A melee weapon's strength as written in a list: {} for the user's own, a bonus or a
    multiplier, or None when it says anything else."""
    found = STRENGTH.match(text.strip())
    if not found or not text.strip():
        return None
    if found["mult"]:
        return {"strength_mult": int(re.sub(r"\D", "", found["mult"]))}
    if found["bonus"]:
        bonus = int(found["bonus"].replace(" ", ""))
        return {"strength_bonus": bonus} if bonus else {}
    return {}


def _described(weapon: dict) -> str:
    bonus = weapon.get("strength_bonus")
    if "strength_mult" in weapon:
        said = f"strength x{weapon['strength_mult']}"
    elif isinstance(bonus, int) and not isinstance(bonus, bool):
        said = f"strength {bonus:+d}"
    elif bonus is not None:  # a map's odd value: the roster's check says what is wrong
        said = f"strength_bonus = {bonus!r}"
    else:
        said = "the user's strength"
    rest = {k: v for k, v in weapon.items() if k not in ("strength_mult", "strength_bonus")}
    return said + "".join(f", {k} = {str(v).lower() if isinstance(v, bool) else v}"
                          for k, v in rest.items())


def _quoted(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
