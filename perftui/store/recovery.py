"""What the store deletes, and only that: files its document once named, and the files a
killed write of its own left.

- A write that supersedes a shard or figures file (no entry names it any more), or whose
  projects' runs no longer use a pack, records it in the document's ``retired`` table
  (``{"folder", "name", "at"}``); a write after the grace period removes them and their
  records. Nothing else in those folders is ever removed because it is old or unnamed.
- A write marks the folder (``pending``: its token) before its first file; the next write
  (under the lock) removes what that write left if it was killed: the temporary files this
  code makes, the shard and figures files named with its token that no document names,
  and, when the document names none of them (it was not committed), its packs. Packs are
  named by the runs' shard lines, not by the document: a write's token tells its own.
- A document that does not name the run files beside it (emptied, cut, edited, or an older
  copy restored beside a newer folder) is damage, reported and left in place
  (`check_folder`); a read never writes. After its commit a write records the document's
  and its folders' inodes, modification and change times, and the document's CRC-32
  (``stamp``): folders found so beside that document hold what it names, and are not
  listed again, nor are its records checked all at once (a write checked them; a reader
  checks the names it uses, and reads the document a line at a time: perftui.store.
  document).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import zlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import StoreError
from perftui.store.entries import mentioned, named_by
from perftui.store.files import Signature, atomic_write_bytes
from perftui.store.names import FILE_NAME, checked_retired, is_temp, read_nofollow
from perftui.store.payloads import Payloads
from perftui.store.shards import GRACE_S

if TYPE_CHECKING:
    from perftui.store.snapshot import Snapshot
    from perftui.store.transaction import Transaction

__all__ = [
    "FOLDERS",
    "check_folder",
    "document_identity",
    "pending_token",
    "record_stamp",
    "recover",
    "retire",
    "retired_files",
    "stamped_as",
    "unnamed",
]

FOLDERS = ("runs", "figures", "benchmarks")
"""The folders of files the document names (shards, figures, the benchmarks file)."""
RETIRABLE = (*FOLDERS, "packs")
"""The folders of files a write may retire."""
Named = set[tuple[str, str]]
"""(folder, file name) pairs."""


def retired_files(docs: Iterable[dict[str, Any]]) -> Named:
    """The files the ``retired`` table records (ValueError if one is malformed)."""
    named: Named = set()
    for doc in docs:
        if not isinstance(doc.get("at", 0), (int, float)):
            raise ValueError("a retired file's record lacks its time")
        named.add((doc.get("folder"), checked_retired(doc.get("folder"), doc.get("name"))))
    return named


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


def unnamed(named: Named, payloads: Payloads) -> list[tuple[str, str]]:
    """The shard and figures files on disk that are not among the `named` ones."""
    return [
        (folder, name)
        for folder in FOLDERS
        for name in _listed(payloads, folder)
        if FILE_NAME.fullmatch(name) and (folder, name) not in named
    ]


Identity = list[int]
"""A document's signature (perftui.store.files) and the CRC-32 of its bytes."""


def document_identity(sig: Signature, raw: bytes) -> Identity:
    """What the stamp names a document by: an edit, a copy or a restore changes its inode or
    times (the change time cannot be set back), and a change that keeps them (a file system
    with times to the second, a flipped bit) its bytes' checksum."""
    return [*sig, zlib.crc32(raw)]


def _stamp(payloads: Payloads, document: Identity) -> bytes:
    """The document's identity and each folder of `FOLDERS` as [inode, modification and
    change times in ns] (None if missing): a file made or removed in a folder changes its
    stamp, and so does a restore that sets its times back."""
    found: list[list[int] | None] = []
    for folder in FOLDERS:
        try:
            st = os.lstat(payloads.root / folder)
            found.append([st.st_ino, st.st_mtime_ns, st.st_ctime_ns])
        except OSError:
            found.append(None)
    return json.dumps([document, found]).encode("utf-8")


def record_stamp(payloads: Payloads, document: Identity) -> None:
    """Record that the folders are as the write of the document of this identity left
    them (after its commit, under the lock; lost to a kill, they are listed again)."""
    with contextlib.suppress(OSError):
        atomic_write_bytes(payloads.stamp, _stamp(payloads, document), durable=False)


def stamped_as(payloads: Payloads, document: Identity) -> bool:
    """Whether the last write stamped the document of this identity (its bytes are as that
    write wrote them, whatever the folders since)."""
    try:
        return json.loads(read_nofollow(payloads.stamp))[0] == document
    except (OSError, ValueError, TypeError, KeyError, IndexError, RecursionError):
        return False


def _stamped(snap: Snapshot, payloads: Payloads) -> bool:
    """Whether the folders are as the write of `snap`'s document left them."""
    try:
        return snap.identity is not None and read_nofollow(payloads.stamp) == _stamp(
            payloads, snap.identity
        )
    except OSError:
        return False


def pending_token(payloads: Payloads) -> str | None:
    """A killed (or running) write's token; None without a mark; "" for a mark that names
    none (an earlier version's)."""
    try:
        raw = read_nofollow(payloads.pending)
    except FileNotFoundError:
        return None
    except OSError:
        return ""
    try:
        token = json.loads(raw)["token"]
        return token if isinstance(token, str) else ""
    except (ValueError, KeyError, TypeError, RecursionError):
        return ""


def check_folder(
    snap: Snapshot, payloads: Payloads, *, locked: bool = False, thorough: bool = False
) -> None:
    """StoreError (damage) if the folder holds shard, figures or pack files the document
    does not name but those of a write under way or killed (`locked`: none can be, and
    `recover` has run): the document is older than its folder; a malformed entry or record
    of the files it names is damage too, whatever is on disk. Unless `thorough` (`perftui
    doctor`), folders stamped as the write of this document left them are not listed, nor
    its entries checked all at once: the write that read its entries unstamped checked them,
    and a write adds only entries of names it made."""
    if not thorough and _stamped(snap, payloads):
        return
    snap.named_files  # noqa: B018 (raises on a malformed record, whatever is on disk)
    if not os.path.lexists(payloads.root):
        return
    stray = unnamed(snap.named_files, payloads)
    token = None if locked or not stray else pending_token(payloads)  # after the listing:
    if token == "":  # a write marks the folder before its first file
        return  # a mark that names no write (an earlier version's): its files are not told
    if token:  # a write under way, or killed: its files are named with its token
        stray = [(folder, name) for folder, name in stray if not name.startswith(token)]
    if not stray:
        return
    raise StoreError(
        f"database {snap.shown} is damaged: it does not name the {len(stray)} run and"
        f" figures file(s) in {payloads.root.name}/ beside it (it was"
        " emptied, cut or edited, or an older copy was restored); nothing was changed"
        " — `perftui doctor` shows what a repair would do; or restore the newer file"
    )


def recover(snap: Snapshot, payloads: Payloads) -> None:
    """Remove what a killed write left, then its mark (call under the lock)."""
    _remove_temps(payloads, "")  # a mark being written
    token = pending_token(payloads)
    if token is None:
        return
    for folder in RETIRABLE:
        _remove_temps(payloads, folder)
    stray = unnamed(snap.named_files, payloads)
    if any(not token or not name.startswith(token) for _, name in stray):
        return  # not this write's alone: check_folder reports it, nothing is removed
    committed = any(name.startswith(token) for _, name in snap.named_files)
    packs = [] if committed else [n for n in _listed(payloads, "packs") if n.startswith(token)]
    for folder, name in [*stray, *(("packs", name) for name in packs)]:
        with contextlib.suppress(OSError):
            os.unlink(payloads.root / folder / name)
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


def retire(tx: Transaction, replaced: Named, payloads: Payloads, packs: Iterable[str] = ()) -> None:
    """Record as retired the files of the entries the write replaced and those in
    `replaced`, less any the new document still names, and the `packs` its runs no longer
    use; remove those retired more than the grace period ago (with their records): a reader
    of the document before still finds them."""
    now = time.time()
    table = tx.table("retired")
    entries = tx.tables.data.get("shards", {})
    changed = tx.tables.changed("shards")
    gone = set(replaced)
    for project in changed:
        old = tx.snap.entries.get(project)
        with contextlib.suppress(ValueError):  # names no file of this database
            gone |= named_by(old) if old is not None else set()
    if any(project not in entries for project in changed):  # a project's runs deleted:
        gone -= mentioned(entries.values())  # none of its files another entry names
    else:
        gone -= mentioned(entries[project] for project in changed)
    gone |= {("packs", name) for name in packs}
    gone = {(f, n) for f, n in gone if os.path.lexists(payloads.root / f / n)}  # made up: none
    if gone:
        table.insert({"folder": f, "name": n, "at": now} for f, n in sorted(gone))

    def due(doc: dict[str, Any]) -> bool:
        return doc.get("at", 0) < now - GRACE_S

    for doc in filter(due, table.all()):
        with contextlib.suppress(OSError, ValueError):
            os.unlink(payloads.folder(doc["folder"]) / checked_retired(doc["folder"], doc["name"]))
    table.remove(due)
