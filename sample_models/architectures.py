"""The sample models' architectures, written out as ONNX graphs with seeded weights and
checked against numpy references (sample_models/build.py writes and verifies them)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
PRODUCER = "perftui sample_models/build.py"

# MobileNet-V1 (Howard et al. 2017), width multiplier 0.25: (output channels, stride) per block.
WIDTH = 0.25
MOBILENET_BLOCKS: tuple[tuple[int, int], ...] = (
    (64, 1),
    (128, 2),
    (128, 1),
    (256, 2),
    (256, 1),
    (512, 2),
    (512, 1),
    (512, 1),
    (512, 1),
    (512, 1),
    (512, 1),
    (1024, 2),
    (1024, 1),
)
NUM_CLASSES = 1000

# Encoder hyper-parameters.
VOCAB = 1000
D_MODEL = 128
HEADS = 4
D_FF = 512
MAX_POS = 512
LAYERS = 2


# --------------------------------------------------------------------------- numpy reference ops
def _conv2d(x: np.ndarray, w: np.ndarray, stride: int, group: int) -> np.ndarray:
    """NCHW convolution with 'same'-style padding k//2 (k odd), float64, for BN statistics."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    pad = kh // 2
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    if group == 1:
        out = np.zeros((n, m, oh, ow))
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, :, i : i + stride * oh : stride, j : j + stride * ow : stride]
                out += np.einsum("nchw,mc->nmhw", patch, w[:, :, i, j], optimize=True)
        return out
    assert group == c == m and cg == 1, "only depthwise grouping is used here"
    out = np.zeros((n, m, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i : i + stride * oh : stride, j : j + stride * ow : stride]
            out += patch * w[None, :, 0, i, j, None, None]
    return out


# --------------------------------------------------------------------------- MobileNet
class _GraphBuilder:
    """Collects nodes and initializers for onnx.helper."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def init(self, name: str, array: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op: str, inputs: list[str], name: str, **attrs: object) -> str:
        out = name.replace("/", "_") + "_out"
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out


def build_mobilenet(rng: np.random.Generator) -> onnx.ModelProto:
    """MobileNet-V1 x0.25 with Conv -> BatchNormalization -> Clip(0,6) units.

    Weights use He initialisation; BatchNormalization statistics are the real per-channel
    mean/variance of each convolution's output on seeded random images (with a little noise),
    so activations stay in a sane range through the network, as in a trained model.
    """
    g = _GraphBuilder()
    clip_min = g.init("relu6/min", np.array(0.0, np.float32))
    clip_max = g.init("relu6/max", np.array(6.0, np.float32))
    stats_x = rng.standard_normal((2, 3, 224, 224))  # images for BN statistics

    def unit(
        prefix: str, x: str, xs: np.ndarray, cin: int, cout: int, k: int, stride: int, group: int
    ) -> tuple[str, np.ndarray]:
        fan_in = (cin // group) * k * k
        w = rng.standard_normal((cout, cin // group, k, k)) * np.sqrt(2.0 / fan_in)
        y = _conv2d(xs, w, stride, group)
        mean = y.mean(axis=(0, 2, 3)) * rng.uniform(0.9, 1.1, cout)
        var = y.var(axis=(0, 2, 3)) * rng.uniform(0.8, 1.25, cout) + 1e-3
        gamma = rng.uniform(0.5, 1.5, cout)
        beta = rng.normal(0.2, 0.2, cout)
        eps = 1e-3
        yb = (y - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + eps)
        yb = np.clip(yb * gamma[None, :, None, None] + beta[None, :, None, None], 0.0, 6.0)
        pad = k // 2
        out = g.node(
            "Conv",
            [x, g.init(f"{prefix}/weight", w.astype(np.float32))],
            f"{prefix}/Conv",
            kernel_shape=[k, k],
            strides=[stride, stride],
            pads=[pad, pad, pad, pad],
            group=group,
        )
        bn = [
            g.init(f"{prefix}/bn/{n}", a.astype(np.float32))
            for n, a in (("scale", gamma), ("bias", beta), ("mean", mean), ("var", var))
        ]
        out = g.node("BatchNormalization", [out, *bn], f"{prefix}/BatchNormalization", epsilon=eps)
        out = g.node("Clip", [out, clip_min, clip_max], f"{prefix}/Relu6")
        return out, yb

    c = int(32 * WIDTH)
    x, xs = unit("conv1", "input", stats_x, 3, c, 3, 2, 1)
    for i, (channels, stride) in enumerate(MOBILENET_BLOCKS, start=1):
        cout = int(channels * WIDTH)
        x, xs = unit(f"block{i}/dw", x, xs, c, c, 3, stride, c)
        x, xs = unit(f"block{i}/pw", x, xs, c, cout, 1, 1, 1)
        c = cout
    x = g.node("GlobalAveragePool", [x], "pool/GlobalAveragePool")
    x = g.node("Flatten", [x], "pool/Flatten", axis=1)
    fc_w = rng.standard_normal((NUM_CLASSES, c)) * np.sqrt(1.0 / c)
    fc_b = rng.normal(0.0, 0.01, NUM_CLASSES)
    g.nodes.append(
        helper.make_node(
            "Gemm",
            [
                x,
                g.init("fc/weight", fc_w.astype(np.float32)),
                g.init("fc/bias", fc_b.astype(np.float32)),
            ],
            ["logits"],
            name="fc/Gemm",
            transB=1,
        )
    )
    graph = helper.make_graph(
        g.nodes,
        "mobilenet_v1_025",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 224, 224])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", NUM_CLASSES])],
        g.inits,
    )
    return _finish(graph, "MobileNet-V1 x0.25 (random He weights, realistic BN statistics)")


# --------------------------------------------------------------------------- encoder
def build_encoder(rng: np.random.Generator) -> onnx.ModelProto:
    """Post-LN transformer encoder (BERT-style) with GELU built from Erf (opset 17)."""
    g = _GraphBuilder()

    def lin(prefix: str, x: str, din: int, dout: int) -> str:
        w = rng.standard_normal((din, dout)) * np.sqrt(1.0 / din)
        b = rng.normal(0.0, 0.02, dout)
        y = g.node(
            "MatMul", [x, g.init(f"{prefix}/weight", w.astype(np.float32))], f"{prefix}/MatMul"
        )
        return g.node("Add", [y, g.init(f"{prefix}/bias", b.astype(np.float32))], f"{prefix}/Add")

    def layer_norm(prefix: str, x: str) -> str:
        scale = rng.uniform(0.8, 1.2, D_MODEL).astype(np.float32)
        bias = rng.normal(0.0, 0.05, D_MODEL).astype(np.float32)
        return g.node(
            "LayerNormalization",
            [x, g.init(f"{prefix}/scale", scale), g.init(f"{prefix}/bias", bias)],
            f"{prefix}/LayerNormalization",
            axis=-1,
            epsilon=1e-5,
        )

    head_dim = D_MODEL // HEADS
    split_heads = g.init("attn/split_shape", np.array([0, 0, HEADS, head_dim], np.int64))
    merge_heads = g.init("attn/merge_shape", np.array([0, 0, D_MODEL], np.int64))
    inv_sqrt = g.init("attn/inv_sqrt_dk", np.array(1.0 / np.sqrt(head_dim), np.float32))
    half = g.init("gelu/half", np.array(0.5, np.float32))
    one = g.init("gelu/one", np.array(1.0, np.float32))
    inv_sqrt2 = g.init("gelu/inv_sqrt2", np.array(1.0 / np.sqrt(2.0), np.float32))

    tok = rng.normal(0.0, 0.5, (VOCAB, D_MODEL)).astype(np.float32)
    pos = rng.normal(0.0, 0.1, (MAX_POS, D_MODEL)).astype(np.float32)
    x = g.node(
        "Gather", [g.init("embeddings/token", tok), "input_ids"], "embeddings/token/Gather", axis=0
    )
    seq = g.node("Shape", ["input_ids"], "embeddings/position/Shape", start=1, end=2)
    pos_slice = g.node(
        "Slice",
        [
            g.init("embeddings/position", pos),
            g.init("embeddings/position/starts", np.array([0], np.int64)),
            seq,
            g.init("embeddings/position/axes", np.array([0], np.int64)),
        ],
        "embeddings/position/Slice",
    )
    x = g.node("Add", [x, pos_slice], "embeddings/Add")
    x = layer_norm("embeddings/norm", x)

    for i in range(LAYERS):
        p = f"layer{i}"
        heads = {}
        for name, perm in (("query", [0, 2, 1, 3]), ("key", [0, 2, 3, 1]), ("value", [0, 2, 1, 3])):
            y = lin(f"{p}/attn/{name}", x, D_MODEL, D_MODEL)
            y = g.node("Reshape", [y, split_heads], f"{p}/attn/{name}/Reshape")
            heads[name] = g.node("Transpose", [y], f"{p}/attn/{name}/Transpose", perm=perm)
        s = g.node("MatMul", [heads["query"], heads["key"]], f"{p}/attn/scores/MatMul")
        s = g.node("Mul", [s, inv_sqrt], f"{p}/attn/scores/Mul")
        s = g.node("Softmax", [s], f"{p}/attn/Softmax", axis=-1)
        ctx = g.node("MatMul", [s, heads["value"]], f"{p}/attn/context/MatMul")
        ctx = g.node("Transpose", [ctx], f"{p}/attn/context/Transpose", perm=[0, 2, 1, 3])
        ctx = g.node("Reshape", [ctx, merge_heads], f"{p}/attn/context/Reshape")
        y = lin(f"{p}/attn/output", ctx, D_MODEL, D_MODEL)
        x = g.node("Add", [x, y], f"{p}/attn/residual/Add")
        x = layer_norm(f"{p}/attn/norm", x)
        h = lin(f"{p}/ffn/up", x, D_MODEL, D_FF)
        e = g.node("Mul", [h, inv_sqrt2], f"{p}/ffn/gelu/Mul")
        e = g.node("Erf", [e], f"{p}/ffn/gelu/Erf")
        e = g.node("Add", [e, one], f"{p}/ffn/gelu/Add")
        e = g.node("Mul", [h, e], f"{p}/ffn/gelu/Mul_1")
        h = g.node("Mul", [e, half], f"{p}/ffn/gelu/Mul_2")
        y = lin(f"{p}/ffn/down", h, D_FF, D_MODEL)
        x = g.node("Add", [x, y], f"{p}/ffn/residual/Add")
        x = layer_norm(f"{p}/ffn/norm", x)
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output/Identity"))
    graph = helper.make_graph(
        g.nodes,
        "transformer_encoder",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])],
        [
            helper.make_tensor_value_info(
                "last_hidden_state", TensorProto.FLOAT, ["batch", "seq", D_MODEL]
            )
        ],
        g.inits,
    )
    return _finish(
        graph,
        f"Transformer encoder: {LAYERS} layers, d_model {D_MODEL}, "
        f"{HEADS} heads, FFN {D_FF}, vocab {VOCAB} (random weights)",
    )


def _finish(graph: onnx.GraphProto, doc: str) -> onnx.ModelProto:
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name=PRODUCER,
        producer_version="1",
    )
    model.ir_version = 8  # readable by every supported onnxruntime/openvino release
    model.doc_string = doc
    onnx.checker.check_model(model, full_check=True)
    return model
