"""A run's raw latency samples as the dashboard reads them from the store, for the figures'
intervals and the distribution charts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from perftui.domain.errors import StoreError
from perftui.domain.figures import Figures, Samples, run_figures
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


def stored_figures(store: Store, run_id: str | None) -> Figures | None:
    """A stored run's figures with their intervals and verdict; None without the run."""
    try:
        run = store.get_run(run_id) if run_id else None
    except StoreError:
        return None
    return run_figures(run, stored_samples(store)(run)) if run else None
