"""Reference: one exchange of blows, die by die (R3-5, R3-6, R3-7; the d10skirmish README's
"The exchange"), written from the rules, not from the package.

The package states the exchange once, on counts of dice per face
(``odds.rulesets.d10skirmish.exchange.resolve``), for its laws and its rolled exchanges; the
tests check that the two agree on every roll of small dice counts and reproduce the rules
text's worked example:

>>> a, b = resolve([1, 4, 6], Roller(6), [4, 5, 6], Roller(5))
>>> a, b
(Landed(crits=1, hits=1, blocked=1, missed=0), Landed(crits=0, hits=1, blocked=1, missed=1))
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Roller:
    """One side of an exchange: its melee skill and its +-1 ability (R3-6)."""

    skill: int                # effective MS (ББ): a die showing more misses (R3-5)
    adjust: int = 0           # how many of its dice it may turn by +-1
    adjust_for: str = "hits"  # "hits": land the most; "blocks": let the enemy land the fewest


@dataclass(frozen=True)
class Landed:
    """What one side's dice did in an exchange."""

    crits: int    # critical hits that landed (R3-7)
    hits: int     # other hits that landed
    blocked: int  # its dice blocked by an equal enemy die (R3-5a)
    missed: int   # its dice showing more than its skill (R3-5b)


@dataclass
class Die:
    """One die as it shows now; ``adjusted`` once its roller has turned it (R3-6)."""

    shown: int
    adjusted: bool = False

    def critical(self, adjust_can_create_crit: bool) -> bool:
        """A die showing 1 is critical if it was rolled so, or if turned dice may be (§4.2(5))."""
        return self.shown == 1 and (not self.adjusted or adjust_can_create_crit)


def resolve(dice_a, a: Roller, dice_b, b: Roller, *, first: int = 0,
            crit_blockable: str = "matching_1",
            adjust_can_create_crit: bool = False) -> tuple[Landed, Landed]:
    """Resolve one exchange from the dice each side rolled (values 1..10).

    ``first`` (0 for ``a``, 1 for ``b``) is the side that turns its dice first: the fighter who
    started the exchange; the other answers seeing the change (R3-6).
    """
    sides = ([Die(v) for v in dice_a], [Die(v) for v in dice_b])
    rollers = (a, b)
    rules = (crit_blockable, adjust_can_create_crit)
    for s in (first, 1 - first):
        _turn_dice(sides, rollers, s, rules)
    return _landed(sides, rollers, rules)


def _landed(sides, rollers, rules) -> tuple[Landed, Landed]:
    """Block equal hits pair by pair, then count what is left (R3-5, R3-7, §4.2(1)-(4)).

    A die hits if it shows at most its side's skill. At each value, as many pairs block as the
    side with fewer hits there has (the most pairs possible). With ``crit_blockable = "never"``
    critical dice take no part in blocking. A side loses its non-critical dice to blocks first.
    """
    crit_blockable, create_crit = rules
    hit = [[d for d in dice if d.shown <= r.skill] for dice, r in zip(sides, rollers)]
    can_block = [{}, {}]  # value -> the side's hits showing it that may block
    for s in (0, 1):
        for d in sorted(hit[s], key=lambda d: d.critical(create_crit)):  # non-critical first
            if crit_blockable == "matching_1" or not d.critical(create_crit):
                can_block[s].setdefault(d.shown, []).append(d)
    blocked = [set(), set()]
    for value in can_block[0].keys() & can_block[1].keys():
        pairs = min(len(can_block[0][value]), len(can_block[1][value]))
        for s in (0, 1):
            blocked[s].update(id(d) for d in can_block[s][value][:pairs])
    out = []
    for s in (0, 1):
        landed = [d for d in hit[s] if id(d) not in blocked[s]]
        crits = sum(d.critical(create_crit) for d in landed)
        out.append(Landed(crits=crits, hits=len(landed) - crits, blocked=len(blocked[s]),
                          missed=len(sides[s]) - len(hit[s])))
    return out[0], out[1]


def _score(landed: tuple[Landed, Landed], s: int, aim: str) -> tuple[int, ...]:
    """How good the exchange is for side s under its aim (R3-6): larger is better."""
    own, enemy = landed[s], landed[1 - s]
    mine = (own.crits + own.hits, own.crits)
    theirs = (-(enemy.crits + enemy.hits), -enemy.crits)
    return mine + theirs if aim == "hits" else theirs + mine


def _turn_dice(sides, rollers, s, rules) -> None:
    """Side s turns up to ``adjust`` of its dice by +-1, one at a time (R3-6, §4.2(5)).

    Each time it takes the single change (a die not turned yet, within 1..10) that scores best
    for its aim, if that beats leaving the dice alone. Candidates are tried from the lowest
    value showing, -1 before +1; dice showing the same value are alike, and the first of equally
    good changes is taken.
    """
    roller = rollers[s]
    for _ in range(roller.adjust):
        best, choice = _score(_landed(sides, rollers, rules), s, roller.adjust_for), None
        unturned = {}
        for die in sides[s]:
            if not die.adjusted:
                unturned.setdefault(die.shown, die)
        for value in sorted(unturned):
            die = unturned[value]
            for step in (-1, 1):
                if not 1 <= value + step <= 10:
                    continue
                die.shown, die.adjusted = value + step, True
                score = _score(_landed(sides, rollers, rules), s, roller.adjust_for)
                die.shown, die.adjusted = value, False
                if score > best:
                    best, choice = score, (die, step)
        if choice is None:
            return
        die, step = choice
        die.shown, die.adjusted = die.shown + step, True
