"""The perftui dashboard: one app factory shared by the CLI and the tests.

    from perftui.tui.app import create_app
    create_app(db_path=...).run()

Screens: Projects (home) -> New project | Benchmark configuration -> Live run | Project detail.
The app opens the store on start; a database that cannot be used gets a message screen and
is left untouched.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.notifications import SeverityLevel

from perftui.domain.errors import StoreError
from perftui.domain.records import BenchmarkRequest, Project
from perftui.store import Store, default_db_path
from perftui.tui.screens.base import PerftuiScreen, one_line
from perftui.tui.screens.dialogs import HelpScreen, StoreErrorScreen
from perftui.tui.services import Services


class PerftuiCommands(Provider):
    """Command palette entries for every screen and every project."""

    def _commands(self) -> list[tuple[str, Callable[[], Any], str]]:
        app: PerftuiApp = self.app  # type: ignore[assignment]
        commands: list[tuple[str, Callable[[], Any], str]] = [
            ("Projects", app.go_home, "The home screen: every project with its best results"),
            ("New project", app.new_project, "Pick a model file, engine and device"),
            (
                "Compare projects",
                app.compare_projects,
                "Two projects on one latency/throughput chart, sweet spot, layers side by side",
            ),
            (
                "Add sample projects",
                app.add_samples,
                "The shipped sample models, with a short benchmark of each",
            ),
            ("Help", app.action_help, "The keys of the current screen"),
        ]
        for project in app.safe_projects():
            name = project.name
            commands.append(
                (
                    f"Open project {name}",
                    partial(app.open_project, name),
                    f"{project.engine}/{project.device}: runs, charts, profiles",
                )
            )
            commands.append(
                (
                    f"Benchmark {name}",
                    partial(app.configure_benchmark, name),
                    "Configure and start a benchmark of this project",
                )
            )
            commands.append(
                (
                    f"Optimize project {name}",
                    partial(app.optimize_project, name),
                    "Make its INT8 version (ONNX Runtime quantization) and check its accuracy",
                )
            )
        return commands

    async def discover(self) -> Hits:
        for text, command, help_text in self._commands():
            yield DiscoveryHit(text, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, command, help_text in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), command, help=help_text)


class PerftuiApp(App[None]):
    """Keyboard-driven workbench for inference performance."""

    CSS_PATH = "perftui.tcss"
    TITLE = "perftui"
    COMMANDS = App.COMMANDS | {PerftuiCommands}
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (100, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", id="help"),
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True, show=False),
    ]

    def __init__(self, db_path: Path | str | None = None, services: Services | None = None):
        super().__init__()
        self.db_path = Path(db_path) if db_path is not None else default_db_path()
        self.services = services or Services()
        self.store: Store | None = None
        self._devices: dict[str, list[str] | str] | None = None
        self._devices_lock = threading.Lock()

    # ------------------------------------------------------------------ start

    def on_mount(self) -> None:
        try:
            store = Store(self.db_path)
            store.check()
        except StoreError as error:
            self.push_screen(StoreErrorScreen(one_line(error), str(self.db_path)))
            return
        except OSError as error:
            self.push_screen(StoreErrorScreen(one_line(error), str(self.db_path)))
            return
        self.store = store
        from perftui.tui.screens.projects import ProjectsScreen

        self.push_screen(ProjectsScreen())

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast. Plain text unless `markup` is asked for: messages carry project names,
        paths, typed values and engine errors, whose brackets are not markup."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    # ------------------------------------------------------------------ shared data

    def devices(self) -> dict[str, list[str] | str]:
        """Engine -> devices (or why it cannot be used); probed once. Call from a thread."""
        with self._devices_lock:
            if self._devices is None:
                self._devices = self.services.devices()
            return self._devices

    def safe_projects(self) -> list[Project]:
        if self.store is None:
            return []
        try:
            return self.store.projects()
        except StoreError:
            return []

    # ------------------------------------------------------------------ navigation

    def _home(self) -> PerftuiScreen | None:
        from perftui.tui.screens.projects import ProjectsScreen

        for screen in self.screen_stack:
            if isinstance(screen, ProjectsScreen):
                return screen
        return None

    def go_home(self) -> None:
        """Back to the projects screen (a running benchmark's screen stays until it ends)."""
        from perftui.tui.screens.live import LiveRunScreen

        home = self._home()
        if home is None:
            return
        while self.screen is not home:
            if isinstance(self.screen, LiveRunScreen) and self.screen.running:
                self.notify("A benchmark is running; cancel it (x) or wait for it to finish.")
                return
            self.pop_screen()

    def _project(self, name: str) -> Project | None:
        try:
            project = self.store.get_project(name) if self.store else None
        except StoreError as error:
            self.notify(one_line(error), severity="error")
            return None
        if project is None:
            self.notify(f"no project named '{name}'", severity="warning")
        return project

    def open_project(self, name: str) -> None:
        from perftui.tui.screens.detail import ProjectDetailScreen

        if (project := self._project(name)) is not None:
            self.go_home()
            self.push_screen(ProjectDetailScreen(project.name))

    def configure_benchmark(self, name: str) -> None:
        from perftui.tui.screens.configure import BenchmarkConfigScreen

        if (project := self._project(name)) is not None:
            self.push_screen(BenchmarkConfigScreen(project))

    def optimize_project(self, name: str) -> None:
        from perftui.tui.screens.optimize import open_optimize

        open_optimize(self, name)

    def compare_projects(self, a: str | None = None, b: str | None = None) -> None:
        """The compare screen for A and B (the defaults when not given)."""
        from perftui.tui.screens.compare import CompareScreen

        if self.store is not None:
            self.push_screen(CompareScreen(a, b))

    def new_project(self) -> None:
        from perftui.tui.screens.new_project import NewProjectScreen

        if self.store is not None:
            self.push_screen(NewProjectScreen())

    def add_samples(self) -> None:
        home = self._home()
        if home is not None:
            self.go_home()
            home.action_samples()  # type: ignore[attr-defined]

    def run_benchmarks(self, requests: Iterable[BenchmarkRequest], *, validated: bool) -> None:
        """Open the live screen for these requests (run one after the other)."""
        from perftui.tui.screens.live import LiveRunScreen

        self.push_screen(LiveRunScreen(list(requests), validated=validated))

    # ------------------------------------------------------------------ help

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
            return
        screen = self.screen
        grouped: dict[tuple[int, str, str], list[str]] = {}
        descriptions: dict[tuple[int, str, str], str] = {}
        for key, active in screen.active_bindings.items():
            binding = active.binding
            if binding.system or not binding.description:
                continue
            # perftui's own keys (they have ids) first, the screen's before the app's; then
            # Textual's (focus, copy) and those of the focused widget
            rank = (0 if active.node is screen else 1) if binding.id else 2
            group = (rank, binding.id or binding.action, binding.description)
            grouped.setdefault(group, []).append(self.get_key_display(binding) or key)
            descriptions[group] = binding.tooltip or binding.description
        keys = [
            ("/".join(dict.fromkeys(grouped[g])), descriptions[g], g[1])
            for g in sorted(grouped, key=lambda g: g[0])
        ]
        keys.insert(
            sum(1 for g in grouped if g[0] < 2),
            ("ctrl+p", "Command palette: every screen and project", "command_palette"),
        )
        text = getattr(screen, "HELP", "") or ""
        focused_help = getattr(self.focused, "HELP", None)
        if focused_help:
            text = f"{text}\n\n{focused_help}".strip()
        title = getattr(screen, "TITLE_TEXT", "") or type(screen).__name__
        self.push_screen(HelpScreen(title, text, keys))


def create_app(db_path: Path | str | None = None, services: Services | None = None) -> PerftuiApp:
    """The dashboard on the database at `db_path` ($PERFTUI_DB or the default when None)."""
    return PerftuiApp(db_path, services)
