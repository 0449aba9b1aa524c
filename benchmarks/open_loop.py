"""Open-loop traffic on a real engine: at each rate, the offered and achieved rate, latency
from arrival (p50, p99), the scheduler's lateness p99 and whether the engine kept up, with the
machine's load average beside each row. Compare with the closed-loop maximum of
`perftui bench MODEL --engine E --api sync` on the same model and settings.

Usage: python benchmarks/open_loop.py [--model sample_models/mobilenet_fp32.onnx]
       [--engine openvino] [--engine onnxruntime] [--rate 50,100,200] [--window 3]
       [--api sync|async] [--requests N] [--threads N] [--arrival poisson|constant]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from perftui.bench.inputs import InputSource, resolve_shapes, run_point
from perftui.bench.traffic import TrafficRun
from perftui.domain.records import AUTO, RunConfig
from perftui.domain.traffic.arrivals import ARRIVALS, parse_rates
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
    args = parser.parse_args()
    config = RunConfig(
        threads=args.threads, api=args.api, requests=args.requests or AUTO,
        hint="latency" if args.api == "sync" else "throughput",
    )  # fmt: skip
    print(
        "engine       rate  offered  achieved   p50 ms   p99 ms  queue p50  service p50"
        "  late p99 ms  saturated  load(1m)"
    )
    for name in args.engine or ["openvino", "onnxruntime"]:
        engine = get_engine(name)
        declared = engine.model_inputs(args.model)
        shapes = resolve_shapes(declared, config.batch, {}, run_point(config))
        prepared = engine.prepare(args.model, "CPU", config, shapes)
        samples = InputSource({}).samples(prepared.inputs, shapes, args.seed)
        prepared.bind(samples[0], samples[1:])
        run = TrafficRun(prepared, arrival=args.arrival, seed=args.seed)
        for rate in parse_rates(args.rate):
            f = run.figures(rate, args.window)
            load = os.getloadavg()[0]
            print(
                f"{name:<11} {rate:>5g} {f.offered_rate:>8.1f} {f.achieved_rate:>9.1f}"
                f" {f.latency['median'].value:>8.2f} {f.latency['p99'].value:>8.2f}"
                f" {f.queue_median_ms:>10.3f} {f.service_median_ms:>12.2f}"
                f" {f.lateness_p99_ms:>12.3f} {('yes' if f.is_saturated else 'no'):>10}"
                f" {load:>9.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
