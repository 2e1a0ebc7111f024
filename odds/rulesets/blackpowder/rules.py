"""blackpowder scenario schema, data tables and the charge checks (README.md here).

A side is one unit (``Ruleset.single_unit``): type, formation, profile, status, special rules and
supports are the side's own keys.
"""
from __future__ import annotations

from dataclasses import dataclass

from odds.core import schema as s
from odds.core.catalogue import Section, bundled, unknown_name
from odds.core.data import data_path, load_table

TYPES = ("infantry", "pikes", "cavalry", "heavy cavalry", "artillery", "horse artillery")
CAVALRY = ("cavalry", "heavy cavalry")
INFANTRY = ("infantry", "pikes")
ARTILLERY = ("artillery", "horse artillery")
FORMATIONS = ("line", "attack column", "march column", "square", "mixed", "skirmish",
              "hedgehog")
ALL_ROUND = ("square", "hedgehog")  # no flanks or rear (§5.4 squares; P&S hedgehog)
CLOSE_ORDER = ("line", "attack column", "square", "mixed")  # skirmishers' limit (R4-2)
STATUS = ("disordered", "shaken")
REACTIONS = ("stand", "closing fire", "hedgehog", "evade", "counter-charge", "turn to face")

PROFILE = {
    "hand_to_hand": (s.integer(1, 30), s.REQUIRED),
    "shooting": (s.integer(0, 30), s.REQUIRED),
    "morale": (s.integer(2, 6), s.REQUIRED),
    "stamina": (s.integer(1, 12), s.REQUIRED),
}


def _profile(value, where: s.Where) -> dict[str, int]:
    return s.fields(value, PROFILE, where)


def _status(value, where: s.Where) -> list[str]:
    names = s.distinct_names(value, where)
    for i, name in enumerate(names):
        s.choice(*STATUS)(name, where / i)
    return names


SIDE_KEYS = {
    "type": (s.choice(*TYPES), s.REQUIRED),
    "formation": (s.choice(*FORMATIONS), "line"),
    "profile": (_profile, s.REQUIRED),
    "rules": (s.distinct_names, []),  # a rule listed twice would apply twice
    "status": (_status, []),
    "rear_support": (s.boolean, False),
    "flank_supports": (s.integer(0, 2), 0),
    "building": (s.integer(0, 3), 0),
    "engaged": (s.boolean, False),  # already fighting another unit (skirmishers' charge, R4-2)
    "points": (s.number(0), None),
    # several units a side (brigade.py): whom a unit charges, on which face, or whom it backs
    "charges": (s.text, None),                     # None: the enemy's first unit
    "facing": (s.choice("front", "flank", "rear"), None),  # None: the engagement's
    "supports": (s.text, None),                    # a unit of its own side (§5.3)
    "support_from": (s.choice("rear", "flank"), None),  # None: rear
    # a fresh unit out of the melee, that victorious cavalry may charge after a sweep (§5.4)
    "in_melee": (s.boolean, True),
    "distance": (s.number(0, 120), None),          # inches from the melee; with in_melee = false
}

ENGAGEMENT = {
    "charger": (s.choice("attacker", "defender"), "attacker"),
    "facing": (s.choice("front", "flank", "rear"), "front"),
    "reaction": (s.choice(*REACTIONS), "stand"),
    "evade_room": (s.boolean, True),               # R4-4: no room for a full move: destroyed
    "hedgehog_order": (s.integer(2, 12), 8),       # [MEM] the staff rating the order roll needs
    "pike_double_dice_rounds": (s.choice("first", "all"), "all"),  # R4-5 [AMB]
    "sweeping_advance": (s.boolean, False),        # §5.4: victorious cavalry sweeps on
    # R4-1: the order to charge, rolled when staff_rating is given (data/blackpowder/orders.toml)
    "staff_rating": (s.integer(2, 12), None),      # the brigade commander's; None: no roll
    "charge_distance": (s.number(0, 120), None),   # inches from the charger to its target
    "commander_distance": (s.number(0, 240), None),  # inches from the commander; None: 0
    "move": (s.number(1, 60), None),               # the charger's move; None: its type's
    "command_modifier": (s.integer(-6, 6), None),  # any other modifier to the rating; None: 0
}
ORDER_KEYS = ("charge_distance", "commander_distance", "move", "command_modifier")

RULE_KEYS = {
    "reroll_misses": (s.choice("charge", "first"), None),
    "reroll_one_miss": (s.boolean, False),
    "reroll_one_failed_save": (s.boolean, False),
    "enemy_save_on_charge": (s.integer(-5, 0), 0),
    "charge_result_d3": (s.boolean, False),
    "charge_result_bonus": (s.integer(0, 6), 0),
    "pass_first_break_test": (s.boolean, False),
    "break_test_rerolls": (s.integer(0, 10), 0),
    "test_on_casualty": (s.boolean, False),
    "enemy_tests_on_charge": (s.boolean, False),
}

RESULTS = ("hold", "retire", "break")  # break-test results, codes 0, 1, 2 (§5.5)


@dataclass(frozen=True)
class SpecialRule:
    """The melee effects of one special rule (data/blackpowder/special_rules.toml, §5.3)."""

    name: str
    reroll_misses: str | None = None
    reroll_one_miss: bool = False
    reroll_one_failed_save: bool = False
    enemy_save_on_charge: int = 0
    charge_result_d3: bool = False
    charge_result_bonus: int = 0
    pass_first_break_test: bool = False
    break_test_rerolls: int = 0
    test_on_casualty: bool = False
    enemy_tests_on_charge: bool = False


def special_rules() -> dict[str, SpecialRule]:
    entries = bundled(("blackpowder", "special_rules.toml"), RULE_KEYS)
    return {name: SpecialRule(name, **spec) for name, spec in entries.items()}


def modifiers() -> dict[str, dict[str, int]]:
    """The §5.3 modifier tables (data/blackpowder/modifiers.toml), checked."""
    where = s.Where(str(data_path("blackpowder", "modifiers.toml")), "")
    table = load_table("blackpowder", "modifiers.toml")
    small = s.integer(-6, 6)
    spec = {
        "to_hit": {k: (small, s.REQUIRED) for k in (
            "base", "charging", "won_last_round", "shaken_or_disordered", "skirmish",
            "flank_or_rear", "closing_fire", "best", "worst")},
        "combat_result": {k: (small, s.REQUIRED) for k in (
            "rear_support", "flank_support", "max_flank_supports", "square_vs_cavalry",
            "max_building")},
        "morale_save": {k: (small, s.REQUIRED) for k in (
            "march_column", "attack_column", "artillery_closing_fire", "best")},
    }
    return s.fields(table, {k: (_section(v), s.REQUIRED) for k, v in spec.items()}, where)


def _section(spec):
    def check(value, where: s.Where) -> dict:
        return s.fields(value, spec, where)

    return check


def break_test() -> tuple[list[tuple[int, int]], bool]:
    """The §5.5 table as (max score, result code) bands, the last with max None; and whether a
    shaken unit that would retire breaks instead."""
    where = s.Where(str(data_path("blackpowder", "break_test.toml")), "")
    table = s.fields(load_table("blackpowder", "break_test.toml"), {
        "dice": (s.choice("2D6"), "2D6"), "shaken_retire_breaks": (s.boolean, s.REQUIRED),
        "bands": (lambda value, at: value, s.REQUIRED)}, where)
    bands, last = [], None
    rows = table["bands"]
    if not isinstance(rows, list) or not rows:
        raise (where / "bands").error("must list at least one [[bands]] entry")
    for i, row in enumerate(rows):
        at = where / "bands" / i
        band = s.fields(row, {"max": (s.integer(-30, 12), None),
                              "result": (s.choice(*RESULTS), s.REQUIRED)}, at)
        is_last = i == len(rows) - 1
        if (band["max"] is None) != is_last:
            raise (at / "max").error("every band but the last needs a max; the last has none")
        if band["max"] is not None and last is not None and band["max"] <= last:
            raise (at / "max").error(f"must be above the previous band's max ({last})")
        last = band["max"] if band["max"] is not None else last
        bands.append((band["max"], RESULTS.index(band["result"])))
    return bands, table["shaken_retire_breaks"]


@dataclass(frozen=True)
class Orders:
    """The R4-1 order table (data/blackpowder/orders.toml), checked."""

    moves_by_margin: tuple[int, ...]  # moves for a roll i under the rating; the last beyond
    blunder_roll: int                 # this 2D6 roll fails and is a blunder
    modifiers: dict                   # per_12_inches_from_commander, enemy_within_12_inches,
    #                                   attack_column
    move: dict                        # inches a move, by troop type
    blunder: tuple[tuple[int, ...], ...]  # per D6 result: moves at the target, by a further D6


def orders() -> Orders:
    """The order table, each value checked against the file."""
    where = s.Where(str(data_path("blackpowder", "orders.toml")), "")
    moves = s.integer(0, 3)

    def margins(value, at: s.Where) -> tuple[int, ...]:
        if not isinstance(value, list) or not value:
            raise at.error("must list the moves for each margin, at least one")
        return tuple(moves(v, at / i) for i, v in enumerate(value))

    def blunders(value, at: s.Where) -> tuple[tuple[int, ...], ...]:
        if not isinstance(value, list) or len(value) != 6:
            raise at.error("must list six [[blunder]] entries, one per D6 result")
        out = []
        for i, row in enumerate(value):
            entry = s.fields(row, {"result": (s.text, s.REQUIRED),
                                   "moves": (lambda v, w: v, s.REQUIRED)}, at / i)
            given = entry["moves"]
            if isinstance(given, list):
                if len(given) != 6:
                    raise (at / i / "moves").error("must be a number of moves or a list of "
                                                   "six, one per D6 result")
                out.append(tuple(moves(v, at / i / "moves" / j) for j, v in enumerate(given)))
            else:
                out.append((moves(given, at / i / "moves"),) * 6)
        return tuple(out)

    small = s.integer(-6, 6)
    table = s.fields(load_table("blackpowder", "orders.toml"), {
        "dice": (s.choice("2D6"), "2D6"),
        "moves_by_margin": (margins, s.REQUIRED),
        "blunder_roll": (s.integer(2, 12), s.REQUIRED),
        "modifiers": (_section({k: (small, s.REQUIRED) for k in (
            "per_12_inches_from_commander", "enemy_within_12_inches", "attack_column")}),
            s.REQUIRED),
        "move": (_section({k: (s.number(1, 60), s.REQUIRED) for k in INFANTRY + CAVALRY}),
                 s.REQUIRED),
        "blunder": (blunders, s.REQUIRED)}, where)
    return Orders(table["moves_by_margin"], table["blunder_roll"], table["modifiers"],
                  table["move"], table["blunder"])


def is_shaken(unit: dict) -> bool:
    return "shaken" in unit["status"]


def is_disordered(unit: dict) -> bool:
    return "disordered" in unit["status"]


def halts(charger: dict, target: dict) -> bool:
    """§5.4: cavalry halts short of a square that is neither disordered nor shaken."""
    return (charger["type"] in CAVALRY and target["formation"] == "square"
            and not is_disordered(target) and not is_shaken(target))


def points(scenario, which: str) -> float | None:
    """A side's points: its units' ``points`` keys added up, or None unless every unit has
    one (a sum of some would understate the side)."""
    given = [unit.options["points"] for unit in scenario.side(which).every_unit]
    return None if None in given else sum(given)


def check(scenario) -> None:
    """Each unit's own checks: special rules known, formations its type can take (the
    melee's, who may charge and react how, are brigade.check's)."""
    if scenario.weapons:
        raise s.Where(scenario.source, "weapons").error(
            "blackpowder units carry no weapons list; special rules go in the side's `rules`")
    known = special_rules()
    for key in ("attacker", "defender"):
        for side, where in scenario.unit_wheres(key):
            unit = side.options
            for i, name in enumerate(unit["rules"]):
                if name not in known:
                    raise unknown_name(name, known, where / "rules" / i,
                                       "`odds weapons blackpowder` lists them: "
                                       + ", ".join(sorted(known)), kind="special rule",
                                       inline=False)
            if unit["formation"] == "square" and unit["type"] not in INFANTRY:
                raise (where / "formation").error("only infantry can form square")
            if unit["formation"] == "hedgehog" and unit["type"] not in INFANTRY:
                raise (where / "formation").error("only infantry and pikes form hedgehog")


def check_order(e: dict, where: s.Where) -> None:
    """R4-1: an order roll needs the distance to the target; its other keys need the roll."""
    if e["staff_rating"] is None:
        for key in ORDER_KEYS:
            if e[key] is not None:
                raise (where / key).error("is read only with an order roll: give "
                                          "engagement.staff_rating too (R4-1)")
    elif e["charge_distance"] is None:
        raise (where / "charge_distance").error(
            "is needed with engagement.staff_rating: the inches from the charger to its "
            "target (R4-1)")
    elif e["charge_distance"] <= 0:
        raise (where / "charge_distance").error(
            f"must be more than 0 inches, got {e['charge_distance']}")


def check_charger(charger: dict, target: dict, facing: str, where: s.Where) -> None:
    """R4-2: a charger that :func:`refused` refuses is an error at ``where``."""
    refusal = refused(charger, target, facing)
    if refusal is not None:
        raise (where / refusal[0]).error(refusal[1])


def refused(charger: dict, target: dict, facing: str) -> tuple[str, str] | None:
    """Why ``charger`` cannot charge ``target`` on ``facing`` (R4-2): the key at fault and the
    reason, or None. Shaken, march column, artillery and hedgehog units cannot charge;
    skirmishers charge close order only in the flank or rear of an engaged target."""
    if is_shaken(charger):
        return "status", "a shaken unit cannot charge (R4-2)"
    if charger["formation"] in ("march column", "hedgehog"):
        return "formation", f"a unit in {charger['formation']} cannot charge (R4-2)"
    if charger["type"] in ARTILLERY:
        return "type", "artillery cannot charge (R4-2)"
    if (charger["formation"] == "skirmish" and target["formation"] in CLOSE_ORDER
            and not (target["engaged"] and facing in ("flank", "rear"))):
        return "formation", (
            f"skirmishers may charge a unit in {target['formation']} only in its flank or rear "
            "while it is engaged (R4-2): set the target's engaged = true and engagement.facing")
    return None


def check_reaction(unit: dict, charger: dict, e: dict, facing: str, where: s.Where) -> None:
    """R4-4: who may declare which reaction to a charge on its ``facing``."""
    reaction, disordered = e["reaction"], is_disordered(unit)
    allowed = None
    if reaction == "closing fire":
        if unit["type"] not in INFANTRY + ARTILLERY:
            allowed = "only infantry and artillery give closing fire"
        elif unit["profile"]["shooting"] == 0:
            allowed = "a unit with shooting 0 cannot give closing fire"
    elif reaction == "hedgehog":
        if unit["type"] not in INFANTRY:
            allowed = "only infantry forms hedgehog"
    elif reaction == "evade":
        by_infantry = charger["type"] in INFANTRY
        if not ((unit["type"] in CAVALRY + ("horse artillery",) and by_infantry)
                or (unit["formation"] == "skirmish" and by_infantry
                    and charger["formation"] != "skirmish")):
            allowed = ("only cavalry or horse artillery charged by infantry, or skirmishers "
                       "charged by infantry in another formation, may evade")
    elif reaction == "counter-charge":
        if unit["type"] not in CAVALRY or facing != "front":
            allowed = "only cavalry charged to its front may counter-charge"
        elif is_shaken(unit):
            allowed = "a shaken unit cannot counter-charge (§5.4)"
    elif reaction == "turn to face" and (unit["type"] not in CAVALRY or facing == "front"):
        allowed = "only cavalry charged in the flank or rear may turn to face"
    if allowed is None and disordered and reaction in ("evade", "counter-charge",
                                                       "turn to face"):
        allowed = f"a disordered unit cannot {reaction}"
    if allowed is not None:
        raise where.error(f"{reaction!r} is not allowed here: {allowed} (R4-4)")


def catalogues() -> list[Section]:
    """What a scenario may name: the bundled special rules."""
    return [Section("special rules", "side", "rules", special_rules(), RULE_KEYS, own=None)]
