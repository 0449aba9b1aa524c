"""Measurement fidelity: perftui against the engines' own tools, interleaved, side by side.

For each mode, runs perftui's headless bench and the reference in alternation (A B A B ...),
`--pairs` times, each in a fresh process, and prints every pair and the median ratio
perftui / reference of throughput. Target: >= 0.97.

  OpenVINO: `benchmark_app` (async, throughput hint; sync, latency hint)
  ONNX Runtime: a bare `InferenceSession.run` loop in its own process (sync)

Usage: python benchmarks/fidelity.py [--model sample_models/mobilenet_fp32.onnx] [--time 5]
       [--pairs 3] [--batch 1]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = ROOT / "sample_models" / "mobilenet_fp32.onnx"


def perftui_fps(model: Path, engine: str, api: str, hint: str, seconds: int, batch: int) -> float:
    cmd = [
        sys.executable,
        "-m",
        "perftui",
        "bench",
        str(model),
        "--engine",
        engine,
        "--api",
        api,
        "--hint",
        hint,
        "--time",
        str(seconds),
        "--iterations",
        "1",
        "--batch",
        str(batch),
        "--no-save",
        "--json",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    run = json.loads(out.stdout)["runs"][0]
    if run["status"] != "ok":
        raise RuntimeError(f"perftui run failed: {run['error']}")
    return float(run["throughput_fps"])


def benchmark_app_fps(model: Path, api: str, hint: str, seconds: int, batch: int) -> float:
    tool = shutil.which("benchmark_app") or str(Path(sys.executable).parent / "benchmark_app")
    name, shape = input_shape(model, batch)
    cmd = [
        tool,
        "-m",
        str(model),
        "-d",
        "CPU",
        "-api",
        api,
        "-hint",
        hint,
        "-t",
        str(seconds),
        "-shape",
        f"{name}[{','.join(map(str, shape))}]",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    match = re.search(r"Throughput:\s+([\d.]+)\s*FPS", out)
    if match is None:
        raise RuntimeError(f"no throughput in benchmark_app output:\n{out[-2000:]}")
    return float(match.group(1))


def input_shape(model: Path, batch: int) -> tuple[str, list[int]]:
    """The model's single input with the batch as first dimension (other dims must be fixed)."""
    import onnx

    graph = onnx.load(str(model), load_external_data=False).graph
    initializers = {init.name for init in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    if len(inputs) != 1:
        raise SystemExit(f"{model} has {len(inputs)} inputs; this script compares one-input models")
    dims = [d.dim_value for d in inputs[0].type.tensor_type.shape.dim][1:]
    if not all(d > 0 for d in dims):
        raise SystemExit(f"{model}: only the batch dimension may be dynamic here")
    return inputs[0].name, [batch, *dims]


BARE_ORT = """
import sys, time
import numpy as np
import onnxruntime as ort
model, seconds = sys.argv[1], float(sys.argv[2])
shape = [int(d) for d in sys.argv[3].split(",")]
options = ort.SessionOptions()
options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
spec = session.get_inputs()[0]
feeds = {spec.name: np.random.default_rng(0).random(shape, dtype=np.float32)}
for _ in range(10):
    session.run(None, feeds)
count, start = 0, time.perf_counter()
while True:
    session.run(None, feeds)
    count += 1
    now = time.perf_counter()
    if now - start >= seconds and count >= 1:
        break
print(count * shape[0] / (now - start))
"""


def bare_ort_fps(model: Path, seconds: int, batch: int) -> float:
    _, shape = input_shape(model, batch)
    cmd = [sys.executable, "-c", BARE_ORT, str(model), str(seconds), ",".join(map(str, shape))]
    return float(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)


def compare(
    name: str, ours: Callable[[], float], reference: Callable[[], float], pairs: int
) -> float:
    ratios = []
    print(f"\n{name}")
    for i in range(pairs):
        # alternate which goes first, so drift (thermal, other load) does not favour one side
        if i % 2 == 0:
            a, b = ours(), reference()
        else:
            b, a = reference(), ours()
        ratios.append(a / b)
        print(f"  pair {i + 1}: perftui {a:9.1f} fps   reference {b:9.1f} fps   ratio {a / b:.3f}")
    median = statistics.median(ratios)
    print(f"  median ratio perftui/reference: {median:.3f}")
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    parser.add_argument("--time", type=int, default=5, help="whole seconds per measurement")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=1)
    args = parser.parse_args()
    m, t, b = args.model, args.time, args.batch
    started = time.monotonic()
    results = {
        "openvino async/throughput vs benchmark_app": compare(
            "OpenVINO async, throughput hint: perftui vs benchmark_app",
            lambda: perftui_fps(m, "openvino", "async", "throughput", t, b),
            lambda: benchmark_app_fps(m, "async", "throughput", t, b),
            args.pairs,
        ),
        "openvino sync/latency vs benchmark_app": compare(
            "OpenVINO sync, latency hint: perftui vs benchmark_app",
            lambda: perftui_fps(m, "openvino", "sync", "latency", t, b),
            lambda: benchmark_app_fps(m, "sync", "latency", t, b),
            args.pairs,
        ),
        "onnxruntime sync vs bare session.run": compare(
            "ONNX Runtime sync: perftui vs a bare InferenceSession.run loop",
            lambda: perftui_fps(m, "onnxruntime", "sync", "latency", t, b),
            lambda: bare_ort_fps(m, t, b),
            args.pairs,
        ),
    }
    print(
        f"\nsummary ({m.name}, batch {b}, {t:g} s per measurement, {args.pairs} pairs, "
        f"{time.monotonic() - started:.0f} s in all)"
    )
    for name, ratio in results.items():
        verdict = "ok" if ratio >= 0.97 else "BELOW TARGET 0.97"
        print(f"  {name}: {ratio:.3f} {verdict}")


if __name__ == "__main__":
    main()
