"""Army lists exported from BattleScribe / New Recruit (`odds import`, odds.import_list): every
game's reading, the user's map, the report, and the untrusted-file defences."""
from __future__ import annotations

import io
import re
import textwrap
import zipfile
from pathlib import Path

import pytest

import odds
from odds.cli import main
from odds.errors import ScenarioError
from odds.lists import import_list
from odds.lists.files import MAX_XML
from odds.lists.carried import _strength

import army_lists as lists

DATA = Path(__file__).resolve().parents[1] / "data" / "army_lists"


@pytest.fixture
def write(tmp_path):
    def write(name: str, data: bytes | str):
        path = tmp_path / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return path
    return write


def _fixed_by_map(write, path, message: str, map_text: str):
    """The list fails naming the problem; the map file written from the message's advice
    fixes it: the import that then plays."""
    with pytest.raises(ScenarioError, match=message):
        import_list(path)
    return import_list(path, map=write("map.toml", map_text))


def _unit(imported, name):
    return next(u.table for u in imported.units if u.table["name"] == name)


def _group(unit, name):
    return next(g for g in unit["models"] if g["name"] == name)


# -- wh40k3 ------------------------------------------------------------------------------------

def test_wh40k3_list_fails_on_what_it_cannot_play_and_names_the_entry(write):
    path = write("angels.ros", lists.blood_angels())
    with pytest.raises(ScenarioError) as e:
        import_list(path)
    assert "1 entry odds cannot play" in str(e.value)
    assert "1-Standard Missions > Rhino: a transport vehicle" in str(e.value)
    assert "--skip-unknown" in str(e.value)


def test_wh40k3_list_read_unit_by_unit(write):
    imported = import_list(write("angels.ros", lists.blood_angels()), skip_unknown=True)
    assert imported.roster.ruleset == "wh40k3" and imported.roster.name == "Angels of Death"
    assert [u.table["name"] for u in imported.units] == ["Assault Squad", "Captain",
                                                         "Tactical Squad"]
    assault = _unit(imported, "Assault Squad")
    # frag grenades bought by the unit arm every model; the unit's own 10 pts are shared
    assert assault["models"] == [
        {"name": "Assault Marine", "count": 9,
         "profile": {"WS": 4, "S": 4, "T": 4, "W": 1, "I": 4, "A": 1, "Ld": 8, "Sv": 3},
         "equipment": ["bolt pistol", "chainsword", "frag grenades"], "points": 22.0},
        {"name": "Veteran Sergeant", "count": 1, "character": True,
         "profile": {"WS": 4, "S": 4, "T": 4, "W": 1, "I": 4, "A": 2, "Ld": 9, "Sv": 3},
         "equipment": ["bolt pistol", "power fist", "frag grenades"], "points": 37.0}]
    captain = _unit(imported, "Captain")["models"]
    assert captain == [{"name": "Captain", "count": 1, "character": True,
                        "profile": {"WS": 5, "S": 4, "T": 4, "W": 2, "I": 5, "A": 3, "Ld": 10,
                                    "Sv": 3, "Inv": 4},
                        "equipment": ["thunder blade"], "rules": ["Furious Charge"],
                        "points": 80.0}]
    # "User +2", and a close-combat weapon for the two-weapon bonus (read_weapon, R0-3)
    assert imported.weapons == {"thunder blade": {"two_weapon": True, "strength_bonus": 2}}
    tactical = _unit(imported, "Tactical Squad")
    assert _group(tactical, "Space Marine")["equipment"] == []  # a boltgun: no melee weapon
    assert sum(g["points"] * g["count"] for g in tactical["models"]) == 160
    report = imported.report
    assert report.problems == ["1-Standard Missions > Rhino: a transport vehicle (profile "
                               "'Transport'): odds cannot play it"]
    assert any("Boltgun" in x and "shooting weapon" in x for x in report.left_out)
    assert any("'Deep Strike' plays no part in melee" in x for x in report.left_out)
    assert any("Thunder Blade" in x and "strength +2" in x for x in report.notes)


def test_a_unit_level_weapon_taken_n_times_arms_n_models(write):
    """wh40k3 reads a unit's item taken N times as carried by N of its models (R0-9: they
    are their own group), the list not saying which."""
    squad = lists.sel("Assault Squad", "unit", children=[
        lists.sel("Assault Marine", "model", 9, pts=180, profiles=[
            lists.unit40k("Assault Marine", 4, 4, 4, 1, 4, 1, 8, "3+")]),
        lists.sel("Power Weapon", number=2, pts=20,
                  profiles=[lists.weapon40k("Power Weapon", S="As User")])])
    path = write("two.ros", lists.ros("wh40k3", [("F", "C", [squad])]))
    imported = import_list(path, map=write("map.toml", '[equipment]\n"power weapon" = '
                                                       '"power weapon"\n'))
    groups = _unit(imported, "Assault Squad")["models"]
    assert [(g["name"], g["count"], g["equipment"]) for g in groups] == [
        ("Assault Marine", 7, []), ("Assault Marine with Power Weapon", 2, ["power weapon"])]
    assert sum(g["points"] * g["count"] for g in groups) == pytest.approx(200)
    assert any("2 of the unit's models carry it" in x for x in imported.report.notes)


def test_a_pair_of_weapons_in_one_entry_keeps_odds_own_weapons(write):
    """The 3rd-edition data set writes "Laspistol & CCW" as one entry with a profile of
    each: each profile odds knows by name is odds' weapon (a close combat weapon keeps its
    +1 attack for two weapons, R0-3), not a weapon read anew from the profile."""
    guard = lists.sel("Veteran", "unit", pts=8, categories=["Troops"],
                      profiles=[lists.unit40k("Veteran", 3, 3, 3, 1, 3, 1, 7, "5+")],
                      children=[lists.sel("Laspistol & CCW", profiles=[
                          lists.weapon40k("Laspistol", Range='12"', S=3, Type="Pistol"),
                          lists.weapon40k("Close Combat Weapon")])])
    imported = import_list(write("v.ros", lists.ros("wh40k3", [("F", "C", [guard])])))
    assert imported.units[0].table["models"][0]["equipment"] == ["laspistol",
                                                                  "close combat weapon"]
    assert imported.weapons == {}
    played = odds.roster(imported.roster, trials=1, quiet=True)
    assert played.mine.weapons == {}


def test_models_the_data_set_writes_as_upgrades_are_models_of_the_unit(write):
    """The 3rd-edition data set writes a mob's boyz as an upgrade carrying their stat line
    and weapons ("Slugga Boy" x19) and a squad's guardsmen and sergeant so: each is a model
    group (noted), none is read as wargear; "Nobz" is a character."""
    boy = lists.unit40k("Slugga Boyz", 4, 3, 4, 1, 2, 2, 7, "6+", BS=2)
    slugga = lists.weapon40k("Slugga", Range='12"', S=4, AP=6, Type="Pistol")
    choppa = lists.weapon40k("Choppa", S="", AP="", Abilities="Close Combat Weapon but ...")
    mob = lists.sel("Slugga Boyz", "unit", categories=["Troops"], children=[
        lists.sel("Slugga Boy", "upgrade", 19, profiles=[choppa, slugga, boy], pts=171),
        lists.sel("Nobz", "model", 1, pts=20, profiles=[
            lists.unit40k("Nobz", 4, 4, 4, 2, 3, 3, 7, "6+", BS=2), slugga], children=[
            lists.sel("Power Klaw", pts=25,
                      profiles=[lists.weapon40k("Power Klaw", S="User x2")])])])
    guard = lists.unit40k("Guardsman", 3, 3, 3, 1, 3, 1, 7, "5+")
    squad = lists.sel("Infantry Squad", "unit", categories=["Troops"], pts=60, children=[
        lists.sel("Guardsmen", "upgrade", 9, profiles=[guard, lists.weapon40k(
            "Lasgun", Range='24"', S=3, Type="Rapid Fire")]),
        lists.sel("Sergeant", "upgrade", 1, profiles=[lists.unit40k("Sergeant", 3, 3, 3, 1, 3,
                                                                    2, 8, "5+")])])
    imported = import_list(write("o.ros", lists.ros("wh40k3", [("F", "C", [mob, squad])])))
    boyz, nob = _unit(imported, "Slugga Boyz")["models"]
    assert (boyz["name"], boyz["count"], boyz["equipment"]) == ("Slugga Boy", 19,
                                                                ["choppa", "slugga"])
    assert (nob["count"], nob["character"], nob["equipment"]) == (1, True,
                                                                  ["power klaw", "slugga"])
    assert boyz["points"] * 19 + nob["points"] == pytest.approx(216)
    guardsmen, sergeant = _unit(imported, "Infantry Squad")["models"]
    assert (guardsmen["count"], sergeant["count"], sergeant.get("character")) == (9, 1, True)
    assert "F > Slugga Boyz > Slugga Boy: 19 models of the unit, though the list writes them " \
           "as an upgrade" in imported.report.notes


def test_an_entry_with_its_own_stat_line_holding_models_is_a_model_too(write):
    """A Wolf Lord's entry carries his stat line and holds two Fenris Wolves: both are model
    groups, the lord a character with his frost blade, the wolves without it; the points
    add up to the entry's cost."""
    lord = lists.sel("Wolf Lord", "unit", categories=["HQ"], pts=80, profiles=[
        lists.unit40k("Wolf Lord", 5, 4, 4, 3, 5, 3, 10, "3+")], children=[
        lists.sel("Frost Blade", pts=25, profiles=[lists.weapon40k("Frost Blade", S="User +1")]),
        lists.sel("Fenris Wolf", "model", 2, pts=16, profiles=[
            lists.unit40k("Fenrisian Wolf", 4, 4, 4, 1, 4, 1, 5, "6+")])])
    imported = import_list(write("w.ros", lists.ros("wh40k3", [("F", "C", [lord])])))
    boss, wolves = imported.units[0].table["models"]
    assert (boss["name"], boss["count"], boss["character"], boss["equipment"]) == (
        "Wolf Lord", 1, True, ["frost blade"])
    assert (wolves["count"], wolves["equipment"], "character" in wolves) == (2, [], False)
    assert boss["points"] + 2 * wolves["points"] == pytest.approx(121)


def test_a_model_inside_a_models_entry_is_a_problem_not_dropped(write):
    champion = lists.sel("Aspiring Champion", "model", 1, profiles=[
        lists.unit40k("Aspiring Champion", 4, 4, 4, 1, 4, 2, 9, "3+")], children=[
        lists.sel("Chaos Hound", "model", 1, profiles=[
            lists.unit40k("Chaos Hound", 3, 4, 3, 1, 4, 1, 5, "-")])])
    squad = lists.sel("Chaos Space Marines", "unit", children=[lists.sel(
        "Chaos Space Marine", "model", 7, profiles=[
            lists.unit40k("Chaos Space Marine", 4, 4, 4, 1, 4, 1, 9, "3+")]), champion])
    with pytest.raises(ScenarioError, match=r"Aspiring Champion > Chaos Hound: 'Chaos Hound' is "
                                            r"a model inside 'Aspiring Champion''s entry"):
        import_list(write("c.ros", lists.ros("wh40k3", [("F", "C", [squad])])))


def test_every_problem_of_a_unit_is_listed(write):
    boy = lists.sel("Boy", "model", 10, profiles=[lists.unit40k("Boy", 4, 3, 4, 1, 2, 1, 7,
                                                                "6+")], rules=["Mob Rule"],
                    children=[lists.sel("Grabba Stikk"), lists.sel("Big Choppa", profiles=[
                        lists.weapon40k("Big Choppa", Abilities="whatever")])])
    unit = lists.sel("Boyz", "unit", children=[boy], rules=["Waaagh!"])
    with pytest.raises(ScenarioError, match="4 entries odds cannot play") as e:
        import_list(write("b.ros", lists.ros("wh40k3", [("F", "C", [unit])])))
    for name in ("Grabba Stikk", "Big Choppa", "Mob Rule", "Waaagh!"):
        assert name in str(e.value)


def test_two_read_weapons_of_one_name_stay_apart(write):
    stealer = lists.sel("Genestealers", "unit", children=[lists.sel(
        "Genestealer", "model", 5, profiles=[lists.unit40k("Genestealer", 6, 4, 4, 1, 6, 2, 10,
                                                           "5+")],
        children=[lists.sel("Rending Claws", number=5, profiles=[lists.weapon40k("Claws")])])])
    lord = lists.sel("Broodlord", "unit", categories=["HQ"], profiles=[
        lists.unit40k("Broodlord", 7, 6, 5, 3, 7, 4, 10, "4+")], children=[
        lists.sel("Monstrous Claws", profiles=[lists.weapon40k("Claws", S="User x2")])])
    imported = import_list(write("g.ros", lists.ros("wh40k3", [("F", "C", [stealer, lord])])))
    assert imported.weapons == {"claws": {"two_weapon": True},
                                "claws (2)": {"two_weapon": True, "strength_mult": 2}}
    assert _unit(imported, "Broodlord")["models"][0]["equipment"] == ["claws (2)"]


def test_items_for_some_models_that_overlap_are_a_problem(write):
    vets = lists.sel("Veteran Squad", "unit", children=[
        lists.sel("Veteran", "model", 5, pts=75, profiles=[
            lists.unit40k("Veteran", 4, 4, 4, 1, 4, 1, 8, "3+")]),
        lists.sel("Power Weapon", number=3, pts=30), lists.sel("Plasma Pistol", number=3,
                                                                pts=30)])
    with pytest.raises(ScenarioError, match=r"Plasma Pistol: 3 of it, besides another item "
                                            r"bought for some of the unit's models"):
        import_list(write("v.ros", lists.ros("wh40k3", [("F", "C", [vets])])))


@pytest.mark.parametrize("game, number, count, equipment", [
    ("mordheim", 2, 1, ["axe", "axe"]),             # a hero's two axes: two weapons
    ("wh40k3", 2, 1, ["lightning claw", "lightning claw"]),  # a pair (R0-3's re-roll)
    ("wh40k3", 9, 9, ["lightning claw"]),           # one each
])
def test_an_item_counted_over_its_models(write, game, number, count, equipment):
    """A model entry's item is counted over all its models (BattleScribe's totals): N per
    model is N x its models."""
    name = "Lightning Claw" if game == "wh40k3" else "Axe"
    weapon = (lists.weapon40k(name, Abilities="Ignores all Armor Saves") if game == "wh40k3"
              else lists.hth(name, Special="Cutting edge"))
    model = (lists.unit40k("Hero", 5, 4, 4, 2, 5, 3, 10, "3+") if game == "wh40k3"
             else lists.model_m("Hero", 4, 2, 2, 3, 3, 1, 3, 1, 6))
    hero = lists.sel("Hero", "model", count, categories=["HQ", "Heroes"], profiles=[model],
                     children=[lists.sel(name, number=number, profiles=[weapon])])
    imported = import_list(write("h.ros", lists.ros(game, [("F", "C", [hero])])))
    assert imported.units[0].table["models"][0]["equipment"] == equipment


def test_a_special_weapon_in_a_model_entry_arms_that_many_models(write):
    """wh40k3 (units buy per model): two power weapons in the entry of nine marines arm two
    of them, a group of their own; three among two models is a problem naming the fix."""
    marines = lists.sel("Marine", "model", 9, pts=135, profiles=[
        lists.unit40k("Marine", 4, 4, 4, 1, 4, 1, 8, "3+")], children=[
        lists.sel("Power Weapon", number=2, pts=20)])
    squad = lists.sel("Squad", "unit", children=[marines])
    imported = import_list(write("s.ros", lists.ros("wh40k3", [("F", "C", [squad])])))
    groups = imported.units[0].table["models"]
    assert [(g["name"], g["count"], g["equipment"]) for g in groups] == [
        ("Marine", 7, []), ("Marine with Power Weapon", 2, ["power weapon"])]
    assert sum(g["points"] * g["count"] for g in groups) == pytest.approx(155)
    pair = lists.sel("Squad", "unit", children=[lists.sel("Marine", "model", 2, profiles=[
        lists.unit40k("Marine", 4, 4, 4, 1, 4, 1, 8, "3+")], children=[
        lists.sel("Power Weapon", number=3)])])
    path = write("p.ros", lists.ros("wh40k3", [("F", "C", [pair])]))
    fixed = _fixed_by_map(write, path, r"F > Squad > Marine > Power Weapon: 3 of it among 2 "
                          r"models: .* \[fights_with\] \"Marine\"",
                          '[fights_with]\nMarine = ["power weapon"]\n')
    assert fixed.units[0].table["models"][0]["equipment"] == ["power weapon"]


@pytest.mark.parametrize("text, saves", [("3+", {"Sv": 3}), ("-", {}), ("-/5+", {"Inv": 5}),
                                         ("3+/5+", {"Sv": 3, "Inv": 5}), ("4++", {"Inv": 4}),
                                         ("5", {"Sv": 5}), ("", {})])
def test_wh40k3_saves_as_written(write, text, saves):
    unit = lists.sel("Guard", "unit", profiles=[lists.unit40k("Guard", 3, 3, 3, 1, 3, 1, 7,
                                                              text)], pts=5)
    imported = import_list(write("g.ros", lists.ros("wh40k3", [("F", "C", [unit])])))
    profile = imported.units[0].table["models"][0]["profile"]
    assert {k: v for k, v in profile.items() if k in ("Sv", "Inv")} == saves


def test_an_unreadable_stat_names_the_profile_and_the_fix(write):
    unit = lists.sel("Boss", "unit", profiles=[lists.unit40k("Boss", 4, 4, 4, "D3", 4, 2, 8,
                                                             "*")])
    path = write("b.ros", lists.ros("wh40k3", [("F", "C", [unit])]))
    with pytest.raises(ScenarioError, match=r"W is 'D3', not a whole number; give it in a "
                                            r"--map file: \[profiles.\"Boss\"\] W = N"):
        import_list(path)
    fixed = write("fix.toml", '[profiles.Boss]\nW = 2\nSv = 4\n')
    profile = import_list(path, map=fixed).units[0].table["models"][0]["profile"]
    assert profile["W"] == 2 and profile["Sv"] == 4


@pytest.mark.parametrize("text, read", [
    ("As User", {}), ("As user", {}), ("User", {}), ("User x2", {"strength_mult": 2}),
    ("x2", {"strength_mult": 2}), ("User x 2", {"strength_mult": 2}),
    ("User +2", {"strength_bonus": 2}), ("'+1", {"strength_bonus": 1}),
    ("+2", {"strength_bonus": 2}), ("S+1", {"strength_bonus": 1}),
    ("As user (+2)", {"strength_bonus": 2}), ("As user -1", {"strength_bonus": -1}),
    ("", None), ("User/User +2 when charging", None), ("+1*", None), ("3(6)", None),
    ("D6", None), ("4", None)])
def test_strength_as_lists_write_it(text, read):
    assert _strength(text) == read


def test_a_weapon_with_rules_text_must_be_mapped(write):
    claw = lists.sel("Nob", "unit", pts=30, profiles=[lists.unit40k("Nob", 4, 4, 4, 2, 3, 3, 7,
                                                                    "6+")], children=[
        lists.sel("Big Choppa", profiles=[lists.weapon40k("Big Choppa", S="User +2",
                                                          Abilities="Armour save 4+ at best")])])
    path = write("n.ros", lists.ros("wh40k3", [("F", "C", [claw])]))
    with pytest.raises(ScenarioError, match=r"unknown close-combat weapon 'Big Choppa': its "
                                            r"Abilities says 'Armour save 4\+ at best', which "
                                            r"odds does not read \(an \[abilities\] entry"):
        import_list(path)
    mapped = write("m.toml", '[equipment]\n"Big Choppa" = "choppa"\n')
    assert import_list(path, map=mapped).units[0].table["models"][0]["equipment"] == ["choppa"]


@pytest.mark.parametrize("game, profile, read", [
    ("wh40k3", lists.weapon40k("Dark Blade", S="User +2", Abilities="Ignores armour saves"),
     {"two_weapon": True, "strength_bonus": 2, "ignores_armour": True, "removed_last": True}),
    ("wh40k3", lists.weapon40k("Chainaxe", Abilities="Max 4+ Armour Save allowed."),
     {"two_weapon": True, "save_cap": 4}),
    ("wh40k3", lists.weapon40k("Glaive", S="User +1", Abilities="Two-Handed"),
     {"two_weapon": False, "strength_bonus": 1}),
    ("whfb8", lists.weapon8("Brute Axe", "'+1", Special__Rules="Always Strikes Last (BRB-66)"),
     {"strength_bonus": 1, "strikes_last": True}),
    ("whfb8", lists.weapon8("Runic Axe", "As user", Special__Rules="+1A, Armour Piercing "
                                                                   "(BRB-67), Requires Two Hands"),
     {"extra_attack": 1, "armour_piercing": 1}),
    ("mordheim", lists.hth("Dwarf Axe", Special="Cutting edge, Parry"),
     {"save_modifier": -1, "parry": True}),
    ("mordheim", lists.hth("Scythe", Str="As user +1", Special="Difficult to use"),
     {"strength_bonus": 1, "difficult": True}),
])
def test_a_weapon_read_from_its_profile_with_the_rules_text_odds_reads(write, game, profile,
                                                                       read):
    """Each game's [abilities] reads the usual rules texts of a weapon odds does not know by
    name, part by part (a page reference in brackets dropped); the result plays."""
    model = {"wh40k3": lists.unit40k("Hero", 5, 4, 4, 2, 5, 3, 9, "3+"),
             "whfb8": lists.model8("Hero", 4, 5, 4, 4, 2, 5, 3, 8),
             "mordheim": lists.model_m("Hero", 4, 4, 4, 3, 3, 1, 4, 1, 8)}[game]
    hero = lists.sel("Hero", "model", categories=["HQ", "Heroes"], pts=50, profiles=[model],
                     children=[lists.sel(profile[0], profiles=[profile])])
    imported = import_list(write("h.ros", lists.ros(game, [("F", "C", [hero])])))
    assert imported.weapons == {profile[0].lower(): read}
    assert imported.units[0].table["models"][0]["equipment"] == [profile[0].lower()]
    assert odds.roster(imported.roster, trials=1, quiet=True).mine.weapons == imported.weapons


# -- whfb8 -------------------------------------------------------------------------------------

def test_whfb8_list_command_characters_mounts(write):
    imported = import_list(write("empire.ros", lists.empire()), skip_unknown=True)
    halberdiers = _unit(imported, "Halberdiers")
    assert {k: halberdiers[k] for k in ("width", "standard", "musician")} == \
        {"width": 5, "standard": True, "musician": True}
    ranks, champion = halberdiers["models"]
    assert (ranks["count"], champion["count"], champion["champion"]) == (19, 1, True)
    assert ranks["equipment"] == champion["equipment"] == ["halberd", "light armour"]
    assert champion["profile"]["A"] == 2 and ranks["profile"]["Ld"] == 7
    assert ranks["points"] * 19 + champion["points"] == pytest.approx(145, abs=0.01)
    captain = _unit(imported, "Captain of the Empire")["models"][0]
    assert captain["character"] and captain["troop_type"] == "cavalry"
    assert captain["mount"] == {"WS": 3, "S": 3, "I": 3, "A": 1}
    assert captain["equipment"] == ["great weapon", "full plate armour", "barding"]
    knights = _unit(imported, "Empire Knights")["models"][0]
    assert knights["troop_type"] == "cavalry" and "mount" in knights
    assert knights["equipment"] == ["lance", "full plate armour", "shield", "barding"]
    assert imported.report.problems == [
        "Standard > Steam Tank: a unique: odds' whfb8 plays cavalry, infantry, monstrous "
        "cavalry, monstrous infantry only"]
    assert "every unit: width = 5 (the list does not say; change it in the roster)" in \
        imported.report.notes


def test_whfb8_detachments_mounts_barding_and_types_as_the_data_set_writes_them(write):
    """A unit's detachment (a unit inside it) is a unit of its own, its models and cost not
    the parent's; barding bought inside the mount is the rider's; a type with a note in
    brackets ("Infantry (General of the Empire)") reads as its type."""
    detachment = lists.sel("Handgunners", "unit", children=[
        lists.sel("Handgunners", "model", 5, pts=40,
                  profiles=[lists.model8("Handgunner", 4, 3, 3, 3, 1, 3, 1, 7)]),
        lists.sel("Hand Weapon", profiles=[lists.weapon8("Hand Weapon")])])
    halberdiers = lists.sel("Halberdiers", "unit", categories=["Core"], children=[
        lists.sel("Halberdiers", "model", 20, pts=120,
                  profiles=[lists.model8("Halberdier", 4, 3, 3, 3, 1, 3, 1, 7)]),
        lists.sel("Halberd", profiles=[lists.weapon8("Halberd", "'+1")]), detachment])
    general = lists.sel("General of the Empire", "model", categories=["Lords"], pts=85,
                        profiles=[lists.model8("General", 4, 5, 4, 4, 3, 5, 3, 9,
                                               Type="Infantry (General of the Empire)")],
                        children=[lists.sel("Hand Weapon"), lists.sel("Warhorse", pts=12,
                                                                      profiles=[
                            lists.model8("Warhorse", 8, 3, 3, 3, 1, 3, 1, 5, Type="Cavalry")],
                            children=[lists.sel("Barding", pts=6, profiles=[
                                lists.armour8("Barding", "-1")])])])
    path = write("d.ros", lists.ros("whfb8", [("F", "C", [halberdiers, general])]))
    imported = import_list(path)
    assert [(u.table["name"], u.points) for u in imported.units] == [
        ("Halberdiers", 120), ("Handgunners", 40), ("General of the Empire", 103)]
    assert [g["count"] for g in _unit(imported, "Halberdiers")["models"]] == [20]
    rider = _unit(imported, "General of the Empire")["models"][0]
    assert rider["troop_type"] == "cavalry" and rider["equipment"] == ["hand weapon", "barding"]
    assert rider["mount"] == {"WS": 3, "S": 3, "I": 3, "A": 1}


def test_whfb8_steeds_bought_for_the_regiment_and_champions_written_as_models(write):
    """The data set puts a regiment's steed on the unit entry (Marauder Horsemen), types a
    knight's "Lance and Shield" option as a unit, writes "Heavy Armor" holding a "Heavy
    Armour" profile, and the Dark Elves book types its champions as models: all are read."""
    horse = lists.model8("Warhorse", 8, 3, 3, 3, 1, 3, 1, 5, Type="War Beast")
    horsemen = lists.sel("Marauder Horsemen", "unit", profiles=[horse], children=[
        lists.sel("Marauder Horsemen", "model", 5, pts=70, profiles=[
            lists.model8("Marauder", 4, 4, 3, 3, 1, 4, 1, 7, Type="-")]),
        lists.sel("Lance and Shield", "unit", pts=10, profiles=[
            lists.weapon8("Lance", "'+2"), lists.armour8("Shield", "-1")]),
        lists.sel("Heavy Armor", profiles=[lists.armour8("Heavy Armour", "5+")])])
    spears = lists.sel("Dreadspears", "unit", children=[
        lists.sel("Dreadspears", "model", 9, pts=90, profiles=[
            lists.model8("Dreadspear", 5, 4, 3, 3, 1, 5, 1, 8)]),
        lists.sel("Lordling", "model", 1, pts=10, profiles=[
            lists.model8("Lordling", 5, 4, 3, 3, 1, 5, 2, 8)]),
        lists.sel("Musician", "model", 1, pts=5)])
    imported = import_list(write("h.ros", lists.ros("whfb8", [("F", "C", [horsemen, spears])])))
    riders = _unit(imported, "Marauder Horsemen")["models"][0]
    assert riders["troop_type"] == "cavalry" and riders["mount"] == {"WS": 3, "S": 3, "I": 3,
                                                                     "A": 1}
    assert riders["equipment"] == ["lance", "shield", "heavy armour"]
    spearmen = _unit(imported, "Dreadspears")
    assert [(g["name"], g["count"], g.get("champion", False)) for g in spearmen["models"]] == [
        ("Dreadspears", 9, False), ("Lordling", 1, True)]
    assert spearmen["musician"] is True


def test_whfb8_champion_carries_the_wargear_of_the_rank_and_file(write):
    """The data set buys a regiment's shields inside the rank and file's entry; the
    champion, one of those models (R2), carries them too."""
    unit = lists.sel("Halberdiers", "unit", categories=["Core"], children=[
        lists.sel("Halberdiers", "model", 20, pts=120, profiles=[
            lists.model8("Empire Soldier", 4, 3, 3, 3, 1, 3, 1, 7)], children=[
            lists.sel("Shield", number=20, pts=20, profiles=[lists.armour8("Shield", "-1")]),
            lists.sel("Halberd", number=20, profiles=[lists.weapon8("Halberd", "'+1")])]),
        lists.sel("Champion", pts=10, profiles=[lists.model8("Sergeant", 4, 3, 3, 3, 1, 3, 2,
                                                             7)])])
    imported = import_list(write("h.ros", lists.ros("whfb8", [("F", "C", [unit])])))
    ranks, champion = imported.units[0].table["models"]
    assert (ranks["count"], champion["count"]) == (19, 1)
    assert ranks["equipment"] == champion["equipment"] == ["shield", "halberd"]


@pytest.mark.parametrize("rule, read", [("Detachment (FAQ'ed)", None),
                                        ("Hatred (High Elves)", "Hatred"),
                                        ("Always Strikes First (FAQ'ed)", "Always Strikes First"),
                                        ("Terror", "Fear")])
def test_whfb8_rules_with_a_note_in_brackets(write, rule, read):
    unit = lists.sel("Guard", "unit", children=[lists.sel("Guard", "model", 10, rules=[rule],
                                                          profiles=[lists.model8(
                                                              "Guard", 5, 4, 3, 3, 1, 5, 1, 8)])])
    imported = import_list(write("g.ros", lists.ros("whfb8", [("F", "C", [unit])])))
    assert imported.units[0].table["models"][0].get("rules") == (None if read is None
                                                                 else [read])


def test_whfb8_join_puts_a_character_into_a_unit(write):
    path = write("empire.ros", lists.empire())
    joined = import_list(path, skip_unknown=True, map=write(
        "join.toml", 'ruleset = "whfb8"\n[join]\n"Captain of the Empire" = "Empire Knights"\n'))
    assert [u.table["name"] for u in joined.units] == ["Halberdiers", "Empire Knights"]
    knights = _unit(joined, "Empire Knights")["models"]
    assert [g["name"] for g in knights] == ["Knight", "Captain of the Empire"]
    assert knights[1]["character"] and joined.units[1].points == 110 + 83
    assert any("joined to Standard > Empire Knights" in x for x in joined.report.notes)
    # a mounted captain cannot join infantry (R2: a character has its unit's troop type)
    with pytest.raises(ScenarioError, match=r"\[join\] 'captain of the empire': cannot join "
                                            r"'Halberdiers': .*troop type"):
        import_list(path, map=write("foot.toml", '[join]\n"Captain of the Empire" = '
                                                 '"Halberdiers"\n'), skip_unknown=False)
    with pytest.raises(ScenarioError, match=r"\[join\] 'nobody': no character 'nobody'"):
        import_list(path, map=write("bad.toml", '[join]\nnobody = "Halberdiers"\n'))


def test_whfb8_join_tells_two_characters_of_one_name_apart(write):
    """Two captains are "Captain of the Empire" and "Captain of the Empire (2)" in the
    roster; [join] names each as the roster does."""
    xml = lists.empire().decode()
    start = xml.index('<selection id="s', xml.index('name="Captain of the Empire"') - 40)
    end = xml.index('<selection', xml.index('name="Empire Knights"') - 60)
    twice = (xml[:end] + xml[start:end] + xml[end:]).encode()
    path = write("two.ros", twice)
    joined = import_list(path, skip_unknown=True, map=write(
        "join.toml", '[join]\n"Captain of the Empire (2)" = "Empire Knights"\n'))
    assert [u.table["name"] for u in joined.units] == ["Halberdiers", "Captain of the Empire",
                                                       "Empire Knights"]
    assert [g["name"] for g in _unit(joined, "Empire Knights")["models"]] == [
        "Knight", "Captain of the Empire"]


def test_a_champion_odds_does_not_know_by_name_is_a_problem_with_the_fix(write):
    """whfb8 reads a unit's upgrade with its own Model profile as its champion only by name;
    another name fails, saying which key takes it, and the map's champion_models plays it."""
    chief = lists.sel("Chief of the Clan", pts=10,
                      profiles=[lists.model8("Chief", 4, 4, 3, 3, 1, 3, 2, 8)])
    unit = lists.sel("Clansmen", "unit", categories=["Core"], children=[
        lists.sel("Clansman", "model", 10, pts=60,
                  profiles=[lists.model8("Clansman", 4, 3, 3, 3, 1, 3, 1, 7)]), chief,
        lists.sel("Hand Weapon", profiles=[lists.weapon8("Hand Weapon")])])
    path = write("c.ros", lists.ros("whfb8", [("F", "C", [unit])]))
    fixed = _fixed_by_map(write, path, r"F > Clansmen > Chief of the Clan: 'Chief of the "
                          r"Clan' is a model bought as an upgrade, which odds' whfb8 reads "
                          r"as a unit's champion or a mount: name it in a --map file, in "
                          r"champion_models",
                          'champion_models = ["Chief"]\n')
    groups = fixed.units[0].table["models"]
    assert [(g["name"], g["count"], g.get("champion", False)) for g in groups] == [
        ("Clansman", 9, False), ("Chief of the Clan", 1, True)]


# -- mordheim ----------------------------------------------------------------------------------

def test_mordheim_warband_from_a_rosz(write):
    imported = import_list(write("grey.rosz", lists.rosz(lists.reiklanders())))
    captain = _unit(imported, "Mercenary Captain")["models"][0]
    assert captain == {"name": "Mercenary Captain", "count": 1,
                       "profile": {"M": 4, "WS": 4, "BS": 4, "S": 3, "T": 3, "W": 1, "I": 4,
                                   "A": 1, "Ld": 8},
                       "equipment": ["sword", "light armour"], "rules": ["Mighty Blow"]}
    warriors = _unit(imported, "Warriors")["models"][0]
    assert (warriors["count"], warriors["equipment"]) == (3, ["axe", "shield"])
    assert "points" not in warriors  # gold crowns go to the comment
    assert [u.points for u in imported.units] == [100, 105]
    assert "# Warband > Warriors, 105 gc in the list" in imported.toml()
    assert any("Experience: plays no part in melee" in x for x in imported.report.left_out)


@pytest.mark.parametrize("name", ["Duelling Pistol", "Pistol"])
def test_mordheim_pistols_fight_in_hand_to_hand(write, name):
    """A mordheim pistol is a Ranged Weapon in the list but also strikes in hand-to-hand
    (R1: odds' pistol, once per combat); a bow is left out."""
    hero = lists.sel("Marksman", "model", categories=["Heroes"], pts=25,
                     profiles=[lists.model_m("Marksman", 4, 3, 4, 3, 3, 1, 3, 1, 7)],
                     children=[lists.sel(name, pts=15, profiles=[lists.profile(
                         name, "Ranged Weapon", Range='10"', Str=4, Special="Prepare shot")]),
                         lists.sel("Dagger", profiles=[lists.hth("Dagger")])])
    imported = import_list(write("p.ros", lists.ros("mordheim", [("W", "C", [hero])])))
    assert imported.units[0].table["models"][0]["equipment"] == ["dagger", "pistol"]  # off hand


def test_mordheim_more_weapons_than_hands_asks_which_he_fights_with(write):
    """A warband's warrior may own more weapons than his two hands hold (R1-10): the import
    does not choose, it says how to ([fights_with]), and the map's choice plays."""
    hero = lists.sel("Champion", "model", categories=["Heroes"], pts=35,
                     profiles=[lists.model_m("Champion", 4, 4, 3, 3, 3, 1, 3, 1, 7)],
                     children=[lists.sel(n, profiles=[lists.hth(n)])
                               for n in ("Dagger", "Sword", "Axe")])
    path = write("h.ros", lists.ros("mordheim", [("W", "C", [hero])]))
    chosen = _fixed_by_map(write, path, r"W > Champion: models\[0\]\.equipment: dagger, "
                           r"sword, axe: a warrior has two hands \(R1-10\); choose what it "
                           r"fights with in a --map file: \[fights_with\] \"Champion\" = "
                           r"\[\.\.\.\]", '[fights_with]\nChampion = ["sword", "axe"]\n')
    assert chosen.units[0].table["models"][0]["equipment"] == ["sword", "axe"]
    assert any("fights with sword, axe ([fights_with]; the list gives dagger, sword, axe)" in x
               for x in chosen.report.notes)


def test_mordheim_a_races_maximum_is_not_the_heros_stat_line(write):
    """The data set links "Human max" (a Model profile of the race's maximum characteristics)
    to a hero: it is not his stat line, whichever comes first."""
    hero = lists.sel("Mercenary Captain", "model", categories=["Heroes"], pts=60, profiles=[
        lists.model_m("Human max", 4, 6, 6, 4, 4, 3, 6, 4, 9),
        lists.model_m("Mercenary Captain", 4, 4, 4, 3, 3, 1, 4, 1, 8)])
    imported = import_list(write("c.ros", lists.ros("mordheim", [("W", "C", [hero])])))
    assert imported.units[0].table["models"][0]["profile"]["WS"] == 4


def test_mordheim_names_as_the_public_data_set_writes_them(write):
    """Entries spelt as the Mordheim data set spells them: advances the roster's profile
    already shows (a note, nothing added), a skill taken as an upgrade carrying its rule (a
    typo of the data set's mapped), the free dagger, the one-l dueling pistol; a skill odds
    does not play is a problem that says it is a rule to map."""
    skills = [lists.sel("+1 A"), lists.sel("+1 WS"),
              lists.sel("Strike To Inure", rules=["Strike To Inure"]),
              lists.sel("Free Dagger", profiles=[lists.hth("Free Dagger", Special="+1 enemy "
                                                          "save")]),
              lists.sel("Dueling Pistol", profiles=[lists.profile(
                  "Dueling Pistol", "Ranged Weapon", Range='10"', Str=4,
                  Special="Accuracy, Prepare shot, Save modifier, Hand-to-hand")])]
    hero = lists.sel("Champion", "model", categories=["Heroes"], pts=35,
                     profiles=[lists.model_m("Champion", 4, 5, 3, 3, 3, 1, 3, 2, 7)],
                     children=skills)
    imported = import_list(write("c.ros", lists.ros("mordheim", [("W", "C", [hero])])))
    group = imported.units[0].table["models"][0]
    assert group["equipment"] == ["dagger", "pistol"] and group["rules"] == ["Strike to Injure"]
    assert group["profile"]["WS"] == 5 and group["profile"]["A"] == 2  # as the roster wrote
    assert "W > Champion > +1 A: already in the stat line as the list writes it" in \
        imported.report.notes
    hero["children"].append(lists.sel("Combat Master", rules=["Combat Master"]))
    with pytest.raises(ScenarioError, match=r"W > Champion > Combat Master: unknown special "
                                            r"rule 'Combat Master': map it in a --map file "
                                            r"\(\[rules\]"):
        import_list(write("d.ros", lists.ros("mordheim", [("W", "C", [hero])])))


# -- the roster it writes, and playing lists directly --------------------------------------------

def test_the_written_roster_reads_back_as_the_same_units(write, tmp_path):
    for name, data in (("a.ros", lists.blood_angels()), ("e.ros", lists.empire()),
                       ("m.rosz", lists.rosz(lists.reiklanders()))):
        imported = import_list(write(name, data), skip_unknown=True)
        toml = write(name + ".toml", imported.toml())
        again = odds.roster(toml, trials=1, quiet=True)  # it plays
        assert again.mine.units == imported.roster.units
        assert again.mine.weapons == imported.roster.weapons


def test_roster_takes_lists_directly_with_the_same_numbers(write):
    angels = write("a.ros", lists.blood_angels())
    with pytest.raises(ScenarioError, match="Rhino"):  # strict in Python: import_list skips
        odds.roster(angels, trials=100, quiet=True)
    imported = import_list(angels, skip_unknown=True)
    direct = odds.roster(imported.roster, trials=3_000, seed=5, quiet=True)
    written = odds.roster(write("a.toml", imported.toml()), trials=3_000, seed=5, quiet=True)
    assert direct.frame.equals(written.frame)


def test_cli_import_writes_and_reports(write, tmp_path, capsys):
    path = write("angels.ros", lists.blood_angels())
    assert main(["import", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("odds: error: ") and "Rhino" in err and "Traceback" not in err
    out = tmp_path / "angels.toml"
    assert main(["import", str(path), "--skip-unknown", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "dropped (1, --skip-unknown)" in err and "left out, no part in melee (5)" in err
    assert "readings taken" in err and f"wrote {out}" in err
    assert main(["validate", str(out)]) == 0
    capsys.readouterr()
    assert main(["import", str(path), "--skip-unknown"]) == 0
    assert capsys.readouterr().out == out.read_text()
    assert main(["import", str(path), "--skip-unknown", "-o", str(path)]) == 2
    assert main(["import", str(out)]) == 2
    assert "not an exported army list" in capsys.readouterr().err


def test_cli_roster_of_two_lists(write, capsys):
    angels = write("a.ros", lists.blood_angels())
    assert main(["roster", str(angels), str(angels), "--trials", "500", "--both-ways"]) == 2
    assert "Rhino" in capsys.readouterr().err
    assert main(["roster", str(angels), "--skip-unknown", "--trials", "500"]) == 0
    captured = capsys.readouterr()
    assert "left out, no part in melee: 5 (`odds import" in captured.err
    assert "Assault Squad" in captured.out
    assert main(["roster", "data/rosters/wh40k3_orks.toml", "--skip-unknown"]) == 2
    assert "neither roster is one" in capsys.readouterr().err
    assert main(["validate", str(write("g.rosz", lists.rosz(lists.reiklanders())))]) == 0
    assert "ok (army list, mordheim, 'The Grey Company', 2 units)" in capsys.readouterr().out
    assert main(["validate", str(angels)]) == 2
    assert "Rhino" in capsys.readouterr().err
    assert main(["validate", str(angels), "--skip-unknown"]) == 0
    assert "ok (army list, wh40k3, 'Angels of Death', 3 units, 1 entry dropped)" in \
        capsys.readouterr().out
    assert main(["validate", "data/rosters/wh40k3_orks.toml", "--skip-unknown"]) == 2
    assert "no FILE is one" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["simulate"], ["compare"], ["sweep"],
                                     ["units", "wh40k3", "--pack"]])
def test_a_list_given_where_a_scenario_goes_says_what_to_do(capsys, command):
    path = str(DATA / "wh40k3_orks_2000.rosz")
    argv = command + [path] + (["defender.models[0].count", "5,10"] if command == ["sweep"]
                               else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "is an exported army list" in err and "odds import" in err and "UTF-8" not in err


# -- the user's map ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("weapon = 1\n", r"map.toml: weapon: unknown key; did you mean 'read_weapon'\?; allowed "
                     r"here: abilities, armour_profiles"),
    ('ruleset = "whfb8"\n', r"map.toml: ruleset: is 'whfb8', but the list is a wh40k3 roster"),
    ("[equipment]\nclaw = 3\n", r"map.toml: equipment.claw: must be a list of names"),
    ("[profiles.Boss]\nW = 99\n", r"map.toml: profiles.Boss.W"),
    ("game = [\n", r"map.toml: malformed TOML"),
])
def test_a_bad_map_names_its_file_and_field(write, text, message):
    path = write("angels.ros", lists.blood_angels())
    with pytest.raises(ScenarioError, match=message):
        import_list(path, map=write("map.toml", text))


def test_the_readme_map_reads_and_plays(write):
    """The README's example map file, as written, on the bundled Ork list."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"\*\*Your own names\*\*.*?```toml\n(.*?)```", readme, re.S)[1]
    own = write("map.toml", textwrap.dedent(block))
    imported = import_list(DATA / "wh40k3_orks_2000.rosz", map=own)
    boss = _unit(imported, "Warboss")["models"][0]
    assert boss["profile"]["W"] == 3 and boss["equipment"] == ["power klaw", "slugga"]
    assert imported.mapping.profiles == {"warboss": {"W": 3}}
    assert imported.mapping.equipment["big choppa"] == ["choppa"]
    assert imported.mapping.rules["waaagh!"] == ""
    assert imported.mapping.abilities["re-roll failed wound rolls"] == {"reroll_wound":
                                                                       "failures"}
    assert "ignores armour saves" in imported.mapping.abilities  # on top of the bundled


def test_a_map_may_not_give_champions_to_a_game_without_them(write):
    path = write("angels.ros", lists.blood_angels())
    with pytest.raises(ScenarioError, match=r"map.toml: champion_models: odds' wh40k3 has no "
                                            r"unit champions: a sergeant or leader is a "
                                            r"character \(name it in character_models\)"):
        import_list(path, map=write("map.toml", 'champion_models = ["Exarch"]\n'))


def test_a_weapon_holding_an_upgrade_of_its_own_reads_it(write):
    """Mordheim's "Gromril Axe" holds "Gromril Weapon": odds does not play it, and says so
    (it is not dropped with the axe played plain)."""
    hero = lists.sel("Champion", "model", categories=["Heroes"], pts=35, profiles=[
        lists.model_m("Champion", 4, 4, 3, 3, 3, 1, 3, 1, 7)], children=[
        lists.sel("Gromril Axe", pts=20, profiles=[lists.hth("Axe", Special="Cutting edge")],
                  children=[lists.sel("Gromril Weapon", rules=["Gromril weapon"])])])
    path = write("g.ros", lists.ros("mordheim", [("W", "C", [hero])]))
    with pytest.raises(ScenarioError, match=r"Gromril Axe > Gromril Weapon: unknown special "
                                            r"rule 'Gromril weapon'"):
        import_list(path)
    played = import_list(path, map=write("m.toml", '[rules]\n"gromril weapon" = ""\n'))
    assert played.units[0].table["models"][0]["equipment"] == ["axe"]


def test_an_import_shows_its_units_and_report():
    imported = import_list(DATA / "wh40k3_orks_2000.rosz")
    text, page = repr(imported), imported._repr_html_()
    assert text.splitlines()[0].endswith("list 'Waaagh!, 2,000 points': 11 units read")
    assert "left out, no part in melee (3):" in text and "readings taken" in text
    assert "<td>Big Mob (klaw)</td><td>1-Standard Missions &gt; Slugga Boyz</td><td>30</td>" \
           "<td>336</td>" in page and "&#x27;Waaagh!, 2,000 points&#x27;" in page


def test_python_arguments_are_checked():
    with pytest.raises(TypeError, match="army list must be the path of a .ros or .rosz"):
        import_list(3)
    with pytest.raises(TypeError, match="map must be the path of a TOML file"):
        import_list("x.ros", map=1)


# -- untrusted files -----------------------------------------------------------------------------

def _zip(members: dict[str, bytes]) -> bytes:
    """A zip of ``members``, the same bytes in every process (a fixed date: the test ids
    hold the bytes, and pytest-xdist's workers must collect the same ids)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data,
                       compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def _corrupt(data: bytes) -> bytes:
    """A zip whose compressed bytes are damaged (the headers intact): zlib fails reading."""
    start = data.index(b"list.ros") + len("list.ros")
    damaged = bytearray(data)
    for k in range(start + 10, start + 60):
        damaged[k] ^= 0x5A
    return bytes(damaged)


def _deep(depth: int) -> bytes:
    inner = lists.sel("X", "model")
    for _ in range(depth):
        inner = lists.sel("Box", children=[inner])
    return lists.ros("mordheim", [("W", "C", [inner])])


LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE roster [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>
<roster name="&d;" gameSystemName="Mordheim"/>"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE roster [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<roster name="&x;" gameSystemName="Mordheim"/>"""


@pytest.mark.parametrize("name, data, message", [
    ("bomb.rosz", _zip({"list.ros": b" " * (MAX_XML + 10)}),
     "unzips to more than 67,108,864 bytes"),
    ("laughs.ros", LAUGHS, "document types and entities are not allowed"),
    ("external.ros", EXTERNAL, "document types and entities are not allowed"),
    ("cut.ros", lists.blood_angels()[:700], r"is not well-formed XML \(line"),
    ("empty.ros", b"", "is not well-formed XML"),
    ("binary.ros", bytes(range(256)) * 4, "is not well-formed XML"),
    ("none.rosz", _zip({"readme.txt": b"hi"}), r"a zip with no .ros roster in it \(found "
                                               r"'readme.txt'\)"),
    ("two.rosz", _zip({"a.ros": b"<roster/>", "b.ros": b"<roster/>"}), "with 2 .ros rosters"),
    ("escape.rosz", _zip({"../../list.ros": lists.reiklanders()}), "a path out of the archive"),
    ("plain.rosz", lists.reiklanders(), "is not a zip file"),
    ("damaged.rosz", _zip({"list.ros": lists.reiklanders()})[:60], "damaged zip"),
    ("catalogue.ros", b'<catalogue name="x"/>', r"its root is <catalogue>, not <roster>"),
    ("ninth.ros", lists.ros("Warhammer 40,000 9th Edition", []),
     r"a roster of 'Warhammer 40,000 9th Edition', which odds does not import \(it reads "
     r"wh40k3: Warhammer 40k 3rd Edition"),
    ("count.ros", lists.ros("mordheim", [("W", "C", [lists.sel("X", "model", "lots")])]),
     r"selection 'W > X' has number='lots'"),
    ("cost.ros", lists.ros("mordheim", [("W", "C", [lists.sel("X", "model", pts="nan")])]),
     "a cost ' gc' of 'nan' is not a number"),
    ("nothing.ros", lists.ros("mordheim", [("W", "C", [])]), "has no unit odds can play"),
    ("crc.rosz", _corrupt(_zip({"list.ros": lists.reiklanders()})), "cannot unzip 'list.ros'"),
    ("half.ros", lists.ros("mordheim", [("W", "C", [lists.sel("X", "model", "2.5")])]),
     r"selection 'W > X' has number='2.5', not a whole number"),
    ("deep.ros", _deep(200), "has selections nested more than 60 deep"),
    ("superscript.ros", lists.ros("mordheim", [("W", "C", [lists.sel("X", "model", profiles=[
        lists.model_m("X", 4, 3, 3, 3, 3, 1, 3, "\u00b2", 7)])])]), r"A is '\u00b2', not a whole "
                                                                   r"number"),
])
def test_bad_files_are_one_clear_error(write, capsys, name, data, message):
    path = write(name, data)
    with pytest.raises(ScenarioError, match=message) as e:
        import_list(path)
    assert str(e.value).startswith(str(path))
    assert main(["import", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"odds: error: {path}") and "Traceback" not in err


def test_a_line_break_in_a_name_writes_a_roster_that_reads_back(write):
    hero = lists.sel("Cap\ntain", "model", categories=["Heroes"], pts=60, profiles=[
        lists.model_m("Captain", 4, 4, 4, 3, 3, 1, 4, 1, 8)], custom="The\nBold")
    imported = import_list(write("n.ros", lists.ros("mordheim", [("W\nX", "C", [hero])],
                                                    name="Grey\nCompany")))
    again = odds.roster(write("n.toml", imported.toml()), trials=1, quiet=True)
    assert again.mine.unit_names == ["The Bold"] and again.mine.name == "Grey Company"


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(ScenarioError, match="no such file"):
        import_list(tmp_path / "gone.rosz")
    (tmp_path / "dir.ros").mkdir()
    with pytest.raises(ScenarioError, match="is a folder"):
        import_list(tmp_path / "dir.ros")
