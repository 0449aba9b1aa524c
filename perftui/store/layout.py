"""The database's layout (drawn in ARCHITECTURE.md, "store/"):

    perftui.json                 TinyDB: projects, environments, meta (the index)
    perftui.json.lock            the write lock
    perftui.json.projects/<id>/  one folder per project, named by a generated id
        benchmarks.json          TinyDB: benchmarks (the requests)
        heads.json               TinyDB: each configuration's combined figures (a write's)
        runs-<part>.json         TinyDB: runs, one file per benchmark (part b-<id>), or per
                                 month for runs of no benchmark (part m-<yyyy-mm>)
        payloads/<run id>.npz    its latency samples and layer profile (numpy)

A project's document in the index holds its settings (`project`), its folder, how many runs
each of its files holds (`parts`), the sequence number of its last run (`seq`: the order runs
were stored in) and its summary and best configurations' combined figures
(perftui.store.figures), so the projects list reads the index alone; every configuration's
combined figures, which a write extends, are in its `heads.json`.

A run's document is ``{"id", "seq", "run", "figures", "samples", "layers"}``: its RunResult
without layers and with its environment named by digest (kept once in the index), its figures
(perftui.store.figure_docs), and how many samples and layers its `.npz` holds. Every name that
becomes a path is a generated id or a checked run/benchmark id.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from perftui import __version__
from perftui.domain.records import RunResult
from perftui.store.codec import plain

__all__ = [
    "LAYOUT",
    "PROJECT_ID",
    "RUN_ID",
    "meta_doc",
    "now_iso",
    "part_name",
    "projects_root",
    "run_doc",
    "split_environment",
    "time_key",
]

LAYOUT = 8
"""This layout's number (0.1 wrote layout 7: perftui.store.convert moves it to this one)."""
RUN_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")
PROJECT_ID = re.compile(r"[0-9a-f]{32}")
PART = re.compile(r"runs-(b-[0-9A-Za-z_-]{1,64}|m-\d{4}-\d{2}|m-)\.json")
BENCHMARKS = "benchmarks.json"
HEADS = "heads.json"
PAYLOADS = "payloads"


def projects_root(index: Path) -> Path:
    return index.with_name(index.name + ".projects")


def part_name(benchmark_id: str, started_at: str) -> str:
    """The file of a project's folder that holds a run of that benchmark, started then (see
    the module's docstring)."""
    if benchmark_id:
        return f"runs-b-{benchmark_id}.json"
    month = started_at[:7] if re.match(r"\d{4}-\d{2}", started_at or "") else ""
    return f"runs-m-{month}.json"


def now_iso() -> str:
    """The current time, ISO-8601 in UTC to the second, e.g. '2025-01-31T12:00:00+00:00'."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def meta_doc() -> dict[str, Any]:
    return {"layout": LAYOUT, "created_at": now_iso(), "generator": f"perftui {__version__}"}


def run_doc(run: RunResult) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The run's document and, when it recorded one, its environment's document: the
    environment (CPU, flags, versions: the bulk of a run's text, the same for thousands of
    runs) is kept once, and the run names it by digest."""
    return split_environment(plain(run.to_dict(with_layers=False)))


def split_environment(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    resolved = doc.get("resolved") or {}
    if "environment" not in resolved:
        return doc, None
    env = resolved["environment"]
    env_id = _env_id(env)
    slim = {k: v for k, v in resolved.items() if k != "environment"}
    return {**doc, "resolved": slim, "environment": env_id}, {"id": env_id, "environment": env}


_last_env: list[Any] = [None, ""]
"""The environment digested last and its id: the runs of a write share one, most often."""


def _env_id(env: Any) -> str:
    if env != _last_env[0]:
        text = json.dumps(env, sort_keys=True, separators=(",", ":")).encode("utf-8")
        _last_env[:] = [env, hashlib.sha256(text).hexdigest()[:24]]
    return _last_env[1]


def time_key(stamp: str) -> float:
    """An ISO-8601 time stamp as a sort key (naive means UTC; unreadable sorts first)."""
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
