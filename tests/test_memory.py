"""Resource bounds: a wh40k3 plan's memory grows with what the scenario uses, not with the
square of its model groups, and a side has a bounded number of groups."""
import numpy as np
import pytest

import odds
from odds.errors import ScenarioError
from odds.rulesets.wh40k3.compile import compile_plan
from odds.rulesets.wh40k3.rules import MAX_GROUPS


def many_groups(groups: int, count: int = 100):
    """Each side ``groups`` groups of ``count`` models, the profiles varying group to group
    (the worst case: many different probabilities)."""
    def side(name, shift):
        return {"name": name, "models": [
            {"name": f"{name} {g}", "count": count,
             "profile": {"WS": 1 + (g + shift) % 10, "S": 1 + (3 * g + shift) % 10,
                         "T": 1 + (7 * g + shift) % 10, "W": 1, "I": 1 + g % 10,
                         "A": 1 + g % 10, "Ld": 7, "Sv": 2 + g % 5}}
            for g in range(groups)]}
    return odds.scenario.from_dict({"ruleset": "wh40k3", "name": "many groups",
                                    "attacker": side("A", 0), "defender": side("D", 1)})


def plan_bytes(plan) -> int:
    """Every array of the plan, the packed tables (what the kernel reads) included."""
    return sum(a.nbytes for a in (*plan, *plan.packed) if isinstance(a, np.ndarray))


TABLE_BYTES = 256 * 257 // 2 * 8  # one probability's table at the cap (n = 0 .. 255)
PROBABILITIES = 7 * 7 + 7  # P(hit) * P(wound), each k/6, and P(unsaved) = 1 - k/6


@pytest.mark.parametrize("groups", [40, 60])
def test_plan_memory_does_not_grow_with_group_pairs(groups):
    """Before tables were shared: 1.75 GB at 40 groups of 100 a side, over 3 GB at 60. Now
    each table belongs to one distinct probability, whatever the number of groups."""
    plan = compile_plan(many_groups(groups))
    distinct = np.unique(np.concatenate([plan.p_wound.ravel(), plan.p_unsaved.ravel()]))
    assert plan.packed.cdf.nbytes <= len(distinct) * TABLE_BYTES  # (no unit saves alike:
    #                                                     no tables of P(hit, wound, no save))
    assert plan_bytes(plan) < PROBABILITIES * TABLE_BYTES + 1_000_000  # 16 MB


def test_group_count_is_bounded():
    plan = compile_plan(many_groups(MAX_GROUPS))
    assert plan_bytes(plan) < PROBABILITIES * TABLE_BYTES + 10_000_000  # far below 1 GB
    with pytest.raises(ScenarioError, match=rf"attacker.models: has {MAX_GROUPS + 1} model "
                                            rf"groups; a side may have at most {MAX_GROUPS}"):
        many_groups(MAX_GROUPS + 1, count=1)  # refused when the scenario is checked
