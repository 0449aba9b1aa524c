"""Reading the database (perftui.store.layout): the index and a project's files, each parsed at
most once per version of the file (a file is only ever replaced whole, so its inode, size and
times say when it changed). Nothing here writes or takes the lock.

Damage is StoreError, one line naming the file and the way out (`perftui doctor`), raised when
what is damaged is read: a damaged project stops reads of that project alone.
"""

from __future__ import annotations

import os
import threading
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from perftui.domain.errors import StoreError
from perftui.domain.records import Project, RunResult, StoredBenchmark
from perftui.store.files import check_folder, load_tables, stamp
from perftui.store.layout import (
    BENCHMARKS,
    HEADS,
    LAYOUT,
    PART,
    PAYLOADS,
    PROJECT_ID,
    RUN_ID,
    part_name,
    projects_root,
)
from perftui.store.runs import read_payload

__all__ = ["Entry", "Reader", "entry_of", "listing", "old_layout"]

T = TypeVar("T")
Tables = dict[str, dict[str, dict[str, Any]]]
MALFORMED = (KeyError, TypeError, ValueError, AttributeError)


@dataclass(frozen=True)
class Entry:
    """A project's document in the index, checked."""

    name: str
    folder: str
    project: Project
    parts: dict[str, int]
    """Run file name -> how many runs it held when the index was written."""
    benchmarks: int
    seq: int
    figures: dict[str, Any] | None
    doc: dict[str, Any]

    @property
    def runs(self) -> int:
        return sum(self.parts.values())


def entry_of(doc: dict[str, Any], shown: Path) -> Entry:
    """The entry of a project's document; StoreError (naming it) if it is malformed."""
    name = doc.get("name")
    try:
        if not isinstance(name, str) or not PROJECT_ID.fullmatch(doc["folder"]):
            raise ValueError("its name or folder is not one perftui made")
        parts = doc["parts"]
        if not isinstance(parts, dict) or not all(
            PART.fullmatch(k) and _count(v) for k, v in parts.items()
        ):
            raise ValueError("its run counts are not counts of its run files")
        if not _count(doc["benchmarks"]) or not _count(doc["seq"]):
            raise ValueError("its benchmark count or sequence is not a whole number")
        project = Project.from_dict({**doc["project"], "name": name})
        figures = doc.get("figures")
        return Entry(
            name,
            doc["folder"],
            project,
            parts,
            doc["benchmarks"],
            doc["seq"],
            figures if isinstance(figures, dict) else None,
            doc,
        )
    except MALFORMED as exc:
        raise StoreError(
            f"database {shown}: the index entry of project {name!r} is malformed ({exc});"
            " it was left untouched — restore the database from a copy (`perftui doctor`)"
        ) from None


def listing(folder: Path) -> list[str]:
    """The names in `folder`, sorted ([] if it cannot be read)."""
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def old_layout(path: Path, shown: Path) -> str | None:
    """One line with the way out when `path` is a database of an older layout, else None."""
    try:
        from perftui.store import upgrade
    except ImportError:  # pragma: no cover (the reader of layout 7 ships with this module)
        return None
    try:
        older = upgrade.older_layout(path)
        layout7 = older is None and upgrade.is_layout7(path)
    except StoreError:
        return None
    if older is not None:
        return (
            f"database {shown} has layout {older}, written by a pre-release perftui that was"
            " never released; this version reads layouts 7 and 8 only — use --db PATH"
        )
    if layout7:
        return (
            f"database {shown} was written by perftui 0.1 (layout 7); `perftui doctor"
            " --repair` (or any write) converts it, keeping the old files as a backup"
        )
    return None


class Reader:
    """The files of the database whose index is `path` (`shown` in messages)."""

    def __init__(self, path: Path, shown: Path) -> None:
        self.path, self.shown = path, shown
        self.root = projects_root(path)
        self._parsed: dict[Path, tuple[tuple[int, ...] | None, Any]] = {}
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[dict[str, Any], Entry]] = {}

    def _cached(self, path: Path, parse: Callable[[], T]) -> T:
        token = stamp(path)
        with self._lock:
            found = self._parsed.get(path)
        if found is not None and found[0] == token and token is not None:
            return found[1]
        value = parse()
        with self._lock:
            self._parsed[path] = (token, value)
        return value

    # ------------------------------------------------------------------ the index

    def index(self) -> Tables:
        """The index's tables ({} when there is no database yet)."""
        return self._cached(self.path, lambda: self.tables_of(self.path))

    def tables_of(self, path: Path) -> Tables:
        """The index's tables, read now and `checked`."""
        if os.path.isdir(path):
            raise StoreError(
                f"database path {self.shown} is a directory, not a file"
                " — use --db PATH/perftui.json"
            )
        try:
            data = load_tables(path, self.shown)
        except StoreError as exc:
            raise StoreError(old_layout(path, self.shown) or str(exc)) from None
        return self.checked(data)

    def checked(self, data: Tables | None) -> Tables:
        """The index's tables ({} for none yet); StoreError if they are not this layout's."""
        meta = list((data or {}).get("meta", {}).values())
        layout = meta[0].get("layout") if meta else None
        if isinstance(layout, int) and layout > LAYOUT:
            raise StoreError(
                f"database {self.shown} was written by a newer perftui (layout {layout}; this"
                f" version reads layout {LAYOUT}); it was left untouched — upgrade perftui or"
                " use --db PATH"
            )
        if data is not None and layout != LAYOUT:
            raise StoreError(
                old_layout(self.path, self.shown)
                or f"database {self.shown} is not a perftui database of layout {LAYOUT}; it"
                " was left untouched — restore it from a copy or use --db PATH"
            )
        if data is None and os.path.lexists(self.path) and listing(self.root):
            raise StoreError(
                f"database {self.shown} is empty while {self.root.name} holds projects; it was"
                " left untouched — restore it from a copy (`perftui doctor`)"
            )
        return data or {}

    def entries(self) -> dict[Any, dict[str, Any]]:
        """Project name -> its document, unchecked (`entry` checks the name is a string)."""
        return {doc.get("name"): doc for doc in self.index().get("projects", {}).values()}

    def entry(self, name: str) -> Entry | None:
        """The project's entry, checked once per version of the index."""
        doc = self.entries().get(name)
        if doc is None:
            return None
        known = self._entries.get(name)
        if known is None or known[0] is not doc:
            known = (doc, entry_of(doc, self.shown))
            self._entries[name] = known
        return known[1]

    def environments(self) -> dict[Any, Any]:
        """Environment id -> the environment, unchecked."""
        return {
            d.get("id"): d.get("environment") for d in self.index().get("environments", {}).values()
        }

    # ------------------------------------------------------------------ a project's files

    def folder(self, entry: Entry) -> Path:
        check_folder(self.root, self.shown)
        return check_folder(self.root / entry.folder, self.shown)

    def payloads(self, entry: Entry) -> Path:
        return check_folder(self.folder(entry) / PAYLOADS, self.shown)

    def part(self, entry: Entry, name: str) -> list[dict[str, Any]]:
        """The run documents of one of the project's run files, checked, as stored."""
        path = self.folder(entry) / name
        return self._cached(path, lambda: self._runs_in(path, entry))

    def _runs_in(self, path: Path, entry: Entry) -> list[dict[str, Any]]:
        docs = list((load_tables(path, self.shown) or {}).get("runs", {}).values())
        for doc in docs:
            if not (
                isinstance(doc.get("id"), str)
                and RUN_ID.fullmatch(doc["id"])
                and isinstance(doc.get("run"), dict)
                and _count(doc.get("seq"))
                and part_name(doc["run"].get("benchmark_id"), doc["run"].get("started_at"))
                == path.name  # not a copy under another name
            ):
                raise StoreError(
                    f"database {self.shown}: {path.name} of project {entry.name!r} holds a"
                    " malformed run; it was left untouched — restore it from a copy"
                    " (`perftui doctor`)"
                )
        return docs

    def found_parts(self, entry: Entry) -> list[str]:
        """The run files in the project's folder: those the index counts, and any a killed
        write made before its index."""
        try:
            names = sorted(n for n in os.listdir(self.folder(entry)) if PART.fullmatch(n))
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(
                f"database {self.shown}: the folder of project {entry.name!r} cannot be read"
                f" ({exc.strerror or exc}); it was left untouched"
            ) from None
        return [name for name in names if name in entry.parts or self._ours(entry, name)]

    def _ours(self, entry: Entry, name: str) -> bool:
        """Whether a run file the index does not count is one a killed write left (its runs
        are of its name), not a copy a person or a sync tool made under another name."""
        try:
            return bool(self.part(entry, name))
        except StoreError:
            return False

    def run_docs(self, entry: Entry, names: list[str] | None = None) -> list[dict[str, Any]]:
        """The project's run documents (of the files `names`, else all its run files'), in
        stored order; StoreError if a file holds fewer runs than the index counts."""
        docs = []
        if names is None:
            names = sorted({*self.found_parts(entry), *entry.parts})
        for name in names:
            found = self.part(entry, name)
            if len(found) < entry.parts.get(name, 0):
                gone = stamp(self.folder(entry) / name) is None
                raise self._short(entry, name, "is missing" if gone else f"holds {len(found)}")
            docs += found
        return sorted(docs, key=lambda doc: doc["seq"])

    def check_parts(self, entry: Entry) -> None:
        """StoreError if a run file the index counts runs in is missing (one listing)."""
        counted = [name for name, count in entry.parts.items() if count]
        if not counted:
            return
        try:
            present = set(os.listdir(self.folder(entry)))
        except OSError:
            present = set()
        for name in counted:
            if name not in present:
                raise self._short(entry, name, "is missing")

    def _short(self, entry: Entry, name: str, what: str) -> StoreError:
        return StoreError(
            f"database {self.shown}: {name} of project {entry.name!r} {what}, the index counts"
            f" {entry.parts[name]} run(s) in it — restore it from a copy, or `perftui doctor"
            " --repair` to go on without them"
        )

    def record(
        self,
        entry: Entry,
        doc: dict[str, Any],
        *,
        with_layers: bool,
        environments: dict[str, Any] | None = None,
    ) -> RunResult:
        """The run of `doc` (`environments`: the index's, when the caller has them)."""
        run = dict(doc["run"])
        layers = self.payload(entry, doc, "layers") if with_layers else None
        resolved = dict(run.get("resolved") or {})
        if "environment" in run:
            known = self.environments() if environments is None else environments
            resolved["environment"] = known.get(run.pop("environment"), {})
        try:
            return RunResult.from_dict(
                {**run, "project": entry.name, "layers": layers, "resolved": resolved}
            )
        except MALFORMED as exc:
            raise StoreError(
                f"database {self.shown}: run {doc['id']} of project {entry.name!r} is"
                f" malformed ({exc}); it was left untouched (`perftui doctor`)"
            ) from None

    def payload(self, entry: Entry, doc: dict[str, Any], kind: str) -> Any:
        """The run's samples or layer rows (None if it has none); StoreError if its file
        cannot be read or does not hold what its document counts."""
        count = doc.get(kind)
        if not count and count != 0:
            return None
        path = self.payloads(entry) / f"{doc['id']}.npz"
        try:
            found = read_payload(path, kind)
            if found is None or len(found) != count:
                raise ValueError(f"it holds no {count} {kind}")
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise StoreError(
                f"database {self.shown}: {path.name} of project {entry.name!r} cannot be read"
                f" ({why}); it was left untouched — restore it from a copy (`perftui doctor`)"
            ) from None
        return found

    def heads(self, entry: Entry) -> dict[str, Any] | None:
        """Each configuration's combined figures as the last write kept them; None if they
        cannot be read (a write then computes them from the runs)."""
        try:
            tables = load_tables(self.folder(entry) / HEADS, self.shown) or {}
            (doc,) = tables["heads"].values()
            return dict(doc["heads"])
        except (StoreError, KeyError, TypeError, ValueError):
            return None

    def benchmarks(self, entry: Entry) -> list[StoredBenchmark]:
        """The project's benchmark requests, oldest first."""
        path = self.folder(entry) / BENCHMARKS
        return self._cached(path, lambda: self._benchmarks_in(path, entry))

    def _benchmarks_in(self, path: Path, entry: Entry) -> list[StoredBenchmark]:
        docs = list((load_tables(path, self.shown) or {}).get("benchmarks", {}).values())
        if len(docs) < entry.benchmarks:
            raise StoreError(
                f"database {self.shown}: {BENCHMARKS} of project {entry.name!r} holds"
                f" {len(docs)} benchmark(s), the index counts {entry.benchmarks} — restore it"
                " from a copy, or `perftui doctor --repair` to go on without them"
            )
        try:
            return [StoredBenchmark.from_dict(doc) for doc in docs]
        except MALFORMED as exc:
            raise StoreError(
                f"database {self.shown}: {BENCHMARKS} of project {entry.name!r} holds a"
                f" malformed benchmark ({exc}); it was left untouched (`perftui doctor`)"
            ) from None
