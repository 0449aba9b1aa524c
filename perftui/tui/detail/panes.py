"""The first tabs of the project detail: the summary, the runs and the scaling charts."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from perftui.domain.charts.memory import memory_bars
from perftui.domain.charts.series import (
    Scaling,
    bar_runs,
    baseline,
    latency_bars,
    model_summary,
    ok_runs,
    scalings,
    short_label,
    threads_label,
    throughput_bars,
)
from perftui.domain.measurement.context import UNSAID, model_is_int8, precision_run, run_notes
from perftui.domain.measurement.cost import COST_HEADER, run_price
from perftui.domain.measurement.memory import mib_text, runs_peak_text
from perftui.domain.measurement.uncertainty import Interval
from perftui.domain.model.profile import precision_counts, precision_mix
from perftui.domain.records import RunResult
from perftui.tui.detail.charts import BarChart, ScalingChart
from perftui.tui.detail.state import DetailState
from perftui.tui.detail.verdict import RunNotice, verdict_notice
from perftui.tui.kit import format as fmt
from perftui.tui.kit.format import escape
from perftui.tui.kit.modelinfo import describe
from perftui.tui.kit.optimization import optimization_lines
from perftui.tui.kit.tables import Cell, RowTable, fill_table, flex_fits, right
from perftui.tui.kit.tabs import Pane

VIEW_NAMES = {
    "baseline": "baseline",
    "threads": "thread scaling",
    "batch": "batch scaling",
    "runs": "throughput by run",
    "memory": "memory by run",
}
TOP_BARS = 12


class SummaryPane(Pane[DetailState]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("", id="summary-text")

    def populate(self) -> None:
        d = self.state
        p = d.project
        lines = [
            f"[b]Model[/]     {escape(fmt.short_path(p.model))}",
            f"[b]Engine[/]    {p.engine} on {p.device}",
        ]
        if d.optimization is not None:
            lines += optimization_lines(d.optimization)
        if d.derived:
            lines.append(f"[b]INT8[/]      {escape(', '.join(d.derived))}")
        run = d.selected
        if run is None:
            lines += ["", "No runs yet: press [b]b[/] to benchmark this project."]
        else:
            s = model_summary(run, p.engine)
            figures = d.figures(run)
            version = f" {s.engine_version}" if s.engine_version else ""
            lines[1] = f"[b]Engine[/]    {p.engine}{version} on {p.device}"
            lines += [
                f"[b]Run[/]       {fmt.when(run.started_at)}  {escape(short_label(run.config))}"
                f"  {run.status}  [dim](the run selected in Runs)[/]",
                "   ".join(
                    f"[b]{name.capitalize()}[/] {escape(text)}" for name, text in s.settings
                ),
                f"[b]Measured[/]  {fmt.ms_ci(s.ms_per_batch, figures.latency.get('median'))} "
                f"ms/batch (median)   {fmt.fps_ci(s.items_per_s, figures.throughput)} items/s",
                f"[b]Verdict[/]   {verdict_notice(d)}",
            ]
            if (price := run_price(run)) is not None:  # the machine's, recorded with the run
                lines.append(
                    f"[b]Cost[/]      {fmt.run_cost_ci(run, figures.throughput)} per million"
                    f" inferences (at {price:g} per hour)"
                )
            int8 = model_is_int8(d.runs, p.notes)
            lines.append(f"[b]Precision[/] {escape(_ran(run, int8))}")
            notes = run_notes(run, int8)
            lines += [f"[b]Note[/]      {escape(fmt.said(note))}" for note in notes]
            if run.latency_ms is not None:
                st = run.latency_ms
                p90, p99 = (
                    fmt.ms_ci(getattr(st, k), figures.latency.get(k)) for k in ("p90", "p99")
                )
                lines.append(
                    f"[b]Latency[/]   ms: min {fmt.ms(st.min)}  p90 {p90}  p99 {p99}"
                    f"  max {fmt.ms(st.max)}"
                    f"  cv {fmt.pct(st.cv)}"
                )
            if run.memory is not None:
                lines.append(
                    f"[b]Memory[/]    peak {mib_text(run.memory.window_peak_mib, missing='?')} "
                    f"MiB in the timed window, {mib_text(run.memory.compile_peak_mib, missing='?')}"
                    " MiB compiling (resident)"
                )
            lines.append(
                f"[b]Phases[/]    compile {fmt.ms(run.compile_ms)} ms   first inference "
                f"{fmt.ms(run.first_inference_ms)} ms   {run.iterations} requests "
                f"in {run.duration_s:.2f} s"
            )
            if run.error:
                lines.append(f"[b]Error[/]     {escape(fmt.said(run.error))}")
            lines.append(f"[b]ISA[/]       {escape(' '.join(s.isa) or fmt.DASH)}")
            cores = f"   {s.cores}" if s.cores else ""
            lines.append(f"[b]CPU[/]       {escape(s.cpu)}{cores}")
        lines.append("")
        if d.info is not None:
            lines.append(describe(d.info))
        elif d.info_error:
            lines.append(f"[b]Model inspection failed[/]: {escape(d.info_error)}")
        else:
            lines.append("[dim]Inspecting the model…[/]")
        self.query_one("#summary-text", Static).update("\n".join(lines))


def _ran(run: RunResult, int8: bool) -> str:
    """'BF16/FP32 (56 BF16 2 FP32 layers)': what the engine ran, with the profile's mix."""
    mix = precision_mix(precision_counts(run.layers)) if run.layers else ""
    said = precision_run([run], int8)
    if said == UNSAID:
        return f"{mix} layers (the engine did not say)" if mix else "not reported by the engine"
    return f"ran {said}" + (f" ({mix} layers)" if mix else "")


RUN_COLUMNS = (
    ("When UTC", "when"),
    ("Config", "config"),
    ("Verdict", "verdict"),
    ("items/s", "fps"),
    (COST_HEADER, "cost"),
    ("median ms", "median"),
    ("p99 ms", "p99"),
    ("peak MiB", "memory"),
    ("Prof", "profile"),
)
"""Figures with their 95 % interval (±); Verdict is the run's (stable, noisy, INVALID) or
its status when it did not finish (failed, cancelled); the cost per million inferences at
the price recorded with the run, a column only when a run has one. Config names each run by what
differs between the runs, the precision it ran included; what they share is said once
above the table (`domain.labels`)."""


GIVE_WAY = ("profile", "when", "memory", "p99")
"""The Runs tab's columns that give way, in turn, where the labels would be cut."""


def _when(runs: list[RunResult]) -> list[str]:
    """Each run's start, UTC: the time alone when every run started on one day (the day is
    then said above the table), else the day too."""
    days = {(run.started_at or "")[:10] for run in runs}
    cut = slice(11, 19) if len(days) == 1 else slice(5, 19)
    return [fmt.when(run.started_at, seconds=True)[cut] for run in runs]


Rows = list[tuple[str | None, list[Cell]]]


def _only(keys: list[str], rows: Rows) -> tuple[list[tuple[str, str]], Rows]:
    """RUN_COLUMNS and the rows' cells of the columns `keys` alone."""
    kept = [n for n, (_, key) in enumerate(RUN_COLUMNS) if key in keys]
    return [RUN_COLUMNS[n] for n in kept], [(k, [cells[n] for n in kept]) for k, cells in rows]


class RunsPane(Pane[DetailState]):
    def compose(self) -> ComposeResult:
        yield Static("", id="runs-common", classes="pane-head")
        yield RowTable(id="runs")
        yield RunNotice()

    def populate(self) -> None:
        d = self.state
        table = self.query_one("#runs", DataTable)
        labels = d.labels()
        days = sorted({(run.started_at or "")[:10] for run in d.runs} - {""})
        day = f"on {days[0]}  " if len(days) == 1 else ""
        shared = f"every run: {labels.common}" if labels.common else ""
        self.query_one("#runs-common", Static).update(
            f"[dim]{escape(day + shared)}[/]" if day or shared else ""
        )
        profiled = any(run.layers for run in d.runs)
        width = table.size.width or self.app.size.width
        rows: Rows = []
        for run, when, label in zip(d.runs, _when(d.runs), labels.labels, strict=True):
            st = run.latency_ms
            figures = d.figures(run)
            measured = run.status != "failed" and run.throughput_fps > 0  # cancelled: as far as
            cells: list[Cell] = [  # it went, as `perftui show` prints it
                when,
                label,
                fmt.verdict_or_status(run.status, figures.verdict.status),
                right(fmt.fps_ci(run.throughput_fps, figures.throughput) if measured else fmt.DASH),
                right(fmt.run_cost_ci(run, figures.throughput)),
                right(fmt.ms_ci(st.median if st else None, figures.latency.get("median"))),
                right(fmt.ms_ci(st.p99 if st else None, figures.latency.get("p99"))),
                right(runs_peak_text([run.memory]) if measured else fmt.DASH),
            ]
            cells.append("yes" if run.layers else "")
            rows.append((run.id, cells))
        # columns give way where the labels would be cut: Prof and When (the notice says
        # both), then peak and p99 (Summary says them); a word of a label is cut last
        height = table.size.height or 12
        present = {"profile": profiled, "cost": any(run_price(r) is not None for r in d.runs)}
        keys = [key for _, key in RUN_COLUMNS if present.get(key, True)]
        for drop in GIVE_WAY:
            columns, shown = _only(keys, rows)
            flex = keys.index("config")
            if flex_fits(columns, shown, width=width, height=height, flex=flex):
                break
            keys = [key for key in keys if key != drop]
        columns, shown = _only(keys, rows)
        flex = keys.index("config")
        fill_table(table, columns, shown, width=width, height=height, flex=flex)
        ids = [r.id for r in d.runs]
        target = d.selected_id if d.selected_id in ids else d.default_run_id()
        if target is not None:
            table.move_cursor(row=ids.index(target), animate=False)


def _throughput_intervals(d: DetailState, run_ids: list[str]) -> list[Interval | None]:
    """The throughput intervals of the runs a chart draws, in its order."""
    runs = {run.id: run for run in d.runs}
    return [d.figures(runs[run_id]).throughput for run_id in run_ids]


def _one_point(data: Scaling, what: str) -> str:
    """A hint when a scaling chart has a single point (no curve to read)."""
    if len(data.points) != 1:
        return ""
    return f"\none point so far: benchmark several {what} (b) to see the scaling"


class ChartsPane(Pane[DetailState]):
    def compose(self) -> ComposeResult:
        yield Static("", id="chart-head", classes="pane-head")
        yield ScalingChart(id="chart-scaling")
        yield BarChart("", id="chart-bars")

    def populate(self) -> None:
        d = self.state
        head = self.query_one("#chart-head", Static)
        scaling = self.query_one("#chart-scaling", ScalingChart)
        bars = self.query_one("#chart-bars", BarChart)
        view = d.chart_view
        keys = "  [dim]v/f[/]"
        scaling.display = view in ("threads", "batch")
        bars.display = not scaling.display
        if not ok_runs(d.runs):
            head.update(f"[b]{VIEW_NAMES[view]}[/]: no successful runs yet{keys}")
            bars.set_bars([])
            scaling.set_scaling(None)
            return
        if view in ("threads", "batch"):
            series = scalings(d.runs, view)
            data = series[d.fixed_index % len(series)]
            at = (
                f"batch {data.fixed_value}"
                if view == "threads"
                else (f"threads {threads_label(data.fixed_value)}")
            )
            which = f" {d.fixed_index % len(series) + 1}/{len(series)}" if len(series) > 1 else ""
            head.update(
                f"[b]{view[:-1] if view == 'threads' else view} scaling[/] at {at} "
                f"[dim]({escape(data.settings)})[/]{which}{keys}"
                + _one_point(data, "thread counts" if view == "threads" else "batch sizes")
            )
            scaling.set_scaling(data, _throughput_intervals(d, [p.run_id for p in data.points]))
        elif view == "baseline":
            combos = d.baseline_combos()
            batch, threads = combos[d.fixed_index % len(combos)]
            run = baseline(d.runs, batch, threads)
            assert run is not None
            head.update(
                f"[b]baseline[/] batch {batch}, threads {threads_label(threads)}: "
                f"{fmt.fps(run.throughput_fps)} items/s{keys}"
            )
            latency = d.figures(run).latency
            stats = latency_bars(run)
            intervals = [latency.get(name) for name, _ in stats]
            bars.set_bars(stats, title="latency (ms)", intervals=intervals)
        elif view == "memory":
            values = memory_bars(d.runs, TOP_BARS, d.label_of)
            unknown = "" if values else ": unknown for these runs (measured before memory was)"
            head.update(
                f"[b]memory by run[/]: peak resident MiB in the timed window, oldest first "
                f"(last {len(values)}){unknown}{keys}"
            )
            bars.set_bars(values, title="peak resident memory (MiB)")
        else:
            values = throughput_bars(d.runs, TOP_BARS, d.label_of)
            head.update(f"[b]throughput by run[/], oldest first (last {len(values)}){keys}")
            shown = [run.id for run in bar_runs(d.runs, TOP_BARS)]
            intervals = _throughput_intervals(d, shown)
            bars.set_bars(values, title="throughput (items/s)", intervals=intervals)
