"""The form that adds a target: name, SSH destination, python there, price per hour."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static

from perftui.domain.errors import InputError
from perftui.domain.limits import parse_price
from perftui.targets.registry import DEFAULT_PYTHON, Target, check_target
from perftui.tui.kit.forms import field_row

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


class AddTargetDialog(ModalScreen[Target | None]):
    """ctrl+s (or enter) adds: the fields are checked here and a bad one is refused with one
    line; escape cancels. The screen then probes the host before it stores it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "add", "Add", id="add"),
        Binding("escape", "cancel", "Cancel", id="cancel"),
    ]

    def __init__(self, taken: list[str]) -> None:
        super().__init__(classes="dialog")
        self.taken = taken

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label("Add a target (an SSH host)", classes="dialog-title")
            for key, label, value, hint in FIELDS:
                yield from field_row(label, Input(value, id=key, placeholder=hint, compact=True))
            yield Static("", id="add-error", classes="field-error", markup=False)
            yield Static("[b]ctrl+s[/] add    [b]esc[/] cancel", classes="dialog-keys")
        yield Footer(compact=True, show_command_palette=False)

    def values(self) -> dict[str, str]:
        return {key: self.query_one(f"#{key}", Input).value for key, *_ in FIELDS}

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_add()

    def action_add(self) -> None:
        try:
            target = form_target(self.values(), self.taken)
        except InputError as error:
            self.query_one("#add-error", Static).update(str(error).splitlines()[0])
            return
        self.dismiss(target)

    def action_cancel(self) -> None:
        self.dismiss(None)
