"""Small modal screens: confirmation, a one-line prompt, key help, and the store-error screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, Label, Static


class ConfirmScreen(ModalScreen[bool]):
    """Yes/no question; y confirms, n or Escape declines."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="yes"),
        Binding("n,escape", "answer(False)", "No", id="no"),
    ]

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__(classes="dialog")
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Label(Content(self.question), classes="dialog-title")
            if self.detail:
                yield Static(self.detail, classes="dialog-detail", markup=False)
            yield Static("[b]y[/] yes    [b]n[/] / [b]esc[/] no", classes="dialog-keys")
        yield Footer(compact=True, show_command_palette=False)

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


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


def key_table(keys: list[tuple[str, str, str]]) -> Table:
    """The key list of the help screen: key, then description and binding id, wrapped
    under the description. Built from Text cells, never from markup, so keys such as `[`
    and `]` show as they are typed."""
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True)
    table.add_column(ratio=1)
    for key, desc, ident in keys:
        table.add_row(Text(key, style="bold"), Text.assemble(desc, "  ", (f"({ident})", "dim")))
    return table


class HelpScreen(ModalScreen[None]):
    """F1: what the screen below is for and every key it (and the focused widget) answers to."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "close", "Close", id="close"),
    ]

    def __init__(self, title: str, text: str, keys: list[tuple[str, str, str]]) -> None:
        super().__init__(classes="dialog")
        self.title_text = title
        self.text = text
        self.keys = keys

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box help-box"):
            yield Label(Content(f"Help: {self.title_text}"), classes="dialog-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(key_table(self.keys), classes="help-keys")
                if self.text:
                    yield Static(Content(self.text), classes="help-text")
            yield Static("[b]esc[/] / [b]f1[/] close", classes="dialog-keys")
        yield Footer(compact=True, show_command_palette=False)

    def action_close(self) -> None:
        self.dismiss(None)


class StoreErrorScreen(Screen[None]):
    """Shown instead of the dashboard when the database cannot be used; nothing is touched."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,escape", "app.quit", "Quit", id="quit"),
    ]

    def __init__(self, message: str, path: str) -> None:
        super().__init__()
        self.message = message
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical(id="store-error", classes="dialog-box"):
            yield Label("The results database cannot be opened", classes="dialog-title")
            yield Static(self.message, markup=False, id="store-error-message")
            yield Static(
                "Nothing was changed. Move the file aside, fix its permissions, or start perftui "
                "with another database: perftui --db PATH (or PERFTUI_DB=PATH).",
                classes="dialog-detail",
            )
        yield Footer()
