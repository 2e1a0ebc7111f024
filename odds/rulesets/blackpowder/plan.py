"""The flat numeric plan of a blackpowder melee, what the rule text (fight.py) reads; made by
compile.py."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Plan(NamedTuple):
    """The melee's U units, attacker units first (brigade.py); arrays indexed [hedgehog
    formed][round: 0 first, 1 later][unit u][the enemy v it strikes]."""

    side: np.ndarray          # (U,) 0 attacker, 1 defender
    contacts: np.ndarray      # (U, U) the enemies in contact with u, the first its dice go to
    #                           first; -1 padded (brigade.Melee.contacts)
    flank_of: np.ndarray      # (2, U, U) v is on u's flank or rear (-1 to hit, no support)
    supporters: np.ndarray    # (U, 3) units supporting u: behind, on a flank, on the other
    supported: np.ndarray     # (U,) u has a support: a unit, or its own keys (one unit a
    #                           side: never, its keys' bonus is in result_bonus: it holds)
    flanked: np.ndarray       # (U,) an enemy may be on u's flank or rear
    in_contact: np.ndarray    # (2,) a side's units in contact with an enemy at the start
    fresh: np.ndarray         # (2,) a side's fresh unit (in_melee = false, §5.4), -1 if none;
    #                           its contacts are the enemy cavalry that may sweep into it
    second_charge: bool       # a side has a fresh unit
    own_rear: np.ndarray      # (U,) its own rear_support key: 0 or 1
    own_flanks: np.ndarray    # (U,) its own flank_supports key
    dice: np.ndarray          # (2, 2, U, U) hand-to-hand dice (R4-6, doubled for pikes R4-5)
    p_hit: np.ndarray         # (2, 2, U, U, 2 won last round, 2 shaken now, 2 flanked) P(hit)
    reroll_misses: np.ndarray  # (2, 2, U, U) re-roll every miss this round
    reroll_one_miss: np.ndarray  # (2, U) re-roll one miss each round
    p_unsaved: np.ndarray     # (2, 2, U, U) P(v fails its morale save) against u's hits
    reroll_one_save: np.ndarray  # (2, U) u re-rolls one failed save each round
    p_save: np.ndarray        # (2, 2, U, U) P(v saves), for the stubborn re-roll
    result_bonus: np.ndarray  # (2, 2, U, U) combat-result bonus (square, building, charge;
    #                           one unit a side: its supports too)
    result_d3: np.ndarray     # (2, 2, U, U) +D3 to the combat result
    supportable: np.ndarray   # (2, U) artillery, skirmishers, squares, buildings: no
    test_on_casualty: np.ndarray  # (2, U) wavering
    first_test_passed: np.ndarray  # (2, U) steady
    square: np.ndarray        # (2, U) ignores every break-test result but break
    test_rerolls: np.ndarray  # (2, U) valiant: break-test re-rolls per fight
    terrifies: np.ndarray     # (2, U) u is charged by a terrifying charge: it tests first
    sweep_terrifies: np.ndarray  # (2, U) u's second charge, into a fresh unit, terrifies it
    cavalry: np.ndarray       # (U,)
    stamina: np.ndarray       # (U,)
    start_casualties: np.ndarray  # (U,) stamina if the unit starts shaken
    sweeps: np.ndarray        # (U,) sweeping advance when victorious (cavalry, option on)
    closing_at: np.ndarray    # (U,) the charger u's closing fire hits (R4-4), -1 for none
    closing_fire: bool        # a unit gives closing fire
    sweep_fire: bool          # a fresh unit gives closing fire at the unit sweeping into it
    terrifying: bool          # a charged unit may take a terrifying charge's test
    wound_span: np.ndarray    # (U,) the most failed saves u can suffer (the exact tallies)
    band: np.ndarray          # break-test result for each modified score from LOWEST to 12
    rear_bonus: int           # a support's combat-result bonus from behind (§5.3)
    flank_bonus: int          # from a flank
    max_flanks: int           # flank supports that count
    shaken_retire_breaks: bool
    start: int                # FIGHT, EVADED, EVADER_DESTROYED or HALTED
    hedgehog_order: int       # 2D6 at most this forms hedgehog; 0 when not declared
    ordered: bool             # the charge waits on an order roll (R4-1)
    order_chance: float       # P(the order brings the charger into contact)
    several: bool             # a side has several units: the row has each unit's columns
    attackers: int            # units of the attacker (the first ones)
    charger: int              # the charging side
    max_rounds: int
    # the laws the rule text picks from (fight.with_laws)
    casualty_law: np.ndarray | None = None  # [h, round, u, v, won, shaken, flanked]
    closing_law: np.ndarray | None = None   # casualties of closing fire: [0, u] what u's
    #                                         inflicts, [1, c] what c takes sweeping into a
    #                                         fresh unit (§5.4)
    test_law: np.ndarray | None = None      # [h, u, deduction, shaken]: hold, retire, break
    order_law: np.ndarray | None = None     # the order fails, the charge goes in (R4-1)
    hedgehog_law: np.ndarray | None = None  # no hedgehog, hedgehog formed
    d3_law: np.ndarray | None = None        # a D3 of charge bonus, 1 .. 3
    units: int = 0            # U (a constant in a kernel variant: fight.known)
