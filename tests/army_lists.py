"""Exported army lists written by the tests themselves, in the shape BattleScribe and New
Recruit write (the rosterSchema): roster > forces > force > selections > selection, with
profiles, rules, costs and categories. The public data sets carry no licence, so no file of
theirs is copied; the names and values follow their published profile types."""
from __future__ import annotations

import io
import itertools
import zipfile
from xml.sax.saxutils import escape, quoteattr

_ids = itertools.count(1)
GAMES = {"wh40k3": "Warhammer 40k 3rd Edition", "whfb8": "Warhammer Fantasy 8th ed",
         "mordheim": "Mordheim"}
COST = {"wh40k3": ("pts", "4ed5-2f92-9abc-2870"), "whfb8": ("pts", "points"),
        "mordheim": (" gc", "points")}


def sel(name, kind="upgrade", number=1, profiles=(), rules=(), children=(), pts=0.0,
        categories=(), custom=None, game="wh40k3"):
    """One <selection> as a dict (written by :func:`ros`)."""
    return dict(name=name, kind=kind, number=number, profiles=list(profiles), rules=list(rules),
                children=list(children), pts=pts, categories=list(categories), custom=custom)


def profile(name, kind, **values):
    """A <profile>: characteristics by name (a trailing _ in a key is dropped, spaces as
    __: ``Saving_Throw``)."""
    return (name, kind, {k.rstrip("_").replace("__", " "): str(v) for k, v in values.items()})


def unit40k(name, WS, S, T, W, I, A, Ld, Sv, BS=3):
    return profile(name, "Unit", WS=WS, BS=BS, S=S, T=T, W=W, I=I, A=A, Ld=Ld, Sv=Sv)


def weapon40k(name, Range="Melee", S="As User", AP="-", Type="Melee", Abilities=""):
    return profile(name, "Weapon", Range=Range, S=S, AP=AP, Type=Type, Abilities=Abilities)


def ros(game, forces, name="Test list", total=None, extra_root="") -> bytes:
    """The roster XML: ``forces`` is [(force name, catalogue name, [selection dicts])]."""
    global _ids
    _ids = itertools.count(1)  # the same list is the same bytes
    cost, type_id = COST.get(game, ("pts", "points"))
    system = GAMES.get(game, game)
    out = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
           f'<roster id="r{next(_ids)}" name={quoteattr(name)} battleScribeVersion="2.03" '
           f'gameSystemId="g1" gameSystemName={quoteattr(system)} gameSystemRevision="12" '
           f'xmlns="http://www.battlescribe.net/schema/rosterSchema"{extra_root}>']
    if total is not None:
        out.append(f'<costs><cost name="{cost}" typeId="{type_id}" value="{total}"/></costs>')
    out.append("<forces>")
    for force, catalogue, selections in forces:
        out.append(f'<force id="f{next(_ids)}" name={quoteattr(force)} entryId="e1" '
                   f'catalogueId="c1" catalogueRevision="1" catalogueName={quoteattr(catalogue)}>')
        out.append("<selections>")
        out += [_selection(s, cost, type_id) for s in selections]
        out.append("</selections></force>")
    out.append("</forces></roster>")
    return "\n".join(out).encode("utf-8")


def _selection(s, cost, type_id) -> str:
    custom = f" customName={quoteattr(s['custom'])}" if s["custom"] else ""
    out = [f'<selection id="s{next(_ids)}" name={quoteattr(s["name"])} entryId="a::b" '
           f'number="{s["number"]}" type="{s["kind"]}"{custom}>']
    if s["rules"]:
        out.append("<rules>" + "".join(
            f'<rule id="r{next(_ids)}" name={quoteattr(r)} hidden="false"><description>'
            f'{escape(r)} text</description></rule>' for r in s["rules"]) + "</rules>")
    if s["profiles"]:
        out.append("<profiles>")
        for pname, kind, values in s["profiles"]:
            out.append(f'<profile id="p{next(_ids)}" name={quoteattr(pname)} hidden="false" '
                       f'typeId="t1" typeName={quoteattr(kind)}><characteristics>')
            out += [f'<characteristic name={quoteattr(k)} typeId="c">{escape(v)}'
                    '</characteristic>' for k, v in values.items()]
            out.append("</characteristics></profile>")
        out.append("</profiles>")
    if s["children"]:
        out.append("<selections>" + "".join(_selection(c, cost, type_id)
                                            for c in s["children"]) + "</selections>")
    out.append(f'<costs><cost name="{cost}" typeId="{type_id}" value="{float(s["pts"])}"/>'
               '</costs>')
    if s["categories"]:
        out.append("<categories>" + "".join(
            f'<category id="k{next(_ids)}" name={quoteattr(c)} entryId="k" '
            f'primary="{"true" if i == 0 else "false"}"/>' for i, c in enumerate(s["categories"]))
            + "</categories>")
    out.append("</selection>")
    return "".join(out)


def rosz(xml: bytes, member="list.ros") -> bytes:
    """A .rosz: the roster zipped, one member."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo(member, date_time=(2026, 1, 1, 0, 0, 0)), xml,
                   compress_type=zipfile.ZIP_DEFLATED)  # the same list is the same bytes
    return buffer.getvalue()


# -- one list per game ---------------------------------------------------------------------

def blood_angels() -> bytes:
    """A wh40k3 list: an assault squad (sergeant with a power fist, frag grenades bought by
    the unit), a lone HQ captain, a tactical squad with a missile launcher, a Rhino."""
    marine = unit40k("Space Marine", 4, 4, 4, 1, 4, 1, 8, "3+")
    sergeant = unit40k("Veteran Sergeant", 4, 4, 4, 1, 4, 2, 9, "3+")
    bolt_pistol = sel("Bolt Pistol", profiles=[weapon40k("Bolt Pistol", Range='12"', S=4, AP=5,
                                                         Type="Pistol")])
    assault = sel("Assault Squad", "unit", categories=["Fast Attack"], rules=["Deep Strike"],
                  children=[
                      sel("Assault Marine", "model", 9, profiles=[marine], pts=189, children=[
                          sel("Bolt Pistol", number=9, profiles=bolt_pistol["profiles"]),
                          sel("Chainsword", number=9,
                              profiles=[weapon40k("Chainsword")])]),
                      sel("Veteran Sergeant", "model", 1, profiles=[sergeant], pts=21, children=[
                          sel("Bolt Pistol", profiles=bolt_pistol["profiles"]),
                          sel("Power Fist", pts=15,
                              profiles=[weapon40k("Power Fist", S="User x2", AP=1)])]),
                      sel("Frag Grenades", number=1, pts=10,
                          profiles=[weapon40k("Frag Grenades", Range='6"', S=3, Type="Assault 1")]),
                      sel("Jump Pack", pts=0)])
    captain = sel("Captain", "unit", categories=["HQ", "Independent Character"], pts=60,
                  profiles=[unit40k("Captain", 5, 4, 4, 2, 5, 3, 10, "3+/4+")],
                  rules=["Independent Character", "Furious Charge"],
                  children=[sel("Wargear", children=[
                      sel("Thunder Blade", pts=20,
                          profiles=[weapon40k("Thunder Blade", S="User +2")])])])
    tactical = sel("Tactical Squad", "unit", categories=["Troops"], children=[
        sel("Space Marine", "model", 9, profiles=[marine, weapon40k(
            "Boltgun", Range='24"', S=4, AP=5, Type="Rapid Fire")], pts=135),
        sel("Veteran Sergeant", "model", 1, profiles=[sergeant], pts=15, children=[
            sel("Bolt Pistol", profiles=bolt_pistol["profiles"]),
            sel("Close Combat Weapon", profiles=[weapon40k("Close Combat Weapon")])]),
        sel("Missile Launcher", pts=10,
            profiles=[weapon40k("Missile Launcher (krak)", Range='48"', S=8, AP=3,
                                Type="Heavy 1")])])
    rhino = sel("Rhino", "unit", categories=["Dedicated Transport"], pts=50, profiles=[
        profile("Rhino", "Transport", Front__Armor=11, Side__Armor=11, Rear__Armor=10, BS=4,
                Capacity=10)])
    return ros("wh40k3", [("1-Standard Missions", "Blood Angels (1999)",
                           [assault, captain, tactical, rhino])], name="Angels of Death",
               total=510)


def model8(name, M, WS, S, T, W, I, A, LD, Type="Infantry", BS=3):
    return profile(name, "Model", M=M, WS=WS, BS=BS, S=S, T=T, W=W, I=I, A=A, LD=LD,
                   ArmourSave="", WardSave="", MR="", Type=Type)


def weapon8(name, Strength="As user", Range="Combat", Special__Rules=""):
    return profile(name, "Weapon", Range=Range, Strength=Strength, Special__Rules=Special__Rules)


def armour8(name, modifier):
    return profile(name, "Armour", Saving__Throw__modifier=modifier, Special__Rules="")


def empire() -> bytes:
    """A whfb8 list: halberdiers with full command (weapon and armour linked on the unit), a
    captain on a barded warhorse with a great weapon, knights, a Steam Tank (cannot play)."""
    halberdiers = sel("Halberdiers", "unit", categories=["Core"], pts=0,
                      profiles=[weapon8("Halberd", "'+1", Special__Rules="Requires Two Hands"),
                                armour8("Light Armour", "6+")],
                      children=[
                          sel("Halberdiers", "model", 20, pts=120,
                              profiles=[model8("Empire Soldier", 4, 3, 3, 3, 1, 3, 1, 7)]),
                          sel("Champion", pts=10,
                              profiles=[model8("Sergeant", 4, 3, 3, 3, 1, 3, 2, 7)]),
                          sel("Standard Bearer", pts=10), sel("Musician", pts=5)])
    captain = sel("Captain of the Empire", "model", categories=["Heroes"], pts=50,
                  profiles=[model8("Captain", 4, 5, 4, 4, 2, 5, 3, 8)], children=[
                      sel("Armament", children=[
                          sel("Great Weapon", pts=6, profiles=[weapon8(
                              "Great Weapon", "'+2", Special__Rules="Requires Two Hands, "
                              "Always Strikes Last")])]),
                      sel("Full Plate Armour", pts=6, profiles=[armour8("Full Plate Armour",
                                                                        "4+")]),
                      sel("Mount", children=[sel("Barded Warhorse", pts=21, profiles=[
                          model8("Warhorse", 8, 3, 3, 3, 1, 3, 1, 5, Type="-")])])])
    knights = sel("Empire Knights", "unit", categories=["Core"], children=[
        sel("Knight", "model", 5, pts=110, profiles=[
            model8("Knight", 4, 4, 3, 3, 1, 3, 1, 8, Type="Cavalry"),
            model8("Warhorse", 8, 3, 3, 3, 1, 3, 1, 5, Type="-")]),
        sel("Lance", profiles=[weapon8("Lance", "'+2", Special__Rules="Mounted only")]),
        sel("Full Plate Armour", profiles=[armour8("Full Plate Armour", "4+")]),
        sel("Shield", profiles=[armour8("Shield", "-1")]),
        sel("Barding", profiles=[armour8("Barding", "-1")])])
    tank = sel("Steam Tank", "model", categories=["Rare"], pts=250,
               profiles=[model8("Steam Tank", 0, 0, 6, 6, 10, 0, 0, 10, Type="Unique")])
    return ros("whfb8", [("Standard", "Empire - Army Book (2013-4) -V8.8.2.",
                          [halberdiers, captain, knights, tank])], name="Reikland",
               total=720)


def hth(name, Str="As user", Special=""):
    return profile(name, "H-t-h Weapon", Str=Str, Special=Special)


def model_m(name, M, WS, BS, S, T, W, I, A, LD):
    return profile(name, "Model", M=M, WS=WS, BS=BS, S=S, T=T, W=W, I=I, A=A, LD=LD)


def reiklanders() -> bytes:
    """A mordheim warband: a captain with a sword, light armour, a bow and Mighty Blow, a
    henchman group of three warriors (profile on the group, axe and shield bought once)."""
    captain = sel("Mercenary Captain", "model", categories=["Heroes"], pts=60,
                  profiles=[model_m("Mercenary Captain", 4, 4, 4, 3, 3, 1, 4, 1, 8)],
                  rules=["Leader"], children=[
                      sel("Starting Equipment (Mercenaries)", children=[
                          sel("Sword", pts=10, profiles=[hth("Sword", Special="Parry")]),
                          sel("Light Armour", pts=20, profiles=[profile(
                              "Light Armour", "Armour", Armour__Save="6+", Special="")]),
                          sel("Bow", pts=10, profiles=[profile(
                              "Bow", "Ranged Weapon", Range='24"', Str=3, Special="")])]),
                      sel("Experience", number=20),
                      sel("Skills", children=[sel("Mighty Blow", rules=["Mighty Blow"])])])
    warriors = sel("Warriors", "unit", categories=["Henchmen"],
                   profiles=[model_m("Warrior", 4, 3, 3, 3, 3, 1, 3, 1, 7)], children=[
                       sel("Warriors", "model", 3, pts=75),
                       sel("Axe", pts=15, profiles=[hth("Axe", Special="Cutting Edge")]),
                       sel("Shield", pts=15, profiles=[profile(
                           "Shield", "Armour", Armour__Save="+1", Special="")])])
    return ros("mordheim", [("Warband", "Reiklanders (1a)", [captain, warriors])],
               name="The Grey Company", total=240)


# -- two 2,000-point lists (the README's worked example and the benchmark) ----------------------

def _squad(name, model, count, profile_, each, gear, sergeant=None, sarge_gear=(), sarge_pts=0,
           unit_gear=(), categories=("Troops",), rules=()):
    children = [sel(model, "model", count, profiles=[profile_], pts=each * count,
                    children=[sel(n, number=count, profiles=[p]) for n, p in gear])]
    if sergeant is not None:
        children.append(sel(sergeant[0], "model", 1, profiles=[sergeant[1]], pts=sarge_pts,
                            children=[sel(n, profiles=[p], pts=c) for n, p, c in sarge_gear]))
    children += [sel(n, number=k, profiles=[p], pts=c) for n, p, k, c in unit_gear]
    return sel(name, "unit", categories=list(categories), rules=list(rules), children=children)


def angels_2000() -> bytes:
    """A 2,000-point Blood Angels list (1,980 points): thirteen units, each as the
    3rd-edition data set writes them (profiles on the models, weapons on their upgrades)."""
    marine = unit40k("Space Marine", 4, 4, 4, 1, 4, 1, 8, "3+")
    vet = unit40k("Veteran Sergeant", 4, 4, 4, 1, 4, 2, 9, "3+")
    bp = weapon40k("Bolt Pistol", Range='12"', S=4, AP=5, Type="Pistol")
    bolter = weapon40k("Boltgun", Range='24"', S=4, AP=5, Type="Rapid Fire")
    cs = weapon40k("Chainsword")
    fist = weapon40k("Power Fist", S="User x2", AP=1)
    pw = weapon40k("Power Weapon", S="As User", AP=2, Abilities="")
    frag = weapon40k("Frag Grenades", Range='6"', S=3, Type="Assault 1")
    units = []
    for custom, count, (weapon, profile_, cost) in (
            ("Assault Squad (fist)", 9, ("Power Fist", fist, 15)),
            ("Assault Squad (power weapon)", 9, ("Power Weapon", pw, 10)),
            ("Assault Squad (five)", 4, ("Chainsword", cs, 0)),
            ("Assault Squad (reserve)", 9, ("Chainsword", cs, 0))):
        squad = _squad("Assault Squad", "Assault Marine", count, marine, 21,
                       [("Bolt Pistol", bp), ("Chainsword", cs)],
                       ("Veteran Sergeant", vet), [("Bolt Pistol", bp, 0),
                                                   (weapon, profile_, cost)], 36,
                       [("Frag Grenades", frag, 1, 0)], ("Fast Attack",), ["Furious Charge"])
        squad["custom"] = custom
        units.append(squad)
    for custom, count, gear in (("Tactical Squad (power weapon)", 9, [("Power Weapon", pw, 10)]),
                                ("Tactical Squad", 9, []), ("Combat Squad", 4, [])):
        squad = _squad("Tactical Squad", "Space Marine", count, marine, 15,
                       [("Boltgun", bolter)], ("Veteran Sergeant", vet),
                       [("Bolt Pistol", bp, 0)] + gear, 31, [("Frag Grenades", frag, 1, 0)])
        squad["custom"] = custom
        units.append(squad)
    units.append(_squad("Death Company", "Death Company Marine", 8,
                        unit40k("Death Company Marine", 4, 4, 4, 1, 4, 2, 9, "3+"), 25,
                        [("Bolt Pistol", bp), ("Chainsword", cs)], categories=("Elites",),
                        rules=["Furious Charge", "Fearless"]))
    units.append(_squad("Assault Terminators", "Terminator", 4,
                        unit40k("Terminator", 4, 4, 4, 1, 4, 2, 9, "2+/5+"), 40,
                        [("Power Fist", fist)], ("Sergeant",
                                                 unit40k("Sergeant", 4, 4, 4, 1, 4, 2, 9,
                                                         "2+/5+")),
                        [("Power Weapon", pw, 0)], 40, categories=("Elites",)))
    for name, ws, a, sv, pts in (("Captain", 5, 3, "3+/4+", 95),
                                 ("Chaplain", 5, 2, "3+/4+", 80),
                                 ("Librarian", 5, 3, "3+", 100)):
        units.append(sel(name, "unit", categories=["HQ"], pts=pts,
                         profiles=[unit40k(name, ws, 4, 4, 2, 5, a, 10, sv)],
                         rules=["Furious Charge"],
                         children=[sel("Power Weapon", profiles=[pw], pts=0),
                                   sel("Bolt Pistol", profiles=[bp])]))
    units.append(_squad("Scout Squad", "Scout", 4, unit40k("Scout", 4, 4, 4, 1, 4, 1, 8,
                                                           "4+"), 13,
                        [("Bolt Pistol", bp), ("Close Combat Weapon", weapon40k(
                            "Close Combat Weapon"))], rules=["Infiltrate"]))
    return ros("wh40k3", [("1-Standard Missions", "Blood Angels (1999)", units)],
               name="Angels of Death, 2,000 points", total=_total(units))


def orks_2000() -> bytes:
    """A 2,000-point Ork list (1,988 points): boyz mobs with nobz, nobz, gretchin, a
    warboss, written as the 3rd-edition data set writes them: the boyz an upgrade entry
    with their stat line and weapons on it ("Slugga Boy" x29), the nob a "Nobz" model."""
    boy = unit40k("Boy", 4, 3, 4, 1, 2, 1, 7, "6+")
    nob = unit40k("Nob", 4, 4, 4, 2, 3, 2, 7, "6+")
    slugga = weapon40k("Slugga", Range='12"', S=4, AP="-", Type="Pistol")
    choppa = weapon40k("Choppa", S="As User", Abilities="")
    klaw = weapon40k("Power Klaw", S="User x2", AP=1)
    shoota = weapon40k("Shoota", Range='18"', S=4, AP=6, Type="Assault 2")
    stikk = weapon40k("Stikkbombz", Range='6"', S=3, Type="Assault 1")

    def mob(name, boyz, count, gear, nob_gear, stikkbombz):
        children = [sel(boyz, "upgrade", count, profiles=[boy, *gear], pts=9 * count),
                    sel("Nobz", "model", 1, profiles=[nob], pts=20,
                        children=[sel(n, profiles=[p], pts=c) for n, p, c in nob_gear])]
        if stikkbombz:
            children.append(sel("Stikkbombz", number=1, profiles=[stikk], pts=count + 1))
        return sel(name, "unit", categories=["Troops"], children=children)

    units = []
    for count, custom, klawed in ((29, "Big Mob (klaw)", True), (29, "Big Mob", False),
                                  (19, "Boyz (klaw)", True), (19, "Boyz", False),
                                  (17, "Boyz (18)", False)):
        nob_gear = [("Slugga", slugga, 0)] + ([("Power Klaw", klaw, 25)] if klawed else
                                             [("Choppa", choppa, 0)])
        units.append(mob("Slugga Boyz", "Slugga Boy", count, [slugga, choppa], nob_gear, True))
        units[-1]["custom"] = custom
    for count, custom in ((19, "Shoota Boyz"), (14, "Shoota Boyz (15)"),
                          (9, "Shoota Boyz (10)")):
        units.append(mob("Shoota Boyz", "Shoota Boy", count, [shoota],
                         [("Slugga", slugga, 0), ("Choppa", choppa, 0)], False))
        units[-1]["custom"] = custom
    units.append(_squad("Nobz", "Nob", 5, nob, 20, [("Slugga", slugga), ("Choppa", choppa)],
                        categories=("Elites",)))
    units.append(_squad("Gretchin", "Gretchin", 15, unit40k("Gretchin", 2, 2, 2, 1, 2, 1, 5,
                                                             "-"), 3, [],
                        ("Slaver", unit40k("Slaver", 4, 3, 4, 1, 2, 1, 7, "6+")),
                        [("Slugga", slugga, 0), ("Choppa", choppa, 0)], 10))
    units.append(sel("Warboss", "unit", categories=["HQ"], pts=85,
                     profiles=[unit40k("Warboss", 5, 5, 5, 3, 4, 4, 9, "6+")],
                     children=[sel("Power Klaw", profiles=[klaw], pts=25),
                               sel("Slugga", profiles=[slugga])]))
    return ros("wh40k3", [("1-Standard Missions", "Orks (1999)", units)],
               name="Waaagh!, 2,000 points", total=_total(units))


def _total(selections) -> float:
    return sum(s["pts"] + _total(s["children"]) for s in selections)


if __name__ == "__main__":  # writes the bundled example lists: python tests/army_lists.py
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "data" / "army_lists"
    folder.mkdir(exist_ok=True)
    (folder / "wh40k3_angels_2000.ros").write_bytes(angels_2000())
    (folder / "wh40k3_orks_2000.rosz").write_bytes(rosz(orks_2000(), "Waaagh.ros"))
