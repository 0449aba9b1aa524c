"""Persistence: the results database on TinyDB (its import/export formats are perftui.exchange's).

The names most callers need are importable from here; ARCHITECTURE.md ("store/") draws the
layout and the write path, each module's docstring says what it does.
"""

from perftui.store.database import Store
from perftui.store.layout import now_iso
from perftui.store.paths import default_db_path, normalize_model_path, same_target

__all__ = ["Store", "default_db_path", "normalize_model_path", "now_iso", "same_target"]
