"""Measurement context: what /proc/cpuinfo says, and the notes a run gets from it."""

from __future__ import annotations

from perftui.bench.environment import parse_cpuinfo
from perftui.cli.textfmt import runs_table
from perftui.domain.measurement.context import model_is_int8, precision_notes, run_notes
from perftui.domain.records import LayerProfile, Project, RunConfig, RunResult
from tests.cli_helpers import table_column
from tests.factories import run_result

CPUINFO = """\
processor\t: {n}
model name\t: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz
physical id\t: {socket}
core id\t\t: {core}
flags\t\t: fpu sse4_2 avx avx2 fma avx512f avx512bw {extra}
"""
NO_VNNI = ["sse4_2", "avx", "avx2", "avx512f"]
SAPPHIRE = [*NO_VNNI, "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_int8", "amx_bf16"]


def cpuinfo(extra: str = "") -> str:
    cpus = [(0, 0), (0, 1), (1, 0), (1, 1)]  # (socket, core), one thread each
    return "\n".join(
        CPUINFO.format(n=n, socket=s, core=c, extra=extra) for n, (s, c) in enumerate(cpus)
    )


def test_cpuinfo_gives_model_cores_sockets_and_isa():
    found = parse_cpuinfo(cpuinfo("avx512_vnni amx_tile"))
    assert found["cpu_model"] == "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz"
    assert found["physical_cores"] == 4 and found["sockets"] == 2
    assert "avx512_vnni" in found["isa"] and "amx_tile" in found["isa"]
    assert "fpu" not in found["isa"]  # only the flags that decide a precision's speed
    assert parse_cpuinfo("") == {
        "cpu_model": None,
        "physical_cores": None,
        "sockets": None,
        "isa": [],
    }


def test_an_int8_model_without_vnni_is_noted():
    isa = parse_cpuinfo(cpuinfo())["isa"]
    notes = precision_notes(isa, None, "f32", int8=True)
    assert len(notes) == 1 and notes[0].startswith("no VNNI on this CPU")
    assert precision_notes(isa, None, "f32", int8=False) == []
    with_vnni = parse_cpuinfo(cpuinfo("avx_vnni"))["isa"]
    assert precision_notes(with_vnni, None, "f32", int8=True) == []


def test_unknown_flags_say_nothing_about_the_cpu():
    assert precision_notes([], "bf16", "bf16", int8=True) == []


def test_a_requested_precision_the_engine_did_not_use_is_flagged():
    notes = precision_notes(NO_VNNI, "bf16", "f32", int8=False)
    assert notes == [
        "bf16 was requested but the engine ran f32 (no AVX-512 BF16 or AMX-BF16 on this CPU)"
    ]
    assert precision_notes(SAPPHIRE, "f16", "f32", int8=False) == [
        "f16 was requested but the engine ran f32"
    ]
    assert precision_notes(SAPPHIRE, "bf16", "bf16", int8=True) == []
    emulated = precision_notes(NO_VNNI, "f16", "f16", int8=False)
    assert emulated == [
        "no AVX-512 FP16 or AMX-FP16 on this CPU: f16 is emulated and may be no faster than f32"
    ]
    # ONNX Runtime runs the model's own precision; nothing was requested of it
    assert precision_notes(NO_VNNI, None, "model", int8=False) == []


def int8_layer(precision: str = "I8") -> LayerProfile:
    return LayerProfile("conv", "Convolution", f"jit_avx2_{precision}", precision, "executed", 0.1)


def make_run(precision: str | None = None, ran: str = "f32", **resolved: object) -> RunResult:
    return run_result(
        100.0,
        1.0,
        config=RunConfig(precision=precision),
        iterations=200,
        resolved={"precision": ran, "device": "CPU", "environment": {"isa": NO_VNNI}, **resolved},
    )


def test_a_model_is_int8_from_its_profile_or_its_optimization():
    plain = make_run()
    profiled = RunResult(config=RunConfig(), layers=(int8_layer("U8"),))
    assert not model_is_int8([plain], {})
    assert model_is_int8([plain, profiled], {})
    assert model_is_int8([plain], {"optimization": {"method": "int8"}})


def test_run_notes_read_the_recorded_environment_and_device():
    assert run_notes(make_run(), int8=True)[0].startswith("no VNNI")
    on_gpu = make_run(device="GPU")
    assert run_notes(on_gpu, int8=True) == ()
    assert run_notes(make_run("bf16", "f32", device="GPU"), int8=False) == (
        "bf16 was requested but the engine ran f32",
    )
    old = RunResult(config=RunConfig(), resolved={})  # recorded before the environment was
    assert run_notes(old, int8=True) == ()


def test_the_runs_table_shows_the_notes_under_the_run():
    project = Project("p", "m.onnx", "openvino", "CPU", notes={"optimization": {}})
    text = runs_table([make_run("bf16", "f32")], project=project)
    lines = text.splitlines()
    assert any(line.startswith("  #1 note: no VNNI on this CPU") for line in lines)
    assert "  #1 note: bf16 was requested but the engine ran f32" in "\n".join(lines)


def test_a_float_model_run_in_bf16_by_default_says_so_and_how_to_measure_fp32():
    """OpenVINO's default on a CPU with AVX-512 BF16 or AMX is bf16: an FP32 project that
    asked for no precision must not pass bf16 figures off as FP32."""
    notes = precision_notes(SAPPHIRE, None, "bf16", int8=False)
    assert notes == [
        "ran in bf16, the engine's default on this CPU, not f32: measure with precision f32"
        " for FP32 figures"
    ]
    assert precision_notes(SAPPHIRE, "f32", "f32", int8=False) == []
    assert precision_notes(SAPPHIRE, None, "f32", int8=False) == []
    assert "(the non-INT8 layers)" in precision_notes(SAPPHIRE, None, "bf16", int8=True)[0]


def test_the_precision_run_is_a_column_of_every_runs_table():
    project = Project("p", "m.onnx", "openvino", "CPU")
    lines = runs_table([make_run(None, "bf16"), make_run("f32", "f32")], project=project)
    header, dashes, first, second, *notes = lines.splitlines()
    assert header.split()[:3] == ["#", "config", "ran"]
    assert table_column([header, dashes, first, second], "ran") == ["BF16", "FP32"]
    assert "p:f32" in second
    assert any("#1 note: ran in bf16" in note for note in notes)
    assert not any(note.startswith("  #2 note: ran in") for note in notes)


def test_an_int8_run_says_how_much_of_its_time_ran_in_8_bit_and_what_stayed_float():
    """An EfficientNet-B0 on OpenVINO left its depthwise convolutions in BF16 and ran 1.63x
    slower than FP32: the coverage says so beside the run and in compare."""
    from perftui.domain.compare import compare_projects

    layers = (
        LayerProfile("c1", "Convolution", "brgconv_avx512_I8", "I8", "executed", 0.6),
        LayerProfile("dw", "GroupConvolution", "jit_avx512_BF16", "BF16", "executed", 0.3),
        LayerProfile("r", "Reorder", "ref_any_BF16", "BF16", "executed", 0.1),
        LayerProfile("a", "Add", "undef", "BF16", "not_run", 0.0),
    )
    run = make_run(None, "bf16", isa=SAPPHIRE, layers=layers)
    run = RunResult(
        config=run.config,
        latency_ms=run.latency_ms,
        throughput_fps=100.0,
        iterations=200,
        layers=layers,
        resolved={**run.resolved, "environment": {"isa": SAPPHIRE}},
    )
    [note] = [n for n in run_notes(run, int8=True) if n.startswith("INT8:")]
    assert note == (
        "INT8: 60% of the time in 8-bit layers (1 of 3); still in float: GroupConvolution"
        " (1 layer, 30% of the time); this CPU has avx512_vnni, amx_int8"
    )
    c = compare_projects("fp32", [make_run()], "int8", [run])
    assert f"B (int8): {note}" in c.notes
