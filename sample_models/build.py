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
from architectures import PRODUCER, VOCAB, build_encoder, build_mobilenet  # this folder

HERE = Path(__file__).resolve().parent
SEED = 20240607


# --------------------------------------------------------------------------- INT8
def quantize_mobilenet(fp32_path: Path, int8_path: Path, seed: int) -> None:
    """Static QDQ INT8 on seeded random images, as many as `perftui optimize` takes without a
    calibration folder, with its recipe (perftui/optimize/quantize.py: per-channel weights,
    MinMax calibration, BN folded first)."""
    if str(HERE.parent) not in sys.path:  # run as a script from a checkout
        sys.path.insert(0, str(HERE.parent))
    from perftui.domain.limits import DEFAULT_RANDOM_SAMPLES
    from perftui.optimize.quantize import quantize_static_qdq

    rng = np.random.default_rng(seed)
    samples = [
        {"input": rng.standard_normal((1, 3, 224, 224)).astype(np.float32)}
        for _ in range(DEFAULT_RANDOM_SAMPLES)
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
