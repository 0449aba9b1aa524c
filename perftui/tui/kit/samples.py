"""A run's raw latency samples as the dashboard reads them from the store, for the figures'
intervals and the distribution charts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from perftui.domain.errors import StoreError
from perftui.domain.measurement.figures import Samples
from perftui.domain.measurement.summary import Headline
from perftui.domain.records import RunResult

if TYPE_CHECKING:
    import numpy as np

    from perftui.store.database import Store


def stored_samples(store: Store) -> Samples:
    """The store's samples of a run; None when they are not kept or cannot be read (the
    figures then go without latency intervals, the distribution charts say so)."""

    def samples(run: RunResult) -> np.ndarray | None:
        if not run.id:
            return None
        try:
            return store.latency_samples(run.id)
        except StoreError:
            return None

    return samples


def headline(store: Store, project: str, key: str | None) -> Headline | None:
    """A project's configuration `key` with its combined figures (intervals, verdict), as
    the store keeps them for the projects list; None without them."""
    try:
        return store.headline(project, key)
    except StoreError:
        return None
