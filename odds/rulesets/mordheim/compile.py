"""Turn a checked Mordheim scenario into the flat numeric plan the kernel reads."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from odds.rulesets.mordheim.rules import charts, contact_pairs, warriors

EXTRA_COLUMNS = ("attacker_knocked_down", "defender_knocked_down", "attacker_stunned",
                 "defender_stunned", "attacker_parries", "defender_parries",
                 "attacker_criticals", "defender_criticals")


class Plan(NamedTuple):
    """Per-warrior arrays (attackers first, in listed order) and per-hand weapon arrays
    [warrior, hand]."""

    side: np.ndarray         # (N,) 0 attacker, 1 defender
    ws: np.ndarray           # (N,) profile values
    strength: np.ndarray
    toughness: np.ndarray
    wounds: np.ndarray
    initiative: np.ndarray
    leadership: np.ndarray
    save: np.ndarray         # (N,) armour save incl. shield, 7 = none (R1-8)
    avoid_stun: np.ndarray   # (N,) helmet, 7 = none
    parry_items: np.ndarray  # (N,) R1-5
    causes_fear: np.ndarray  # (N,) R1-6
    tier_first: np.ndarray   # (2 rounds, N) strike tier 0 first / 1 normal / 2 last (R1-2)
    hands: np.ndarray        # (N,) 1 or 2 weapons
    blows: np.ndarray        # (N,) blows with the main hand: A, or 1 with fists (R1-3)
    hit_strength: np.ndarray  # (2 rounds, N, 2 hands) S of a blow (R1-10)
    save_modifier: np.ndarray  # (N, 2)
    concussion: np.ndarray   # (N, 2)
    crit_on: np.ndarray      # (N, 2)
    once: np.ndarray         # (N, 2) once-per-combat hand (pistol)
    contact: np.ndarray      # (N, N) base contact (R1-1)
    to_hit: np.ndarray       # (10, 10)
    to_wound: np.ndarray     # (10, 10), 7 = cannot wound
    save_by_strength: np.ndarray  # (10,)
    charger: int
    all_alone: bool
    max_rounds: int


def compile_plan(scenario) -> Plan:
    """The plan for one scenario (already checked by :func:`odds.scenario.from_dict`)."""
    to_hit, to_wound, save_by_strength = charts()
    ws = warriors(scenario)
    n = len(ws)
    charger = 0 if scenario.engagement["charger"] == "attacker" else 1
    n_att = sum(w.side == 0 for w in ws)
    contact = np.zeros((n, n), np.int64)
    for a, d in contact_pairs(scenario):
        contact[a, n_att + d] = contact[n_att + d, a] = 1

    def profile(key):
        return np.array([w.profile[key] for w in ws], np.int64)

    tier = np.ones((2, n), np.int64)
    hit_strength = np.ones((2, n, 2), np.int64)
    per_hand = {k: np.zeros((n, 2), np.int64) for k in ("save_modifier", "concussion", "once")}
    crit_on = np.full((n, 2), 6, np.int64)
    for i, w in enumerate(ws):
        last = any(h.strikes_last for h in w.weapons)
        for r in (0, 1):
            first = any(h.strike_first for h in w.weapons) or w.side == charger
            tier[r, i] = 2 if last else (0 if r == 0 and first else 1)
            for k, h in enumerate(w.weapons):
                hit_strength[r, i, k] = h.hit_strength(
                    w.profile["S"], r == 0, r == 0 and w.side == charger and w.mounted)
        for k, h in enumerate(w.weapons):
            per_hand["save_modifier"][i, k] = h.save_modifier
            per_hand["concussion"][i, k] = h.concussion
            per_hand["once"][i, k] = h.once_per_combat
            crit_on[i, k] = h.crit_on
    return Plan(
        side=np.array([w.side for w in ws], np.int64), ws=profile("WS"), strength=profile("S"),
        toughness=profile("T"), wounds=profile("W"), initiative=profile("I"),
        leadership=profile("Ld"),
        save=np.array([w.save for w in ws], np.int64),
        avoid_stun=np.array([w.avoid_stun for w in ws], np.int64),
        parry_items=np.array([w.parry_items for w in ws], np.int64),
        causes_fear=np.array([w.causes_fear for w in ws], np.int64),
        tier_first=tier,
        hands=np.array([len(w.weapons) for w in ws], np.int64),
        blows=np.array([1 if w.weapons[0].single_attack else w.profile["A"] for w in ws],
                       np.int64),
        hit_strength=hit_strength, save_modifier=per_hand["save_modifier"],
        concussion=per_hand["concussion"], crit_on=crit_on, once=per_hand["once"],
        contact=contact, to_hit=np.array(to_hit, np.int64),
        to_wound=np.array(to_wound, np.int64),
        save_by_strength=np.array(save_by_strength, np.int64),
        charger=charger, all_alone=bool(scenario.engagement["all_alone"]),
        max_rounds=int(scenario.simulation["max_rounds"]))
