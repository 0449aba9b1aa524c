"""How a write leaves each project it touches: runs only added go to a segment of their own
beside the project's shard file (perftui.store.shards), its figures extended
(perftui.store.entries), reading none of the runs already stored; any other edit writes the
whole file anew. Either way the project's figures go to a new figures file
(perftui.store.entry_figures)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.store.codec import dump_json
from perftui.store.entries import (
    appended_figures,
    files_of,
    project_figures,
    run_count,
    shard_doc,
)
from perftui.store.entry_figures import figures_folder
from perftui.store.names import read_nofollow
from perftui.store.shards import HEADER, Shard, appendable, line, shard_folder, write_shard

if TYPE_CHECKING:
    from perftui.store.tables import Table
    from perftui.store.transaction import Pending, Transaction

__all__ = ["MAX_TAIL", "write_shards"]


def of(project: str) -> Callable[[dict[str, Any]], bool]:
    """Whether an entry is the project's."""
    return lambda entry: entry.get("project") == project


MAX_TAIL = 8
"""Most segments a project's file gathers before an append writes them as one file again:
appends write only their own runs, and one in this many copies the project's runs (bytes,
not parsed), so reading a project opens a few files at most."""


def write_shards(tx: Transaction, root: Path, cache: dict[str, Shard], *, durable: bool) -> None:
    """Write the projects' new shard and figures files under the payload folder `root` and
    name them in the document (the shard files written whole are kept in `cache`);
    `durable=False`: the caller syncs them all at once before the document commits."""
    table = tx.table("shards")
    folder = shard_folder(root)
    for project, pending in list(tx.lines.items()):
        if not _append(tx, project, pending, root, table, durable):
            tx.shard(project)  # takes the pending runs: written whole below
    for project, shard in tx.shards.items():
        table.remove(of(project))
        if shard.runs:
            added = tx.appended.get(project, [])
            figures = project_figures(tx.snap, project, shard, added)
            shard.records.clear()  # built before this write's environments were stored
            name = write_shard(folder, shard.blob(), tx.token, durable=durable)
            kept = _write_figures(tx, root, figures.part(), durable)
            table.insert([shard_doc(project, name, len(shard.runs), kept)])
            cache[name] = shard


def _write_figures(tx: Transaction, root: Path, part: dict[str, Any], durable: bool) -> str:
    return write_shard(figures_folder(root), dump_json(part), tx.token, durable=durable)


def _append(
    tx: Transaction,
    project: str,
    pending: list[Pending],
    root: Path,
    table: Table,
    durable: bool,
) -> bool:
    """Append the runs to a copy of the project's file when its entry and file allow it
    (False: they do not, nothing was written)."""
    entry: dict[str, Any] | None = tx.snap.entries.get(project)
    if entry is None:
        return False
    fresh = {doc["id"]: found for doc, _, found in pending if found is not None}
    figures = appended_figures(tx.snap, project, tx.appended[project], fresh)
    if figures is None:
        return False
    folder = shard_folder(root)
    try:
        files, count = files_of(entry), run_count(entry) + len(pending)
        if not appendable(read_nofollow(folder / files[0], len(HEADER))):
            return False
        lines = b"".join(line(*item) for item in pending)
        if len(files) <= MAX_TAIL:  # a segment of the new runs alone
            name, tail = write_shard(folder, lines, tx.token, durable=durable), [*files[1:]]
            tail.append(name)
        else:  # the file and its segments as one file again
            whole = b"".join(read_nofollow(folder / name) for name in files)
            name, tail = write_shard(folder, whole + lines, tx.token, durable=durable), []
    except (OSError, ValueError):
        return False  # written whole, which reports what is wrong
    kept = _write_figures(tx, root, figures.part(), durable)
    table.remove(of(project))
    table.insert([shard_doc(project, files[0] if tail else name, count, kept, tail)])
    return True
