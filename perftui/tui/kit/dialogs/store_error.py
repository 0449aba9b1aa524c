"""Shown instead of the dashboard when the results database cannot be used."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Label, Static


class StoreErrorScreen(Screen[None]):
    """Shown instead of the dashboard when the database cannot be used; nothing is touched."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,escape", "app.quit", "Quit", id="quit"),
    ]
    TITLE_TEXT = "the database cannot be opened"
    HELP = (
        "The results database cannot be used as it is, and nothing was changed. The message"
        " says what is wrong and what to do; `perftui doctor --db PATH` says whether a repair"
        " can mend it."
    )

    def __init__(self, message: str, path: str) -> None:
        super().__init__()
        self.message = message
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical(id="store-error", classes="dialog-box"):
            yield Label("The results database cannot be opened", classes="dialog-title")
            yield Static(self.message, markup=False, id="store-error-message")
            yield Static(
                "Nothing was changed. `perftui doctor --db PATH` says whether a repair can mend"
                " it; or start perftui with another database: perftui --db PATH (or"
                " PERFTUI_DB=PATH).",
                classes="dialog-detail",
            )
        yield Footer()
