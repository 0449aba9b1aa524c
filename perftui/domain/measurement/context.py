"""What the measurement context says about a run's figures: the precision the engine ran
(OpenVINO runs a float model in bf16 by default on CPUs with AVX-512 BF16 or AMX), an INT8
model or a requested bf16/f16 precision on a CPU without the instructions that make it fast,
and a requested precision that the engine did not use.

The environment is the one recorded with the run (perftui.bench.environment): its `isa` lists
the /proc/cpuinfo flags of interest, empty where they could not be read, in which case
nothing is said about the instructions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from perftui.domain.model.int8_coverage import INT8_PRECISIONS, int8_coverage
from perftui.domain.model.profile import runtime_precision
from perftui.domain.records import RunResult

INT8_ISA = ("avx512_vnni", "avx_vnni", "amx_int8")
"""Instructions with an 8-bit dot product (VNNI, AMX): without one, an INT8 convolution
widens to 16 bits and is often no faster than FP32."""
BF16_ISA = ("avx512_bf16", "amx_bf16")
F16_ISA = ("avx512_fp16", "amx_fp16")
NATIVE = {
    "bf16": (BF16_ISA, "AVX-512 BF16 or AMX-BF16"),
    "f16": (F16_ISA, "AVX-512 FP16 or AMX-FP16"),
}
"""Per precision a run may request: the instructions that compute it natively, in words."""


LOWER_PRECISIONS = ("bf16", "f16")
"""Inference precisions below f32 that an engine may choose by itself for a float model."""
UNSAID = "?"
"""What `ran_precision` says of a run whose engine did not report its precision."""
MODEL_TYPES = "model"
"""What ONNX Runtime reports: each op runs in the model's own types."""


def ran_precision(run: RunResult) -> str:
    """The inference precision the engine ran `run` at, as the engine resolved it: 'f32',
    'bf16', 'f16'; 'model' where ONNX Runtime runs each op in the model's own types;
    `UNSAID` where the run does not say (an import, a failed run)."""
    value = (run.resolved or {}).get("precision")
    return value if isinstance(value, str) and value else UNSAID


def ran_precisions(runs: Iterable[RunResult]) -> str:
    """The precisions several runs ran at, each once: 'bf16', or 'bf16/f32' for a mix."""
    said = dict.fromkeys(ran_precision(run) for run in runs)
    return "/".join(said) if said else UNSAID


PRECISION_WORDS = {"f32": "FP32", "f16": "FP16", "bf16": "BF16", "i8": "I8", "u8": "U8"}
"""The engines' names of a precision in the profiles' words, which every table shows."""
EIGHT_BIT = ("I8", "U8")


def precision_text(said: str, int8: bool = False) -> str:
    """A precision run as every table and line writes it, whether it came from a profile
    ('I8/FP32') or from the engine's setting ('bf16' -> 'BF16'); for an INT8 model (`int8`)
    that the engine's word alone describes, 'I8/BF16': its quantized layers run in 8 bits,
    the others at the engine's precision. 'model' (ONNX Runtime: each op in the model's own
    types) and `UNSAID` stay."""
    text = "/".join(PRECISION_WORDS.get(part.lower(), part) for part in said.split("/"))
    float_only = text in PRECISION_WORDS.values() and text not in EIGHT_BIT
    return f"I8/{text}" if int8 and float_only else text


def precision_run(runs: Sequence[RunResult], int8: bool = False) -> str:
    """What the engine ran `runs` (one run, or a configuration's repetitions) at, the one way
    every table writes it: the engine's inference precision as the newest successful run
    reports it, in `precision_text`'s words ('BF16'; 'I8/BF16' for an INT8 model), so that
    runs that ran alike read alike whether or not they were profiled; where ONNX Runtime
    runs each op in the model's own types ('model'), the newest profile's layer precisions
    when there is one ('I8/FP32'); `UNSAID` where no run says."""
    said = [run for run in runs if run.status == "ok" and ran_precision(run) != UNSAID]
    newest = max(said, key=lambda run: run.started_at or "", default=None)
    ran = ran_precision(newest) if newest is not None else UNSAID
    profiled = [run for run in runs if run.layers]
    if ran == MODEL_TYPES and profiled:
        return precision_text(runtime_precision(profiled))
    return precision_text(ran, int8)


def model_is_int8(runs: Iterable[RunResult], project_notes: Mapping[str, Any]) -> bool:
    """True for a project that perftui quantized (its notes say so), or whose profiled runs
    executed 8-bit integer layers: what is at hand without reading the model again."""
    if "optimization" in project_notes:
        return True
    return any(
        layer.status == "executed" and layer.precision in INT8_PRECISIONS
        for run in runs
        for layer in run.layers or ()
    )


def _on_cpu(resolved: Mapping[str, Any]) -> bool:
    devices = resolved.get("execution_devices") or [resolved.get("device") or "CPU"]
    return any(str(device).upper().startswith("CPU") for device in devices)


def precision_notes(
    isa: Sequence[str], requested: str | None, ran: str | None, int8: bool
) -> list[str]:
    """Notes for a run on a CPU with the ISA flags `isa` (empty: unknown) that asked for
    precision `requested` (None: the engine's default), ran at `ran` (the engine's resolved
    inference precision; None or "model" where it does not say) and measured an INT8 model
    when `int8`."""
    notes = []
    if requested is None and ran in LOWER_PRECISIONS:
        notes.append(
            f"ran in {ran}, the engine's default on this CPU, not f32"
            f"{' (the non-INT8 layers)' if int8 else ''}: measure with precision f32"
            " for FP32 figures"
        )
    if int8 and isa and not any(flag in isa for flag in INT8_ISA):
        notes.append(
            "no VNNI on this CPU (avx512_vnni, avx_vnni or amx_int8): INT8 convolutions may "
            "not be faster than FP32"
        )
    if requested not in NATIVE:
        return notes
    flags, words = NATIVE[requested]
    lacking = f"no {words} on this CPU" if isa and not any(f in isa for f in flags) else ""
    if ran not in (None, "model", requested):
        notes.append(
            f"{requested} was requested but the engine ran {ran}"
            + (f" ({lacking})" if lacking else "")
        )
    elif ran == requested and lacking:
        notes.append(f"{lacking}: {requested} is emulated and may be no faster than f32")
    return notes


def coverage_note(run: RunResult, isa: Sequence[str]) -> str | None:
    """For a profiled INT8 run: how much of its time ran in 8-bit layers, what stayed in
    float, and whether this CPU has the instructions that make INT8 pay."""
    coverage = int8_coverage(run.layers or ())
    if coverage is None:
        return None
    have = [flag for flag in INT8_ISA if flag in isa]
    cpu = f"; this CPU has {', '.join(have)}" if have else ""
    return f"INT8: {coverage.text()}{cpu}"


def run_isa(run: RunResult) -> list[str]:
    """The ISA flags recorded with a run on a CPU (empty: unknown, or not on a CPU)."""
    resolved = run.resolved or {}
    env = resolved.get("environment") or {}
    return [str(flag) for flag in env.get("isa") or ()] if _on_cpu(resolved) else []


def run_notes(run: RunResult, int8: bool) -> tuple[str, ...]:
    """The context notes of one run (model_is_int8 says whether its model is INT8)."""
    ran = (run.resolved or {}).get("precision")
    isa = run_isa(run)
    notes = precision_notes(isa, run.config.precision, ran if isinstance(ran, str) else None, int8)
    coverage = coverage_note(run, isa) if int8 else None
    return (*notes, coverage) if coverage else tuple(notes)


def runs_notes(runs: Iterable[RunResult], int8: bool) -> list[str]:
    """The context notes of several runs (a configuration's repetitions), each once."""
    return list(dict.fromkeys(note for run in runs for note in run_notes(run, int8)))
