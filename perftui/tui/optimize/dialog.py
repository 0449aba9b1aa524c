"""Optimize (INT8): how to make the INT8 version of a project (method, calibration data,
samples, shapes, name), checked as typed."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Footer, Input, Label, Select, Static

from perftui.domain.forms.bench import form_from_request
from perftui.domain.forms.fields import FieldError
from perftui.domain.records import Project
from perftui.optimize.form import (
    DEFAULT_RANDOM_SAMPLES,
    FORM_FIELDS,
    check_field,
    form_from_options,
    options_from_form,
    suggest_name,
)
from perftui.optimize.runner import OptimizeOptions
from perftui.tui.kit import format as fmt
from perftui.tui.kit.format import escape
from perftui.tui.kit.forms import FormDialog, field_row
from perftui.tui.kit.requests import last_request

if TYPE_CHECKING:
    from perftui.tui.app import PerftuiApp

METHOD_NOTES = {
    "static": "QDQ; activations calibrated on the data",
    "dynamic": "int8 weights; no calibration",
}
RANDOM_NOTE = "empty: seeded random data (accuracy = a consistency check)"
SAMPLES_NOTE = {
    "folder": "empty: all of the folder",
    "random": f"empty: {DEFAULT_RANDOM_SAMPLES} random samples",
}


FIELDS = (
    ("calibration", "Calibration", "folder of .npy/.npz samples"),
    ("samples", "Samples", "default"),
    ("shapes", "Shapes", "none"),
    ("name", "Name", ""),
)
"""(field, label, placeholder) of the text fields, below the method."""
WIDE = {"calibration", "name"}
"""Fields as wide as the box, with their note on a row of their own."""


class OptimizeDialog(FormDialog[OptimizeOptions]):
    """Method, calibration folder, samples, shapes and name of the INT8 project."""

    HELP = (
        "Makes the INT8 version of this project, in a separate process, and checks how far "
        f"its outputs are from the FP32 model's: {fmt.QUANTIZERS_TEXT}. Static "
        "calibrates activation ranges on the calibration folder's samples: .npy files (one "
        "per sample) or .npz files / sub-folders (one array per input name). Without a "
        "folder it uses seeded random data, and the accuracy figures are then only a "
        "consistency check. Dynamic quantizes weights only and needs no calibration. Shapes "
        "fix the dynamic dimensions of the inputs, e.g. input_ids[1,128]. The new project "
        "gets the same engine and device."
    )
    TITLE_TEXT = "Optimize (INT8)"

    def __init__(
        self, project: Project, existing: set[str], initial: OptimizeOptions | None = None
    ) -> None:
        super().__init__()
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
                f"{fmt.quantizer(p.engine)} makes the INT8 version of "
                f"{escape(fmt.model_name(p.model))}; the result "
                f"is a new project on {p.engine}/{p.device}.",
                classes="dialog-detail",
            )
            method = Select(
                [("static", "static"), ("dynamic", "dynamic")],
                value=values["method"],
                allow_blank=False,
                id="o-method",
                compact=True,
            )
            yield from field_row("Method", method, "n-method")
            for name, label, placeholder in FIELDS:
                field = Input(
                    values[name],
                    placeholder=placeholder,
                    id=f"o-{name}",
                    compact=True,
                    classes="opt-field wide" if name in WIDE else "opt-field",
                )
                yield from field_row(label, field, f"n-{name}", note_below=name in WIDE)
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
        request = last_request(cast("PerftuiApp", self.app).store, self.project.name)
        return form_from_request(request)["shapes"] if request else ""

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
        for field in ("method", "calibration"):
            self._note(field)

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
        except FieldError as error:
            self._note(error.field)
            self.query_one(f"#o-{error.field}").focus()
            self.app.bell()
            return
        self.dismiss(options)
