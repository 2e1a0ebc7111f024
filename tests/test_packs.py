"""Profile packs: picking units by name, replacing keys, `set` edits, users' packs before the
bundled one, and every mistake named where it was written."""
from __future__ import annotations

import textwrap

import pytest

import odds
from odds.cli import main
from odds.errors import ScenarioError
from odds.analysis.pack_listing import check_pack, listing
from odds.rulesets import RULESETS

PACK = """\
ruleset = "wh40k3"
name = "test pack"

[[units]]
name = "Ork Boyz"
source = "Codex: Orks (1999)"
[[units.models]]
name = "Boy"
count = 20
points = 9
profile = { WS = 4, S = 3, T = 4, W = 1, I = 2, A = 2, Ld = 7, Sv = 6 }
equipment = ["slugga", "choppa"]
[[units.models]]
name = "Nob"
count = 1
points = 20
profile = { WS = 4, S = 4, T = 4, W = 2, I = 3, A = 3, Ld = 7, Sv = 6 }
equipment = ["slugga", "choppa"]

[[units]]
name = "Marines"
source = "Codex: Space Marines (1998)"
[[units.models]]
name = "Space Marine"
count = 10
points = 15
profile = { WS = 4, S = 4, T = 4, W = 1, I = 4, A = 1, Ld = 8, Sv = 3 }
equipment = ["bolt pistol", "close combat weapon"]
"""

WRITTEN_OUT = {  # the pack's "Ork Boyz" as a scenario side
    "name": "Ork Boyz",
    "models": [
        {"name": "Boy", "count": 20, "points": 9, "equipment": ["slugga", "choppa"],
         "profile": {"WS": 4, "S": 3, "T": 4, "W": 1, "I": 2, "A": 2, "Ld": 7, "Sv": 6}},
        {"name": "Nob", "count": 1, "points": 20, "equipment": ["slugga", "choppa"],
         "profile": {"WS": 4, "S": 4, "T": 4, "W": 2, "I": 3, "A": 3, "Ld": 7, "Sv": 6}}]}


def _files(tmp_path, scenario: str, pack: str = PACK):
    (tmp_path / "army.toml").write_text(pack, encoding="utf-8")
    path = tmp_path / "scenario.toml"
    path.write_text(textwrap.dedent(scenario), encoding="utf-8")
    return path


def _error(path) -> ScenarioError:
    with pytest.raises(ScenarioError) as e:
        odds.load(path)
    return e.value


def test_a_picked_unit_is_the_entry_written_out(tmp_path):
    path = _files(tmp_path, """\
        ruleset = "wh40k3"
        packs = ["army.toml"]
        [attacker]
        unit = "Ork Boyz"
        [defender]
        unit = "Marines"
        """)
    picked = odds.load(path)
    written = odds.from_dict({"ruleset": "wh40k3", "attacker": WRITTEN_OUT,
                              "defender": picked.to_dict()["defender"]})
    assert picked.attacker == written.attacker
    a = odds.simulate(picked, trials=3000, quiet=True)
    b = odds.simulate(written, trials=3000, quiet=True)
    assert a.probabilities() == b.probabilities() and a.means() == b.means()


def test_replaced_keys_then_set_edits(tmp_path):
    path = _files(tmp_path, """\
        ruleset = "wh40k3"
        packs = ["army.toml"]
        [attacker]
        unit = "Ork Boyz"
        name = "Big mob"
        set = { "models[Boy].count" = 30, "models[Nob].equipment" = ["slugga", "power klaw"] }
        [defender]
        unit = "Marines"
        in_cover = true
        """)
    sc = odds.load(path)
    assert sc.attacker.name == "Big mob"
    assert [g.count for g in sc.attacker.models] == [30, 1]
    assert sc.attacker.models[1].equipment == ["slugga", "power klaw"]
    assert sc.defender.options["in_cover"] is True
    assert sc.defender.models[0].count == 10  # untouched keys stay the pack's


def test_a_replaced_models_list_can_be_edited_by_set(tmp_path):
    path = _files(tmp_path, """\
        ruleset = "wh40k3"
        packs = ["army.toml"]
        [attacker]
        unit = "Ork Boyz"
        set = { "models[0].count" = 5 }
        [[attacker.models]]
        name = "Grot"
        count = 10
        profile = { WS = 2, S = 2, T = 2, W = 1, I = 2, A = 1, Ld = 5, Sv = 6 }
        [defender]
        unit = "Marines"
        """)
    sc = odds.load(path)
    assert [(g.name, g.count) for g in sc.attacker.models] == [("Grot", 5)]


def test_units_of_a_several_unit_side_are_picked_too(tmp_path):
    path = _files(tmp_path, """\
        ruleset = "wh40k3"
        packs = ["army.toml"]
        [[attacker.units]]
        unit = "Ork Boyz"
        [[attacker.units]]
        unit = "Ork Boyz"
        name = "Second mob"
        [defender]
        unit = "Marines"
        """)
    sc = odds.load(path)
    assert [u.name for u in sc.attacker.units] == ["Ork Boyz", "Second mob"]
    assert sc.attacker.units[1].models == sc.attacker.units[0].models


def test_the_files_own_pack_comes_before_the_bundled_one(tmp_path):
    bundled = listing("wh40k3")[0]
    pack = PACK + textwrap.dedent(f"""
        [[units]]
        name = "{bundled['unit']}"
        source = "house list"
        [[units.models]]
        name = "Grot"
        count = 3
        profile = {{ WS = 2, S = 2, T = 2, W = 1, I = 2, A = 1, Ld = 5, Sv = 6 }}
        """)
    path = _files(tmp_path, f"""\
        ruleset = "wh40k3"
        packs = ["army.toml"]
        [attacker]
        unit = "{bundled['unit']}"
        [defender]
        unit = "Marines"
        """, pack)
    assert [g.name for g in odds.load(path).attacker.models] == ["Grot"]


def test_the_bundled_pack_needs_no_packs_key(tmp_path):
    name = listing("wh40k3")[0]["unit"]
    path = _files(tmp_path, f"""\
        ruleset = "wh40k3"
        [attacker]
        unit = "{name}"
        [defender]
        unit = "{name}"
        name = "Copy"
        """)
    assert odds.load(path).attacker.name == name


@pytest.mark.parametrize("scenario, field, words", [
    ('[attacker]\nunit = "Ork Boys"', "attacker.unit", "did you mean 'Ork Boyz'"),
    ('[attacker]\nunit = 3', "attacker.unit", "non-empty string"),
    ('[attacker]\nunit = "Ork Boyz"\nset = { "models[Boy].count" = 0 }',
     'attacker.set."models[Boy].count"', "models[0].count: must be from 1"),
    ('[attacker]\nunit = "Ork Boyz"\nset = { "models[Grot].count" = 3 }',
     'attacker.set."models[Grot].count"', "no entry named 'Grot'"),
    ('[attacker]\nunit = "Ork Boyz"\nset = 3', "attacker.set", "must be a table"),
    ('[attacker]\nunit = "Ork Boyz"\nwounds = 3', "attacker.wounds", "unknown key"),
    ('[attacker]\nname = "x"\nset = { "models[0].count" = 3 }', "attacker.set",
     'edits a unit picked by name: write unit = "NAME" beside it'),
    ('[attacker]\nunit = "Ork Boyz"\nset = { "models[Nob].equipment" = ["power fits"] }',
     "attacker.models[1].equipment[0]", "unknown weapon 'power fits'"),
])
def test_mistakes_are_named_where_written(tmp_path, scenario, field, words):
    path = _files(tmp_path, 'ruleset = "wh40k3"\npacks = ["army.toml"]\n' + scenario
                  + '\n[defender]\nunit = "Marines"\n')
    e = _error(path)
    assert (e.source, e.field) == (str(path), field)
    assert words in e.message


@pytest.mark.parametrize("change, field, words", [
    (("count = 20", "count = -1", 1), "units[0].models[0].count", "must be from 1"),
    (('source = "Codex: Orks (1999)"\n', "", 1), "units[0].source", "is required"),
    (('name = "Marines"', 'name = "Ork Boyz"', 1), "units[1].name", "need different names"),
    (('ruleset = "wh40k3"', 'ruleset = "whfb8"', 1), "ruleset", "is a whfb8 pack"),
    (("[[units.models]]", "unit = 'x'\n[[units.models]]", 1), "units[0].unit",
     "written out in full"),
])
def test_mistakes_in_a_pack_are_named_in_the_pack(tmp_path, change, field, words):
    old, new, times = change
    path = _files(tmp_path, """\
        ruleset = "wh40k3"
        packs = ["army.toml"]
        [attacker]
        unit = "Ork Boyz"
        [defender]
        unit = "Marines"
        """, PACK.replace(old, new, times))
    e = _error(path)
    assert (e.source, e.field) == (str(tmp_path / "army.toml"), field)
    assert words in e.message


def test_a_missing_pack_file_or_bad_list(tmp_path):
    for packs, field, words in (('["nowhere.toml"]', "packs[0]", "no pack file"),
                                ('"army.toml"', "packs", "must be a list"),
                                ('["army.toml", "army.toml"]', "packs[1]", "listed twice")):
        path = _files(tmp_path, f'ruleset = "wh40k3"\npacks = {packs}\n[attacker]\n'
                                'unit = "Ork Boyz"\n[defender]\nunit = "Marines"\n')
        e = _error(path)
        assert (e.field, words in e.message) == (field, True), e


def test_a_pack_that_is_not_utf8(tmp_path):
    path = _files(tmp_path, 'ruleset = "wh40k3"\npacks = ["army.toml"]\n[attacker]\n'
                            'unit = "Ork Boyz"\n[defender]\nunit = "Marines"\n')
    (tmp_path / "army.toml").write_bytes(PACK.replace("Orks", "Orks \xe9").encode("latin-1"))
    e = _error(path)
    assert e.source == str(tmp_path / "army.toml") and "not UTF-8" in e.message


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_bundled_entry_is_a_valid_side_with_its_book(ruleset):
    rows = listing(ruleset)
    assert len(rows) >= 5
    for row in rows:
        assert row["source"].strip() and row["unit"].strip()
    names = [r["unit"] for r in rows]
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_bundled_entry_plays(ruleset):
    """Each entry against the pack's first (both ways round): a scenario that plays."""
    rows = listing(ruleset)
    first = rows[0]["unit"]
    for row in rows:
        for attacker, defender in ((row["unit"], first), (first, row["unit"])):
            sc = odds.from_dict({"ruleset": ruleset, "attacker": {"unit": attacker},
                                 "defender": {"unit": defender, "name": "opponent"}})
            result = odds.simulate(sc, trials=50, quiet=True)
            assert result.trials == 50


def test_points_are_listed(tmp_path):
    (tmp_path / "army.toml").write_text(PACK, encoding="utf-8")
    rows = {r["unit"]: r for r in listing("wh40k3", [str(tmp_path / "army.toml")])}
    assert rows["Ork Boyz"]["points"] == 20 * 9 + 20
    assert rows["Marines"]["points"] == 10 * 15 + 10 * 0  # pistol and knife cost nothing
    assert rows["Ork Boyz"]["models"] == "20 Boy, 1 Nob"


def test_cli_units_and_validate(tmp_path, capsys):
    (tmp_path / "army.toml").write_text(PACK, encoding="utf-8")
    assert main(["units", "wh40k3", "--pack", str(tmp_path / "army.toml")]) == 0
    out = capsys.readouterr().out
    assert "Ork Boyz" in out and "Codex: Orks (1999)" in out and "200" in out
    assert main(["validate", str(tmp_path / "army.toml")]) == 0
    assert "ok (pack, wh40k3, 2 units)" in capsys.readouterr().out
    assert check_pack(str(tmp_path / "army.toml")) == ("wh40k3", 2)
    (tmp_path / "bad.toml").write_text(PACK.replace("count = 20", "count = 0"), encoding="utf-8")
    assert main(["validate", str(tmp_path / "bad.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "units[0].models[0].count" in err
    assert main(["units", "wh40k3", "--pack", str(tmp_path / "nowhere.toml")]) == 2
    assert "no pack file" in capsys.readouterr().err


def test_a_pack_entry_mistake_is_named_in_the_pack(tmp_path, capsys):
    """An unknown weapon in a picked entry is the pack's mistake, found when it is picked."""
    path = _files(tmp_path, 'ruleset = "wh40k3"\npacks = ["army.toml"]\n[attacker]\n'
                            'unit = "Ork Boyz"\n[defender]\nunit = "Marines"\n',
                  PACK.replace('equipment = ["slugga", "choppa"]\n[[units.models]]\nname = "Nob"',
                               'equipment = ["slugga", "chopa"]\n[[units.models]]\nname = "Nob"'))
    e = _error(path)
    assert (e.source, e.field) == (str(tmp_path / "army.toml"), "units[0].models[0].equipment[1]")
    assert "did you mean 'choppa'" in e.message


def test_a_pack_with_an_entry_missing_its_source(tmp_path, capsys):
    (tmp_path / "army.toml").write_text(PACK.replace('source = "Codex: Space Marines (1998)"\n',
                                                     ""), encoding="utf-8")
    assert main(["validate", str(tmp_path / "army.toml")]) == 2
    assert "units[1].source: is required" in capsys.readouterr().err
    assert main(["units", "wh40k3", "--pack", str(tmp_path / "nowhere.toml")]) == 2
    assert capsys.readouterr().err == (f"odds: error: --pack: no pack file "
                                       f"'{tmp_path / 'nowhere.toml'}'\n")
