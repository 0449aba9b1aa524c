"""The results database: TinyDB tables in one JSON file, written atomically by one writer at a time.

Layout (TinyDB tables of one JSON document; the public identity of a record is its "id"
field, a uuid4 hex string, never a TinyDB document id):

- ``meta``: ``{"schema_version": 1, "created_at", "generator"}``, written on the first write.
- ``projects``: ``Project.to_dict()``, the model as an absolute path.
- ``benchmarks``: ``{"id", "project_name", "created_at", **BenchmarkRequest.to_dict()}``.
- ``runs``: ``RunResult.to_dict()`` with ``"layers": null`` (layers live in their own table).
- ``layers``: ``{"run_id", "codec": "json+zlib+base64", "count", "data"}`` (a JSON list of
  ``LayerProfile.to_dict()``), only for profiled runs.
- ``samples``: ``{"run_id", "dtype": "float32", "codec": "zlib+base64", "count", "data"}``.

Writes take an exclusive ``flock`` on ``<db>.lock``, read the file afresh, apply TinyDB
operations on a buffered storage and commit once: the whole document goes to a temporary
file in the same directory, is fsynced and renamed over the database (``os.replace``), then
the directory is fsynced. A kill at any point leaves either the old or the new file.
Reads take no lock (the file is always whole); the parsed file is cached per
(device, inode, size, mtime, ctime), so reading an unchanged database costs one ``stat``.
A write reads the file under the lock and re-parses it only if its bytes (SHA-256)
differ from the cached version, so a process never writes from a stale copy.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import hashlib
import json
import os
import stat
import tempfile
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import fields, replace
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs
from tinydb import TinyDB, where
from tinydb.storages import Storage
from tinydb.table import Table

from perftui import __version__
from perftui.domain.errors import InputError, StoreError
from perftui.domain.records import BenchmarkRequest, LayerProfile, Project, RunResult
from perftui.domain.summary import ProjectSummary, summarize

try:  # POSIX; elsewhere the lock is a no-op (perftui targets Linux/macOS servers)
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "AtomicJSONStorage",
    "DocumentEncoder",
    "Store",
    "atomic_write_bytes",
    "decode_layers",
    "decode_samples",
    "default_db_path",
    "encode_layers",
    "encode_samples",
    "normalize_model_path",
    "now_iso",
    "same_target",
]

SAMPLES_CODEC = "zlib+base64"
LAYERS_CODEC = "json+zlib+base64"
_Sig = tuple[int, int, int, int, int]


def default_db_path() -> Path:
    """``$PERFTUI_DB`` if set, else ``<user data dir>/perftui/perftui.json``."""
    env = os.environ.get("PERFTUI_DB")
    if env:
        return Path(env).expanduser()
    return platformdirs.user_data_path("perftui") / "perftui.json"


def now_iso() -> str:
    """The current time, ISO-8601 in UTC to the second, e.g. '2025-01-31T12:00:00+00:00'."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def encode_samples(samples_ms: np.ndarray | Sequence[float]) -> dict[str, Any]:
    """Latency samples as a JSON-able dict: float32 little-endian -> zlib -> base64."""
    arr = np.ascontiguousarray(np.asarray(samples_ms, dtype="<f4").ravel())
    data = base64.b64encode(zlib.compress(arr.tobytes(), 6)).decode("ascii")
    return {"dtype": "float32", "codec": SAMPLES_CODEC, "count": int(arr.size), "data": data}


def decode_samples(doc: dict[str, Any]) -> np.ndarray:
    """The float32 array that `encode_samples` encoded; ValueError if the dict is not one."""
    if doc.get("codec") != SAMPLES_CODEC or doc.get("dtype") != "float32":
        raise ValueError(f"unknown samples encoding {doc.get('codec')!r}/{doc.get('dtype')!r}")
    try:
        raw = zlib.decompress(base64.b64decode(doc["data"], validate=True))
    except (KeyError, TypeError, ValueError, zlib.error) as exc:
        raise ValueError(f"undecodable samples ({exc})") from exc
    if len(raw) % 4:
        raise ValueError("undecodable samples (length is not a multiple of 4 bytes)")
    arr = np.frombuffer(raw, dtype="<f4").astype(np.float32)
    if "count" in doc and int(doc["count"]) != arr.size:
        raise ValueError(f"samples count {doc['count']} does not match the data ({arr.size})")
    return arr


def encode_layers(layers: Sequence[LayerProfile]) -> dict[str, Any]:
    """A per-layer profile as a JSON-able dict: JSON list -> zlib -> base64 (small, and fast
    to load: a profile of hundreds of layers is one string, not hundreds of objects)."""
    rows = [{name: getattr(layer, name) for name in _LAYER_FIELDS} for layer in layers]
    text = json.dumps(_plain(rows), separators=(",", ":"))
    data = base64.b64encode(zlib.compress(text.encode("utf-8"), 6)).decode("ascii")
    return {"codec": LAYERS_CODEC, "count": len(layers), "data": data}


_LAYER_FIELDS = tuple(f.name for f in fields(LayerProfile))
"""The keys of `LayerProfile.to_dict()` (built by hand: `asdict` is slow for big profiles)."""


def decode_layers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The list of `LayerProfile.to_dict()` dicts that `encode_layers` encoded."""
    if doc.get("codec") != LAYERS_CODEC:
        raise ValueError(f"unknown layers encoding {doc.get('codec')!r}")
    try:
        layers = json.loads(zlib.decompress(base64.b64decode(doc["data"], validate=True)))
    except (KeyError, TypeError, ValueError, zlib.error) as exc:
        raise ValueError(f"undecodable layers ({exc})") from exc
    if not isinstance(layers, list) or not all(isinstance(x, dict) for x in layers):
        raise ValueError("undecodable layers (not a list of objects)")
    return layers


def normalize_model_path(model: str) -> str:
    """How a project's model path is stored and compared: absolute, ~ expanded."""
    return os.path.abspath(os.path.expanduser(model)) if model else model


def same_target(a: Project, b: Project) -> bool:
    """Whether two projects measure the same model with the same engine on the same device."""
    return (
        normalize_model_path(a.model) == normalize_model_path(b.model)
        and a.engine == b.engine
        and a.device.upper() == b.device.upper()
    )


# --------------------------------------------------------------------------- file level


def _damaged(path: Path, reason: str) -> StoreError:
    return StoreError(
        f"database {path} is damaged ({reason}); it was left untouched"
        " — move it aside or use --db PATH"
    )


def _signature(st: os.stat_result) -> _Sig:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _read_bytes(path: Path, shown: Path) -> tuple[bytes, _Sig] | None:
    """The file's bytes and signature (None if it does not exist); StoreError if unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise StoreError(
            f"database path {shown} is a directory, not a file — use --db PATH/perftui.json"
        ) from None
    except PermissionError:
        raise StoreError(
            f"database {shown} cannot be read (permission denied); it was left untouched"
            " — fix its permissions or use --db PATH"
        ) from None
    except OSError as exc:
        raise StoreError(
            f"database {shown} cannot be read ({exc.strerror or exc}); use --db PATH"
        ) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        if stat.S_ISDIR(st.st_mode):
            raise StoreError(
                f"database path {shown} is a directory, not a file — use --db PATH/perftui.json"
            )
        raise StoreError(f"database path {shown} is not a regular file; use --db PATH")
    with os.fdopen(fd, "rb") as handle:
        try:
            raw = handle.read()
        except OSError as exc:
            raise StoreError(
                f"database {shown} cannot be read ({exc.strerror or exc}); use --db PATH"
            ) from None
    return raw, _signature(st)


def _digest(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()  # hardware-accelerated on current CPUs


def _load(
    path: Path, shown: Path, schema_version: int, reuse: _Snapshot | None = None
) -> _Snapshot:
    """Read and validate the database file (an empty snapshot if it does not exist).

    `reuse` is returned instead of parsing again when the bytes are the same as its own.
    """
    got = _read_bytes(path, shown)
    if got is None:
        return _Snapshot({}, None, None, shown)
    raw, sig = got
    digest = _digest(raw)
    if reuse is not None and reuse.digest == digest:
        reuse.sig = sig
        return reuse
    return _Snapshot(_parse(raw, shown, schema_version), sig, digest, shown)


def _parse(raw: bytes, shown: Path, schema_version: int) -> dict[str, Any]:
    if not raw.strip():
        return {}  # an empty file holds nothing to lose
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise _damaged(shown, "not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise _damaged(shown, f"{exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise _damaged(shown, "nested too deeply") from None
    if not isinstance(data, dict):
        raise _damaged(shown, "the top level is not a JSON object")
    for name, table in data.items():
        if not isinstance(table, dict) or not all(isinstance(d, dict) for d in table.values()):
            raise _damaged(shown, f"table {name!r} is not a table of documents")
    meta = list(data.get("meta", {}).values())
    if not meta:
        if any(data.values()):
            raise StoreError(
                f"database {shown} is not a perftui database (no schema version);"
                " it was left untouched — use --db PATH"
            )
        return data
    version = meta[0].get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _damaged(shown, f"bad schema version {version!r}")
    if version > schema_version:
        raise StoreError(
            f"database {shown} was written by a newer perftui (schema {version}; this version"
            f" reads schema {schema_version}); it was left untouched"
            " — upgrade perftui or use --db PATH"
        )
    for doc_id, doc in data.get("projects", {}).items():
        if not all(isinstance(doc.get(k), str) for k in ("name", "model", "engine")):
            raise _damaged(shown, f"project document {doc_id} lacks name/model/engine")
    for doc_id, doc in data.get("runs", {}).items():
        if not (
            isinstance(doc.get("id"), str)
            and isinstance(doc.get("project"), str)
            and isinstance(doc.get("config"), dict)
        ):
            raise _damaged(shown, f"run document {doc_id} lacks id/project/config")
    return data


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform/filesystem allows it
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _temp_prefix(target: Path) -> str:
    return f".{target.name}."


def _remove_orphan_temps(target: Path) -> None:
    """Delete temp files a killed writer left behind (call only while holding the lock)."""
    with contextlib.suppress(OSError):
        for entry in target.parent.iterdir():
            name = entry.name
            if name.startswith(_temp_prefix(target)) and name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    entry.unlink()


def dump_json(data: Any) -> bytes:
    """Compact UTF-8 JSON."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class DocumentEncoder:
    """Serializes the tables document, re-using the JSON of documents it encoded before.

    Documents of a committed snapshot are never mutated (writes copy what they edit), so a
    document object seen again encodes to the same bytes; only new documents are encoded.
    This keeps a write of a database holding large sample blobs from re-escaping them all.
    """

    def __init__(self) -> None:
        self._fragments: dict[int, tuple[dict[str, Any], bytes]] = {}

    def encode(self, data: dict[str, dict[str, dict[str, Any]]]) -> bytes:
        fragments: dict[int, tuple[dict[str, Any], bytes]] = {}
        parts: list[bytes] = [b"{"]
        for t, (name, table) in enumerate(data.items()):
            parts.append((b"," if t else b"") + dump_json(str(name)) + b":{")
            for d, (doc_id, doc) in enumerate(table.items()):
                hit = self._fragments.get(id(doc))
                fragment = hit[1] if hit is not None and hit[0] is doc else dump_json(doc)
                fragments[id(doc)] = (doc, fragment)
                parts.append((b"," if d else b"") + dump_json(str(doc_id)) + b":")
                parts.append(fragment)
            parts.append(b"}")
        parts.append(b"}")
        self._fragments = fragments
        return b"".join(parts)


def atomic_write_bytes(target: Path, payload: bytes) -> os.stat_result:
    """Write `payload` to `target` so that a crash leaves the old or the new file, whole.

    Temp file in the same directory, flush + fsync, keep the old file's mode, os.replace,
    fsync the directory. Returns the new file's stat. Raises OSError (temp file removed).
    """
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(target), suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(target.parent)
    return os.stat(target)


@contextlib.contextmanager
def _exclusive_lock(lock_path: Path, shown: Path, timeout_s: float) -> Iterator[None]:
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StoreError(
            f"cannot lock database {shown} ({exc.strerror or exc} on {lock_path});"
            " use --db PATH in a writable directory"
        ) from None
    try:
        if fcntl is not None:
            deadline = time.monotonic() + timeout_s
            delay = 0.001
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise StoreError(
                            f"database {shown} is locked by another perftui process"
                            f" (waited {timeout_s:.0f} s); try again"
                        ) from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.05)
        yield
    finally:
        os.close(fd)  # releases the flock


class AtomicJSONStorage(Storage):
    """TinyDB storage over one JSON file that never leaves a half-written file.

    It holds the document in memory: `read` returns it (loading the file on first use),
    `write` replaces it and marks it dirty, and `commit` writes the whole document once with
    `atomic_write_bytes`. Several TinyDB operations thus make one write, all or nothing.
    """

    def __init__(
        self,
        path: str | Path,
        data: dict[str, Any] | None = None,
        read_only: bool = False,
        encoder: DocumentEncoder | None = None,
    ) -> None:
        self.path = Path(path)
        self.data = data
        self.read_only = read_only
        self.encoder = encoder
        self.dirty = False
        self.digest: bytes | None = None
        """Digest of the bytes written by the last `commit`."""

    def read(self) -> dict[str, Any]:
        if self.data is None:
            self.data = _load(self.path, self.path, Store.SCHEMA_VERSION).data
        return self.data

    def write(self, data: dict[str, Any]) -> None:
        if self.read_only:
            raise StoreError(f"database {self.path} was opened read-only")
        self.data = data
        self.dirty = True

    def commit(self) -> os.stat_result | None:
        """Write the document if it changed; the new file's stat, or None if nothing changed."""
        if not self.dirty or self.data is None:
            return None
        payload = self.encoder.encode(self.data) if self.encoder else dump_json(self.data)
        result = atomic_write_bytes(self.path, payload)
        self.digest = _digest(payload)
        self.dirty = False
        return result


# --------------------------------------------------------------------------- documents


def _plain(value: Any) -> Any:
    """A copy of `value` made of JSON types only (numpy scalars/arrays and paths converted)."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"cannot store a value of type {type(value).__name__}: {value!r}")


def _time_key(stamp: str) -> float:
    if not stamp:
        return float("-inf")
    text = stamp[:-1] + "+00:00" if stamp.endswith(("Z", "z")) else stamp
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return float("-inf")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def _doc_key(doc_id: str) -> int:
    try:
        return int(doc_id)
    except ValueError:
        return 0


def _run_doc(run: RunResult) -> dict[str, Any]:
    return _plain(replace(run, layers=None).to_dict())


def _project_doc(project: Project) -> dict[str, Any]:
    return _plain(project.to_dict())


class _Snapshot:
    """One parsed version of the file, with lazily built indexes (never mutated)."""

    def __init__(
        self, data: dict[str, Any], sig: _Sig | None, digest: bytes | None, shown: Path
    ) -> None:
        self.data = data
        self.shown = shown
        self.sig = sig
        self.digest = digest
        self._runs: dict[str, RunResult] = {}

    def writable_copy(self, deep_tables: Sequence[str] = ()) -> dict[str, Any]:
        """Tables for a write: new table dicts sharing the (never mutated) documents, except
        `deep_tables`, whose documents are copied too (for operations that edit in place)."""
        return {
            name: copy.deepcopy(table) if name in deep_tables else dict(table)
            for name, table in self.data.items()
        }

    def _table(self, name: str) -> dict[str, dict[str, Any]]:
        return self.data.get(name, {})

    @cached_property
    def projects(self) -> dict[str, Project]:
        docs = sorted(self._table("projects").items(), key=lambda kv: _doc_key(kv[0]))
        return {doc["name"]: Project.from_dict(doc) for _, doc in docs}

    @cached_property
    def run_docs(self) -> dict[str, dict[str, Any]]:
        """Run id -> document, newest first (ties: last stored first)."""
        items = sorted(
            self._table("runs").items(),
            key=lambda kv: (_time_key(kv[1].get("started_at", "")), _doc_key(kv[0])),
            reverse=True,
        )
        return {doc["id"]: doc for _, doc in items}

    @cached_property
    def run_ids_by_project(self) -> dict[str, list[str]]:
        index: dict[str, list[str]] = {}
        for run_id, doc in self.run_docs.items():
            index.setdefault(doc["project"], []).append(run_id)
        return index

    @cached_property
    def layers(self) -> dict[str, dict[str, Any]]:
        return {d["run_id"]: d for d in self._table("layers").values()}

    @cached_property
    def samples(self) -> dict[str, dict[str, Any]]:
        return {d["run_id"]: d for d in self._table("samples").values()}

    @cached_property
    def benchmarks(self) -> dict[str, dict[str, Any]]:
        docs = sorted(self._table("benchmarks").items(), key=lambda kv: _doc_key(kv[0]))
        return {doc["id"]: doc for _, doc in docs}

    def run(self, run_id: str, *, with_layers: bool = True) -> RunResult | None:
        cached = self._runs.get(run_id)
        if cached is not None:
            return cached
        doc = self.run_docs.get(run_id)
        if doc is None:
            return None
        layers = None
        if with_layers and run_id in self.layers:
            try:
                layers = decode_layers(self.layers[run_id])
            except ValueError as exc:
                raise _damaged(self.shown, f"layers of run {run_id}: {exc}") from None
        resolved = copy.deepcopy(doc.get("resolved")) if doc.get("resolved") else {}
        result = RunResult.from_dict({**doc, "layers": layers, "resolved": resolved})
        if with_layers:
            self._runs[run_id] = result
        return result

    def runs(self, project: str, *, with_layers: bool = True) -> list[RunResult]:
        ids = self.run_ids_by_project.get(project, [])
        return [r for r in (self.run(i, with_layers=with_layers) for i in ids) if r]

    @cached_property
    def summaries(self) -> list[tuple[Project, ProjectSummary]]:
        projects = sorted(self.projects.values(), key=lambda p: (p.name.casefold(), p.name))
        return [(p, summarize(self.runs(p.name, with_layers=False))) for p in projects]


# --------------------------------------------------------------------------- the store


class Store:
    """The results database at `path` (a JSON file; created on the first write).

    Safe for several processes and threads: writes are serialized by a lock file and each
    one reads the file afresh; reads never block. Errors are `StoreError` (the file cannot
    be used; it is left untouched) or `InputError` (a wrong name or id).
    """

    SCHEMA_VERSION = 1
    LOCK_TIMEOUT_S = 30.0

    def __init__(self, path: str | Path) -> None:
        self.path: Path = Path(path).expanduser().absolute()
        self._snapshot: _Snapshot | None = None
        self._encoder = DocumentEncoder()
        self._cache_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    # ------------------------------------------------------------------ plumbing

    def _read(self) -> _Snapshot:
        """The current contents, parsed at most once per version of the file."""
        try:
            sig = _signature(os.stat(self.path))
        except OSError:
            sig = None  # missing or not stat-able: _load says which
        snap = self._snapshot
        if snap is not None and sig is not None and snap.sig == sig:
            return snap
        snap = _load(self.path, self.path, self.SCHEMA_VERSION, reuse=snap)
        if snap.sig is not None:
            with self._cache_lock:
                self._snapshot = snap
        return snap

    @contextlib.contextmanager
    def _transaction(self, edits_in_place: Sequence[str] = ()) -> Iterator[TinyDB]:
        """Lock, read the file, yield a TinyDB on a buffered storage, commit once on success.

        The file is read under the lock every time; it is parsed again only if its bytes
        differ from the cached snapshot's. `edits_in_place` names the tables whose documents
        the operation updates in place (TinyDB `update`), so they are copied first.
        """
        target = Path(os.path.realpath(self.path))
        if target.is_dir():
            raise StoreError(
                f"database path {self.path} is a directory, not a file — use --db PATH/perftui.json"
            )
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the directory of database {self.path}"
                f" ({exc.strerror or exc}); use --db PATH"
            ) from None
        lock_path = target.with_name(target.name + ".lock")
        with _exclusive_lock(lock_path, self.path, self.LOCK_TIMEOUT_S):
            snap = _load(target, self.path, self.SCHEMA_VERSION, reuse=self._snapshot)
            data = snap.writable_copy(edits_in_place)
            db = TinyDB(target, data=data, encoder=self._encoder, storage=AtomicJSONStorage)
            storage: AtomicJSONStorage = db.storage  # type: ignore[assignment]
            yield db
            if not storage.dirty:
                return
            meta = db.table("meta")
            if not meta.all():
                meta.insert(
                    {
                        "schema_version": self.SCHEMA_VERSION,
                        "created_at": now_iso(),
                        "generator": f"perftui {__version__}",
                    }
                )
            _remove_orphan_temps(target)
            try:
                st = storage.commit()
            except OSError as exc:
                raise StoreError(
                    f"cannot write database {self.path} ({exc.strerror or exc});"
                    " it was left unchanged"
                ) from None
            if st is not None:
                with self._cache_lock:
                    self._snapshot = _Snapshot(
                        storage.data or {}, _signature(st), storage.digest, self.path
                    )

    def check(self) -> None:
        """Read and validate the file now (StoreError if it cannot be used)."""
        self._read()

    # ------------------------------------------------------------------ projects

    def projects(self) -> list[Project]:
        """All projects, sorted by name."""
        return sorted(self._read().projects.values(), key=lambda p: (p.name.casefold(), p.name))

    def get_project(self, name: str) -> Project | None:
        return self._read().projects.get(name)

    @staticmethod
    def _prepared(project: Project) -> Project:
        if not isinstance(project.name, str) or not project.name.strip():
            raise InputError("a project needs a name; use --project NAME")
        if not project.model:
            raise InputError(f"project '{project.name}' needs a model path")
        if not project.engine:
            raise InputError(f"project '{project.name}' needs an engine")
        return Project(
            name=project.name,
            model=normalize_model_path(project.model),
            engine=project.engine,
            device=project.device,
            created_at=project.created_at or now_iso(),
            source_project=project.source_project,
            notes=dict(project.notes),
        )

    @staticmethod
    def _conflict(existing: Project, wanted: Project) -> InputError:
        return InputError(
            f"project '{existing.name}' already uses model {existing.model} on"
            f" {existing.engine}/{existing.device}; choose another --project name"
        )

    def ensure_project(self, project: Project) -> Project:
        """The stored project of that name if it measures the same model/engine/device,
        else a new one; InputError if the name is taken by another model/engine/device."""
        existing = self._read().projects.get(project.name)
        if existing is not None:
            if same_target(existing, project):
                return existing
            raise self._conflict(existing, project)
        wanted = self._prepared(project)
        with self._transaction() as db:
            table = db.table("projects")
            doc = table.get(where("name") == wanted.name)
            if doc is not None:  # another process created it meanwhile
                existing = Project.from_dict(doc)
                if same_target(existing, wanted):
                    return existing
                raise self._conflict(existing, wanted)
            table.insert(_project_doc(wanted))
        return wanted

    def add_project(self, project: Project) -> Project:
        """Store a new project; InputError if the name exists."""
        wanted = self._prepared(project)
        with self._transaction() as db:
            table = db.table("projects")
            if table.contains(where("name") == wanted.name):
                raise InputError(f"project '{wanted.name}' already exists; choose another name")
            table.insert(_project_doc(wanted))
        return wanted

    def rename_project(self, old: str, new: str) -> None:
        """Rename a project; its runs, benchmarks and derived projects follow."""
        if not new or not new.strip():
            raise InputError("the new project name is empty")
        with self._transaction(edits_in_place=("projects", "runs", "benchmarks")) as db:
            projects = db.table("projects")
            if not projects.contains(where("name") == old):
                raise InputError(f"no project named '{old}'")
            if old == new:
                return
            if projects.contains(where("name") == new):
                raise InputError(f"project '{new}' already exists; choose another name")
            projects.update({"name": new}, where("name") == old)
            projects.update({"source_project": new}, where("source_project") == old)
            db.table("runs").update({"project": new}, where("project") == old)

            def rename(doc: dict[str, Any]) -> None:
                doc["project_name"] = new
                if isinstance(doc.get("project"), dict):
                    doc["project"]["name"] = new

            db.table("benchmarks").update(rename, where("project_name") == old)

    def delete_project(self, name: str) -> None:
        """Delete a project with its runs, layers, samples and benchmarks."""
        with self._transaction() as db:
            if not db.table("projects").remove(where("name") == name):
                raise InputError(f"no project named '{name}'")
            runs = db.table("runs")
            run_ids = {doc["id"] for doc in runs.search(where("project") == name)}
            runs.remove(where("project") == name)
            _remove_by_run_ids(db, run_ids)
            db.table("benchmarks").remove(where("project_name") == name)

    # ------------------------------------------------------------------ benchmarks

    def add_benchmark(self, request: BenchmarkRequest) -> str:
        """Store what was asked (project, configs, budget, shapes, profile); its new id."""
        benchmark_id = uuid.uuid4().hex
        doc = _plain(
            {
                "id": benchmark_id,
                "project_name": request.project.name,
                "created_at": now_iso(),
                **request.to_dict(),
            }
        )
        with self._transaction() as db:
            db.table("benchmarks").insert(doc)
        return benchmark_id

    def benchmark(self, benchmark_id: str) -> dict[str, Any] | None:
        """The stored request: ``{"id", "project_name", "created_at", **request.to_dict()}``
        (so `BenchmarkRequest.from_dict` accepts it), or None."""
        doc = self._read().benchmarks.get(benchmark_id)
        return copy.deepcopy(dict(doc)) if doc is not None else None

    def benchmarks(self, project: str) -> list[dict[str, Any]]:
        """The stored requests of a project, oldest first."""
        snap = self._read()
        return [
            copy.deepcopy(dict(d))
            for d in snap.benchmarks.values()
            if d.get("project_name") == project
        ]

    # ------------------------------------------------------------------ runs

    def add_run(self, run: RunResult, samples_ms: np.ndarray | None = None) -> RunResult:
        """Store one run (its project must exist): assigns an id and started_at if empty,
        keeps layers and raw latency samples in their own tables. Returns the stored run."""
        return self.add_runs([(run, samples_ms)])[0]

    def add_runs(self, items: Iterable[tuple[RunResult, np.ndarray | None]]) -> list[RunResult]:
        """Store several runs in one write, all or none (see `add_run`)."""
        prepared = [_prepare_run(run, samples) for run, samples in items]
        if not prepared:
            return []
        with self._transaction() as db:
            _insert_runs(db, prepared, skip_existing=False)
        return [run for run, _ in prepared]

    def merge(
        self,
        projects: Sequence[Project],
        runs: Sequence[tuple[RunResult, np.ndarray | None]],
        benchmarks: Sequence[dict[str, Any]] = (),
    ) -> tuple[int, int]:
        """Add records from elsewhere in one write: new projects (an existing one must measure
        the same model/engine/device), runs and benchmarks whose ids are new (others are
        skipped). Returns (projects added, runs added)."""
        wanted = [self._prepared(p) for p in projects]
        prepared = [_prepare_run(run, samples) for run, samples in runs]
        with self._transaction() as db:
            table = db.table("projects")
            stored = {doc["name"]: Project.from_dict(doc) for doc in table.all()}
            new_projects = []
            for project in wanted:
                existing = stored.get(project.name)
                if existing is None:
                    new_projects.append(_project_doc(project))
                    stored[project.name] = project
                elif not same_target(existing, project):
                    raise InputError(
                        f"project '{project.name}' already exists with model {existing.model}"
                        f" on {existing.engine}/{existing.device}, but the import has"
                        f" {project.model} on {project.engine}/{project.device};"
                        " rename one of them first"
                    )
            if new_projects:
                table.insert_multiple(new_projects)
            added = _insert_runs(db, prepared, skip_existing=True)
            bench_table = db.table("benchmarks")
            known = {doc["id"] for doc in bench_table.all()}
            fresh = [_plain(d) for d in benchmarks if d.get("id") not in known]
            if fresh:
                bench_table.insert_multiple(fresh)
        return len(new_projects), added

    def runs(self, project: str) -> list[RunResult]:
        """The runs of a project, newest first, with their layers ([] if none or unknown)."""
        return self._read().runs(project)

    def get_run(self, run_id: str) -> RunResult | None:
        return self._read().run(run_id)

    def latency_samples(self, run_id: str) -> np.ndarray | None:
        """The raw per-request latencies (ms, float32) of a run, or None if not stored."""
        doc = self._read().samples.get(run_id)
        if doc is None:
            return None
        try:
            return decode_samples(doc)
        except ValueError as exc:
            raise _damaged(self.path, f"samples of run {run_id}: {exc}") from None

    def delete_run(self, run_id: str) -> None:
        """Delete a run with its layers and samples; InputError if there is no such run."""
        with self._transaction() as db:
            if not db.table("runs").remove(where("id") == run_id):
                raise InputError(f"no run with id '{run_id}'")
            _remove_by_run_ids(db, {run_id})

    def summaries(self) -> list[tuple[Project, ProjectSummary]]:
        """Every project (sorted by name) with its summary, from one read."""
        return list(self._read().summaries)


def _prepare_run(run: RunResult, samples: np.ndarray | None) -> tuple[RunResult, np.ndarray | None]:
    if not run.project:
        raise InputError("a run must name its project before it is stored")
    stored = replace(run, id=run.id or uuid.uuid4().hex, started_at=run.started_at or now_iso())
    return stored, samples


def _insert_runs(
    db: TinyDB,
    prepared: Sequence[tuple[RunResult, np.ndarray | None]],
    *,
    skip_existing: bool,
) -> int:
    projects = {doc["name"] for doc in db.table("projects").all()}
    runs_table: Table = db.table("runs")
    known = {doc["id"] for doc in runs_table.all()}
    run_docs: list[dict[str, Any]] = []
    layer_docs: list[dict[str, Any]] = []
    sample_docs: list[dict[str, Any]] = []
    for run, samples in prepared:
        if run.project not in projects:
            raise InputError(f"no project named '{run.project}'; create it before storing runs")
        if run.id in known:
            if skip_existing:
                continue
            raise InputError(f"run {run.id} is already stored")
        known.add(run.id)
        run_docs.append(_run_doc(run))
        if run.layers is not None:
            layer_docs.append({"run_id": run.id, **encode_layers(run.layers)})
        if samples is not None:
            sample_docs.append({"run_id": run.id, **encode_samples(samples)})
    for name, docs in (("runs", run_docs), ("layers", layer_docs), ("samples", sample_docs)):
        if docs:
            db.table(name).insert_multiple(docs)
    return len(run_docs)


def _remove_by_run_ids(db: TinyDB, run_ids: set[str]) -> None:
    if not run_ids:
        return
    is_listed: Callable[[Any], bool] = run_ids.__contains__
    db.table("layers").remove(where("run_id").test(is_listed))
    db.table("samples").remove(where("run_id").test(is_listed))
