"""Seeded mutants of the bundled scenario and comparison files, and of the CLI's options.

``mutants(source, count)`` returns ``count`` mutants of one bundled file, each the bytes of a
new file and a list of what was done to it. Most are made on the parsed TOML data (a value of
another type or at a boundary, a key deleted or added, an entry duplicated, names made to
collide, the sides swapped, paths in a comparison's ``set`` made nonsense...) and written back
with :func:`toml_text.dumps`, a small TOML writer for the shapes the bundled files use; the rest are
byte-level (Latin-1 text, a byte-order mark, truncation, a NUL byte, a duplicated table
header...). Mutant ``k`` of a file is drawn from ``random.Random("<file name>#<k>")``, so the
list is the same on every run and every machine.

``option_mutants()`` lists bad (and some good) command-line options and sweep arguments.

To see one mutant: ``python tests/mutants.py data/scenarios/FILE.toml K`` prints what was done
and the mutant file.
"""
from __future__ import annotations

import copy
import math
import random
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from odds.core.toml_text import dumps
from odds.rulesets import BUILT_IN, get_ruleset, ruleset_ids

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
SCENARIOS = sorted((DATA / "scenarios").glob("*.toml"))
COMPARISONS = sorted((DATA / "comparisons").glob("*.toml"))
RULESETS = BUILT_IN  # odds' own (a registered plug-in must not change the mutants drawn)
SIDES = ("attacker", "defender")

LONG = "x" * 5000
UNICODE = "Ünïcødé — 骰子 🎲"
BOUNDARY = (0, -1, 1, 10**13, 2**64, -2**64, math.nan, math.inf, -math.inf, 0.5, -0.0,
            "", " ", "x", LONG, UNICODE, [], {}, True, False, [1], ["x"], {"x": 1})
COUNTS = (0, -1, 1, 10_000, 10_001, 2**64)
MAX_ROUNDS = (0, 1, 1000, 1001, 10**6, 10**13)
NONSENSE_PATHS = ("", " ", ".", "[0]", "bogus", "attacker..models", "attacker.models[",
                  "attacker.models[99].count", "attacker.models[-1].count",
                  "attacker.models[Nobody].count", "attacker.models[0].profile.WS.deeper",
                  "attacker.models[0]", "attacker.models", "attacker", "ruleset",
                  "simulation.trials", "defender.name.first", UNICODE)
FILE_REFS = ("nope.toml", "", ".", "../scenarios", "../scenarios/", "../comparisons",
             "../scenarios/wh40k3_ten_vs_ten.toml", "../scenarios/mordheim_two_on_one.toml",
             "../scenarios/whfb8_knights_lance_charge.toml",
             "../scenarios/blackpowder_infantry_flank_charge.toml",
             "../scenarios/d10skirmish_trooper_charges_sniper.toml",
             "../comparisons/wh40k3_sergeant_weapon.toml", "/dev/null", UNICODE)


@dataclass
class Mutant:
    """One mutated file: its bytes and what was done to the bundled ``source``."""

    source: Path
    index: int
    ops: list[str]
    text: bytes
    refs_changed: bool = False  # it points ``base`` / ``*_from`` at another file
    must_fail: str = ""  # why no fixed odds may accept it (a non-finite number, ...)
    must_pass: bool = False  # a valid file: every operator was a VALID one

    @property
    def id(self) -> str:
        return f"{self.source.name}#{self.index}"

    def describe(self) -> str:
        return f"{self.id} [{'; '.join(self.ops)}]"


class _NotHere(Exception):
    """The operator does not apply to this file."""


# ---------------------------------------------------------------------------- TOML writer

def same(a, b) -> bool:
    """Equal TOML data: same types (a bool is not an int), nan equal to nan."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


# ------------------------------------------------------------------------ paths in data


def _nodes(node, path=()):
    """Every (path, value) below ``node``; a path is a tuple of keys and list indexes."""
    items = node.items() if isinstance(node, dict) else enumerate(node) \
        if isinstance(node, list) else ()
    for key, value in items:
        yield path + (key,), value
        yield from _nodes(value, path + (key,))


def _get(data, path):
    for key in path:
        data = data[key]
    return data


def _set(data, path, value) -> None:
    _get(data, path[:-1])[path[-1]] = value


def shown(path) -> str:
    """``("attacker", "models", 0, "count")`` -> ``attacker.models[0].count``."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


def short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} chars)"


# ------------------------------------------------------------------------ what a file is


@dataclass
class _Context:
    kind: str  # "scenario" or "comparison"
    ruleset: str | None
    vocab: tuple[str, ...]  # names from every bundled file: valid here or in another ruleset
    fields: list  # (path, check) of every schema field, present or not


def _vocabulary() -> tuple[str, ...]:
    words = set()
    for path in SCENARIOS + COMPARISONS:
        words.update(v for _, v in _nodes(tomllib.loads(path.read_text("utf-8")))
                     if isinstance(v, str))
    for ruleset in RULESETS:
        for table in sorted((DATA / ruleset).glob("*.toml")):
            words.update(k for k, v in tomllib.loads(table.read_text("utf-8")).items()
                         if isinstance(v, dict))
    return tuple(sorted(words))


def _schema_fields(data: dict, ruleset_id: str | None) -> list:
    """(path, check) for the fields the ruleset's schema knows, present in ``data`` or not."""
    from odds.scenario import SIMULATION

    if ruleset_id not in ruleset_ids():
        return []
    rules = get_ruleset(ruleset_id)
    out = [(("simulation", k), c) for k, (c, _) in SIMULATION.items()]
    out += [(("engagement", k), c) for k, (c, _) in rules.engagement.items()]
    out += [(("rules", k), c) for k, (c, _) in rules.rules.items()]
    for side in SIDES:
        out += [((side, k), c) for k, (c, _) in rules.side_keys.items()]
        groups = data.get(side, {}).get("models", []) if not rules.single_unit else []
        for i in range(len(groups)):
            out += [((side, "models", i, k), c) for k, (c, _) in rules.group_keys.items()]
            out += [((side, "models", i, "profile", k), c) for k, (c, _) in rules.profile.items()]
    return out


def _check_values(check, ctx: _Context, data: dict) -> list:
    """Values at and just past the edges of what ``check`` allows (read from its closure)."""
    name = getattr(check, "__qualname__", "")
    code = getattr(check, "__code__", None)
    env = dict(zip(code.co_freevars, (c.cell_contents for c in check.__closure__ or ()))) \
        if code else {}
    if name.startswith(("integer", "number")):
        values = [v for edge in (env.get("lo"), env.get("hi")) if edge is not None
                  for v in (edge - 1, edge, edge + 1)] or [0, -1, 10**13]
        return values + ([math.nan, math.inf, -math.inf, 0.5] if name.startswith("number")
                         else [2.0])
    if name.startswith("choice"):
        allowed = list(env.get("allowed", ()))
        return allowed + [a.upper() for a in allowed[:1]] + [a + " " for a in allowed[:1]]
    if name == "boolean":
        return [True, False, "true", 1]
    sides = [data.get(side) for side in SIDES]
    names = [g.get("name") for side in sides if isinstance(side, dict)
             for g in side.get("models", []) if isinstance(g, dict)]
    pair = names[:1] + names[-1:] if len(names) >= 2 else ["x", "y"]
    return [[pair], pair, [pair, pair], [pair[::-1]], [[pair[0]]], {"WS": 3}, [], "x",
            list(ctx.vocab[:3]), random.Random(name).choice(ctx.vocab)]


# ------------------------------------------------------------------- operators on data


def _retype(rng, data, ctx):
    path, _ = rng.choice(list(_nodes(data)))
    value = rng.choice(BOUNDARY)
    _set(data, path, copy.deepcopy(value))
    return f"retype {shown(path)} = {short(value)}"


def _boundary(rng, data, ctx):
    if not ctx.fields:
        raise _NotHere
    path, check = rng.choice(ctx.fields)
    value = rng.choice(_check_values(check, ctx, data))
    parent = _get(data, path[:-2])
    node = parent.setdefault(path[-2], {}) if isinstance(path[-2], str) else parent[path[-2]]
    if not isinstance(node, dict):
        raise _NotHere
    node[path[-1]] = copy.deepcopy(value)
    return f"boundary {shown(path)} = {short(value)}"


def _delete(rng, data, ctx):
    path, _ = rng.choice(list(_nodes(data)))
    del _get(data, path[:-1])[path[-1]]
    return f"delete {shown(path)}"


def _unknown_key(rng, data, ctx):
    tables = [((), data)] + [(p, v) for p, v in _nodes(data) if isinstance(v, dict)]
    path, table = rng.choice(tables)
    near = [k[:-1] or "x" for k in table] + [k.swapcase() for k in table] + [k + "s" for k in table]
    key = rng.choice([k for k in near if k not in table] + ["colour", "", " ", UNICODE, "a.b"])
    table[key] = rng.choice((1, "x", True, {"x": 1}))
    return f"unknown key {shown(path + (key,))}"


def _duplicate(rng, data, ctx):
    lists = [(p, v) for p, v in _nodes(data) if isinstance(v, list) and v]
    if not lists:
        raise _NotHere
    path, entries = rng.choice(lists)
    i = rng.randrange(len(entries))
    entries.insert(i + 1, copy.deepcopy(entries[i]))
    return f"duplicate {shown(path + (i,))}"


def _collide(rng, data, ctx):
    names = [(p, v) for p, v in _nodes(data) if p[-1] == "name" and isinstance(v, str)]
    if len(names) < 2:
        raise _NotHere
    (path, _), (_, other) = rng.sample(names, 2)
    _set(data, path, other)
    return f"collide {shown(path)} = {short(other)}"


def _swap_sides(rng, data, ctx):
    a, d = data.get("attacker"), data.get("defender")
    if not isinstance(a, dict) or not isinstance(d, dict):
        raise _NotHere
    shared = [k for k in a if k in d]
    if rng.random() < 0.3 or not shared:
        data["attacker"], data["defender"] = d, a
        return "swap attacker and defender"
    key = rng.choice(shared)
    a[key], d[key] = d[key], a[key]
    return f"swap attacker.{key} and defender.{key}"


def _count(rng, data, ctx):
    paths = [p for p, _ in _nodes(data) if p[-1] == "count"]
    if not paths:
        raise _NotHere
    path, value = rng.choice(paths), rng.choice(COUNTS)
    _set(data, path, value)
    return f"count {shown(path)} = {value}"


def _max_rounds(rng, data, ctx):
    if ctx.kind != "scenario":
        raise _NotHere
    value = rng.choice(MAX_ROUNDS)
    if not isinstance(data.get("simulation"), dict):
        data["simulation"] = {}
    data["simulation"]["max_rounds"] = value
    return f"simulation.max_rounds = {value}"


def _ruleset(rng, data, ctx):
    value = rng.choice([r for r in RULESETS if r != ctx.ruleset]
                       + ["chess", "", "WH40K3", " wh40k3", "wh40k3 ", 3])
    data["ruleset"] = value
    return f"ruleset = {short(value)}"


def _vocab(rng, data, ctx):
    paths = [p for p, v in _nodes(data) if isinstance(v, str)]
    if not paths:
        raise _NotHere
    path, value = rng.choice(paths), rng.choice(ctx.vocab)
    _set(data, path, value)
    return f"name {shown(path)} = {short(value)}"


def _nudge(rng, data, ctx):
    paths = [(p, v) for p, v in _nodes(data) if type(v) is int]
    if not paths:
        raise _NotHere
    path, v = rng.choice(paths)
    value = rng.choice((v + 1, v - 1, -v, 10 * v, v + 0.5, float(v)))
    _set(data, path, value)
    return f"nudge {shown(path)} = {value}"


def _inline_weapon(rng, data, ctx):
    """A weapon of the scenario's own ``[weapons]`` table, one of its values changed, carried."""
    weapons = DATA / str(ctx.ruleset) / "weapons.toml"
    groups = [g for side in SIDES for g in data.get(side, {}).get("models", [])
              if isinstance(g, dict)] if isinstance(data.get("attacker"), dict) else []
    if ctx.kind != "scenario" or not weapons.exists() or not groups:
        raise _NotHere
    bundled = {}
    for key, entry in tomllib.loads(weapons.read_text("utf-8")).items():
        if isinstance(entry, dict) and entry and all(isinstance(v, dict) for v in entry.values()):
            bundled.update(entry)  # a section of entries (whfb8: [weapons."..."], [armour.x])
        elif isinstance(entry, dict):
            bundled[key] = entry
    base = rng.choice(sorted(bundled))
    weapon = copy.deepcopy(bundled[base])
    change = ""
    if weapon:
        key = rng.choice(sorted(weapon))
        weapon[key] = rng.choice(BOUNDARY + (2, 3, -2))
        change = f" with {key} = {short(weapon[key])}"
    if not isinstance(data.get("weapons"), dict):
        data["weapons"] = {}
    data["weapons"]["fuzz weapon"] = weapon
    group = rng.choice(groups)
    group["equipment"] = list(group.get("equipment", []))[:1] + ["fuzz weapon"]
    return f"weapons.'fuzz weapon' = {base}{change}, carried by {short(group.get('name'))}"


def _set_tables(data):
    out = [(("set",), data["set"])] if isinstance(data.get("set"), dict) else []
    for key in ("variants", "opponents"):
        for i, entry in enumerate(data.get(key, [])):
            if isinstance(entry, dict) and isinstance(entry.get("set"), dict):
                out.append(((key, i, "set"), entry["set"]))
    return out


def _set_path(rng, data, ctx):
    """A comparison ``set`` table gets a nonsense path, mixed index/name keys, or a value of
    the wrong type at a valid path."""
    tables = _set_tables(data)
    if ctx.kind != "comparison" or not tables:
        raise _NotHere
    path, table = rng.choice(tables)
    how = rng.randrange(4)
    if how == 0 and table:
        old = rng.choice(list(table))
        new = rng.choice(NONSENSE_PATHS)
        table[new] = table.pop(old)
        return f"{shown(path)}: path {old!r} -> {new!r}"
    if how == 1:
        table.update({"[0]": 1, "bogus": 2})
        return f"{shown(path)}: add '[0]' = 1 and 'bogus' = 2"
    if how == 2 or not table:
        new = rng.choice(NONSENSE_PATHS)
        table[new] = rng.choice((1, "x", True, [], {}))
        return f"{shown(path)}: add {new!r} = {short(table[new])}"
    key = rng.choice(list(table))
    table[key] = rng.choice(BOUNDARY)
    return f"{shown(path)}: {key!r} = {short(table[key])}"


def _file_ref(rng, data, ctx):
    if ctx.kind != "comparison":
        raise _NotHere
    ref = rng.choice(FILE_REFS)
    entries = [(k, i) for k in ("variants", "opponents")
               for i, e in enumerate(data.get(k, [])) if isinstance(e, dict)]
    if rng.random() < 0.4 or not entries:
        data["base"] = ref
        return f"base = {ref!r}"
    key, i = rng.choice(entries)
    side = rng.choice(SIDES)
    data[key][i][f"{side}_from"] = ref
    return f"{key}[{i}].{side}_from = {ref!r}"


VALID = "valid: "  # operators whose mutants are valid files


def _rewrite(rng, data, ctx):
    return VALID + "rewritten unchanged"


def _all_contacts(rng, data, ctx):
    """mordheim's documented ``engagement.contacts``: every attacker warrior against every
    defender warrior (the bundled warbands have one warrior per group)."""
    groups = [data.get(side, {}).get("models") for side in SIDES]
    if ctx.ruleset != "mordheim" or not all(isinstance(g, list) for g in groups):
        raise _NotHere
    names = [[g["name"] for g in side] for side in groups]
    if not isinstance(data.get("engagement"), dict):
        data["engagement"] = {}
    data["engagement"]["contacts"] = [[a, d] for a in names[0] for d in names[1]]
    return VALID + "engagement.contacts = every attacker-defender pair"


DATA_OPS = {
    "rewrite": (_rewrite, 1), "all_contacts": (_all_contacts, 2),
    "retype": (_retype, 6), "boundary": (_boundary, 6), "delete": (_delete, 3),
    "unknown_key": (_unknown_key, 2), "duplicate": (_duplicate, 3), "collide": (_collide, 2),
    "swap_sides": (_swap_sides, 1), "count": (_count, 1), "max_rounds": (_max_rounds, 1),
    "ruleset": (_ruleset, 1), "vocab": (_vocab, 3), "nudge": (_nudge, 3),
    "inline_weapon": (_inline_weapon, 2), "set_path": (_set_path, 8), "file_ref": (_file_ref, 3),
}


# ------------------------------------------------------------------- operators on bytes


def _latin1(rng, raw: bytes):
    at = raw.find(b'name = "')
    if at < 0:
        raise _NotHere
    at += len(b'name = "')
    return raw[:at] + b"Caf\xe9 " + raw[at:], 'Latin-1 "Caf\\xe9" in the first name'


def _bom(rng, raw):
    return b"\xef\xbb\xbf" + raw, "UTF-8 byte-order mark prefix"


def _truncate(rng, raw):
    at = rng.randrange(len(raw))
    return raw[:at], f"truncated at byte {at}"


def _nul(rng, raw):
    at = rng.randrange(len(raw) + 1)
    return raw[:at] + b"\x00" + raw[at:], f"NUL byte at {at}"


def _bad_utf8(rng, raw):
    at = rng.randrange(len(raw) + 1)
    return raw[:at] + b"\xff\xfe" + raw[at:], f"bytes ff fe at {at}"


def _dup_header(rng, raw):
    headers = re.findall(rb"^\[\[?[^\]\n]+\]\]?[ \t]*(?:#.*)?$", raw, re.M)
    if not headers:
        raise _NotHere
    header = rng.choice(headers).split(b"#")[0].strip()
    return raw + b"\n" + header + b"\n", f"header {header.decode()} repeated at the end"


def _crlf(rng, raw):
    return raw.replace(b"\n", b"\r\n"), VALID + "CRLF line ends"


def _utf16(rng, raw):
    return raw.decode("utf-8").encode("utf-16"), "UTF-16 encoded"


def _empty(rng, raw):
    return b"", "empty file"


BYTE_OPS = {"latin1": (_latin1, 3), "bom": (_bom, 3), "truncate": (_truncate, 4),
            "nul": (_nul, 2), "bad_utf8": (_bad_utf8, 1), "dup_header": (_dup_header, 3),
            "crlf": (_crlf, 1), "utf16": (_utf16, 1), "empty": (_empty, 1)}
BYTE_SHARE = 0.15  # of mutants
TWO_OPS_SHARE = 0.2  # of data mutants


# ------------------------------------------------------------------------------ mutants


def mutants(source: Path, count: int) -> list[Mutant]:
    """``count`` mutants of one bundled file, the same on every run."""
    raw = source.read_bytes()
    data = tomllib.loads(raw.decode("utf-8"))
    kind = "comparison" if "base" in data else "scenario"
    ruleset = data.get("ruleset")
    ctx = _Context(kind, ruleset, _vocabulary(), _schema_fields(data, ruleset))
    return [_mutant(random.Random(f"{source.name}#{k}"), source, k, raw, data, ctx)
            for k in range(count)]


def _pick(rng, ops: dict):
    names = list(ops)
    return ops[rng.choices(names, weights=[ops[n][1] for n in names])[0]][0]


def _mutant(rng, source, index, raw, data, ctx) -> Mutant:
    if rng.random() < BYTE_SHARE:
        while True:
            try:
                text, op = _pick(rng, BYTE_OPS)(rng, raw)
                return Mutant(source, index, [op], text, must_pass=op.startswith(VALID))
            except _NotHere:
                pass
    mutated, ops = copy.deepcopy(data), []
    for _ in range(2 if rng.random() < TWO_OPS_SHARE else 1):
        while True:
            op = _pick(rng, DATA_OPS)
            try:
                ops.append(op(rng, mutated, ctx))
                break
            except (_NotHere, LookupError, TypeError, ValueError):  # not here (e.g. no lists)
                pass
    text = dumps(mutated)
    if not same(tomllib.loads(text), mutated):
        raise AssertionError(f"the TOML writer lost data in {source.name}#{index}: {ops}")
    return Mutant(source, index, ops, text.encode("utf-8"),
                  refs_changed=any(op.startswith("base =") or "_from =" in op for op in ops),
                  must_fail=_never_valid(mutated, ctx),
                  must_pass=all(op.startswith(VALID) for op in ops))


def _never_valid(data: dict, ctx: _Context) -> str:
    """Why this data must be rejected whatever odds' schema becomes, or "": a nan or inf
    anywhere (odds accepts no non-finite number), two model groups of one side with one name
    (``models[Name]`` paths could not tell them apart)."""
    if any(isinstance(v, float) and not math.isfinite(v) for _, v in _nodes(data)):
        return "a non-finite number"
    if ctx.kind == "scenario":
        for side in SIDES:
            groups = data.get(side, {}).get("models", []) if isinstance(data.get(side), dict) \
                else []
            names = [g["name"] for g in groups if isinstance(g, dict) and "name" in g] \
                if isinstance(groups, list) else []
            if len(set(map(repr, names))) < len(names):
                return f"two {side} model groups with one name"
    return ""


# ------------------------------------------------------------------- command-line options


@dataclass(frozen=True)
class OptionMutant:
    """Command-line arguments to add to a command; an error must name one of ``names``.
    ``bad``: True if the arguments must be rejected, None if either outcome is fine."""

    args: tuple[str, ...]
    names: tuple[str, ...]  # e.g. ("--trials",)
    bad: bool | None = True

    def describe(self) -> str:
        return " ".join(repr(a) if not a or " " in a else a for a in self.args)


GOOD, EITHER = False, None


def option_mutants() -> list[OptionMutant]:
    """Bad option values, edge values that are fine, and bad sweep VALUES and PATHs."""
    def option(name, values, *before):
        return [OptionMutant((*before, name, v), (name,), bad) for v, bad in values.items()]

    big = {str(10**13): True, str(2**64): True}
    out = option("--trials", {"0": True, "-1": True, **big, "x": True, "": True, "2.5": True,
                              "nan": True, "1e3": EITHER, "1_0": EITHER, "1": GOOD})
    out += option("--seed", {str(2**64): True, str(2**63): True, str(2**63 - 1): GOOD,
                             "-1": True, "x": True, "": True, "0": GOOD, "1.5": True})
    out += option("--threads", {"0": True, "-1": True, "2.5": True, "x": True, "True": True,
                                "": True, "1": GOOD, "2": EITHER, str(10**6): EITHER})
    out += option("--precision", {"0": True, "1": True, "nan": True, "inf": True, "-0.1": True,
                                  "0.5": True, "x": True, "": True, "0.4": GOOD})
    out += option("--max-trials", {"0": True, "-1": True, "x": True, "": True, "1": GOOD,
                                   "100": GOOD, str(10**13): EITHER, str(2**64): EITHER},
                  "--precision", "0.3")
    out += option("--max-trials", {"0": True})
    out += [OptionMutant(("--csv", "/no/such/dir/x.csv"), ("/no/such/dir/x.csv",)),
            OptionMutant(("--csv", ""), ("--csv",), EITHER)]
    return out


SWEEP_VALUES = ("1..10..0", "1..2..3..4", "a..b", "", ",", " ", "1..", "..3", "3..1",
                "1..3..-1", "1..3..x", "nan", "inf", "1,x", "1.5", "true,false", "0", "-1..1",
                "10001", str(2**64), "1,,2", UNICODE, "2..4")
SWEEP_PATHS = NONSENSE_PATHS + ("engagement.charger", "simulation.max_rounds",
                                "attacker.name", "name", "engagement.nonsense")


SWEEP_FINE = {("defender.models[0].count", "2..4"): EITHER,  # d10skirmish: one fighter a side
              ("defender.models[0].count", "1,,2"): EITHER,
              ("simulation.trials", "1,2"): EITHER, ("simulation.max_rounds", "1,2"): GOOD,
              ("attacker.name", "x"): GOOD, ("name", "x"): GOOD}


def sweep_mutants() -> list[OptionMutant]:
    """``sweep FILE PATH VALUES`` arguments: bad VALUES at a good path (the error names VALUES
    or the path), bad PATHs (the error names the path), and a few that are fine."""
    count = "defender.models[0].count"
    out = [OptionMutant((count, v), ("values", count), SWEEP_FINE.get((count, v), True))
           for v in SWEEP_VALUES]
    out += [OptionMutant((p, v), _path_names(p), SWEEP_FINE.get((p, v), True))
            for p in SWEEP_PATHS for v in ("1,2", "x")]
    return out


def _path_names(path: str) -> tuple[str, ...]:
    """What an error about a swept path may name: the path, or its first key."""
    first = re.split(r"[.\[]", path)[0].strip()
    return tuple(n for n in (path.strip(), first) if n) or ("path",)


def sweep_target(rng, data: dict) -> tuple[str, str]:
    """A path of ``data`` worth sweeping (a number, a flag or a name) and values for it."""
    leaves = [(p, v) for p, v in _nodes(data)
              if isinstance(v, (int, float, str)) and not isinstance(p[-1], int)
              and p[0] in (*SIDES, "engagement", "simulation", "rules") and "," not in str(v)
              and ".." not in str(v)]
    if not leaves:
        return "defender.models[0].count", "1,2"
    path, v = rng.choice(leaves)
    if isinstance(v, bool):
        values = "true,false"
    elif isinstance(v, int):
        values = rng.choice((f"{v},{v + 1}", f"{max(v - 1, 0)}..{v + 1}", str(v)))
    elif isinstance(v, float):
        values = f"{v},{2 * v}"
    else:
        values = rng.choice((v, f"{v},x"))
    return shown(path), values


if __name__ == "__main__":
    file, k = Path(sys.argv[1]), int(sys.argv[2])
    mutant = mutants(file.resolve(), k + 1)[k]
    print("#", mutant.describe())
    sys.stdout.flush()
    sys.stdout.buffer.write(mutant.text)
