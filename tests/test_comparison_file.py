"""Comparison files: mistakes are reported where they were written (the comparison file, the
variant or opponent, the change as written), other-ruleset sides, path mistakes, baseline."""
import subprocess
import sys

import pytest

import odds
from odds.analysis.comparison_file import cell, load_comparison
from odds.core.schema import Where
from odds.errors import ScenarioError
from odds.overrides import apply

from conftest import SCENARIOS

BASE = SCENARIOS / "wh40k3_assault_marines_vs_boyz.toml"
SERGEANT = "attacker.models[Veteran Sergeant]"


def comparison(tmp_path, body: str, base=BASE):
    path = tmp_path / "cmp.toml"
    path.write_text(f"base = {str(base)!r}\n{body}", encoding="utf-8")
    return path


def error_of(path) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        load_comparison(path)
    return caught.value


VARIANTS = f'''
[[variants]]
name = "power fist"
[[variants]]
name = "power weapon"
set = {{ "{SERGEANT}.points" = 30, "{SERGEANT}.equipment" = ["bolt pistol", "power weapn"] }}
'''


def test_a_variant_mistake_names_the_file_variant_and_change(tmp_path):
    path = comparison(tmp_path, VARIANTS)
    e = error_of(path)
    assert e.source == str(path)
    assert e.field == f'variants[1] "power weapon": set."{SERGEANT}.equipment"'
    assert e.message.startswith("attacker.models[1].equipment[1]: unknown weapon 'power weapn'")


def test_an_opponent_and_a_shared_set_mistake(tmp_path):
    e = error_of(comparison(tmp_path, '[[opponents]]\nname = "none"\n'
                                      'set = { "defender.models[Boy].count" = 0 }\n'))
    assert e.field == 'opponents[0] "none": set."defender.models[Boy].count"'
    assert e.message == "defender.models[0].count: must be from 1 to 10000, got 0"
    e = error_of(comparison(tmp_path, 'set = { "engagement.charger" = "nobody" }\n'))
    assert e.field == 'set."engagement.charger"' and "must be one of" in e.message


def test_the_change_that_completes_a_mistake_is_blamed(tmp_path):
    """A variant's and an opponent's changes each valid alone, invalid together: the opponent's
    change (applied last) is named. A change that fails differently on the way is not."""
    e = error_of(comparison(tmp_path, '[[variants]]\nname = "15 in contact"\n'
                                      'set = { "defender.in_contact" = 15 }\n'
                                      '[[opponents]]\nname = "10 Boyz"\n'
                                      'set = { "defender.models[Boy].count" = 10 }\n'))
    assert e.field == 'opponents[0] "10 Boyz": set."defender.models[Boy].count"'
    assert "in_contact + within_2in is 15 but the unit has 10 models" in e.message
    e = error_of(comparison(tmp_path, 'set = { "defender.in_contact" = 10 }\n'
                                      '[[variants]]\nname = "v"\nset = { '
                                      '"defender.models[Boy].count" = 5, '
                                      '"defender.in_contact" = 5, '
                                      '"defender.models[Boy].equipment" = ["bogus"] }\n'))
    assert e.field == 'variants[0] "v": set."defender.models[Boy].equipment"'
    assert "unknown weapon 'bogus'" in e.message


def test_a_side_from_another_ruleset_says_so(tmp_path):
    other = SCENARIOS / "blackpowder_cuirassiers_vs_pike_block.toml"
    path = comparison(tmp_path, f'[[opponents]]\nname = "pikes"\ndefender_from = "{other}"\n')
    e = error_of(path)
    assert (e.source, e.field) == (str(path), 'opponents[0] "pikes": defender_from')
    assert e.message == f"{other} is a blackpowder scenario but the base is wh40k3"
    e = error_of(comparison(tmp_path, '[[variants]]\nname = "x"\nattacker_from = "nope.toml"\n'))
    assert e.field == 'variants[0] "x": attacker_from' and "no scenario file" in e.message
    long = "x" * 5000  # longer than a file name may be: said, not raised as OSError
    e = error_of(comparison(tmp_path, f'[[variants]]\nname = "x"\nattacker_from = "{long}"\n'))
    assert e.field == 'variants[0] "x": attacker_from' and "cannot open" in e.message


def test_a_side_from_a_file_of_the_same_ruleset(tmp_path):
    other = SCENARIOS / "wh40k3_ten_vs_ten.toml"
    spec = load_comparison(comparison(tmp_path, f'[[opponents]]\nname = "ten"\n'
                                                f'defender_from = "{other}"\n'))
    built = cell(spec["base"], spec["variants"]["base"], spec["opponents"]["ten"], Where("", ""))
    from odds.scenario import load

    assert built.defender == load(other).defender
    assert built.attacker == spec["base"].attacker


@pytest.mark.parametrize("changes, says", [
    ({"[0]": 1, "bogus": 2}, r'set."\[0\]": the scenario is a table, not a list: \[0\] picks'),
    ({"engagement[0]": True}, r"engagement is a table, not a list: \[0\] picks a list entry"),
    ({"attacker.name[Boy]": 1}, r"attacker.name is 'Assault Squad', not a table or a list"),
    ({"attacker.models.count": 1}, r"attacker.models is a list: pick an entry with \[0\] or "
                                   r"\[name\], not .count"),
    ({"attacker.models[0][1]": 1}, r"attacker.models\[0\] is a table, not a list: \[1\]"),
    ({" ": 1}, r"malformed path ' ': a part is blank"),
    ({"attacker.models[ ].count": 1}, r"malformed path .*: a part is blank"),
])
def test_an_index_where_it_cannot_go_is_an_error(tmp_path, changes, says):
    body = "set = { " + ", ".join(f'"{p}" = {str(v).lower()}' for p, v in changes.items()) + " }\n"
    with pytest.raises(ScenarioError, match=says):
        load_comparison(comparison(tmp_path, body))


def test_apply_never_makes_a_non_text_key():
    data = {"engagement": {}}
    for path in ("[0]", "engagement[0]", "engagement[x].pursue"):
        with pytest.raises(ScenarioError):
            apply(data, [(path, 1, Where("f", path))])
    assert apply(data, [("engagement.pursue", False, Where("f", ""))]) == {
        "engagement": {"pursue": False}}


def test_baseline_defaults_to_the_first_variant_and_must_be_one(tmp_path):
    assert load_comparison(comparison(tmp_path, VARIANTS.replace("weapn", "weapon")))[
        "baseline"] == "power fist"
    named = load_comparison(comparison(tmp_path, 'baseline = "power weapon"\n'
                                                 + VARIANTS.replace("weapn", "weapon")))
    assert named["baseline"] == "power weapon"
    assert load_comparison(comparison(tmp_path, ""))["baseline"] == "base"
    e = error_of(comparison(tmp_path, 'baseline = "chainsword"\n'
                                      + VARIANTS.replace("weapn", "weapon")))
    assert e.field == "baseline"
    assert e.message == ("no variant named 'chainsword'; the variants are 'power fist', "
                         "'power weapon'")


def test_the_cli_prints_one_line_naming_the_variant(tmp_path):
    path = comparison(tmp_path, VARIANTS)
    run = subprocess.run([sys.executable, "-m", "odds", "compare", str(path), "--trials", "10"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith(f'odds: error: {path}: variants[1] "power weapon": '
                                 f'set."{SERGEANT}.equipment": attacker.models[1].equipment[1]: '
                                 "unknown weapon 'power weapn'")
    assert run.stderr.count("\n") == 1


def test_a_dotted_key_in_set_changes_that_key_alone(tmp_path):
    """TOML reads ``set = { engagement.pursue = false }`` as a nested table: it must change
    ``pursue`` only, not replace ``[engagement]`` (the base's cover must stay)."""
    base = tmp_path / "base.toml"
    base.write_text(BASE.read_text(encoding="utf-8").replace(
        "defender_in_cover = false", "defender_in_cover = true", 1), encoding="utf-8")
    path = comparison(tmp_path, '[[variants]]\nname = "stay"\n'
                                'set = { engagement.pursue = false }\n', base=base)
    spec = load_comparison(path)
    scenario = cell(spec["base"], spec["variants"]["stay"], {}, Where(str(path), ""))
    assert scenario.engagement["pursue"] is False
    assert scenario.engagement["defender_in_cover"] is True
    assert spec["variants"]["stay"].edits[0][2].path == 'variants[0] "stay": set."engagement.pursue"'


@pytest.mark.parametrize("base,other,side,rule", [
    ("wh40k3_assault_marines_vs_boyz", "wh40k3_death_company_vs_assault_terminators",
     "attacker", "Litany of Hate"),
    ("whfb8_knights_lance_charge", "whfb8_witch_elves_vs_swordsmen", "defender",
     "Blessed by Sigmar"),
    ("mordheim_captain_vs_night_runner", None, "attacker", "Lucky Blows"),
], ids=["wh40k3", "whfb8", "mordheim"])
def test_a_side_from_another_file_brings_the_special_rules_it_defines(tmp_path, base, other,
                                                                       side, rule):
    """A side taken from a scenario that defines its own special rules ([special_rules])
    brings their definitions, as it brings its weapons: the cell plays that side as its own
    file does (it failed with "unknown special rule")."""
    if other is None:  # a file of one's own, with a house rule on the attacker
        text = (SCENARIOS / "mordheim_captain_vs_skaven.toml").read_text()
        text = text.replace('"helmet"]\n', f'"helmet"]\nrules = ["{rule}"]\n', 1)
        path = tmp_path / "own.toml"
        path.write_text(f'{text}\n[special_rules."{rule}"]\nstrength_bonus = 1\n')
    else:
        path = SCENARIOS / f"{other}.toml"
    file = comparison(tmp_path, f'[[variants]]\nname = "theirs"\n{side}_from = "{path}"\n',
                      base=SCENARIOS / f"{base}.toml")
    loaded = load_comparison(file)
    theirs = cell(loaded["base"], loaded["variants"]["theirs"], {}, Where(str(file), ""))
    assert rule in theirs.special_rules
    assert theirs.to_dict()[side] == odds.load(path).to_dict()[side]


def test_a_side_from_a_file_that_picks_its_unit_from_its_own_pack(tmp_path):
    """The other file names its side's unit from a pack beside it (packs = [...], relative to
    that file, not to the comparison): the side comes whole, its stat lines included."""
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "army.toml").write_text(
        'ruleset = "wh40k3"\n[[units]]\nname = "Big Boyz"\nsource = "a house list"\n'
        '[[units.models]]\nname = "Big Boy"\ncount = 12\n'
        'profile = { WS = 4, S = 4, T = 4, W = 1, I = 2, A = 2, Ld = 7, Sv = 6 }\n'
        'equipment = ["slugga", "choppa"]\n', encoding="utf-8")
    text = BASE.read_text(encoding="utf-8")
    start = text.index("[defender]")
    end = text.index("\n[", text.index("[[defender.models]]") + 1)
    other = theirs / "other.toml"
    other.write_text(f'packs = ["army.toml"]\n{text[:start]}[defender]\nunit = "Big Boyz"\n'
                     f'{text[end:]}', encoding="utf-8")
    file = comparison(tmp_path, f'[[opponents]]\nname = "big"\ndefender_from = "{other}"\n')
    loaded = load_comparison(file)
    big = cell(loaded["base"], {}, loaded["opponents"]["big"], Where(str(file), ""))
    assert [(g.name, g.count) for g in big.defender.models] == [("Big Boy", 12)]
