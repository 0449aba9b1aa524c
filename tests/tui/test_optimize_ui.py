"""Optimize (INT8) from the dashboard: the dialog, the progress box with a fake child process
(progress, cancel, errors), the accuracy figures in the project Summary, and one real run."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select, Static

from perftui.domain.records import Project
from perftui.optimize.runner import Finished, OptimizeOptions, OptimizeWarning, Step
from perftui.store.database import Store
from perftui.tui.app import PerftuiCommands, create_app
from perftui.tui.benchmark.configure import BenchmarkConfigScreen
from perftui.tui.detail.screen import ProjectDetailScreen
from perftui.tui.kit.dialogs import ConfirmScreen, HelpScreen
from perftui.tui.optimize.dialog import OptimizeDialog
from perftui.tui.optimize.progress import OptimizeScreen, OptimizeStep
from perftui.tui.projects.screen import ProjectsScreen
from tests.tui.snapshot_helpers import settle
from tests.tui.waiting import wait_for

pytestmark = pytest.mark.tui

MODEL = Path(__file__).resolve().parents[2] / "sample_models" / "mobilenet_fp32.onnx"
WARNING = (
    "no --calibration folder: calibrated on seeded random data, so the accuracy figures are "
    "only a consistency check of the INT8 model against the FP32 one, not its accuracy on "
    "real data"
)
ACCURACY = {
    "inputs": "held-out",
    "samples": 16,
    "max_abs_diff": 0.4692,
    "mean_abs_diff": 0.08873,
    "cosine_similarity": 0.98094,
    "top1_agreement": 0.8125,
    "outputs": [
        {
            "name": "logits",
            "shape": [1, 1000],
            "elements": 16000,
            "max_abs_diff": 0.4692,
            "mean_abs_diff": 0.08873,
            "cosine_similarity": 0.98094,
            "cosine_min": 0.9722,
            "top1_agreement": 0.8125,
            "top1_matches": 13,
            "top1_rows": 16,
        }
    ],
}


def notes(calibration: str = "random", method: str = "static") -> dict:
    return {
        "optimization": {
            "method": method,
            "calibration": calibration,
            "calibration_dir": "/data/calib" if calibration == "folder" else None,
            "samples": 16,
            "seed": 0 if calibration == "random" else None,
            "source_model": "/models/net_fp32.onnx",
            "accuracy": ACCURACY,
            "created_at": "2025-03-01T11:00:00+00:00",
        }
    }


def add_int8(db: Path, name: str = "net-fp32-int8", **kwargs: str) -> Project:
    source = Store(db).get_project("net-fp32")
    assert source is not None
    return Store(db).add_project(
        Project(
            name,
            f"/models/{name}.onnx",
            source.engine,
            source.device,
            created_at="2025-03-01T11:00:00+00:00",
            source_project="net-fp32",
            notes=notes(**kwargs),
        )
    )


@dataclass
class FakeOptimizer:
    """Plays `perftui optimize`: steps, the random-data warning, then the end it is told;
    "ok" stores the project as the child would."""

    options: OptimizeOptions
    db_path: Path
    end: str = "ok"
    gate: threading.Event | None = None
    cancelled: bool = False
    killed: bool = False
    stubborn: bool = False
    """Ignores the first cancel (SIGTERM) like a child stuck in native code."""
    finished: list[Finished] = field(default_factory=list)

    def cancel(self) -> None:
        self.cancelled = True
        if self.gate is not None and not self.stubborn:
            self.gate.set()

    def kill(self) -> None:
        self.killed = self.cancelled = True
        if self.gate is not None:
            self.gate.set()

    def events(self) -> Iterator[object]:
        yield OptimizeWarning(WARNING)
        yield Step("preparing")
        yield Step("calibrating", 1, 4)
        if self.gate is not None:
            self.gate.wait(10)
        yield from self._end()

    def _end(self) -> Iterator[object]:
        if self.cancelled:
            done = Finished("cancelled", 130, cancel_requested=True)
        elif self.end == "error":
            done = Finished("error", 2, error="calibration folder /data/calib is empty")
        else:
            yield from (Step("calibrating", i, 4) for i in (2, 3, 4))
            yield from (Step("quantizing"), Step("checking accuracy", 16, 16), Step("saving"))
            add_int8(self.db_path, self.options.name or "net-fp32-int8")
            result = {
                "project": self.options.name,
                "source": self.options.project,
                "model": f"/models/{self.options.name}.onnx",
                "method": self.options.method,
                "calibration": "random",
                "samples": 16,
                "warning": WARNING,
                "accuracy": ACCURACY,
            }
            done = Finished("ok", 0, result=result)
        self.finished.append(done)
        yield done


@pytest.fixture
def optimizers(services) -> list[FakeOptimizer]:
    made: list[FakeOptimizer] = []
    services.end = "ok"
    services.opt_gate = None

    def optimize(options: OptimizeOptions, db_path: Path) -> FakeOptimizer:
        fake = FakeOptimizer(options, db_path, services.end, services.opt_gate)
        made.append(fake)
        return fake

    services.optimize = optimize
    return made


def text(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def names(app) -> list[str]:
    table = app.screen.query_one("#projects", DataTable)
    return [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]


async def open_dialog(app, pilot, row: int = 1) -> OptimizeDialog:
    await pilot.pause()
    await pilot.press(*["down"] * row, "i")
    await wait_for(pilot, lambda: isinstance(app.screen, OptimizeDialog))
    await pilot.pause()
    return app.screen


# --------------------------------------------------------------------------- the dialog


async def test_the_dialog_suggests_a_name_and_escape_backs_out(app, optimizers):
    async with app.run_test() as pilot:
        dialog = await open_dialog(app, pilot)
        assert dialog.project.name == "net-fp32"
        assert dialog.values() == {
            "method": "static",
            "calibration": "",
            "samples": "",
            "shapes": "",
            "name": "net-fp32-int8",
        }
        assert "seeded random data" in text(dialog, "#n-calibration")
        assert app.focused is dialog.query_one("#o-calibration")
        dialog.query_one("#o-method", Select).value = "dynamic"
        await pilot.pause()
        assert dialog.values()["name"] == "net-fp32-int8-dynamic"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ProjectsScreen) and optimizers == []


async def test_the_dialog_checks_each_field_before_starting(app, optimizers, tmp_path: Path):
    folder = tmp_path / "calib"
    folder.mkdir()
    (tmp_path / "sample.npy").write_bytes(b"x")
    async with app.run_test() as pilot:
        dialog = await open_dialog(app, pilot)
        calibration = dialog.query_one("#o-calibration", Input)
        calibration.value = str(tmp_path / "missing")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, OptimizeDialog) and optimizers == []
        assert "no such folder" in text(dialog, "#n-calibration")
        assert dialog.query_one("#n-calibration").has_class("error")
        calibration.value = str(tmp_path / "sample.npy")
        await pilot.pause()
        assert "is a file" in text(dialog, "#n-calibration")
        calibration.value = str(folder)
        dialog.query_one("#o-samples", Input).value = "0"
        name = dialog.query_one("#o-name", Input)
        name.value = "net-int8"  # taken
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert app.focused is dialog.query_one("#o-samples")
        assert "at least 1" in text(dialog, "#n-samples")
        assert "already exists" in text(dialog, "#n-name")
        assert "folder found" in text(dialog, "#n-calibration")
        dialog.query_one("#o-samples", Input).value = "8"
        name.value = "net-q"
        dialog.query_one("#o-method", Select).value = "dynamic"  # the edited name stays
        await pilot.pause()
        assert name.value == "net-q"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: optimizers and optimizers[0].finished)
        assert optimizers[0].options == OptimizeOptions(
            "net-fp32", "dynamic", str(folder), 8, "net-q", ()
        )
        assert optimizers[0].db_path == app.db_path


async def test_the_dialog_has_help_and_its_keys(app, optimizers):
    async with app.run_test(size=(100, 40)) as pilot:
        await open_dialog(app, pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert {"start", "cancel", "help"} <= {ident for _, _, ident in app.screen.keys}
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, OptimizeDialog)


# --------------------------------------------------------------------------- progress


async def test_success_refreshes_notifies_and_offers_the_benchmark(app, optimizers, services):
    async with app.run_test(size=(100, 30)) as pilot:
        await open_dialog(app, pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizeScreen))
        box = app.screen
        await wait_for(pilot, lambda: box.outcome is not None)
        await pilot.pause()
        assert box.outcome.status == "ok"
        steps = text(box, "#opt-steps")
        assert "Accuracy  on 16 held-out inputs: max |diff| 0.469   mean |diff| 0.0887" in steps
        assert "cosine 0.9809   top-1 agreement 81% (13/16)" in steps
        assert "warning: no Calibration folder" in text(box, "#opt-warning")
        assert "--calibration" not in text(box, "#opt-warning")
        assert "b benchmark it" in text(box, "#opt-status")
        assert any("Made net-fp32-int8" in n.message for n in app._notifications)
        # the table below already lists it, with the cursor on it
        home = app.screen_stack[-2]
        assert isinstance(home, ProjectsScreen) and home.current_name() == "net-fp32-int8"
        assert "net-fp32-int8" in home.names
        assert not box.check_action("cancel", ()) and box.check_action("benchmark", ())
        await pilot.press("b")
        await pilot.pause()
        config = app.screen
        assert isinstance(config, BenchmarkConfigScreen)
        assert config.project.name == "net-fp32-int8"
        # the FP32 project's last benchmark settings, with the per-layer profile on
        assert config.values()["batch"] == "1,4" and config.values()["threads"] == "1,2"
        assert config.query_one("#profile").value is True


async def test_progress_lines_replace_each_other_and_mark_the_steps(app, optimizers, services):
    step = OptimizeStep(Step("calibrating", 1, 4))
    assert step.can_replace(OptimizeStep(Step("calibrating", 2, 4)))
    gate = threading.Event()
    services.opt_gate = gate
    async with app.run_test(size=(100, 30)) as pilot:
        await open_dialog(app, pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizeScreen))
        box = app.screen
        await wait_for(pilot, lambda: "calibrating 1/4" in text(box, "#opt-steps"))
        steps = text(box, "#opt-steps").splitlines()
        assert steps[:3] == ["✓ preparing", "▶ calibrating 1/4", "· quantizing"]
        assert "calibrating 1/4…" in text(box, "#opt-status")
        assert box.check_action("cancel", ()) and not box.check_action("benchmark", ())
        gate.set()
        await wait_for(pilot, lambda: box.outcome is not None)


async def test_cancel_keeps_nothing_and_edit_tries_again(app, optimizers, services, db: Path):
    services.opt_gate = threading.Event()
    async with app.run_test(size=(100, 30)) as pilot:
        await open_dialog(app, pilot)
        app.screen.query_one("#o-samples", Input).value = "4"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizeScreen))
        box = app.screen
        await wait_for(pilot, lambda: "calibrating" in text(box, "#opt-status"))
        await pilot.press("x")
        await wait_for(pilot, lambda: box.outcome is not None)
        await pilot.pause()
        assert optimizers[0].cancelled and not optimizers[0].killed
        assert box.outcome.status == "cancelled"
        assert "Cancelled: nothing was kept." in text(box, "#opt-status")
        assert "✗ calibrating 1/4" in text(box, "#opt-steps")
        assert Store(db).get_project("net-fp32-int8") is None
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizeDialog))
        assert app.screen.values()["samples"] == "4"  # the same options to edit
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ProjectsScreen)


async def test_a_second_cancel_stops_the_child_at_once(app, optimizers, services):
    services.opt_gate = threading.Event()
    async with app.run_test(size=(100, 30)) as pilot:
        await open_dialog(app, pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizeScreen))
        box = app.screen
        await wait_for(pilot, lambda: optimizers)
        optimizers[0].stubborn = True
        await pilot.press("x")
        await pilot.pause()
        assert "cancelling" in text(box, "#opt-status") and box.outcome is None
        await pilot.press("x")
        await wait_for(pilot, lambda: box.outcome is not None)
        assert optimizers[0].killed and box.outcome.status == "cancelled"


async def test_an_error_is_shown_in_one_line(app, optimizers, services, db: Path):
    services.end = "error"
    async with app.run_test(size=(100, 30)) as pilot:
        await open_dialog(app, pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizeScreen))
        box = app.screen
        await wait_for(pilot, lambda: box.outcome is not None)
        await pilot.pause()
        status = box.query_one("#opt-status", Static)
        assert "calibration folder /data/calib is empty" in text(box, "#opt-status")
        assert status.has_class("error")
        assert box.check_action("edit", ()) and not box.check_action("open", ())
        assert Store(db).get_project("net-fp32-int8") is None
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ProjectsScreen)


async def test_escape_while_running_asks_then_cancels(app, optimizers, services):
    services.opt_gate = threading.Event()
    async with app.run_test(size=(100, 30)) as pilot:
        await open_dialog(app, pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizeScreen))
        await wait_for(pilot, lambda: optimizers)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await wait_for(pilot, lambda: optimizers[0].finished)
        await wait_for(pilot, lambda: isinstance(app.screen, ProjectsScreen))
        assert optimizers[0].cancelled
        assert isinstance(app.screen, ProjectsScreen)
        assert any("nothing was kept" in n.message for n in app._notifications)


async def test_a_runner_that_cannot_start_is_reported(app, services):
    def broken(options: OptimizeOptions, db_path: Path) -> FakeOptimizer:
        raise OSError("cannot start python")

    services.optimize = broken
    async with app.run_test(size=(100, 30)) as pilot:
        await open_dialog(app, pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizeScreen))
        box = app.screen
        await wait_for(pilot, lambda: box.outcome is not None)
        await pilot.pause()
        assert "OSError: cannot start python" in text(box, "#opt-status")


# --------------------------------------------------------------------------- project screens


async def test_the_detail_screen_opens_the_dialog_and_shows_the_result(app, optimizers):
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.push_screen(ProjectDetailScreen("net-fp32", tab="summary"))
        await pilot.pause()
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizeDialog))
        assert app.screen.project.name == "net-fp32"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizeScreen))
        box = app.screen
        await wait_for(pilot, lambda: box.outcome is not None)
        detail = app.screen_stack[-2]
        assert isinstance(detail, ProjectDetailScreen) and detail.derived == ["net-fp32-int8"]
        await pilot.press("o")
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, ProjectDetailScreen)
                and app.screen.project_name == "net-fp32-int8"
            ),
        )
        await pilot.press("1")
        await pilot.pause()
        assert "INT8 of   net-fp32" in text(app.screen, "#summary-text")


async def test_summary_shows_how_an_int8_project_was_made(app, db: Path):
    add_int8(db)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = ProjectDetailScreen("net-fp32-int8", tab="summary")
        app.push_screen(screen)
        await wait_for(pilot, lambda: screen.info is not None)
        summary = text(screen, "#summary-text")
        assert "INT8 of   net-fp32  (static, 2025-03-01 11:00)" in summary
        assert "Data      calibrated on 16 seeded random samples (seed 0)" in summary
        assert "warning: random data, so the figures below are only a" in summary
        assert "Accuracy  on 16 held-out inputs: max |diff| 0.469   mean |diff| 0.0887" in summary
        assert "cosine 0.9809   top-1 agreement 81% (13/16)" in summary
        assert "No runs yet" in summary
        await pilot.press("escape")
        await pilot.pause()
        source = ProjectDetailScreen("net-fp32", tab="summary")
        app.push_screen(source)
        await wait_for(pilot, lambda: source.info is not None)
        assert "INT8      net-fp32-int8" in text(source, "#summary-text")


async def test_summary_of_a_folder_calibrated_dynamic_project(app, db: Path):
    add_int8(db, "net-dyn", calibration="folder", method="dynamic")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = ProjectDetailScreen("net-dyn", tab="summary")
        app.push_screen(screen)
        await wait_for(pilot, lambda: screen.info is not None)
        summary = text(screen, "#summary-text")
        assert "no calibration (dynamic); checked on 16 samples from /data/calib" in summary
        assert "warning" not in summary


async def test_the_projects_table_says_what_an_int8_project_was_made_from(app, db: Path):
    add_int8(db)
    async with app.run_test() as pilot:
        await pilot.pause()
        link = app.screen.query_one("#project-link", Static)
        assert link.display
        assert names(app)[2] == "net-fp32-int8"
        await pilot.press("down", "down")
        await pilot.pause()
        assert str(link.render()) == (
            "net-fp32-int8: static INT8 of net-fp32, cosine 0.9809, top-1 81% (random data)"
        )
        await pilot.press("up")
        await pilot.pause()
        assert str(link.render()) == "net-fp32: INT8 versions: net-fp32-int8"


async def test_an_int8_project_is_not_optimized_again(app, db: Path, optimizers):
    add_int8(db)
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("down", "down", "i")
        await pilot.pause()
        assert isinstance(app.screen, ProjectsScreen)
        assert any("optimize net-fp32 instead" in n.message for n in app._notifications)


async def test_no_link_line_without_int8_projects(app):
    async with app.run_test() as pilot:
        await pilot.pause()
        assert not app.screen.query_one("#project-link").display


async def test_the_palette_has_optimize_for_each_project(app, optimizers):
    async with app.run_test() as pilot:
        await pilot.pause()
        provider = PerftuiCommands(app.screen)
        commands = {text: command for text, command, _ in provider._commands()}
        assert {"Optimize project net-fp32", "Optimize project net-int8"} <= set(commands)
        commands["Optimize project net-int8"]()
        await pilot.pause()
        assert isinstance(app.screen, OptimizeDialog) and app.screen.project.name == "net-int8"


async def test_help_lists_the_optimize_key(app):
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        keys = {ident: (key, desc) for key, desc, ident in app.screen.keys}
        assert keys["optimize"][0] == "i" and "Optimize (INT8)" in keys["optimize"][1]


# --------------------------------------------------------------------------- snapshots


def test_snapshot_summary_with_accuracy(snap_compare, app, db: Path):
    add_int8(db)

    async def before(pilot) -> None:
        await settle(pilot)
        screen = ProjectDetailScreen("net-fp32-int8", tab="summary")
        pilot.app.push_screen(screen)
        await settle(pilot, lambda: screen.info is not None)

    assert snap_compare(app, terminal_size=(80, 24), run_before=before)


def test_snapshot_dialog(snap_compare, app, optimizers):
    async def before(pilot) -> None:
        await settle(pilot)
        await pilot.press("down", "i")
        await settle(pilot, lambda: isinstance(pilot.app.screen, OptimizeDialog))
        pilot.app.screen.query_one("#o-samples", Input).value = "x"
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=before)


def test_snapshot_result_no_color(snap_compare, db: Path, services, optimizers, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = create_app(db, services)

    async def before(pilot) -> None:
        await settle(pilot)
        await pilot.press("down", "i")
        await settle(pilot, lambda: isinstance(pilot.app.screen, OptimizeDialog))
        await pilot.press("ctrl+r")
        await settle(
            pilot,
            lambda: (
                isinstance(pilot.app.screen, OptimizeScreen)
                and pilot.app.screen.outcome is not None
                # the result's notification lands a frame or two after the outcome: wait for
                # it, so that settle() clears it instead of a picture catching it by chance
                and bool(pilot.app._notifications)
                # and the projects behind the box have the new project under the cursor
                and _home(pilot.app).current_name() == "net-fp32-int8"
            ),
        )
        # the projects behind the box are drawn as they were last laid out: lay them out
        # now, or the picture shows their new link line only when a loaded machine happened
        # to lay them out before it
        _home(pilot.app).refresh(layout=True)
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=before)


def _home(app) -> ProjectsScreen:
    return next(s for s in app.screen_stack if isinstance(s, ProjectsScreen))


# --------------------------------------------------------------------------- the real thing


@pytest.mark.engine
async def test_a_real_optimization_from_the_projects_screen(tmp_path: Path):
    pytest.importorskip("onnxruntime")
    db = tmp_path / "real.json"
    Store(db).add_project(Project("mobilenet", str(MODEL), "onnxruntime", "CPU"))
    app = create_app(db)  # the real services: the child process writes the project
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizeDialog))
        await pilot.press("tab", "4", "enter")  # calibration (empty) -> samples: 4
        await wait_for(pilot, lambda: isinstance(app.screen, OptimizeScreen))
        box = app.screen
        await wait_for(pilot, lambda: box.outcome is not None)
        assert box.outcome.status == "ok", box.outcome
        assert "warning: no Calibration folder" in text(box, "#opt-warning")
        assert "--calibration" not in text(box, "#opt-warning")
        assert "top-1 agreement" in text(box, "#opt-steps")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ProjectsScreen) and "mobilenet-int8" in names(app)
    # how long this takes is measured by benchmarks/optimize_speed.py, not asserted here
    project = Store(db).get_project("mobilenet-int8")
    assert project is not None and project.source_project == "mobilenet"
    opt = project.notes["optimization"]
    assert opt["samples"] == 4 and opt["calibration"] == "random" and opt["method"] == "static"
    assert Path(project.model).is_file() and Path(project.model).parent == tmp_path / "models"
