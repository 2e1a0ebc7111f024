"""Turn a checked wh40k3 scenario into the plan its rule text (fight.py) reads: every chance
worked out and packed (:mod:`odds.core.packed`)."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from odds.core.binomial import cdf_tables
from odds.core.dice import laws
from odds.core.exact import dice_sum
from odds.core.packed import Packed, pack
from odds.rulesets.wh40k3.attack import p_roll, p_wound as p_hit_and_wound, striking
from odds.rulesets.wh40k3.fight import (ADVANCE, CONTACT, FEARLESS_LD, FIRST, LATER, OUT,
                                        REACH, STEPS, TABLES)
from odds.rulesets.wh40k3.rules import (
    NO_SAVE,
    active,
    attack_sources,
    charts,
    counter_attacks,
    fighting_weapon,
    group_rules,
    pair_of,
    special_rules,
    weapons,
)

STRIKES_LAST, COVER = 0, 11    # step keys; initiative steps are I (1..10), R0-4
NOBODY = 1 << 30               # "no limit" for the number of places in contact or within 2"
ROUND_TYPES = 4
# the side that charged into the combat of each round type: the scenario's charger (None) in
# the first round, nobody (-1) in later rounds, after an advance the side that advanced
CHARGING = {FIRST: None, LATER: -1, ADVANCE: 0, ADVANCE + 1: 1}


class Plan(NamedTuple):
    """What the rule text (fight.py) reads, packed (``packed``, :mod:`odds.core.packed`),
    and the same tables by name for readers of plans. Arrays are indexed [side][group]
    [place][target group]; sides 0 attacker, 1 defender. A side's groups are numbered
    across its units in file order; ``unit_of`` says whose each is, and ``unit_start`` where
    each unit's groups begin (R0-13). fight.TABLES says what each table holds."""

    packed: Packed
    count: np.ndarray        # (2, G) models per group at the start
    wounds: np.ndarray       # (2, G) W
    leadership: np.ndarray   # (2, G) Ld
    unit_of: np.ndarray      # (2, G)
    unit_start: np.ndarray   # (2, U + 1)
    units: np.ndarray        # (2,) units a side
    ld_override: np.ndarray  # (2, U) a unit's Ld key, 0 if none or Fearless models (R0-11)
    limits: np.ndarray       # (2, U, 2) places in contact / within 2"
    attacks: np.ndarray      # (4 round types, 2, G, 2 places) attacks per model (R0-2, R0-3)
    step: np.ndarray         # (4, 2, G, 2 places) strike step key, -1 never (R0-4)
    chance: np.ndarray       # (4,) the layer of p_wound each round type reads
    p_wound: np.ndarray      # (L, 2, G, 2, G) P(hit) * P(wound) against the front group (R0-5,
    #                          R0-7), one layer per distinct set of special-rule effects
    p_unsaved: np.ndarray    # (2, G, 2, G) P(no save) for the model that takes it (R0-8)


def compile_plan(scenario) -> Plan:
    """The plan for one scenario (already checked by :func:`odds.scenario.from_dict`)."""
    to_hit, to_wound = charts()
    table = weapons(scenario)
    known = special_rules(scenario)
    sides = [scenario.attacker.every_unit, scenario.defender.every_unit]
    groups = [[g for unit in side for g in unit.models] for side in sides]
    e = scenario.engagement
    charger = 0 if e["charger"] == "attacker" else 1
    G = max(len(g) for g in groups)
    U = max(len(side) for side in sides)

    count = np.zeros((2, G), np.int64)
    wounds = np.ones((2, G), np.int64)
    leadership = np.zeros((2, G), np.int64)
    unit_of = np.full((2, G), -1, np.int64)
    unit_start = np.zeros((2, U + 1), np.int64)
    unit_size = np.zeros((2, U), np.int64)
    ld_override = np.zeros((2, U), np.int64)
    prefer = np.zeros((2, U), np.int64)
    fresh = np.full(2, -1, np.int64)
    reach = np.zeros(2)
    removal_group = np.full((2, U, 3 * G), -1, np.int64)
    removal_place = np.full((2, U, 3 * G), -1, np.int64)
    fill = np.full((2, U, G), -1, np.int64)
    limits = np.full((2, U, 2), NOBODY, np.int64)
    p_wound = np.zeros((ROUND_TYPES, 2, G, 2, G))
    p_unsaved = np.ones((2, G, 2, G))

    fighting = [[fighting_weapon(g, table) for g in side] for side in groups]
    rules = [[group_rules(g, known) for g in side] for side in groups]
    for s, side in enumerate(sides):
        enemy_names = [u.name for u in sides[1 - s]]
        first = 0
        for u, unit in enumerate(side):
            own = range(first, first + len(unit.models))
            first = own.stop
            unit_of[s, own.start:own.stop] = u
            unit_start[s, u + 1:] = own.stop
            unit_size[s, u] = sum(g.count for g in unit.models)
            o = unit.options
            leadership[s, own.start:own.stop], ld_override[s, u] = _leadership(
                unit, rules[s][own.start:own.stop])
            prefer[s, u] = enemy_names.index(o["strikes"]) if o["strikes"] else 0
            if not o["engaged"]:
                fresh[s], reach[s] = u, o["distance"]
            last = [i for i in own if groups[s][i].options["character"]
                    or fighting[s][i].removed_last]
            ordinary = [i for i in own if i not in last]
            slots = [(i, place) for cls in (ordinary, last) for place in (CONTACT, REACH, OUT)
                     for i in cls]
            removal_group[s, u, :len(slots)] = [i for i, _ in slots]
            removal_place[s, u, :len(slots)] = [p for _, p in slots]
            fill[s, u, :len(own)] = last + ordinary
            charged = s != charger or not o["engaged"]  # or charged by an advance (R0-12)
            if o["in_contact"] is not None and not (charged and counter_attacks(unit, known)):
                limits[s, u, 0] = o["in_contact"]
            if o["within_2in"] is not None:
                limits[s, u, 1] = o["within_2in"]
        for i, group in enumerate(groups[s]):
            prof = group.profile
            count[s, i], wounds[s, i] = group.count, prof["W"]
            done = {}  # the round types already computed, by the rules in force
            for r in range(ROUND_TYPES):
                by = tuple(_round_rules(rules[s][i], r, s, charger))
                if by in done:
                    p_wound[r, s, i] = p_wound[done[by], s, i]
                    continue
                done[by] = r
                _chances(group, fighting[s][i], by, groups[1 - s], to_hit, to_wound,
                         p_wound[r, s, i], p_unsaved[s, i])

    p_wound, chance = _layers(p_wound)
    attacks, step = _strike_orders(scenario, sides, groups, fighting, rules, table, unit_of,
                                   charger)
    steps = np.zeros(ROUND_TYPES, np.int64)
    striker = np.full((ROUND_TYPES, STEPS, 4 * G, 3), -1, np.int64)  # side, group, place
    late = np.zeros((ROUND_TYPES, STEPS, G), np.int64)
    for r in range(ROUND_TYPES):
        keys = sorted({int(k) for k in step[r].ravel() if k >= 0}, reverse=True)
        steps[r] = len(keys)
        for k, key in enumerate(keys):
            parts = np.argwhere(step[r] == key)  # rows (side, group, place), the defender's
            striker[r, k, :len(parts)] = parts[np.lexsort((parts[:, 2], parts[:, 1],
                                                           -parts[:, 0]))]  # first
            late[r, k, parts[parts[:, 0] == 0, 1]] = 1
    uniform = _alike(p_unsaved, unit_start, len(sides[0]), len(sides[1]))
    enemy_unit = np.broadcast_to(unit_of[::-1].clip(0)[:, None, None, :], p_unsaved.shape)
    p_kill = p_wound * p_unsaved * np.take_along_axis(uniform, enemy_unit, axis=3)
    most = count[:, :, None, None] * attacks.max(axis=0)[:, :, :, None]
    chances = np.concatenate([p_unsaved[None], p_wound, p_kill])
    cdf, row, top = cdf_tables(chances, np.broadcast_to(most, chances.shape))
    layers = len(p_wound)
    distance = e["charge_distance"] if e["charge_through_difficult_terrain"] else 0.0
    values = dict(
        unit_count=np.array([len(side) for side in sides]), fresh=fresh, charger=charger,
        pursue=bool(e["pursue"]), refill=e["pile_in"] == "refill",
        halved_move=bool(e["pursuit_difficult_terrain"]),
        max_rounds=int(scenario.simulation["max_rounds"]),
        charge_roll=bool(e["charge_through_difficult_terrain"]), most_hits=int(most.max()),
        wound_points=(count * wounds).sum(axis=1),
        steps=steps, chance=chance, count=count, wounds=wounds, leadership=leadership,
        unit_of=unit_of, unit_start=unit_start, unit_size=unit_size, ld_override=ld_override,
        prefer=prefer, tough=_tough(wounds, unit_start, U), removal_group=removal_group,
        removal_place=removal_place, fill=fill,
        limits=limits, attacks=attacks, striker=striker, late=late, uniform=uniform,
        hits_row=row[1:1 + layers], hits_top=top[1:1 + layers], saves_row=row[0],
        saves_top=top[0], kills_row=row[1 + layers:], kills_top=top[1 + layers:],
        reach=reach, p_wound=p_wound, p_unsaved=p_unsaved, p_kill=p_kill,
        **_laws(distance, reach, e, U))
    return Plan(pack(TABLES, values, cdf, G, U, layers), count, wounds, leadership, unit_of,
                unit_start, values["unit_count"], ld_override, limits, attacks, step, chance,
                p_wound, p_unsaved)


def _tough(wounds, unit_start, U) -> np.ndarray:
    """(2, U): 1 where a model of the unit has more than one wound (R0-9)."""
    out = np.zeros((2, U), np.int64)
    for s in range(2):
        for u in range(U):
            out[s, u] = (wounds[s, unit_start[s, u]:unit_start[s, u + 1]] > 1).any()
    return out


def _alike(p_unsaved, unit_start, *units) -> np.ndarray:
    """(2, G, 2, U): 1 where every group of the enemy's unit u has the same chance of no save
    against part (side, group, place): its wounds are then one pick (fight.py)."""
    G = p_unsaved.shape[1]
    out = np.zeros((2, G, 2, unit_start.shape[1] - 1), np.int64)
    for s in range(2):
        for u in range(units[1 - s]):
            mine = p_unsaved[s, :, :, unit_start[1 - s, u]:unit_start[1 - s, u + 1]]
            out[s, :, :, u] = np.ptp(mine, axis=-1) == 0
    return out


def _laws(distance: float, reach: np.ndarray, e: dict, units: int) -> dict:
    """The rule text's laws (``odds.core.dice.laws``) of the charge (R0-1), the roll-off
    (R0-10), the Ld test (R0-11), pursuit, catch and reaching a fresh unit (R0-12)."""
    two_d6 = dice_sum(2)  # P(2D6 = t), t = 0 .. 12
    rolls = np.arange(13)
    short = sum(1 for face in range(1, 7) if face < distance) / 6
    fails = np.array([two_d6[rolls > ld].sum() if ld < FEARLESS_LD else 0.0
                      for ld in range(FEARLESS_LD + 1)])
    halved = e["pursuit_difficult_terrain"] and e["pursuit_halving_affects_catch"]
    caught = np.array([two_d6[(2 * rolls if halved else rolls) < b].sum() for b in range(13)])
    best = [np.eye(13)[0]]  # the best of n pursuit rolls (0: nobody pursues)
    for _ in range(units):
        at_most = np.cumsum(best[-1]) * np.cumsum(two_d6)
        best.append(np.diff(at_most, prepend=0.0))
    by_best = np.array([b @ caught for b in best])
    needed = 2 * reach if e["pursuit_difficult_terrain"] else reach
    reaches = np.array([two_d6[rolls >= needed[x]].sum() for x in range(2)])
    return dict(
        charge_law=laws([1.0 - short * short, short * short]),
        roll_off_law=laws([5 / 12, 5 / 12, 1 / 6]),  # side 0 wins, side 1 wins, equal again
        test_law=laws(np.stack([1.0 - fails, fails], axis=-1)),
        pursuit_law=laws(two_d6[2:]),
        catch_law=laws(np.stack([1.0 - caught, caught], axis=-1)),
        caught_law=laws(np.stack([1.0 - by_best, by_best], axis=-1)),
        reach_law=laws(np.stack([1.0 - reaches, reaches], axis=-1)))


def _layers(p_wound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct round types' chances (L, ...) and the layer each round type reads: one
    layer when no special rule depends on the round."""
    layers, chance = [], np.zeros(ROUND_TYPES, np.int64)
    for r in range(ROUND_TYPES):
        same = [k for k, layer in enumerate(layers) if np.array_equal(layer, p_wound[r])]
        if not same:
            layers.append(p_wound[r])
        chance[r] = same[0] if same else len(layers) - 1
    return np.stack(layers), chance


def _leadership(unit, rules) -> tuple[list[int], int]:
    """Each group's Ld and the unit's Ld key (0: none) for its tests (R0-11). The unit passes
    while a Fearless model stands: those test on FEARLESS_LD, and the Ld key, if any, becomes
    the Ld of the others."""
    fearless = [any(x.fearless for x in group) for group in rules]
    key = unit.options["Ld"]
    if not any(fearless):
        return [g.profile["Ld"] for g in unit.models], key or 0
    return [FEARLESS_LD if brave else key or g.profile["Ld"]
            for g, brave in zip(unit.models, fearless)], 0


def _round_rules(rules, r: int, s: int, charger: int) -> list:
    """Side s's rules in force in round type r: on the charge for the side that charged into
    this combat, when charged for the other (R0-3, R0-12)."""
    charging = charger if CHARGING[r] is None else CHARGING[r]
    return active(rules, s == charging, charging >= 0 and s != charging)


def _chances(group, weapon, rules, enemy, to_hit, to_wound, p_wound, p_unsaved) -> None:
    """One group's P(hit and wound) and P(unsaved) against each enemy group, [place, target]
    (R0-5, R0-7, R0-8), with the ``rules`` in force: in contact with its fighting weapon and
    its dice effects, within 2" at its profile S with only its rules' effects."""
    prof = group.profile
    bonus = sum(x.strength_bonus for x in rules)
    for place, strength, armour_piercing, cap, by in (
        (CONTACT, weapon.strength(prof["S"], bonus), weapon.ignores_armour, weapon.save_cap,
         striking(attack_sources(rules, weapon, pair_of(group, weapon)))),
        (REACH, max(1, min(10, prof["S"] + bonus)), False, None, striking(rules)),
    ):
        for j, target in enumerate(enemy):
            t = target.profile
            p_wound[place, j] = p_hit_and_wound(to_hit[prof["WS"] - 1][t["WS"] - 1],
                                                to_wound[strength - 1][t["T"] - 1], by)
            armour = t["Sv"] or NO_SAVE
            if cap is not None:
                armour = max(armour, cap)
            if armour_piercing or group.options["monstrous"]:
                armour = NO_SAVE
            best = min(armour, t["Inv"] or NO_SAVE)
            p_unsaved[place, j] = 1.0 - p_roll(best)


def _strike_orders(scenario, sides, groups, fighting, rules, table, unit_of, charger):
    """Attacks per model and strike step of each part, per round type (R0-3, R0-4, R0-12).

    The charging side of a round type gets +1 A in contact; the units it charges into cover
    strike in the cover step, and so do its groups with frag grenades. The rules in force add
    their attacks in contact and their Initiative (kept within 1-10) to both places."""
    G = unit_of.shape[1]
    attacks = np.zeros((ROUND_TYPES, 2, G, 2), np.int64)
    step = np.full((ROUND_TYPES, 2, G, 2), -1, np.int64)
    cover = np.zeros((ROUND_TYPES, 2, G), bool)  # [r, side, group]: in cover
    e = scenario.engagement
    charged = 1 - charger
    for u, unit in enumerate(sides[charged]):
        if unit.options["engaged"]:
            cover[FIRST, charged, unit_of[charged] == u] = (
                e[f"{('attacker', 'defender')[charged]}_in_cover"] or unit.options["in_cover"])
    for s in range(2):  # the defender's fresh unit is charged by an attacker advance, etc.
        for u, unit in enumerate(sides[s]):
            if not unit.options["engaged"]:
                cover[ADVANCE + 1 - s, s, unit_of[s] == u] = unit.options["in_cover"]
    for s, side in enumerate(groups):
        for i, group in enumerate(side):
            prof, weapon = group.profile, fighting[s][i]
            two_weapons = sum(table[n].two_weapon for n in group.equipment) >= 2
            frag = any(table[n].frag for n in group.equipment)
            for r, charging_side in CHARGING.items():
                charging = s == (charger if charging_side is None else charging_side)
                by = _round_rules(rules[s][i], r, s, charger)
                attacks[r, s, i, CONTACT] = (prof["A"] + two_weapons + charging
                                             + sum(x.extra_attacks for x in by))
                attacks[r, s, i, REACH] = 1
                cover_step = cover[r, s, i] or (charging and frag and cover[r, 1 - s].any())
                initiative = COVER if cover_step else max(1, min(10, prof["I"] + sum(
                    x.initiative_bonus for x in by)))
                step[r, s, i, CONTACT] = STRIKES_LAST if weapon.strikes_last else initiative
                step[r, s, i, REACH] = initiative
    return attacks, step
