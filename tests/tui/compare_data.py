"""Fixed data for the compare screens: an FP32 and an INT8 version of one network (profiles
with I8 twins, a layer in only one version each), and an ONNX Runtime project with no
profile. Ids and times are fixed so snapshots never change."""

from __future__ import annotations

from pathlib import Path

from perftui.domain.records import LatencyStats, LayerProfile, Project, RunConfig, RunResult
from perftui.store.database import Store
from tests.factories import run_result

ENV = {"cpu_model": "Test CPU @ 3.0GHz", "isa": ["avx2", "avx512f"], "openvino": "2025.0"}

FP32_LAYERS = (
    LayerProfile("conv1", "Convolution", "jit_avx512_FP32", "FP32", "executed", 1.20),
    LayerProfile(
        "block1/dw/Conv", "GroupConvolution", "jit_avx512_dw_FP32", "FP32", "executed", 0.50
    ),
    LayerProfile(
        "block1/pw/Conv", "Convolution", "brgconv_avx512_1x1_FP32", "FP32", "executed", 0.90
    ),
    LayerProfile("block1/relu6", "Clamp", "undef", "", "optimized_out", 0.0),
    LayerProfile("input_reorder", "Reorder", "ref_any_FP32", "FP32", "executed", 0.12),
    LayerProfile("fc/Gemm", "FullyConnected", "brgemm_avx512_FP32", "FP32", "executed", 0.30),
)
INT8_LAYERS = (
    LayerProfile("input/QuantizeLinear", "FakeQuantize", "jit_avx512_U8", "U8", "executed", 0.15),
    LayerProfile("conv1", "Convolution", "jit_avx512_I8", "I8", "executed", 0.50),
    LayerProfile(
        "block1/dw/Conv_quant", "GroupConvolution", "jit_avx512_dw_I8", "I8", "executed", 0.30
    ),
    LayerProfile("block1/pw/Conv", "Convolution", "brgconv_avx512_1x1_I8", "I8", "executed", 0.40),
    LayerProfile(
        "fc/Gemm/WithoutBiases",
        "FullyConnectedQuantizedLegacy",
        "brgemm_avx512_I8",
        "I8",
        "executed",
        0.20,
        ("fc/Gemm",),
    ),
)


def stats(median: float) -> LatencyStats:
    return LatencyStats(
        median * 0.9, median * 1.02, median, median * 1.2, median * 1.5, median * 1.8,
        median * 0.05, 0.05,
    )  # fmt: skip


def run(
    project: str,
    n: int,
    batch: int,
    threads: int,
    fps: float,
    layers: tuple[LayerProfile, ...] | None = None,
    status: str = "ok",
) -> RunResult:
    ok = status == "ok"
    return run_result(
        fps if ok else 0.0,
        config=RunConfig(batch=batch, threads=threads),
        status=status,
        error=None if ok else "worker died",
        iterations=400 if ok else 0,
        duration_s=2.0 if ok else 0.0,
        latency_ms=stats(round(1000.0 * batch / fps, 3)) if ok else None,
        layers=layers,
        resolved={"threads": threads or 4, "environment": ENV},
        id=f"{project}-{n}",
        project=project,
        started_at=f"2025-03-01T10:00:{n:02d}+00:00",
    )


# fp32: medians 5.0, 7.69, 13.3 (t:auto) and 6.67 (t2); int8: 2.38, 3.57, 6.25 and 3.33
FP32_RUNS = [
    run("net-fp32", 1, 1, 0, 200.0, FP32_LAYERS),
    run("net-fp32", 2, 2, 0, 260.0),
    run("net-fp32", 3, 4, 0, 300.0, FP32_LAYERS),
    run("net-fp32", 4, 1, 2, 150.0),
    run("net-fp32", 5, 8, 0, 0.0, status="failed"),
]
INT8_RUNS = [
    run("net-int8", 6, 1, 0, 420.0, INT8_LAYERS),
    run("net-int8", 7, 2, 0, 560.0),
    run("net-int8", 8, 4, 0, 640.0, INT8_LAYERS),
    run("net-int8", 9, 1, 2, 300.0),
]
ORT_RUNS = [run("net-ort", 10, 1, 0, 240.0), run("net-ort", 11, 4, 0, 380.0)]


def fill_compare_store(path: Path) -> Store:
    """net-fp32, net-int8 (optimized from net-fp32), net-ort (no profiles), empty."""
    store = Store(path)
    store.add_project(Project("net-fp32", "/models/net_fp32.onnx", "openvino", "CPU"))
    store.add_project(
        Project("net-int8", "/models/net_int8.onnx", "openvino", "CPU", source_project="net-fp32")
    )
    store.add_project(Project("net-ort", "/models/net_fp32.onnx", "onnxruntime", "CPU"))
    store.add_project(Project("empty", "/models/net_fp32.xml", "openvino", "CPU"))
    store.add_runs([(r, None) for r in [*FP32_RUNS, *INT8_RUNS, *ORT_RUNS]])
    return store
