"""What the store deletes, and only that: files its document once named, and the files a
killed write of its own left.

- A write that supersedes a shard or figures file (perftui.store.shards), or drops a run's
  payload files, records them in the document's ``retired`` table (``{"folder", "name",
  "at"}``); a write after the grace period removes them and their records. Nothing else
  in those folders is ever removed because it is old or unnamed.
- A write marks the folder (``pending``: its token and the runs whose payloads it writes or
  drops) before its first file; the next write (under the lock) removes what that write left
  if it was killed: the temporary files this code makes, the files named with its token that
  no document names, the payloads of its runs that no document holds.
- A document that does not name the run files beside it (emptied, cut, edited, or an older
  copy restored beside a newer folder) is damage, reported and left in place
  (`check_folder`); a read never writes. A document an earlier version wrote did not name
  every file (it removed superseded ones by age): its first write by this version records
  the unnamed ones as ``unclaimed`` (kept, never removed) and marks it (`claim`).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import StoreError
from perftui.store.entries import files_of
from perftui.store.names import FILE_NAME, checked_file, checked_run_id, is_temp, read_nofollow
from perftui.store.payloads import KINDS, Payloads
from perftui.store.shards import GRACE_S

if TYPE_CHECKING:
    from tinydb import TinyDB

    from perftui.store.snapshot import Snapshot

__all__ = [
    "FOLDERS",
    "check_folder",
    "claim",
    "live_files",
    "recover",
    "retire",
    "retired_files",
    "unnamed",
]

FOLDERS = ("runs", "figures")
"""The folders of files the document names (shards, figures)."""
Named = set[tuple[str, str]]
"""(folder, file name) pairs."""


def live_files(entries: Iterable[dict[str, Any]]) -> Named:
    """The shard and figures files the projects' entries name (ValueError if one is not a
    name of this database)."""
    named: Named = set()
    for entry in entries:
        named.update(("runs", name) for name in files_of(entry))
        if entry.get("figures") is not None:
            named.add(("figures", checked_file(entry["figures"])))
    return named


def retired_files(docs: Iterable[dict[str, Any]]) -> Named:
    """The files the ``retired`` table records (ValueError if one is malformed)."""
    named: Named = set()
    for doc in docs:
        if not isinstance(doc.get("at", 0), (int, float)):
            raise ValueError("a retired file's record lacks its time")
        named.add((doc.get("folder"), _checked(doc.get("folder"), doc.get("name"))))
    return named


def _checked(folder: object, name: object) -> str:
    """`name` if it is a name of a file of `folder` that this store writes; else ValueError."""
    if folder in FOLDERS:
        return checked_file(name)
    if folder in KINDS and isinstance(name, str) and name.endswith(KINDS[folder]):
        return checked_run_id(name[: -len(KINDS[folder])]) + KINDS[folder]
    raise ValueError(f"{str(folder)[:20]!r}/{str(name)[:60]!r} is not a file of this database")


def _listed(payloads: Payloads, folder: str) -> list[str]:
    path = payloads.folder(folder)
    try:
        return os.listdir(path)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise StoreError(
            f"database {payloads.shown}: cannot list {path} ({exc.strerror or exc}); use --db PATH"
        ) from None


def unnamed(payloads: Payloads, named: Named) -> list[tuple[str, str]]:
    """The shard and figures files on disk that `named` does not name."""
    return [
        (folder, name)
        for folder in FOLDERS
        for name in _listed(payloads, folder)
        if FILE_NAME.fullmatch(name) and (folder, name) not in named
    ]


def _mark(payloads: Payloads) -> tuple[str, list[str]] | None:
    """A killed (or running) write's token and runs; None without a mark; ("", []) for a
    mark that says neither (an earlier version's)."""
    try:
        raw = read_nofollow(payloads.pending)
    except FileNotFoundError:
        return None
    except OSError:
        return "", []
    try:
        mark = json.loads(raw)
        token, runs = mark["token"], mark["runs"]
        if isinstance(token, str) and isinstance(runs, list):
            return token, [r for r in runs if isinstance(r, str)]
    except (ValueError, KeyError, TypeError, RecursionError):
        pass
    return "", []


def check_folder(snap: Snapshot, payloads: Payloads, *, locked: bool = False) -> None:
    """StoreError (damage) if the folder holds shard or figures files the document does not
    name and no write is under way (`locked`: none can be, and `recover` has run): the
    document is older than its folder."""
    if not os.path.lexists(payloads.root):
        return
    if snap.version and not snap.names_its_files:
        return  # an earlier version's document: it did not name them all (see `claim`)
    stray = unnamed(payloads, snap.named_files())
    kinds = [] if snap.version else [k for k in KINDS if _listed(payloads, k)]
    if not stray and not kinds:
        return
    if not locked and payloads.pending.exists():
        return  # looked for after the files: a write that made them marked itself first
    what = (
        f"the {len(stray)} run and figures file(s) in {payloads.root.name}/"
        if stray
        else f"the run files in {payloads.root.name}/{kinds[0]}"
    )
    raise StoreError(
        f"database {snap.shown} is damaged: it does not name {what} beside it (it was"
        " emptied, cut or edited, or an older copy was restored); nothing was changed"
        " — `perftui doctor` shows what a repair would do; or restore the newer file"
    )


def recover(snap: Snapshot, payloads: Payloads) -> None:
    """Remove what a killed write left, then its mark (call under the lock)."""
    _remove_temps(payloads, "")  # a mark being written
    mark = _mark(payloads)
    if mark is None:
        return
    token, runs = mark
    for folder in (*FOLDERS, *KINDS):
        _remove_temps(payloads, folder)
    stray = unnamed(payloads, snap.named_files())
    if any(not token or not name.startswith(token) for _, name in stray):
        return  # not this write's alone: check_folder reports it, nothing is removed
    for folder, name in stray:
        with contextlib.suppress(OSError):
            os.unlink(payloads.root / folder / name)
    if runs:
        payloads.remove(set(runs) - snap.payload_ids())
    payloads.end()


def _remove_temps(payloads: Payloads, folder: str) -> None:
    """Remove the temporary files this code makes (and a kill leaves) in `folder`."""
    for name in _listed(payloads, folder) if folder else _root_names(payloads):
        if is_temp(name):
            with contextlib.suppress(OSError):
                os.unlink(payloads.root / folder / name)


def _root_names(payloads: Payloads) -> list[str]:
    try:
        return os.listdir(payloads.root) if payloads.folder("runs") else []
    except OSError:
        return []


def claim(db: TinyDB, snap: Snapshot, payloads: Payloads) -> None:
    """Mark the document as naming every file beside it, recording (never removing) those
    an earlier version's document left unnamed (superseded files it had not removed yet, or
    files of its killed writes: it cannot tell which)."""
    meta = db.table("meta")
    doc = meta.all()[0]
    meta.update({"named_files": True}, doc_ids=[doc.doc_id])
    stray = unnamed(payloads, snap.named_files())
    if stray:
        db.table("unclaimed").insert_multiple({"folder": f, "name": n} for f, n in stray)


def retire(
    db: TinyDB,
    before: Named,
    payloads: Payloads,
    dropped: Iterable[str] = (),
    now: float | None = None,
) -> None:
    """Record the files the write's document no longer names (of `before`, and the payload
    files of the `dropped` runs) as retired, and remove those retired more than the grace
    period ago (with their records): a reader of the document before still finds them."""
    now = time.time() if now is None else now
    table = db.table("retired")
    gone = before - live_files(db.table("shards").all())
    gone |= {(kind, run_id + suffix) for run_id in dropped for kind, suffix in KINDS.items()}
    gone = {(f, n) for f, n in gone if os.path.lexists(payloads.root / f / n)}  # made up: none
    if gone:
        table.insert_multiple({"folder": f, "name": n, "at": now} for f, n in sorted(gone))
    due = [doc for doc in table.all() if doc["at"] < now - GRACE_S]
    for doc in due:
        with contextlib.suppress(OSError, ValueError):
            os.unlink(payloads.folder(doc["folder"]) / _checked(doc["folder"], doc["name"]))
    if due:
        table.remove(doc_ids=[doc.doc_id for doc in due])
