"""Every rule ID a ruleset implements is named by at least one test (DESIGN: testing)."""
import re
from pathlib import Path

import pytest

from odds.rulesets import RULESETS, get_ruleset

TESTS = Path(__file__).parent


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_implemented_rule_is_named_by_a_test(ruleset):
    rule_ids = get_ruleset(ruleset).rule_ids
    assert rule_ids, f"{ruleset} lists no rule IDs (Ruleset.rule_ids)"
    text = "\n".join(p.read_text() for p in TESTS.glob("test_*.py")
                     if p.name != Path(__file__).name)
    named = set(re.findall(r"R\d-\d+", text))
    missing = [rule for rule in rule_ids if rule not in named]
    assert not missing, f"no test names {missing}"
