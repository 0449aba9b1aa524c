"""The optimize runner (child process, its JSON-lines events, exit statuses, the parent
storing the result) and the project notes it reads back (the dialog's form:
test_optimize_form.py)."""

from __future__ import annotations

import json
import signal
import sys
import threading
from pathlib import Path

import pytest

from perftui.bench import protocol
from perftui.domain.records import Project
from perftui.optimize.notes import derived_projects, optimization_of
from perftui.optimize.runner import (
    Finished,
    OptimizeOptions,
    OptimizeProcess,
    OptimizeWarning,
    Step,
    death_line,
)
from perftui.store.database import Store
from tests.conftest import MOBILENET

# --------------------------------------------------------------------------- events


def test_optimize_events_are_the_workers_json_lines():
    events = [
        Step("preparing"),
        Step("calibrating", 3, 16),
        OptimizeWarning("random data, take care"),
        protocol.Handback({"project": {"name": "q"}, "warning": None}),
        protocol.Fatal("calibration folder /x is empty"),
    ]
    lines = [protocol.encode(event) + "\n" for event in events]
    assert lines[1] == '{"event":"step","phase":"calibrating","done":3,"total":16}\n'
    assert list(protocol.read(["", *lines, "\n"])) == events
    step = Step("calibrating", 3, 12)
    assert step.text == "calibrating 3/12" and step.fraction == 0.25
    assert Step("saving").text == "saving" and Step("saving").fraction is None
    for other in ("calibrating 3/16", "[W:onnxruntime:, graph.cc:1] Something", "[]", "{}"):
        with pytest.raises(protocol.ProtocolError, match="not an event"):
            list(protocol.read([other]))


def test_a_death_without_a_fatal_event_names_how_and_the_last_stderr_line():
    assert death_line(["preparing", "Segmentation fault", ""], -11) == (
        "the optimize process ended with signal SIGSEGV: Segmentation fault"
    )
    assert death_line([], 3) == "the optimize process ended with exit status 3"


def test_the_worker_gets_the_database_the_work_folder_and_the_options():
    process = OptimizeProcess(OptimizeOptions("net"), "/data/db.json", python="py")
    worker = ["py", "-m", "perftui.optimize.worker", "/data/db.json", "/tmp/w"]
    assert process.argv("/tmp/w") == worker
    assert OptimizeProcess(OptimizeOptions("net"), "db.json").argv("w")[0] == sys.executable
    full = OptimizeOptions("net", "dynamic", "/calib", 4, "net-q", ("input_ids[1,16]",), seed=3)
    assert OptimizeOptions.from_json(full.to_json()) == full


# --------------------------------------------------------------------------- notes

ACCURACY = {
    "inputs": "held-out",
    "samples": 4,
    "max_abs_diff": 0.5,
    "mean_abs_diff": 0.05,
    "cosine_similarity": 0.99,
    "top1_agreement": 0.75,
    "outputs": [
        {
            "name": "logits",
            "shape": [1, 10],
            "elements": 40,
            "max_abs_diff": 0.5,
            "mean_abs_diff": 0.05,
            "cosine_similarity": 0.99,
            "cosine_min": 0.98,
            "top1_agreement": 0.75,
            "top1_matches": 3,
            "top1_rows": 4,
        }
    ],
}


def test_optimization_notes_read_back():
    notes = {
        "optimization": {
            "method": "static",
            "calibration": "random",
            "calibration_dir": None,
            "samples": 4,
            "seed": 0,
            "accuracy": ACCURACY,
            "created_at": "2025-03-01T11:00:00+00:00",
        }
    }
    project = Project("q", "/m/q.onnx", "onnxruntime", source_project="net", notes=notes)
    opt = optimization_of(project)
    assert opt is not None and opt.source == "net" and opt.random
    assert opt.calibration_text() == "4 seeded random samples (seed 0)"
    assert opt.accuracy is not None and opt.accuracy.top1_agreement == 0.75
    folder = {"optimization": {"calibration": "folder", "calibration_dir": "/c", "samples": 2}}
    opt = optimization_of(Project("f", "/m/f.onnx", "onnxruntime", notes=folder))
    assert opt is not None and opt.calibration_text() == "2 samples from /c"
    assert opt.method == "static" and opt.accuracy is None and not opt.random
    broken = {"optimization": {"method": "dynamic", "accuracy": {"outputs": [{"x": 1}]}}}
    opt = optimization_of(Project("b", "/m/b.onnx", "onnxruntime", notes=broken))
    assert opt is not None and opt.accuracy is None
    assert optimization_of(Project("p", "/m/p.onnx", "onnxruntime")) is None
    assert optimization_of(Project("p", "/m/p.onnx", "onnxruntime", notes={"x": 1})) is None


def test_derived_projects():
    projects = [
        Project("net", "/m/n.onnx", "onnxruntime"),
        Project("net-int8", "/m/q.onnx", "onnxruntime", source_project="net"),
        Project("other", "/m/o.onnx", "onnxruntime", source_project="x"),
    ]
    assert derived_projects("net", projects) == ["net-int8"]
    assert derived_projects("net-int8", projects) == []


# --------------------------------------------------------------------------- the child

FAKE_CHILD = r"""#!{python}
import json, os, signal, sys, time
mode = os.environ["FAKE_MODE"]
if mode == "handled":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
err = sys.stderr
def emit(event, **fields):  # the workers' JSON lines on stdout
    print(json.dumps({{"event": event, **fields}}), flush=True)
def step(phase, done=0, total=0):
    emit("step", phase=phase, done=done, total=total)
def hand_back(warning):  # the model in the parent's work folder, the result as an event
    with open(os.environ["FAKE_SEEN"], "w") as seen:
        json.dump({{"argv": sys.argv[1:], "stdin": sys.stdin.read()}}, seen)
    model = os.path.join(sys.argv[-1], "int8.onnx")
    with open(model, "w") as out:
        out.write("int8 model")
    made = json.loads(os.environ["FAKE_RESULT"])
    made["project"]["model"], made["warning"] = model, warning
    emit("handback", result=made)
if mode == "ok":
    emit("warning", text="random data")
    step("preparing")
    for i in range(1, 4):
        step("calibrating", i, 3)
    err.write("noise from an engine: W\n")
    step("saving")
    hand_back("random data")
elif mode == "big":
    for i in range(1, 2001):
        step("calibrating", i, 2000)
        err.write(f"engine chatter {{i}}\n")
    hand_back("x" * 300000)
elif mode == "bad":
    step("preparing")
    emit("fatal", error="calibration folder /c is empty")
    sys.exit(2)
elif mode == "junk":
    print("not json")
elif mode == "silent":
    step("preparing")
elif mode == "internal":
    emit("fatal", error="internal error: KeyError: 'x' (set PERFTUI_DEBUG=1 ...)")
    sys.exit(1)
elif mode in ("handled", "default", "stubborn"):
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    step("preparing")
    for i in range(1, 1000):
        step("calibrating", i, 999)
        time.sleep(0.02)
elif mode == "crash":
    step("preparing")
    err.write("Segmentation fault\n")
    err.flush()
    os.kill(os.getpid(), signal.SIGKILL)
"""


def fake_result() -> dict:
    """A worker's hand-back (OptimizeResult.handback) for the fake child to print."""
    from perftui.optimize.accuracy import AccuracyReport
    from perftui.optimize.project import OptimizeResult

    made = OptimizeResult(
        project=Project("net-int8", "", "onnxruntime", "CPU", source_project="net"),
        source=Project("net", "/m/net.onnx", "onnxruntime", "CPU"),
        method="static",
        calibration="random",
        samples=3,
        warning=None,
        accuracy=AccuracyReport.from_dict(ACCURACY),
    )
    return made.handback()


def run_fake(tmp_path: Path, mode: str, on_step=None) -> tuple[list, OptimizeProcess]:
    script = tmp_path / "fake-python"
    script.write_text(FAKE_CHILD.format(python=sys.executable))
    script.chmod(0o755)
    process = OptimizeProcess(
        OptimizeOptions("net", samples=3),
        tmp_path / "db.json",
        python=str(script),
        env={
            "FAKE_MODE": mode,
            "FAKE_SEEN": str(tmp_path / "seen.json"),
            "FAKE_RESULT": json.dumps(fake_result()),
            "PATH": "/usr/bin:/bin",
        },
    )
    events = []
    for event in process.events():
        events.append(event)
        if on_step is not None and isinstance(event, Step):
            on_step(process, event)
    return events, process


def test_a_child_that_succeeds(tmp_path: Path):
    events, _ = run_fake(tmp_path, "ok")
    assert events[0] == OptimizeWarning("random data")
    assert [e.text for e in events if isinstance(e, Step)] == [
        "preparing", "calibrating 1/3", "calibrating 2/3", "calibrating 3/3", "saving",
    ]  # fmt: skip
    done = events[-1]
    assert isinstance(done, Finished) and done.status == "ok" and done.project == "net-int8"
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen["argv"][:3] == ["-m", "perftui.optimize.worker", str(tmp_path / "db.json")]
    assert OptimizeOptions.from_json(seen["stdin"]) == OptimizeOptions("net", samples=3)
    assert not done.cancel_requested
    # the parent stored what the child made, and removed the child's work folder
    stored = Store(tmp_path / "db.json").get_project("net-int8")
    assert stored is not None and stored.source_project == "net"
    assert stored.model == done.result["model"] == str(tmp_path / "models" / "net-int8.onnx")
    assert Path(stored.model).read_text() == "int8 model"
    assert not Path(seen["argv"][-1]).exists()


def test_a_big_document_and_many_lines_do_not_block(tmp_path: Path):
    events, _ = run_fake(tmp_path, "big")
    assert sum(isinstance(e, Step) for e in events) == 2000
    assert events[-1].status == "ok" and len(events[-1].result["warning"]) == 300000


@pytest.mark.parametrize(
    ("mode", "error"),
    [
        ("bad", "calibration folder /c is empty"),
        ("junk", "the optimize process sent a line that is not an event: 'not json'"),
        ("silent", "the optimize process handed back no result"),
        ("internal", "internal error: KeyError: 'x' (set PERFTUI_DEBUG=1 ...)"),
        ("crash", "the optimize process ended with signal SIGKILL: Segmentation fault"),
    ],
)
def test_a_child_that_fails_gives_one_line(tmp_path: Path, mode: str, error: str):
    events, _ = run_fake(tmp_path, mode)
    done = events[-1]
    assert isinstance(done, Finished) and done.status == "error", done
    assert done.error == error and done.result is None


@pytest.mark.parametrize("mode", ["handled", "default"])
def test_cancel_from_another_thread(tmp_path: Path, mode: str):
    def cancel_later(process: OptimizeProcess, step: Step) -> None:
        if step.phase == "calibrating" and step.done == 2:
            threading.Thread(target=process.cancel).start()

    events, process = run_fake(tmp_path, mode, cancel_later)
    done = events[-1]
    assert isinstance(done, Finished) and done.status == "cancelled" and done.cancel_requested
    assert done.returncode == (130 if mode == "handled" else -signal.SIGTERM)
    assert process.cancelled
    # stopped where it was, not run to its end (999 steps)
    assert max(e.done for e in events if isinstance(e, Step)) < 999


def test_kill_stops_a_child_that_ignores_sigterm(tmp_path: Path):
    def stop(process: OptimizeProcess, step: Step) -> None:
        if step.done == 2:
            process.cancel()
        elif step.done == 10:
            process.kill()

    events, _ = run_fake(tmp_path, "stubborn", stop)
    done = events[-1]
    assert done.status == "cancelled" and done.returncode == -signal.SIGKILL


def test_cancel_before_the_start_runs_nothing(tmp_path: Path):
    process = OptimizeProcess(OptimizeOptions("net"), tmp_path / "db.json", python="/nonexistent")
    process.cancel()
    assert list(process.events()) == [Finished("cancelled", 130, cancel_requested=True)]


# --------------------------------------------------------------------------- the real command


@pytest.mark.engine
def test_the_real_command_makes_the_project(tmp_path: Path):
    pytest.importorskip("onnxruntime")
    db = tmp_path / "db.json"
    Store(db).add_project(Project("mobilenet", str(MOBILENET), "onnxruntime", "CPU"))
    events = list(OptimizeProcess(OptimizeOptions("mobilenet", samples=2), db).events())
    steps = [e.text for e in events if isinstance(e, Step)]
    assert steps[:4] == ["preparing", "calibrating 1/2", "calibrating 2/2", "quantizing"]
    assert steps[-1] == "saving"
    assert any(isinstance(e, OptimizeWarning) and "random" in e.text for e in events)
    done = events[-1]
    assert isinstance(done, Finished) and done.status == "ok", done
    assert done.project == "mobilenet-int8" and done.result["accuracy"]["samples"] == 2
    project = Store(db).get_project("mobilenet-int8")
    assert project is not None and project.source_project == "mobilenet"
    assert Path(project.model).is_file()
    # the same name again: exit 2 with the command's one line
    again = list(OptimizeProcess(OptimizeOptions("mobilenet", samples=2), db).events())[-1]
    assert again.status == "error" and again.returncode == 2
    assert again.error == "project 'mobilenet-int8' already exists; choose a name with --name NAME"


@pytest.mark.engine
def test_the_real_command_cancelled_keeps_nothing(tmp_path: Path):
    pytest.importorskip("onnxruntime")
    db = tmp_path / "db.json"
    Store(db).add_project(Project("mobilenet", str(MOBILENET), "onnxruntime", "CPU"))
    process = OptimizeProcess(OptimizeOptions("mobilenet", samples=200), db)
    done = None
    for event in process.events():
        if isinstance(event, Step) and event.phase == "calibrating":
            process.cancel()
        done = event
    assert isinstance(done, Finished) and done.status == "cancelled", done
    assert done.returncode == 130
    assert [p.name for p in Store(db).projects()] == ["mobilenet"]
    models = tmp_path / "models"
    assert not models.exists() or not any(models.iterdir())
    assert done.result is None  # nothing to show


def test_the_runner_and_notes_load_no_textual_numpy_or_engine():
    import subprocess

    code = (
        "import sys, perftui.optimize.runner, perftui.optimize.notes;"
        " print('\\n'.join(sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split())
    assert not {"numpy", "onnx", "onnxruntime", "openvino", "textual"} & loaded
