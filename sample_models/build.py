"""Build the small sample models shipped with perftui (deterministic, seeded, offline).

    python sample_models/build.py            # writes the models next to this file
    python sample_models/build.py --check    # also verifies them in ONNX Runtime and OpenVINO

Models written (see README.md in this folder):
  mobilenet_fp32.onnx               MobileNet-V1 0.25, input `input` [batch,3,224,224] -> `logits`
  mobilenet_int8.onnx               the same network statically quantized (QDQ, per-channel)
  mobilenet_fp32.xml / .bin         the FP32 network as OpenVINO IR (FP32 weights, dynamic batch)
  encoder_fp32.onnx                 2-layer transformer encoder, `input_ids` [batch,seq] (int64)

Only numpy, onnx, onnxruntime and openvino are used, plus perftui's own quantization recipe
(perftui/optimize/quantize.py, shared with `perftui optimize`); nothing is downloaded.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent
OPSET = 17
SEED = 20240607
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


# --------------------------------------------------------------------------- INT8
def quantize_mobilenet(fp32_path: Path, int8_path: Path, seed: int) -> None:
    """Static QDQ INT8 on 16 seeded random images, with the recipe `perftui optimize` uses
    (perftui/optimize/quantize.py: per-channel weights, MinMax calibration, BN folded first)."""
    if str(HERE.parent) not in sys.path:  # run as a script from a checkout
        sys.path.insert(0, str(HERE.parent))
    from perftui.optimize.quantize import quantize_static_qdq

    rng = np.random.default_rng(seed)
    samples = [
        {"input": rng.standard_normal((1, 3, 224, 224)).astype(np.float32)} for _ in range(16)
    ]
    quantize_static_qdq(fp32_path, int8_path, samples)
    model = onnx.load(str(int8_path))
    model.producer_name = PRODUCER
    model.doc_string = "MobileNet-V1 x0.25, static INT8 (QDQ, per-channel, onnxruntime)"
    onnx.checker.check_model(model)
    onnx.save(model, str(int8_path))


# --------------------------------------------------------------------------- OpenVINO IR
def save_ir(onnx_path: Path, xml_path: Path) -> None:
    import openvino as ov

    model = ov.convert_model(str(onnx_path))
    # The converter folds BatchNormalization into the Conv weights and names the fused
    # convolution after an internal Multiply; give it back its ONNX name ("block3/dw/Conv").
    for op in model.get_ordered_ops():
        if op.get_type_name() not in ("Convolution", "GroupConvolution"):
            continue
        consumers = op.output(0).get_target_inputs()
        names = [c.get_node().get_friendly_name() for c in consumers]
        if len(names) == 1 and names[0].endswith("/BatchNormalization"):
            prefix = names[0].removesuffix("/BatchNormalization")
            op.set_friendly_name(f"{prefix}/Conv")
            op.input_value(1).get_node().set_friendly_name(f"{prefix}/weight")
    ov.save_model(model, str(xml_path), compress_to_fp16=False)


# --------------------------------------------------------------------------- verification
def _feeds(name: str, batch: int, seq: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    if name.startswith("encoder"):
        return {"input_ids": rng.integers(0, VOCAB, (batch, seq), dtype=np.int64)}
    return {"input": rng.standard_normal((batch, 3, 224, 224)).astype(np.float32)}


def verify(paths: list[Path]) -> list[str]:
    """Run every model in ONNX Runtime and OpenVINO CPU; return report lines."""
    import onnxruntime as ort
    import openvino as ov

    core = ov.Core()
    lines = []
    for path in paths:
        cases = (
            [(1, 16), (4, 16), (1, 128), (4, 128)] if "encoder" in path.name else [(1, 0), (4, 0)]
        )
        if path.suffix == ".onnx":
            onnx.checker.check_model(str(path))
            so = ort.SessionOptions()
            so.log_severity_level = 3
            sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        compiled = core.compile_model(str(path), "CPU")
        for batch, seq in cases:
            feeds = _feeds(path.name, batch, seq)
            ov_out = next(iter(compiled(feeds).values()))
            assert np.isfinite(ov_out).all(), f"{path.name}: non-finite OpenVINO output"
            diff = ""
            if path.suffix == ".onnx":
                ort_out = sess.run(None, feeds)[0]
                assert ort_out.shape == ov_out.shape, (ort_out.shape, ov_out.shape)
                assert np.isfinite(ort_out).all(), f"{path.name}: non-finite ORT output"
                diff = f" max|ort-ov| {np.abs(ort_out - ov_out).max():.3g}"
            lines.append(
                f"  {path.name:<22} b{batch}{f' s{seq}' if seq else ''}: "
                f"{tuple(ov_out.shape)} std {ov_out.std():.3g}{diff}"
            )
    int8 = HERE / "mobilenet_int8.onnx"
    if int8 in paths:
        compiled = core.compile_model(str(int8), "CPU", {"PERF_COUNT": True})
        req = compiled.create_infer_request()
        req.infer(_feeds(int8.name, 1, 0))
        conv = [p for p in req.profiling_info if p.node_type in ("Convolution", "GroupConvolution")]
        i8 = [p for p in conv if "i8" in p.exec_type.lower()]
        kinds = sorted({p.exec_type for p in conv})
        lines.append(f"  OpenVINO INT8 convolutions in I8: {len(i8)}/{len(conv)} {kinds}")
    return lines


# --------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="output folder (default: here)")
    parser.add_argument("--check", action="store_true", help="verify the models after building")
    args = parser.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    warnings.filterwarnings("ignore")
    logging.getLogger().setLevel(logging.ERROR)
    os.environ.setdefault("ORT_LOG_SEVERITY_LEVEL", "3")
    start = time.perf_counter()

    fp32 = out / "mobilenet_fp32.onnx"
    onnx.save(build_mobilenet(np.random.default_rng(SEED)), str(fp32))
    int8 = out / "mobilenet_int8.onnx"
    quantize_mobilenet(fp32, int8, SEED + 1)
    xml = out / "mobilenet_fp32.xml"
    save_ir(fp32, xml)
    enc = out / "encoder_fp32.onnx"
    onnx.save(build_encoder(np.random.default_rng(SEED + 2)), str(enc))

    written = [fp32, int8, xml, xml.with_suffix(".bin"), enc]
    for path in written:
        print(
            f"wrote {path.relative_to(out.parent) if out == HERE else path} "
            f"({path.stat().st_size / 1e6:.2f} MB)"
        )
    if args.check:
        print("\n".join(verify([fp32, int8, xml, enc])))
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
