"""First-start help: projects for the shipped sample models and a short benchmark of each,
so that a newcomer sees measured data within a minute.

Those benchmarks are a quick look, and marked so: one 2-second run per project (about 20 s
for the four on a busy 2-core machine, worker start and profile included) shows what the
dashboard does, but it cannot hold the noise between processes that a comparison needs
(the issue that led here: 2-second runs ranked INT8 below FP32, 4-second runs above). So
their runs carry the label QUICK_LOOK, and their verdict says "quick look: ... too short for
a verdict" (perftui.domain.measurement.verdict); `--repeat 3` of the default 10 s runs, some seven
times the cost (two and a half minutes), gives figures to compare.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from perftui.domain.measurement.verdict import P99_MIN_SAMPLES, QUICK_LOOK
from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig

# (project name, sample file, engine); the FP32 and INT8 versions of one network on each engine
SAMPLE_PROJECTS = (
    ("mobilenet-fp32-ov", "mobilenet_fp32.xml", "openvino"),
    ("mobilenet-int8-ov", "mobilenet_int8.onnx", "openvino"),
    ("mobilenet-fp32-ort", "mobilenet_fp32.onnx", "onnxruntime"),
    ("mobilenet-int8-ort", "mobilenet_int8.onnx", "onnxruntime"),
)
QUICK_BUDGET = Budget(time_s=2.0, iterations=P99_MIN_SAMPLES, warmup=20, profile_iterations=20)
"""Enough requests for the p99 to mean something; warm-up costs well under a second."""


def sample_projects(
    models: Sequence[Path],
    devices: Mapping[str, list[str] | str],
    existing: Sequence[str] = (),
    device: str = "CPU",
) -> list[Project]:
    """Sample projects whose model file exists and whose engine has `device`, skipping
    names in `existing`."""
    by_name = {path.name: path for path in models}
    projects = []
    for name, file_name, engine in SAMPLE_PROJECTS:
        engine_devices = devices.get(engine)
        if name in existing or file_name not in by_name or not isinstance(engine_devices, list):
            continue
        if device not in engine_devices:
            continue
        projects.append(
            Project(
                name=name,
                model=str(by_name[file_name]),
                engine=engine,
                device=device,
                notes={"sample": True},
            )
        )
    return projects


def quick_request(project: Project) -> BenchmarkRequest:
    """A short latency run at batch 1 with the engine's default threads, with a profile,
    labelled a quick look."""
    return BenchmarkRequest(
        project=project,
        configs=(RunConfig(),),
        budget=QUICK_BUDGET,
        profile=True,
        label=QUICK_LOOK,
    )
