"""Open-loop traffic on a real engine: at each rate, the offered and achieved rate, latency
from arrival (p50, p99), the scheduler's lateness p99 and whether the engine kept up, with the
machine's load average beside each row. Compare with the closed-loop maximum of
`perftui bench MODEL --engine E --api sync` on the same model and settings.

Usage: python benchmarks/open_loop.py [--model sample_models/mobilenet_fp32.onnx]
       [--engine openvino] [--engine onnxruntime] [--rate 50,100,200] [--window 3]
       [--api sync|async] [--requests N] [--threads N] [--arrival poisson|constant]
       [--slo p99=20ms --start RATE --budget S]: the capacity search instead of fixed rates
       (start from half the closed-loop maximum), each run printed as it is judged.
"""

from __future__ import annotations

import argparse
import functools
import os
from pathlib import Path

from perftui.bench.inputs import InputSource, resolve_shapes, run_point
from perftui.bench.traffic import TrafficRun
from perftui.domain.records import AUTO, RunConfig
from perftui.domain.traffic.arrivals import ARRIVALS, parse_rates
from perftui.domain.traffic.capacity import Point, SearchPlan
from perftui.domain.traffic.figures import TrafficFigures
from perftui.domain.traffic.objective import parse_objectives
from perftui.engines import get_engine

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = ROOT / "sample_models" / "mobilenet_fp32.onnx"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(DEFAULT_MODEL))
    parser.add_argument("--engine", action="append", choices=("openvino", "onnxruntime"))
    parser.add_argument("--rate", default="50,100,200")
    parser.add_argument("--window", type=float, default=3.0)
    parser.add_argument("--api", choices=("sync", "async"), default="sync")
    parser.add_argument("--requests", type=int, default=0, help="async slots (0: auto)")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--arrival", choices=ARRIVALS, default="poisson")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slo", help="search the capacity under these objectives")
    parser.add_argument("--start", type=float, default=100.0, help="the search's first rate")
    parser.add_argument("--budget", type=float, default=120.0, help="the search's seconds")
    args = parser.parse_args()
    config = RunConfig(
        threads=args.threads, api=args.api, requests=args.requests or AUTO,
        hint="latency" if args.api == "sync" else "throughput",
    )  # fmt: skip
    print(
        "engine         rate  offered  achieved   p50 ms   p99 ms  p99 hi queue p50 serv p50"
        " late p99  busy   sat load1m"
    )
    for name in args.engine or ["openvino", "onnxruntime"]:
        engine = get_engine(name)
        declared = engine.model_inputs(args.model)
        shapes = resolve_shapes(declared, config.batch, {}, run_point(config))
        prepared = engine.prepare(args.model, "CPU", config, shapes)
        samples = InputSource({}).samples(prepared.inputs, shapes, args.seed)
        prepared.bind(samples[0], samples[1:])
        run = TrafficRun(prepared, arrival=args.arrival, seed=args.seed)
        if args.slo:
            plan = SearchPlan(start_rate=args.start, budget_s=args.budget, window_s=args.window)
            found = run.capacity(
                parse_objectives(args.slo), plan, on_point=functools.partial(on_point, name)
            )
            print(
                f"{name}: capacity {found.rate} requests/s, interval [{found.rate}, {found.hi}],"
                f" confirmed {found.confirmed}, knee {found.knee}, stopped: {found.stopped},"
                f" {found.elapsed_s:.0f} s"
            )
            continue
        for rate in parse_rates(args.rate):
            row(name, run.figures(rate, args.window))


def on_point(engine: str, point: Point) -> None:
    row(engine, point.figures, point)


def row(engine: str, f: TrafficFigures, point: Point | None = None) -> None:
    median, p99 = f.latency["median"], f.latency["p99"]
    judged = "" if point is None else f"  {'meets' if point.meets else 'fails'}"
    print(
        f"{engine:<11} {f.rate:>7.1f} {f.offered_rate:>8.1f} {f.achieved_rate:>9.1f}"
        f" {median.value:>8.2f} {p99.value:>8.2f}{'+' if p99.open_ends[1] else ' '}"
        f" {p99.hi:>7.2f} {f.queue_median_ms or 0.0:>9.3f} {f.service_median_ms or 0.0:>9.2f}"
        f" {f.lateness_p99_ms:>8.3f} {f.busy:>5.0%} {('yes' if f.is_saturated else 'no'):>5}"
        f" {os.getloadavg()[0]:>6.2f}{judged}",
        flush=True,
    )
    for reason in f.reasons:
        print(f"{'':<12}{reason}")


if __name__ == "__main__":
    main()
