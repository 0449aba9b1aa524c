"""Optimize (INT8): the options dialog and the progress/result box of `perftui optimize`.

The quantization runs in a child process (`Services.optimize`, by default
perftui.optimize.runner.OptimizeProcess) read by a thread worker: progress lines come as
messages that replace each other, the end comes through `call_from_thread` so it is reported
even when the box has been closed. The child writes the new project to the store itself; the
screens below reload when it is done.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, ProgressBar, Select, Static
from textual.worker import Worker, WorkerState

from perftui.domain.errors import StoreError
from perftui.domain.records import Project
from perftui.optimize.notes import Optimization, optimization_of
from perftui.optimize.runner import (
    DEFAULT_RANDOM_SAMPLES,
    FORM_FIELDS,
    Finished,
    FormError,
    OptimizeOptions,
    OptimizeWarning,
    Step,
    check_field,
    form_from_options,
    options_from_form,
    suggest_name,
)
from perftui.tui.kit import format as fmt
from perftui.tui.kit.format import escape
from perftui.tui.screens.base import one_line
from perftui.tui.screens.dialogs import ConfirmScreen

if TYPE_CHECKING:
    from perftui.optimize.accuracy import AccuracyReport
    from perftui.tui.app import PerftuiApp
    from perftui.tui.services import Optimizer

PHASES = {
    "static": ("preparing", "calibrating", "quantizing", "checking accuracy", "saving"),
    "dynamic": ("preparing", "quantizing", "checking accuracy", "saving"),
}
METHOD_NOTES = {
    "static": "QDQ; activations calibrated on the data",
    "dynamic": "int8 weights; no calibration",
}
RANDOM_NOTE = "empty: seeded random data (accuracy = a consistency check)"
RETRY_KEYS = "[b]e[/] edit and retry, [b]esc[/] close"
SAMPLES_NOTE = {
    "folder": "empty: all of the folder",
    "random": f"empty: {DEFAULT_RANDOM_SAMPLES} random samples",
}


# --------------------------------------------------------------------------- text


def accuracy_lines(report: AccuracyReport, indent: str) -> list[str]:
    """The accuracy figures as markup lines: the headline, then one line per output if many."""
    inputs = report.inputs or "test"
    lines = [
        f"on {report.samples} {escape(inputs)} inputs: max |diff| {report.max_abs_diff:.3g}"
        f"   mean |diff| {report.mean_abs_diff:.3g}",
    ]
    second = f"{indent}cosine {report.cosine_similarity:.4f}"
    classifier = [o for o in report.outputs if o.top1_agreement is not None]
    if classifier:
        worst = min(classifier, key=lambda o: o.top1_agreement or 0.0)
        second += (
            f"   top-1 agreement {100 * (worst.top1_agreement or 0.0):.0f}%"
            f" ({worst.top1_matches}/{worst.top1_rows})"
        )
    lines.append(second)
    if len(report.outputs) > 1:
        for out in report.outputs:
            top1 = "" if out.top1_agreement is None else f"  top-1 {100 * out.top1_agreement:.0f}%"
            lines.append(
                f"{indent}{escape(out.name)}: max {out.max_abs_diff:.3g}  mean "
                f"{out.mean_abs_diff:.3g}  cos {out.cosine_similarity:.4f}{top1}"
            )
    return lines


def optimization_lines(opt: Optimization, width: int = 10) -> list[str]:
    """The Summary's lines about how an INT8 project was made (labels padded to `width`)."""
    pad = " " * width

    def label(text: str) -> str:
        return f"[b]{text}[/]" + " " * max(1, width - len(text))

    made = f"{opt.method}, {fmt.when(opt.created_at)}" if opt.created_at else opt.method
    lines = [f"{label('INT8 of')}{escape(opt.source or fmt.DASH)}  [dim]({escape(made)})[/]"]
    data = escape(opt.calibration_text())
    if opt.method == "dynamic":
        data = f"no calibration (dynamic); checked on {data}"
    else:
        data = f"calibrated on {data}"
    lines.append(f"{label('Data')}{data}")
    if opt.random:
        lines.append(f"{pad}[b]warning:[/] random data, so the figures below are only a")
        lines.append(f"{pad}consistency check, not the accuracy on real data")
    if opt.accuracy is not None:
        first, *rest = accuracy_lines(opt.accuracy, pad)
        lines.append(f"{label('Accuracy')}{first}")
        lines += rest
    else:
        lines.append(f"{label('Accuracy')}[dim]not recorded[/]")
    return lines


# --------------------------------------------------------------------------- entry point


def open_optimize(app: PerftuiApp, name: str, initial: OptimizeOptions | None = None) -> None:
    """Ask how to optimize project `name`, then run it in the progress box."""
    if app.store is None:
        return
    try:
        project = app.store.get_project(name)
        existing = {p.name for p in app.store.projects()}
    except StoreError as error:
        app.notify(one_line(error), title="Optimize", severity="error")
        return
    if project is None:
        app.notify(f"no project named '{name}'", severity="warning")
        return
    if project.source_project and optimization_of(project) is not None:
        app.notify(
            f"{name} is already the INT8 version of {project.source_project}; "
            f"optimize {project.source_project} instead.",
            title="Optimize",
            severity="warning",
        )
        return

    def start(options: OptimizeOptions | None) -> None:
        if options is not None:
            app.push_screen(OptimizeScreen(project, options))

    app.push_screen(OptimizeDialog(project, existing, initial), start)


def refresh_views(app: PerftuiApp, select: str | None = None) -> None:
    """Reload the projects table (cursor on `select`) and any open project screen."""
    from perftui.tui.screens.detail import ProjectDetailScreen
    from perftui.tui.screens.projects import ProjectsScreen

    for screen in app.screen_stack:
        if isinstance(screen, ProjectsScreen):
            screen.refresh_projects(select=select)
        elif isinstance(screen, ProjectDetailScreen):
            screen.load()


# --------------------------------------------------------------------------- the dialog


class OptimizeDialog(ModalScreen[OptimizeOptions | None]):
    """Method, calibration folder, samples, shapes and name of the INT8 project."""

    HELP = (
        "Makes the INT8 version of this project with ONNX Runtime quantization, in a separate "
        "process, and checks how far its outputs are from the FP32 model's. Static (QDQ) "
        "calibrates activation ranges on the calibration folder's samples: .npy files (one "
        "per sample) or .npz files / sub-folders (one array per input name). Without a "
        "folder it uses seeded random data, and the accuracy figures are then only a "
        "consistency check. Dynamic quantizes weights only and needs no calibration. Shapes "
        "fix the dynamic dimensions of the inputs, e.g. input_ids[1,128]. The new project "
        "gets the same engine and device."
    )
    TITLE_TEXT = "Optimize (INT8)"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "start", "Start", id="start"),
        Binding("escape", "cancel", "Cancel", id="cancel"),
        Binding("f1", "app.help", "Help", id="help"),
    ]

    def __init__(
        self, project: Project, existing: set[str], initial: OptimizeOptions | None = None
    ) -> None:
        super().__init__(classes="dialog")
        self.project = project
        self.existing = existing
        self.initial = initial
        self.suggested = ""
        """The name last filled in for the method; a name the person typed is kept."""

    def compose(self) -> ComposeResult:
        p = self.project
        values = self._initial_values()
        with Vertical(classes="dialog-box", id="opt-form"):
            yield Label(f"Optimize {escape(p.name)} to INT8", classes="dialog-title")
            yield Static(
                f"ONNX Runtime quantization of {escape(fmt.model_name(p.model))}; the result "
                f"is a new project on {p.engine}/{p.device}.",
                classes="dialog-detail",
            )
            with Horizontal(classes="form-row"):
                yield Label("Method", classes="form-label")
                yield Select(
                    [("static", "static"), ("dynamic", "dynamic")],
                    value=values["method"],
                    allow_blank=False,
                    id="o-method",
                    compact=True,
                )
                yield Static("", id="n-method", classes="field-note")
            with Horizontal(classes="form-row"):
                yield Label("Calibration", classes="form-label")
                yield Input(
                    values["calibration"],
                    placeholder="folder of .npy/.npz samples",
                    id="o-calibration",
                    compact=True,
                    classes="opt-field wide",
                )
            with Horizontal(classes="form-row"):
                yield Label("", classes="form-label")
                yield Static("", id="n-calibration", classes="field-note")
            with Horizontal(classes="form-row"):
                yield Label("Samples", classes="form-label")
                yield Input(
                    values["samples"],
                    placeholder="default",
                    id="o-samples",
                    compact=True,
                    classes="opt-field",
                )
                yield Static("", id="n-samples", classes="field-note")
            with Horizontal(classes="form-row"):
                yield Label("Shapes", classes="form-label")
                yield Input(
                    values["shapes"],
                    placeholder="none",
                    id="o-shapes",
                    compact=True,
                    classes="opt-field",
                )
                yield Static("", id="n-shapes", classes="field-note")
            with Horizontal(classes="form-row"):
                yield Label("Name", classes="form-label")
                yield Input(values["name"], id="o-name", compact=True, classes="opt-field wide")
            with Horizontal(classes="form-row"):
                yield Label("", classes="form-label")
                yield Static("", id="n-name", classes="field-note")
        yield Footer(compact=True, show_command_palette=False)

    def _initial_values(self) -> dict[str, str]:
        if self.initial is not None:
            return form_from_options(self.initial)
        method = "static"
        self.suggested = suggest_name(self.project.name, method, self.existing)
        return {
            "method": method,
            "calibration": "",
            "samples": "",
            "shapes": self._last_shapes(),
            "name": self.suggested,
        }

    def _last_shapes(self) -> str:
        """The shapes of the project's last benchmark (a dynamic model needs them again)."""
        from perftui.domain.benchform import form_from_request
        from perftui.domain.records import BenchmarkRequest

        app: PerftuiApp = self.app  # type: ignore[assignment]
        try:
            stored = app.store.benchmarks(self.project.name) if app.store else []
            if stored:
                return form_from_request(BenchmarkRequest.from_dict(stored[-1]))["shapes"]
        except (StoreError, KeyError, TypeError, ValueError):
            pass
        return ""

    def on_mount(self) -> None:
        for name in FORM_FIELDS:
            self._note(name)
        self.query_one("#o-calibration", Input).focus()

    # ------------------------------------------------------------------ values

    def values(self) -> dict[str, str]:
        method = self.query_one("#o-method", Select).value
        values = {"method": method if isinstance(method, str) else "static"}
        for name in FORM_FIELDS[1:]:
            values[name] = self.query_one(f"#o-{name}", Input).value
        return values

    def _note(self, name: str) -> str | None:
        """Check one field and write its note; the reason it cannot be used, or None."""
        values = self.values()
        reason = check_field(name, values[name], self.existing)
        note = self.query_one(f"#n-{name}", Static)
        note.set_class(reason is not None, "error")
        if reason is not None:
            note.update(escape(reason))
            return reason
        folder = bool(values["calibration"].strip())
        if name == "method":
            note.update(METHOD_NOTES[values["method"]])
        elif name == "calibration":
            if folder:
                use = "calibration" if values["method"] == "static" else "accuracy inputs only"
                note.update(f"folder found ({use}); its files are checked when it runs")
            else:
                note.update(RANDOM_NOTE)
        elif name == "samples":
            note.update(SAMPLES_NOTE["folder" if folder else "random"])
        elif name == "shapes":
            note.update("dynamic inputs, e.g. input_ids[1,128]")
        elif name == "name":
            note.update("the new project's name")
        return None

    @on(Select.Changed, "#o-method")
    def _method_changed(self, event: Select.Changed) -> None:
        name = self.query_one("#o-name", Input)
        if isinstance(event.value, str) and name.value.strip() in ("", self.suggested):
            self.suggested = suggest_name(self.project.name, event.value, self.existing)
            name.value = self.suggested
        for name in ("method", "calibration"):
            self._note(name)

    @on(Input.Changed, ".opt-field")
    def _field_changed(self, event: Input.Changed) -> None:
        name = (event.input.id or "o-")[2:]
        self._note(name)
        if name == "calibration":
            self._note("samples")

    @on(Input.Submitted, ".opt-field")
    def _field_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_start()

    # ------------------------------------------------------------------ actions

    def action_start(self) -> None:
        try:
            options = options_from_form(self.project.name, self.values(), self.existing)
        except FormError as error:
            self._note(error.field)
            self.query_one(f"#o-{error.field}").focus()
            self.app.bell()
            return
        self.dismiss(options)

    def action_cancel(self) -> None:
        self.dismiss(None)


# --------------------------------------------------------------------------- the progress box


class OptimizeStep(Message):
    """The latest progress line; a newer one replaces it if the UI has not shown it yet."""

    def __init__(self, step: Step) -> None:
        super().__init__()
        self.step = step

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, OptimizeStep)


class OptimizeWarned(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class OptimizeScreen(ModalScreen[str | None]):
    """`perftui optimize` in progress: its steps, a cancel key, then the result or the error.

    Dismissed with the new project's name when it was made, else None."""

    HELP = (
        "The quantization runs in a separate process; this box follows its steps. Cancel (x) "
        "stops it and nothing is kept (x again stops it at once). When it is done the new "
        "project is in the projects table with its accuracy figures: b opens its benchmark "
        "configuration (the settings of the FP32 project's last benchmark, with the "
        "per-layer profile on, ready to compare), o opens it. After an error, e edits the "
        "options and tries again."
    )
    TITLE_TEXT = "Optimize (INT8)"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "cancel", "Cancel", id="cancel"),
        Binding("b", "benchmark", "Bench it", id="benchmark"),
        Binding("o", "open", "Open it", id="open"),
        Binding("e", "edit", "Edit and retry", id="edit"),
        Binding("escape", "back", "Close", id="back"),
        Binding("f1", "app.help", "Help", id="help"),
    ]

    def __init__(self, project: Project, options: OptimizeOptions) -> None:
        super().__init__(classes="dialog")
        self.project = project
        self.options = options
        self.phases: list[str] = list(PHASES.get(options.method, PHASES["static"]))
        self.seen: dict[str, str] = {}
        self.current = ""
        self.warning = ""
        self.running = True
        self.cancel_requested = False
        self.outcome: Finished | None = None
        self._process: Optimizer | None = None
        self._lock = threading.Lock()
        self._closed = False

    @property
    def perftui(self) -> PerftuiApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        o = self.options
        target = o.name or suggest_name(self.project.name, o.method)
        if o.calibration:
            data = f"calibration folder {o.calibration}"
        else:
            data = f"{o.samples or DEFAULT_RANDOM_SAMPLES} seeded random samples"
        if o.samples and o.calibration:
            data += f" (first {o.samples})"
        with Vertical(classes="dialog-box", id="opt-box"):
            yield Label(
                f"Optimizing {escape(self.project.name)} → {escape(target)}",
                classes="dialog-title",
                id="opt-title",
            )
            yield Static(
                f"{o.method} INT8 · {escape(data)} · {self.project.engine}/{self.project.device}",
                id="opt-what",
            )
            yield Static("", id="opt-steps")
            yield ProgressBar(total=100, show_eta=False, id="opt-progress")
            yield Static("", id="opt-warning")
            yield Static("starting…", id="opt-status", classes="status-line")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#opt-warning").display = False
        self._draw_steps()
        self._run()

    # ------------------------------------------------------------------ the worker

    @work(thread=True, exit_on_error=False, name="optimize", group="optimize")
    def _run(self) -> None:
        app = self.perftui  # kept: a closed box no longer reaches the app through its parents
        process: Optimizer = app.services.optimize(self.options, app.db_path)
        with self._lock:
            self._process = process
            if self.cancel_requested:
                process.cancel()
        ended: Finished | None = None
        for event in process.events():
            if isinstance(event, Step):
                self.post_message(OptimizeStep(event))
            elif isinstance(event, OptimizeWarning):
                self.post_message(OptimizeWarned(event.text))
            elif isinstance(event, Finished):
                ended = event
        if ended is None:
            ended = Finished("error", -1, error="the optimize process ended without a result")
        app.call_from_thread(self._finished, ended, app)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name == "optimize" and event.state == WorkerState.ERROR:
            error = event.worker.error
            text = one_line(error) if error is not None else "the optimize process failed"
            self._finished(Finished("error", -1, error=text))

    # ------------------------------------------------------------------ drawing

    def _draw_steps(self) -> None:
        lines = []
        at = self.phases.index(self.current) if self.current in self.phases else -1
        failed = self.outcome is not None and self.outcome.status != "ok"
        for n, phase in enumerate(self.phases):
            text = escape(self.seen.get(phase, phase))
            if n < at or (self.outcome is not None and not failed and n <= at):
                lines.append(f"✓ {text}")
            elif n == at:
                mark = "✗" if failed else "▶"
                lines.append(f"[b]{mark} {text}[/]")
            else:
                lines.append(f"[dim]· {text}[/]")
        self.query_one("#opt-steps", Static).update("\n".join(lines))

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#opt-status", Static)
        status.set_class(error, "error")
        status.update(text)

    @on(OptimizeStep)
    def _step(self, message: OptimizeStep) -> None:
        if self.outcome is not None:
            return
        step = message.step
        if step.phase not in self.phases:
            self.phases.insert(max(0, len(self.phases) - 1), step.phase)
        self.current = step.phase
        self.seen[step.phase] = step.text
        at = self.phases.index(step.phase)
        share = (at + (step.fraction or 0.0)) / len(self.phases)
        self.query_one("#opt-progress", ProgressBar).update(progress=round(100 * share))
        self._draw_steps()
        if not self.cancel_requested:
            self._status(f"{escape(step.text)}…")

    @on(OptimizeWarned)
    def _warned(self, message: OptimizeWarned) -> None:
        self.warning = message.text
        warning = self.query_one("#opt-warning", Static)
        warning.update(f"[b]warning:[/] {escape(message.text)}")
        warning.display = True

    def _finished(self, outcome: Finished, app: PerftuiApp | None = None) -> None:
        """The child is done (called on the UI thread, also after the box was closed)."""
        if self.outcome is not None:
            return
        app = app or self.perftui
        self.outcome = outcome
        self.running = False
        name = outcome.project
        if outcome.status == "ok" and name:
            refresh_views(app, select=name)
            late = " (the cancel came too late)" if outcome.cancel_requested else ""
            app.notify(
                f"Made {name}, the {self.options.method} INT8 of {self.project.name}{late}."
                + ("" if self._closed else " Press b to benchmark it."),
                title="Optimize",
            )
        elif self._closed and outcome.status == "cancelled":
            app.notify("Optimization cancelled; nothing was kept.", title="Optimize")
        elif self._closed:  # else the box shows it
            app.notify(
                outcome.error or "the optimize process failed",
                title=f"Cannot optimize {self.project.name}",
                severity="error",
                timeout=10,
            )
        if self._closed:
            return
        self._draw_result(outcome)
        self.refresh_bindings()

    def _draw_result(self, outcome: Finished) -> None:
        progress = self.query_one("#opt-progress", ProgressBar)
        if outcome.status != "ok" or not outcome.result:
            self._draw_steps()
            if outcome.status == "cancelled":
                self._status(f"Cancelled: nothing was kept.  {RETRY_KEYS}")
            else:
                self._status(f"{escape(outcome.error or 'failed')}\n{RETRY_KEYS}", error=True)
            return
        from perftui.optimize.accuracy import AccuracyReport

        progress.update(progress=100)
        progress.display = False
        self.query_one("#opt-steps").add_class("done")
        result: dict[str, Any] = outcome.result
        name = escape(str(result.get("project")))
        self.query_one("#opt-title", Label).update(
            f"Made {name}: INT8 of {escape(self.project.name)}"
        )
        lines = [f"[b]Model[/]     {escape(fmt.short_path(str(result.get('model', ''))))}"]
        try:
            report = AccuracyReport.from_dict(result.get("accuracy") or {})
        except (KeyError, TypeError, ValueError):
            report = None
        if report is not None and report.outputs:
            first, *rest = accuracy_lines(report, " " * 10)
            lines += [f"[b]Accuracy[/]  {first}", *rest]
        self.query_one("#opt-steps", Static).update("\n".join(lines))
        late = "The cancel came too late; it was kept. " if outcome.cancel_requested else ""
        self._status(
            f"{late}Saved. [b]b[/] benchmark it, [b]o[/] open it, [b]esc[/] close",
        )

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        ok = self.outcome is not None and self.outcome.status == "ok"
        if action == "cancel":
            return self.running
        if action in ("benchmark", "open"):
            return ok
        if action == "edit":
            return self.outcome is not None and not ok
        return True

    def action_cancel(self) -> None:
        if not self.running:
            return
        with self._lock:
            process = self._process
            again = self.cancel_requested
            self.cancel_requested = True
        if again:
            if process is not None:
                process.kill()
            self._status("stopping at once…")
            return
        if process is not None:
            process.cancel()
        self._status("cancelling… nothing will be kept (x again stops it at once)")

    def action_back(self) -> None:
        if not self.running:
            self.dismiss(self.outcome.project if self.outcome else None)
            return

        def answer(yes: bool | None) -> None:
            if yes and self.running:
                self._closed = True  # the end is told by a notification
                self.action_cancel()
                self.dismiss(None)

        self.app.push_screen(
            ConfirmScreen(
                "Stop optimizing and close?",
                "The quantization process is stopped; nothing is kept.",
            ),
            answer,
        )

    def _new_project(self) -> Project | None:
        name = self.outcome.project if self.outcome else None
        try:
            return self.perftui.store.get_project(name) if name and self.perftui.store else None
        except StoreError as error:
            self.app.notify(one_line(error), severity="error")
            return None

    def action_benchmark(self) -> None:
        project = self._new_project()
        if project is None:
            return
        from perftui.tui.screens.configure import BenchmarkConfigScreen

        values = benchmark_values(self.perftui, self.project.name, self.options)
        self.dismiss(project.name)
        self.app.push_screen(BenchmarkConfigScreen(project, values, profile=True))

    def action_open(self) -> None:
        project = self._new_project()
        if project is None:
            return
        self.dismiss(project.name)
        self.perftui.open_project(project.name)

    def action_edit(self) -> None:
        if self.running:
            return
        self.dismiss(None)
        open_optimize(self.perftui, self.project.name, self.options)

    def on_unmount(self) -> None:
        self._closed = True
        with self._lock:
            self.cancel_requested = self.cancel_requested or self.running
            process = self._process if self.running else None
        if process is not None:
            process.cancel()


def benchmark_values(app: PerftuiApp, source: str, options: OptimizeOptions) -> dict[str, str]:
    """The benchmark form for the INT8 project: the source's last benchmark settings (so the
    two compare point for point), else the defaults; the optimize shapes if it had none."""
    from perftui.domain.benchform import DEFAULTS, form_from_request
    from perftui.domain.records import BenchmarkRequest

    values = dict(DEFAULTS)
    try:
        stored = app.store.benchmarks(source) if app.store else []
        if stored:
            values = form_from_request(BenchmarkRequest.from_dict(stored[-1]))
    except (StoreError, KeyError, TypeError, ValueError):
        pass
    if not values.get("shapes") and options.shapes:
        values["shapes"] = ",".join(options.shapes)
    return values
