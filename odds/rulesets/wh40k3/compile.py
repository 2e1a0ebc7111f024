"""Turn a checked wh40k3 scenario into the flat numeric plan the kernel reads."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from odds.core.binomial import cdf_tables
from odds.rulesets.wh40k3.rules import NO_SAVE, charts, fighting_weapon, weapons

CONTACT, REACH, OUT = 0, 1, 2  # where a model stands (R0-2): in contact, within 2", beyond
STRIKES_LAST, COVER = 0, 11    # step keys; initiative steps are I (1..10), R0-4
NOBODY = 1 << 30               # "no limit" for the number of places in contact or within 2"
FIRST, LATER = 0, 1            # round types: the charge round and the rest (R0-3, R0-4)


class Plan(NamedTuple):
    """Arrays indexed [side][group][place][target group]; sides 0 attacker, 1 defender."""

    count: np.ndarray        # (2, G) models per group at the start
    wounds: np.ndarray       # (2, G) W
    leadership: np.ndarray   # (2, G) Ld
    ld_override: np.ndarray  # (2,) a side's Ld key, 0 if none (R0-11)
    removal_group: np.ndarray  # (2, 3G) removal order as (group, place) slots, -1 padded (R0-9)
    removal_place: np.ndarray  # (2, 3G)
    fill: np.ndarray         # (2, G) contact order of groups, -1 padded (R0-2)
    limits: np.ndarray       # (2, 2) places in contact / within 2" at the start and on refill
    attacks: np.ndarray      # (2 rounds, 2, G, 2 places) attacks per model (R0-2, R0-3)
    step: np.ndarray         # (2 rounds, 2, G, 2 places) strike step key, -1 never (R0-4)
    steps: np.ndarray        # (2 rounds, 12) step keys present, descending, -1 padded
    striker_side: np.ndarray   # (2 rounds, 12 steps, 4G) parts striking in each step, -1 padded
    striker_group: np.ndarray  # (2 rounds, 12 steps, 4G)
    striker_place: np.ndarray  # (2 rounds, 12 steps, 4G)
    p_wound: np.ndarray      # (2, G, 2, G) P(hit) * P(wound) against the front group (R0-5, R0-7)
    p_unsaved: np.ndarray    # (2, G, 2, G) P(no save) for the model that takes it (R0-8)
    cdf: np.ndarray          # binomial CDF rows (odds.core.binomial)
    cdf_offset: np.ndarray   # (2, 2, G, 2, G): [0] rows of p_wound, [1] rows of p_unsaved
    cdf_top: np.ndarray      # (2, 2, G, 2, G)
    charger: int             # 0 or 1
    pursue: bool             # the winner pursues when allowed (R0-12)
    refill: bool             # pile in up to the limits rather than all into contact
    halved_catch: bool       # the pursuer's halved move is what is compared (R0-12 [AMB])
    charge_distance: float   # inches through difficult terrain, or -1: the charge reaches (R0-1)
    max_rounds: int


def p_roll(target: int) -> float:
    """P(D6 >= target); targets of 7 or more never succeed."""
    return max(0, 7 - target) / 6.0


def compile_plan(scenario) -> Plan:
    """The plan for one scenario (already checked by :func:`odds.scenario.from_dict`)."""
    to_hit, to_wound = charts()
    table = weapons(scenario)
    sides = [scenario.attacker, scenario.defender]
    e = scenario.engagement
    charger = 0 if e["charger"] == "attacker" else 1
    in_cover = e["attacker_in_cover"] or e["defender_in_cover"]  # only the charged side can be
    G = max(len(side.models) for side in sides)

    count = np.zeros((2, G), np.int64)
    wounds = np.ones((2, G), np.int64)
    leadership = np.zeros((2, G), np.int64)
    ld_override = np.zeros(2, np.int64)
    removal_group = np.full((2, 3 * G), -1, np.int64)
    removal_place = np.full((2, 3 * G), -1, np.int64)
    fill = np.full((2, G), -1, np.int64)
    limits = np.full((2, 2), NOBODY, np.int64)
    attacks = np.zeros((2, 2, G, 2), np.int64)
    step = np.full((2, 2, G, 2), -1, np.int64)
    p_wound = np.zeros((2, G, 2, G))
    p_unsaved = np.ones((2, G, 2, G))

    fighting = [[fighting_weapon(g, table) for g in side.models] for side in sides]
    for s, side in enumerate(sides):
        enemy = sides[1 - s].models
        last = [g.options["character"] or fighting[s][i].removed_last
                for i, g in enumerate(side.models)]
        ordinary = [i for i in range(len(last)) if not last[i]]
        removed_last = [i for i in range(len(last)) if last[i]]
        slots = [(i, place) for cls in (ordinary, removed_last)
                 for place in (CONTACT, REACH, OUT) for i in cls]
        removal_group[s, :len(slots)] = [i for i, _ in slots]
        removal_place[s, :len(slots)] = [p for _, p in slots]
        fill[s, :len(side.models)] = removed_last + ordinary
        if side.options["in_contact"] is not None:
            limits[s, 0] = side.options["in_contact"]
        if side.options["within_2in"] is not None:
            limits[s, 1] = side.options["within_2in"]
        ld_override[s] = side.options["Ld"] or 0

        for i, group in enumerate(side.models):
            prof, weapon = group.profile, fighting[s][i]
            count[s, i], wounds[s, i], leadership[s, i] = group.count, prof["W"], prof["Ld"]
            two_weapons = sum(table[n].two_weapon for n in group.equipment) >= 2
            frag = any(table[n].frag for n in group.equipment)
            for r in (FIRST, LATER):
                charging = r == FIRST and s == charger
                attacks[r, s, i, CONTACT] = prof["A"] + two_weapons + charging
                attacks[r, s, i, REACH] = 1
                cover_step = r == FIRST and in_cover and (s != charger or frag)
                initiative = COVER if cover_step else prof["I"]
                step[r, s, i, CONTACT] = STRIKES_LAST if weapon.strikes_last else initiative
                step[r, s, i, REACH] = initiative
            for place, strength, armour_piercing, cap in (
                (CONTACT, weapon.strength(prof["S"]), weapon.ignores_armour, weapon.save_cap),
                (REACH, prof["S"], False, None),
            ):
                for j, target in enumerate(enemy):
                    t = target.profile
                    p_wound[s, i, place, j] = (p_roll(to_hit[prof["WS"] - 1][t["WS"] - 1])
                                               * p_roll(to_wound[strength - 1][t["T"] - 1]))
                    armour = t["Sv"] or NO_SAVE
                    if cap is not None:
                        armour = max(armour, cap)
                    if armour_piercing or group.options["monstrous"]:
                        armour = NO_SAVE
                    best = min(armour, t["Inv"] or NO_SAVE)
                    p_unsaved[s, i, place, j] = 1.0 - p_roll(best)

    steps = np.full((2, COVER + 1), -1, np.int64)
    strikers = np.full((3, 2, COVER + 1, 4 * G), -1, np.int64)  # side, group, place
    for r in (FIRST, LATER):
        keys = sorted({int(k) for k in step[r].ravel() if k >= 0}, reverse=True)
        steps[r, :len(keys)] = keys
        for k, key in enumerate(keys):
            parts = np.argwhere(step[r] == key)  # rows (side, group, place)
            strikers[:, r, k, :len(parts)] = parts.T
    most = count[:, :, None, None] * attacks.max(axis=0)[:, :, :, None]
    cdf, cdf_offset, cdf_top = cdf_tables(np.stack([p_wound, p_unsaved]),
                                          np.broadcast_to(most, (2,) + p_wound.shape))
    halved = e["pursuit_difficult_terrain"] and e["pursuit_halving_affects_catch"]
    distance = e["charge_distance"] if e["charge_through_difficult_terrain"] else -1.0
    return Plan(count, wounds, leadership, ld_override, removal_group, removal_place, fill,
                limits, attacks, step, steps, *strikers, p_wound, p_unsaved, cdf, cdf_offset,
                cdf_top, charger, bool(e["pursue"]),
                e["pile_in"] == "refill", bool(halved), float(distance),
                int(scenario.simulation["max_rounds"]))
