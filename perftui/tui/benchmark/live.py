"""Live run: a benchmark in progress, fed by the child-process client from a thread worker.

The worker (perftui.tui.kit.follower) reads the client's events and never waits for the UI:
progress ticks go into a thread-safe LiveSeries and are announced with a message that
replaces any pending one. The
handler only keeps the newest tick; one timer applies it (progress bars, the figures line and
the charts) at most `REDRAW_HZ` times per second, and only what changed: the dashboard shares
the machine with the benchmark child, and over a slow SSH link every redraw is bytes on the
wire. Finished runs are stored by the client as they arrive, so cancelling or leaving never
loses them.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import DataTable, Footer, Header, Label, ProgressBar, Static

from perftui.bench import protocol
from perftui.domain.charts.series import LiveSeries, short_label
from perftui.domain.charts.traffic import has_rates, traffic_curves
from perftui.domain.labels import config_labels
from perftui.domain.measurement.figures import run_figures
from perftui.domain.measurement.memory import runs_peak_text
from perftui.domain.measurement.verdict import STABLE
from perftui.domain.records import BenchmarkRequest, RunConfig, RunResult
from perftui.tui.benchmark.charts import ChartLag, LiveChart, nothing_measured, series_key
from perftui.tui.benchmark.messages import PHASES, REDRAW_HZ, LiveEvent, LiveFailed, LiveTick
from perftui.tui.benchmark.notices import (
    LiveBusy,
    live_keys,
    notify_busy,
    notify_cannot_run,
    notify_end,
    notify_run_failed,
)
from perftui.tui.kit import format as fmt
from perftui.tui.kit.charts import Chart
from perftui.tui.kit.follower import FollowingScreen
from perftui.tui.kit.pacing import redraw_interval
from perftui.tui.kit.samples import stored_samples
from perftui.tui.kit.screen import PerftuiScreen, one_line
from perftui.tui.kit.tables import Cell, Named, RowTable, fill_table
from perftui.tui.kit.traffic_chart import TrafficChart
from perftui.tui.services import Client

WIDE = 100
"""From this many columns the live table shows each run's p99, peak memory and iterations."""
NARROW_DROPS = ("p99", "memory", "iters")
CHART_BUDGET = 0.03
"""Share of a core the dashboard may use while it watches; dear frames (a big terminal)
come less often than REDRAW_HZ to stay within it (the benchmark child needs the CPU)."""


class LiveRunScreen(FollowingScreen[None], PerftuiScreen):
    """Progress, live charts and the runs of one or more benchmark requests."""

    TITLE_TEXT = "Live run"
    HELP = (
        "The benchmark runs in a separate process; this screen shows its progress. The charts "
        "show the rolling throughput and median latency the process reports, one line per "
        "run, redrawn at most twice a second (less often when the charts are big, to leave "
        "the CPU to the benchmark). The table fills in as runs finish; its first column "
        "shows each run's marker in the charts, each figure its 95 % interval (±) and the "
        "run's verdict: stable, noisy or INVALID (the project's Runs tab says why). A machine "
        "already busy before the start is warned about. With rates (an open loop), the "
        "right chart draws each finished rate's p99 and p50 from arrival against the offered "
        "rate, with their intervals (S: saturated, L: the scheduler was late). "
        "While the charts are redrawn less "
        "often than runs finish, a note over them says how many of the table's runs they "
        "show. Every finished run is already stored; "
        "under 100 columns the table leaves p99, peak and iterations to the Runs tab. "
        "Cancel (x) stops the run in progress (kept as cancelled) and skips the rest."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "cancel", "Cancel run", id="cancel"),
        Binding("o", "open", "Open project", id="open"),
    ]
    LEAVE_QUESTION = (
        "Cancel the benchmark and go back?",
        "The run in progress is kept as cancelled; finished runs are stored.",
    )

    def __init__(self, requests: list[BenchmarkRequest], *, validated: bool = False) -> None:
        super().__init__()
        self.requests = requests
        self.validated = validated
        self.series = LiveSeries()
        self.finished: list[RunResult] = []
        self.unsteady: list[str] = []
        """The verdicts of the finished runs that are not stable."""
        self.total = sum(r.total_runs for r in requests)
        self._drawn = -1
        self._tick: protocol.Progress | None = None
        self._charted_at = self._charted_cpu = 0.0  # the time and CPU time of the last frame
        self._shown: dict[str, str] = {}
        self._rows: list[list[Cell]] = []
        self._measured: set[int] = set()  # runs with points (added by the worker thread)
        self._listed: list[int] = []  # the finished runs' indices, in the table's order
        self._charted: set[int] = set()  # the runs the charts drew last
        self._runs_width = 0
        self._multi = len({r.project.name for r in requests}) > 1
        planned = [config for request in requests for config in request.configs]
        self._labels = config_labels(planned)
        self._label_of = dict(zip(planned, self._labels.labels, strict=True))
        self._open_loop = has_rates(planned)
        """Some runs are at a rate: latency is charted against the offered rate."""

    def compose(self) -> ComposeResult:
        yield Header()
        names = ", ".join(dict.fromkeys(r.project.name for r in self.requests))
        common = f"  every run: {self._labels.common}" if self._labels.common else ""
        head = "$total run(s) of [b]$names[/][dim]$common[/]"
        content = Content.from_markup(head, names=names, total=self.total, common=common)
        yield Static(content, id="live-head")
        with Horizontal(classes="progress-row"):
            yield Label("All", classes="progress-label")
            yield ProgressBar(total=self.total, show_eta=False, id="overall")
            yield Static("starting…", id="overall-text", classes="progress-text")
        with Horizontal(classes="progress-row"):
            yield Label("Run", classes="progress-label")
            yield ProgressBar(total=1.0, show_eta=False, id="current")
            yield Static("", id="current-text", classes="progress-text")
        with Horizontal(id="live-charts"):
            yield LiveChart("throughput", id="chart-fps")
            if self._open_loop:
                yield TrafficChart(id="chart-traffic")
            else:
                yield LiveChart("latency", id="chart-ms")
            yield ChartLag(id="chart-lag")
        yield RowTable(id="live-runs")
        yield Footer(compact=True, show_command_palette=False)

    RUN_COLUMNS = (
        ("# line", "n"),
        ("Run", "run"),
        ("Verdict", "verdict"),
        ("items/s", "fps"),
        ("median ms", "median"),
        ("p99 ms", "p99"),
        ("peak MiB", "memory"),
        ("iters", "iters"),
    )

    def on_mount(self) -> None:
        self._fill_runs()
        self._timer = self.set_interval(1 / REDRAW_HZ, self._redraw)
        self.follow()

    # ------------------------------------------------------------------ the worker

    def run_child(self) -> None:
        """Each request in turn (validated first unless it was): its client's events become
        LiveTick (replaceable) and LiveEvent messages."""
        services, store = self.perftui.services, self.store
        busy = services.busy()
        if busy:
            self.post_message(LiveBusy(busy))
        offset = 0
        for n, request in enumerate(self.requests):
            if self.cancel_requested:
                break
            try:
                if not self.validated:
                    services.validate(request)
                client: Client = services.client(request, store)
            except Exception as error:  # bad model, engine without the device, store error
                self.post_message(LiveFailed(n, one_line(error)))
                offset += request.total_runs
                continue
            self.attach_child(client)
            for event in client.events():
                if isinstance(event, protocol.Progress):
                    self._measured.add(offset + event.index)
                    self.series.add(
                        offset + event.index,
                        event.elapsed_s,
                        event.throughput_fps,
                        event.latency_ms,
                    )
                    self.post_message(LiveTick(offset + event.index, event))
                    continue
                if isinstance(event, protocol.RunStarted):
                    label = self._label(request, event.config, event.index)
                    self.series.start(offset + event.index, label)
                self.post_message(LiveEvent(n, offset + getattr(event, "index", 0), event))
            self.attach_child(None)
            offset += request.total_runs

    def child_failed(self, error: Exception) -> None:
        self.app.call_from_thread(self.report, error, "Benchmark")

    def _label(self, request: BenchmarkRequest, config: RunConfig, index: int) -> str:
        return str(self._named(request, config, request.scheduled(index)[0]))

    def _named(self, request: BenchmarkRequest, config: RunConfig, repeat: int) -> Named:
        """A run's project (when the screen runs several), the settings that differ between
        the screen's runs and its repetition ('b1 seq=64 (2/3)'): its one name in the table,
        the charts and the notices; the table cuts the names together, keeps the rest whole."""
        label = self._label_of.get(config) or short_label(config)
        if request.repetitions > 1:
            label += f" ({repeat + 1}/{request.repetitions})"
        return Named(request.project.name if self._multi else "", label)

    # ------------------------------------------------------------------ UI updates

    def _redraw(self, force: bool = False) -> None:
        """Apply the newest tick and the new chart points; nothing when nothing changed.
        The charts wait longer between frames while the process is dear (`CHART_BUDGET`)."""
        tick, self._tick = self._tick, None
        if tick is not None:
            self._text(
                "current-text",
                f"{fmt.fps(tick.throughput_fps)} items/s  {fmt.ms(tick.latency_ms)} ms  "
                f"{tick.iterations} it",
            )
            self._progress("current", min(1.0, tick.fraction))
            self._progress("overall", len(self.finished) + min(1.0, tick.fraction))
        version = self.series.version
        if version == self._drawn:
            return
        now, cpu = time.monotonic(), time.process_time()
        wait = redraw_interval(cpu - self._charted_cpu, REDRAW_HZ, CHART_BUDGET)
        if not force and now - self._charted_at < wait:
            return
        self._drawn, self._charted_at, self._charted_cpu = version, now, cpu
        lines = self.series.snapshot()
        for chart in self.query(LiveChart):
            chart.set_lines(lines)
        self._charted = {line.index for line in lines}
        self._lag()

    def _lag(self) -> None:
        """Whether the charts show fewer of the finished runs than the table."""
        finished = [n for n in self._listed if n in self._measured]
        self.query_one(ChartLag).show_lag(finished, self._charted)

    def _fill_runs(self) -> None:
        """The finished runs, their labels cut to the table's width (once per run, never
        per tick)."""
        table = self.query_one("#live-runs", DataTable)
        self._runs_width = self.size.width
        width = table.size.width or self.size.width or self.app.size.width
        # narrow: p99, peak and iterations give way, so the labels never read the same
        keep = [
            n
            for n, (_, key) in enumerate(self.RUN_COLUMNS)
            if width >= WIDE or key not in NARROW_DROPS
        ]
        fill_table(
            table,
            [self.RUN_COLUMNS[n] for n in keep],
            [(None, [row[n] for n in keep]) for row in self._rows],
            width=width,
            height=table.size.height or 8,
            flex=1,
        )
        if self._rows:
            table.move_cursor(row=len(self._rows) - 1)

    def on_resize(self) -> None:
        if self.size.width != self._runs_width:
            self._fill_runs()

    def _text(self, widget_id: str, text: str) -> None:
        """Set a one-line text (plain, never markup) if it differs from what is shown."""
        if self._shown.get(widget_id) == text:
            return
        self._shown[widget_id] = text
        self.query_one(f"#{widget_id}", Static).update(Text(text), layout=False)

    def _progress(self, widget_id: str, progress: float, total: float | None = None) -> None:
        bar = self.query_one(f"#{widget_id}", ProgressBar)
        if total is not None:
            bar.update(total=total, progress=progress)
        elif bar.progress != progress:
            bar.update(progress=progress)

    @on(LiveTick)
    def _on_tick(self, message: LiveTick) -> None:
        self._tick = message.tick  # applied by the next redraw

    @on(LiveEvent)
    def _event(self, message: LiveEvent) -> None:
        event = message.event
        request = self.requests[message.position]
        if isinstance(event, protocol.RunStarted):
            label = self._label(request, event.config, event.index)
            self._text("overall-text", f"run {message.index + 1} of {self.total}: {label}")
            self._tick = None
            self._progress("current", 0)
            self._text("current-text", "starting")
        elif isinstance(event, protocol.PhaseChanged):
            self._text("current-text", PHASES.get(event.phase, event.phase))
        elif isinstance(event, protocol.RunFinished):
            self._finished(message.index, request, event.run)
        elif isinstance(event, protocol.Fatal):
            notify_cannot_run(self.app, request.project.name, event.error)
        elif isinstance(event, protocol.BenchmarkDone) and event.cancelled:
            self._text("overall-text", "cancelled")

    def _finished(self, index: int, request: BenchmarkRequest, run: RunResult) -> None:
        self.finished.append(run)
        self._tick = None
        self._progress("current", 1.0)
        stats = run.latency_ms
        figures = run_figures(run, stored_samples(self.store)(run))
        verdict = figures.verdict.status
        named = self._named(request, run.config, run.repetition)
        if run.status == "ok" and verdict != STABLE:
            self.unsteady.append(verdict)
        status = Text(
            fmt.verdict_or_status(run.status, verdict), style="" if verdict == STABLE else "bold"
        )
        ok = run.status == "ok"
        self._listed.append(index)
        self._rows.append(
            [
                Text.assemble(f"{index + 1} ", series_key(index)),
                named,
                status,
                fmt.fps_ci(run.throughput_fps if ok else None, figures.throughput),
                fmt.ms_ci(stats.median if stats else None, figures.latency.get("median")),
                fmt.ms_ci(stats.p99 if stats else None, figures.latency.get("p99")),
                runs_peak_text([run.memory]) if ok else fmt.DASH,
                str(run.iterations),
            ]
        )
        self._fill_runs()
        self._lag()
        if run.traffic is not None and self._open_loop:
            self.query_one(TrafficChart).set_curves(traffic_curves(self.finished))
        self._progress("overall", len(self.finished))
        if run.status == "failed":
            notify_run_failed(self.app, f"Run {index + 1} failed", run.error)

    @on(LiveBusy)
    def _busy(self, message: LiveBusy) -> None:
        notify_busy(self.app, message.reasons)

    @on(LiveFailed)
    def _failed(self, message: LiveFailed) -> None:
        notify_cannot_run(self.app, self.requests[message.position].project.name, message.message)

    def child_ended(self, outcome: None, app: App[object]) -> None:
        """Every request is done: the totals, and the keys that work now."""
        if self.closed:
            return
        self._tick = None
        self._redraw(force=True)
        self._timer.stop()
        message = nothing_measured([r.status for r in self.finished], self.cancel_requested)
        for chart in self.query(Chart):
            chart.set_message(message)  # shown only by a chart without points
        ok = sum(1 for r in self.finished if r.status == "ok")
        other = len(self.finished) - ok
        text = notify_end(self.app, ok, other, self.cancel_requested, self.unsteady)
        self._text("overall-text", text)
        self._progress("overall", len(self.finished), total=max(1, len(self.finished)))
        self._text("current-text", "o opens the project, esc goes back")
        self.refresh_bindings()

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return live_keys(action, self.running)

    def action_cancel(self) -> None:
        if not self.running or self.cancel_requested:
            return
        self.stop_child()
        self._text("overall-text", "cancelling… finished runs are kept")

    def action_open(self) -> None:
        if self.running:
            return
        self.perftui.open_project(self.requests[0].project.name)

    def leave(self) -> None:
        self.app.pop_screen()
