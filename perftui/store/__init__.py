"""Persistence: the results database (its import/export formats are perftui.exchange's).

The names most callers need are importable from here; the modules hold one job each:
`database` (the Store's records API), `transaction` (cached reads and the locked write),
`document` (the main document's bytes parsed and checked), `snapshot` (a parsed version of
the file and its typed records), `shards` (each project's runs) and `shard_writes` (how a
write leaves them), `entries` (each project's entry in the document), `entry_figures` (the
file of its figures that it names) and `headlines` (its configurations' combined figures),
`figure_docs` (figures as stored), `stream` (one run at a time, for export), `payloads`
(samples and profiles in files), `journal` (runs parked while the lock was taken), `layout`
(the tables' documents), `codec` (stored values and blobs), `storage` (the buffered TinyDB
storage), `files` (locking, atomic writes), `names` (names checked before they become paths,
links never followed), `recovery` (what is deleted, and only that; damage a document shows),
`legacy` (older layouts, converted), `inserts` (runs a write adds), `repair` (`perftui doctor
--repair`), `progress` and `paths`.
"""

from perftui.store.database import Store
from perftui.store.layout import now_iso
from perftui.store.paths import default_db_path, normalize_model_path, same_target

__all__ = ["Store", "default_db_path", "normalize_model_path", "now_iso", "same_target"]
