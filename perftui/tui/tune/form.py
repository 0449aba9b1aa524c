"""The tune form: latency budget, statistic, time budget or trials, space and time per trial,
as `perftui tune` takes them. Each field is checked as it is typed with the CLI's parsers
(perftui.domain.forms.tune); Start builds the search with the CLI's builder, so the form and
the CLI make identical searches, and dismisses with it (the app opens the live screen)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Footer, Input, Label, Static

from perftui.domain.forms.fields import FieldError
from perftui.domain.forms.tune import DEFAULT_BUDGET, TUNE_FORM, TuneSpec, tune_spec
from perftui.domain.model.shapes import ShapeBindings
from perftui.domain.records import Project
from perftui.domain.settings import KNOBS
from perftui.domain.tune.space import default_space
from perftui.engines.capabilities import capabilities
from perftui.tui.kit.format import escape
from perftui.tui.kit.forms import FormDialog, field_row

FIELDS = (
    ("max_latency", "Max latency", "ms, e.g. 5"),
    ("max_memory", "Max memory", "MiB peak, e.g. 512 (empty: no limit)"),
    ("stat", "Statistic", "median, p90 or p99"),
    ("budget", "Time budget", f"e.g. 90s, 10m (empty: {DEFAULT_BUDGET}, or the trials)"),
    ("trials", "Trials", "configurations at most (empty: a fifth)"),
    ("time", "Time/trial", "seconds per trial, in runs of half"),
    ("space", "Space", "KNOB=VALUES, e.g. batch=1..16 threads=1,2"),
)
"""(field, label, what it takes); the names are perftui.domain.forms.tune's."""
NOTES = {name: takes for name, _, takes in FIELDS}


class TuneForm(FormDialog[TuneSpec]):
    HELP = (
        "Searches the project's settings for the most throughput whose latency statistic "
        "stays within the budget, as `perftui tune` does (the same fields, the same search). "
        f"The space is the knobs to search ({', '.join(KNOBS)}), "
        "filled with the default for the engine and this machine's cores; lo..hi means the "
        "powers of two between. Every trial is a real run stored in the project. The search "
        "stops when the time budget or the trials (by default a fifth of the space's "
        "configurations) are spent, or when trials stop beating the best beyond noise, "
        "and ends with a playoff of the fastest trials, measured again in turn."
    )
    TITLE_TEXT = "Tune"
    DEFAULT_CSS = """
    TuneForm .form-label { width: 13; }
    TuneForm #t-space { width: 1fr; }
    TuneForm Input { width: 12; }
    """

    def __init__(
        self, project: Project, last_shapes: ShapeBindings | None, cores: int, seed: int = 0
    ) -> None:
        super().__init__()
        self.project = project
        self.capabilities = capabilities(project.engine)
        self.last_shapes = last_shapes
        self.cores = cores
        self.seed = seed

    def compose(self) -> ComposeResult:
        defaults = {
            **TUNE_FORM.defaults,
            "space": default_space(self.capabilities, self.cores).text(),
        }
        with Vertical(classes="dialog-box", id="tune-form"):
            yield Label(f"Tune {escape(self.project.name)}", classes="dialog-title")
            yield Static(
                f"{self.project.engine}/{self.project.device}, {self.cores} cores: the most "
                "items/s within the latency budget",
                classes="dialog-detail",
            )
            for name, label, _ in FIELDS:
                field = Input(defaults[name], id=f"t-{name}", compact=True, classes="t-field")
                yield from field_row(label, field, f"n-{name}", note_below=name == "space")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        for name, _, _ in FIELDS:
            self._note(name)
        self.query_one("#t-max_latency", Input).focus()

    def values(self) -> dict[str, str]:
        return {name: self.query_one(f"#t-{name}", Input).value for name, _, _ in FIELDS}

    def _note(self, name: str, reason: str | None = None) -> None:
        """Write a field's note: `reason` or the reason it cannot be used, else what it takes."""
        value = self.values()[name]
        if reason is None and (name != "max_latency" or value.strip()):
            reason = TUNE_FORM.check(name, value)
        note = self.query_one(f"#n-{name}", Static)
        note.set_class(reason is not None, "error")
        note.update(escape(reason or NOTES[name]))

    @on(Input.Changed, ".t-field")
    def _changed(self, event: Input.Changed) -> None:
        self._note((event.input.id or "t-")[2:])

    @on(Input.Submitted, ".t-field")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_start()

    def spec(self) -> TuneSpec:
        """The search the fields ask for; FieldError naming the first bad one."""
        return tune_spec(
            self.values(), self.project, self.capabilities, self.last_shapes, self.cores, self.seed
        )

    def action_start(self) -> None:
        try:
            spec = self.spec()
        except FieldError as error:
            field = error.field if error.field in NOTES else "space"  # shapes: the last
            self._note(field, str(error))
            self.query_one(f"#t-{field}").focus()
            self.app.bell()
            return
        self.dismiss(spec)
