"""wh40k3 scenarios with sides of several units (R0-12 advance, R0-13 multiple combat), for
parity tests of the kernel against tests/naive_wh40k3.py.

``SCENARIOS`` maps a name to a TOML-shaped scenario dict (what ``odds.from_dict`` takes);
:func:`scenario` builds the checked scenario. Units have 3-15 models, so the reference plays a
few thousand fights of each in seconds. What each one exercises is in its comment.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import odds

ISSUE_EXAMPLE = (Path(__file__).resolve().parents[1]
                 / "data/scenarios/wh40k3_two_squads_vs_ork_mob.toml")

MARINE = dict(WS=4, S=4, T=4, W=1, I=4, A=1, Ld=8, Sv=3)
GUARD = dict(WS=3, S=3, T=3, W=1, I=3, A=1, Ld=7, Sv=5)
BOY = dict(WS=4, S=3, T=4, W=1, I=2, A=1, Ld=7, Sv=6)
NOB = dict(WS=4, S=4, T=4, W=2, I=3, A=2, Ld=7, Sv=6)
GRETCHIN = dict(WS=2, S=2, T=2, W=1, I=2, A=1, Ld=5)
TERMINATOR = dict(WS=4, S=4, T=4, W=1, I=4, A=2, Ld=9, Sv=2, Inv=5)


def models(name, count, equipment=(), **profile):
    """One model group."""
    return {"name": name, "count": count, "profile": profile, "equipment": list(equipment)}


def unit(name, *groups, **keys):
    """One unit: its model groups and its unit keys (in_contact, Ld, strikes, engaged, ...)."""
    return {"name": name, "models": list(groups), **keys}


def fight(name, attacker, defender, max_rounds=6, **engagement):
    """A scenario dict; a side given as a list is ``[[<side>.units]]``, a dict is one unit."""
    def side(value):
        return {"units": value} if isinstance(value, list) else value

    return {"ruleset": "wh40k3", "name": name, "attacker": side(attacker),
            "defender": side(defender), "engagement": engagement,
            "simulation": {"max_rounds": max_rounds}}


def tactical(name="Tactical Squad", count=5, **keys):
    return unit(name, models("Space Marine", count, ["close combat weapon"], **MARINE), **keys)


def assault(name="Assault Squad", count=5, **keys):
    return unit(name, models("Assault Marine", count, ["bolt pistol", "chainsword"], **MARINE),
                **keys)


def boyz(name="Ork Boyz", count=12, **keys):
    return unit(name, models("Boy", count, ["slugga", "choppa"], **BOY), **keys)


def guard(name="Guard Squad", count=6, **keys):
    return unit(name, models("Guardsman", count, ["laspistol"], **GUARD), **keys)


def gretchin(name="Gretchin", count=8, **keys):
    return unit(name, models("Gretchin", count, ["close combat weapon"], **GRETCHIN), **keys)


def issue_example() -> dict:
    """The issue's example file, as a dict."""
    with open(ISSUE_EXAMPLE, "rb") as f:
        return tomllib.load(f)


SCENARIOS = {
    # the issue's example: 2 v 1 with a fresh Gretchin mob 6" away, Boyz strike the Tacticals
    "issue_two_squads_vs_ork_mob": issue_example(),
    # 2 v 1, default strikes (both squads strike the mob), pursue on
    "two_v_one": fight("2 v 1", [assault(), tactical()], boyz(count=12)),
    # 1 v 2 written as a one-unit side against [[defender.units]]; the Boyz strike unit 0
    "one_v_two": fight("1 v 2", boyz(count=10),
                       [guard("First Squad", 5), guard("Second Squad", 5)]),
    # 2 v 2, every unit names its target; per-unit in_contact / within_2in, refill pile-in
    "two_v_two_strikes_refill": fight(
        "2 v 2, strikes, refill",
        [assault(strikes="Second Squad", in_contact=3, within_2in=1),
         tactical(strikes="First Squad", in_contact=2)],
        [guard("First Squad", 6, strikes="Tactical Squad", in_contact=4, within_2in=2),
         guard("Second Squad", 6, in_contact=3)],
        pile_in="refill"),
    # 3 v 1 against multi-wound Nobz with a power klaw (strikes last, S 8, no armour)
    "three_v_one_nobz": fight(
        "3 v 1 against Nobz",
        [guard("First Squad", 4), guard("Second Squad", 4), guard("Third Squad", 4)],
        unit("Nobz", models("Nob", 4, ["slugga", "choppa"], **NOB),
             models("Boss Nob", 1, ["power klaw", "slugga"], **NOB))),
    # the Assault Squad first wipes out 3 Gretchin, then retargets the Boyz (R0-13)
    "retarget_after_wipe_out": fight(
        "retarget after a wipe-out",
        [assault(strikes="Gretchin", count=6), tactical(count=4)],
        [boyz(count=10), gretchin(count=3)]),
    # a fresh Guard squad 12" away: reached only on a 12 after a wipe-out or fall-back
    "fresh_unit_at_12": fight(
        "fresh unit at 12 inches",
        [assault(), tactical()],
        [guard("Front Squad", 5), guard("Reserve Squad", 5, engaged=False, distance=12)]),
    # a fresh unit 13" away is never reached: always unreached
    "fresh_unit_at_13": fight(
        "fresh unit at 13 inches",
        [assault(), tactical()],
        [guard("Front Squad", 5), guard("Reserve Squad", 5, engaged=False, distance=13)]),
    # a fresh unit 5" away and pursue = false: nobody pursues or advances
    "fresh_unit_no_pursuit": fight(
        "fresh unit, pursue = false",
        [assault(), tactical()],
        [boyz(count=8), gretchin(count=8, engaged=False, distance=5)],
        pursue=False),
    # the charging side keeps a fresh unit (in cover) back: if the Boyz win they advance into
    # it and it is charged; the charged Boyz are in cover, the Assault Squad has frag grenades
    "fresh_unit_on_charging_side": fight(
        "fresh unit on the charging side",
        [unit("Assault Squad", models("Assault Marine", 4,
                                      ["bolt pistol", "chainsword", "frag grenades"], **MARINE)),
         tactical("Devastators", 5, engaged=False, distance=4, in_cover=True)],
        boyz(count=12, in_cover=True)),
    # engagement-level cover for every charged unit, a charger group with frag grenades and one
    # without, a fresh unit in cover 3" away (its own in_cover)
    "cover_frag_and_fresh_in_cover": fight(
        "cover, frag grenades, fresh unit in cover",
        [unit("Assault Squad",
              models("Grenadier", 3, ["chainsword", "frag grenades"], **MARINE),
              models("Assault Marine", 2, ["chainsword"], **MARINE)),
         tactical(count=4)],
        [guard("Front Squad", 6), guard("Second Squad", 4),
         guard("Reserve Squad", 6, engaged=False, distance=3, in_cover=True)],
        defender_in_cover=True),
    # power fists and Terminators (2+ / 5++) on both sides, the defender charges
    "power_fists_defender_charges": fight(
        "power fists, defender charges",
        [unit("Terminators", models("Terminator", 3, ["power fist"], **TERMINATOR)),
         unit("Veterans", models("Sergeant", 1, ["power fist", "bolt pistol"], **MARINE),
              models("Veteran", 4, ["bolt pistol", "chainsword"], **MARINE))],
        [unit("Nobz", models("Nob", 4, ["power klaw"], **NOB)), boyz(count=10)],
        charger="defender"),
    # pursuit through difficult terrain: a fresh unit 4" away is reached on 2D6 >= 8; the raw
    # roll decides the catch
    "pursuit_terrain": fight(
        "pursuit through difficult terrain",
        [assault(), tactical()],
        [guard("Front Squad", 5, Ld=5), gretchin(count=6, engaged=False, distance=4)],
        pursuit_difficult_terrain=True),
    # ... and the halved roll decides the catch too
    "pursuit_terrain_halving_catch": fight(
        "pursuit through difficult terrain, halved catch",
        [assault(), tactical()],
        [guard("Front Squad", 5, Ld=5), gretchin(count=6, engaged=False, distance=4)],
        pursuit_difficult_terrain=True, pursuit_halving_affects_catch=True),
    # per-unit Ld: one unit holds on Ld 10, the other breaks on Ld 3; the winners pursue both
    "per_unit_ld": fight(
        "per-unit Ld",
        [boyz("Big Mob", count=14), boyz("Small Mob", count=6)],
        [guard("Steady Squad", 5, Ld=10), guard("Shaky Squad", 5, Ld=3)]),
    # evenly matched, two rounds only: many fights unresolved; a fresh unit on each side
    "short_max_rounds": fight(
        "two rounds at most",
        [tactical(count=4), tactical("Reserve Marines", 3, engaged=False, distance=6)],
        [guard("First Squad", 6), guard("Second Squad", 5),
         guard("Reserve Squad", 4, engaged=False, distance=5)],
        max_rounds=2),
    # 2 v 2 with a fresh unit on both sides, long fights, pile-in all
    "two_v_two_both_fresh": fight(
        "2 v 2, a fresh unit each side",
        [assault(count=4), tactical(count=4), tactical("Reserve Marines", 4, engaged=False,
                                                        distance=7)],
        [boyz(count=8), boyz("Second Mob", 6, strikes="Assault Squad"),
         gretchin(count=8, engaged=False, distance=6, strikes="Tactical Squad")],
        max_rounds=10),
}


def scenario(name: str):
    """The checked scenario ``name`` of SCENARIOS."""
    return odds.from_dict(SCENARIOS[name])
