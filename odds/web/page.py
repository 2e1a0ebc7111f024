"""One visitor's page: its widgets and what they do. Every answer is asked of the server's
queue (:mod:`odds.web.runs`) and polled from here, so the page stays live while fights are
played; what a control refuses is shown under that control, in the CLI's words."""
from __future__ import annotations

import io
from pathlib import Path

import panel as pn

from odds.analysis.knobs import default_knobs
from odds.api import simulate
from odds.errors import ScenarioError
from odds.rulesets import get_ruleset, ruleset_ids
from odds.scenario import load
from odds.web import matchup, views
from odds.web.runs import Runs
from odds.web.uploads import Folder

METHODS = {"exact when it can, else simulate": "auto", "simulate": "mc"}
POLL_MS = 200
FIRST = "wh40k3"
NONE = "(as in the scenario)"


class Page:
    """The widgets of one page and the state behind them: ``base`` (the matchup as picked
    or uploaded, before the controls), ``controls`` (path -> widget), ``loadouts`` (name ->
    changes from the base), ``folder`` (this page's uploads)."""

    def __init__(self, runs: Runs, link: str | None = None):
        self.runs, self.folder, self.run, self.showing = runs, Folder(), None, None
        self.controls, self.errors, self.indexed, self.loadouts = {}, {}, {}, {}
        self.listed = {}  # a unit choice of an uploaded list -> (its Roster, the unit's index)
        self.base = None
        self.ruleset = pn.widgets.Select(name="Ruleset", options={
            get_ruleset(r).title: r for r in ruleset_ids()}, value=FIRST, width=360)
        self.example = pn.widgets.Select(name="Start from a bundled or uploaded scenario",
                                         width=360)
        self.unit = {side: pn.widgets.Select(name=f"or pick the {side} from a pack or list",
                                             width=300) for side in ("attacker", "defender")}
        self.pick = pn.widgets.Button(name="Play these units", width=160)
        self.pick_error = _alert()
        self.knobs = pn.Column(sizing_mode="stretch_width")
        self.trials = pn.widgets.Select(name="Fights", options={f"{n:,}": n for n in
                                                                 matchup.TRIALS}, value=50_000,
                                        width=140)
        self.method = pn.widgets.Select(name="Answer", options=METHODS, value="auto", width=260)
        self.go = pn.widgets.Button(name="Get the odds", button_type="primary", width=160)
        self.cancel = pn.widgets.Button(name="Cancel", button_type="warning", width=100,
                                        disabled=True)
        self.progress = pn.indicators.Progress(value=0, max=100, width=300, visible=False)
        self.status = pn.pane.Markdown("", width=420)
        self.run_error = _alert()
        self.share = pn.widgets.TextInput(name="Link to this matchup", width=700,
                                          disabled=True)
        self.result = _Shown("odds_result")
        self.scenario_file = pn.widgets.FileDownload(
            label="Download the scenario (TOML)", filename="scenario.toml",
            callback=self._scenario_toml, button_type="light", width=260)
        # the Compare tab
        self.loadout_name = pn.widgets.TextInput(name="Loadout name", value="loadout 1",
                                                 width=260)
        self.add_loadout = pn.widgets.Button(name="Add the controls as a loadout", width=240)
        self.clear_loadouts = pn.widgets.Button(name="Clear", width=80)
        self.loadout_list = pn.pane.Markdown("")
        self.comparison_file = pn.widgets.Select(name="or an uploaded comparison", width=360)
        self.compare_go = pn.widgets.Button(name="Compare", button_type="primary", width=160)
        self.compare_error = _alert()
        self.compared = _Shown("odds_comparison")
        # the Round robin tab
        self.mine = pn.widgets.Select(name="Mine", width=360)
        self.theirs = pn.widgets.Select(name="Theirs", width=360)
        self.both_ways = pn.widgets.Checkbox(name="Both ways (theirs charging too)")
        self.robin_go = pn.widgets.Button(name="Play the round robin", button_type="primary",
                                          width=200)
        self.robin_error = _alert()
        self.robin = _Shown("odds_round_robin")
        # the Upload tab
        self.upload = pn.widgets.FileInput(accept=".toml,.ros,.rosz", width=360)
        self.upload_error = _alert()
        self.upload_list = pn.pane.Markdown("Nothing uploaded yet.")

        self.ruleset.param.watch(lambda e: self._ruleset(), "value")
        self.example.param.watch(lambda e: self._example(), "value")
        self.pick.on_click(lambda e: self._pick())
        self.go.on_click(lambda e: self._answer())
        self.cancel.on_click(lambda e: self.run and self.run.cancel())
        self.add_loadout.on_click(lambda e: self._add_loadout())
        self.clear_loadouts.on_click(lambda e: self._clear_loadouts())
        self.compare_go.on_click(lambda e: self._compare())
        self.robin_go.on_click(lambda e: self._round_robin())
        self.upload.param.watch(lambda e: self._uploaded(), "value")
        self._ruleset()
        if link:
            self._from_link(link)

    # --- the layout -----------------------------------------------------------------------
    def view(self):
        answer = pn.Column(
            self.go, self.run_error, self.share,
            pn.Row(self.scenario_file, *self.result.downloads), self.result.panes)
        running = pn.Row(self.trials, self.method,
                         pn.Column(pn.Spacer(height=12), self.cancel),
                         pn.Column(pn.Spacer(height=20), self.progress), self.status)
        matchup_tab = pn.Column(
            pn.Row(self.ruleset, self.example),
            pn.Row(self.unit["attacker"], self.unit["defender"], self.pick, align="end"),
            self.pick_error, self.knobs, answer, name="Matchup")
        compare_tab = pn.Column(
            pn.pane.Markdown("A loadout is the controls of the Matchup tab as they are now, "
                             "kept under a name; the comparison plays the matchup as "
                             "picked and every loadout on the same fights (paired "
                             "differences)."),
            pn.Row(self.loadout_name, pn.Column(pn.Spacer(height=12), pn.Row(
                self.add_loadout, self.clear_loadouts))),
            self.loadout_list, self.comparison_file,
            pn.Row(self.compare_go), self.compare_error,
            pn.Row(*self.compared.downloads), self.compared.panes, name="Compare")
        robin_tab = pn.Column(
            pn.pane.Markdown("Every unit of Mine against every unit of Theirs, Mine charging; "
                             "bundled rosters and army lists, or your own (Upload tab)."),
            pn.Row(self.mine, self.theirs), self.both_ways, self.robin_go, self.robin_error,
            pn.Row(*self.robin.downloads), self.robin.panes, name="Round robin")
        upload_tab = pn.Column(
            pn.pane.Markdown(
                "Upload a scenario, comparison, roster or pack (`.toml`) or an army list "
                "exported by BattleScribe or New Recruit (`.ros`, `.rosz`). A file may name "
                "only files uploaded to this page before it (a pack, a weapons file, a "
                "comparison's base), never a file of the server's; uploads are kept until "
                "the page closes. An uploaded pack's, roster's or army list's units join "
                "the unit choices of the Matchup tab."),
            self.upload, self.upload_error, self.upload_list, name="Upload")
        pn.state.add_periodic_callback(self._poll, period=POLL_MS)
        pn.state.on_session_destroyed(lambda context: self.close())
        return pn.Column(pn.pane.Markdown("## odds: combat odds for tabletop melee"),
                         running, pn.Tabs(matchup_tab, compare_tab, robin_tab, upload_tab),
                         sizing_mode="stretch_width")

    def close(self) -> None:
        """The page closed: its run is cancelled and its uploads removed."""
        if self.run is not None:
            self.run.cancel()
        self.folder.close()

    # --- the matchup ----------------------------------------------------------------------
    def _ruleset(self) -> None:
        ruleset = self.ruleset.value
        scenarios = {title: str(path) for title, path in matchup.examples(ruleset).items()}
        scenarios.update({f"{u.name} (uploaded)": u.name
                          for u in self.folder.of("scenario", ruleset)})
        self.example.options = scenarios
        if self.example.value not in scenarios.values():
            self.example.value = next(iter(scenarios.values()), None)
        units = [NONE] + self._pack_units()
        for select in self.unit.values():
            select.options, select.value = units, NONE
        choices = {title: str(path) for title, path in matchup.rosters(ruleset).items()}
        choices.update({f"{u.name} (uploaded {u.kind})": u.name
                        for u in self.folder.uploads.values()
                        if u.kind in ("roster", "army list") and u.ruleset == ruleset})
        self.mine.options = choices
        if self.mine.value not in choices.values():
            self.mine.value = next(iter(choices.values()), None)
        self.theirs.options = {"(Mine against itself)": "", **choices}
        self.comparison_file.options = {"(the loadouts above)": "", **{
            u.name: u.name for u in self.folder.of("comparison", ruleset)}}
        self._clear_loadouts()

    def _pack_units(self) -> list[str]:
        """The units to pick: an uploaded pack's first, then the bundled pack's, then each
        uploaded roster's and army list's (``Unit (list.rosz)``, kept in ``self.listed``)."""
        from odds.packs import for_file

        with self.folder.reading():
            names = list(for_file(self.ruleset.value, None, matchup.PAGE, None).entries())
        for pack in self.folder.of("pack", self.ruleset.value):
            names = pack.value + [n for n in names if n not in pack.value]
        self.listed = {f"{unit} ({upload.name})": (upload.value, i)
                       for kind in ("roster", "army list")
                       for upload in self.folder.of(kind, self.ruleset.value)
                       for i, unit in enumerate(upload.value.unit_names)}
        return names + list(self.listed)

    def _example(self) -> None:
        chosen = self.example.value
        upload = self.folder.uploads.get(chosen)
        self._set_base(upload.value if upload else load(chosen))

    def _pick(self) -> None:
        self.pick_error.visible = False
        attacker, defender = (self.listed.get(self.unit[side].value, self.unit[side].value)
                              for side in ("attacker", "defender"))
        if NONE in (attacker, defender):
            _show(self.pick_error, "pick a unit for each side")
            return
        packs = self.folder.of("pack", self.ruleset.value)
        try:
            with self.folder.reading():
                scenario = matchup.picked(self.ruleset.value, attacker, defender,
                                          packs[-1].path if packs else None, self.base)
        except ScenarioError as error:
            _show(self.pick_error, self.folder.shown(str(error)))
            return
        self._set_base(scenario)

    def _set_base(self, scenario) -> None:
        """A new matchup: its controls, the loadouts forgotten, the link updated."""
        self.base = scenario
        knobs = default_knobs(scenario)
        data = scenario.to_dict()
        self.controls = {k.path: _control(k) for k in knobs}
        self.errors = {k.path: _alert() for k in knobs}
        self.indexed = {k.path: matchup.indexed(k.path, data) for k in knobs}
        sections = []
        for heading in dict.fromkeys(k.heading for k in knobs):
            row = [pn.Column(self.controls[k.path], self.errors[k.path], width=190)
                   for k in knobs if k.heading == heading]
            sections += [pn.pane.Markdown(f"**{_escaped(heading)}**", margin=(10, 5, 0, 5)),
                         pn.FlexBox(*row)]
        self.knobs.objects = [pn.pane.Markdown(f"### {_escaped(scenario.name)}"), *sections]
        self._clear_loadouts()
        self.share.value = self._link(scenario)

    def _values(self) -> dict:
        return {path: _value(widget) for path, widget in self.controls.items()}

    def _scenario(self):
        """The matchup the controls describe (None, with the error shown under the control
        that caused it, when it is refused)."""
        for alert in self.errors.values():
            alert.visible = False
        self.run_error.visible = False
        try:
            with self.folder.reading():
                return matchup.changed(self.base, self._values())
        except ScenarioError as error:
            text = self.folder.shown(str(error))
            blamed = matchup.blamed(error, self.indexed)
            _show(self.errors[blamed] if blamed else self.run_error, text)
            self.status.object = "**Not run:** a value was refused (in red, under its control)."
            return None

    def _scenario_toml(self):
        scenario = self._scenario()
        return io.StringIO(matchup.toml(scenario if scenario is not None else self.base))

    def _link(self, scenario) -> str:
        location = pn.state.location
        code = matchup.link(scenario)
        if location is not None:
            location.update_query(m=code)
            address = location.href.split("?")[0] if location.href else ""
            return f"{address}?m={code}"
        return f"?m={code}"

    def _from_link(self, code: str) -> None:
        try:
            scenario = matchup.from_link(code)
        except ScenarioError as error:
            _show(self.pick_error, f"{error} (the bundled scenario is shown instead)")
            return
        self.ruleset.value = scenario.ruleset
        self._set_base(scenario)

    def _answer(self) -> None:
        scenario = self._scenario()
        if scenario is None:
            return
        self.share.value = self._link(scenario)
        trials, method = self.trials.value, self.method.value

        def work(watch):
            with self.folder.reading():
                result = simulate(scenario, trials=trials, method=method, progress=watch,
                                  quiet=True)
            return views.of_result(result)

        self._submit(work, self.result, self.run_error)

    # --- compare ---------------------------------------------------------------------------
    def _add_loadout(self) -> None:
        self.compare_error.visible = False
        name = self.loadout_name.value.strip()
        if not name or name in self.loadouts or name == matchup.AS_PICKED:
            _show(self.compare_error, f"Loadout name: give a new name (not {name!r})")
            return
        if self._scenario() is None:
            _show(self.compare_error, "a value of the Matchup tab is refused: see it there")
            return
        self.loadouts[name] = matchup.loadout(
            {k.path: _value(k) for k in default_knobs(self.base)}, self._values())
        self.loadout_name.value = f"loadout {len(self.loadouts) + 1}"
        self._list_loadouts()

    def _clear_loadouts(self) -> None:
        self.loadouts = {}
        self._list_loadouts()

    def _list_loadouts(self) -> None:
        lines = [f"- **{_escaped(name)}**: " + (", ".join(
            f"{_escaped(p)} = {_escaped(repr(v))}" for p, v in changes.items()) or
            "no change") for name, changes in self.loadouts.items()]
        self.loadout_list.object = "\n".join(lines) or "No loadouts yet."

    def _compare(self) -> None:
        from odds.analysis.compare import compare

        self.compare_error.visible = False
        uploaded = self.comparison_file.value
        method, wanted = self.method.value, self.trials.value
        if uploaded:
            base, variants = self.folder.uploads[uploaded].path, None
            cells = None
        elif not self.loadouts:
            _show(self.compare_error, "add a loadout first (or pick an uploaded comparison)")
            return
        else:
            base, variants = self.base, {matchup.AS_PICKED: {}, **self.loadouts}
            cells = len(variants)

        def work(watch):
            with self.folder.reading():
                count = cells or _comparison_cells(base)
                trials = matchup.trials_within(wanted, count)
                comparison = compare(base, variants, trials=trials, method=method,
                                     progress=watch, quiet=True)
            return views.of_comparison(comparison)

        self._submit(work, self.compared, self.compare_error)

    # --- round robin -----------------------------------------------------------------------
    def _round_robin(self) -> None:
        from odds.analysis.round_robin import roster

        self.robin_error.visible = False
        mine, theirs = (self._roster(v) for v in (self.mine.value, self.theirs.value))
        if mine is None:
            _show(self.robin_error, "Mine: pick a roster")
            return
        both, wanted, method = self.both_ways.value, self.trials.value, self.method.value

        def work(watch):
            with self.folder.reading():
                count = _robin_cells(mine, theirs, both)
                robin = roster(mine, theirs, both_ways=both, method=method, progress=watch,
                               trials=matchup.trials_within(wanted, count), quiet=True)
            return views.of_round_robin(robin)

        self._submit(work, self.robin, self.robin_error)

    def _roster(self, value):
        if not value:
            return None
        upload = self.folder.uploads.get(value)
        return upload.value if upload else value

    # --- uploads ---------------------------------------------------------------------------
    def _uploaded(self) -> None:
        self.upload_error.visible = False
        if self.upload.value is None:
            return
        try:
            upload = self.folder.add(self.upload.filename or "upload", self.upload.value)
        except ScenarioError as error:
            _show(self.upload_error, str(error))
            return
        if upload.ruleset != self.ruleset.value:
            self.ruleset.value = upload.ruleset  # refills every choice
        else:
            self._ruleset()
        if upload.kind == "scenario":
            self.example.value = upload.name
        # the list last: once a visitor sees the file listed, every choice already offers it
        self.upload_list.object = "\n".join(
            f"- {_escaped(u.name)}: {u.kind} ({u.ruleset})"
            for u in self.folder.uploads.values())

    # --- runs ------------------------------------------------------------------------------
    def _submit(self, work, shown: "_Shown", alert) -> None:
        if self.run is not None and not self.run.finished:
            _show(alert, "a run of this page is still going: wait for it or cancel it")
            return
        self.run, self.showing = self.runs.submit(work), (shown, alert)
        self.cancel.disabled = False
        self.progress.visible, self.progress.value = True, 0
        self.status.object = "Waiting for the runs of other pages..."

    def _poll(self) -> None:
        run = self.run
        if run is None or self.showing is None:
            return
        shown, alert = self.showing
        if not run.finished:
            ahead = self.runs.ahead(run)
            if run.state == "queued":
                self.status.object = f"Queued: {ahead} run(s) of other pages first."
            elif run.planned:
                self.progress.value = int(100 * run.played / run.planned)
                self.status.object = f"Playing: {run.played:,} of {run.planned:,} fights."
            else:
                self.progress.value = None  # an exact solve: no count to show
                self.status.object = "Working (compiling or solving)..."
            return
        self.showing, self.cancel.disabled, self.progress.visible = None, True, False
        if run.state == "done":
            shown.show(run.value)
            self.status.object = f"Done: {run.value.note}."
        elif run.state == "cancelled":
            self.status.object = "Cancelled."
        else:
            _show(alert, self.folder.shown(run.error))
            self.status.object = "**Not run:** see the error."


class _Shown:
    """Where an answer is shown: its tables, its charts and its downloads."""

    def __init__(self, stem: str):
        self.view = None
        self.html = pn.pane.HTML("", sizing_mode="stretch_width")
        self.png = pn.pane.PNG(None, visible=False)  # drawn at its own size
        self.csv = pn.widgets.FileDownload(label="Results (CSV)", filename=f"{stem}.csv",
                                           callback=lambda: io.StringIO(self.view.csv),
                                           disabled=True, button_type="light", width=160)
        self.chart = pn.widgets.FileDownload(label="Charts (PNG)", filename=f"{stem}.png",
                                             callback=lambda: io.BytesIO(self.view.png),
                                             disabled=True, button_type="light", width=160)
        self.downloads = (self.csv, self.chart)
        self.panes = pn.Column(self.html, self.png, sizing_mode="stretch_width")

    def show(self, view: views.View) -> None:
        self.view = view
        self.html.object = view.html
        self.png.object, self.png.visible = view.png, True
        self.csv.disabled = self.chart.disabled = False


def _comparison_cells(path: Path) -> int:
    from odds.analysis.comparison_file import load_comparison

    spec = load_comparison(path)
    return max(len(spec["variants"]), 1) * max(len(spec["opponents"]), 1)


def _robin_cells(mine, theirs, both: bool) -> int:
    from odds.analysis.roster_file import as_roster

    count = len(as_roster(mine).units)
    other = count if theirs is None else len(as_roster(theirs).units)
    return count * other * (2 if both else 1)


def _alert():
    return pn.pane.Alert("", alert_type="danger", visible=False, margin=(0, 5),
                         sizing_mode="stretch_width")


def _show(alert, text: str) -> None:
    alert.object, alert.visible = _escaped(text), True


def _escaped(text: str) -> str:
    """Text shown as itself in a Markdown pane."""
    return "".join("\\" + c if c in "\\`*_{}[]<>()#+-.!|~" else c for c in str(text))


def _control(knob):
    """The widget for one knob (:class:`odds.analysis.knobs.Knob`)."""
    common = {"name": knob.label, "width": 180}
    if knob.kind in ("whole", "number"):
        kind = pn.widgets.IntSlider if knob.kind == "whole" else pn.widgets.FloatSlider
        return kind(start=knob.lo, end=knob.hi, step=knob.step, value=knob.value, **common)
    if knob.kind == "typed":
        box = pn.widgets.IntInput if isinstance(knob.value, int) else pn.widgets.FloatInput
        return box(value=knob.value, **common)
    if knob.kind == "yes/no":
        return pn.widgets.Checkbox(value=knob.value, **common)
    if knob.kind == "choice":
        return pn.widgets.Select(options={_shown(v): v for v in knob.options},
                                 value=knob.value, **common)
    if len(set(knob.value)) < len(knob.value):  # a name twice: typed, as a multi-choice drops it
        return pn.widgets.TextInput(value=", ".join(knob.value), tags=["names"], **common)
    return pn.widgets.MultiChoice(options=list(dict.fromkeys([*knob.options, *knob.value])),
                                  value=list(knob.value), **common)


def _value(control):
    """A widget's (or a knob's) value as the scenario takes it."""
    value = control.value
    if "names" in getattr(control, "tags", ()):
        return [name.strip() for name in value.split(",") if name.strip()]
    return list(value) if isinstance(value, tuple) else value


def _shown(value) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) or "(none)"
    return str(value)
