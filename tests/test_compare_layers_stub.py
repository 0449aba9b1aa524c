"""The kernel-level join pairs an executed layer with the executed layer that carries its
name, never with a not-run stub of the same name (a 6-layer encoder, FP32 vs INT8, on
OpenVINO: A's FullyConnected '.../dense/Add', 2.32 ms, met B's 0.000 ms stub)."""

from __future__ import annotations

from perftui.domain.compare import join_layers
from perftui.domain.records import LayerProfile

NAME = "/encoder/layer.0/intermediate/dense/Add"


def test_an_executed_layer_pairs_with_the_executed_layer_carrying_its_name():
    a = [LayerProfile(NAME, "FullyConnected", "brgemm_avx512_FP32", "FP32", "executed", 2.32)]
    b = [
        LayerProfile(NAME, "Add", "undef", "FP32", "not_run", 0.0),
        LayerProfile(
            "/encoder/layer.0/intermediate/dense/MatMul/fq_weights_1",
            "FullyConnected",
            "brgemm_avx512_amx_I8",
            "I8",
            "executed",
            0.61,
            (NAME, "/encoder/layer.0/intermediate/dense/MatMul"),
        ),
    ]
    pairs = join_layers(a, b)
    both = [p for p in pairs if p.a is not None and p.b is not None]
    assert len(both) == 1 and both[0].b is b[1] and both[0].matched_by == "original name"
    assert [p.b for p in pairs if p.a is None] == [b[0]]  # the stub is B's alone


def test_a_stub_still_pairs_by_name_when_nothing_executed_carries_it():
    a = [LayerProfile("x/Add", "Add", "undef", "FP32", "not_run", 0.0)]
    b = [LayerProfile("x/Add", "Add", "undef", "FP32", "not_run", 0.0)]
    [pair] = join_layers(a, b)
    assert pair.a is a[0] and pair.b is b[0] and pair.matched_by == "name"
