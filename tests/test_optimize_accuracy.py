"""FP32 vs INT8 accuracy figures (pure numpy metrics)."""

from __future__ import annotations

import numpy as np
import pytest

from perftui.domain.errors import InputError
from perftui.optimize.accuracy import (
    AccuracyReport,
    OutputAccuracy,
    compare_output,
    compare_outputs,
    cosine_similarity,
    is_classifier,
    top1_matches,
)


def test_cosine_similarity():
    a = np.array([1.0, 2.0, 3.0])
    assert cosine_similarity(a, a * 5) == pytest.approx(1.0)
    assert cosine_similarity(a, -a) == pytest.approx(-1.0)
    assert cosine_similarity(np.array([1.0, 0.0]), np.array([0.0, 1.0])) == pytest.approx(0.0)
    assert cosine_similarity(np.zeros(3), np.zeros(3)) == 1.0
    assert cosine_similarity(np.zeros(3), a) == 0.0
    assert cosine_similarity(a.reshape(1, 3), a.astype(np.float16)) == pytest.approx(1.0)


def test_classifier_shape_and_top1():
    assert is_classifier((1, 1000)) and is_classifier((4, 2))
    assert not is_classifier((1, 1)) and not is_classifier((1, 16, 128)) and not is_classifier((8,))
    a = np.array([[0.1, 0.9, 0.0], [0.8, 0.1, 0.1], [0.2, 0.3, 0.5]])
    b = np.array([[0.0, 1.0, 0.0], [0.1, 0.8, 0.1], [0.0, 0.0, 1.0]])
    assert top1_matches(a, b) == 2


def test_compare_output_figures_by_hand():
    ref = [np.array([[1.0, 2.0, 3.0, 4.0]]), np.array([[4.0, 3.0, 2.0, 1.0]])]
    got = [np.array([[1.0, 2.5, 3.0, 4.0]]), np.array([[2.0, 4.5, 2.0, 1.0]])]
    out = compare_output("logits", ref, got)
    assert out.shape == (1, 4) and out.elements == 8
    assert out.max_abs_diff == pytest.approx(2.0)
    assert out.mean_abs_diff == pytest.approx((0.5 + 2.0 + 1.5) / 8)
    cos = [cosine_similarity(r, g) for r, g in zip(ref, got, strict=True)]
    assert out.cosine_similarity == pytest.approx(np.mean(cos))
    assert out.cosine_min == pytest.approx(min(cos)) and out.cosine_min < 1.0
    assert out.top1_agreement == 0.5 and (out.top1_matches, out.top1_rows) == (1, 2)


def test_non_classifier_outputs_have_no_top1():
    ref = [np.ones((1, 4, 8), np.float32)]
    out = compare_output("hidden", ref, [r + 0.25 for r in ref])
    assert out.top1_agreement is None and out.top1_matches is None and out.top1_rows is None
    assert out.max_abs_diff == pytest.approx(0.25) and out.cosine_similarity == pytest.approx(1.0)


def test_shape_mismatch_and_non_finite_outputs_are_errors():
    ref = [np.zeros((1, 4))]
    with pytest.raises(InputError, match=r"shape \[1,5\] in the INT8 model but \[1,4\]"):
        compare_output("y", ref, [np.zeros((1, 5))])
    with pytest.raises(InputError, match="FP32 model's output 'y' has NaN"):
        compare_output("y", [np.full((1, 4), np.nan)], ref)
    with pytest.raises(InputError, match=r"INT8 model's output 'y' has NaN.*broke"):
        compare_output("y", ref, [np.full((1, 4), np.inf)])
    with pytest.raises(InputError, match="1 FP32 results vs 0 INT8"):
        compare_output("y", ref, [])


def test_report_headline_is_the_worst_output_and_round_trips():
    aux = np.array([[1.0, 2.0, 3.0]])
    samples_ref = [[np.array([[0.0, 1.0]]), aux] for _ in range(4)]
    samples_new = [[np.array([[0.2, 0.9]]), aux + 0.5] for _ in range(4)]
    samples_new[0][0] = np.array([[1.0, 0.0]])  # one top-1 flip
    report = compare_outputs(["logits", "aux"], samples_ref, samples_new, "held-out")
    assert report.samples == 4 and [o.name for o in report.outputs] == ["logits", "aux"]
    assert report.max_abs_diff == pytest.approx(1.0)
    logits, aux = report.outputs
    assert aux.top1_agreement == 1.0 and logits.top1_agreement == 0.75
    assert report.top1_agreement == 0.75
    assert report.cosine_similarity == min(logits.cosine_similarity, aux.cosine_similarity)
    weighted = (logits.mean_abs_diff * 8 + aux.mean_abs_diff * 12) / 20
    assert report.mean_abs_diff == pytest.approx(weighted)
    doc = report.to_dict()
    assert doc.keys() == {
        "inputs",
        "samples",
        "max_abs_diff",
        "mean_abs_diff",
        "cosine_similarity",
        "top1_agreement",
        "caution",
        "reference_precision",
        "outputs",
    }
    assert AccuracyReport.from_dict(doc) == report
    assert "top-1 agreement 75% (3/4)" in report.summary()


def test_report_without_classifier_outputs():
    report = compare_outputs(["h"], [[np.ones((1, 2, 3))]], [[np.ones((1, 2, 3))]], "calibration")
    assert report.top1_agreement is None and report.max_abs_diff == 0.0
    assert "top-1" not in report.summary() and report.to_dict()["top1_agreement"] is None


def report(cosine: float, top1: float | None = None) -> AccuracyReport:
    out = OutputAccuracy("logits", (1, 10), 10, 0.1, 0.01, cosine, cosine, top1, None, None)
    return AccuracyReport("held-out", 8, (out,))


def test_outputs_that_stray_from_fp32_carry_a_caution():
    assert report(0.9995).caution() is None
    assert report(0.9995, top1=1.0).caution() is None
    far = report(0.679).caution()
    assert far is not None and "cosine 0.6790" in far and "may not be usable" in far
    assert "top-1 agreement 50%" in (report(0.995, top1=0.5).caution() or "")
    assert report(0.679).to_dict()["caution"] == far
    assert AccuracyReport("held-out", 0, ()).caution() is None


def test_a_flat_or_near_zero_fp32_output_cannot_judge_and_says_why():
    """A flat softmax gave cosine 0.0000 beside 100 % top-1 agreement, and FP32 outputs of
    ~3e-14 a cosine of 0: figures that judge nothing."""
    flat = [np.full((1, 10), 0.1)]
    report = compare_outputs(["prob"], [flat], [[np.zeros((1, 10))]], "held-out")
    [out] = report.outputs
    assert out.unjudged.startswith("the FP32 outputs are constant")
    assert out.top1_agreement is None and report.cosine_similarity is None
    assert report.cosine_text().startswith("cannot judge (the FP32 outputs are constant")
    assert report.caution() is None and "cosine cannot judge" in report.summary()
    tiny = [np.array([[3e-14, -2e-14, 1e-14]])]
    near_zero = compare_outputs(["y"], [tiny], [[np.zeros((1, 3))]], "held-out")
    assert near_zero.outputs[0].unjudged.startswith("the FP32 outputs are near zero")
    again = AccuracyReport.from_dict(near_zero.to_dict())
    assert again.outputs[0].unjudged == near_zero.outputs[0].unjudged
    # one judged output is still the headline
    logits = [np.array([[0.1, 2.0, -1.0]])]
    mixed = compare_outputs(["prob", "logits"], [flat + logits], [[flat[0], logits[0]]], "x")
    assert mixed.cosine_similarity == pytest.approx(1.0)
