"""Faults anyone can rerun: kills mid-write, concurrent writers, hostile imports, bad input,
damaged and tampered databases.

In a temporary folder:
1. `--kills` times, a writer process (runs with samples, or an import) is killed with SIGKILL
   after a random delay; after the next write (which removes what a killed one left) the
   database must open, every run the writer had reported stored must be there, and no
   temporary file or payload no run names may be left.
2. `--writers` processes each store `--runs` runs at once on a new database (each waits for
   the lock) while as many refused imports race them for its lock; every run must be there.
3. Hostile import files and bad `bench` inputs through the real CLI: each must exit 2 with
   one line on stderr and leave the database unchanged.
4. Tampering (issues 23 and 39): a damaged or hand-edited database, links inside its folder,
   names that lead outside it, through the real CLI (under `strace` where there is one): a table of
   run files deleted, files opened or changed outside the folder (a sibling folder hashed
   before and after; the paths strace saw) and writes made by a refused command.

Prints counts: damaged databases, runs lost, clean refusals, wrong exit codes, data written
when it should not be, then the tamper table. Usage: python benchmarks/faults.py
[--kills 100] [--writers 8] [--runs 10] [--only-tamper]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import zlib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perftui.domain.errors import StoreError  # noqa: E402
from perftui.store.database import Store  # noqa: E402
from perftui.store.layout import projects_root  # noqa: E402
from tests import store_helpers as cases  # noqa: E402

MODEL = ROOT / "sample_models" / "mobilenet_fp32.onnx"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from perftui.domain.records import Project, RunConfig, RunResult
    from perftui.store.database import Store
    store = Store(sys.argv[1])
    store.ensure_project(Project(name=sys.argv[3], model="/m.onnx", engine="openvino"))
    store.LOCK_TIMEOUT_S = float(sys.argv[4])
    for i in range(int(sys.argv[2])):
        run = store.add_run(
            RunResult(config=RunConfig(batch=1 + i % 8), project=sys.argv[3]),
            np.random.default_rng(i).random(5000, dtype=np.float32),
        )
        print(run.id, flush=True)
    """
)


def writer(db: Path, runs: int, project: str, patience: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), str(runs), project, str(patience)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=ENV,
    )


def stored_ids(db: Path) -> set[str] | None:
    """The run ids the database holds after the next write (which removes what a killed
    write left), or None if it cannot be opened (damaged)."""
    try:
        store = Store(db)
        store.upkeep()
        return {r.id for p in store.projects() for r in store.runs(p.name)}
    except StoreError:
        return None


def unreferenced(db: Path) -> int:
    """Payload files no run of the database names, and temporary files (after the next
    write)."""
    store = Store(db)
    named = {f"{r.id}.npz" for p in store.projects() for r in store.runs(p.name)}
    root = projects_root(db)
    payloads = sum(1 for path in root.rglob("*.npz") if path.name not in named)
    return payloads + sum(1 for _ in db.parent.rglob(".tmp-*"))


def kills(folder: Path, count: int, export: Path) -> tuple[int, int, int]:
    """(damaged databases, runs lost, payload files left unreferenced) over `count` kills
    during writes and imports."""
    damaged = lost = left = 0
    rng = random.Random(5)
    for i in range(count):
        db = folder / f"kill{i % 10}.json"
        if i % 4 == 3:  # an import, killed
            proc = subprocess.Popen(
                [sys.executable, "-m", "perftui", "--db", str(db), "import", str(export)],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env=ENV,
            )
        else:
            proc = writer(db, 50, "k", 30.0)
        time.sleep(rng.uniform(0.05, 0.6))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        reported = set(out.split()) if i % 4 != 3 else set()
        ids = stored_ids(db)
        if ids is None:
            damaged += 1
        else:
            lost += len(reported - ids)
            left += unreferenced(db)
    return damaged, lost, left


def contention(folder: Path, writers: int, runs: int) -> tuple[int, int]:
    """(damaged, runs lost) with `writers` processes storing `runs` runs each at once into a
    new database, each waiting for the lock, while as many imports of a cut export are
    refused there (each removing the lock file and folders it made, if it wrote first)."""
    db = folder / "contention" / "new" / "db.json"
    cut = folder / "cut-export.json"
    cut.write_text('{"perftui_export": 1, "projects": [{"name": "a"\n')
    refused = [sys.executable, "-m", "perftui", "--db", str(db), "import", str(cut)]
    procs = [writer(db, runs, "c", 600.0) for _ in range(writers)]
    procs += [subprocess.Popen(refused, stderr=subprocess.DEVNULL, env=ENV) for _ in range(writers)]
    reported: set[str] = set()
    for proc in procs:
        out, _ = proc.communicate()
        reported |= set((out or "").split())
    ids = stored_ids(db)
    if ids is None:
        return 1, len(reported)
    return 0, len(reported - ids) + (writers * runs - len(reported))


def hostile_files(folder: Path) -> dict[str, Path]:
    run = {"id": "r1", "config": {"batch": 1, "hint": "latency", "api": "sync"}}

    def export(run_patch: dict, **project) -> dict:
        return {
            "perftui_export": 1,
            "projects": [
                {
                    "name": "h",
                    "model": "/m.onnx",
                    "engine": "openvino",
                    "runs": [{**run, **run_patch}],
                    **project,
                }
            ],
        }

    def config(**patch) -> dict:
        return export({"config": {**run["config"], **patch}})

    bomb = zlib.compress(bytes(256 << 20), 9)
    cases = {
        "batch-text": config(batch="abc"),
        "batch-list": config(batch=[1]),
        "batch-negative": config(batch=-5),
        "threads-text": config(threads="x"),
        "hint-number": config(hint=5),
        "api-evil": config(api="evil"),
        "engine": export({}, engine="os.system"),
        "error-object": export({"error": {"x": 1}}),
        "started-number": export({"started_at": 5}),
        "status": export({"status": "great"}),
        "id-path": export({"id": "../../x"}),
        "name-control": export({}, name="a\nb"),
        "latency-nan-text": export({"latency_ms": {"median": "fast"}}),
        "layers-bad": export({"layers": [{"name": "x"}]}),
        "resolved-deep": export({"resolved": {"a": json.loads("[" * 60 + "]" * 60)}}),
        "bomb": export(
            {
                "latency_samples": {
                    "dtype": "float32",
                    "codec": "zlib+base64",
                    "count": 64 << 20,
                    "data": base64.b64encode(bomb).decode(),
                }
            }
        ),
    }
    paths = {}
    for name, document in cases.items():
        paths[name] = folder / f"hostile-{name}.json"
        paths[name].write_text(json.dumps(document))
    raw = {
        "inf": '{"perftui_export": 1e999, "projects": []}',
        "digits": '{"perftui_export": ' + "9" * 5000 + "}",
        "deep": "[" * 100_000 + "]" * 100_000,
        "not-json": "{oops",
        "csv": "project,model,engine\n",
    }
    for name, text in raw.items():
        paths[name] = folder / f"hostile-{name}.json"
        paths[name].write_text(text)
    return paths


BAD_BENCH = {
    "batch-huge": ["--batch", "99999999999999999999"],
    "batch-zero": ["--batch", "0"],
    "seed-negative": ["--seed", "-1"],
    "time-nan": ["--time", "nan"],
    "surrogate-project": ["--project", "a\udcff"],
    "engine": ["--engine", "tensorrt"],
}


def refusals(folder: Path, hostile: dict[str, Path]) -> tuple[int, int, int]:
    """(clean refusals, wrong exit codes, data written) over hostile imports and bad input,
    into a database not made yet (any file or folder a refusal leaves counts as written)."""
    clean = wrong = written = 0
    area = folder / "refusals"
    area.mkdir()
    db = area / "new" / "db.json"
    commands = [["import", str(path)] for path in hostile.values()]
    commands += [["bench", str(MODEL), "--time", "0.1", *args] for args in BAD_BENCH.values()]
    for args in commands:
        before = cases.tree(area)
        result = subprocess.run(
            [sys.executable, "-m", "perftui", "--db", str(db), *args],
            capture_output=True,
            env=ENV,
        )
        after = cases.tree(area)
        lines = [x for x in result.stderr.splitlines() if x.strip()]
        ok = result.returncode == 2 and len(lines) == 1 and b"Traceback" not in result.stderr
        clean += ok
        wrong += result.returncode != 2
        written += after != before
        if not ok:
            print(
                f"  not refused cleanly: {args[:1] + args[2:]} -> {result.returncode}:"
                f" {result.stderr.decode(errors='replace').strip()[:200]}"
            )
    return clean, wrong, written


# ---------------------------------------------------------------- 4: tampering (issue 23)


QUICK = ["--time", "0.2", "--iterations", "5", "--warmup", "1"]
BENCH = ["bench", str(MODEL), "--project", "A", *QUICK]
MEETS = {
    "empty index": ["projects"],
    "cut index": ["projects"],
    "count not a number": ["projects"],
    "folder outside": ["projects"],
    "run file missing": ["show", "A"],
    "benchmarks file missing": ["export"],
    "run file cut": ["show", "A", "--json"],
    "payload damaged": ["export"],
    "project folder a link": ["show", "A"],
    "run file a link": ["report", "A"],
}
"""A command that meets each damage of the tests' table (tests/store_helpers.DAMAGES)."""
TAMPER: list[tuple[str, Callable[[Path], object], list[str]]] = [
    *((name, cases.DAMAGES[name], args) for name, args in MEETS.items()),
    ("lock file a link (import)", cases.link_lock, ["import", "EXPORT"]),
    ("bench, run file missing", cases.missing_part, BENCH),
    ("bench, benchmarks missing", cases.missing_benchmarks, BENCH),
    ("bench, folder a link", cases.link_folder, BENCH),
]
TRACED = "openat,open,creat,unlink,unlinkat,rename,renameat,renameat2,rmdir,mkdir,truncate"


def outside_paths(trace: Path, outside: Path) -> int:
    """Paths strace saw a successful call on that lie in `outside` (links resolved)."""
    count = 0
    for line in trace.read_text(errors="replace").splitlines():
        if " = -1 " in line or '"' not in line:
            continue
        for path in line.split('"')[1::2]:
            if path.startswith("/") and os.path.realpath(path).startswith(f"{outside}/"):
                count += 1
    return count


def tamper_case(folder: Path, damage: Callable[[Path], object], args: list[str]) -> dict:
    db = cases.build(folder)
    export = folder / "export.json"
    subprocess.run(
        [sys.executable, "-m", "perftui", "--db", str(db), "export", "-o", str(export)],
        check=True,
        env=ENV,
    )
    damage(db)
    outside = folder / "outside"
    before, db_before = cases.tree(outside), cases.tree(db.parent)
    trace = folder / "trace.txt"
    strace = ["strace", "-f", "-qq", "-e", f"trace={TRACED}", "-o", str(trace)]
    command = [sys.executable, "-m", "perftui", "--db", str(db)]
    command += [str(export) if a == "EXPORT" else a for a in args]
    result = subprocess.run(
        (strace if shutil.which("strace") else []) + command, capture_output=True, env=ENV
    )
    db_after = cases.tree(db.parent)
    lines = [x for x in result.stderr.splitlines() if x.strip()]
    return {
        "exit": result.returncode,
        "one line": result.returncode == 2 and len(lines) == 1,
        "deleted": len(set(db_before) - set(db_after)),
        "outside changed": sum(before.get(k) != v for k, v in cases.tree(outside).items())
        + len(set(before) - set(cases.tree(outside))),
        "outside opened": outside_paths(trace, outside) if trace.exists() else "-",
        "written": "-" if result.returncode == 0 else int(db_before != db_after),
    }


def tamper_table(folder: Path) -> str:
    """Each tamper case through the real CLI, one row each."""
    rows = []
    for n, (name, damage, args) in enumerate(TAMPER):
        case = folder / f"tamper{n}"
        case.mkdir()
        found = tamper_case(case, damage, args)
        rows.append([name, " ".join(args[:2]).replace(str(MODEL), "MODEL"), *found.values()])
    head = [
        "case",
        "command",
        "exit",
        "one line",
        "files deleted",
        "outside changed",
        "outside opened",
        "refusal wrote",
    ]
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    lines = ["tamper cases (strace: " + ("yes" if shutil.which("strace") else "no") + ")"]
    for row in [head, *rows]:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
    totals = [sum(r[i] for r in rows if isinstance(r[i], int)) for i in (4, 5, 6, 7)]
    lines.append(
        f"totals: files deleted {totals[0]}, outside changed {totals[1]}, outside opened"
        f" {totals[2]}, refusals that wrote {totals[3]}, clean refusals"
        f" {sum(r[3] for r in rows)} of {len(rows)}"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--only-tamper", action="store_true", help="section 4 alone")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="perftui-faults-") as name:
        folder = Path(name)
        if args.only_tamper:
            print(tamper_table(folder))
            return
        source = folder / "source.json"
        writer(source, 40, "imported", 30.0).communicate()
        export = folder / "export.json"
        subprocess.run(
            [sys.executable, "-m", "perftui", "--db", str(source), "export", "-o", str(export)],
            check=True,
            env=ENV,
        )
        damaged, lost, left = kills(folder, args.kills, export)
        c_damaged, c_lost = contention(folder, args.writers, args.runs)
        hostile = hostile_files(folder)
        clean, wrong, written = refusals(folder, hostile)
        total = len(hostile) + len(BAD_BENCH)
        print(f"kill -9 during writes and imports: {args.kills}")
        print(f"payload and temporary files left after the next write: {left}")
        print(f"{args.writers} writers x {args.runs} runs: damaged {c_damaged}, runs lost {c_lost}")
        print(f"damaged databases: {damaged + c_damaged}")
        print(f"runs lost: {lost + c_lost}")
        print(f"clean refusals: {clean} of {total}")
        print(f"wrong exit codes: {wrong}")
        print(f"data written when it should not be: {written}")
        print(tamper_table(folder))


if __name__ == "__main__":
    main()
