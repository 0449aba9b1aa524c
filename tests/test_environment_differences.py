"""Two machines' recorded environments: the differences named beside a verdict across hosts."""

from __future__ import annotations

from perftui.domain.compare.environments import environment_differences

XEON = {
    "cpu_model": "Intel Xeon Platinum 8480+",
    "physical_cores": 56,
    "logical_cores": 112,
    "sockets": 2,
    "isa": ["avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile", "amx_int8", "amx_bf16"],
    "openvino": "2026.4.1",
    "onnxruntime": "1.32.0",
    "governor": "performance",
    "target": "xeon",
}
EPYC = {
    **XEON,
    "cpu_model": "AMD EPYC 7763",
    "physical_cores": 64,
    "logical_cores": 128,
    "sockets": 1,
    "isa": ["avx2"],
    "openvino": "2026.3.0",
    "governor": "powersave",
    "target": "epyc",
}


def test_the_differences_are_named_and_only_they():
    rows = {row.label: (row.a, row.b) for row in environment_differences(XEON, EPYC)}
    assert rows["Target"] == ("xeon", "epyc")
    assert rows["CPU"] == ("Intel Xeon Platinum 8480+", "AMD EPYC 7763")
    assert rows["Cores"] == ("56 phys, 112 log, 2 sockets", "64 phys, 128 log")
    assert rows["Vectors"] == ("AVX-512", "AVX2")
    assert rows["INT8 ISA"] == ("avx512_vnni amx_int8", "no")
    assert rows["OpenVINO"] == ("2026.4.1", "2026.3.0")
    assert rows["Governor"] == ("performance", "powersave")
    assert "ONNX RT" not in rows  # the same version: not a difference
    assert environment_differences(XEON, XEON) == []
    assert environment_differences(XEON, {}) == []  # unknown: nothing claimed
