"""Every rule ID the code implements is named by at least one test (DESIGN: testing)."""
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

# R0-13 (multiple combats: several units on a side) is more than one fight and out of scope
# (odds/rulesets/wh40k3/README.md).
IMPLEMENTED = {"wh40k3": [f"R0-{i}" for i in range(1, 17) if i != 13]}


@pytest.mark.parametrize("ruleset", sorted(IMPLEMENTED))
def test_every_implemented_rule_is_named_by_a_test(ruleset):
    text = "\n".join(p.read_text() for p in TESTS.glob("test_*.py") if p.name != Path(__file__).name)
    named = set(re.findall(r"R\d-\d+", text))
    missing = [rule for rule in IMPLEMENTED[ruleset] if rule not in named]
    assert not missing, f"no test names {missing}"
