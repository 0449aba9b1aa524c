"""Reading what is in a model file (inputs, shapes, FLOPs) without blocking the screen."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from textual import work

from perftui.tui.kit.screen import PerftuiScreen

if TYPE_CHECKING:
    from perftui.domain.model.model_info import ModelInfo


class InspectingScreen(PerftuiScreen):
    """A screen that inspects a model: `inspect_model(path, shapes)` reads it (its FLOPs at
    `shapes`, whole input shapes; None: batch 1 and the defaults) in a thread worker
    named "inspect" (a newer call replaces a running one); `inspected(path, info)` gets the
    result on the UI thread, `inspect_failed(error)` the failure (PerftuiApp.worker_failed
    hands it over)."""

    @work(thread=True, exit_on_error=False, name="inspect", group="inspect", exclusive=True)
    def inspect_model(self, path: str, shapes: Mapping[str, tuple[int, ...]] | None = None) -> None:
        info = self.perftui.services.inspect(path, shapes)
        self.app.call_from_thread(self.inspected, path, info)

    def inspected(self, path: str, info: ModelInfo) -> None:
        """The model at `path` was read."""

    def inspect_failed(self, error: BaseException) -> None:
        """The model could not be read (an InputError for a bad file)."""
