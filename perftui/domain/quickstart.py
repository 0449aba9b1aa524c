"""First-start help: projects for the shipped sample models and a short benchmark of each,
so that a newcomer sees measured data within a minute."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from perftui.domain.records import BenchmarkRequest, Budget, Project, RunConfig

# (project name, sample file, engine); the FP32 and INT8 versions of one network on each engine
SAMPLE_PROJECTS = (
    ("mobilenet-fp32-ov", "mobilenet_fp32.xml", "openvino"),
    ("mobilenet-int8-ov", "mobilenet_int8.onnx", "openvino"),
    ("mobilenet-fp32-ort", "mobilenet_fp32.onnx", "onnxruntime"),
    ("mobilenet-int8-ort", "mobilenet_int8.onnx", "onnxruntime"),
)
QUICK_BUDGET = Budget(time_s=2.0, iterations=50, warmup=5, profile_iterations=20)


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
    """A short latency run at batch 1 with the engine's default threads, with a profile."""
    return BenchmarkRequest(
        project=project, configs=(RunConfig(),), budget=QUICK_BUDGET, profile=True
    )
