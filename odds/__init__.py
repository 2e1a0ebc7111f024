"""odds: Monte Carlo combat odds for tabletop wargame melee.

>>> import odds
>>> result = odds.simulate("data/scenarios/wh40k3_assault_marines_vs_boyz.toml", trials=10_000)
>>> result.summary()
"""
from odds.analysis.compare import Comparison, compare
from odds.analysis.result import Result
from odds.analysis.roster_file import Roster
from odds.analysis.round_robin import RoundRobin, roster
from odds.analysis.sweep import Sweep, sweep
from odds.api import simulate
from odds.errors import ScenarioError
from odds.explorer import explore
from odds.lists import Imported, import_list
from odds.scenario import ModelGroup, Scenario, Side, from_dict, load
from odds.version import __version__  # noqa: F401 (odds.__version__)

__all__ = ["simulate", "compare", "sweep", "roster", "import_list", "explore", "Result",
           "Comparison", "Sweep", "RoundRobin", "Roster", "Imported", "load", "from_dict",
           "Scenario", "Side", "ModelGroup", "ScenarioError"]
