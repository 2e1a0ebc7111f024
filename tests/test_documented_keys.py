"""Every documented scenario key of every ruleset, given a valid value other than its default,
works through each way in: a file loaded, ``odds.simulate(path)``, ``odds.simulate(scenario)``,
a check-and-rebuild round trip (``validated()``) and the CLI. (mordheim's ``contacts`` could
never be used: its pairs became tuples that the round trip refused.)"""
import importlib
import re

import pytest

import odds
from conftest import SCENARIOS
from odds.cli import main
from odds.core.schema import REQUIRED, Where
from odds.overrides import apply, get_path
from odds.rulesets import get_ruleset
from odds.rulesets.blackpowder import rules as blackpowder
from odds.rulesets.d10skirmish import rules as d10skirmish
from odds.rulesets.mordheim import rules as mordheim
from odds.rulesets.wh40k3 import rules as wh40k3
from odds.rulesets.whfb8 import rules as whfb8
from odds.scenario import SIMULATION
from odds.core.toml_text import dumps

TRIALS = 200
WEAPON_KEYS = {"wh40k3": wh40k3.WEAPON_KEYS, "mordheim": mordheim.WEAPON_KEYS,
               "whfb8": whfb8.EQUIPMENT_KEYS, "d10skirmish": d10skirmish.WEAPON_KEYS,
               "blackpowder": {}}
SIDE_PROFILE = {"blackpowder": blackpowder.PROFILE}  # a single-unit side's own profile

# Each case: the key under test first (path = value), then what else it needs to be valid;
# a case written (file, changes) starts from that file instead of the ruleset's.
UNITS = "wh40k3_two_squads_vs_ork_mob.toml"  # sides of several units (R0-13)
WH40K3 = ("wh40k3_assault_marines_vs_boyz.toml", [
    {"attacker.models[0].profile.WS": 5}, {"attacker.models[0].profile.S": 5},
    {"defender.models[0].profile.T": 5}, {"attacker.models[0].profile.W": 2},
    {"defender.models[0].profile.I": 4}, {"defender.models[0].profile.A": 2},
    {"defender.models[0].profile.Ld": 8}, {"defender.models[0].profile.Sv": 5},
    {"attacker.models[1].profile.Inv": 5},
    {"attacker.models[0].name": "Marine"}, {"defender.models[0].count": 12},
    {"defender.models[0].equipment": ["choppa", "choppa"]},
    {"attacker.models[1].character": True}, {"defender.models[0].monstrous": True},
    {"attacker.models[1].fights_with": "none"}, {"attacker.models[0].points": 15.5},
    {"attacker.name": "Squad Vex"},
    {"attacker.in_contact": 6}, {"attacker.within_2in": 3, "attacker.in_contact": 6},
    {"defender.Ld": 8}, {"attacker.strikes": "Ork Boyz"}, {"defender.in_cover": True},
    (UNITS, {"attacker.units[0].engaged": False, "attacker.units[0].distance": 4}),
    (UNITS, {"defender.units[Gretchin].distance": 9.5}),
    {"engagement.charger": "defender"},
    {"engagement.attacker_in_cover": True, "engagement.charger": "defender"},
    {"engagement.defender_in_cover": True}, {"engagement.pursue": False},
    {"engagement.pile_in": "refill", "attacker.in_contact": 6},
    {"engagement.pursuit_difficult_terrain": True},
    {"engagement.pursuit_halving_affects_catch": True,
     "engagement.pursuit_difficult_terrain": True},
    {"engagement.charge_distance": 4.5, "engagement.charge_through_difficult_terrain": True},
    {"engagement.charge_through_difficult_terrain": True, "engagement.charge_distance": 3},
    {"weapons.relic blade": {"two_weapon": True, "strength_mult": 2, "strength_bonus": 1,
                             "strength_cap": 9, "ignores_armour": True, "strikes_last": True,
                             "save_cap": 3, "frag": True, "removed_last": True, "points": 12.5},
     "attacker.models[1].equipment": ["bolt pistol", "relic blade", "frag grenades"]},
    {"attacker.models[0].rules": ["Furious Charge", "Fearless"]},
    {"weapons.relic claw": {"two_weapon": True, "reroll_hit": "ones", "reroll_wound": "failures",
                            "hit_modifier": 1, "wound_modifier": -1,
                            "pair": {"reroll_hit": "failures"}},
     "attacker.models[1].equipment": ["relic claw", "relic claw", "frag grenades"]},
    {"special_rules.Waaagh": {"when": "charged", "extra_attacks": 1, "strength_bonus": 1,
                              "initiative_bonus": -1, "reroll_hit": "failures",
                              "reroll_wound": "ones", "hit_modifier": 1, "wound_modifier": -1},
     "special_rules.Ladz": {"fearless": True, "counter_attack": True},
     "defender.models[0].rules": ["Waaagh", "Ladz"]},
])
MORDHEIM = ("mordheim_two_on_one.toml", [
    {"attacker.models[1].profile.M": 5}, {"attacker.models[1].profile.WS": 4},
    {"attacker.models[1].profile.BS": 4}, {"attacker.models[1].profile.S": 4},
    {"attacker.models[1].profile.T": 4}, {"attacker.models[1].profile.W": 2},
    {"attacker.models[1].profile.I": 4}, {"attacker.models[1].profile.A": 2},
    {"attacker.models[1].profile.Ld": 8},
    {"attacker.models[1].name": "Sharpshooter"}, {"attacker.models[1].count": 3},
    {"attacker.models[1].equipment": ["dagger", "dagger"]},
    {"defender.models[0].causes_fear": True},
    {"attacker.models[0].mounted": True,
     "attacker.models[0].equipment": ["lance", "shield", "heavy armour"]},
    {"defender.name": "Skaven"},
    {"engagement.charger": "defender"},
    {"engagement.contacts": [["Champion", "Night Runner 1"], ["Marksman", "Night Runner 2"]],
     "defender.models[0].count": 2},
    {"engagement.all_alone": False},
    {"attacker.models[0].rules": ["Strongman", "Mighty Blow"]},
    {"special_rules.Veteran": {"strength_bonus": 1, "reroll_hit": "ones",
                               "reroll_wound": "failures", "crit_on": 5,
                               "critical_modifier": 1, "injury_modifier": 1,
                               "enemy_strength_modifier": -1, "special_save": 5,
                               "strike_first": True, "ignores_strikes_last": True,
                               "causes_fear": True, "frenzy": True,
                               "immune_to_psychology": True},
     "special_rules.Onslaught": {"when": "charging", "strength_bonus": 2},
     "defender.models[0].rules": ["Veteran", "Onslaught"]},
    {"weapons.rune hammer": {"strength_bonus": 1, "heavy": True,
                             "save_modifier": -1, "concussion": True, "strike_first": True,
                             "crit_on": 5, "mounted_charge_bonus": 1, "mounted_only": True},
     "weapons.hand crossbow": {"strength": 4, "once_per_combat": True, "parry": True},
     "weapons.war pick": {"two_handed": True, "unwieldy": True, "difficult": True,
                          "single_attack": True, "strikes_last": True},
     "weapons.gromril": {"kind": "armour", "save": 4},
     "weapons.kite shield": {"kind": "shield", "save_bonus": 2},
     "weapons.great helm": {"kind": "helmet", "avoid_stun": 3},
     "attacker.models[0].mounted": True,
     "attacker.models[0].equipment": ["rune hammer", "hand crossbow", "gromril", "great helm"],
     "attacker.models[1].equipment": ["war pick"],
     "defender.models[0].equipment": ["sword", "kite shield"]},
])
LORD = "whfb8_chaos_lord_combined_charge.toml"  # several units, characters, challenges
WHFB8 = ("whfb8_knights_lance_charge.toml", [
    {"defender.models[0].profile.M": 5}, {"defender.models[0].profile.WS": 4},
    {"defender.models[0].profile.S": 4}, {"defender.models[0].profile.T": 5},
    {"defender.models[0].profile.W": 2}, {"defender.models[0].profile.I": 3},
    {"defender.models[0].profile.A": 2}, {"defender.models[0].profile.Ld": 8},
    {"defender.models[0].profile.Sv": 4}, {"defender.models[0].profile.Ward": 5},
    {"defender.models[0].name": "Big 'Un"}, {"defender.models[0].count": 30},
    {"defender.models[0].equipment": ["spear", "light armour"]},
    {"defender.models[0].troop_type": "monstrous infantry"},
    {"attacker.models[0].mount": {"WS": 4, "S": 4, "I": 4, "A": 2}},
    {"defender.models[0].rules": ["Hatred", "Stubborn"]},
    {"defender.models[0].fights_with": "hand weapon"}, {"attacker.models[0].points": 21},
    {"defender.name": "Orc Mob"},
    {"defender.width": 6}, {"defender.standard": True}, {"defender.musician": True},
    {"defender.champion": True}, {"defender.battle_standard": True},
    {"defender.general_Ld": 9}, {"attacker.in_contact": 3},
    {"engagement.charger": "defender"}, {"engagement.facing": "flank"},
    {"engagement.reaction": "flee", "engagement.charge_distance": 8},
    {"engagement.charge_distance": 10}, {"engagement.pursue": False},
    {"rules.supporting_attacks": "resurrection"},
    {"rules.same_strike_order": "initiative"}, {"rules.battle_standard_rerolls": "break"},
    {"rules.disrupted_steadfast": False},
    (LORD, {"rules.refusal": "no_penalty", "engagement.accept": "never"}),
    (LORD, {"engagement.challenge": "champion_only"}), (LORD, {"engagement.accept": "never"}),
    (LORD, {"engagement.attacker_challenge": "never"}),
    (LORD, {"engagement.defender_challenge": "champion_only"}),
    (LORD, {"engagement.attacker_accept": "champion_first"}),
    (LORD, {"engagement.defender_accept": "never"}),
    (LORD, {"attacker.units[1].charges": "Night Goblins"}),
    (LORD, {"attacker.units[1].facing": "rear"}),
    (LORD, {"attacker.units[0].attack_character": "if_can_wound"}),
    (LORD, {"attacker.units[0].models[2].character": True}),
    (LORD, {"defender.models[1].champion": True}),
    (LORD, {"attacker.units[0].models[2].general": True}),
    (LORD, {"attacker.units[0].models[2].battle_standard": True}),
    {"weapons.runefang": {"strength_bonus": 1, "first_round_strength": 1, "charge_strength": 1,
                          "extra_rank": True, "extra_attack": 1, "strikes_last": True,
                          "mounted_only": True, "points": 10},
     "weapons.gromril plate": {"armour": 4, "armour_bonus": 1, "parry": True},
     "attacker.models[0].equipment": ["runefang", "gromril plate", "barding"]},
    {"weapons.venom lance": {"reroll_hit": "ones", "reroll_wound": "failures",
                             "hit_modifier": 1, "wound_modifier": -1, "poisoned": True,
                             "killing_blow": "any", "armour_piercing": 1, "ignores_armour": True,
                             "flaming": True, "enemy_rerolls_armour": True,
                             "multiple_wounds": "D3", "hits_on": 3, "wounds_on": 4},
     "attacker.models[0].equipment": ["venom lance", "shield", "barding"]},
    {"special_rules.Waaagh": {"strikes_first": True, "strikes_last": True, "extra_rank": True,
                              "extra_attacks": 1, "regeneration": 5, "reroll_armour": "ones",
                              "reroll_ward": "failures", "causes_fear": True, "frenzy": True,
                              "stubborn": True, "unbreakable": True, "swiftstride": True,
                              "immune_to_psychology": True},
     "special_rules.Stampede": {"random_attacks": "D3+1", "impact_hits": "D3", "stomp": 1,
                                "cold_blooded": True, "unstable": True,
                                "daemonic_instability": True, "strength_in_numbers": True},
     "special_rules.Bash": {"when": "charging", "reroll_hit": "failures", "reroll_wound": "ones",
                            "hit_modifier": 1, "wound_modifier": 1, "poisoned": True,
                            "killing_blow": "man-sized", "armour_piercing": 2,
                            "ignores_armour": True, "flaming": True,
                            "enemy_rerolls_armour": True, "multiple_wounds": 2,
                            "hits_on": 2, "wounds_on": 5},
     "defender.models[0].rules": ["Waaagh", "Bash", "Stampede"]},
])
GANG = "d10skirmish_two_troopers_charge_a_brute.toml"  # a gang a side
D10SKIRMISH = ("d10skirmish_blademaster_vs_brute.toml", [
    {"attacker.models[0].profile.MS": 7}, {"attacker.models[0].profile.AP": 4},
    {"attacker.models[0].profile.W": 3}, {"attacker.models[0].profile.ARM": 3},
    {"attacker.models[0].profile.DMG": 2},
    {"attacker.models[0].name": "Swordsman"}, {"attacker.models[0].count": 1},
    {"attacker.models[0].equipment": ["extra melee weapon"]},
    {"defender.models[0].base": 40}, {"defender.models[0].adjust": 2},
    {"defender.models[0].adjust_for": "blocks", "defender.models[0].adjust": 1},
    {"attacker.name": "Duellist"},
    {"engagement.charger": "defender"},
    {"engagement.opening": "push"}, {"engagement.reaction": "flee"},
    {"engagement.charged_ap_left": 1}, {"engagement.opening_ends_activation": False},
    {"engagement.melee_attack_ap": 2}, {"engagement.reaction_ap": 1},
    {"engagement.turn_order": "alternate"}, {"engagement.crit_blockable": "never"},
    {"engagement.adjust_can_create_crit": True}, {"engagement.crit_mode": "double"},
    {"engagement.push_ap": 1, "engagement.opening": "push"},
    {"engagement.fall_damage": 2, "engagement.opening": "push"},
    {"weapons.war blade": {"attacks": 1, "skill": 1, "damage": 1},
     "attacker.models[0].equipment": ["war blade"]},
    {"attacker.models[0].profile.M": 4},
    {"defender.distance": 10, "defender.models[0].profile.M": 4},  # the defender charges
    {"defender.line_of_sight": False, "defender.distance": 10,
     "defender.models[0].profile.M": 4},
    {"engagement.move_ap": 2, "defender.distance": 10, "defender.models[0].profile.M": 4},
    (GANG, {"attacker.units[1].charges": "Brute"}),
    (GANG, {"defender.units[1].engaged": False}),
    (GANG, {"attacker.units[0].target": "weakest"}),
    (GANG, {"defender.units[0].flee_below": 1}),
])
BRIGADE = "blackpowder_two_battalions_charge_a_line.toml"  # several units a side
SECOND_CHARGE = "blackpowder_cuirassiers_sweep_into_a_second_line.toml"  # a fresh unit
BLACKPOWDER = ("blackpowder_infantry_flank_charge.toml", [
    {"attacker.profile.hand_to_hand": 7}, {"attacker.profile.shooting": 2},
    {"attacker.profile.morale": 5}, {"attacker.profile.stamina": 4},
    {"defender.type": "pikes"}, {"defender.formation": "mixed"},
    {"defender.rules": ["steady", "valiant"]}, {"defender.status": ["disordered"]},
    {"attacker.rear_support": True}, {"defender.flank_supports": 2},
    {"defender.building": 2}, {"attacker.points": 45},
    {"defender.engaged": True, "attacker.formation": "skirmish"},
    {"defender.name": "Grenadiers"},
    {"engagement.charger": "defender"}, {"engagement.facing": "rear"},
    {"engagement.reaction": "closing fire"},
    {"engagement.hedgehog_order": 7, "engagement.reaction": "hedgehog"},
    {"engagement.evade_room": False, "engagement.reaction": "evade", "defender.type": "cavalry"},
    {"engagement.pike_double_dice_rounds": "first", "defender.type": "pikes",
     "attacker.type": "cavalry", "engagement.facing": "front"},
    {"engagement.sweeping_advance": True, "attacker.type": "cavalry"},
    {"engagement.reaction": "counter-charge", "attacker.type": "cavalry",
     "defender.type": "heavy cavalry", "engagement.facing": "front"},
    {"engagement.reaction": "turn to face", "attacker.type": "cavalry",
     "defender.type": "cavalry"},
    {"engagement.staff_rating": 7, "engagement.charge_distance": 14},
    {"engagement.charge_distance": 30, "engagement.staff_rating": 8},
    {"engagement.commander_distance": 13, "engagement.staff_rating": 8,
     "engagement.charge_distance": 14},
    {"engagement.move": 9, "engagement.staff_rating": 8, "engagement.charge_distance": 14},
    {"engagement.command_modifier": -1, "engagement.staff_rating": 8,
     "engagement.charge_distance": 14},
    {"attacker.rules": ["terrifying charge"]},
    (BRIGADE, {"attacker.units[1].charges": "Line Battalion"}),
    (BRIGADE, {"attacker.units[1].facing": "rear"}),
    (BRIGADE, {"attacker.units[2].supports": "2nd Battalion"}),
    (BRIGADE, {"attacker.units[2].support_from": "flank"}),
    (SECOND_CHARGE, {"defender.units[1].in_melee": False}),
    (SECOND_CHARGE, {"defender.units[1].distance": 17.5}),
    (SECOND_CHARGE, {"defender.units[1].facing": "rear"}),
])
COMMON = [  # every ruleset
    {"name": "A renamed fight"}, {"simulation.trials": 300}, {"simulation.seed": 7},
    {"simulation.max_rounds": 5},
]
RULESETS = {"wh40k3": WH40K3, "mordheim": MORDHEIM, "whfb8": WHFB8,
            "d10skirmish": D10SKIRMISH, "blackpowder": BLACKPOWDER}
CASES = [(ruleset, *(case if isinstance(case, tuple) else (base, case)))
         for ruleset, (base, cases) in RULESETS.items() for case in cases + COMMON]


def _parts(path: str) -> list:
    return [int(p) if p.isdigit() else p for p in re.split(r"\.|\[|\]\.?", path) if p != ""]


def _covered(ruleset: str, path: str, value) -> set[str]:
    """The documented keys one change sets: e.g. "profile.WS", "group.count", "side.Ld",
    "engagement.charger", "weapon.strength_mult"."""
    parts = _parts(path)
    if parts[0] in ("attacker", "defender"):
        if parts[1] == "units":  # a unit of a side of several: the same keys as a side's
            parts = parts[:1] + parts[3:]
        rest = parts[3:] if parts[1] == "models" else parts[1:]
        scope = "group" if parts[1] == "models" else "side"
        return {f"profile.{rest[1]}" if rest[0] == "profile" else f"{scope}.{rest[0]}"}
    if parts[0] == "weapons":
        return {f"weapon.{key}" for key in value}
    if parts[0] == "special_rules":
        return {f"special_rule.{key}" for key in value}
    return {".".join(map(str, parts))}


def _documented(ruleset: str) -> dict[str, object]:
    """Every documented key of a ruleset, with its default (REQUIRED if it has none)."""
    rs = get_ruleset(ruleset)
    keys = {"name": REQUIRED, "side.name": REQUIRED}
    for scope, spec in (("engagement", rs.engagement), ("rules", rs.rules),
                        ("simulation", SIMULATION), ("weapon", WEAPON_KEYS[ruleset]),
                        ("profile", SIDE_PROFILE.get(ruleset, rs.profile)),
                        ("side", {k: v for k, v in rs.side_keys.items() if k != "profile"})):
        keys.update({f"{scope}.{k}": default for k, (_, default) in spec.items()})
    if rs.own_special_rules:
        rules = importlib.import_module(f"odds.rulesets.{ruleset}.rules").RULE_KEYS
        keys.update({f"special_rule.{k}": default for k, (_, default) in rules.items()})
    if not rs.single_unit:
        keys.update({"group.name": REQUIRED, "group.count": REQUIRED, "group.equipment": []})
        keys.update({f"group.{k}": default for k, (_, default) in rs.group_keys.items()})
    return keys


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_documented_key_has_a_case(ruleset):
    covered = set().union(*(_covered(ruleset, *next(iter(c.items())))
                            for r, _, c in CASES if r == ruleset))
    weapons = {k for r, _, c in CASES if r == ruleset for p, v in c.items()
               if p.startswith(("weapons.", "special_rules.")) for k in _covered(ruleset, p, v)}
    assert set(_documented(ruleset)) - covered - weapons == set()


@pytest.mark.parametrize("ruleset,base,changes", CASES,
                         ids=[f"{r}:{next(iter(c))}" for r, _, c in CASES])
def test_a_documented_key_works_every_way_in(tmp_path, capsys, ruleset, base, changes):
    defaults = _documented(ruleset)
    tested = [(p, v) for i, (p, v) in enumerate(changes.items())
              if i == 0 or p.startswith("weapons.")]
    for path, value in tested:  # each key under test gets a value that is not its default
        for key in _covered(ruleset, path, value):
            given = value[key.split(".", 1)[1]] if path.startswith("weapons.") else value
            assert given != defaults[key]
    data = apply(odds.load(SCENARIOS / base).to_dict(),
                 [(p, v, Where("case", p)) for p, v in changes.items()])
    file = tmp_path / "scenario.toml"
    file.write_text(dumps(data), encoding="utf-8")

    loaded = odds.load(file)
    written = loaded.to_dict()
    for p, v in changes.items():
        assert get_path(written, p, Where("case", p)) == v
    assert loaded.validated() == loaded
    from_path = odds.simulate(file, trials=TRIALS, seed=3)
    from_object = odds.simulate(loaded, trials=TRIALS, seed=3)
    assert from_path.tally.trials == from_object.tally.trials == TRIALS
    assert (from_path.tally.outcomes == from_object.tally.outcomes).all()
    capsys.readouterr()  # the API may have announced a first compile; the CLI is quiet
    assert main(["simulate", str(file), "--trials", str(TRIALS), "--seed", "3", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out


def test_a_weapons_file_works_every_way_in(tmp_path, capsys):
    """``weapons = "file"``: the file's entries are read at load time, relative to the
    scenario's folder, as if written inline."""
    (tmp_path / "arms").mkdir()
    (tmp_path / "arms" / "mine.toml").write_text('["relic blade"]\nstrength_bonus = 2\n'
                                                  'two_weapon = true\n')
    data = odds.load(SCENARIOS / WH40K3[0]).to_dict()
    data = apply(data, [(p, v, Where("case", p)) for p, v in {
        "weapons": "arms/mine.toml",
        "attacker.models[1].equipment": ["bolt pistol", "relic blade"]}.items()])
    (tmp_path / "scenario.toml").write_text(dumps(data))
    (tmp_path / "inline.toml").write_text(dumps(
        {**data, "weapons": {"relic blade": {"strength_bonus": 2, "two_weapon": True}}}))
    expected = odds.simulate(tmp_path / "inline.toml", trials=TRIALS, seed=3).tally.outcomes
    loaded = odds.load(tmp_path / "scenario.toml")
    assert loaded.weapon_sources == {"relic blade": str(tmp_path / "arms" / "mine.toml")}
    for run in (tmp_path / "scenario.toml", loaded, loaded.validated()):
        assert (odds.simulate(run, trials=TRIALS, seed=3).tally.outcomes == expected).all()
    capsys.readouterr()
    assert main(["simulate", str(tmp_path / "scenario.toml"), "--trials", str(TRIALS),
                 "--quiet"]) == 0
    assert capsys.readouterr().err == ""
