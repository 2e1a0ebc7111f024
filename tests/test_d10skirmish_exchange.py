"""The exchange of the D10 skirmish game (RULES.md R3-3, R3-5 ... R3-8; README "The exchange").

* the seed's worked example, exactly, through the die-by-die rules (tests/naive_exchange.py)
  and the package's statement on packed counts (``odds.rulesets.d10skirmish.exchange``);
* the readings and the +-1 policy (R3-6) on hand-made rolls;
* the packed counts against the die-by-die rules on every roll of small dice counts;
* exact probabilities of blocks, hits and criticals from a brute-force oracle written straight
  from the rule text, over all 10^k rolls, and the kernel's simulated exchanges against them
  (chi-square, p > 1e-4, fixed seed).
"""
from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import pytest
from test_d10skirmish_fight import assert_law

import odds
from odds.rulesets.d10skirmish import exchange, exchange_odds, rules
from naive_exchange import Landed, Roller, resolve

SAMPLES = 200_000
SEED = 2718


def packed(dice) -> int:
    """The kernel's packed count of dice by face."""
    return sum(1 << (exchange.SHIFT * v) for v in dice)


def kernel_resolve(dice_a, a: Roller, dice_b, b: Roller, first=0, crit_blockable="matching_1",
                   adjust_can_create_crit=False) -> tuple[int, ...]:
    """exchange.resolve on these dice: (crits a, hits a, crits b, hits b, blocked)."""
    return tuple(exchange.resolve(packed(dice_a), packed(dice_b), a.skill, b.skill, a.adjust,
                                b.adjust, a.adjust_for == "blocks", b.adjust_for == "blocks",
                                first, crit_blockable == "matching_1", adjust_can_create_crit))


def flat(landed: tuple[Landed, Landed]) -> tuple[int, ...]:
    a, b = landed
    return a.crits, a.hits, b.crits, b.hits, a.blocked


# --- the worked example (R3-3, R3-5, R3-7, R3-8) --------------------------------------------

def test_worked_example_of_the_seed_R3_5_R3_7():
    """A (MS 6) rolls 1, 4, 6; B (MS 5) rolls 4, 5, 6: the 4s block, B's 6 misses and its 5
    hits; A lands a critical (the 1) and a hit (the 6)."""
    a, b = resolve([1, 4, 6], Roller(6), [4, 5, 6], Roller(5))
    assert a == Landed(crits=1, hits=1, blocked=1, missed=0)
    assert b == Landed(crits=0, hits=1, blocked=1, missed=1)
    assert kernel_resolve([1, 4, 6], Roller(6), [4, 5, 6], Roller(5)) == (1, 1, 0, 1, 1)
    # the dice in any order, and B starting the exchange, change nothing
    assert resolve([4, 6, 1], Roller(6), [6, 5, 4], Roller(5), first=1) == (a, b)


def test_worked_example_both_make_3_attacks_R3_3():
    """MS 6 and MS 5 both give ceil(MS / 2) = 3 attacks; an extra weapon adds one."""
    data = {"ruleset": "d10skirmish",
            "attacker": {"name": "A", "models": [{"name": "A", "count": 1,
                                                  "profile": {"MS": 6, "AP": 2}}]},
            "defender": {"name": "B", "models": [{"name": "B", "count": 1,
                                                  "profile": {"MS": 5, "AP": 2},
                                                  "equipment": ["extra melee weapon"]}]}}
    a, b = rules.fighters(odds.from_dict(data))
    assert (a.attacks, b.attacks) == (3, 4)
    assert [math.ceil(ms / 2) for ms in range(1, 11)] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]


def test_worked_example_had_B_fled_it_takes_3_hits_R3_8():
    """Fleeing, B rolls nothing: all three of A's dice hit it (1 critical, 2 hits)."""
    a, b = resolve([1, 4, 6], Roller(6), [], Roller(5))
    assert (a.crits, a.hits, a.blocked) == (1, 2, 0)
    assert b == Landed(0, 0, 0, 0)
    assert kernel_resolve([1, 4, 6], Roller(6), [], Roller(5)) == (1, 2, 0, 0, 0)


# --- readings (R3-5, R3-7, §4.2(1)-(4)) -----------------------------------------------------

@pytest.mark.parametrize("dice_a, ms_a, dice_b, ms_b, crit_blockable, expected", [
    # §4.2(1): a roll equal to MS hits
    ([5], 5, [], 5, "matching_1", ((0, 1, 0, 0), (0, 0, 0, 0))),
    # §4.2(2): only hits block: A's 6 (hit) and B's 6 (miss, MS 5) do not
    ([6], 6, [6], 5, "matching_1", ((0, 1, 0, 0), (0, 0, 0, 1))),
    # §4.2(3): pairs one for one: two 4s against one 4 is one block and one hit
    ([4, 4], 6, [4], 6, "matching_1", ((0, 1, 1, 0), (0, 0, 1, 0))),
    # R3-5: unequal hits do not block
    ([3, 2], 6, [4, 5], 6, "matching_1", ((0, 2, 0, 0), (0, 2, 0, 0))),
    # §4.2(4): natural 1s block each other by default ...
    ([1, 1], 6, [1], 6, "matching_1", ((1, 0, 1, 0), (0, 0, 1, 0))),
    # ... and never with crit_blockable = "never"
    ([1, 1], 6, [1], 6, "never", ((2, 0, 0, 0), (1, 0, 0, 0))),
    # R3-7: a 1 is a critical hit even at MS 1; everything above MS misses
    ([1, 2, 10], 1, [10], 10, "matching_1", ((1, 0, 0, 2), (0, 1, 0, 0))),
])
def test_block_hit_miss_readings_R3_5_R3_7(dice_a, ms_a, dice_b, ms_b, crit_blockable, expected):
    landed = resolve(dice_a, Roller(ms_a), dice_b, Roller(ms_b), crit_blockable=crit_blockable)
    assert tuple((x.crits, x.hits, x.blocked, x.missed) for x in landed) == expected
    assert kernel_resolve(dice_a, Roller(ms_a), dice_b, Roller(ms_b),
                          crit_blockable=crit_blockable) == flat(landed)


# --- turning dice by +-1 (R3-6, §4.2(5)) ----------------------------------------------------

def test_turning_a_die_for_hits_breaks_a_block_R3_6():
    """The worked example with A able to turn one die, aiming at hits: its 4 becomes a 3, the
    block is gone, A lands 3 (crit included) and B 2."""
    a, b = resolve([1, 4, 6], Roller(6, adjust=1), [4, 5, 6], Roller(5))
    assert (a.crits, a.hits, b.crits, b.hits, a.blocked) == (1, 2, 0, 2, 0)
    assert kernel_resolve([1, 4, 6], Roller(6, adjust=1), [4, 5, 6], Roller(5)) == (1, 2, 0, 2, 0)


def test_turning_a_die_for_blocks_creates_a_block_R3_6():
    """Aiming at blocks, A turns its 6 into a 5 and blocks B's 5: B lands nothing."""
    a, b = resolve([1, 4, 6], Roller(6, 1, "blocks"), [4, 5, 6], Roller(5))
    assert (a.crits, a.hits, b.crits, b.hits, a.blocked) == (1, 0, 0, 0, 2)
    assert kernel_resolve([1, 4, 6], Roller(6, 1, "blocks"), [4, 5, 6], Roller(5)) == \
        (1, 0, 0, 0, 2)


def test_turning_a_miss_into_a_hit_and_no_change_when_nothing_helps_R3_6():
    """A 7 at MS 6 becomes a 6 and hits; dice that cannot improve stay as rolled."""
    assert flat(resolve([7], Roller(6, 1), [], Roller(6))) == (0, 1, 0, 0, 0)
    assert flat(resolve([9], Roller(6, 1), [], Roller(6))) == (0, 0, 0, 0, 0)
    assert flat(resolve([3], Roller(6, 1), [], Roller(6))) == (0, 1, 0, 0, 0)


def test_turned_one_is_critical_only_if_allowed_R3_6_R3_7():
    """§4.2(5): a 2 turned to 1 blocks an enemy critical 1 but is no critical itself unless
    adjust_can_create_crit; a natural 1 turned to 2 stops being critical."""
    blocker = Roller(6, 1, "blocks")
    a, b = resolve([2], blocker, [1], Roller(6))
    assert (a.crits, a.hits, b.crits, a.blocked) == (0, 0, 0, 1)
    # aiming at hits with turned 1s critical: the 2 becomes a critical 1, the 1s block (one
    # each), so it prefers leaving it: one hit each
    a, b = resolve([2], Roller(6, 1), [1], Roller(6), adjust_can_create_crit=True)
    assert (a.crits, a.hits, b.crits, b.hits) == (0, 1, 1, 0)
    # with crit_blockable = "never" a critical 1 never blocks, so turning 2 -> 1 pays
    a, b = resolve([2], Roller(6, 1), [1], Roller(6), crit_blockable="never",
                   adjust_can_create_crit=True)
    assert (a.crits, a.hits, b.crits) == (1, 0, 1)
    # the natural 1 of A is blocked by B's 1; turned to 2 it lands as an ordinary hit
    a, b = resolve([1], Roller(6, 1), [1], Roller(6))
    assert (a.crits, a.hits, b.crits, b.hits) == (0, 1, 1, 0)


def test_the_starter_turns_first_and_the_other_answers_R3_6():
    """Both may turn one die for blocks. A (MS 6) 5 vs B (MS 6) 6: the first to turn makes the
    block; the other then gains nothing by breaking it (its own hit back costs a hit taken)."""
    both = dict(crit_blockable="matching_1")
    a_first = resolve([5], Roller(6, 1, "blocks"), [6], Roller(6, 1, "blocks"), first=0, **both)
    assert flat(a_first) == (0, 0, 0, 0, 1)
    # aiming at hits, the answer breaks the block again
    answer = resolve([5], Roller(6, 1, "blocks"), [6], Roller(6, 1, "hits"), first=0)
    assert flat(answer) == (0, 1, 0, 1, 0)
    for first in (0, 1):
        for aims in itertools.product(("hits", "blocks"), repeat=2):
            a, b = Roller(6, 1, aims[0]), Roller(6, 1, aims[1])
            assert kernel_resolve([5], a, [6], b, first) == flat(resolve([5], a, [6], b,
                                                                         first=first))


# --- the kernel's mirror agrees with the die-by-die rules on every roll ---------------------

OPTION_SETS = [
    dict(crit_blockable="matching_1", adjust_can_create_crit=False),
    dict(crit_blockable="never", adjust_can_create_crit=False),
    dict(crit_blockable="matching_1", adjust_can_create_crit=True),
    dict(crit_blockable="never", adjust_can_create_crit=True),
]
ROLLERS = [
    (Roller(6), Roller(5)),
    (Roller(6, 1, "hits"), Roller(5)),
    (Roller(3, 1, "blocks"), Roller(8, 1, "hits")),
    (Roller(10, 2, "hits"), Roller(2, 1, "blocks")),
    (Roller(5, 3, "blocks"), Roller(5, 2, "blocks")),
    (Roller(1, 1, "hits"), Roller(9, 3, "hits")),
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(map(str, o.values())))
def test_kernel_resolve_equals_exchange_on_every_small_roll_R3_5_R3_6_R3_7(options):
    """Every roll of 2 vs 2 dice (10^4) and of 3 vs 1, for each pair of rollers and each
    starter: identical crits, hits and blocks."""
    rolls = [(r[:2], r[2:]) for r in itertools.product(range(1, 11), repeat=4)]
    rolls += [(r[:3], r[3:]) for r in itertools.product(range(1, 11), repeat=4)][::7]
    wrong = []
    for k, (dice_a, dice_b) in enumerate(rolls):
        a, b = ROLLERS[k % len(ROLLERS)]
        first = (k // len(ROLLERS)) % 2
        expected = flat(resolve(dice_a, a, dice_b, b, first=first, **options))
        got = kernel_resolve(dice_a, a, dice_b, b, first, **options)
        if got != expected:
            wrong.append((dice_a, a, dice_b, b, first, got, expected))
    assert not wrong, wrong[:5]


def test_kernel_resolve_equals_exchange_on_random_large_rolls_R3_6():
    """3000 random rolls of up to 8 dice a side, random rollers and options."""
    rng = random.Random(5)
    for _ in range(3000):
        dice_a = [rng.randint(1, 10) for _ in range(rng.randint(0, 8))]
        dice_b = [rng.randint(1, 10) for _ in range(rng.randint(0, 8))]
        a, b = (Roller(rng.randint(1, 10), rng.randint(0, 3), rng.choice(("hits", "blocks")))
                for _ in range(2))
        options = rng.choice(OPTION_SETS)
        first = rng.randint(0, 1)
        assert kernel_resolve(dice_a, a, dice_b, b, first, **options) == \
            flat(resolve(dice_a, a, dice_b, b, first=first, **options)), (dice_a, a, dice_b, b)


# --- exact probabilities by enumeration, against the kernel --------------------------------

def oracle(dice_a, a: Roller, dice_b, b: Roller, crit_blockable="matching_1",
           adjust_can_create_crit=False) -> tuple[int, ...]:
    """(crits a, hits a, crits b, hits b, blocked) by brute force from the rule text.

    Hits: dice showing at most MS. Blocks: the largest set of disjoint (A hit, B hit) pairs
    with equal values, found over every way of lining A's dice up against B's; criticals are
    kept out of pairs when they may not block, and a side keeps its criticals when it can.
    At most one side turns dice, at most one die: every choice is tried and the best for its
    aim kept (README "The exchange").
    """
    if a.adjust and b.adjust:
        raise ValueError("the oracle lets one side turn dice")
    turner = 0 if a.adjust else 1 if b.adjust else None
    sides = [[(v, v == 1) for v in dice_a], [(v, v == 1) for v in dice_b]]
    options = [sides]
    if turner is not None:
        assert (a, b)[turner].adjust == 1
        for i, (v, _) in enumerate(sides[turner]):
            for w in (v - 1, v + 1):
                if 1 <= w <= 10:
                    turned = list(sides[turner])
                    turned[i] = (w, w == 1 and adjust_can_create_crit)
                    options.append([turned, sides[1]] if turner == 0 else [sides[0], turned])
    results = [_brute_force(opt, (a.skill, b.skill), crit_blockable) for opt in options]
    if turner is None:
        return results[0]
    aim = (a, b)[turner].adjust_for

    def key(r):
        own = (r[0] + r[1], r[0]) if turner == 0 else (r[2] + r[3], r[2])
        enemy = (-(r[2] + r[3]), -r[2]) if turner == 0 else (-(r[0] + r[1]), -r[0])
        return own + enemy if aim == "hits" else enemy + own

    return max(results, key=key)


def _brute_force(sides, skills, crit_blockable) -> tuple[int, ...]:
    hits = [[d for d in dice if d[0] <= skill] for dice, skill in zip(sides, skills)]
    short, long_ = (0, 1) if len(hits[0]) <= len(hits[1]) else (1, 0)
    best = (-1, 0)  # (pairs, -criticals blocked)
    best_blocked = ([], [])
    for order in itertools.permutations(range(len(hits[long_])), len(hits[short])):
        pairs = [(i, j) for i, j in enumerate(order)
                 if hits[short][i][0] == hits[long_][j][0]
                 and (crit_blockable == "matching_1"
                      or not (hits[short][i][1] or hits[long_][j][1]))]
        crits = sum(hits[short][i][1] + hits[long_][j][1] for i, j in pairs)
        if (len(pairs), -crits) > best:
            best = (len(pairs), -crits)
            best_blocked = ([i for i, _ in pairs], [j for _, j in pairs])
    blocked = {short: best_blocked[0], long_: best_blocked[1]}
    out = []
    for s in (0, 1):
        landed = [d for k, d in enumerate(hits[s]) if k not in blocked[s]]
        crits = sum(d[1] for d in landed)
        out += [crits, len(landed) - crits]
    return (*out, best[0])


def enumerate_exactly(n_a, a, n_b, b, **options) -> dict[tuple, Fraction]:
    """P(outcome) over all 10^(n_a + n_b) rolls, each checked against exchange.resolve."""
    counts = Counter()
    for roll in itertools.product(range(1, 11), repeat=n_a + n_b):
        dice_a, dice_b = roll[:n_a], roll[n_a:]
        result = oracle(dice_a, a, dice_b, b, **options)
        assert result == flat(resolve(dice_a, a, dice_b, b, **options)), (dice_a, dice_b)
        counts[result] += 1
    total = 10 ** (n_a + n_b)
    return {k: Fraction(c, total) for k, c in counts.items()}


def fighter(ms, adjust=0, aim="hits", equipment=()):
    return {"name": "F", "count": 1, "profile": {"MS": ms, "AP": 2},
            "adjust": adjust, "adjust_for": aim, "equipment": list(equipment)}


def exchange_scenario(a, b, **engagement):
    return odds.from_dict({"ruleset": "d10skirmish", "name": "exchange",
                           "attacker": {"name": "A", "models": [a]},
                           "defender": {"name": "B", "models": [b]},
                           "engagement": engagement})


def assert_matches(sampled, exact: dict[tuple, Fraction], what: str) -> None:
    """The kernel's sampled exchanges (an exchange_odds frame) against the exact law."""
    counts = {tuple(int(x) for x in row[:5]): round(row[5] * SAMPLES)
              for row in sampled.itertuples(index=False)}
    assert_law(counts, exact, what)


# (id, attacker fighter, defender fighter, the defender's answer, options); MS 3-4 rolls 2
# dice, MS 6 rolls 3 and MS 7 rolls 4: at most 4 dice in all, 10^4 rolls each
EXACT_CASES = [
    ("R3-5_R3-7_MS4_vs_MS4", fighter(4), fighter(4), "fight", {}),
    ("R3-5_MS3_vs_MS4", fighter(3), fighter(4), "fight", {}),
    ("R3-4_one_die_back_MS6_vs_MS5", fighter(6), fighter(5), "one", {}),
    ("R3-8_flee_MS7_4_dice", fighter(7), fighter(5), "flee", {}),
    ("R3-7_crit_never_blockable", fighter(4), fighter(4), "fight",
     {"crit_blockable": "never"}),
    ("R3-6_attacker_turns_for_hits", fighter(4, 1, "hits"), fighter(3), "fight", {}),
    ("R3-6_defender_turns_for_blocks", fighter(4), fighter(4, 1, "blocks"), "fight", {}),
    ("R3-6_turned_1_critical", fighter(3, 1, "hits"), fighter(4), "fight",
     {"crit_blockable": "never", "adjust_can_create_crit": True}),
]


@pytest.mark.parametrize("a, b, answer, options",
                         [pytest.param(*c[1:], id=c[0]) for c in EXACT_CASES])
def test_kernel_exchanges_match_exact_enumeration(a, b, answer, options):
    """All 10^k rolls (k <= 4 dice in all) give the exact law of (crits, hits, blocks) of both
    sides; the kernel's exchanges (exchange_odds, 200,000 samples) follow it."""
    scenario = exchange_scenario(a, b, **options)
    fa, fb = rules.fighters(scenario)
    n_b = {"fight": fb.attacks, "one": 1, "flee": 0}[answer]
    exact = enumerate_exactly(fa.attacks, Roller(fa.skill, fa.adjust, fa.adjust_for),
                              n_b, Roller(fb.skill, fb.adjust, fb.adjust_for), **options)
    sampled = exchange_odds(scenario, answer=answer, trials=SAMPLES, seed=SEED)
    assert_matches(sampled, exact, f"{a} vs {b}, {answer}, {options}")


def test_worked_example_fighters_exact_law_of_blocks_hits_crits_R3_5_R3_7():
    """MS 6 vs MS 5, 3 dice each (the seed's example): the exact law over all 10^6 rolls,
    summed over sorted rolls with their multinomial weights, and the kernel against it."""
    rolls = list(itertools.combinations_with_replacement(range(1, 11), 3))

    def weight(r):
        return math.factorial(3) // math.prod(math.factorial(c) for c in Counter(r).values())

    exact = Counter()
    for ra in rolls:
        for rb in rolls:
            exact[oracle(ra, Roller(6), rb, Roller(5))] += weight(ra) * weight(rb)
    assert sum(exact.values()) == 10 ** 6
    exact = {k: Fraction(c, 10 ** 6) for k, c in exact.items()}
    # the example's own outcome (1 crit and 1 hit against 1 hit, 1 block) is possible
    assert exact[(1, 1, 0, 1, 1)] > 0
    scenario = exchange_scenario(fighter(6), fighter(5))
    assert_matches(exchange_odds(scenario, trials=SAMPLES, seed=SEED), exact, "worked example")


def test_exchange_odds_detects_a_difference_R3_5():
    """The comparison has power: MS 6 vs 5 sampled against the exact law of MS 6 vs 4."""
    rolls = list(itertools.product(range(1, 11), repeat=3))
    exact = Counter(oracle(r, Roller(6), (), Roller(4)) for r in rolls)
    wrong = {k: Fraction(c, 1000) for k, c in exact.items()}
    sampled = exchange_odds(exchange_scenario(fighter(5), fighter(4)), answer="flee",
                            trials=SAMPLES, seed=SEED)
    with pytest.raises(AssertionError):
        assert_matches(sampled, wrong, "MS 5 sampled against MS 6 exact")
