"""One whfb8 attack's chance to cause an unsaved wound (R2-7 ... R2-9), with the special rules
and weapon effects on its dice (:mod:`odds.core.effects`): re-rolls, modifiers, Poisoned
Attacks, Killing Blow, Armour Piercing, Regeneration and Flaming Attacks; and what a model's
profile and gear give its attacks: strike order (R2-6), Strength (R2-8), armour save (R2-9),
supporting attacks (R2-5) and the dice of rolled attacks."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from odds.core.effects import dice_pmf, final_faces, strongest_reroll, succeeds
from odds.rulesets.whfb8.rules import NO_SAVE, AttackEffects


@dataclass(frozen=True)
class Saving:
    """The effects on one side's own saves in one round."""

    regeneration: int = NO_SAVE
    reroll_armour: str | None = None
    reroll_ward: str | None = None


KILLING_BLOW = (None, "man-sized", "any")  # weakest first
IMPACT_I, STOMP_I = 10, 0               # Impact Hits strike at Initiative 10, Stomps at 0
NO_DICE = (0, 1, 0)                     # a dice spec (odds.core.effects.dice) of nothing
RESURRECTION_HORDE = 10                 # the rules text's Horde width, for every troop type
NO_MOUNT = {"WS": 1, "S": 1, "I": 1, "A": 0}  # a model on foot: a mount with no attacks


def striking(sources, extra_reroll: str | None = None) -> AttackEffects:
    """The stacked attack effects of ``sources`` (special rules and the weapon); modifiers
    add, re-rolls do not stack, the best fixed roll needed and the strongest Killing Blow
    apply. ``extra_reroll`` is a
    re-roll of misses the rules give besides (Always Strikes First, R2-6)."""
    return AttackEffects(
        reroll_hit=strongest_reroll([extra_reroll] + [x.reroll_hit for x in sources]),
        reroll_wound=strongest_reroll([x.reroll_wound for x in sources]),
        hit_modifier=sum(x.hit_modifier for x in sources),
        wound_modifier=sum(x.wound_modifier for x in sources),
        hits_on=min((x.hits_on for x in sources if x.hits_on), default=None),
        wounds_on=min((x.wounds_on for x in sources if x.wounds_on), default=None),
        poisoned=any(x.poisoned for x in sources),
        killing_blow=max((x.killing_blow for x in sources), key=KILLING_BLOW.index,
                         default=None),
        armour_piercing=sum(x.armour_piercing for x in sources),
        ignores_armour=any(x.ignores_armour for x in sources),
        flaming=any(x.flaming for x in sources),
        enemy_rerolls_armour=any(x.enemy_rerolls_armour for x in sources),
        multiple_wounds=max((x.multiple_wounds for x in sources if x.multiple_wounds),
                            key=mean, default=None))


def mean(spec: tuple) -> float:
    """The mean of a dice spec (odds.core.effects.dice): the larger Multiple Wounds applies."""
    pmf = dice_pmf(spec)
    return float(pmf @ range(len(pmf)))


def saving(rules) -> Saving:
    """The stacked save effects of ``rules``: the best Regeneration, the strongest re-rolls."""
    return Saving(
        regeneration=min([r.regeneration for r in rules if r.regeneration] + [NO_SAVE]),
        reroll_armour=strongest_reroll([r.reroll_armour for r in rules]),
        reroll_ward=strongest_reroll([r.reroll_ward for r in rules]))


@lru_cache(maxsize=4096)
def p_unsaved(to_hit: int | None, to_wound: int, armour: int, ward: int, strength: int,
              by: AttackEffects, on: Saving, man_sized: bool) -> tuple[float, float]:
    """P(one attack causes an unsaved wound), split as (a wound, a Killing Blow): ``to_hit``
    and ``to_wound`` from the charts (``to_hit`` None: it hits automatically; ``to_wound``
    ``NO_SAVE`` when the hit cannot wound), ``armour`` the target's save before Strength
    (``NO_SAVE``: none), ``ward`` its best ward save other than Regeneration. ``man_sized``:
    a (not Heroic) Killing Blow can slay the target's troop type.

    A fixed roll needed ("always hits on 3+") caps the chart's before modifiers. A natural 1
    always fails to hit or wound and a natural 6 always hits (*assumption* for modifiers
    past the chart); a hit that cannot wound on the chart never does, unless a fixed roll
    says it wounds. A natural 6 to
    hit with Poisoned Attacks wounds without a roll; a natural 6 to wound with Killing Blow
    allows no armour save and slays the model. One ward save is taken: the best of ``ward``
    and Regeneration (lost against flaming attacks)."""
    if to_hit is None:
        automatic, rolled = 0.0, 1.0
    else:
        hit_ok = succeeds(min(to_hit, by.hits_on or NO_SAVE), by.hit_modifier)
        hit = final_faces(hit_ok, by.reroll_hit)
        automatic = hit[6] if by.poisoned else 0.0
        rolled = hit[hit_ok].sum() - automatic
    to_wound = min(to_wound, by.wounds_on or NO_SAVE)
    if to_wound >= NO_SAVE:
        wounding = killing = 0.0
    else:
        wound_ok = succeeds(to_wound, by.wound_modifier)
        wound = final_faces(wound_ok, by.reroll_wound)
        slays = by.killing_blow == "any" or (by.killing_blow == "man-sized" and man_sized)
        killing = wound[6] if slays else 0.0
        wounding = wound[wound_ok].sum() - killing
    armour_fails = 1.0
    need = armour + max(0, strength - 3) + by.armour_piercing
    if not by.ignores_armour and need < NO_SAVE:
        ok = succeeds(need, six_succeeds=False)
        armour_fails = 1.0 - final_faces(ok, on.reroll_armour, by.enemy_rerolls_armour)[ok].sum()
    ward_need = min(ward, NO_SAVE if by.flaming else on.regeneration)
    ward_fails = 1.0
    if ward_need < NO_SAVE:
        ok = succeeds(ward_need, six_succeeds=False)
        ward_fails = 1.0 - final_faces(ok, on.reroll_ward)[ok].sum()
    return (float((automatic + rolled * wounding) * armour_fails * ward_fails),
            float(rolled * killing * ward_fails))


def strike_key(initiative: int, first: bool, last: bool, simultaneous: bool = False) -> int:
    """Strike order key, highest first (R2-6): Always Strikes First before every Initiative
    step, Always Strikes Last after them; both cancel out and the model strikes by I. With
    ``simultaneous`` (``same_strike_order``) every part of one ability strikes at one step of
    its band, whatever its I; otherwise by I within the band."""
    rank = 1 if first == last else (2 if first else 0)
    return 16 * rank + (0 if simultaneous and rank != 1 else initiative)


def dice_of(rules, key: str) -> tuple:
    """The dice ``rules`` give for ``key`` (Random Attacks, Impact Hits, Stomp), NO_DICE if
    none: the first rule that gives them."""
    return tuple(next((getattr(x, key) for x in rules if getattr(x, key)), NO_DICE))


def armour_save(profile, items, on_mount: bool) -> int:
    """The armour save before Strength (R2-9): the profile's Sv, else the best armour item's,
    better by each item's bonus (shield, barding) and by 1 for being mounted."""
    if profile["Sv"] is not None:
        return profile["Sv"]
    best = min([i.armour for i in items if i.armour is not None] + [NO_SAVE])
    return best - sum(i.armour_bonus for i in items) - on_mount


def strength(profile, weapon, first_round: bool, charging: bool, on_mount: bool) -> int:
    """A model's S with its weapon (R2-8): + its bonus, + its first-round bonus, + its charge
    bonus for a mounted charger; at most 10."""
    return min(10, profile["S"] + weapon.strength_bonus
               + first_round * weapon.first_round_strength
               + (charging and on_mount) * weapon.charge_strength)


def support(profile, weapon, rules, troop, resurrection: bool) -> tuple[int, int, int]:
    """(supporting ranks without the Horde, supporting attacks a supporting model makes,
    files that make a Horde) of a unit's rank-and-file (R2-5): 8th edition, or the rules
    text with ``resurrection``."""
    foot_extra = not troop.mounted and (weapon.extra_rank or any(r.extra_rank for r in rules))
    if resurrection:
        return int(foot_extra), 1, RESURRECTION_HORDE if troop.horde_files else 0
    return 1 + foot_extra, min(profile["A"], troop.support_max), troop.horde_files
