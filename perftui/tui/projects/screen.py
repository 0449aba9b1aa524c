"""Home: every project with its best results; create, open, benchmark, compare, rename, delete."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Header, Static

from perftui.domain.errors import InputError, StoreError
from perftui.domain.forms.quickstart import SAMPLE_PROJECTS, quick_request, sample_projects
from perftui.domain.measurement.context import model_is_int8, precision_text
from perftui.domain.measurement.summary import Headline
from perftui.domain.names import name_problem
from perftui.domain.records import Project
from perftui.sample_models import sample_models
from perftui.targets.registry import LOCAL
from perftui.tui.kit import format as fmt
from perftui.tui.kit.dialogs import ConfirmScreen, PromptScreen
from perftui.tui.kit.fit import cut, room_left
from perftui.tui.kit.keys import BENCH, TARGETS, TUNE, optimize_key
from perftui.tui.kit.samples import headline
from perftui.tui.kit.screen import PerftuiScreen
from perftui.tui.kit.tables import SCROLLBAR, RowTable, fill_table
from perftui.tui.projects.lines import best_line, link_line

EMPTY_TEXT = (
    "[b]No projects yet.[/b]\n\n"
    "Press [b]s[/b] to add the shipped sample models (MobileNet FP32 and INT8 on OpenVINO and "
    "ONNX Runtime, CPU) and run a 2-second benchmark of each: data in under a minute.\n\n"
    "Press [b]n[/b] to create a project from your own model (.onnx or OpenVINO .xml).\n"
    "Press [b]f1[/b] for help, [b]ctrl+p[/b] for the command palette."
)

SAMPLES_HELP = "Samples: add the shipped sample models and measure them"
TARGET_CELLS = 8
"""At most this much of a target's name after the device (the rest is cut)."""


class ProjectsScreen(PerftuiScreen):
    """The projects table; the first screen."""

    TITLE_TEXT = "Projects"
    HELP = (
        "Every project (a model on an engine and device) with its best throughput, best median "
        "latency (each with its 95 % interval, ±) and number of runs; V is the verdict of "
        f"the configuration the best throughput is of ({fmt.VERDICT_LEGEND}); the line under "
        "the table names those configurations. Open a project for "
        "its runs, scaling charts and layer "
        "profiles; benchmark it to add runs. Mark two projects with space to compare them. "
        "INT8 (i) makes the INT8 version of the project under the cursor "
        f"({fmt.QUANTIZERS_TEXT}, with an accuracy check); the line under the table says "
        "which project an INT8 one was made from."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new", "New", id="new"),
        Binding("enter,o", "open", "Open", id="open"),
        BENCH,
        Binding("m,space", "mark", "Mark", id="mark"),
        Binding("c", "compare", "Compare", id="compare"),
        optimize_key("the selected project"),
        Binding("r", "rename", "Rename", id="rename"),
        TUNE,
        Binding("d", "delete", "Delete", id="delete"),
        # not in the footer (the empty table offers it): 80 columns hold the other keys and q
        Binding("s", "samples", "Samples", id="samples", show=False, tooltip=SAMPLES_HELP),
        TARGETS,
        Binding("q", "app.quit", "Quit", id="quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.marked: list[str] = []
        self.names: list[str] = []
        self.projects: dict[str, Project] = {}
        self.bests: dict[str, tuple[Headline | None, str, Headline | None, str]] = {}
        """Each project's best configurations by throughput and by median latency, each
        with its figure as the table shows it."""

    def compose(self) -> ComposeResult:
        yield Header()
        table = RowTable(id="projects")
        yield table
        yield Static("", id="project-best", classes="status-line")
        yield Static("", id="project-link", classes="status-line")
        yield Static(EMPTY_TEXT, id="empty")
        yield Footer(compact=True, show_command_palette=False)

    COLUMNS = (
        ("Name", "name"),
        ("Model", "model"),
        ("Engine", "engine"),
        ("Dev", "device"),
        ("Prec", "precision"),
        ("items/s", "fps"),
        ("V", "verdict"),
        ("ms", "ms"),
        ("Runs", "runs"),
        ("Last run UTC", "last"),
    )
    WIDE = 100
    """Below this width the model column is left out (the detail screen shows it)."""
    NARROW_DROPS = ("last", "runs", "ms")
    """Left out in this order while a name would get fewer than MIN_NAME cells."""
    MIN_NAME = 14

    def on_mount(self) -> None:
        self.wide: bool | None = None
        self.fitted_width = 0
        self.refresh_projects()

    def on_resize(self) -> None:
        if self.size.width and self.size.width != self.fitted_width:
            self.refresh_projects()

    def on_screen_resume(self) -> None:
        self.refresh_projects()

    def refresh_projects(self, select: str | None = None) -> None:
        """Reload the table from the store, keeping the cursor on the same project.

        Best items/s is the highest throughput, ms the lowest median latency, of the
        project's configurations (each one's runs combined, as its Runs tab shows them); *
        marks projects chosen for comparison. Names longer than the room the other columns
        leave are cut in the middle (the detail screen has them whole), so the table never
        needs a horizontal scrollbar. Narrow, the model column is left out, and OpenVINO is
        written 'ov' when the names need the room. A project measured on an SSH target shows
        it after its device (CPU@box)."""
        table = self.query_one("#projects", DataTable)
        current = select or self.current_name()
        try:
            summaries = self.store.summaries()
            precisions = self.store.precisions()
        except StoreError as error:
            self.report(error, "Database")
            return
        width = self.size.width or self.app.size.width
        wide = self.wide = width >= self.WIDE
        self.names = []
        self.projects = {p.name: p for p, _ in summaries}
        self.marked = [m for m in self.marked if any(p.name == m for p, _ in summaries)]
        rows: list[list[str]] = []
        for project, summary in summaries:
            self.names.append(project.name)
            mark = "*" if project.name in self.marked else " "
            best = headline(self.store, project.name, summary.best_throughput_config)
            least = headline(self.store, project.name, summary.best_latency_config)
            fastest, quickest = best and best.figures, least and least.figures
            fps = fmt.fps_ci(summary.best_throughput_fps, fastest and fastest.throughput)
            ms = fmt.ms_ci(summary.best_latency_ms, quickest and quickest.latency.get("median"))
            self.bests[project.name] = (best, fps, least, ms)
            cells = [
                f"{mark}{project.name}",
                fmt.model_name(project.model),
                fmt.engine_cell(project.engine),
                project.device
                if project.target == LOCAL
                else f"{project.device}@{cut(project.target, TARGET_CELLS)}",
                precision_text(
                    precisions.get(project.name, fmt.DASH), model_is_int8([], project.notes)
                ),
                fps,
                fmt.verdict_mark(fastest and fastest.verdict.status),
                ms,
                str(summary.runs),
                fmt.when(summary.last_run_at)[5:] if summary.last_run_at else fmt.DASH,
            ]
            if not wide:
                del cells[1]
            rows.append(cells)
        columns = [(label, key) for label, key in self.COLUMNS if wide or key != "model"]
        engine = 2 if wide else 1  # where the engine column is
        if not self._names_fit(columns, rows, width):
            for (project, _), cells in zip(summaries, rows, strict=True):  # 'ov': 6 more cells
                cells[engine] = fmt.engine_cell(project.engine, narrow=True)
        for key in self.NARROW_DROPS:  # below 80 columns: leave out the least needed columns
            if self._names_fit(columns, rows, width, self.MIN_NAME):
                break
            index = [k for _, k in columns].index(key)
            del columns[index]
            for cells in rows:
                del cells[index]
        self.fitted_width = width
        fill_table(
            table,
            columns,
            list(zip(self.names, rows, strict=True)),
            width=width,
            height=table.size.height or self.size.height - 3,  # less header, link, footer
            maximum=48,
            marks=1,
        )
        if current in self.names:
            table.move_cursor(row=self.names.index(current))
        empty = not self.names
        self.refresh_bindings()
        self.query_one("#empty").display = empty
        table.display = not empty
        if not empty:
            table.focus()
        self._show_lines()

    @staticmethod
    def _names_fit(
        columns: list[tuple[str, str]], rows: list[list[str]], width: int, room: int = 0
    ) -> bool:
        """Whether the names (or `room` cells of them) fit beside the other columns."""
        widths = [
            max([len(label)] + [len(r[i]) for r in rows]) for i, (label, _) in enumerate(columns)
        ]
        needed = min(widths[0], room) if room else widths[0]
        return needed <= room_left(width - SCROLLBAR, widths[1:])

    def _show_lines(self) -> None:
        """Under the table, for the highlighted project: the configurations its headline
        figures are of, and (when any project was made by optimize) how it is linked."""
        best = self.query_one("#project-best", Static)
        link = self.query_one("#project-link", Static)
        projects = list(self.projects.values())
        name = self.current_name() or ""
        project = self.projects.get(name)
        best.display = project is not None
        link.display = project is not None and any(p.source_project for p in projects)
        if project is None:
            return
        best.update(best_line(name, *self.bests.get(name, (None, "", None, ""))))
        if link.display:
            link.update(link_line(project, projects))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_lines()

    NEEDS_PROJECT = frozenset(
        {"open", "benchmark", "mark", "compare", "optimize", "rename", "delete"}
    )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # with no project yet the footer offers only what can start one
        return action != "back" and (bool(self.names) or action not in self.NEEDS_PROJECT)

    def current_name(self) -> str | None:
        table = self.query_one("#projects", DataTable)
        if not self.names or table.cursor_row < 0 or table.cursor_row >= len(self.names):
            return None
        return self.names[table.cursor_row]

    def _need_project(self) -> str | None:
        name = self.current_name()
        if name is None:
            self.app.notify("No project selected; press n to create one or s for the samples.")
        return name

    # ------------------------------------------------------------------ actions

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_new(self) -> None:
        self.perftui.new_project()

    def action_open(self) -> None:
        if (name := self._need_project()) is not None:
            self.perftui.open_project(name)

    def action_benchmark(self) -> None:
        if (name := self._need_project()) is not None:
            self.perftui.configure_benchmark(name)

    def action_tune(self) -> None:
        if (name := self._need_project()) is not None:
            self.perftui.tune_project(name)

    def action_optimize(self) -> None:
        if (name := self._need_project()) is not None:
            self.perftui.optimize_project(name)

    def action_mark(self) -> None:
        if (name := self._need_project()) is None:
            return
        if name in self.marked:
            self.marked.remove(name)
        else:
            self.marked = [*self.marked, name][-2:]
        self.refresh_projects()

    def action_compare(self) -> None:
        """The two marked projects (or the marked one and the one under the cursor); with
        none marked, the one under the cursor as A and, as the Workbench does, the project
        with the best throughput as B."""
        names = list(self.marked)
        current = self.current_name()
        if len(names) == 1 and current and current not in names:
            names.append(current)
        if len(names) == 2:
            self.perftui.compare_projects(*names)
        elif (name := names[0] if names else self._need_project()) is not None:
            self.perftui.compare_projects(name)

    def action_rename(self) -> None:
        if (name := self._need_project()) is None:
            return

        def check(text: str) -> str | None:
            if not text:
                return "the name is empty"
            if text != name and (problem := name_problem(text)):
                return problem
            if text != name and text in self.names:
                return f"project '{text}' already exists; choose another name"
            return None

        def done(new: str | None) -> None:
            if not new or new == name:
                return
            try:
                self.store.rename_project(name, new)
            except (InputError, StoreError) as error:
                self.report(error, "Rename")
                return
            self.marked = [new if m == name else m for m in self.marked]
            self.refresh_projects(select=new)
            self.app.notify(f"Renamed {name} to {new}")

        self.app.push_screen(PromptScreen(f"Rename project {name} to:", name, check), done)

    def action_targets(self) -> None:
        self.perftui.open_targets()

    def action_delete(self) -> None:
        if (name := self._need_project()) is None:
            return
        try:
            runs = len(self.store.runs(name))
        except StoreError:
            runs = 0

        model = fmt.short_path(self.projects[name].model)

        def done(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self.store.delete_project(name)
            except (InputError, StoreError) as error:
                self.report(error, "Delete")
                return
            self.refresh_projects()
            self.app.notify(f"Deleted project {name}; its model file stays at {model}")

        detail = (
            f"Its {runs} run(s), profiles and benchmarks are deleted too. This cannot be undone."
            f" The model file stays: {model}"
        )
        self.app.push_screen(ConfirmScreen(f"Delete project {name}?", detail), done)

    def action_samples(self) -> None:
        self.app.notify("Looking for the sample models and the engines' devices…", timeout=3)
        self._add_samples()

    @work(thread=True, exit_on_error=False, name="samples", group="samples", exclusive=True)
    def _add_samples(self) -> None:
        models = sample_models()
        if not models:
            self.app.call_from_thread(
                self.app.notify,
                "The sample models were not found (sample_models/).",
                severity="error",
            )
            return
        devices = self.perftui.devices()
        try:
            existing = [p.name for p in self.store.projects()]
            projects = sample_projects(models, devices, existing)
            added = [self.store.add_project(p) for p in projects]
        except (InputError, StoreError) as error:
            self.app.call_from_thread(self.report, error, "Samples")
            return
        samples = {name for name, _, _ in SAMPLE_PROJECTS}
        missing = [why for why in devices.values() if isinstance(why, str)]
        self.app.call_from_thread(self._samples_added, added, missing, samples & set(existing))

    def _samples_added(self, added: list[Project], missing: list[str], already: set[str]) -> None:
        self.refresh_projects()
        for reason in missing:
            self.app.notify(reason, severity="warning", timeout=8)
        if not added:
            text = (
                "The sample projects already exist."
                if already
                else "No sample project could be added."
            )
            self.app.notify(text)
            return
        self.app.notify(f"Added {len(added)} sample projects; measuring each for ~2 s.")
        self.perftui.run_benchmarks([quick_request(p) for p in added], validated=False)
