"""duel: a two-fighter D6 duel, the smallest ruleset odds' plug-in contract allows, living
outside the package (odds/rulesets/README.md, "A ruleset of your own", walks through it).

- D-1 Each round both fighters strike at once, one die each: a hit on the striker's ``hit``
  score or more (its weapons' ``hit`` modifiers added; a 1 always misses, a 6 always hits).
  In the first round the charger (``engagement.charger``) strikes first, and a fighter it
  takes down does not strike back.
- D-2 The struck fighter saves a hit on its ``save`` score or more (7: no save); an unsaved
  hit takes one of its ``W`` wounds.
- D-3 A fighter with no wounds left is down and the other wins (both at once: mutual); with
  both standing after ``max_rounds`` rounds the fight is unresolved.
"""
from odds.core.ruleset import Ruleset

from duel import fight, rules

RULESET = Ruleset(
    id="duel",
    title="D6 duel (odds' example plug-in)",
    profile=rules.PROFILE,
    group_keys={},
    side_keys={},
    engagement=rules.ENGAGEMENT,
    check=rules.check,
    compile=fight.compile_plan,
    kernel="duel.kernel",
    exact="duel.exact",
    rule_ids=("D-1", "D-2", "D-3"),
    catalogues=rules.catalogues,
    lost=("fighter down", "fighters down"),
)
