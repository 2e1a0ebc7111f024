"""The interactive explorer for Jupyter: :func:`explore` a scenario with ipywidgets controls
that re-simulate on every change (ipywidgets is the optional extra ``odds[jupyter]``, imported
only when an explorer is made)."""
from __future__ import annotations

import base64
import html
import io
import time

from odds.analysis import report
from odds.analysis.comparison_file import cell
from odds.analysis.knobs import default_knobs, user_knob
from odds.api import simulate
from odds.core.schema import ARGUMENTS
from odds.errors import ScenarioError
from odds.play import options
from odds.rulesets import get_ruleset
from odds.scenario import as_scenario

TRIAL_CHOICES = (10_000, 50_000, 200_000, 1_000_000)
METHODS = {"simulate": "mc", "exact when it can": "auto"}
INSTALL = 'odds.explore needs ipywidgets (in Jupyter): pip install "odds[jupyter]"'


def explore(scenario, *, trials: int = 50_000, seed: int | None = None, method: str = "mc",
            **knobs) -> "Explorer":
    """Controls for a scenario and its result, re-simulated on every change (Jupyter).

    ``scenario`` is what :func:`odds.simulate` takes (a path, a Scenario, a dict). Without
    ``knobs`` the controls are each side's keys, each model group's count, profile values and
    equipment (from the ruleset's catalogue and the scenario's own ``[weapons]``), and the
    engagement and rules options, within what the scenario accepts (a count slider goes up
    to 4x the count, at least 40). Or name the controls by path, as in comparisons and
    sweeps: ``explore(s, **{"defender.models[Boy].count": range(10, 41)})``; a range gives a
    slider with its step, a list a dropdown, a bool a checkbox, a ``(lo, hi)`` pair a slider,
    a single number a box to type in.

    Every change plays ``trials`` fights (default 50,000; a control raises it to 1,000,000)
    with ``seed`` (default: the scenario's) and shows the summary table with 95% intervals,
    the outcome bars and the distribution of models lost. Once the ruleset's kernel is
    compiled (the first run of a session) an update at 50,000 fights takes a few tenths of a
    second, mostly drawing the charts (the fights themselves take a few hundredths); sliders
    run when released, not while dragged. A value the scenario refuses shows its error
    instead, and the last accepted result stays below it. ``method="auto"`` (or the
    "answer" control) solves each fight exactly when the ruleset's solver can, with no noise,
    and simulates otherwise (see :func:`odds.simulate`). The returned :class:`Explorer`
    displays itself in Jupyter (its ``widget`` can be placed in a layout).
    """
    try:
        import ipywidgets  # noqa: F401
    except ImportError as error:
        raise ImportError(INSTALL) from error
    return Explorer(scenario, trials, seed, knobs, method)


class Explorer:
    """The explorer: ``widget`` (an ipywidgets VBox), ``controls`` (path -> widget),
    ``trials_control``, ``method_control``, ``output``, and after each update ``result`` (the
    last good
    :class:`~odds.analysis.result.Result`) and ``error`` (the refused value's message, or
    None)."""

    def __init__(self, scenario, trials: int, seed: int | None, knobs: dict,
                 method: str = "mc"):
        import ipywidgets as w

        options.check(trials=trials, seed=seed)
        if method not in METHODS.values():
            raise (ARGUMENTS / "method").error(f"must be 'mc' or 'auto' (the explorer always "
                                               f"has an answer), got {method!r}")
        self.base = as_scenario(scenario)
        self.seed = seed
        chosen = [user_knob(path, spec, self.base) for path, spec in knobs.items()] if knobs \
            else default_knobs(self.base)
        self.controls = {knob.path: _control(w, knob) for knob in chosen}
        self.trials_control = w.Dropdown(
            options=[(f"{n:,}", n) for n in sorted({*TRIAL_CHOICES, trials})], value=trials,
            description="fights")
        self.method_control = w.Dropdown(options=list(METHODS.items()), value=method,
                                         description="answer")
        self.output = w.Output()
        self.status = w.HTML()
        self.result, self.error = None, None
        self.widget = w.VBox([*_sections(w, chosen, self.controls),
                              w.HBox([self.trials_control, self.method_control, self.status]),
                              self.output])
        self._shown = ()
        self.scenario()  # a path that leads nowhere, or a refused starting value, is raised
        self.update()
        for control in (*self.controls.values(), self.trials_control, self.method_control):
            control.observe(lambda change: self.update(), names="value")

    def scenario(self):
        """The scenario the controls describe now (a :class:`~odds.errors.ScenarioError`
        if the scenario refuses a value)."""
        changes = {path: _value(control) for path, control in self.controls.items()}
        return cell(self.base, changes, {}, ARGUMENTS)

    def update(self) -> None:
        """Re-simulate with the controls' values and show the result (or the error)."""
        try:
            scenario = self.scenario()
        except ScenarioError as error:
            self.error = str(error)
            self.status.value = "<b style='color:#d62728'>not run: see the error below</b>"
            self.output.outputs = (_text_output(f"{error}\n\nThe result below is for the "
                                                f"last values that were accepted."),
                                   *self._shown)
            return
        start = time.perf_counter()
        result = simulate(scenario, trials=self.trials_control.value, seed=self.seed,
                          quiet=True, method=self.method_control.value)
        self.result, self.error = result, None
        self._shown = (_html_output(result._repr_html_()), _chart_output(result))
        self.output.outputs = self._shown
        note = f" ({html.escape(result.method_note)})" if result.method_note else ""
        self.status.value = (f"{report.size(result)}, updated in "
                             f"{time.perf_counter() - start:.2f} s{note}")

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


def _control(w, knob):
    """The widget for one knob (sliders run when released, not while dragged)."""
    common = {"description": knob.label, "value": knob.value,
              "style": {"description_width": "initial"}}
    if knob.kind == "whole":
        return w.IntSlider(min=knob.lo, max=knob.hi, step=knob.step, continuous_update=False,
                           **common)
    if knob.kind == "number":
        return w.FloatSlider(min=knob.lo, max=knob.hi, step=knob.step,
                             continuous_update=False, **common)
    if knob.kind == "typed":
        box = w.IntText if isinstance(knob.value, int) else w.FloatText
        return box(continuous_update=False, **common)
    if knob.kind == "yes/no":
        return w.Checkbox(indent=False, **common)
    if knob.kind == "choice":
        return w.Dropdown(options=[(_shown(v), v) for v in knob.options], **common)
    return w.TagsInput(allowed_tags=list(knob.options), allow_duplicates=True,
                       **{**common, "value": list(knob.value)})


def _sections(w, knobs, controls) -> list:
    """The controls under one heading per side, model group, engagement..."""
    headings = dict.fromkeys(knob.heading for knob in knobs)
    out = []
    for heading in headings:
        row = [controls[k.path] for k in knobs if k.heading == heading]
        out += [w.HTML(f"<b>{html.escape(heading)}</b>"),
                w.Box(row, layout=w.Layout(flex_flow="row wrap"))]
    return out


def _value(control):
    value = control.value
    return list(value) if isinstance(value, tuple) else value  # TagsInput's list


def _shown(value) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) or "(none)"
    return str(value)


def _text_output(text: str) -> dict:
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/plain": text,
                     "text/html": f"<pre style='color:#d62728'>{html.escape(text)}</pre>"}}


def _html_output(table: str) -> dict:
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/html": table, "text/plain": "(summary table)"}}


def _chart_output(result) -> dict:
    """The outcome bars and each side's losses (in the ruleset's words) side by side, as a
    PNG (the figure is not kept)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from odds.plots import loss_distributions, outcome_bars

    figure = Figure(figsize=(13, 4.5))  # fixed margins: a third of constrained layout's time
    FigureCanvasAgg(figure)
    bars, losses = figure.subplots(1, 2)
    figure.subplots_adjust(left=0.05, right=0.99, bottom=0.15, top=0.92, wspace=0.15)
    outcome_bars(result, bars, title="How the fight ends")
    lost = get_ruleset(result.scenario.ruleset).lost[1]
    loss_distributions(result, losses, title=lost[0].upper() + lost[1:])
    png = io.BytesIO()
    figure.savefig(png, format="png", dpi=90)
    return {"output_type": "display_data", "metadata": {},
            "data": {"image/png": base64.b64encode(png.getvalue()).decode("ascii"),
                     "text/plain": f"(outcome and {lost} charts)"}}
