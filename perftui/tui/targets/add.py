"""The form that adds a target: name, SSH destination, python there, price per hour."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static

from perftui.domain.errors import InputError
from perftui.domain.limits import parse_price
from perftui.targets.probe import Probe
from perftui.targets.registry import DEFAULT_PYTHON, Target, check_target
from perftui.tui.kit.format import escape
from perftui.tui.kit.forms import field_row

DESTINATION_NOTE = "probed over SSH before it is added"
FIELDS = (
    ("name", "Name", "", "e.g. xeon"),
    ("destination", "Destination", "", "ssh alias, host or user@host"),
    ("python", "Python", DEFAULT_PYTHON, "the python that has perftui there"),
    ("price", "Price/hour", "", "optional, e.g. 0.34"),
)


def form_target(values: dict[str, str], taken: list[str]) -> Target:
    """The target the form's fields describe; InputError with one line (the same rules as
    `perftui targets add`: perftui.targets.registry, perftui.domain.limits.parse_price)."""
    price = values["price"].strip()
    target = Target(
        values["name"].strip(),
        values["destination"].strip(),
        values["python"].strip() or DEFAULT_PYTHON,
        parse_price(price) if price else None,
    )
    check_target(target)
    if target.name in taken:
        raise InputError(f"target {target.name!r} exists; remove it first")
    return target


class AddTargetDialog(ModalScreen[Probe | None]):
    """ctrl+s (or enter) adds: the fields are checked here and a bad one is refused with one
    line; then the host is probed (`probe`, in a thread) with the form still open, and a host
    out of reach is refused under Destination, every field kept. It closes with the probe of
    a reachable host, which the screen stores; escape cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "add", "Add", id="add"),
        Binding("escape", "cancel", "Cancel", id="cancel"),
    ]

    def __init__(self, taken: list[str], probe: Callable[[Target], Probe]) -> None:
        super().__init__(classes="dialog")
        self.taken = taken
        self.probe = probe
        self.probing = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label("Add a target (an SSH host)", classes="dialog-title")
            for key, label, value, hint in FIELDS:
                field = Input(value, id=key, placeholder=hint, compact=True)
                if key == "destination":  # where an unreachable host is said
                    yield from field_row(
                        label, field, "destination-note", text=DESTINATION_NOTE, note_below=True
                    )
                else:
                    yield from field_row(label, field)
            yield Static("", id="add-error", classes="field-error", markup=False)
            yield Static("[b]ctrl+s[/] add    [b]esc[/] cancel", classes="dialog-keys")
        yield Footer(compact=True, show_command_palette=False)

    def values(self) -> dict[str, str]:
        return {key: self.query_one(f"#{key}", Input).value for key, *_ in FIELDS}

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_add()

    def _say(self, where: str, text: str, error: bool = False) -> None:
        note = self.query_one(f"#{where}", Static)
        note.set_class(error, "error")
        note.update(text)

    def action_add(self) -> None:
        if self.probing:
            return
        self._say("destination-note", DESTINATION_NOTE)
        try:
            target = form_target(self.values(), self.taken)
        except InputError as error:
            self._say("add-error", str(error).splitlines()[0])
            return
        self._say("add-error", "")
        self._say("destination-note", f"probing {escape(target.destination)}…")
        self.probing = True
        self._probe(target)

    @work(thread=True, exit_on_error=False, name="probe", group="probe")
    def _probe(self, target: Target) -> None:
        found = self.probe(target)
        self.app.call_from_thread(self._probed, found)

    def _probed(self, found: Probe) -> None:
        self.probing = False
        if self.app.screen is not self:  # cancelled meanwhile
            return
        if not found.reachable:  # as `targets add`: nothing stored for a host out of reach
            line = (found.error or "unreachable").splitlines()[0]
            self._say("destination-note", escape(line), error=True)
            self.query_one("#destination", Input).focus()
            return
        self.dismiss(found)

    def action_cancel(self) -> None:
        self.dismiss(None)
