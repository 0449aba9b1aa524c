"""Forms: one way to build a labelled field row, and the base of the form dialogs (tune,
optimize), whose keys are the same: ctrl+r starts, escape cancels, F1 helps."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Checkbox, Label, Static

T = TypeVar("T")


def field_row(
    label: str,
    field: Widget,
    note: str | None = None,
    *,
    text: str = "",
    note_below: bool = False,
    id: str | None = None,
) -> list[Horizontal]:
    """The row of one field: its label, the field and its note (with id `note`, or
    `text` that never changes), which says what the field takes or what is wrong with it. A
    wide field's note goes on a row of its own below it (`note_below`). Yield the rows:
    `yield from field_row(...)`; `id` names the field's row."""
    classes = "field-note below" if note_below else "field-note"  # below: under the text
    written = Static(text, id=note, classes=classes) if note or text else None
    beside = [written] if written is not None and not note_below else []
    rows = [
        Horizontal(Label(label, classes="form-label"), field, *beside, classes="form-row", id=id)
    ]
    if written is not None and note_below:
        rows.append(Horizontal(Label("", classes="form-label"), written, classes="form-row"))
    return rows


class OnOff(Checkbox):
    """A checkbox that reads without colour (NO_COLOR=1): its mark shows only when it is
    on, and its label says on or off (Textual's mark is always there, told by colour)."""

    def __init__(self, value: bool = False, *, id: str | None = None, compact: bool = False):
        super().__init__("", value, id=id, compact=compact)
        self._show(value)

    def _show(self, value: bool) -> None:
        self.BUTTON_INNER = "X" if value else " "
        self.label = "on" if value else "off"

    def watch_value(self) -> None:
        self._show(self.value)
        super().watch_value()


class FormDialog(ModalScreen[T | None]):
    """A form in a dialog box: `action_start` checks it and dismisses with what it asks
    for; escape dismisses with None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "start", "Start", id="start"),
        Binding("escape", "cancel", "Cancel", id="cancel"),
        Binding("f1", "app.help", "Help", id="help"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="dialog")

    def action_start(self) -> None:
        """Check the fields; dismiss with what they ask for."""

    def action_cancel(self) -> None:
        self.dismiss(None)
