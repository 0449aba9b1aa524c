"""Benchmark configuration: the matrix, budget, profiling and shapes, validated as typed."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Checkbox, Footer, Header, Input, Static

from perftui.domain.errors import InputError
from perftui.domain.forms.bench import (
    DEFAULTS,
    FIELDS,
    PRESETS,
    TARGETS_HINT,
    build_request,
    check_field,
    form_errors,
    form_from_request,
    long_warning,
    parse_targets,
)
from perftui.domain.forms.fields import FieldError, duration
from perftui.domain.records import BenchmarkRequest, Project
from perftui.domain.settings import BY_NAME, unused_note
from perftui.engines.capabilities import capabilities
from perftui.targets.registry import LOCAL
from perftui.tui.kit import format as fmt
from perftui.tui.kit.fit import fit_parts
from perftui.tui.kit.format import escape
from perftui.tui.kit.forms import OnOff, field_row
from perftui.tui.kit.inspection import InspectingScreen
from perftui.tui.kit.requests import last_request
from perftui.tui.kit.screen import one_line

if TYPE_CHECKING:
    from perftui.domain.model.model_info import ModelInfo


class BenchmarkConfigScreen(InspectingScreen):
    """The benchmark form of one project."""

    TITLE_TEXT = "Benchmark configuration"
    AUTO_FOCUS = "#f-batch"
    """Whenever the form is shown with nothing focused (opened in place of the new-project
    form, or back from a dialog), its first field takes the focus, not the scrolling box
    around the fields (Textual's default, which shows no focus)."""
    HELP = (
        "Lists (1,4,8) in the settings' fields (batch sizes, threads, ...) make a matrix: "
        "every combination is one run. Threads 'auto' is the engine's default. A run stops when "
        "both the time and the iteration minimum are reached; warm-up requests are not counted. "
        "The per-layer profile is a separate, shorter pass after each run. Repeat measures each "
        "configuration that many times, each in a fresh worker: 3 or more give intervals that "
        "hold the noise between runs, enough to compare. Dynamic inputs need "
        "a shape, e.g. input_ids[1,128] (the first dimension becomes the batch size). "
        "Each field says what is wrong as you type. Presets follow OpenVINO's latency and "
        "throughput tricks: batch 1 + LATENCY hint + sync, or bigger batches + THROUGHPUT "
        "hint + async requests. Targets runs the benchmark on several hosts at once "
        "(local,box: this machine and the target box), each host's runs in a project of its "
        "own (NAME@box)."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "run", "Run", id="run"),
        Binding("ctrl+l", "preset('latency')", "Latency preset", id="preset_latency"),
        Binding("ctrl+t", "preset('throughput')", "Throughput preset", id="preset_throughput"),
        Binding("f5", "defaults", "Defaults", id="defaults", show=False),
    ]

    def __init__(
        self, project: Project, values: dict[str, str] | None = None, profile: bool | None = None
    ) -> None:
        super().__init__()
        self.project = project
        self.capabilities = capabilities(project.engine)
        self.initial = dict(values) if values else None
        self.initial_profile = profile
        self.info: ModelInfo | None = None
        self.validating = False
        self.known: list[str] | None = None
        """This machine and the configured targets, once read (None: not checked yet)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="cfg-head")
        yield Static("Inputs: inspecting…", id="cfg-inputs", classes="dim")
        with VerticalScroll(id="cfg-form"):
            for spec in FIELDS:
                field = Input(
                    spec.default,
                    placeholder=spec.placeholder,
                    id=f"f-{spec.name}",
                    compact=True,
                    classes="field",
                )
                yield from field_row(spec.label, field, f"e-{spec.name}", id=f"row-{spec.name}")
                if spec.name == "warmup":
                    yield from field_row(
                        "Profile",
                        OnOff(id="profile", compact=True),
                        text="per-layer times, a separate pass (space toggles)",
                    )
            targets = Input(self.project.target, id="targets", compact=True, classes="field")
            yield from field_row("Targets", targets, "e-targets", id="row-targets")
        yield Static("", id="cfg-plan", classes="status-line")
        yield Footer(compact=True, show_command_palette=False)

    def on_resize(self) -> None:
        self._show_head()

    def _show_head(self) -> None:
        """The head on one line: name, engine/device, model file, as far as they fit."""
        p = self.project
        parts = [(p.name, 0), (fmt.model_name(p.model), 2), (f"{p.engine}/{p.device}", 1)]
        name, *rest = fit_parts(parts, (self.size.width or self.app.size.width) - 2)
        self.query_one("#cfg-head", Static).update(
            Content.assemble((name, "bold"), *(f"  {text}" for text in rest))
        )

    def on_mount(self) -> None:
        self._show_head()
        values, profile = self._initial_values()
        self.set_values(values)
        self.query_one("#profile", Checkbox).value = profile
        self.query_one("#f-batch", Input).focus()
        self.inspect_model(self.project.model)
        self._read_targets()

    def _initial_values(self) -> tuple[dict[str, str], bool]:
        """The given values, else those of the project's last benchmark, else the defaults."""
        if self.initial is not None:
            return {**DEFAULTS, **self.initial}, bool(self.initial_profile)
        request = last_request(self.store, self.project.name)
        if request is not None:
            return form_from_request(request), request.profile
        return dict(DEFAULTS), False

    # ------------------------------------------------------------------ values

    def values(self) -> dict[str, str]:
        return {spec.name: self.query_one(f"#f-{spec.name}", Input).value for spec in FIELDS}

    def set_values(self, values: dict[str, str]) -> None:
        for name, value in values.items():
            self.query_one(f"#f-{name}", Input).value = value
        self._check_all()

    def _note(self, name: str, text: str) -> None:
        note = self.query_one(f"#e-{name}", Static)
        reason = check_field(name, text, self.capabilities)
        note.set_class(reason is not None, "error")
        unused = unused_note(BY_NAME[name], self.capabilities) if name in BY_NAME else ""
        if reason is not None:
            note.update(escape(reason))
        elif unused:
            note.update(escape(unused))
        else:
            spec = next(s for s in FIELDS if s.name == name)
            note.update(escape(self._shapes_hint(spec.name) or spec.help))

    def _shapes_hint(self, name: str) -> str:
        if name != "shapes" or self.info is None:
            return ""
        dynamic = [s for s in self.info.inputs if s.dynamic_dims]
        if not dynamic:
            return "the model's shapes are static"
        examples = []
        for spec in dynamic:
            dims = [
                1 if i == 0 else (d if isinstance(d, int) and d > 0 else 128)
                for i, d in enumerate(spec.shape)
            ]
            examples.append(f"{spec.name}{fmt.shape(dims)}")
        needed = any(i > 0 for s in dynamic for i in s.dynamic_dims)
        return ("needed, e.g. " if needed else "optional, e.g. ") + ",".join(examples)

    def _hosts(self) -> list[str]:
        """The Targets field's hosts; InputError for a slip or an unknown name."""
        return parse_targets(self.query_one("#targets", Input).value, self.known)

    def _note_targets(self) -> None:
        note = self.query_one("#e-targets", Static)
        try:
            self._hosts()
        except InputError as error:
            note.set_class(True, "error")
            note.update(escape(one_line(error)))
        else:
            note.set_class(False, "error")
            names = self.known or []
            listed = f" ({', '.join(names)})" if len(names) > 1 else ""
            note.update(escape(TARGETS_HINT + listed))

    @work(thread=True, exit_on_error=False, name="targets", group="targets")
    def _read_targets(self) -> None:
        try:
            names = self.perftui.services.targets(self.perftui.db_path)
        except InputError as error:  # an unreadable targets file: said by the field's note
            self.app.call_from_thread(self._targets_unreadable, one_line(error))
        else:
            self.app.call_from_thread(self._targets_read, [LOCAL, *names])

    def _targets_read(self, known: list[str]) -> None:
        self.known = known
        self._note_targets()
        self._update_plan(self.values())

    def _targets_unreadable(self, error: str) -> None:
        note = self.query_one("#e-targets", Static)
        note.set_class(True, "error")
        note.update(escape(error))

    def _check_all(self) -> None:
        values = self.values()
        for name, value in values.items():
            self._note(name, value)
        self._note_targets()
        self._update_plan(values)

    def _update_plan(self, values: dict[str, str]) -> None:
        plan = self.query_one("#cfg-plan", Static)
        wrong = len(form_errors(values, self.capabilities))
        try:
            hosts = len(self._hosts())
        except InputError:
            hosts, wrong = 1, wrong + 1
        if wrong:
            plan.set_class(True, "error")
            plan.update(f"{wrong} field(s) to fix before running (ctrl+r runs)")
            return
        plan.set_class(False, "error")
        request = build_request(self.project, values, capabilities=self.capabilities)
        runs = len(request.configs)
        seconds = request.budget.time_s * runs * request.repeat
        count = f"{runs} run(s)" + (f" x {request.repeat} repeats" if request.repeat > 1 else "")
        profile = "with" if self.query_one("#profile", Checkbox).value else "no"
        long = long_warning(request)
        measured = f"[b]warning: {long}[/]" if long else f"at least {duration(seconds)} measured"
        where = f" on each of {hosts} hosts at once" if hosts > 1 else ""
        plan.update(f"[b]{count}[/]{where}, {measured}, {profile} profile  ·  ctrl+r runs")

    @on(Input.Changed, ".field")
    def _field_changed(self, event: Input.Changed) -> None:
        if event.input.id and event.input.id.startswith("f-"):
            self._note(event.input.id[2:], event.value)
        elif event.input.id == "targets":
            self._note_targets()
        self._update_plan(self.values())

    @on(Checkbox.Changed, "#profile")
    def _profile_changed(self, event: Checkbox.Changed) -> None:
        self._update_plan(self.values())

    @on(Input.Submitted, ".field")
    def _field_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    # ------------------------------------------------------------------ model inputs

    def inspected(self, path: str, info: ModelInfo) -> None:
        self.info = info
        parts = []
        for spec in info.inputs:
            parts.append(f"{escape(spec.name)} {spec.dtype} {escape(fmt.shape(spec.shape))}")
        dynamic = any(i > 0 for s in info.inputs for i in s.dynamic_dims)
        text = "Inputs: " + ", ".join(parts)
        if dynamic:
            text += "  [b]dynamic: give Shapes[/]"
        self.query_one("#cfg-inputs", Static).update(text)
        self._note("shapes", self.query_one("#f-shapes", Input).value)

    # ------------------------------------------------------------------ actions

    def action_preset(self, name: str) -> None:
        self.set_values(PRESETS[name])
        summary = ", ".join(f"{k} {v}" for k, v in PRESETS[name].items())
        self.app.notify(f"{name.capitalize()} preset: {summary}", timeout=4)

    def action_defaults(self) -> None:
        self.set_values(dict(DEFAULTS))
        self.query_one("#profile", Checkbox).value = False

    def action_run(self) -> None:
        if self.validating:
            return
        profile = self.query_one("#profile", Checkbox).value
        try:
            request = build_request(
                self.project, self.values(), capabilities=self.capabilities, profile=profile
            )
        except FieldError as error:
            self._note(error.field, self.values()[error.field])
            self.query_one(f"#f-{error.field}", Input).focus()
            self.app.notify(one_line(error), title="Fix this field", severity="error")
            return
        try:
            hosts = self._hosts()
        except InputError as error:
            self.query_one("#targets", Input).focus()
            self.app.notify(one_line(error), title="Fix Targets", severity="error")
            return
        self.validating = True
        plan = self.query_one("#cfg-plan", Static)
        plan.set_class(False, "error")
        plan.update("Checking the model, engine, device and shapes…")
        self._validate(request, hosts)

    @work(thread=True, exit_on_error=False, name="validate", group="validate", exclusive=True)
    def _validate(self, request: BenchmarkRequest, hosts: list[str]) -> None:
        self.perftui.services.validate(request)
        self.app.call_from_thread(self._validated, request, hosts)

    def _validated(self, request: BenchmarkRequest, hosts: list[str]) -> None:
        self.validating = False
        self._update_plan(self.values())
        if hosts == [self.project.target]:
            self.perftui.run_benchmarks([request], validated=True)
        else:  # several hosts at once, each its own project (perftui.targets.fleet)
            self.perftui.run_fleet(request, hosts)

    def inspect_failed(self, error: BaseException) -> None:
        self.query_one("#cfg-inputs", Static).update(
            f"Inputs: cannot inspect the model: {escape(one_line(error))}"
        )

    def validate_failed(self, error: BaseException) -> None:
        self.validating = False
        message = one_line(error)
        plan = self.query_one("#cfg-plan", Static)
        plan.set_class(True, "error")
        plan.update(escape(message))
        if isinstance(error, InputError) and ("shape" in message or "dynamic" in message):
            note = self.query_one("#e-shapes", Static)
            note.set_class(True, "error")
            note.update(escape(message))
            self.query_one("#f-shapes", Input).focus()
        self.app.notify(message, title="Cannot run", severity="error", timeout=8)
