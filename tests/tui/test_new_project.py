"""New project screen: pick or type a model, see its inspection, choose engine/device, create."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Select, Static

from perftui.store.database import Store
from perftui.tui.benchmark.configure import BenchmarkConfigScreen
from perftui.tui.projects.new_project import ModelTree, NewProjectScreen
from tests.tui.waiting import settled, wait_for

pytestmark = pytest.mark.tui


def models(tmp_path: Path) -> Path:
    folder = tmp_path / "models"
    (folder / "sub").mkdir(parents=True)
    (folder / "net_fp32.onnx").write_bytes(b"x")
    (folder / "net.xml").write_text("<net/>")
    (folder / "net.bin").write_bytes(b"")
    (folder / "notes.txt").write_text("not a model")
    (folder / ".hidden").mkdir()
    return folder


async def open_screen(app, pilot, root: Path) -> NewProjectScreen:
    await pilot.pause()
    screen = NewProjectScreen(root)
    app.push_screen(screen)
    await wait_for(pilot, lambda: screen.devices is not None)
    return screen


async def type_model(pilot, screen, model: Path) -> None:
    """Type the model's path, press Enter and wait for its inspection."""
    path = screen.query_one("#path", Input)
    path.value = str(model)
    path.focus()
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.info is not None)


async def test_typed_path_is_inspected_and_created(app, db: Path, tmp_path: Path, services):
    folder = models(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_screen(app, pilot, folder)
        await type_model(pilot, screen, folder / "net_fp32.onnx")
        info = str(screen.query_one("#info", Static).render())
        assert "input float32 [batch,3,224,224]" in info and "600 M" in info
        assert screen.query_one("#engine", Select).value == "openvino"  # as `perftui bench`
        assert screen.query_one("#device", Select).value == "CPU"
        assert screen.query_one("#name", Input).value == "net_fp32-openvino-CPU"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, BenchmarkConfigScreen))
    project = Store(db).get_project("net_fp32-openvino-CPU")
    assert project is not None and project.engine == "openvino"
    assert project.model == str(folder / "net_fp32.onnx")


async def test_tree_pick_of_an_ir_model_offers_openvino_only(app, tmp_path: Path):
    folder = models(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_screen(app, pilot, folder)
        tree = screen.query_one(ModelTree)
        await wait_for(pilot, lambda: len(tree.root.children) > 0)
        labels = [str(node.label) for node in tree.root.children]
        assert labels == ["sub", "net.xml", "net_fp32.onnx"]  # no .txt, .bin or hidden folder
        tree.focus()
        await pilot.press("down", "down", "enter")
        await wait_for(pilot, lambda: screen.info is not None)
        engine = screen.query_one("#engine", Select)
        assert engine.value == "openvino"
        assert [value for _, value in engine._options if value is not Select.NULL] == ["openvino"]
        device = screen.query_one("#device", Select)
        assert device.value == "CPU"
        assert screen.query_one("#name", Input).value == "net-openvino-CPU"


async def test_a_bad_model_is_reported_inline_and_cannot_be_created(app, tmp_path: Path):
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_screen(app, pilot, tmp_path)
        path = screen.query_one("#path", Input)
        path.value = str(tmp_path / "broken.onnx")
        path.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.query_one("#info").has_class("error"))
        assert "not an ONNX file" in str(screen.query_one("#info", Static).render())
        screen.query_one("#name", Input).value = "whatever"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        assert "Pick a model file first" in str(screen.query_one("#np-status", Static).render())


async def test_a_name_clash_is_shown_next_to_the_form(app, tmp_path: Path):
    folder = models(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_screen(app, pilot, folder)
        await type_model(pilot, screen, folder / "net_fp32.onnx")
        screen.query_one("#name", Input).value = "net-fp32"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        assert "already exists" in str(screen.query_one("#np-status", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not screen


async def test_a_name_nobody_typed_follows_the_model(app, tmp_path: Path):
    """Issue 12, 1: the suggested name of a failed pick used to stick to the next model."""
    folder = models(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_screen(app, pilot, folder)
        path, name = screen.query_one("#path", Input), screen.query_one("#name", Input)

        async def enter(model: Path) -> None:
            path.value = str(model)
            path.focus()
            await pilot.press("enter")
            await pilot.pause()

        await enter(folder / "broken.onnx")
        await wait_for(pilot, lambda: screen.query_one("#info").has_class("error"))
        await wait_for(pilot, lambda: name.value == "broken-openvino-CPU")
        await enter(folder / "net_fp32.onnx")
        await wait_for(pilot, lambda: screen.info is not None)
        await wait_for(pilot, lambda: name.value == "net_fp32-openvino-CPU")
        name.value = "mine"
        await pilot.pause()
        await enter(folder / "net.xml")
        await wait_for(pilot, lambda: screen.info is not None and screen.info.path.endswith("xml"))
        assert name.value == "mine"


@pytest.mark.parametrize("where", ["#name", "#tree", "#engine"])
async def test_after_create_the_first_field_of_the_form_has_the_focus(app, tmp_path: Path, where):
    """Issue 12: the configure screen that Create opens starts on its first field, wherever
    the focus was in the new-project form."""
    folder = models(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_screen(app, pilot, folder)
        await type_model(pilot, screen, folder / "net_fp32.onnx")
        screen.query_one(where).focus()
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, BenchmarkConfigScreen))
        await settled(pilot)
        batch = app.screen.query_one("#f-batch", Input)
        assert app.screen.focused is batch
        await pilot.press("ctrl+u", "2")
        assert batch.value == "2"
