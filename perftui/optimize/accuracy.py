"""How far the INT8 model's outputs are from the FP32 model's, on the same inputs.

Per output, over all samples (each run at batch 1):
- ``max_abs_diff``: the largest |int8 - fp32| of any element;
- ``mean_abs_diff``: the mean |int8 - fp32| over all elements;
- ``cosine_similarity``: the mean over samples of the cosine between the flattened FP32 and INT8
  outputs (1.0 = same direction; two all-zero outputs count as 1.0, one all-zero as 0.0), and
  ``cosine_min``, the worst sample;
- ``top1_agreement``: for classifier-shaped outputs (``[N, classes]``, classes >= 2), the share of
  rows whose arg-max class is the same (``top1_matches`` of ``top1_rows``); None otherwise.

The report's headline figures are the worst over outputs (max diff, lowest cosine, lowest top-1
agreement) and the element-weighted mean difference. Metrics are pure numpy; `measure_accuracy`
runs both models on the project's engine and device (perftui.optimize.on_engine).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from perftui.domain.errors import InputError
from perftui.optimize.on_engine import open_model
from perftui.optimize.quantize import Progress, error_line, quiet

COSINE_FLOOR = 0.99
"""Outputs whose cosine to FP32's is under this are far enough off to question the model
(the sample models' INT8 give 0.999 and more; GPT-2 with random calibration gave 0.68)."""
TOP1_FLOOR = 0.9
"""A classifier whose INT8 top-1 agrees with FP32's on fewer than this share of samples."""
NEAR_ZERO = 1e-6
"""FP32 outputs whose largest magnitude is under this hold no direction for a cosine."""
FLAT = 1e-6
"""FP32 outputs whose spread within every sample is under this share of their magnitude are
constant (a flat softmax): neither a cosine nor an arg-max can judge them."""


@dataclass(frozen=True)
class OutputAccuracy:
    """FP32 vs INT8 figures of one model output."""

    name: str
    shape: tuple[int, ...]
    elements: int
    max_abs_diff: float
    mean_abs_diff: float
    cosine_similarity: float
    cosine_min: float
    top1_agreement: float | None = None
    top1_matches: int | None = None
    top1_rows: int | None = None
    unjudged: str = ""
    """Why the cosine and top-1 cannot judge this output ('' when they can)."""

    def cosine_text(self) -> str:
        return "cannot judge" if self.unjudged else f"{self.cosine_similarity:.4f}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "unjudged": self.unjudged or None,
            "name": self.name,
            "shape": list(self.shape),
            "elements": self.elements,
            "max_abs_diff": self.max_abs_diff,
            "mean_abs_diff": self.mean_abs_diff,
            "cosine_similarity": self.cosine_similarity,
            "cosine_min": self.cosine_min,
            "top1_agreement": self.top1_agreement,
            "top1_matches": self.top1_matches,
            "top1_rows": self.top1_rows,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OutputAccuracy:
        def opt(key: str, kind: type) -> Any:
            value = data.get(key)
            return None if value is None else kind(value)

        return cls(
            name=str(data["name"]),
            shape=tuple(int(d) for d in data.get("shape") or ()),
            elements=int(data.get("elements", 0)),
            max_abs_diff=float(data["max_abs_diff"]),
            mean_abs_diff=float(data["mean_abs_diff"]),
            cosine_similarity=float(data["cosine_similarity"]),
            cosine_min=float(data.get("cosine_min", data["cosine_similarity"])),
            top1_agreement=opt("top1_agreement", float),
            top1_matches=opt("top1_matches", int),
            top1_rows=opt("top1_rows", int),
            unjudged=str(data.get("unjudged") or ""),
        )


@dataclass(frozen=True)
class AccuracyReport:
    """FP32 vs INT8 on `samples` inputs; `inputs` says which ("calibration" | "held-out");
    `reference_precision` is the precision the FP32 reference ran at ('f32', or 'model' on
    ONNX Runtime; '' in reports stored before it was recorded)."""

    inputs: str
    samples: int
    outputs: tuple[OutputAccuracy, ...]
    reference_precision: str = ""

    @property
    def max_abs_diff(self) -> float:
        return max((o.max_abs_diff for o in self.outputs), default=0.0)

    @property
    def mean_abs_diff(self) -> float:
        total = sum(o.elements for o in self.outputs)
        if not total:
            return 0.0
        return sum(o.mean_abs_diff * o.elements for o in self.outputs) / total

    @property
    def judged(self) -> tuple[OutputAccuracy, ...]:
        """The outputs the cosine and top-1 can judge."""
        return tuple(o for o in self.outputs if not o.unjudged)

    @property
    def cosine_similarity(self) -> float | None:
        """The lowest cosine of the judged outputs; None when none can be judged."""
        return min((o.cosine_similarity for o in self.judged), default=None)

    def cosine_text(self) -> str:
        """'0.9990', or 'cannot judge (why)' when no output can be judged."""
        if self.cosine_similarity is not None:
            return f"{self.cosine_similarity:.4f}"
        reason = self.outputs[0].unjudged if self.outputs else "no outputs"
        return f"cannot judge ({reason})"

    @property
    def top1_agreement(self) -> float | None:
        found = [o.top1_agreement for o in self.judged if o.top1_agreement is not None]
        return min(found) if found else None

    def to_dict(self) -> dict[str, Any]:
        """The `accuracy` object of `perftui optimize --json` and of the project's notes."""
        return {
            "inputs": self.inputs,
            "samples": self.samples,
            "max_abs_diff": self.max_abs_diff,
            "mean_abs_diff": self.mean_abs_diff,
            "cosine_similarity": self.cosine_similarity,
            "top1_agreement": self.top1_agreement,
            "caution": self.caution(),
            "reference_precision": self.reference_precision,
            "outputs": [o.to_dict() for o in self.outputs],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AccuracyReport:
        return cls(
            inputs=str(data.get("inputs", "")),
            samples=int(data.get("samples", 0)),
            outputs=tuple(OutputAccuracy.from_dict(o) for o in data.get("outputs") or ()),
            reference_precision=str(data.get("reference_precision") or ""),
        )

    def caution(self) -> str | None:
        """What the speed of an INT8 model whose outputs stray from FP32's is worth, in one
        line; None when they agree (cosine >= COSINE_FLOOR, top-1 >= TOP1_FLOOR)."""
        top1, cosine = self.top1_agreement, self.cosine_similarity
        strays = (cosine is not None and cosine < COSINE_FLOOR) or (
            top1 is not None and top1 < TOP1_FLOOR
        )
        if not self.outputs or not strays:
            return None
        found = f"cosine {self.cosine_text()}"
        if top1 is not None:
            found += f", top-1 agreement {100 * top1:.0f}%"
        return (
            f"the INT8 outputs stray from FP32's ({found}): its speed is that of a model that "
            "may not be usable; quantize with real samples (--calibration DIR) or keep FP32"
        )

    def summary(self) -> str:
        """One line, e.g. 'max |diff| 0.21, mean |diff| 0.031, cosine 0.9990, top-1 100% (8/8)'."""
        parts = [
            f"max |diff| {self.max_abs_diff:.3g}",
            f"mean |diff| {self.mean_abs_diff:.3g}",
            f"cosine {self.cosine_text()}",
        ]
        classifier = [o for o in self.judged if o.top1_agreement is not None]
        if classifier:
            worst = min(classifier, key=lambda o: o.top1_agreement or 0.0)
            parts.append(
                f"top-1 agreement {100 * (worst.top1_agreement or 0.0):.0f}%"
                f" ({worst.top1_matches}/{worst.top1_rows})"
            )
        if self.reference_precision:
            parts.append(f"against the FP32 model run in {self.reference_precision}")
        return ", ".join(parts)


# --------------------------------------------------------------------------- metrics
def _fmt(shape: Sequence[int]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def cosine_similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine between two arrays, flattened (float64); 1.0 if both are all zero, 0.0 if one is."""
    x = np.asarray(a, dtype=np.float64).ravel()
    y = np.asarray(b, dtype=np.float64).ravel()
    nx, ny = float(np.linalg.norm(x)), float(np.linalg.norm(y))
    if nx == 0.0 or ny == 0.0:
        return 1.0 if nx == ny else 0.0
    return float(np.clip(np.dot(x, y) / (nx * ny), -1.0, 1.0))


def is_classifier(shape: Sequence[int]) -> bool:
    """An output of shape [N, classes] with at least two classes."""
    return len(shape) == 2 and shape[1] >= 2


def top1_matches(a: np.ndarray, b: np.ndarray) -> int:
    """Rows of two [N, classes] arrays whose arg-max class is the same."""
    return int(np.count_nonzero(np.argmax(a, axis=1) == np.argmax(b, axis=1)))


def compare_output(
    name: str, reference: Sequence[np.ndarray], candidate: Sequence[np.ndarray]
) -> OutputAccuracy:
    """Figures of one output from its per-sample FP32 (`reference`) and INT8 arrays.

    InputError when the lists differ in length, a pair differs in shape, or an array holds
    NaN/infinity (FP32: the inputs make no sense for the model; INT8: quantization broke it).
    """
    if len(reference) != len(candidate) or not reference:
        raise InputError(
            f"output {name!r}: {len(reference)} FP32 results vs {len(candidate)} INT8 results"
        )
    max_diff = 0.0
    abs_sum = 0.0
    elements = 0
    cosines: list[float] = []
    matches = rows = 0
    classifier = True
    for ref, got in zip(reference, candidate, strict=True):
        ref64 = np.asarray(ref, dtype=np.float64)
        got64 = np.asarray(got, dtype=np.float64)
        if ref64.shape != got64.shape:
            raise InputError(
                f"output {name!r} has shape {_fmt(got64.shape)} in the INT8 model but"
                f" {_fmt(ref64.shape)} in the FP32 model"
            )
        if not np.isfinite(ref64).all():
            raise InputError(
                f"the FP32 model's output {name!r} has NaN or infinity on these inputs;"
                " accuracy cannot be checked (use --calibration with real data)"
            )
        if not np.isfinite(got64).all():
            raise InputError(
                f"the INT8 model's output {name!r} has NaN or infinity where the FP32 model's"
                " has none; quantization broke the model"
            )
        diff = np.abs(got64 - ref64)
        if diff.size:
            max_diff = max(max_diff, float(diff.max()))
        abs_sum += float(diff.sum())
        elements += int(diff.size)
        cosines.append(cosine_similarity(ref64, got64))
        if is_classifier(ref64.shape):
            matches += top1_matches(ref64, got64)
            rows += ref64.shape[0]
        else:
            classifier = False
    unjudged = _unjudged(reference)
    agreement = matches / rows if classifier and rows and not unjudged else None
    return OutputAccuracy(
        name=name,
        shape=tuple(int(d) for d in np.shape(reference[0])),
        elements=elements,
        max_abs_diff=max_diff,
        mean_abs_diff=abs_sum / elements if elements else 0.0,
        cosine_similarity=float(np.mean(cosines)),
        cosine_min=float(np.min(cosines)),
        top1_agreement=agreement,
        top1_matches=matches if agreement is not None else None,
        top1_rows=rows if agreement is not None else None,
        unjudged=unjudged,
    )


def _unjudged(reference: Sequence[np.ndarray]) -> str:
    """Why FP32 outputs this degenerate cannot judge the INT8 ones ('' when they can)."""
    arrays = [np.asarray(ref, dtype=np.float64).ravel() for ref in reference]
    peak = max((float(np.abs(a).max()) for a in arrays if a.size), default=0.0)
    if peak < NEAR_ZERO:
        return f"the FP32 outputs are near zero, at most {peak:.1e}"
    if all(float(np.ptp(a)) <= FLAT * peak for a in arrays if a.size):
        return f"the FP32 outputs are constant ({float(arrays[0][0]):.4g} everywhere)"
    return ""


def compare_outputs(
    names: Sequence[str],
    reference: Sequence[Sequence[np.ndarray]],
    candidate: Sequence[Sequence[np.ndarray]],
    inputs: str,
) -> AccuracyReport:
    """A report from per-sample output lists (sample -> one array per name, in `names` order)."""
    outputs = tuple(
        compare_output(
            name, [sample[i] for sample in reference], [sample[i] for sample in candidate]
        )
        for i, name in enumerate(names)
    )
    return AccuracyReport(inputs=inputs, samples=len(reference), outputs=outputs)


# --------------------------------------------------------------------------- runner
def measure_accuracy(
    fp32: str | Path,
    int8: str | Path,
    samples: Sequence[Mapping[str, np.ndarray]],
    inputs: str,
    progress: Progress | None = None,
    *,
    engine: str,
    device: str = "CPU",
    shapes: Mapping[str, tuple[int, ...]] | None = None,
) -> AccuracyReport:
    """Run both models on `engine`/`device` (the project's) on every sample and compare their
    outputs; `shapes` are the samples' static shapes (OpenVINO compiles for them).

    `progress` gets ("checking accuracy", i, n) after sample i. InputError (one line) when a
    model does not load or run, or when the outputs cannot be compared.
    """
    if not samples:
        raise InputError("the accuracy check needs at least one sample")
    report = progress or (lambda phase, done, total: None)
    with quiet():
        reference = open_model(fp32, engine, device, shapes or {}, "FP32", exact=True)
        candidate = open_model(int8, engine, device, shapes or {}, "INT8")
        names = list(reference.outputs)
        index = {name: i for i, name in enumerate(candidate.outputs)}
        missing = [name for name in names if name not in index]
        if missing:
            raise InputError(f"the INT8 model has no output {missing[0]!r}; quantization broke it")
        ref_out: list[list[np.ndarray]] = []
        new_out: list[list[np.ndarray]] = []
        for number, feeds in enumerate(samples, start=1):
            for model, order, out, what in (
                (reference, range(len(names)), ref_out, "FP32"),
                (candidate, [index[name] for name in names], new_out, "INT8"),
            ):
                try:
                    results = model.run(feeds)
                except Exception as exc:
                    raise InputError(
                        f"the {what} model failed on sample {number}: {error_line(exc)}"
                    ) from None
                out.append([results[i] for i in order])
            report("checking accuracy", number, len(samples))
    found = compare_outputs(names, ref_out, new_out, inputs)
    return replace(found, reference_precision=reference.precision)
