"""One line of text, checked before it is accepted."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static


class PromptScreen(ModalScreen[str | None]):
    """One line of text; Enter accepts, Escape cancels; `check` returns an error or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="cancel"),
    ]

    def __init__(
        self, question: str, value: str = "", check: Callable[[str], str | None] | None = None
    ) -> None:
        super().__init__(classes="dialog")
        self.question = question
        self.value = value
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label(Content(self.question), classes="dialog-title")
            yield Input(self.value, id="prompt-input", select_on_focus=True)
            yield Static("", id="prompt-error", classes="field-error")
            yield Static("[b]enter[/] accept    [b]esc[/] cancel", classes="dialog-keys")
        yield Footer(compact=True, show_command_palette=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        reason = self.check(text) if self.check else None
        if reason:
            self.query_one("#prompt-error", Static).update(Content(reason))
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
