"""Rebuilding a document from the run files beside it, for `perftui doctor --repair`.

When the document does not name shard files beside it (an older copy restored, an entry
dropped by hand), their runs are not lost: `plan` reads them and says what a repair would
do, `apply` (inside a write that skips the damage check) adds each run the document does not
hold to its project, its payloads where they are (in the packs its shard lines name).
Nothing is deleted: the shard files read are retired (removed after the grace period, their
runs being stored anew) when every run in them was adopted or known, else kept as
``unclaimed``; runs of projects the document does not know stay in their files.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from perftui.store.layout import damaged
from perftui.store.names import read_nofollow
from perftui.store.payloads import Payloads
from perftui.store.recovery import unnamed
from perftui.store.shards import HEADER, Shard

if TYPE_CHECKING:
    from perftui.store.snapshot import Snapshot
    from perftui.store.transaction import Pending, Transaction

__all__ = ["Plan", "apply", "check_named", "plan"]


@dataclass
class Plan:
    """What a repair would do."""

    adopt: dict[str, list[Pending]] = field(default_factory=dict)
    """Project -> the runs it would get back (document, payloads, figures)."""
    strangers: dict[str, int] = field(default_factory=dict)
    """A project the document does not know -> how many of its runs stay in their files."""
    retire: list[tuple[str, str]] = field(default_factory=list)
    """Files whose runs are all stored once adopted: removed after the grace period."""
    keep: list[tuple[str, str]] = field(default_factory=list)
    """Files kept as they are (unreadable, or holding runs of unknown projects)."""
    lost: int = 0
    """Payloads of the runs it adds back that their packs no longer hold (left out)."""

    @property
    def runs(self) -> int:
        return sum(len(items) for items in self.adopt.values())

    def lines(self) -> list[str]:
        """The plan for a person, one line each."""
        found = [
            f"add {len(items)} run(s) back to project {name!r}"
            for name, items in sorted(self.adopt.items())
        ]
        found += [
            f"leave {count} run(s) of project {name!r}, which the document does not know, in"
            " their files"
            for name, count in sorted(self.strangers.items())
        ]
        if self.retire:
            found.append(f"retire {len(self.retire)} file(s) once their runs are stored")
        if self.keep:
            found.append(f"keep {len(self.keep)} file(s) it cannot use, as they are")
        if self.lost:
            found.append(f"leave out {self.lost} payload(s) (samples, profiles) whose pack is gone")
        return found


def check_named(snap: Snapshot) -> None:
    """StoreError (damage) if a file the document names cannot be read: a project's runs
    files, or a pack its runs' payloads are in."""
    sizes: dict[str, int] = {}
    for project in snap.entries:
        shard = snap.shard(project) or Shard()  # kept: `plan` reads every one again
        for kind, table in shard.refs.items():
            for run_id, ref in table.items():
                if not snap.payloads.holds(kind, run_id, ref, sizes):
                    reason = f"{kind} of run {run_id}: pack file {ref.pack} missing or cut short"
                    raise damaged(snap.shown, reason)


def plan(snap: Snapshot, payloads: Payloads) -> Plan:
    """What a repair of `snap`'s document would do with the files it does not name."""
    found = Plan()
    sizes: dict[str, int] = {}
    known = set(snap.run_index)
    strangers: set[str] = set()  # counted once, in however many files they are
    stray = sorted(unnamed(snap.named_files, payloads))
    for folder, name in stray:
        if folder == "figures":
            found.retire.append((folder, name))  # computed again from the runs
        elif folder == "benchmarks":
            found.keep.append((folder, name))  # requests the document lacks: kept as they are
        if folder != "runs":
            continue
        try:
            raw = read_nofollow(payloads.folder("runs") / name)
            shard = Shard.parse(raw if raw.startswith(HEADER) else HEADER + raw)
        except (OSError, KeyError, TypeError, ValueError, RecursionError):
            found.keep.append((folder, name))
            continue
        whole = True
        for run_id, doc in shard.runs.items():
            if run_id in known:
                continue
            project = doc["project"]
            if project not in snap.projects:
                if run_id not in strangers:
                    strangers.add(run_id)
                    found.strangers[project] = found.strangers.get(project, 0) + 1
                whole = False
                continue
            stored = shard.refs_of(run_id)
            refs = {k: ref for k, ref in stored.items() if payloads.holds(k, run_id, ref, sizes)}
            found.lost += len(stored) - len(refs)
            found.adopt.setdefault(project, []).append((doc, refs, shard.figures.get(run_id)))
            known.add(run_id)
        (found.retire if whole else found.keep).append((folder, name))
    return found


def apply(tx: Transaction, found: Plan) -> None:
    """Store the plan in the write `tx`."""
    for project, items in found.adopt.items():
        shard = tx.shard(project)
        for item in items:
            shard.add(*item)
        shard.removed = True  # its figures are computed again from its runs
    if found.retire:
        now = time.time()
        tx.table("retired").insert({"folder": f, "name": n, "at": now} for f, n in found.retire)
    if found.keep:
        tx.table("unclaimed").insert({"folder": f, "name": n} for f, n in found.keep)
