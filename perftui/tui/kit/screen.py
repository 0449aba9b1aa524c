"""What every perftui screen shares: the store, one error path, Escape to go back, F1 help text."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from perftui.domain import errors
from perftui.tui.kit.format import said

if TYPE_CHECKING:
    from perftui.store.database import Store
    from perftui.tui.app import PerftuiApp


def one_line(error: BaseException) -> str:
    """An error's one line (domain.errors.one_line) for a notification, in the dashboard's
    words (`said`)."""
    return said(errors.one_line(error))


class PerftuiScreen(Screen[None]):
    """Base screen: Escape goes back; `HELP` is shown by F1 above the key list.

    A worker that fails is handed to the app (`PerftuiApp.worker_failed`), the one place
    that decides what a failure does: the screen's `<worker name>_failed` method when it
    has one, else an error notification."""

    HELP: ClassVar[str] = ""
    TITLE_TEXT: ClassVar[str] = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="back"),
    ]

    @property
    def perftui(self) -> PerftuiApp:
        """The app, typed: Textual types `self.app` as any App; perftui's screens run in
        PerftuiApp alone."""
        return cast("PerftuiApp", self.app)

    @property
    def store(self) -> Store:
        store = self.perftui.store
        assert store is not None
        return store

    def __init__(self) -> None:
        super().__init__()
        if self.TITLE_TEXT:
            self.sub_title = self.TITLE_TEXT

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()

    def report(self, error: BaseException, title: str = "") -> None:
        """Show an error as a notification; never raises."""
        self.app.notify(one_line(error), title=title or "Error", severity="error", timeout=8)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self.perftui.worker_failed(self, event.worker.name, event.worker.error)
