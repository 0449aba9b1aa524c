"""First-start sample projects."""

from __future__ import annotations

from pathlib import Path

from perftui.domain.forms.quickstart import QUICK_BUDGET, quick_request, sample_projects
from perftui.domain.measurement.verdict import P99_MIN_SAMPLES, QUICK_LOOK

MODELS = [
    Path("/s/mobilenet_fp32.onnx"),
    Path("/s/mobilenet_int8.onnx"),
    Path("/s/mobilenet_fp32.xml"),
]


def test_sample_projects_for_engines_with_a_cpu():
    both = {"openvino": ["CPU"], "onnxruntime": ["CPU"]}
    names = [p.name for p in sample_projects(MODELS, both)]
    assert names == [
        "mobilenet-fp32-ov",
        "mobilenet-int8-ov",
        "mobilenet-fp32-ort",
        "mobilenet-int8-ort",
    ]
    ort_only = {"openvino": "openvino cannot be used", "onnxruntime": ["CPU"]}
    assert all(p.engine == "onnxruntime" for p in sample_projects(MODELS, ort_only))
    skipped = sample_projects(MODELS, both, existing=["mobilenet-fp32-ov"])
    assert "mobilenet-fp32-ov" not in [p.name for p in skipped]
    assert sample_projects(MODELS[:1], {"onnxruntime": ["GPU"]}) == []


def test_quick_request_is_a_short_profiled_quick_look():
    project = sample_projects(MODELS, {"onnxruntime": ["CPU"]})[0]
    request = quick_request(project)
    assert len(request.configs) == 1 and request.profile and request.budget == QUICK_BUDGET
    assert request.budget.time_s <= 3 and request.budget.iterations >= P99_MIN_SAMPLES
    assert request.label == QUICK_LOOK and request.repetitions == 1
