"""Small models for the optimize tests, built with onnx.helper (no downloads, no torch)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def old_opset_cnn(path: Path, opset: int = 9) -> Path:
    """A model-zoo style CNN of ONNX IR version 3 and opset `opset`: every weight is also a
    graph input (with an initializer); the convolution's weights are made by ConstantOfShape
    from ``__SHAPE`` initializers as in the model zoo's light models (two of them equal, which
    ONNX Runtime's optimizer merges, leaving a ``__SHAPE`` input without its initializer); the
    Reshape takes its shape from an initializer-backed input. ONNX Runtime's static
    quantization stopped on it with ``Required inputs (['conv_b__SHAPE']) are missing``."""
    rng = np.random.default_rng(0)
    weights = {
        "conv_w__SHAPE": np.array([4, 3, 3, 3], np.int64),
        "conv_b__SHAPE": np.array([4], np.int64),
        "bn_scale__SHAPE": np.array([4], np.int64),
        "bn_bias": rng.standard_normal(4).astype(np.float32) * 0.1,
        "bn_mean": rng.standard_normal(4).astype(np.float32) * 0.1,
        "bn_var": rng.uniform(0.5, 1.5, 4).astype(np.float32),
        "flat_shape": np.array([1, -1], np.int64),
        "fc_w": rng.standard_normal((10, 64)).astype(np.float32) * 0.1,
        "fc_b": rng.standard_normal(10).astype(np.float32) * 0.1,
    }
    nodes = [
        helper.make_node(
            "ConstantOfShape",
            [f"{name}__SHAPE"],
            [name],
            value=numpy_helper.from_array(np.array([value], np.float32)),
        )
        for name, value in (("conv_w", 0.05), ("conv_b", 1.0), ("bn_scale", 1.0))
    ] + [
        helper.make_node("Conv", ["data", "conv_w", "conv_b"], ["conv"], pads=[1, 1, 1, 1]),
        helper.make_node(
            "BatchNormalization", ["conv", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["bn"]
        ),
        helper.make_node("Relu", ["bn"], ["relu"]),
        helper.make_node("MaxPool", ["relu"], ["pool"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Reshape", ["pool", "flat_shape"], ["flat"]),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["prob"]),
    ]
    inputs = [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, 8, 8])]
    inputs += [
        helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for name, a in weights.items()
    ]
    graph = helper.make_graph(
        nodes,
        "old_cnn",
        inputs,
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 10])],
        initializer=[numpy_helper.from_array(a, name) for name, a in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 3
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path
