"""What `perftui doctor` checks: everything a command reads, so that whatever makes a command
refuse is named here (a problem, with the way out), and the files the store does not know
(a conflict copy, a backup, an editor's swap file), which every command ignores (a note)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from perftui.atomic import TEMP
from perftui.domain.errors import StoreError
from perftui.store import convert
from perftui.store.files import check_folder, load_tables
from perftui.store.layout import BENCHMARKS, HEADS, PAYLOADS, PROJECT_ID, RUN_ID
from perftui.store.reader import Entry, Reader, entry_of, listing
from perftui.store.write import remove_temps

if TYPE_CHECKING:
    from perftui.store.database import Store
    from perftui.store.write import Transaction

__all__ = ["Diagnosis", "diagnose", "repair"]


@dataclass
class Diagnosis:
    problems: list[str] = field(default_factory=list)
    """What makes a command refuse, a line each with the way out."""
    repairable: bool = True
    """Whether `perftui doctor --repair` mends every problem (else a copy is needed)."""
    notes: list[str] = field(default_factory=list)
    """What every command ignores (files the store does not know)."""


def diagnose(store: Store, reader: Reader) -> Diagnosis:
    found = Diagnosis()
    try:
        reader.tables_of(reader.path)
        check_folder(reader.root, store.path)
    except StoreError as exc:
        found.problems.append(str(exc))
        found.repairable = convert.needed(reader.path)
        return found
    entries = []
    for doc in reader.entries().values():
        try:
            entries.append(entry_of(doc, store.path))
        except StoreError as exc:
            found.problems.append(str(exc))
            found.repairable = False
    for entry in entries:
        _project(reader, entry, found)
    _strays(reader, {e.folder for e in entries}, found)
    return found


def _project(reader: Reader, entry: Entry, found: Diagnosis) -> None:
    """The checks of one project: its files, each run and its payload, its benchmarks."""
    try:
        folder = reader.folder(entry)
        names = set(reader.found_parts(entry)) | set(entry.parts)
    except StoreError as exc:
        found.problems.append(str(exc))
        found.repairable = found.repairable and "--repair" in str(exc)
        return
    known = {BENCHMARKS, HEADS, PAYLOADS, *names}
    for name in sorted(names):
        try:
            docs = reader.run_docs(entry, [name])
        except StoreError as exc:
            found.problems.append(str(exc))
            found.repairable = found.repairable and "--repair" in str(exc)
            docs = []
        if len(docs) > entry.parts.get(name, 0):
            found.notes.append(
                f"project {entry.name!r}: {name} holds {len(docs)} run(s), the index counts"
                f" {entry.parts.get(name, 0)} (a write was interrupted); the next write to the"
                " project counts them, or `perftui doctor --repair`"
            )
        for doc in docs:
            known.add(f"{PAYLOADS}/{doc['id']}.npz")
            try:
                reader.record(entry, doc, with_layers=True)
                reader.payload(entry, doc, "samples")
            except StoreError as exc:
                found.problems.append(str(exc))
                found.repairable = False
    try:
        reader.benchmarks(entry)
    except StoreError as exc:
        found.problems.append(str(exc))
        found.repairable = found.repairable and "--repair" in str(exc)
    inside = [f"{PAYLOADS}/{name}" for name in listing(folder / PAYLOADS)]
    for name in [*listing(folder), *inside]:
        if name not in known:
            found.notes.append(f"project {entry.name!r}: {folder / name} {IGNORED}")


IGNORED = "is not a file of the database; perftui ignores it (remove it if you do not need it)"


def _strays(reader: Reader, folders: set[str], found: Diagnosis) -> None:
    """The files beside the index and in the projects' folder that no project names."""
    for name in listing(reader.root):
        if name not in folders:
            found.notes.append(f"{reader.root / name} {IGNORED}")
    index = reader.path.name
    ours = {index, f"{index}.lock", reader.root.name}
    backup = convert.backup_of(reader.path).name
    for name in listing(reader.path.parent):
        if name == backup:
            found.notes.append(
                f"{reader.path.parent / name} keeps the perftui 0.1 database this one was"
                " converted from; remove it once you no longer need it"
            )
        elif name.startswith(index) and name not in ours and not name.startswith(TEMP):
            found.notes.append(f"{reader.path.parent / name} {IGNORED}")


def tidy(tx: Transaction) -> None:
    """Remove what killed writes left: temporary files in the projects' folders, payloads no
    run file names (renamed before the kill, their runs never stored), and the folders a
    killed write made for a project it never stored, once empty. A folder with run files the
    index does not name is left for a person (noted); no link is followed."""
    reader = tx.reader
    entries = {doc.get("folder"): doc for doc in tx.projects.all()}
    for name in filter(PROJECT_ID.fullmatch, listing(reader.root)):
        folder, doc = reader.root / name, entries.get(name)
        payloads = folder / PAYLOADS
        if folder.is_symlink() or payloads.is_symlink():
            continue
        remove_temps([folder])
        try:
            entry = entry_of(doc, tx.shown) if doc is not None else None
            runs = (
                {d["id"] for p in reader.found_parts(entry) for d in reader.part(entry, p)}
                if entry is not None
                else None
            )
        except StoreError:
            continue  # damage: nothing is removed
        if runs is None and set(listing(folder)) - {PAYLOADS}:
            continue
        for payload in listing(payloads):
            run_id = payload.removesuffix(".npz")
            if payload.endswith(".npz") and RUN_ID.fullmatch(run_id) and run_id not in (runs or ()):
                (payloads / payload).unlink()
        if runs is None:
            for empty in (payloads, folder):
                with contextlib.suppress(OSError):
                    empty.rmdir()


def repair(tx: Transaction) -> list[str]:
    """Count what each project's files hold (the runs and benchmarks of a file that went
    missing or was cut are then gone from the counts; the files are left as they are) and
    compute its figures again; the lines saying what changed."""
    tidy(tx)
    said = []
    for doc in tx.projects.all():
        entry = entry_of(dict(doc), tx.shown)
        folder = tx.reader.folder(entry)
        parts = {name: len(tx.reader.part(entry, name)) for name in tx.reader.found_parts(entry)}
        tables = load_tables(folder / BENCHMARKS, tx.shown) or {}
        benchmarks = len(tables.get("benchmarks", {}))
        if parts != {k: v for k, v in entry.parts.items() if v or k in parts} or (
            benchmarks != entry.benchmarks
        ):
            said.append(
                f"project {entry.name!r}: counted {sum(parts.values())} run(s) (the index had"
                f" {entry.runs}) and {benchmarks} benchmark(s) (it had {entry.benchmarks})"
            )
        tx.update(entry.name, {"parts": parts, "benchmarks": benchmarks, "figures": None})
        tx.recount(entry.name)
    return said
