"""Each project's runs in a file of their own beside the database, so a command that shows
one project parses only that project and a write rewrites only the projects it touches.

``<db>.d/runs/<uuid>.json`` is JSON lines: a header ``{"perftui_shard": 3}``, then one line
per run, ``{"run": run document, "samples": ref, "layers": ref, "figures": figures,
"method": ...}``: where its payloads are (perftui.store.payloads) and its figures as computed
when it was stored (perftui.store.figure_docs). A file is never changed: a write puts the
runs in a new file or segment, and retires the one it supersedes (perftui.store.recovery).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from perftui.domain.records import RunResult
from perftui.store.codec import dump_json
from perftui.store.figure_docs import METHOD
from perftui.store.files import atomic_write_bytes
from perftui.store.names import RUN_ID, new_name
from perftui.store.payloads import KINDS, Ref, checked_ref

__all__ = [
    "GRACE_S",
    "HEADER",
    "Shard",
    "checked_run",
    "line",
    "write_shard",
]

HEADER = b'{"perftui_shard":3}\n'
GRACE_S = 60.0
"""How long a superseded shard file is kept for readers of the document that named it."""


class Shard:
    """One project's run documents and where their payloads are; the parsed records are
    cached on it (a shard read from a file is never mutated: a write edits a `copy`)."""

    def __init__(
        self,
        runs: dict[str, dict[str, Any]] | None = None,
        refs: dict[str, dict[str, Ref]] | None = None,
        figures: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        self.runs = runs if runs is not None else {}
        self.refs: dict[str, dict[str, Ref]] = refs if refs is not None else {k: {} for k in KINDS}
        """Payload kind -> run id -> where it is (perftui.store.payloads)."""
        self.figures = figures if figures is not None else {}
        """Run id -> its stored figures, all of this version's method (`METHOD`)."""
        self.removed = False
        """Whether runs were removed from it since it was read (its figures are then
        computed again, not extended)."""
        self.records: dict[tuple[str, bool], RunResult] = {}
        """(run id, with layers) -> the run as a record."""

    @classmethod
    def parse(cls, raw: bytes) -> Shard:
        """ValueError (or KeyError/TypeError) if the bytes are not a shard."""
        if not raw.startswith(HEADER):
            raise ValueError("not a shard file of this version")
        lines = raw[len(HEADER) :].splitlines()
        shard = cls()
        for item in json.loads(b"[" + b",".join(lines) + b"]"):
            doc = item["run"]
            refs = {kind: checked_ref(item[kind]) for kind in KINDS if kind in item}
            figures = item.get("figures") if item.get("method") == METHOD else None
            shard.add(
                checked_run(doc.get("id") if isinstance(doc, dict) else None, doc), refs, figures
            )
        return shard

    def refs_of(self, run_id: str) -> dict[str, Ref]:
        return {kind: table[run_id] for kind, table in self.refs.items() if run_id in table}

    def packs(self) -> list[str]:
        """The pack files its runs' payloads are in."""
        refs = (ref for table in self.refs.values() for ref in table.values())
        return sorted({ref.pack for ref in refs if ref.pack})

    def blob(self) -> bytes:
        lines = [
            line(doc, self.refs_of(run_id), self.figures.get(run_id))
            for run_id, doc in self.runs.items()
        ]
        return HEADER + b"".join(lines)

    def copy(self) -> Shard:
        """A shard to edit: new tables sharing the (never mutated) documents."""
        refs = {kind: dict(table) for kind, table in self.refs.items()}
        return Shard(dict(self.runs), refs, dict(self.figures))

    def add(
        self, doc: dict[str, Any], refs: dict[str, Ref], figures: dict[str, Any] | None
    ) -> None:
        self.runs[doc["id"]] = doc
        for kind, ref in refs.items():
            self.refs[kind][doc["id"]] = ref
        if figures is not None:
            self.figures[doc["id"]] = figures

    def remove(self, run_ids: Iterable[str]) -> None:
        self.removed = True
        for run_id in run_ids:
            self.runs.pop(run_id, None)
            self.figures.pop(run_id, None)
            for table in self.refs.values():
                table.pop(run_id, None)


def checked_run(run_id: Any, doc: Any) -> dict[str, Any]:
    """`doc` if it is a run document of id `run_id`; ValueError otherwise."""
    if not (
        isinstance(doc, dict)
        and isinstance(run_id, str)
        and RUN_ID.fullmatch(run_id)
        and doc.get("id") == run_id
        and isinstance(doc.get("project"), str)
        and isinstance(doc.get("config"), dict)
    ):
        raise ValueError(f"run document {str(run_id)[:60]!r} lacks id/project/config")
    return doc


def line(doc: dict[str, Any], refs: dict[str, Ref], figures: dict[str, Any] | None) -> bytes:
    """A run's line in a shard file."""
    item: dict[str, Any] = {"run": doc, **{kind: list(ref) for kind, ref in refs.items()}}
    if figures is not None:
        item.update(figures=figures, method=METHOD)
    return dump_json(item) + b"\n"


def write_shard(folder: Path, blob: bytes, token: str, *, durable: bool = True) -> str:
    """Write a shard file under a new name starting with the write's `token` (atomically,
    before the document names it; `durable=False`: the caller syncs); the name."""
    name = new_name(token)
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(folder / name, blob, durable=durable)
    return name
