"""`perftui compare A B`: sweet spot, inference time and layers of two projects."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from perftui.cli.common import (
    CliError,
    Command,
    CommandFactory,
    Exit,
    open_store,
    print_json,
    unknown_project,
)
from perftui.domain.forms.bench import MEASURE_ROUNDS, MEASURE_TIME_S

if TYPE_CHECKING:
    import numpy as np

    from perftui.domain.compare.capacity import CapacityRatio
    from perftui.domain.measurement.figures import Figures
    from perftui.domain.records import RunResult
    from perftui.store import Store


def add_parsers(command: CommandFactory) -> None:
    compare = command("compare", "compare two projects: sweet spot, inference time, layers")
    compare.add_argument("a", help="project A (e.g. the FP32 version)")
    compare.add_argument("b", help="project B (e.g. the INT8 version)")
    compare.add_argument("--threshold", help="latency threshold in ms for the sweet spot")
    compare.add_argument(
        "--max-memory",
        metavar="MB",
        help="memory limit in MiB for the sweet spot: a run's peak resident memory",
    )
    compare.add_argument("--stat", default="median", help="median | p90 | p99")
    compare.add_argument("--runs", help="only these run ids (comma-separated; prefixes work)")
    compare.add_argument(
        "--measure",
        nargs="?",
        const=str(MEASURE_ROUNDS),
        metavar="N",
        help="measure both compared configurations again, alternately, N rounds (default "
        f"{MEASURE_ROUNDS}), and judge B/A from those pairs: the honest way on a busy machine",
    )
    compare.add_argument(
        "--time",
        metavar="S",
        help=f"timed seconds of each --measure run (default {MEASURE_TIME_S:g}: rounds, not "
        "long runs, narrow B/A)",
    )
    compare.add_argument("--json", action="store_true")


def cmd_compare(args: argparse.Namespace) -> int:
    from perftui.cli.capacity_text import ratio_document
    from perftui.cli.compare_report import (
        cheapest_document,
        cheapest_line,
        comparison_document,
        comparison_text,
    )
    from perftui.cli.measure import measure_alternately, parse_rounds, parse_time
    from perftui.domain.compare import Comparison, Side, compare_projects
    from perftui.domain.compare.capacity import ratio_lines
    from perftui.domain.compare.ranking import COST, ranked_sweet_spot
    from perftui.domain.forms import options
    from perftui.domain.limits import parse_memory_limit
    from perftui.domain.measurement.statistic import LATENCY_NAMES

    stat = options.parse_choices(args.stat, "latency statistic", LATENCY_NAMES)[0]
    threshold = None
    if args.threshold is not None:
        threshold = options.parse_threshold(args.threshold)
    max_memory = None if args.max_memory is None else parse_memory_limit(args.max_memory)
    store = open_store(args)
    runs = {}
    for name in (args.a, args.b):
        if store.get_project(name) is None:
            raise unknown_project(store, name)
        runs[name] = store.runs(name)
    if args.runs:
        wanted = [item.strip() for item in args.runs.split(",") if item.strip()]
        for name in runs:
            runs[name] = [r for r in runs[name] if any(r.id.startswith(w) for w in wanted)]
        unknown = [
            w for w in wanted if not any(r.id.startswith(w) for rs in runs.values() for r in rs)
        ]
        if unknown:
            raise CliError(f"no run of {args.a!r} or {args.b!r} has an id starting {unknown[0]!r}")
    rounds = parse_rounds(args.measure) if args.measure is not None else 0
    time_s = parse_time(args.time, rounds)

    def samples(run: RunResult) -> np.ndarray | None:
        return store.latency_samples(run.id)

    def known(run: RunResult) -> Figures | None:
        return store.figures(run.id)

    def compared() -> Comparison:
        return compare_projects(
            args.a,
            runs[args.a],
            args.b,
            runs[args.b],
            threshold,
            stat,
            samples=samples,
            max_memory_mib=max_memory,
            known=known,
        )

    comparison = compared()
    empty = [side for side in Side if comparison.run(side) is None]
    if empty:  # a comparison with one side missing judges nothing: not a success
        side = empty[0]
        name = comparison.name(side)
        raise CliError(
            f"nothing to compare: {side.value} ({name}) has no successful run; benchmark it "
            f"first (perftui bench MODEL --project {name})"
        )
    cancelled = False
    if rounds:
        measured = measure_alternately(store, comparison, rounds, time_s)
        runs[args.a], runs[args.b], cancelled = measured
        comparison = compared()
    limits = (threshold, stat, samples, max_memory, COST, known)  # the sweet spot by cost, too
    spot = ranked_sweet_spot(runs[args.a], runs[args.b], *limits)
    capacity = _capacities(store, args.a, args.b)
    if args.json:
        cheapest = cheapest_document(comparison, spot)
        found = None if capacity is None else ratio_document(capacity)
        print_json({**comparison_document(comparison), "cheapest": cheapest, "capacity": found})
    else:
        print(comparison_text(comparison))
        if spot is not None:
            print(cheapest_line(spot, comparison, threshold, stat))
        if capacity is not None:
            print("\n" + "\n".join(ratio_lines(capacity, (args.a, args.b))))
    return Exit.CANCELLED if cancelled else Exit.OK


def _capacities(store: Store, a: str, b: str) -> CapacityRatio | None:
    """Both projects' newest capacities side by side, or None unless both have one."""
    from perftui.domain.compare.capacity import both_capacities
    from perftui.domain.traffic.stored import latest_capacity

    found = [
        latest_capacity(store.project_benchmarks(n), store.runs(n), lambda r: store.figures(r.id))
        for n in (a, b)
    ]
    return both_capacities(found[0], found[1])


COMMANDS: dict[str, Command] = {"compare": cmd_compare}
