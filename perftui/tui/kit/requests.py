"""The benchmark settings a project was last measured with, for the forms that start from
them (benchmark configuration, optimize)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from perftui.domain.errors import StoreError
from perftui.domain.records import BenchmarkRequest

if TYPE_CHECKING:
    from perftui.store import Store


def last_request(store: Store | None, project: str) -> BenchmarkRequest | None:
    """The project's last benchmark request; None when it has none or it cannot be read."""
    try:
        stored = store.last_benchmark(project) if store else None
    except StoreError:
        return None
    return stored.request if stored else None
