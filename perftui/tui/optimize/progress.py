"""Optimize (INT8): the progress and result box of `perftui optimize`.

The quantization runs in a child process (`Services.optimize`, by default
perftui.optimize.runner.OptimizeProcess), followed as perftui.tui.kit.follower follows
one: progress lines come as messages that replace each other, and the end is reported even
when the box has been closed. The runner stores the new project the child hands back (this
process is the one writer); the app reloads the screens below when it is done.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, ProgressBar, Static

from perftui.domain.errors import StoreError
from perftui.domain.forms.bench import DEFAULTS, form_from_request
from perftui.domain.records import Project
from perftui.optimize.form import DEFAULT_RANDOM_SAMPLES, suggest_name
from perftui.optimize.runner import Finished, OptimizeOptions, OptimizeWarning, Step
from perftui.tui.kit import format as fmt
from perftui.tui.kit.follower import FollowingScreen, Latest
from perftui.tui.kit.format import escape
from perftui.tui.kit.optimization import accuracy_lines
from perftui.tui.kit.requests import last_request
from perftui.tui.kit.screen import one_line

if TYPE_CHECKING:
    from perftui.store import Store
    from perftui.tui.app import PerftuiApp

PHASES = {
    "static": ("preparing", "calibrating", "quantizing", "checking accuracy", "saving"),
    "dynamic": ("preparing", "quantizing", "checking accuracy", "saving"),
}
RETRY_KEYS = "[b]e[/] edit and retry, [b]esc[/] close"


class OptimizeStep(Latest):
    """The latest progress line; a newer one replaces it if the UI has not shown it yet."""

    def __init__(self, step: Step) -> None:
        super().__init__()
        self.step = step


class OptimizeWarned(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class OptimizeScreen(FollowingScreen[Finished], ModalScreen[str | None]):
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
    LEAVE_QUESTION = (
        "Stop optimizing and close?",
        "The quantization process is stopped; nothing is kept.",
    )

    def __init__(self, project: Project, options: OptimizeOptions) -> None:
        super().__init__(classes="dialog")
        self.project = project
        self.options = options
        self.phases: list[str] = list(PHASES.get(options.method, PHASES["static"]))
        self.seen: dict[str, str] = {}
        self.current = ""
        self.warning = ""
        self.outcome: Finished | None = None

    @property
    def perftui(self) -> PerftuiApp:
        return cast("PerftuiApp", self.app)

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
        self.follow()

    # ------------------------------------------------------------------ the worker

    def run_child(self) -> Finished:
        app = self.perftui
        process = app.services.optimize(self.options, app.db_path)
        self.attach_child(process)
        ended: Finished | None = None
        for event in process.events():
            if isinstance(event, Step):
                self.post_message(OptimizeStep(event))
            elif isinstance(event, OptimizeWarning):
                self.post_message(OptimizeWarned(event.text))
            elif isinstance(event, Finished):
                ended = event
        return ended or Finished("error", -1, error="the optimize process ended without a result")

    def child_failed(self, error: Exception) -> Finished:
        return Finished("error", -1, error=one_line(error))

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
        warning.update(f"[b]warning:[/] {escape(fmt.said(message.text))}")
        warning.display = True

    def child_ended(self, outcome: Finished, app: App[Any]) -> None:
        """Says what came of it: in the box, or in a notification once the box is closed."""
        self.outcome = outcome
        name = outcome.project
        if outcome.status == "ok" and name:
            cast("PerftuiApp", app).projects_changed(select=name)
            late = " (the cancel came too late)" if outcome.cancel_requested else ""
            app.notify(
                f"Made {name}, the {self.options.method} INT8 of {self.project.name}{late}."
                + ("" if self.closed else " Press b to benchmark it."),
                title="Optimize",
            )
        elif self.closed and outcome.status == "cancelled":
            app.notify("Optimization cancelled; nothing was kept.", title="Optimize")
        elif self.closed:  # else the box shows it
            app.notify(
                fmt.said(outcome.error or "the optimize process failed"),
                title=f"Cannot optimize {self.project.name}",
                severity="error",
                timeout=10,
            )
        if self.closed:
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
                error = fmt.said(outcome.error or "failed")
                self._status(f"{escape(error)}\n{RETRY_KEYS}", error=True)
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
        if self.stop_child(kill_if_asked_before=True):
            self._status("stopping at once…")
        else:
            self._status("cancelling… nothing will be kept (x again stops it at once)")

    def leave(self) -> None:
        self.dismiss(self.outcome.project if self.outcome else None)

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
        made = self.outcome.result if self.outcome and self.outcome.result else {}
        values = benchmark_values(
            self.perftui.store, self.project.name, self.options, str(made.get("shapes") or "")
        )
        self.dismiss(project.name)
        self.perftui.configure_benchmark(project.name, values, profile=True)

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
        self.perftui.optimize_project(self.project.name, self.options)


def benchmark_values(
    store: Store | None, source: str, options: OptimizeOptions, int8_shapes: str = ""
) -> dict[str, str]:
    """The benchmark form for the INT8 project: the source's last benchmark settings (so the
    two compare point for point), else the defaults; the optimize shapes if it had none.
    `int8_shapes`, the shapes optimize says the INT8 model takes, win (an OpenVINO IR keeps
    no dimension names, so `seq=128` becomes `input_ids[1,128]`)."""
    request = last_request(store, source)
    values = form_from_request(request) if request else dict(DEFAULTS)
    if int8_shapes:
        values["shapes"] = int8_shapes
    elif not values.get("shapes") and options.shapes:
        values["shapes"] = ",".join(options.shapes)
    return values
