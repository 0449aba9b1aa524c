"""New project: a model file (tree or typed path), its inspection, engine, device and name."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DirectoryTree, Footer, Header, Input, Label, Select, Static

from perftui.domain.errors import InputError, StoreError
from perftui.domain.names import default_project_name, name_problem
from perftui.domain.records import Project
from perftui.engines import DEFAULT_ENGINE, ENGINES, capabilities
from perftui.inspection.validate import FORMATS
from perftui.targets.registry import LOCAL
from perftui.tui.kit.format import escape
from perftui.tui.kit.inspection import InspectingScreen
from perftui.tui.kit.modelinfo import ModelInfoView
from perftui.tui.kit.screen import one_line

if TYPE_CHECKING:
    from perftui.domain.model.model_info import ModelInfo

MODEL_SUFFIXES = (".onnx", ".xml")
SKIP_DIRS = {"__pycache__", "node_modules", "site-packages"}
PROBING = "Asking the engines for their devices…"


class ModelTree(DirectoryTree):
    """Folders and model files (.onnx, .xml) below the current directory; hidden ones left out."""

    HELP = "Arrows move, enter opens a folder or picks a model file, space expands a folder."

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        for path in paths:
            if path.name.startswith(".") or path.name in SKIP_DIRS:
                continue
            try:
                if path.is_dir() or path.suffix.lower() in MODEL_SUFFIXES:
                    yield path
            except OSError:
                continue


class NewProjectScreen(InspectingScreen):
    """Pick a model, see what is in it, choose engine/device and a name, create."""

    TITLE_TEXT = "New project"
    HELP = (
        "Pick a model file in the tree (enter) or type its path and press enter. The model is "
        "inspected (inputs, shapes, parameters, FLOPs). Choose the engine and the device from "
        "what the engines report on this machine, give the project a name and press ctrl+s. "
        "FP32 and INT8 versions of one network are two projects. Target: where its benchmarks "
        "run, this machine (local) or an SSH host added with `perftui targets add`."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "create", "Create", id="create"),
        Binding("ctrl+o", "focus_path", "Path", id="focus_path"),
        Binding("ctrl+t", "focus_tree", "Tree", id="focus_tree"),
    ]

    def __init__(self, root: str | Path = ".") -> None:
        super().__init__()
        self.root = Path(root)
        self.info: ModelInfo | None = None
        self.model_path: str | None = None
        self.suggested_name = ""
        """The name this screen last put in the Name field: while the field holds it (or
        nothing), the name follows the model and engine."""
        self.devices: dict[str, list[str] | str] | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="np-top"):
            with Vertical(id="np-left"):
                yield Input(
                    placeholder="model path, enter inspects",
                    id="path",
                    compact=True,
                )
                yield ModelTree(self.root, id="tree")
            with VerticalScroll(id="np-right"):
                yield ModelInfoView("Pick a model file on the left.", id="info")
        with Horizontal(id="np-choices", classes="form-row"):
            yield Label("Engine", classes="form-label")
            yield Select([(e, e) for e in ENGINES], allow_blank=False, id="engine", compact=True)
            yield Label("Device", classes="form-label short")
            yield Select([], prompt="—", id="device", compact=True, disabled=True)
        with Horizontal(classes="form-row"):
            yield Label("Name", classes="form-label")
            yield Input(placeholder="project name", id="name", compact=True)
            yield Label("Target", classes="form-label short")
            yield Select([(LOCAL, LOCAL)], allow_blank=False, id="target", compact=True)
        yield Static("", id="np-status", classes="status-line")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#np-left").border_title = "Model file: type (^o) or pick (^t)"
        self.query_one("#np-right").border_title = "Inspection"
        self.query_one("#path", Input).focus()
        self._status(PROBING)
        self._probe()

    # ------------------------------------------------------------------ engines and devices

    @work(thread=True, exit_on_error=False, name="devices", group="devices")
    def _probe(self) -> None:
        try:
            targets = self.perftui.services.targets(self.perftui.db_path)
        except InputError as error:  # an unreadable targets file: this machine only
            self.app.call_from_thread(self._status, one_line(error), error=True)
        else:
            self.app.call_from_thread(self._targets_found, targets)
        devices = self.perftui.devices()
        self.app.call_from_thread(self._devices_found, devices)

    def _targets_found(self, names: list[str]) -> None:
        self.query_one("#target", Select).set_options([(n, n) for n in [LOCAL, *names]])

    def _devices_found(self, devices: dict[str, list[str] | str]) -> None:
        self.devices = devices
        self.query_one("#device", Select).disabled = False
        problems = [why for why in devices.values() if isinstance(why, str)]
        if problems:
            self._status("; ".join(problems), error=True)
        elif str(self.query_one("#np-status", Static).render()) == PROBING:
            self._status("")
        self._update_engines()

    def _engines_for_model(self) -> list[str]:
        usable = [
            e for e in ENGINES if self.devices is None or isinstance(self.devices.get(e), list)
        ]
        fmt = FORMATS.get(Path(self.model_path).suffix.lower()) if self.model_path else None
        if fmt is not None:
            usable = [e for e in usable if capabilities(e).reads(fmt)]
        return usable

    def _update_engines(self, new_model: bool = False) -> None:
        """Offer the usable engines; a new model gets the one `perftui bench` gives it
        (DEFAULT_ENGINE where usable), otherwise the current choice stays."""
        engine = self.query_one("#engine", Select)
        usable = self._engines_for_model()
        current = None if new_model else engine.value
        if not usable:
            engine.set_options([("no usable engine", "none")])
            self._update_devices()
            return
        engine.set_options([(e, e) for e in usable])
        preferred = current if current in usable else None
        engine.value = preferred or (DEFAULT_ENGINE if DEFAULT_ENGINE in usable else usable[0])
        self._update_devices()

    def _update_devices(self) -> None:
        device = self.query_one("#device", Select)
        engine = self.query_one("#engine", Select).value
        found = self.devices.get(str(engine)) if self.devices else None
        if isinstance(found, list) and found:
            current = device.value
            device.set_options([(d, d) for d in found])
            device.value = current if current in found else ("CPU" if "CPU" in found else found[0])
        else:
            device.set_options([])

    @on(Select.Changed, "#target")
    def _target_changed(self, event: Select.Changed) -> None:
        """The chosen host's devices, as its engines report them there."""
        name = str(event.value)
        if self.devices is not None or name != LOCAL:
            self.devices = None
            self.query_one("#device", Select).disabled = True
            self._status(f"Asking the engines on {name} for their devices…")
            self._probe_target(name)

    @work(thread=True, exit_on_error=False, name="devices", group="target-devices")
    def _probe_target(self, name: str) -> None:
        services = self.perftui.services
        found = (
            self.perftui.devices()
            if name == LOCAL
            else services.target_devices(self.perftui.db_path, name)
        )
        self.app.call_from_thread(self._target_devices_found, name, found)

    def _target_devices_found(self, name: str, devices: dict[str, list[str] | str]) -> None:
        if str(self.query_one("#target", Select).value) == name:  # not an earlier choice's
            self._status("")
            self._devices_found(devices)

    @on(Select.Changed, "#engine")
    def _engine_changed(self, event: Select.Changed) -> None:
        self._update_devices()
        self._suggest_name()

    @on(Select.Changed, "#device")
    def _device_changed(self, event: Select.Changed) -> None:
        self._suggest_name()

    # ------------------------------------------------------------------ model

    @on(DirectoryTree.FileSelected)
    def _file_selected(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        path = self.query_one("#path", Input)
        path.value = str(event.path)
        self._inspect(str(event.path))

    @on(Input.Submitted, "#path")
    def _path_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self._status("Type a model path, or pick a file in the tree.", error=True)
            return
        self._inspect(text)

    def _inspect(self, path: str) -> None:
        self.info = None
        self.model_path = str(Path(path).expanduser())
        self.query_one("#info", ModelInfoView).show_hint(f"Inspecting {path}…")
        self._status("")
        self._update_engines(new_model=True)
        self.inspect_model(self.model_path)

    def inspected(self, path: str, info: ModelInfo) -> None:
        if path != self.model_path:
            return  # a later pick replaced this one
        self.info = info
        self.query_one("#info", ModelInfoView).show_info(info)
        self._suggest_name()
        if any(i > 0 for spec in info.inputs for i in spec.dynamic_dims):
            self._status(
                "This model has dynamic input dimensions besides the batch: give "
                "their sizes (Shapes) when you benchmark it."
            )
        self.query_one("#name", Input).focus()

    def inspect_failed(self, error: BaseException) -> None:
        self.info = None
        self.query_one("#info", ModelInfoView).show_error(one_line(error))
        if not isinstance(error, InputError):
            self.report(error, "Inspection")

    @property
    def name_edited(self) -> bool:
        """Whether the person typed the name (Input.Changed arrives after a programmatic
        change, so the field's text, not a flag, says who wrote it)."""
        return self.query_one("#name", Input).value.strip() not in ("", self.suggested_name)

    def _suggest_name(self) -> None:
        if self.name_edited or not self.model_path:
            return
        engine = str(self.query_one("#engine", Select).value)
        device = self.query_one("#device", Select).value
        target = str(self.query_one("#target", Select).value or LOCAL)
        name = default_project_name(
            self.model_path, engine, str(device) if device != Select.BLANK else "CPU", target
        )
        existing = {p.name for p in self.perftui.safe_projects()}
        candidate, n = name, 2
        while candidate in existing:
            candidate, n = f"{name}-{n}", n + 1
        self.suggested_name = candidate
        self.query_one("#name", Input).value = candidate

    @on(Input.Submitted, "#name")
    def _name_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_create()

    # ------------------------------------------------------------------ actions

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#np-status", Static)
        status.set_class(error, "error")
        status.update(escape(text))

    def action_focus_path(self) -> None:
        self.query_one("#path", Input).focus()

    def action_focus_tree(self) -> None:
        self.query_one("#tree", ModelTree).focus()

    def action_create(self) -> None:
        name = self.query_one("#name", Input).value.strip()
        engine = self.query_one("#engine", Select).value
        device = self.query_one("#device", Select).value
        problem = None
        if self.model_path is None or self.info is None:
            problem = "Pick a model file first (and wait for its inspection)."
        elif self.devices is None:
            problem = "Still asking the engines for their devices; try again in a moment."
        elif engine not in ENGINES or not isinstance(self.devices.get(str(engine)), list):
            problem = "No usable engine for this model on this machine."
        elif not isinstance(device, str) or not device:
            problem = f"{engine} reports no device to choose."
        elif not name:
            problem = "Give the project a name."
        else:
            problem = name_problem(name)
        if problem:
            self._status(problem, error=True)
            return
        assert self.model_path is not None
        target = str(self.query_one("#target", Select).value)
        project = Project(name, self.model_path, str(engine), str(device), target=target)
        try:
            stored = self.store.add_project(project)
        except (InputError, StoreError) as error:
            self._status(one_line(error), error=True)
            self.query_one("#name", Input).focus()
            return
        self.app.notify(f"Created project {stored.name}; now configure its benchmark.")
        self.perftui.configure_benchmark(stored.name, replace=True)
