"""Reads a database of perftui 0.1's store (layout 7) as it is, so that the store which
replaced it converts it once; it knows that layout alone and shares no code with the new one.

Layout 7, at the database path ``<db>`` (resolved once, as 0.1 resolved it: its folders
are beside the real file; nothing inside that folder is followed):

- ``<db>``: one JSON object of tables ``{"table": {key: document}}``: ``meta``
  (``schema_version`` 7), ``projects`` (``Project.to_dict()`` by name), ``shards`` (by
  project: ``{"project", "file", "tail", "count", "figures"}``), ``environments``
  (``{"id", "environment"}``), ``benchmark_file`` (``{"name"}``), ``retired`` and
  ``unclaimed`` (``{"folder", "name"}``: superseded files, and files an earlier layout left).
- ``<db>.d/runs/<file>`` then each ``<tail>``: one project's runs, read as one text: a header
  line, then a line per run ``{"run": document, "samples"|"layers": [count, pack, at, size]}``;
  a run document is ``RunResult.to_dict()`` without its layers, its environment's id in place
  of ``resolved["environment"]``.
- ``<db>.d/packs/<pack>``: zlib blobs end to end: samples as little-endian float32, a
  profile as a JSON list of ``LayerProfile.to_dict()`` rows.
- ``<db>.d/benchmarks/<name>``: ``{"benchmarks": [StoredBenchmark.to_dict(), ...]}``.
- ``<db>.journal/*.json``: runs parked while the lock was taken (``RunResult.to_dict()`` with
  ``latency_samples``), which 0.1's next write added to their projects.
- ``<db>.d/figures``, ``stamp``, ``pending``: figures and bookkeeping, computed again.
"""

from __future__ import annotations

import base64
import errno
import json
import os
import re
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import StoreError
from perftui.domain.records import Project, RunResult, StoredBenchmark

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Unread", "is_layout7", "layout7_files", "older_layout", "read_layout7"]

LAYOUT = 7
HEADER = b'{"perftui_shard":3}\n'
FILE_NAME = re.compile(r"[0-9a-f]{32}\.(?:json|pack)")
"""The only names 0.1 gave its runs, figures, benchmarks and pack files."""
RUN_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")
TEMP = re.compile(r"\.[^/]+\.[a-z0-9_]{8}\.tmp")
"""A temporary file a killed 0.1 write left beside the document (``.<db name>.<8>.tmp``)."""
MAX_BLOB = 2**31
MAX_SAMPLES = 50_000_000
LAYER_BYTES = 16_384
"""Most bytes one inflated layer row may take (0.1's limit)."""
KINDS = ("samples", "layers")
FOLDERS = (
    ("d", "", ""),
    ("runs", "d", "runs"),
    ("packs", "d", "packs"),
    ("benchmarks", "d", "benchmarks"),
    ("journal", "", ""),
)
"""The folders read: (folder, its parent, its name; "": the database's name and suffix)."""
KEYS = ("model", "engine")
MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError)

Run = tuple[RunResult, "np.ndarray | None"]
Ref = tuple[int, str, int, int]
"""A payload's [count, pack, at, size]."""


@dataclass(frozen=True)
class Unread:
    """What the old database holds that `read_layout7` yields no record for, one line each
    (a file relative to the database's folder and why): 0.1 kept them without reading
    them (runs files its document does not name, parked runs of a project that does not
    exist, a parked entry that cannot be read, benchmarks of no project). They stay in the
    backup; the converter names them to the person. Yielded last, at most once."""

    found: tuple[str, ...]


def is_layout7(path: Path) -> bool:
    """Whether the database at `path` is one of 0.1's layout 7 (False: no such file, or
    not a perftui 0.1 document); StoreError if it cannot be read or is not JSON."""
    return _version(path) == LAYOUT


def older_layout(path: Path) -> int | None:
    """The layout of the database at `path` when it is older than 7 (never released),
    else None."""
    version = _version(path)
    return version if version is not None and version < LAYOUT else None


def layout7_files(path: Path) -> list[Path]:
    """The files and folders of the old database at `path` that exist: the document, its
    ``.d`` and ``.journal`` folders (whole), backups of earlier layouts and temporary files
    a killed write left, all in the real document's folder. Not its ``.lock`` (the lock a
    converter may hold) nor the targets file (perftui.targets keeps it)."""
    real = Path(os.path.realpath(path))
    names = [real.name + suffix for suffix in (".d", ".journal")]
    names += [f"{real.name}.layout{n}.bak" for n in range(1, LAYOUT)]
    try:
        listed = os.listdir(real.parent)
    except OSError as exc:
        raise StoreError(f"database {path}: cannot list its folder ({exc.strerror})") from None
    temps = sorted(n for n in listed if n.startswith(f".{real.name}.") and TEMP.fullmatch(n))
    found = [name for name in [real.name, *names] if name in listed]
    return [real.parent / name for name in found + temps]


def read_layout7(path: Path) -> Iterator[Project | StoredBenchmark | Run | Unread]:
    """Every record of the layout-7 database at `path`, reading it in place and writing
    nothing: each project (in the document's order), then its benchmarks (oldest first),
    then its runs in the order they were stored, each with its layers as 0.1's
    ``Store.get_run`` gave them and its latency samples (float32, or None) as
    ``Store.latency_samples`` did; its parked runs after them, as 0.1's next write would
    have added them (one stored already is not given again). Then, if any, one `Unread`.

    StoreError (one line naming the file) on damage, which may come after records were
    yielded: convert all or nothing. Memory holds the document, the benchmark requests and
    one project's runs."""
    old = _Old(path)
    try:
        old.check()
        yield from old.items()
    finally:
        old.close()


def _version(path: Path) -> int | None:
    old = _Old(path)
    old.close()
    if old.raw is None or b'"schema_version"' not in old.raw:  # in every 0.1 document
        return None
    return old.version(old.json("", old.name, old.raw))


def _damaged(shown: Path, where: str, reason: str) -> StoreError:
    return StoreError(
        f"database {shown} (layout 7) is damaged: {where}: {reason}; it was left untouched"
    )


def _inflate(blob: bytes, limit: int) -> bytes:
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(blob, limit)
    except zlib.error as exc:
        raise ValueError(f"undecodable ({exc})") from None
    if inflater.unconsumed_tail or not inflater.eof:
        raise ValueError("inflates to more than its count allows, or is cut short")
    return out


def _samples(blob: bytes, count: int) -> np.ndarray:
    import numpy as np

    if count > MAX_SAMPLES:
        raise ValueError(f"{count} samples, more than {MAX_SAMPLES}")
    raw = _inflate(blob, count * 4)
    if len(raw) != count * 4:
        raise ValueError(f"count {count} does not match the data ({len(raw) / 4:g})")
    return np.frombuffer(raw, dtype="<f4").astype(np.float32)


def _layers(blob: bytes, count: int) -> list[dict[str, Any]]:
    rows = json.loads(_inflate(blob, max(count, 1) * LAYER_BYTES))
    if not isinstance(rows, list) or len(rows) != count:
        raise ValueError(f"not a list of {count} layers")
    return rows


def _ref(value: Any) -> Ref:
    """A run line's ``[count, pack, at, size]``; ValueError if it is not one."""
    if not isinstance(value, list) or len(value) != 4:
        raise ValueError(f"payload reference {str(value)[:60]!r} is not [count, pack, at, size]")
    count, pack, at, size = value
    for number, most in ((count, MAX_BLOB), (at, 2**62), (size, MAX_BLOB)):
        if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number <= most:
            raise ValueError(f"payload reference {str(value)[:60]!r} has a bad number")
    if not isinstance(pack, str) or not FILE_NAME.fullmatch(pack):
        raise ValueError(f"payload reference names {str(pack)[:60]!r}, not a pack of it")
    return count, pack, at, size


class _Old:
    """The old database: its document, its folders opened once (no link followed in the
    folder of the real document, as 0.1 resolved the database's path)."""

    def __init__(self, path: Path) -> None:
        self.shown = path
        real = Path(os.path.realpath(path))
        self.name = real.name
        self.places = {"": "", "d": f"{real.name}.d", "journal": f"{real.name}.journal"}
        self.places |= {f: f"{real.name}.d/{f}" for f in ("runs", "packs", "benchmarks")}
        self.fds: dict[str, int | None] = {"": None}
        try:
            self.fds[""] = os.open(real.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise self.damaged(str(real.parent), exc.strerror or str(exc)) from None
        try:
            self.raw = self.maybe("", real.name)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        for fd in self.fds.values():
            if fd is not None:
                os.close(fd)
        self.fds.clear()

    def damaged(self, where: str, reason: str) -> StoreError:
        return _damaged(self.shown, where, reason)

    def where(self, folder: str, name: str = "") -> str:
        """A path as shown: relative to the database's folder."""
        return "/".join(filter(None, (self.places[folder], name)))

    def open(self, folder: str, name: str, *, is_folder: bool = False) -> int | None:
        """A descriptor of `name` in `folder`, a regular file or a folder, not through a
        link; None if it does not exist."""
        at, where = self.fds.get(folder), self.where(folder, name)
        flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | (os.O_DIRECTORY if is_folder else 0)
        try:
            fd = os.open(name, flags, dir_fd=at) if at is not None else None
        except FileNotFoundError:
            return None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            if exc.errno in (errno.ENOTDIR, errno.ELOOP):
                link = stat.S_ISLNK(os.lstat(name, dir_fd=at).st_mode)
                kind = "a folder" if is_folder else "a regular file"
                reason = "a symbolic link, not followed" if link else f"not {kind}"
            raise self.damaged(where, reason) from None
        if fd is not None and not is_folder and not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise self.damaged(where, "not a regular file")
        return fd

    def read(self, folder: str, name: str) -> bytes:
        found = self.maybe(folder, name)
        if found is None:
            raise self.damaged(self.where(folder, name), "missing")
        return found

    def maybe(self, folder: str, name: str) -> bytes | None:
        """The bytes of the file (None: it does not exist)."""
        fd = self.open(folder, name)
        if fd is None:
            return None
        try:
            with os.fdopen(fd, "rb", closefd=False) as handle:
                return handle.read()
        except OSError as exc:
            raise self.damaged(self.where(folder, name), exc.strerror or str(exc)) from None
        finally:
            os.close(fd)

    def json(self, folder: str, name: str, raw: bytes | None = None) -> Any:
        try:
            return json.loads(self.read(folder, name) if raw is None else raw)
        except (ValueError, RecursionError) as exc:
            raise self.damaged(self.where(folder, name), f"not JSON ({str(exc)[:80]})") from None

    def version(self, data: Any) -> int | None:
        """The document's layout (None: it is not one of perftui 0.1)."""
        if not isinstance(data, dict) or not isinstance(data.get("meta"), dict):
            return None
        meta = next(iter(data["meta"].values()), None)
        version = meta.get("schema_version") if isinstance(meta, dict) else None
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise self.damaged(self.name, f"bad schema version {str(version)[:20]!r}")
        return version

    def listed(self, folder: str) -> list[str]:
        """The names in the folder, sorted ([] if it does not exist)."""
        fd = self.fds[folder]
        try:
            return sorted(os.listdir(fd)) if fd is not None else []
        except OSError as exc:
            raise self.damaged(self.where(folder), exc.strerror or str(exc)) from None

    def check(self) -> None:
        """Check the document (StoreError unless it is layout 7) and open its folders."""
        data: Any = self.json("", self.name, self.raw) if self.raw is not None else None
        if self.version(data) != LAYOUT:
            raise StoreError(f"database {self.shown} is not one of perftui 0.1 (layout 7)")
        for table, value in data.items():
            if not isinstance(value, dict) or not all(isinstance(d, dict) for d in value.values()):
                raise self.damaged(self.name, f"table {str(table)[:40]!r} is not a table")
        self.projects: dict[str, dict[str, Any]] = data.get("projects", {})
        self.entries: dict[str, dict[str, Any]] = data.get("shards", {})
        for name, doc in self.projects.items():
            if doc.get("name") != name or not all(isinstance(doc.get(k), str) for k in KEYS):
                raise self.damaged(self.name, f"project {name[:60]!r} lacks name/model/engine")
        for name, entry in self.entries.items():
            count = entry.get("count")
            if entry.get("project") != name or name not in self.projects:
                raise self.damaged(self.name, f"the runs entry {name[:60]!r} names no project")
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise self.damaged(self.name, f"the runs entry of {name[:60]!r} counts no runs")
            self._files(entry)
        try:
            environments = data.get("environments", {}).values()
            self.environments = {d["id"]: d["environment"] for d in environments}
        except (KeyError, TypeError):
            raise self.damaged(self.name, "an environment lacks id/environment") from None
        files = list(data.get("benchmark_file", {}).values())
        self.benchmark_file = files[0].get("name") if files else None
        if len(files) > 1 or (files and not _named(self.benchmark_file)):
            raise self.damaged(self.name, "the benchmarks file is named wrongly")
        self.benchmarks_at = self.where("benchmarks", str(self.benchmark_file))
        kept = [*data.get("retired", {}).values(), *data.get("unclaimed", {}).values()]
        self.kept = {(str(d.get("folder")), str(d.get("name"))) for d in kept}
        for folder, parent, name in FOLDERS:
            self.fds[folder] = self.open(parent, name or self.places[folder], is_folder=True)

    def _files(self, entry: dict[str, Any]) -> list[str]:
        tail = entry.get("tail", [])
        files = [entry.get("file"), *(tail if isinstance(tail, list) else [None])]
        if not all(map(_named, files)):
            project = str(entry.get("project"))[:60]
            raise self.damaged(self.name, f"the runs entry of {project!r} names a bad file")
        return files

    # ------------------------------------------------------------------ records

    def items(self) -> Iterator[Project | StoredBenchmark | Run | Unread]:
        benchmarks = self._benchmarks()
        unread: list[str] = []
        parked = self._parked(unread)
        for name, doc in self.projects.items():
            yield self._record(Project.from_dict, doc, self.name, f"project {name[:60]!r}")
            for bench in benchmarks.pop(name, []):
                what = f"benchmark {str(bench['id'])[:60]!r}"
                yield self._record(StoredBenchmark.from_dict, bench, self.benchmarks_at, what)
            stored: set[str] = set()
            runs = self._runs(name, self.entries[name]) if name in self.entries else iter(())
            for entry in parked.pop(name, []):
                runs = chain(runs, (r for r in self._entry(entry) if r[0].project == name))
            for run in runs:
                if run[0].id not in stored:  # a parked run stored already
                    stored.add(run[0].id)
                    yield run
        for entry in sorted({entry for entries in parked.values() for entry in entries}):
            unread.append(f"{self.where('journal', entry)}: runs of a project that is no more")
        for project, docs in benchmarks.items():
            at = self.benchmarks_at
            unread += [f"{at}: benchmark {d['id']} of no project ({project!r})" for d in docs]
        unread += self._strays()
        if unread:
            yield Unread(tuple(unread))

    def _record(self, make: Any, doc: dict[str, Any], where: str, what: str) -> Any:
        try:
            return make(doc)
        except MALFORMED as exc:
            raise self.damaged(where, f"{what} is malformed ({type(exc).__name__})") from None

    def _benchmarks(self) -> dict[Any, list[dict[str, Any]]]:
        """The benchmark documents by project name, oldest first (of one id, the last in
        the first one's place, as 0.1 read them)."""
        if self.benchmark_file is None:
            return {}
        where = self.benchmarks_at
        found = self.json("benchmarks", self.benchmark_file)
        docs = found.get("benchmarks") if isinstance(found, dict) else None
        if not isinstance(docs, list) or not all(isinstance(d, dict) and "id" in d for d in docs):
            raise self.damaged(where, "not a list of benchmarks")
        by_project: dict[Any, list[dict[str, Any]]] = {}
        for doc in {doc["id"]: doc for doc in docs}.values():
            by_project.setdefault(doc.get("project_name"), []).append(doc)
        return by_project

    def _runs(self, project: str, entry: dict[str, Any]) -> Iterator[Run]:
        """The project's runs as stored: its file, then the segments appended since."""
        lines: dict[str, tuple[dict[str, Any], dict[str, Ref], str]] = {}
        count = 0
        for n, file in enumerate(self._files(entry)):
            where, raw = self.where("runs", file), self.read("runs", file)
            if raw.startswith(HEADER) != (n == 0):
                raise self.damaged(where, "not a runs file of layout 7 (its header)")
            first = 1 if n == 0 else 0  # past the header
            for number, text in enumerate(raw.splitlines()[first:], first + 1):
                try:
                    item = json.loads(text)
                    doc = item["run"]
                    run_id = doc["id"]
                    refs = {kind: _ref(item[kind]) for kind in KINDS if kind in item}
                    if not (RUN_ID.fullmatch(run_id) and doc["project"] == project):
                        raise ValueError(f"run {run_id[:60]!r} is not one of {project[:60]!r}")
                    if not isinstance(doc["config"], dict):
                        raise ValueError(f"run {run_id} has no config")
                except MALFORMED as exc:
                    raise self.damaged(f"{where} line {number}", str(exc)[:100]) from None
                lines[run_id] = (doc, refs, f"{where} line {number}")
                count += 1
        if count != entry["count"]:
            reason = f"{count} runs where the document counts {entry['count']}"
            raise self.damaged(self.where("runs", entry["file"]), reason)
        packs: dict[str, int] = {}
        try:
            for doc, refs, where in lines.values():
                yield self._run(doc, refs, packs, where)
        finally:
            for fd in packs.values():
                os.close(fd)

    def _run(
        self, doc: dict[str, Any], refs: dict[str, Ref], packs: dict[str, int], line: str
    ) -> Run:
        """The run of the runs file's `line` as 0.1 read it, with its payloads (`packs`:
        those opened so far)."""
        run_id, payloads = doc["id"], dict[str, Any]()
        for kind, (count, pack, at, size) in refs.items():
            where = self.where("packs", pack)
            try:
                if pack not in packs and (fd := self.open("packs", pack)) is not None:
                    packs[pack] = fd
                if pack not in packs:
                    raise FileNotFoundError
                blob = os.pread(packs[pack], size, at)
                if len(blob) != size:
                    raise ValueError("cut short")
                payloads[kind] = (_layers if kind == "layers" else _samples)(blob, count)
            except FileNotFoundError:
                raise self.damaged(where, f"missing ({kind} of run {run_id})") from None
            except (OSError, ValueError, RecursionError) as exc:
                raise self.damaged(where, f"{kind} of run {run_id}: {exc}") from None
        resolved = dict(doc.get("resolved") or {})
        if "environment" in doc:  # kept once for the runs that recorded the same one
            resolved["environment"] = self.environments.get(doc["environment"], {})
        whole = {**doc, "layers": payloads.get("layers"), "resolved": resolved}
        run = self._record(RunResult.from_dict, whole, line, f"run {run_id}")
        return run, payloads.get("samples")

    # ------------------------------------------------------------------ parked, strays

    def _parked(self, unread: list[str]) -> dict[str, list[str]]:
        """Project name -> the journal entries holding runs of it (0.1 skipped an entry it
        could not read: in `unread`)."""
        found: dict[str, list[str]] = {}
        for name in self.listed("journal"):
            if not name.endswith(".json"):
                continue
            try:
                projects = {run.project for run, _ in self._entry(name)}
            except (StoreError, *MALFORMED):
                unread.append(f"{self.where('journal', name)}: parked runs 0.1 could not read")
                continue
            for project in projects:
                found.setdefault(project, []).append(name)
        return found

    def _entry(self, name: str) -> list[Run]:
        """The runs a journal entry parks, with their samples."""
        docs = self.json("journal", name)["runs"]
        return [
            (RunResult.from_dict(doc), _parked_samples(doc.get("latency_samples"))) for doc in docs
        ]

    def _strays(self) -> list[str]:
        """Runs and benchmarks files the document does not name (0.1 refused to read beside
        them), but a killed write's (named with the token of its ``pending`` mark)."""
        named = {("benchmarks", self.benchmark_file), *self.kept}
        named |= {("runs", f) for entry in self.entries.values() for f in self._files(entry)}
        try:
            token = json.loads(self.read("d", "pending"))["token"] or None
        except (StoreError, *MALFORMED):
            token = None
        found = []
        for folder in ("runs", "benchmarks"):
            for name in self.listed(folder):
                killed = isinstance(token, str) and name.startswith(token)
                if FILE_NAME.fullmatch(name) and (folder, name) not in named and not killed:
                    found.append(f"{self.where(folder, name)}: a file its document does not name")
        return found


def _named(name: Any) -> bool:
    return isinstance(name, str) and FILE_NAME.fullmatch(name) is not None


def _parked_samples(doc: Any) -> np.ndarray | None:
    """A parked run's samples (base64 of their zlib blob)."""
    if not doc:
        return None
    if doc["codec"] != "zlib+base64" or doc["dtype"] != "float32":
        raise ValueError("unknown samples encoding")
    count = doc["count"]
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise ValueError("bad samples count")
    return _samples(base64.b64decode(doc["data"], validate=True), count)
