"""Live run on several hosts at once (the form's Targets: `local,box`), as `perftui bench
--target local,box` runs it (perftui.targets.fleet): a progress row per host and the runs as
they finish, each stored as it finishes. A host that cannot start or drops fails only its own
runs; x cancels every host."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Footer, Header, Static

from perftui.bench import protocol
from perftui.domain.charts.series import short_label
from perftui.domain.labels import config_labels
from perftui.domain.measurement.figures import run_figures
from perftui.domain.measurement.verdict import STABLE
from perftui.domain.records import BenchmarkRequest, RunConfig, RunResult
from perftui.targets.fleet import Share, host_request
from perftui.targets.registry import LOCAL
from perftui.tui.benchmark.messages import PHASES, REDRAW_HZ
from perftui.tui.benchmark.notices import (
    LiveBusy,
    live_keys,
    notify_busy,
    notify_cannot_run,
    notify_end,
    notify_run_failed,
)
from perftui.tui.kit import format as fmt
from perftui.tui.kit.follower import FollowingScreen, Latest
from perftui.tui.kit.samples import stored_samples
from perftui.tui.kit.screen import PerftuiScreen
from perftui.tui.kit.tables import Cell, Named, RowTable, fill_table, right


@dataclass
class HostRow:
    """What the hosts table shows of one host."""

    host: str
    project: str
    total: int
    done: int = 0
    now: str = "starting"
    last: str = fmt.DASH
    error: str | None = None


class FleetTick(Latest):
    """A host's newest progress; replaces only that host's tick not yet handled."""

    def __init__(self, host: str, tick: protocol.Progress) -> None:
        super().__init__()
        self.host, self.tick = host, tick

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, FleetTick) and message.host == self.host


class FleetEvent(Message):
    """A host's event (never dropped), a line it said, or None with its share: it ended."""

    def __init__(
        self, host: str, event: protocol.Event | str | None, share: Share | None = None
    ) -> None:
        super().__init__()
        self.host, self.event, self.share = host, event, share


class FleetRunScreen(FollowingScreen[None], PerftuiScreen):
    """One benchmark request on several hosts at once."""

    TITLE_TEXT = "Live run on several hosts"
    HELP = (
        "The benchmark runs on every host of Targets at once, each host alone (another "
        "benchmark there waits or is refused), each host's runs in a project of its own "
        "(NAME@host; this machine's is NAME). A row per host: runs done of its share, the run "
        "in progress, and its last figure with its 95 % interval and verdict; a host that "
        "cannot start or drops shows its one-line error and fails only its own runs. The table "
        "below fills in as runs finish; every finished run is already stored. Cancel (x) stops "
        "every host (the runs in progress are kept as cancelled); o opens the highlighted "
        "host's project once all are done."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "cancel", "Cancel all", id="cancel"),
        Binding("o", "open", "Open project", id="open"),
    ]
    LEAVE_QUESTION = (
        "Cancel the benchmark on every host and go back?",
        "The runs in progress are kept as cancelled; finished runs are stored.",
    )
    HOST_COLUMNS = (("Host", "host"), ("Runs", "runs"), ("Now", "now"), ("Last run", "last"))
    RUN_COLUMNS = (("Host", "host"), ("Run", "run"), ("Verdict", "verdict"),
                   ("items/s", "fps"), ("median ms", "median"))  # fmt: skip

    def __init__(self, request: BenchmarkRequest, hosts: list[str]) -> None:
        super().__init__()
        self.request = request
        self.hosts = hosts
        self.rows = {
            host: HostRow(host, host_request(request, host).project.name, request.total_runs)
            for host in hosts
        }
        self.finished: list[RunResult] = []
        self.unsteady: list[str] = []
        self._runs: list[list[Cell]] = []
        self._labels = config_labels(list(request.configs))
        self._label_of = dict(zip(request.configs, self._labels.labels, strict=True))
        self._dirty = True

    def compose(self) -> ComposeResult:
        yield Header()
        common = f"  every run: {self._labels.common}" if self._labels.common else ""
        head = "$total run(s) of [b]$name[/] on $hosts host(s)[dim]$common[/]"
        name = host_request(self.request, LOCAL).project.name
        total = self.request.total_runs * len(self.hosts)
        yield Static(
            Content.from_markup(head, name=name, total=total, hosts=len(self.hosts), common=common),
            id="live-head",
        )
        yield RowTable(id="fleet-hosts")
        yield Static("starting…", id="fleet-status", classes="status-line")
        yield RowTable(id="fleet-runs")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self._fill_runs()
        self._timer = self.set_interval(1 / REDRAW_HZ, self._redraw)
        self._redraw()
        status = f"running on {', '.join(self.hosts)} at once · x cancels every host"
        self.query_one("#fleet-status", Static).update(Text(status))
        self.follow()

    # ------------------------------------------------------------------ the worker

    def run_child(self) -> None:
        """Every host's share at once (perftui.targets.fleet); its events as messages."""
        services = self.perftui.services
        if LOCAL in self.hosts and (busy := services.busy()):
            self.post_message(LiveBusy(busy))
        fleet = services.fleet(self.request, self.hosts, self.store)
        self.attach_child(fleet)
        by_host = {share.host: share for share in fleet.shares}
        for item in fleet.events():
            if item is None:
                continue
            if isinstance(item.event, protocol.Progress):
                self.post_message(FleetTick(item.host, item.event))
            else:
                share = by_host[item.host] if item.event is None else None
                self.post_message(FleetEvent(item.host, item.event, share))
        self.attach_child(None)

    def child_failed(self, error: Exception) -> None:
        self.app.call_from_thread(self.report, error, "Benchmark")

    def _label(self, config: RunConfig, index: int) -> str:
        label = self._label_of.get(config) or short_label(config)
        if self.request.repetitions > 1:
            label += f" ({self.request.scheduled(index)[0] + 1}/{self.request.repetitions})"
        return label

    # ------------------------------------------------------------------ UI updates

    @on(FleetTick)
    def _on_tick(self, message: FleetTick) -> None:
        tick, row = message.tick, self.rows[message.host]
        label = self._label(self.request.scheduled(tick.index)[1], tick.index)
        row.now = f"{label}: {fmt.fps(tick.throughput_fps)}/s {tick.fraction:.0%}"
        self._dirty = True

    @on(FleetEvent)
    def _on_event(self, message: FleetEvent) -> None:
        row, event = self.rows[message.host], message.event
        self._dirty = True
        if isinstance(event, str):
            row.now = event
        elif isinstance(event, protocol.RunStarted):
            row.now = f"{self._label(event.config, event.index)}: starting"
        elif isinstance(event, protocol.PhaseChanged):
            label = self._label(self.request.scheduled(event.index)[1], event.index)
            row.now = f"{label}: {PHASES.get(event.phase, event.phase)}"
        elif isinstance(event, protocol.RunFinished):
            self._finished(row, event.index, event.run)
        elif isinstance(event, protocol.BenchmarkDone):
            row.now = "cancelled" if event.cancelled else "done"
        elif event is None and message.share is not None and message.share.error:
            row.error = message.share.error
            notify_cannot_run(self.app, row.project, row.error)

    def _finished(self, row: HostRow, index: int, run: RunResult) -> None:
        self.finished.append(run)
        row.done += 1
        ok = run.status == "ok"
        figures = run_figures(run, stored_samples(self.store)(run))
        verdict = figures.verdict.status
        word = fmt.verdict_or_status(run.status, verdict)
        label = self._label(run.config, index)
        fps = fmt.fps_ci(run.throughput_fps if ok else None, figures.throughput)
        row.last = f"{fps} {word}"
        if ok and verdict != STABLE:
            self.unsteady.append(verdict)
        median = run.latency_ms.median if run.latency_ms else None
        self._runs.append(
            [
                row.host,
                Named("", label),
                Text(word, style="" if verdict == STABLE else "bold"),
                right(fps),
                right(fmt.ms_ci(median, figures.latency.get("median"))),
            ]
        )
        self._fill_runs()
        if run.status == "failed":
            notify_run_failed(self.app, f"{row.host}: run {index + 1} failed", run.error)

    def _redraw(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        table = self.query_one("#fleet-hosts", DataTable)
        rows: list[tuple[str | None, list[Cell]]] = [
            (
                row.host,
                [
                    row.host,
                    right(f"{row.done}/{row.total}"),
                    f"failed: {row.error}" if row.error else row.now,
                    right(row.last),
                ],
            )
            for row in self.rows.values()
        ]
        cursor = table.cursor_row
        fill_table(table, self.HOST_COLUMNS, rows, width=self._width(table), flex=2)
        table.move_cursor(row=cursor)

    def _fill_runs(self) -> None:
        table = self.query_one("#fleet-runs", DataTable)
        rows = [(None, cells) for cells in self._runs]
        fill_table(table, self.RUN_COLUMNS, rows, width=self._width(table), flex=1)
        if self._runs:
            table.move_cursor(row=len(self._runs) - 1)

    def _width(self, table: DataTable) -> int:
        return table.size.width or self.size.width or self.app.size.width

    def on_resize(self) -> None:
        self._dirty = True
        self._fill_runs()

    @on(LiveBusy)
    def _busy(self, message: LiveBusy) -> None:
        notify_busy(self.app, message.reasons)

    def child_ended(self, outcome: None, app: App[object]) -> None:
        """Every host is done: the totals, and the keys that work now."""
        if self.closed:
            return
        self._timer.stop()
        self._redraw()
        ok = sum(1 for run in self.finished if run.status == "ok")
        failed = sum(1 for row in self.rows.values() if row.error)
        other = self.request.total_runs * len(self.hosts) - ok
        text = notify_end(self.app, ok, other, self.cancel_requested, self.unsteady)
        if failed:
            text += f" · {failed} host(s) failed"
        self.query_one("#fleet-status", Static).update(Text(text + " · o opens, esc goes back"))
        self.refresh_bindings()

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return live_keys(action, self.running)

    def action_cancel(self) -> None:
        if not self.running or self.cancel_requested:
            return
        self.stop_child()
        self.query_one("#fleet-status", Static).update(
            Text("cancelling every host… finished runs are kept")
        )

    def action_open(self) -> None:
        if self.running:
            return
        row = self.query_one("#fleet-hosts", DataTable).cursor_row
        self.perftui.open_project(list(self.rows.values())[max(0, row)].project)

    def leave(self) -> None:
        self.app.pop_screen()
