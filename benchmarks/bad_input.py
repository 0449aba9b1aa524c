"""Bad input anyone can rerun (issue 26): every case through the real CLI, in a folder of its
own, with the memory of the CLI and its children sampled while it runs.

A case is a clean refusal when it exits 2 with one line on stderr and writes nothing in its
folder (the database, its targets file, anything beside them). Prints per category: tried,
clean refusals, internal errors (exit 1 or "internal error"), wrong exits, cases that wrote,
and the peak resident memory of the process tree (MB); then, for killed parents, how long
each worker outlived the CLI. Target: every case a clean refusal, none above 500 MB, no
worker alive 1 s after its parent.

Usage: python benchmarks/bad_input.py [--only CATEGORY]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bad_input_cases import CASES, ENV, MODEL, QUICK, Setup, _project  # this folder

POLL_S = 0.02
MB = 2**20


@dataclass
class Tally:
    tried: int = 0
    clean: int = 0
    internal: int = 0
    wrong_exit: int = 0
    wrote: int = 0
    peak_mb: float = 0.0
    notes: list[str] = field(default_factory=list)


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def _rss(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except (OSError, ValueError):
            pass
    return total


def run_cli(args: list[str], db: Path, timeout_s: float = 300) -> tuple[int, str, float]:
    """Exit status, stderr and the peak resident memory (MB) of the CLI's process tree."""
    process = subprocess.Popen(
        [sys.executable, "-m", "perftui", "--db", str(db), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    peak, deadline = 0, time.monotonic() + timeout_s
    while process.poll() is None and time.monotonic() < deadline:
        peak = max(peak, _rss(_tree(process.pid)))
        time.sleep(POLL_S)
    if process.poll() is None:
        process.kill()
    _, stderr = process.communicate()
    return process.returncode, stderr, peak / MB


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    }


def judge(tally: Tally, name: str, setup: Setup, base: Path) -> None:
    folder = Path(tempfile.mkdtemp(dir=base))
    args = setup(folder)
    before = _snapshot(folder)
    code, stderr, peak = run_cli(args, folder / "db.json")
    lines = [line for line in stderr.splitlines() if line.strip() and "machine is busy" not in line]
    wrote = _snapshot(folder) != before
    tally.tried += 1
    tally.peak_mb = max(tally.peak_mb, peak)
    tally.wrote += wrote
    if code == 1 or "internal error" in stderr or "Traceback" in stderr:
        tally.internal += 1
        tally.notes.append(f"{name}: internal error: {lines[-1:]}")
    elif code != 2 or len(lines) != 1:
        tally.wrong_exit += 1
        tally.notes.append(f"{name}: exit {code}, {len(lines)} lines")
    elif not wrote:
        tally.clean += 1
    if wrote:
        tally.notes.append(f"{name}: wrote in its folder")


WORKERS = {
    "bench": "perftui.bench.worker",
    "optimize": "perftui.optimize.worker",
    "tune": "perftui.tune.worker",
}


def _orphan_args(kind: str, folder: Path) -> list[str]:
    if kind == "bench":
        return ["bench", str(MODEL), "--time", "30", "--no-save"]
    if kind == "optimize":
        _project(folder)
        return ["optimize", "m", "--samples", "2000"]
    done = run_cli(["bench", str(MODEL), "--project", "m", *QUICK], folder / "db.json")
    assert done[0] == 0, done[1]
    return ["tune", "m", "--max-latency", "500", "--budget", "60s"]


def _worker(cli: int, module: str) -> int | None:
    for pid in _tree(cli):
        try:
            if module.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        except OSError:
            pass
    return None


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def orphan(kind: str, base: Path) -> float | None:
    """Seconds the `kind` worker outlived its CLI killed with SIGKILL (None: never started)."""
    folder = Path(tempfile.mkdtemp(dir=base))
    args = _orphan_args(kind, folder)
    cli = subprocess.Popen(
        [sys.executable, "-m", "perftui", "--db", str(folder / "db.json"), *args],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV,
    )  # fmt: skip
    deadline, worker = time.monotonic() + 60, None
    while worker is None and time.monotonic() < deadline and cli.poll() is None:
        worker = _worker(cli.pid, WORKERS[kind])
        time.sleep(0.1)
    if worker is None:
        cli.kill()
        cli.wait()
        return None
    time.sleep(3.0)  # into its work: importing, calibrating, measuring
    cli.send_signal(signal.SIGKILL)
    cli.wait()
    killed = time.monotonic()
    while _alive(worker) and time.monotonic() - killed < 10:
        time.sleep(0.02)
    outlived = time.monotonic() - killed
    if _alive(worker):
        os.kill(worker, signal.SIGKILL)
    return outlived


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=[*CASES, "orphans"], help="one category")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="perftui-bad-input-") as tmp:
        base = Path(tmp)
        header = f"{'category':<11} {'tried':>5} {'clean':>5} {'internal':>8} {'wrong exit':>10}"
        print(header + f" {'writes':>6} {'peak MB':>8}")
        notes: list[str] = []
        for category, cases in CASES.items():
            if args.only not in (None, category):
                continue
            tally = Tally()
            for name, setup in cases.items():
                judge(tally, name, setup, base)
            notes += [f"{category}: {note}" for note in tally.notes]
            print(
                f"{category:<11} {tally.tried:>5} {tally.clean:>5} {tally.internal:>8}"
                f" {tally.wrong_exit:>10} {tally.wrote:>6} {tally.peak_mb:>8.0f}",
                flush=True,
            )
        if args.only in (None, "orphans"):
            for kind in WORKERS:
                outlived = orphan(kind, base)
                seen = "worker never started" if outlived is None else f"{outlived:.2f} s"
                print(f"orphans     {kind} worker outlived its killed CLI by {seen}", flush=True)
        for note in notes:
            print(f"  {note}")


if __name__ == "__main__":
    main()
