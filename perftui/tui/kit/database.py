"""The dashboard and its database: the question before a 0.1 database is converted, and the
watch that shows another process's writes (a CLI bench in a second SSH session) at once."""

from __future__ import annotations

from collections.abc import Callable

from perftui.store import Store

CONVERT_QUESTION = "Convert this database?"
CONVERT_DETAIL = (
    "It was written by perftui 0.1. Converting keeps every run and moves the old files into a"
    " backup folder beside it; without converting it cannot be shown."
)
WATCH_S = 1.0
"""How often the dashboard looks whether another process wrote to the database."""


class StoreWatch:
    """Calls `changed` when a write has committed since the last look: a write replaces the
    index, which changes its version (a stat, nothing read)."""

    def __init__(self, store: Store, changed: Callable[[], None]) -> None:
        self.store = store
        self.changed = changed
        self.seen = store.version()

    def look(self) -> None:
        version = self.store.version()
        if version != self.seen:
            self.seen = version
            self.changed()
