"""An exported army list read into odds units, with a report of everything not played.

Each unit a force selects (and each unit inside one) is one unit; its model entries, and
the upgrades carrying a stat line, are its model groups (a sergeant or champion is a group
of its own); what they carry is :mod:`odds.lists.carried`'s. What each game writes
differently (profile and characteristic names, how saves, strength and ranges are written,
which names are characters, champions and command) is the
:class:`~odds.lists.mapping.Mapping`; this module only follows it. Nothing is guessed
silently: an entry that cannot be played is a problem (the import fails unless
``skip_unknown``), an entry that plays no part in melee is said to be left out, and every
reading taken is a note.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from odds.lists.carried import EMPTY, Carried, _quoted
from odds.lists.tree import Profile, Selection

SAVE = re.compile(r"^(\d)\+?$")


@dataclass
class Unit:
    table: dict                   # the odds unit table (name, models, unit keys)
    path: str                     # the list entry it came from
    points: float | None          # its cost in the list, if the list gives one
    character: bool = False       # a unit of one character (joinable with [join])


class Reader(Carried):
    """Reads one list's selections with one mapping; collects units, weapons and the report."""

    def __init__(self, rules, equipment: set[str], special_rules: dict[str, str]):
        super().__init__(rules, equipment, special_rules)
        self.defaults_said: set[str] = set()

    # -- units ---------------------------------------------------------------------------
    def unit(self, top: Selection) -> Unit | None:
        where = top.path
        for sel in top.own(self.apart):
            for p in sel.profiles:
                reason = self.m.cannot_play.get(p.kind.casefold())
                if reason:
                    self.problem(where, f"{reason} (profile {p.kind!r}): odds cannot play it")
                    return None
        models = self._model_selections(top)
        if not models:
            if not self._model_profiles(top):
                if not any(self.apart(c) for c in top.walk() if c is not top):
                    self.report.left_out.append(f"{where}: no model in it (plays nothing in "
                                                "melee)")
                return None  # (a holder of units: each is read as a unit of its own)
            models = [top]
        unit_items = [] if top in models else [
            c for c in top.children + self._profile_items(top)
            if c not in models and not self.apart(c) and not self._holds(c, models)]
        champions = [m for m in models if self._is_champion(m, models)]
        before = len(self.report.problems)  # every problem of the unit is reported
        unit_rules = self._rules(top, top.rules)
        groups = [self._group(top, sel, models, champion=sel in champions) for sel in models]
        if None in groups or unit_rules is None:
            return None
        if not self._upgraded_models(top, models, champions, groups):
            return None
        for group in list(groups):  # items of a model entry that arm only some of its models
            for item, equipment in group.pop("_some", []):
                self._split(item, equipment, groups, group)
        table = {"name": top.custom_name or top.name}
        for key, value in self.m.unit_defaults.items():
            table[key] = value
            if key not in self.defaults_said:
                self.defaults_said.add(key)
                self.report.notes.append(f"every unit: {key} = {value!r} (the list does not "
                                         "say; change it in the roster)")
        flagged = []
        for item in unit_items:
            flag = self.m.unit_flags.get(item.name.casefold())
            if flag:
                table[flag] = True
                flagged.append(item)
        rest = [c for c in unit_items if c not in flagged]
        rest += [c for item in flagged for c in item.children]  # a standard's banner
        self._unit_items(rest, groups)
        for group in groups:
            self._hands(group, f"{where} > {group['name']}" if group["name"] != top.name
                        else where)
        for group in groups:
            group.pop("_split", None)
        told_apart(groups)
        if len(self.report.problems) > before:
            return None
        for group in groups:
            group["rules"] = list(dict.fromkeys(unit_rules + group.get("rules", [])))
            if not group["rules"]:
                del group["rules"]
        self._points(top, groups)
        character = (len(groups) == 1 and groups[0]["count"] == 1
                     and self._is_character(top, groups[0]))
        if character:
            groups[0]["character"] = True
        table["models"] = groups
        return Unit(table, where, self._cost(top), character)

    def _model_selections(self, top: Selection) -> list[Selection]:
        """The unit's models: its model entries and the upgrades with a stat line of their
        own (the data sets write a mob's "Slugga Boy" x19 or a squad's "Sergeant" so), not
        looking inside a model, nor into a unit inside (a unit of its own); a standard or
        musician written as a model without a stat line is the unit's flag, not a model.
        An entry with a stat line of its own that holds models of other names is a model
        too: a Wolf Lord with his wolves, a Farseer with Warlocks."""
        def is_model(sel):
            if self._stat_profile(sel) is not None:
                return True
            return sel.kind == "model" and not self.m.unit_flags.get(sel.name.casefold())

        if top.kind == "model" and not any(is_model(c) for c in top.own(self.apart)
                                           if c is not top):
            return [top]
        found = []

        def visit(sel):
            for child in sel.children:
                if self.apart(child):
                    continue
                if is_model(child):
                    found.append(child)
                else:
                    visit(child)
        visit(top)
        found = [m for m in found if m.number > 0]
        own = self._stat_profile(top)
        if found and own is not None:
            theirs = {n.casefold() for m in found
                      for n in [m.name] + [p.name for p in m.profiles if self._is_stat_line(p)]}
            if own.name.casefold() not in theirs and top.name.casefold() not in theirs:
                self.report.notes.append(f"{top.path}: a model of its own beside the models "
                                         f"it holds ({', '.join(m.name for m in found)})")
                return [top] + found
        return found

    def apart(self, sel: Selection) -> bool:
        """Whether a selection inside a unit is a unit of its own: of type unit, holding a
        model (the data sets also type a knight's "Lance and Shield" option unit)."""
        return sel.kind == "unit" and any(
            s.kind == "model" or self._stat_profile(s) is not None for s in sel.walk())

    def _upgraded_models(self, top: Selection, models: list[Selection],
                         champions: list[Selection], groups: list[dict]) -> bool:
        """Models the list gives as upgrades. A champion is one of the unit's models where
        the game counts it so (the rank and file one fewer) and carries their wargear too;
        another such model is one more model of the unit (noted), except in a game with
        champions, where odds cannot tell and asks (a problem)."""
        plain = [g for sel, g in zip(models, groups) if sel not in champions]
        for sel, group in zip(models, groups):
            if sel in champions:
                base = max(plain, key=lambda g: g["count"], default=None)
                if base is None:
                    continue
                if self.m.command_in_count and base["count"] > 1 and sel.kind != "model":
                    base["count"] -= 1  # (an upgrade makes one of them the champion)
                if self.m.command_in_count:
                    group["equipment"] = base["equipment"] + [
                        e for e in group["equipment"] if e not in base["equipment"]]
                continue
            if sel.kind == "model" or sel is top:
                continue
            if self.m.champion_models and sel.number == 1:
                self.problem(sel.path, f"{sel.name!r} is a model bought as an upgrade, which "
                             f"odds' {self.m.ruleset} reads as a unit's champion or a mount: "
                             f"name it in a --map file, in champion_models (champion_models = "
                             f"[{_quoted(sel.name)}, ...], with the bundled names) or, for a "
                             "steed, in mounts; or drop it")
                return False
            self.report.notes.append(f"{sel.path}: {sel.number} model"
                                     f"{'s' if sel.number != 1 else ''} of the unit, though "
                                     "the list writes them as an upgrade")
        return True

    def _holds(self, sel: Selection, models: list[Selection]) -> bool:
        return any(m is not sel and m in list(sel.walk()) for m in models)

    def _model_profiles(self, sel: Selection) -> list[Profile]:
        return [p for s in sel.own(self.apart) for p in s.profiles if self._is_stat_line(p)]

    def _profile_items(self, sel: Selection) -> list[Selection]:
        """A weapon or armour profile written on the unit or model itself, as an item."""
        kinds = ("weapon_profiles", "melee_profiles", "armour_profiles")
        return [Selection(p.name, "upgrade", 0, f"{sel.path} > {p.name}", profiles=[p])
                for p in sel.profiles  # 0: every model's
                if any(self.m.has(kind, p.kind) for kind in kinds)]

    def _stat_profile(self, sel: Selection) -> Profile | None:
        mine = [p for p in sel.profiles if self._is_stat_line(p)]
        return mine[0] if mine else None

    def _is_champion(self, sel: Selection, models: list[Selection]) -> bool:
        """A unit's champion: an upgrade carrying a stat line, or a model entry of one beside
        the rank and file (the whfb8 Dark Elves book types its champions so), whose name
        holds a champion name."""
        if not _named_in(sel.name, self.m.champion_models) or len(models) < 2 \
                or sel.number != 1:
            return False
        return sel.kind != "model" or any(m is not sel and m.number > 1 for m in models)

    def _is_character(self, top: Selection, group: dict) -> bool:
        return any(self.m.has("character_categories", c) for c in top.categories)

    # -- model groups ----------------------------------------------------------------------
    def _group(self, top: Selection, sel: Selection, models: list[Selection],
               champion: bool = False) -> dict | None:
        where = sel.path
        profile = self._stat_profile(sel) or self._unit_profile(top, sel, models)
        if profile is None:
            self.problem(where, "has no stat line odds can find (a profile of type "
                         f"{' or '.join(map(repr, self.m.model_profiles))})")
            return None
        stats = self._stats(profile, where)
        if stats is None:
            return None
        count = sel.number if sel is not top or top.kind == "model" else 1
        group = {"name": sel.custom_name or sel.name, "count": max(count, 1)}
        if champion:
            group["count"] = 1
            group["champion"] = True
        elif _named_in(sel.name, self.m.character_models) or (
                sel is top and len(models) > 1 and self._is_character(top, group)):
            group["character"] = True  # (a lord with his retinue, the lord's group)
        troop = self._troop_type(profile, where)
        if troop is False:
            return None
        if troop:
            group["troop_type"] = troop
        group["profile"] = stats
        mount = self._mount(sel, where)
        if mount is None and sel is not top:  # a regiment's steeds written on the unit
            mount = self._mount(top, where, [m for m in models if m is not top])
        if mount is False:
            return None
        if mount:
            group["mount"] = mount
            if group.get("troop_type") not in self.m.mounted_types:
                group["troop_type"] = self.m.mounted_types[0]
            self.report.notes.append(f"{where}: rides a mount (WS, S, I, A of its profile); "
                                     f"plays as {group['troop_type']}")
        inside = [c for c in sel.children if c not in models and not self.apart(c)
                  and not self._holds(c, models)]
        equipment, rules, failed = [], [], False
        for item in inside + self._profile_items(sel):
            if self.m.group_flags.get(item.name.casefold()):
                group[self.m.group_flags[item.name.casefold()]] = True
                continue
            if item.kind == "model":  # a model inside a model's entry (a champion's hound)
                self.problem(item.path, f"{item.name!r} is a model inside {sel.name!r}'s "
                             "entry: odds plays the models of a unit, not a model one of "
                             "them brings; drop it, or give the unit as you want it played "
                             "in the roster")
                failed = True
                continue
            got = self._item(item)
            carried = None if got is None else self._carried(item, group, got[0])
            if carried is None:
                failed = True  # (the next items are read too, so each problem is said)
                continue
            equipment += carried
            rules += got[1]
        own_rules = self._rules(sel, sel.rules) if sel is not top or len(models) > 1 else []
        if own_rules is None or failed:
            return None
        group["equipment"] = equipment
        if rules + own_rules:
            group["rules"] = list(dict.fromkeys(rules + own_rules))
        group["_spent"] = self._cost(sel, [m for m in models if m is not sel])
        return group

    def _unit_profile(self, top: Selection, sel: Selection, models) -> Profile | None:
        """A stat line kept on the unit (or a level above the model): the one named as the
        model, or the only one there."""
        found = [p for s in top.own(self.apart) if s is not sel and s not in models
                 for p in s.profiles if self._is_stat_line(p)]
        named = [p for p in found if p.name.casefold() == sel.name.casefold()]
        if named:
            return named[0]
        named = [p for p in found if p.name.casefold() in sel.name.casefold()
                 or sel.name.casefold() in p.name.casefold()]
        if len({p.name for p in named}) == 1:
            return named[0]
        return found[0] if len({p.name for p in found}) == 1 else None

    def _stats(self, p: Profile, where: str) -> dict | None:
        fixes = self.m.profiles.get(p.name.casefold(), {})
        stats = {}
        for name, text in p.values.items():
            key = self.m.characteristics.get(name.casefold())
            why = self.m.unplayed.get(name.casefold())
            if why and text.strip() not in EMPTY and text.strip() != "0":
                self.problem(where, f"{name} {text!r}: {why}")
                return None
            if not key:
                continue
            if key == "saves" and not {"Sv", "Inv"} & set(fixes):
                saves = self._saves(text, p, where)
                if saves is None:
                    return None
                stats.update(saves)
                continue
            if key in fixes or key == "saves":
                continue
            value = _whole(text)
            if value is None:
                if text.strip() in EMPTY:
                    continue
                self.problem(where, f"profile {p.name!r}: {name} is {text!r}, not a whole "
                             f"number; give it in a --map file: [profiles.{_quoted(p.name)}] "
                             f"{key} = N")
                return None
            stats[key] = value
        stats.update(fixes)
        return stats

    def _saves(self, text: str, p: Profile, where: str) -> dict | None:
        """"3+" -> Sv 3; "-" -> none; "3+/5+" or "-/5+" -> Sv and invulnerable; "4++" -> Inv."""
        text = text.strip()
        if text in EMPTY:
            return {}
        if text.endswith("++") and SAVE.match(text[:-1]):
            return {"Inv": int(text[0])}
        parts = [t.strip() for t in text.split("/")]
        if len(parts) <= 2 and all(t in EMPTY or SAVE.match(t) for t in parts):
            out = {}
            if parts[0] not in EMPTY:
                out["Sv"] = int(parts[0][0])
            if len(parts) == 2 and parts[1] not in EMPTY:
                out["Inv"] = int(parts[1][0])
            return out
        self.problem(where, f"profile {p.name!r}: save {text!r} is not a save odds reads "
                     f"(3+, 3+/5+, -/5+); give it in a --map file: [profiles.{_quoted(p.name)}] "
                     "Sv = N")
        return None

    def _troop_type(self, p: Profile, where: str):
        if not self.m.troop_type:
            return None
        text = next((v for k, v in p.values.items()
                     if k.casefold() == self.m.troop_type.casefold()), "").strip()
        key = re.sub(r"\s*\(.*\)$", "", text).casefold()  # "Monster (Special Character)"
        if key in EMPTY:
            return None
        if key not in self.m.troop_types:
            self.problem(where, f"troop type {text!r} is not one odds knows; map it in a --map "
                         f"file: [troop_types] {_quoted(text)} = \"infantry\"")
            return False
        if not self.m.troop_types[key]:
            self.problem(where, f"a {text.lower()}: odds' {self.m.ruleset} plays "
                         f"{', '.join(sorted(set(filter(None, self.m.troop_types.values()))))}"
                         " only")
            return False
        return self.m.troop_types[key]

    def _mount(self, sel: Selection, where: str, models: list[Selection] = ()):
        """The mount's WS, S, I and A: a mount profile in the selection (not in ``models``
        inside it), None without one, False on a problem."""
        found = [p for s in sel.own(lambda c: c in models or self.apart(c))
                 for p in s.profiles if self._is_mount(p)]
        if not found:
            return None
        stats = self._stats(found[0], where)
        if stats is None:
            return False
        return {k: stats[k] for k in ("WS", "S", "I", "A") if k in stats}

    # -- points ------------------------------------------------------------------------------
    def _cost(self, sel: Selection, models: list[Selection] = ()) -> float | None:
        """What a selection cost in the list, without the units and ``models`` inside it."""
        if not self.m.points:
            return None
        costs = [c for s in sel.own(lambda c: c in models or self.apart(c))
                 for k, c in s.costs.items()
                 if k.strip().casefold() == self.m.points.casefold()]
        return sum(costs) if costs else None

    def _points(self, top: Selection, groups: list[dict]) -> None:
        """Each group's points per model: its models' costs (with what they carry), plus
        the unit's own costs (and what the unit took) shared over every model."""
        spent = [g.pop("_spent") for g in groups]
        unit = self._cost(top)
        if not self.m.points_key or unit is None:
            return
        total = sum(g["count"] for g in groups)
        shared = unit - sum(x or 0.0 for x in spent)
        for group, own in zip(groups, spent):
            group["points"] = round((own or 0.0) / group["count"] + shared / total, 6)

def _named_in(name: str, patterns: list[str]) -> bool:
    """Whether a pattern is a whole word (or words) of the name, any letter case."""
    return any(re.search(rf"(?<!\w){re.escape(p)}(?!\w)", name, re.IGNORECASE)
               for p in patterns)


def _whole(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() else None


def told_apart(tables: list[dict], fold: bool = False) -> None:
    """The second, third ... table of one ``name`` renamed "name (2)", "name (3)" (with
    ``fold``, names that differ only in letter case are one name)."""
    seen: dict[str, int] = {}
    for table in tables:
        name = table["name"]
        key = name.casefold() if fold else name
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            table["name"] = f"{name} ({seen[key]})"
