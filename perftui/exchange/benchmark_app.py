"""OpenVINO benchmark_app's reports as perftui records, so its results land in a project.

`benchmark_app ... -json_stats -report_folder DIR` writes DIR/benchmark_report.json
({"cmd_options", "configuration_setup", "execution_results"}, every value a string) and,
with `-report_type average_counters|detailed_counters` (and `-pcsort`), the per-layer counters
beside it: {"report_type": "average", "avg_performance": {"nodes": [...]}}, "detailed" with
"detailed_performance": one {"nodes"} per request, or "sorted". Each node has name, node_type,
status ("Status.EXECUTED" from the Python tool, "EXECUTED" from the C++ one), real_time and
cpu_time in ms, exec_type. The Python tool's average report keeps only the first node (it
averages into a list of lists), so the detailed or sorted report is read before it.

benchmark_app reports min, mean, median and max latency only: p90, p99 and the spread are
not known, are stored as None and listed under resolved["benchmark_app"]["unreported"].
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

from perftui.domain.errors import InputError
from perftui.domain.model.profile import precision_from_exec_type
from perftui.domain.names import default_project_name
from perftui.domain.records import (
    HINTS,
    OPTIONAL_STATS,
    LatencyStats,
    LayerProfile,
    Project,
    RunConfig,
    RunResult,
)

REPORT = "benchmark_report.json"
COUNTERS = (  # the first found is read (see the module's docstring)
    "benchmark_detailed_counters_report.json",
    "benchmark_sorted_report.json",
    "benchmark_average_counters_report.json",
)
_STATUS = {"EXECUTED": "executed", "NOT_RUN": "not_run", "OPTIMIZED_OUT": "optimized_out"}


def recognizes(document: Any) -> bool:
    return isinstance(document, dict) and (
        "execution_results" in document
        or document.get("report_type") in ("average", "detailed", "sorted")
    )


def _number(value: Any, what: str) -> float | None:
    if value is None or value in ("", "None"):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputError(f"benchmark_app report: {what} is {value!r}, not a number") from None


def _latency(results: dict[str, Any]) -> LatencyStats | None:
    found: dict[str, float] = {}
    for key, value in results.items():
        words = key.lower()
        if "latency" not in words:
            continue
        name = next(
            (
                stat
                for stat, marks in (
                    ("median", ("median", "latency (ms)")),
                    ("mean", ("avg", "average")),
                    ("min", ("min",)),
                    ("max", ("max",)),
                )
                if any(mark in words for mark in marks)
            ),
            None,
        )
        number = _number(value, key)
        if name and number is not None:
            found.setdefault(name, number)
    if "median" not in found:
        return None
    return LatencyStats.from_dict(found)


def _nodes(counters: dict[str, Any]) -> list[dict[str, Any]]:
    """One averaged row per layer, whichever kind of counters report it is."""
    kind = counters.get("report_type")
    if kind == "detailed":
        requests = [item.get("nodes", []) for item in counters.get("detailed_performance", [])]
    else:
        requests = [counters.get("avg_performance", {}).get("nodes", [])]
    if not requests or not all(isinstance(nodes, list) for nodes in requests):
        raise InputError("benchmark_app counters report: no layers (nodes) in it")
    totals: dict[str, float] = defaultdict(float)
    first: dict[str, dict[str, Any]] = {}
    for nodes in requests:
        for node in nodes:
            name = str(node.get("name", ""))
            totals[name] += _number(node.get("real_time"), f"{name} real_time") or 0.0
            first.setdefault(name, node)
    return [{**node, "real_time": totals[name] / len(requests)} for name, node in first.items()]


def layers(counters: dict[str, Any]) -> tuple[LayerProfile, ...]:
    rows = []
    for node in _nodes(counters):
        status = _STATUS.get(str(node.get("status", "")).rsplit(".", 1)[-1], "executed")
        exec_type = str(node.get("exec_type", ""))
        rows.append(
            LayerProfile(
                name=str(node.get("name", "")),
                type=str(node.get("node_type", "")),
                exec_type=exec_type,
                precision=precision_from_exec_type(exec_type) if status == "executed" else "",
                status=status,
                time_ms=float(node["real_time"]),
            )
        )
    return tuple(rows)


def _config(options: dict[str, Any], setup: dict[str, Any]) -> RunConfig:
    def whole(value: Any, default: int | Literal["auto"]) -> int | Literal["auto"]:
        number = _number(value, "a setting")
        return default if number is None else int(number)

    hint = str(options.get("-hint", "none")).lower()
    return RunConfig(
        batch=int(whole(setup.get("batch size"), 1)) or 1,
        threads=int(whole(options.get("-nthreads"), 0)),
        streams=whole(options.get("-nstreams"), "auto"),
        requests=whole(setup.get("number of parallel infer requests"), "auto"),
        hint=hint if hint in HINTS else "none",
        api=str(setup.get("API", "async")).lower(),
    )


def records(
    report: dict[str, Any],
    counters: dict[str, Any] | None,
    project_name: str | None,
    source: str,
) -> tuple[Project, RunResult]:
    """The project (engine openvino) and its one run that a benchmark_app report describes."""
    options = report.get("cmd_options") or {}
    setup = report.get("configuration_setup") or {}
    results = report.get("execution_results")
    if not isinstance(results, dict) or not isinstance(setup, dict):
        raise InputError(f"{source}: a benchmark_app report without execution_results")
    model = str(options.get("-m") or setup.get("topology") or "")
    if not model:
        raise InputError(f"{source}: the benchmark_app report names no model (-m)")
    device = str(setup.get("target device") or options.get("-d") or "CPU")
    project = Project(
        name=project_name or default_project_name(model, "openvino", device) + "-benchmark_app",
        model=model,
        engine="openvino",
        device=device,
    )

    def ms(key: str) -> float:
        return _number(results.get(key), key) or 0.0

    throughput = _number(results.get("throughput"), "throughput")
    if throughput is None:
        raise InputError(f"{source}: the benchmark_app report has no throughput")
    run = RunResult(
        config=_config(options, setup),
        iterations=int(ms("total number of iterations")),
        duration_s=ms("total execution time (ms)") / 1000.0,
        throughput_fps=throughput,
        first_inference_ms=ms("first inference time (ms)"),
        compile_ms=ms("compile model time (ms)"),
        read_ms=ms("read model time (ms)"),
        latency_ms=_latency(results),
        layers=layers(counters) if counters else None,
        resolved={
            "environment": {"source": "benchmark_app"},
            "benchmark_app": {
                "report": source,
                "cmd_options": options,
                "unreported": list(OPTIONAL_STATS),
            },
        },
        project=project.name,
    )
    return project, run


def read_json(path: Path) -> dict[str, Any]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InputError(f"cannot read {path}: {error}") from None
    if not isinstance(document, dict):
        raise InputError(f"{path}: not a benchmark_app report")
    return document


def read_folder(path: Path, first: dict[str, Any]) -> tuple[dict[str, Any], dict | None]:
    """The statistics report and the counters report of one -report_folder, starting from
    either of them."""
    folder = path.parent
    if "execution_results" in first:
        report = first
    elif (folder / REPORT).is_file():
        report = read_json(folder / REPORT)
    else:
        raise InputError(f"{path} is a counters report: import {REPORT} (with -json_stats)")
    if first is not report:
        return report, first
    counters = next((read_json(folder / n) for n in COUNTERS if (folder / n).is_file()), None)
    return report, counters
