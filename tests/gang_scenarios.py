"""d10skirmish gang scenarios shared by the gang tests: builders and the parity cases, each
named after the rules and readings it exercises (the Gangs section of the d10skirmish page)."""
from __future__ import annotations

from pathlib import Path

import odds

SCENARIOS = Path(__file__).resolve().parents[1] / "data" / "scenarios"
PINNED = SCENARIOS / "d10skirmish_two_troopers_charge_a_brute.toml"  # issue 30's file


def U(name, ms, ap=3, w=2, arm=3, dmg=1, m=4, group=None, **keys):
    """One fighter of a gang: its unit keys (charges, distance, engaged, target, flee_below,
    line_of_sight), its profile and its group keys (base, adjust, equipment)."""
    profile = {"MS": ms, "AP": ap, "W": w, "ARM": arm, "DMG": dmg, "M": m}
    return {"name": name, **keys,
            "models": [{"name": name, "count": 1, "profile": profile, **(group or {})}]}


def gang(attackers, defenders, max_rounds=10, **engagement):
    """A fight of the two gangs (lists of :func:`U`)."""
    return odds.from_dict({"ruleset": "d10skirmish", "name": "gang",
                           "attacker": {"units": attackers}, "defender": {"units": defenders},
                           "engagement": engagement, "simulation": {"max_rounds": max_rounds}})


def trooper(name, **keys):
    return U(name, 6, **keys)


def brute(name="Brute", **keys):
    return U(name, 7, w=3, arm=4, dmg=2, **keys)


def sniper(name="Sniper", **keys):
    return U(name, 5, ap=2, w=1, arm=2, **keys)


CASES = {
    "R3-1_R3-2_pinned_two_troopers_brute_sniper": lambda: odds.load(PINNED),
    "R3-4_ganging_up_reaction_ap_1-R3-2_no_distance": lambda: gang(
        [trooper("T1", charges="Brute"), trooper("T2", charges="Brute")], [brute()],
        reaction_ap=1),
    "R3-8_flee_below-reaction_flee": lambda: gang(
        [trooper("T1", charges="Brute", flee_below=1), trooper("T2", charges="Guard")],
        [brute(flee_below=1), U("Guard", 5, w=3, flee_below=2)], reaction="flee"),
    "R3-9_two_pushers-fall_damage_2": lambda: gang(
        [trooper("T1", charges="Sniper", group={"base": 32}),
         trooper("T2", charges="Brute", distance=3, group={"base": 40})],
        [brute(group={"base": 40}), sniper(group={"base": 25})], opening="push",
        fall_damage=2, push_ap=1, opening_ends_activation=False),
    "policy_weakest_engaged-turn_order_alternate-R3-6_adjust": lambda: gang(
        [trooper("T1", charges="Brute", target="weakest"),
         trooper("T2", charges="Sniper", target="engaged", group={"adjust": 1})],
        [brute(target="weakest"), sniper(target="engaged", group={"adjust": 1,
                                                                  "adjust_for": "blocks"})],
        turn_order="alternate"),
    "R3-1_fresh_attacker_unseen-move_ap_2-A3_double": lambda: gang(
        [trooper("T1", charges="Brute"),
         U("Scout", 5, ap=4, m=5, engaged=False, distance=12, line_of_sight=False)],
        [brute()], move_ap=2, crit_mode="double"),
    "R3-4_charged_ap_left_1-melee_attack_ap_2-defender_charges": lambda: gang(
        [brute(), sniper()],
        [trooper("T1", ap=4, charges="Brute"), trooper("T2", ap=4, charges="Sniper"),
         trooper("T3", ap=4, charges="Brute")],
        charger="defender", charged_ap_left=1, melee_attack_ap=2,
        opening_ends_activation=False),
    "R3-1_three_troopers_brute_sniper-weakest": lambda: gang(
        [trooper("T1", charges="Brute", distance=5), trooper("T2", charges="Brute", distance=6),
         trooper("T3", charges="Sniper", distance=8, target="weakest")],
        [brute(), sniper()]),
    "R3-8_one_fighter_a_side_flee_below": lambda: odds.from_dict({
        "ruleset": "d10skirmish", "name": "one a side",
        "attacker": U("V", 6, w=3), "defender": U("G", 5, ap=2, w=3, arm=2, flee_below=1)}),
}
