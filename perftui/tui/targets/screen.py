"""Targets: this machine and the SSH hosts a benchmark can run on; add, test, set up, remove.

Every probe and the setup run in thread workers through the app's services (they go over SSH);
the table says what each host is (CPU, cores, INT8 ISA, engines, price) once probed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Header, Static

from perftui.domain.errors import InputError
from perftui.domain.limits import parse_price
from perftui.domain.measurement.context import INT8_ISA
from perftui.engines import CAPABILITIES
from perftui.targets.registry import LOCAL, Target, TargetBook
from perftui.tui.kit.dialogs import ConfirmScreen, PromptScreen
from perftui.tui.kit.screen import PerftuiScreen, one_line
from perftui.tui.kit.tables import RowTable, fill_table

if TYPE_CHECKING:
    from perftui.targets.probe import Probe

DASH = "—"
PROBING = "probing…"
INT8_SHORT = {"avx512_vnni": "vnni512", "avx_vnni": "vnni", "amx_int8": "amx"}
WIDE = 100
"""Below this width the destination column is left out (the line under the table says it)."""
COLUMNS = (
    ("Name", "name"),
    ("Destination", "destination"),
    ("$/h", "price"),
    ("Status", "status"),
    ("CPU", "cpu"),
    ("Cores", "cores"),
    ("INT8 ISA", "int8"),
    ("Engines", "engines"),
)


def status_of(found: Probe | None) -> str:
    if found is None:
        return PROBING
    if not found.reachable:
        return "unreachable"
    return "ready" if found.ready else "not ready"


def cells(target: Target, found: Probe | None) -> list[str]:
    """A target's row: what it is, once probed."""
    env = (found.environment if found else None) or {}
    isa = env.get("isa") or []
    engines = " ".join(
        f"{c.short} {'.'.join(str(env[c.engine]).split('.')[:2])}"
        for c in CAPABILITIES.values()
        if env.get(c.engine)
    )
    price = DASH if target.price_per_hour is None else f"{target.price_per_hour:g}"
    return [
        target.name,
        target.destination,
        price,
        status_of(found),
        str(env.get("cpu_model") or DASH),
        f"{env['physical_cores'] or '?'}/{env['logical_cores']}" if env else DASH,
        (" ".join(INT8_SHORT.get(f, f) for f in INT8_ISA if f in isa) or "none") if env else DASH,
        engines or DASH,
    ]


class TargetsScreen(PerftuiScreen):
    TITLE_TEXT = "Targets"
    HELP = (
        "The machines a benchmark can run on: this machine (local) and SSH hosts reached as "
        "`ssh` reaches them. Add (a) names a host by its destination, the python there that "
        "has perftui, and optionally its price per hour (each run then records it, and its "
        "throughput is also a cost per million inferences). Test (t) probes the host: CPU, "
        "cores, INT8 ISA, engines and their devices there. Setup (s) installs this perftui "
        "into a venv there. Price (p) sets what an hour of the host (or this machine) costs. "
        "Remove (d) forgets a host; its projects and runs stay."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "add", "Add", id="add"),
        Binding("t", "test", "Test", id="test"),
        Binding("s", "setup", "Setup", id="setup"),
        Binding("p", "price", "Price", id="price"),
        Binding("d", "remove", "Remove", id="remove"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.targets: list[Target] = []
        self.probes: dict[str, Probe | None] = {}
        self.progress = ""

    @property
    def book(self) -> TargetBook:
        return TargetBook(self.perftui.db_path)

    def compose(self) -> ComposeResult:
        yield Header()
        yield RowTable(id="targets")
        yield Static("", id="target-detail", classes="status-line", markup=False)
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.reload()
        self.probe_all([t.name for t in self.targets])

    def reload(self) -> None:
        """Read the targets file again and redraw (probes kept by name)."""
        try:
            local = self.book.price(LOCAL)
            self.targets = [Target(LOCAL, "this machine", "", local), *self.book.all()]
        except InputError as error:
            self.report(error, "Targets")
            self.targets = [Target(LOCAL, "this machine", "")]
        self.redraw()

    def redraw(self) -> None:
        table = self.query_one("#targets", RowTable)
        current = self.selected()
        rows: list[tuple[str | None, Sequence[str]]] = [
            (t.name, cells(t, self.probes.get(t.name))) for t in self.targets
        ]
        width = self.size.width or 80
        height = self.size.height - 3  # less header, detail line, footer
        columns = list(COLUMNS)
        if width < WIDE:
            columns.pop(1)
            rows = [(key, [*row[:1], *row[2:]]) for key, row in rows]
        flex = [key for _, key in columns].index("cpu")
        fill_table(table, columns, rows, width=width, height=height, flex=flex, maximum=32)
        names = [t.name for t in self.targets]
        if current in names:
            table.move_cursor(row=names.index(current))
        self.show_detail()

    def selected(self) -> str | None:
        table = self.query_one("#targets", RowTable)
        if not self.targets or table.cursor_row is None or table.row_count == 0:
            return None
        row = min(max(table.cursor_row, 0), len(self.targets) - 1)
        return self.targets[row].name

    def on_data_table_row_highlighted(self) -> None:
        self.show_detail()

    def show_detail(self) -> None:
        """Under the table: the setup's progress, else the selected host's error or devices."""
        line = self.progress
        name = self.selected()
        found = self.probes.get(name) if name else None
        if not line and found is not None:
            listed = found.devices or {}
            devices = "; ".join(
                f"{engine} {' '.join(listed[engine]) or 'none'}" for engine in sorted(listed)
            )
            where = found.target.destination
            line = found.error or (f"{where}: devices {devices}" if devices else where)
        self.query_one("#target-detail", Static).update(line.splitlines()[0] if line else "")

    # ------------------------------------------------------------------ probes

    def probe_all(self, names: list[str]) -> None:
        for name in names:
            self.probes[name] = None
        self.redraw()
        self._probe(names)

    @work(thread=True, exit_on_error=False, name="probe", group="probe")
    def _probe(self, names: list[str]) -> None:
        by_name = {t.name: t for t in self.targets}
        for name in names:
            if name in by_name:
                found = self.perftui.services.probe_target(by_name[name])
                self.app.call_from_thread(self._probed, found)

    def _probed(self, found: Probe) -> None:
        self.probes[found.target.name] = found
        self.redraw()

    # ------------------------------------------------------------------ verbs

    def action_add(self) -> None:
        def done(found: Probe | None) -> None:
            if found is not None:
                self._added(found)

        self.perftui.add_target([t.name for t in self.targets], done)

    def _added(self, found: Probe) -> None:
        """Store a target the add form probed and found reachable."""
        target = found.target
        try:
            self.book.add(target)
        except InputError as error:
            self.report(error, "Add")
            return
        self.probes[target.name] = found
        self.reload()
        self.app.notify(f"Added target {target.name}" + (f": {found.error}" if found.error else ""))

    def _need_host(self, verb: str) -> Target | None:
        name = self.selected()
        if name is None or name == LOCAL:
            self.app.notify(f"{verb}: choose an SSH host (not this machine)", severity="warning")
            return None
        return next(t for t in self.targets if t.name == name)

    def action_test(self) -> None:
        if (name := self.selected()) is not None:
            self.probe_all([name])

    def action_price(self) -> None:
        if (name := self.selected()) is None:
            return
        target = next(t for t in self.targets if t.name == name)
        now = "" if target.price_per_hour is None else f"{target.price_per_hour:g}"

        def check(text: str) -> str | None:
            try:
                parse_price(text)
            except InputError as error:
                return str(error)
            return None

        def done(text: str | None) -> None:
            if text is not None:
                try:
                    self.book.set_price(name, parse_price(text))
                except InputError as error:
                    self.report(error, "Price")
                    return
                self.reload()
                self.app.notify(f"{name}: {text} per hour, recorded with its next runs")

        question = f"Price per hour of {name} (its next runs record it):"
        self.app.push_screen(PromptScreen(question, now, check), done)

    def action_remove(self) -> None:
        if (target := self._need_host("Remove")) is None:
            return

        def done(yes: bool | None) -> None:
            if yes:
                try:
                    self.book.remove(target.name)
                except InputError as error:
                    self.report(error, "Remove")
                    return
                self.probes.pop(target.name, None)
                self.reload()
                self.app.notify(f"Removed target {target.name}; its projects and runs stay")

        detail = "Its projects and runs stay; a benchmark of them needs it added again."
        self.app.push_screen(ConfirmScreen(f"Remove target {target.name}?", detail), done)

    def action_setup(self) -> None:
        if (target := self._need_host("Setup")) is None:
            return
        self.progress = f"setting up {target.name}…"
        self.show_detail()
        self._setup(target)

    @work(thread=True, exit_on_error=False, name="setup", group="setup", exclusive=True)
    def _setup(self, target: Target) -> None:
        def say(line: str) -> None:
            self.app.call_from_thread(self._said, f"{target.name}: {line}")

        python = self.perftui.services.setup_target(target, say)
        self.app.call_from_thread(self._set_up, replace(target, python=python))

    def _said(self, line: str) -> None:
        self.progress = line
        self.show_detail()

    def _set_up(self, target: Target) -> None:
        self.progress = ""
        self.book.remove(target.name)
        self.book.add(target)
        self.reload()
        self.app.notify(f"Set up {target.name}: python {target.python}")
        self.probe_all([target.name])

    def setup_failed(self, error: BaseException) -> None:
        self.progress = ""
        self.show_detail()
        self.app.notify(one_line(error), severity="error", title="Setup")
