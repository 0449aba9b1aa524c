"""Model inspection on the shipped sample models, and one clear error per kind of bad file."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from perftui.domain.errors import InputError
from perftui.domain.model.model_info import ModelInfo
from perftui.inspection import inspect_model, model_format, validate_model_file
from perftui.inspection.conventions import DEFAULT_DYNAMIC_DIM

MODELS = Path(__file__).resolve().parent.parent / "sample_models"
FP32 = MODELS / "mobilenet_fp32.onnx"
INT8 = MODELS / "mobilenet_int8.onnx"
IR = MODELS / "mobilenet_fp32.xml"
ENCODER = MODELS / "encoder_fp32.onnx"

# MobileNet-V1 x0.25, written out independently of sample_models/build.py.
MOBILENET_STEM = 8
MOBILENET_BLOCKS = [  # (depthwise stride, output channels)
    (1, 16), (2, 32), (1, 32), (2, 64), (1, 64), (2, 128),
    (1, 128), (1, 128), (1, 128), (1, 128), (1, 128), (2, 256), (1, 256),
]  # fmt: skip


def mobilenet_macs() -> tuple[int, int]:
    """(conv + fc multiply-accumulates at 224x224 batch 1, parameter count)."""
    size, c = 112, MOBILENET_STEM
    macs = size * size * c * 3 * 3 * 3
    params = c * 3 * 3 * 3 + 4 * c
    for stride, cout in MOBILENET_BLOCKS:
        size //= stride
        macs += size * size * c * 9  # depthwise 3x3: one input channel per output channel
        macs += size * size * cout * c  # pointwise 1x1
        params += c * 9 + 4 * c + cout * c + 4 * cout
        c = cout
    macs += c * 1000
    params += c * 1000 + 1000
    return macs, params


def encoder_macs(batch: int, seq: int, d: int = 128, ff: int = 512, layers: int = 2) -> int:
    """Q, K, V, output projections + QK^T + attention x V + the two FFN matmuls."""
    per_layer = 4 * seq * d * d + 2 * seq * seq * d + 2 * seq * d * ff
    return batch * layers * per_layer


@pytest.fixture(scope="module")
def fp32() -> ModelInfo:
    return inspect_model(str(FP32))


def test_model_format() -> None:
    assert model_format("a/b.onnx") == "onnx"
    assert model_format("B.XML") == "openvino-ir"
    with pytest.raises(InputError, match=r"unsupported model file type '\.pt'"):
        model_format("model.pt")
    with pytest.raises(InputError, match=r"pass the \.xml"):
        model_format("model.bin")


def test_mobilenet_fp32(fp32: ModelInfo) -> None:
    macs, params = mobilenet_macs()
    assert fp32.format == "onnx"
    assert fp32.inputs[0].name == "input"
    assert fp32.inputs[0].dtype == "float32"
    assert fp32.inputs[0].shape == ("batch", 3, 224, 224)
    assert fp32.inputs[0].dynamic_dims == (0,)
    assert fp32.outputs[0].shape == ("batch", 1000)
    assert fp32.op_counts["Conv"] == 27
    assert fp32.op_counts["BatchNormalization"] == 27
    assert fp32.op_counts["Gemm"] == 1
    assert fp32.parameters == params + 2  # + the Relu6 clip bounds (two float scalars)
    assert fp32.parameter_bytes == 4 * fp32.parameters
    assert 1.8e6 < fp32.parameter_bytes < 2.0e6
    # MobileNet-V1 0.25 at 224: ~41 M mult-adds (Howard et al. 2017, Table 7).
    assert fp32.flops == 2 * macs
    assert 78e6 < fp32.flops < 86e6
    nodes = {n.name: n for n in fp32.node_flops}
    assert nodes["conv1/Conv"].flops == 2 * (112 * 112) * 8 * (3 * 3 * 3)
    assert nodes["block3/dw/Conv"].flops == 2 * (56 * 56) * 32 * (3 * 3)
    assert nodes["block3/pw/Conv"].flops == 2 * (56 * 56) * 32 * 32
    assert nodes["fc/Gemm"].flops == 2 * 256 * 1000
    assert fp32.flops_shapes == {"input": (1, 3, 224, 224)}


def test_flops_scale_with_batch(fp32: ModelInfo) -> None:
    info = inspect_model(str(FP32), {"input": (4, 3, 224, 224)})
    assert info.flops == 4 * fp32.flops
    assert info.inputs == fp32.inputs  # the declared shapes are reported, not the substituted


def test_mobilenet_int8(fp32: ModelInfo) -> None:
    info = inspect_model(str(INT8))
    assert info.op_counts["QuantizeLinear"] > 0
    assert info.op_counts["DequantizeLinear"] > 0
    assert info.op_counts["Conv"] == 27
    assert "BatchNormalization" not in info.op_counts  # folded before quantization
    assert info.inputs[0].shape == ("batch", 3, 224, 224)
    assert info.flops == fp32.flops
    # int8 weights: roughly a quarter of the FP32 bytes (plus scales, zero points, int32 biases).
    assert info.parameters > 0
    assert info.parameter_bytes < fp32.parameter_bytes / 3


def test_mobilenet_ir(fp32: ModelInfo) -> None:
    info = inspect_model(str(IR))
    assert info.format == "openvino-ir"
    assert info.inputs[0].name == "input"
    assert info.inputs[0].shape == ("?", 3, 224, 224)
    assert info.outputs[0].name == "logits"
    assert info.op_counts["Convolution"] + info.op_counts["GroupConvolution"] == 27
    assert "Constant" not in info.op_counts
    assert info.parameters > 0
    assert info.parameter_bytes == 4 * info.parameters  # FP32 IR, no f16 compression
    assert info.flops == fp32.flops
    nodes = {n.name: n for n in info.node_flops}
    assert nodes["block3/dw/Conv"].op_type == "GroupConvolution"
    assert nodes["block3/dw/Conv"].flops == 2 * (56 * 56) * 32 * 9
    assert inspect_model(str(IR), {"input": (2, 3, 224, 224)}).flops == 2 * fp32.flops


def test_encoder_dynamic_dims_and_flops() -> None:
    info = inspect_model(str(ENCODER))
    spec = info.inputs[0]
    assert (spec.name, spec.dtype, spec.shape) == ("input_ids", "int64", ("batch", "seq"))
    assert info.outputs[0].shape == ("batch", "seq", 128)
    assert info.op_counts["MatMul"] == 16
    assert info.op_counts["LayerNormalization"] == 5
    assert info.op_counts["Softmax"] == 2
    assert info.flops_shapes == {"input_ids": (1, DEFAULT_DYNAMIC_DIM)}
    assert info.flops == 2 * encoder_macs(1, DEFAULT_DYNAMIC_DIM)
    assert all(n.flops > 0 for n in info.node_flops)
    small = inspect_model(str(ENCODER), {"input_ids": (2, 16)})
    assert small.flops == 2 * encoder_macs(2, 16)
    # token (1000x128) + position (512x128) embeddings are parameters too
    assert info.parameters > (1000 + 512) * 128


def test_to_dict_is_json(fp32: ModelInfo) -> None:
    data = json.loads(json.dumps(fp32.to_dict()))
    assert data["format"] == "onnx"
    assert data["inputs"][0] == {
        "name": "input",
        "dtype": "float32",
        "shape": ["batch", 3, 224, 224],
    }
    assert data["flops"] == fp32.flops
    assert data["flops_shapes"] == {"input": [1, 3, 224, 224]}
    assert data["node_flops"][0] == {
        "name": "conv1/Conv",
        "op_type": "Conv",
        "flops": 5419008,
        "known": True,
        "cheap": False,
        "fused_names": ["conv1/BatchNormalization", "conv1/Relu6"],
    }
    assert data["op_counts"]["Conv"] == 27


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        ({"pixels": (1, 3, 224, 224)}, "names input 'pixels'.*inputs are: input"),
        ({"input": (1, 3, 224)}, "3 dimensions, but the model declares 4"),
        ({"input": (1, 3, 100, 224)}, "does not fit input 'input'"),
    ],
)
def test_bad_shapes(shapes: dict[str, tuple[int, ...]], message: str) -> None:
    with pytest.raises(InputError, match=message):
        inspect_model(str(FP32), shapes)


def _bad_files(tmp: Path) -> dict[str, tuple[Path, str]]:
    """name -> (path, regex the one-line message must match)."""
    data = FP32.read_bytes()
    (tmp / "text.onnx").write_text("just some notes\nnot a model\n")
    (tmp / "truncated.onnx").write_bytes(data[: len(data) // 2])
    (tmp / "head.onnx").write_bytes(data[:7])
    (tmp / "noise.onnx").write_bytes(bytes(range(256)) * 4)
    (tmp / "empty.onnx").write_bytes(b"")
    (tmp / "model.pt").write_bytes(b"\x80\x02")
    (tmp / "folder.onnx").mkdir()
    shutil.copy(IR, tmp / "nobin.xml")
    shutil.copy(IR, tmp / "short.xml")
    (tmp / "short.bin").write_bytes(IR.with_suffix(".bin").read_bytes()[:100])
    (tmp / "other.xml").write_text('<?xml version="1.0"?><html></html>')
    (tmp / "other.bin").write_bytes(b"")
    xml = IR.read_text()
    (tmp / "cut.xml").write_text(xml[: len(xml) // 2])
    shutil.copy(IR.with_suffix(".bin"), tmp / "cut.bin")
    return {
        "missing": (tmp / "nope.onnx", r"^model file not found: .*nope\.onnx$"),
        "directory": (tmp / "folder.onnx", "is a directory"),
        "extension": (tmp / "model.pt", r"unsupported model file type '\.pt'"),
        "text": (tmp / "text.onnx", "is a text file, not an ONNX model"),
        "truncated": (tmp / "truncated.onnx", r"could not parse .* \(damaged or truncated\?\)"),
        "header only": (tmp / "head.onnx", r"could not parse .* \(damaged or truncated\?\)"),
        "noise": (tmp / "noise.onnx", r"could not parse .* \(damaged or truncated\?\)"),
        "empty": (tmp / "empty.onnx", "model file is empty"),
        "xml without bin": (tmp / "nobin.xml", r"weights not found: .*nobin\.bin"),
        "short bin": (tmp / "short.bin", r"pass the \.xml"),
        "truncated bin": (tmp / "short.xml", "too short"),
        "not IR": (tmp / "other.xml", "not an OpenVINO IR file"),
    }


def test_bad_files_raise_one_clear_line(tmp_path: Path) -> None:
    for label, (path, pattern) in _bad_files(tmp_path).items():
        for check in (validate_model_file, inspect_model):
            with pytest.raises(InputError, match=pattern) as caught:
                check(str(path))
            message = str(caught.value)
            assert "\n" not in message, (label, message)
            assert "Traceback" not in message


def test_damaged_ir_xml(tmp_path: Path) -> None:
    _bad_files(tmp_path)
    path = tmp_path / "cut.xml"
    validate_model_file(str(path))  # cheap check passes: weights exist, <net> is there
    with pytest.raises(InputError, match=r"could not read OpenVINO IR .*cut\.xml") as caught:
        inspect_model(str(path))
    assert "\n" not in str(caught.value)


def test_sample_models_validate() -> None:
    for path in (FP32, INT8, IR, ENCODER):
        validate_model_file(path)


def test_import_is_cheap() -> None:
    code = (
        "import sys, perftui.inspection; "
        "print(sorted(m for m in ('onnx', 'openvino', 'onnxruntime', 'textual') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=MODELS.parent
    )
    assert out.stdout.strip() == "[]"
