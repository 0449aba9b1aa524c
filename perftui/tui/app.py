"""The perftui dashboard: one app factory shared by the CLI and the tests.

    from perftui.tui.app import create_app
    create_app(db_path=...).run()

Screens: Projects (home) -> New project | Benchmark configuration -> Live run | Project
detail | Compare -> Model Performance Summary | Optimize (INT8). Every move between screens
is a verb of the app (`open_project`, `configure_benchmark`, ...): a screen calls the app and
never imports another screen, so this module is the only one that knows them all. The app
opens the store on start; a database that cannot be used gets a message screen and is left
untouched.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path, PurePath
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.notifications import Notify, SeverityLevel

from perftui.domain.compare import Comparison
from perftui.domain.errors import InputError, StoreError
from perftui.domain.forms.tune import TUNE_ELSEWHERE, TuneSpec
from perftui.domain.limits import check_here
from perftui.domain.records import BenchmarkRequest, Project
from perftui.domain.report.document import Report
from perftui.domain.report.render import FORMATS, render
from perftui.optimize.notes import optimization_of
from perftui.optimize.runner import OptimizeOptions
from perftui.store import Store, default_db_path
from perftui.targets.probe import Probe
from perftui.tui.benchmark.configure import BenchmarkConfigScreen
from perftui.tui.benchmark.fleet import FleetRunScreen
from perftui.tui.benchmark.live import LiveRunScreen
from perftui.tui.commands import PerftuiCommands
from perftui.tui.compare.setup import CompareScreen
from perftui.tui.compare.summary import CompareSummaryScreen
from perftui.tui.detail.screen import ProjectDetailScreen
from perftui.tui.kit import dialogs
from perftui.tui.kit.database import CONVERT_DETAIL, CONVERT_QUESTION, WATCH_S, StoreWatch
from perftui.tui.kit.dialogs import HelpScreen, PromptScreen, StoreErrorScreen, help_for
from perftui.tui.kit.format import written
from perftui.tui.kit.keyorder import OrderedKeys
from perftui.tui.kit.requests import last_request
from perftui.tui.kit.screen import PerftuiScreen, one_line
from perftui.tui.measure.screen import MeasureScreen
from perftui.tui.optimize.dialog import OptimizeDialog
from perftui.tui.optimize.progress import OptimizeScreen
from perftui.tui.projects.new_project import NewProjectScreen
from perftui.tui.projects.screen import ProjectsScreen
from perftui.tui.services import Services
from perftui.tui.targets.add import AddTargetDialog
from perftui.tui.targets.screen import TargetsScreen
from perftui.tui.tune.form import TuneForm
from perftui.tui.tune.live import TuneScreen

WORKER_TITLES = {"samples": "Samples", "devices": "Devices", "inspect": "Inspection"}
"""The notification title of a failed worker whose screen has no `<name>_failed` method."""


WIDE = 100
"""Below this many columns toasts would cover the tables: one at a time, notes shorter."""
NARROW_NOTE_S = 5.0
SEVERITIES = ("information", "warning", "error")


class PerftuiApp(OrderedKeys):
    """Keyboard-driven workbench for inference performance (keys handled in the order typed)."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [
        "perftui.tcss",
        "projects/projects.tcss",
        "benchmark/benchmark.tcss",
        "detail/detail.tcss",
        "optimize/optimize.tcss",
        "compare/compare.tcss",
    ]
    TITLE = "perftui"
    COMMANDS = App.COMMANDS | {PerftuiCommands}
    # typed as Textual declares it (`ClassVar[...] | None` is an instance variable to mypy)
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", id="help"),
        Binding("f2", "save_svg", "Save SVG", id="save_svg", show=False),
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
        store = Store(self.db_path)
        if not store.convertible():
            self._open(store)
            return
        ask = dialogs.ConfirmScreen(CONVERT_QUESTION, CONVERT_DETAIL)
        self.push_screen(ask, lambda yes: self._open(store, convert=bool(yes)))

    def _open(self, store: Store, *, convert: bool = False) -> None:
        try:
            if convert:
                Store(self.db_path, notify=self.notify).upkeep()  # converts, says so
            store.check()
            store.summaries()  # the home screen's data: damage there is the whole list's
        except (StoreError, OSError) as error:
            self.push_screen(StoreErrorScreen(one_line(error), str(self.db_path)))
            return
        self.store = store
        self.push_screen(ProjectsScreen())
        self.set_interval(WATCH_S, StoreWatch(store, self.projects_changed).look)

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
        paths, typed values and engine errors, whose brackets are not markup.

        Under `WIDE` columns toasts cover the tables, so one shows at a time (the newest; an
        error is not replaced by a note) and a note goes after `NARROW_NOTE_S`."""
        if self.size.width < WIDE and severity == "information":
            timeout = min(timeout or NARROW_NOTE_S, NARROW_NOTE_S)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def _on_notify(self, event: Notify) -> None:
        """A toast arrives: under `WIDE` columns it replaces those shown that weigh no more
        (a note never hides a warning or an error), so at most one of each shows."""
        if self.size.width < WIDE:
            weight = SEVERITIES.index(event.notification.severity)
            for shown in list(self._notifications):
                if SEVERITIES.index(shown.severity) <= weight:
                    self._unnotify(shown, refresh=False)
        super()._on_notify(event)

    def worker_failed(
        self, screen: PerftuiScreen, worker: str | None, error: BaseException
    ) -> None:
        """Where the failed workers of every screen land (PerftuiScreen hands them over): the
        screen's `<worker name>_failed(error)` when it has one, else an error notification."""
        hook = getattr(screen, f"{worker}_failed", None)
        if callable(hook):
            hook(error)
        else:
            screen.report(error, WORKER_TITLES.get(worker or "", "Error"))

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

    def _project(self, name: str) -> Project | None:
        try:
            project = self.store.get_project(name) if self.store else None
        except StoreError as error:
            self.notify(one_line(error), severity="error")
            return None
        if project is None:
            self.notify(f"no project named '{name}'", severity="warning")
        return project

    # ------------------------------------------------------------------ navigation

    def _home(self) -> ProjectsScreen | None:
        return next((s for s in self.screen_stack if isinstance(s, ProjectsScreen)), None)

    def go_home(self) -> None:
        """Back to the projects screen (a running benchmark's screen stays until it ends)."""
        home = self._home()
        if home is None:
            return
        while self.screen is not home:
            if isinstance(self.screen, LiveRunScreen) and self.screen.running:
                self.notify("A benchmark is running; cancel it (x) or wait for it to finish.")
                return
            self.pop_screen()

    def open_project(self, name: str) -> None:
        """The project's detail screen, right above the projects screen."""
        if (project := self._project(name)) is not None:
            self.go_home()
            self.push_screen(ProjectDetailScreen(project.name))

    def new_project(self) -> None:
        if self.store is not None:
            self.push_screen(NewProjectScreen())

    def open_targets(self) -> None:
        """The Targets screen: this machine and the SSH hosts; add, test, set up, remove."""
        if self.store is not None:
            self.push_screen(TargetsScreen())

    def add_target(self, taken: list[str], done: Callable[[Probe | None], None]) -> None:
        """The form that names a new target (`taken`: names in use) and probes it; `done`
        gets the probe of a reachable host."""
        self.push_screen(AddTargetDialog(taken, self.services.probe_target), done)

    def configure_benchmark(
        self,
        name: str,
        values: dict[str, str] | None = None,
        profile: bool | None = None,
        *,
        replace: bool = False,
    ) -> None:
        """The benchmark form of a project, filled with `values` (else its last benchmark's);
        `replace` puts it in place of the current screen."""
        if (project := self._project(name)) is None:
            return
        screen = BenchmarkConfigScreen(project, values, profile)
        if replace:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def run_benchmarks(self, requests: Iterable[BenchmarkRequest], *, validated: bool) -> None:
        """Open the live screen for these requests (run one after the other)."""
        self.push_screen(LiveRunScreen(list(requests), validated=validated))

    def run_fleet(self, request: BenchmarkRequest, hosts: list[str]) -> None:
        """Open the live screen of `request` run on each of `hosts` at once (validated)."""
        self.push_screen(FleetRunScreen(request, hosts))

    def compare_projects(self, a: str | None = None, b: str | None = None) -> None:
        """The compare screen for A and B (the defaults when not given)."""
        if self.store is not None:
            self.push_screen(CompareScreen(a, b))

    def compare_summary(self, comparison: Comparison) -> None:
        self.push_screen(CompareSummaryScreen(comparison))

    def measure_alternately(self, comparison: Comparison) -> None:
        """Measure the comparison's two compared runs again, alternately, and judge them."""
        self.push_screen(MeasureScreen(comparison))

    def optimize_project(self, name: str, initial: OptimizeOptions | None = None) -> None:
        """Ask how to optimize project `name` (as `initial` when given), then run it in the
        progress box."""
        if self.store is None:
            return
        try:
            project = self.store.get_project(name)
            existing = {p.name for p in self.store.projects()}
        except StoreError as error:
            self.notify(one_line(error), title="Optimize", severity="error")
            return
        if project is None:
            self.notify(f"no project named '{name}'", severity="warning")
            return
        if project.source_project and optimization_of(project) is not None:
            self.notify(
                f"{name} is already the INT8 version of {project.source_project}; "
                f"optimize {project.source_project} instead.",
                title="Optimize",
                severity="warning",
            )
            return

        def start(options: OptimizeOptions | None) -> None:
            if options is not None:
                self.push_screen(OptimizeScreen(project, options))

        self.push_screen(OptimizeDialog(project, existing, initial), start)

    def tune_project(self, name: str) -> None:
        """Ask for a tune of project `name` (the tune form), then follow the search."""
        if (project := self._project(name)) is None:
            return
        try:
            check_here(project, "tune", TUNE_ELSEWHERE)
        except InputError as error:
            self.notify(str(error), severity="warning")
            return
        request = last_request(self.store, project.name)

        def start(spec: TuneSpec | None) -> None:
            if spec is not None:
                self.push_screen(TuneScreen(spec))

        shapes = request.shapes if request else None
        self.push_screen(TuneForm(project, shapes, self.services.cores()), start)

    def projects_changed(self, select: str | None = None) -> None:
        """A project was added behind the screens' backs: reload the projects table (cursor
        on `select`) and any open project screen."""
        for screen in self.screen_stack:
            with contextlib.suppress(NoMatches):  # a screen composing, or closing with the app
                if isinstance(screen, ProjectsScreen):
                    screen.refresh_projects(select=select)
                elif isinstance(screen, ProjectDetailScreen):
                    screen.load()

    def rename_project(self, name: str) -> None:
        """Ask for a new name of project `name` (on the projects screen, as its `r` does)."""
        home = self._home()
        if home is not None:
            self.go_home()
            home.refresh_projects(select=name)
            home.action_rename()

    def add_samples(self) -> None:
        home = self._home()
        if home is not None:
            self.go_home()
            home.action_samples()

    # ------------------------------------------------------------------ sharing

    def shared_folder(self, kind: str) -> Path:
        """Where reports ('reports') and screen pictures ('screens') go by default: beside
        the database, not wherever the dashboard was started."""
        return self.db_path.absolute().parent / kind

    def write_report(self, report: Report, *names: str) -> None:
        """`report` (of the projects `names`) as Markdown and as one HTML file, in a folder
        the person accepts (the data folder's reports/ is offered); say where."""
        stem = "perftui-report-" + "-vs-".join(re.sub(r"[^\w.-]+", "_", n) for n in names)

        def check(text: str) -> str | None:
            folder = Path(text).expanduser()
            return f"{text} is a file, not a folder" if folder.is_file() else None

        def write(text: str | None) -> None:
            if not text:
                return
            folder = Path(text).expanduser().absolute()
            paths = [folder / f"{stem}.{fmt}" for fmt in FORMATS]
            try:
                folder.mkdir(parents=True, exist_ok=True)
                for path, fmt in zip(paths, FORMATS, strict=True):
                    path.write_text(render(report, fmt), encoding="utf-8")
            except OSError as error:
                self.notify(f"Cannot write the report: {error}", title="Report", severity="error")
                return
            kinds = {"md": "Markdown", "html": "HTML"}
            self.notify(
                written([(path, kinds.get(f, f)) for path, f in zip(paths, FORMATS, strict=True)]),
                title="Report written",
                timeout=12,
            )

        question = "Write the report (Markdown and HTML) into the folder:"
        self.push_screen(PromptScreen(question, str(self.shared_folder("reports")), check), write)

    def action_save_svg(self) -> None:
        """The screen as it is now, as an SVG picture in the data folder's screens/; say
        where."""
        folder = self.shared_folder("screens")
        try:
            folder.mkdir(parents=True, exist_ok=True)
            name = self.save_screenshot(path=str(folder))
        except OSError as error:
            self.notify(f"Cannot save the picture: {error}", severity="error")
            return
        self.notify(written([(Path(name), "")]), title="Screen saved (SVG)", timeout=10)

    # ------------------------------------------------------------------ help

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
        else:
            self.push_screen(help_for(self))


def create_app(db_path: Path | str | None = None, services: Services | None = None) -> PerftuiApp:
    """The dashboard on the database at `db_path` ($PERFTUI_DB or the default when None)."""
    return PerftuiApp(db_path, services)
