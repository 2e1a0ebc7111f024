"""Turn a checked Mordheim scenario into the flat numeric plan the kernel reads."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from odds.core.effects import REROLLS, final_faces, succeeds
from odds.rulesets.mordheim.laws import with_laws
from odds.rulesets.mordheim.rules import NO_SAVE, charts, contact_pairs, warriors

EXTRA_COLUMNS = ("attacker_knocked_down", "defender_knocked_down", "attacker_stunned",
                 "defender_stunned", "attacker_parries", "defender_parries",
                 "attacker_criticals", "defender_criticals")
CHART = ((1, 2), (3, 4), (5, 99))  # Critical Hit chart rolls: vital part, exposed spot, master


class Plan(NamedTuple):
    """Per-warrior arrays (attackers first, in listed order) and per-hand weapon arrays
    [warrior, hand]. Re-roll codes: 0 none, 1 ones, 2 failures."""

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
    tests_fear: np.ndarray   # (N,) tests for Fear when charged by a fear-causer (R1-6)
    tier_first: np.ndarray   # (2 rounds, N) strike tier 0 first / 1 normal / 2 last (R1-2)
    hands: np.ndarray        # (N,) 1 or 2 weapons
    blows: np.ndarray        # (N,) blows with the main hand: A, or 1 with fists (R1-3)
    fury_blows: np.ndarray   # (N,) the same while frenzied (blows if he has no Frenzy)
    frenzied: np.ndarray     # (N,) has Frenzy: immune to All Alone until knocked down/stunned
    steady: np.ndarray       # (N,) never tests All Alone (Immune to Psychology, R1-11)
    hit_strength: np.ndarray  # (2 rounds, N, 2 hands) S of a blow (R1-10)
    save_modifier: np.ndarray  # (N, 2)
    concussion: np.ndarray   # (N, 2)
    crit_on: np.ndarray      # (N, 2)
    once: np.ndarray         # (N, 2) once-per-combat hand (pistol)
    reroll_hit: np.ndarray   # (2 rounds, N) re-roll code of his to-hit rolls
    reroll_wound: np.ndarray  # (2 rounds, N) and of his to-wound rolls
    hit_faces: np.ndarray    # (2 rounds, N, need 0..7, face 0..6) final face odds (exact)
    wound_faces: np.ndarray  # (2 rounds, N, need 0..7, face 0..6)
    critical_modifier: np.ndarray  # (N,) added to his Critical Hit chart rolls (R1-7)
    critical_chart: np.ndarray  # (N, 3) P(vital part, exposed spot, master strike)
    injury_modifier: np.ndarray  # (N,) added to the injury rolls he causes (R1-9)
    special_save: np.ndarray  # (N,) unmodified save against each wound, 7 = none
    contact: np.ndarray      # (N, N) base contact (R1-1)
    to_hit: np.ndarray       # (10, 10)
    to_wound: np.ndarray     # (10, 10), 7 = cannot wound
    wound_need: np.ndarray   # (2 rounds, N, 2 hands, N targets) to-wound roll needed, 7 = none
    save_by_strength: np.ndarray  # (10,)
    charger: int
    all_alone: bool
    max_rounds: int
    # the rule text's (fight.py) laws and numbers: laws.with_laws fills them in
    ganged: bool = False           # a warrior touches two or more enemies (All Alone, R1-11)
    most_hits: int = 0             # a strike's most hits: blows while frenzied, off hand
    pair: np.ndarray = None        # (N, N) the index of a pair in base contact, -1 if none
    hit_law: np.ndarray = None     # [pair, round type, calm, off hand, Fear failed, may parry]
    blow_law: np.ndarray = None    # [pair, round type, hand, critical used, wounds, down]
    ld_law: np.ndarray = None      # [warrior]: passes, fails a 2D6 test (Fear, All Alone)
    helmet_law: np.ndarray = None  # [warrior]: stunned, knocked down instead
    tie_law: np.ndarray = None     # [strikers tied]: which of them strikes first
    warriors: int = 0              # N (a constant in a kernel variant: fight.known)


def reroll_code(reroll: str | None) -> int:
    return 0 if reroll is None else 1 + REROLLS.index(reroll)


def faces(reroll: str | None) -> np.ndarray:
    """(8, 7): for each roll needed 0..7, the odds of each final face of the die after the
    re-roll (:func:`odds.core.effects.final_faces`); a need of 7 never succeeds."""
    return np.array([final_faces(succeeds(need, six_succeeds=need < NO_SAVE), reroll)
                     for need in range(NO_SAVE + 1)])


def chart_odds(modifier: int) -> list[float]:
    """P(vital part, exposed spot, master strike) of a Critical Hit chart roll + ``modifier``."""
    rolls = [max(1, face + modifier) for face in range(1, 7)]
    return [sum(lo <= roll <= hi for roll in rolls) / 6 for lo, hi in CHART]


def wound_need(hit_strength, ws, kept, to_wound) -> np.ndarray:
    """The to-wound roll each hand of each warrior needs against each warrior (R1-7), with
    the target's ``enemy_strength_modifier`` (Resilient) on the blow's S, kept in 1..10."""
    n = len(ws)
    out = np.zeros((2, n, 2, n), np.int64)
    for y, (target, skills) in enumerate(zip(ws, kept)):
        struck = np.clip(hit_strength + skills.enemy_strength_modifier, 1, 10)
        out[..., y] = np.array(to_wound)[struck - 1, target.profile["T"] - 1]
    return out


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

    def each(value):
        return np.array([value(w, k) for w, k in zip(ws, kept)], np.int64)

    kept = [w.skills(False, charger) for w in ws]  # the rules that hold the whole combat
    tier = np.ones((2, n), np.int64)
    hit_strength = np.ones((2, n, 2), np.int64)
    per_hand = {k: np.zeros((n, 2), np.int64) for k in ("save_modifier", "concussion", "once")}
    crit_on = np.full((n, 2), 6, np.int64)
    rerolls = {k: np.zeros((2, n), np.int64) for k in ("reroll_hit", "reroll_wound")}
    face_odds = {k: np.zeros((2, n, NO_SAVE + 1, 7)) for k in ("reroll_hit", "reroll_wound")}
    for i, w in enumerate(ws):
        last = any(h.strikes_last for h in w.weapons) and not kept[i].ignores_strikes_last
        for r in (0, 1):
            skills = w.skills(r == 0, charger)
            first = (any(h.strike_first for h in w.weapons) or w.side == charger
                     or skills.strike_first)
            tier[r, i] = 2 if last else (0 if r == 0 and first else 1)
            for k, h in enumerate(w.weapons):
                hit_strength[r, i, k] = w.blow_strength(h, r == 0, charger)
            for key in rerolls:
                rerolls[key][r, i] = reroll_code(getattr(skills, key))
                face_odds[key][r, i] = faces(getattr(skills, key))
        for k, h in enumerate(w.weapons):
            per_hand["save_modifier"][i, k] = h.save_modifier
            per_hand["concussion"][i, k] = h.concussion
            per_hand["once"][i, k] = h.once_per_combat
            crit_on[i, k] = min(h.crit_on, kept[i].crit_on)
    fists = each(lambda w, k: w.weapons[0].single_attack)
    blows = np.where(fists, 1, profile("A"))
    return with_laws(Plan(
        side=each(lambda w, k: w.side), ws=profile("WS"), strength=profile("S"),
        toughness=profile("T"), wounds=profile("W"), initiative=profile("I"),
        leadership=profile("Ld"),
        save=each(lambda w, k: w.save), avoid_stun=each(lambda w, k: w.avoid_stun),
        parry_items=each(lambda w, k: w.parry_items),
        causes_fear=each(lambda w, k: w.causes_fear),
        tests_fear=each(lambda w, k: not (w.causes_fear or k.frenzy or k.immune_to_psychology)),
        tier_first=tier,
        hands=each(lambda w, k: len(w.weapons)),
        blows=blows,
        fury_blows=np.where(each(lambda w, k: k.frenzy) & ~fists.astype(bool), 2, 1) * blows,
        frenzied=each(lambda w, k: k.frenzy),
        steady=each(lambda w, k: k.immune_to_psychology),
        hit_strength=hit_strength, save_modifier=per_hand["save_modifier"],
        concussion=per_hand["concussion"], crit_on=crit_on, once=per_hand["once"],
        reroll_hit=rerolls["reroll_hit"], reroll_wound=rerolls["reroll_wound"],
        hit_faces=face_odds["reroll_hit"], wound_faces=face_odds["reroll_wound"],
        critical_modifier=each(lambda w, k: k.critical_modifier),
        critical_chart=np.array([chart_odds(k.critical_modifier) for k in kept]).reshape(n, 3),
        injury_modifier=each(lambda w, k: k.injury_modifier),
        special_save=each(lambda w, k: k.special_save),
        contact=contact, to_hit=np.array(to_hit, np.int64),
        to_wound=np.array(to_wound, np.int64),
        wound_need=wound_need(hit_strength, ws, kept, to_wound),
        save_by_strength=np.array(save_by_strength, np.int64),
        charger=charger, all_alone=bool(scenario.engagement["all_alone"]),
        max_rounds=int(scenario.simulation["max_rounds"]), warriors=n))
