"""duel's scenario keys, weapons and checks (D-1 ... D-3)."""
from __future__ import annotations

from odds.core import schema as s
from odds.core.catalogue import NO_OWN, Section, own_entries
from odds.scenario import one_fighter_a_unit

PROFILE = {
    "hit": (s.integer(2, 6), s.REQUIRED),  # the score to hit (D-1)
    "save": (s.integer(2, 7), 7),          # the score to save, 7: none (D-2)
    "W": (s.integer(1, 10), 1),            # wounds (D-2, D-3)
}
# every ruleset has a charger: a round robin's cells set it (its ``both_ways`` ones to each side)
ENGAGEMENT = {"charger": (s.choice("attacker", "defender"), "attacker")}  # D-1
WEAPON_KEYS = {"hit": (s.integer(-3, 3), 0)}  # added to the score to hit (D-1)
WEAPONS = {"sword": {}, "spear": {"hit": -1}, "club": {"hit": 1}}
SIDES = ("attacker", "defender")


def weapons(scenario) -> dict[str, dict]:
    """The weapons above, overridden and extended by the scenario's ``[weapons]``."""
    where = s.Where("duel weapons", "")
    return {**{name: s.fields(spec, WEAPON_KEYS, where / name) for name, spec in WEAPONS.items()},
            **own_entries(scenario, WEAPON_KEYS)}


def hit_score(group, table) -> int:
    """The score a fighter hits on, its weapons' modifiers added."""
    return group.profile["hit"] + sum(table[name]["hit"] for name in group.equipment)


def check(scenario) -> None:
    """One fighter a side, known weapons each carried once, a score to hit of 2 to 6."""
    table = weapons(scenario)
    for group, where in one_fighter_a_unit(scenario, table, "duel"):
        score = hit_score(group, table)
        if not 2 <= score <= 6:
            raise (where / "equipment").error(
                f"the weapons bring hit {group.profile['hit']} to {score}; it must stay from "
                f"2 to 6")


def catalogues() -> list[Section]:
    """What a scenario may name: the weapons."""
    return [Section("weapons", "group", "equipment", weapons(NO_OWN), WEAPON_KEYS)]
