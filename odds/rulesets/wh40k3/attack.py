"""One wh40k3 attack's chance to hit and wound (R0-5, R0-7), with the re-rolls and modifiers
of the striker's special rules and weapon on its dice (:mod:`odds.core.effects`)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from odds.core.effects import p_success, strongest_reroll
from odds.rulesets.wh40k3.rules import NO_SAVE


@dataclass(frozen=True)
class Striking:
    """The effects on one part's attack dice in one round, stacked as :mod:`odds.core.effects`
    says: modifiers add, re-rolls do not stack (a die is re-rolled once)."""

    reroll_hit: str | None = None
    reroll_wound: str | None = None
    hit_modifier: int = 0
    wound_modifier: int = 0


def striking(sources) -> Striking:
    """The stacked dice effects of ``sources`` (special rules, the weapon, its pair)."""
    return Striking(reroll_hit=strongest_reroll([x.reroll_hit for x in sources]),
                    reroll_wound=strongest_reroll([x.reroll_wound for x in sources]),
                    hit_modifier=sum(x.hit_modifier for x in sources),
                    wound_modifier=sum(x.wound_modifier for x in sources))


def p_roll(target: int, modifier: int = 0, reroll: str | None = None) -> float:
    """P(a D6 roll of ``target``+ succeeds) with ``modifier`` on the die and ``reroll``; a
    target of 7 or more (the to-wound chart's "N") never does. With a modifier a natural 1
    still fails and a natural 6 still succeeds (*assumption*, as odds.core.effects). Without
    effects it is (7 - target) / 6, the plain chart's chance, to the last bit."""
    if target >= NO_SAVE:
        return 0.0
    if modifier == 0 and reroll is None:
        return max(0, 7 - target) / 6.0
    return p_success(target, modifier, reroll)


@lru_cache(maxsize=4096)  # a plan asks for the same few chances once per pair of groups
def p_wound(to_hit: int, to_wound: int, by: Striking) -> float:
    """P(one attack hits and wounds): ``to_hit`` and ``to_wound`` from the charts."""
    return (p_roll(to_hit, by.hit_modifier, by.reroll_hit)
            * p_roll(to_wound, by.wound_modifier, by.reroll_wound))
