"""Model inspection: inputs/outputs, operator counts, parameters and theoretical FLOPs.

Reads ONNX (`.onnx`) with the `onnx` package and OpenVINO IR (`.xml` + `.bin`) with
`openvino`; both are imported inside the functions, so importing this module stays cheap.

Conventions
-----------
* FLOPs are theoretical: **2 x multiply-accumulates** of Conv (incl. grouped / depthwise),
  ConvTranspose, ConvInteger, QLinearConv, MatMul, MatMulInteger, QLinearMatMul and Gemm
  (OpenVINO: Convolution, GroupConvolution, ConvolutionBackpropData, MatMul). Bias adds,
  activations, normalisations and softmax are not counted, nor are nodes inside ONNX
  control-flow subgraphs (If/Loop/Scan bodies; their operators are counted in `op_counts`).
* FLOPs are for **batch 1**: a dynamic first dimension of an input becomes 1, any other dynamic
  dimension becomes `DEFAULT_DYNAMIC_DIM` (128, e.g. a sequence length), unless `shapes`
  gives the full shape of that input. `ModelInfo.flops_shapes` records the shapes used.
* Parameters are the elements of all initializers / constants, except small integer tensors
  (int32/int64/uint64 with at most `SMALL_INT_CONSTANT` elements: shapes, axes, indices).
  Quantized weights count at their stored size (an int8 weight is 1 byte).
* Dynamic dimensions in `TensorSpec.shape` are strings: the ONNX `dim_param` name, or "?"
  where the model does not name them (OpenVINO IR never does).
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perftui.domain.errors import InputError
from perftui.domain.records import TensorSpec

FORMATS = {".onnx": "onnx", ".xml": "openvino-ir"}
DEFAULT_DYNAMIC_DIM = 128
"""Value substituted for a dynamic non-batch dimension when computing FLOPs."""
SMALL_INT_CONSTANT = 16
"""Integer constants up to this many elements are shape/axes data, not parameters."""

_INT_DTYPES = {"int32", "int64", "uint64", "uint32"}
_ONNX_GRAPH_FIELD = 7
_ONNX_OPSET_FIELD = 8


@dataclass(frozen=True)
class NodeFlops:
    """Theoretical FLOPs of one node: 2 x multiply-accumulates, at batch 1."""

    name: str
    op_type: str
    flops: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "op_type": self.op_type, "flops": self.flops}


@dataclass(frozen=True)
class ModelInfo:
    """What `inspect_model` found in a model file (see the module docstring for conventions)."""

    path: str
    format: str  # "onnx" | "openvino-ir"
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    op_counts: dict[str, int]
    parameters: int
    parameter_bytes: int
    flops: int
    node_flops: tuple[NodeFlops, ...]
    flops_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Static input shapes the FLOPs were computed for."""

    @property
    def dynamic(self) -> bool:
        """True when some input has a dynamic dimension."""
        return any(spec.dynamic_dims for spec in self.inputs)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (`perftui inspect --json`)."""
        return {
            "path": self.path,
            "format": self.format,
            "inputs": [spec.to_dict() for spec in self.inputs],
            "outputs": [spec.to_dict() for spec in self.outputs],
            "op_counts": dict(self.op_counts),
            "parameters": self.parameters,
            "parameter_bytes": self.parameter_bytes,
            "flops": self.flops,
            "flops_shapes": {k: list(v) for k, v in self.flops_shapes.items()},
            "node_flops": [n.to_dict() for n in self.node_flops],
        }


# --------------------------------------------------------------------------- validation
def model_format(path: str | os.PathLike[str]) -> str:
    """ "onnx" or "openvino-ir" from the file extension; InputError for anything else."""
    p = Path(path)
    fmt = FORMATS.get(p.suffix.lower())
    if fmt is not None:
        return fmt
    if p.suffix.lower() == ".bin":
        raise InputError(
            f"{p} is OpenVINO IR weights; pass the .xml file next to it instead "
            f"({p.with_suffix('.xml').name})"
        )
    raise InputError(
        f"unsupported model file type '{p.suffix or '(no extension)'}': {p} "
        "(use an ONNX .onnx file or an OpenVINO IR .xml file with its .bin)"
    )


def validate_model_file(path: str | os.PathLike[str]) -> None:
    """Cheap checks before a model is read: exists, a file, known format, not obviously damaged.

    ONNX files get a structural walk over the top-level protobuf fields (seeks, reads a few bytes
    per field), which catches text files and truncation without parsing the graph. IR files need
    their `.bin`, an `<net>` root, and a `.bin` large enough for every weight the `.xml` names.
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"model file not found: {p}")
    if p.is_dir():
        raise InputError(f"{p} is a directory; pass a model file (.onnx, or .xml with its .bin)")
    fmt = model_format(p)
    try:
        size = p.stat().st_size
        if size == 0:
            raise InputError(f"model file is empty: {p}")
        if fmt == "onnx":
            _check_onnx_structure(p, size)
        else:
            _check_ir_files(p)
    except PermissionError as exc:
        raise InputError(f"cannot read model file {p}: permission denied") from exc
    except OSError as exc:
        raise InputError(f"cannot read model file {p}: {exc.strerror or exc}") from exc


def _looks_like_text(head: bytes) -> bool:
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(ch.isprintable() or ch in "\r\n\t" for ch in text)


def _read_varint(f: Any) -> int | None:
    """Read a protobuf varint; None at EOF or when it runs past 10 bytes."""
    value = 0
    for shift in range(0, 70, 7):
        byte = f.read(1)
        if not byte:
            return None
        value |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return value
    return None


def _check_onnx_structure(p: Path, size: int) -> None:
    with p.open("rb") as f:
        head = f.read(512)
        if head.lstrip().startswith((b"<", b"{")) or _looks_like_text(head):
            raise InputError(f"{p} is a text file, not an ONNX model (expected a binary .onnx)")
        f.seek(0)
        seen: set[int] = set()
        pos = 0
        while pos < size:
            tag = _read_varint(f)
            number, wire = (tag >> 3, tag & 7) if tag is not None else (0, -1)
            if tag is None or number == 0 or wire not in (0, 1, 2, 5):
                raise InputError(
                    f"could not parse {p} as ONNX (damaged or truncated?); re-export the model"
                )
            if wire == 0:
                ok = _read_varint(f) is not None
            else:
                length = {1: 8, 5: 4}.get(wire) or _read_varint(f)
                ok = length is not None and f.tell() + length <= size
                if ok:
                    f.seek(length, os.SEEK_CUR)
            if not ok:
                raise InputError(
                    f"could not parse {p} as ONNX (damaged or truncated?); re-export the model"
                )
            seen.add(number)
            pos = f.tell()
    if _ONNX_GRAPH_FIELD not in seen or _ONNX_OPSET_FIELD not in seen:
        raise InputError(
            f"could not parse {p} as ONNX (damaged or truncated?): no graph or opset found"
        )


_IR_DATA = re.compile(rb"<data\b[^>]*?\boffset=\"(\d+)\"[^>]*?\bsize=\"(\d+)\"")


def _check_ir_files(xml: Path) -> None:
    bin_path = xml.with_suffix(".bin")
    with xml.open("rb") as f:
        head = f.read(4096)
    if b"<net" not in head:
        raise InputError(f"{xml} is not an OpenVINO IR file (no <net> element in the .xml)")
    if not bin_path.is_file():
        raise InputError(
            f"OpenVINO IR weights not found: {bin_path} (keep the .bin next to the .xml, "
            "with the same name)"
        )
    needed = max((int(o) + int(s) for o, s in _IR_DATA.findall(xml.read_bytes())), default=0)
    have = bin_path.stat().st_size
    if needed > have:
        raise InputError(
            f"OpenVINO IR weights {bin_path} are too short ({have} bytes, the .xml needs "
            f"{needed}); the .bin is truncated or belongs to another model"
        )


# --------------------------------------------------------------------------- entry point
def inspect_model(
    path: str | os.PathLike[str], shapes: Mapping[str, Sequence[int]] | None = None
) -> ModelInfo:
    """Inspect an ONNX or OpenVINO IR model; `shapes` fixes input shapes for the FLOPs.

    Raises InputError (one line) for a missing, unsupported or damaged file, or for `shapes`
    that do not fit the model's inputs.
    """
    validate_model_file(path)
    wanted = {str(k): tuple(int(d) for d in v) for k, v in (shapes or {}).items()}
    if model_format(path) == "onnx":
        return _inspect_onnx(Path(path), wanted)
    return _inspect_ir(Path(path), wanted)


def _resolve_shapes(
    inputs: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]]
) -> dict[str, tuple[int, ...]]:
    """Static shape per input: given shapes, else dynamic dim 0 -> 1, others -> default."""
    names = {spec.name for spec in inputs}
    unknown = sorted(set(shapes) - names)
    if unknown:
        raise InputError(
            f"unknown input {unknown[0]!r} in shapes; the model's inputs are: "
            + ", ".join(sorted(names))
        )
    resolved: dict[str, tuple[int, ...]] = {}
    for spec in inputs:
        given = shapes.get(spec.name)
        if given is not None:
            if len(given) != len(spec.shape):
                raise InputError(
                    f"shape for input {spec.name!r} has {len(given)} dims, the model expects "
                    f"{len(spec.shape)}: {_fmt_shape(spec.shape)}"
                )
            for dim, want in zip(spec.shape, given, strict=True):
                if want <= 0 or (isinstance(dim, int) and dim >= 0 and dim != want):
                    raise InputError(
                        f"shape {list(given)} does not fit input {spec.name!r} "
                        f"{_fmt_shape(spec.shape)}"
                    )
            resolved[spec.name] = given
            continue
        resolved[spec.name] = tuple(
            d if isinstance(d, int) and d >= 0 else (1 if i == 0 else DEFAULT_DYNAMIC_DIM)
            for i, d in enumerate(spec.shape)
        )
    return resolved


def _fmt_shape(shape: Sequence[int | str]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _conv_macs(out: Sequence[int], weight: Sequence[int], skip: int) -> int:
    """Output elements x (input channels per group x kernel), `skip` = leading weight dims."""
    return math.prod(out) * math.prod(weight[skip:])


def _matmul_macs(a: Sequence[int], out: Sequence[int], transpose_a: bool = False) -> int:
    if not a or not out:
        return 0
    k = a[-2] if transpose_a and len(a) >= 2 else a[-1]
    return math.prod(out) * k


# --------------------------------------------------------------------------- ONNX
def _inspect_onnx(p: Path, shapes: Mapping[str, tuple[int, ...]]) -> ModelInfo:
    import onnx

    try:
        model = onnx.load(str(p), load_external_data=False)
    except Exception as exc:  # protobuf DecodeError and friends: never show their traceback
        raise InputError(
            f"could not parse {p} as ONNX (damaged or truncated?): {_first_line(exc)}"
        ) from exc
    graph = model.graph
    init_names = {t.name for t in graph.initializer}
    inputs = tuple(_onnx_spec(v) for v in graph.input if v.name not in init_names)
    outputs = tuple(_onnx_spec(v) for v in graph.output)

    counts: Counter[str] = Counter()
    parameters = parameter_bytes = 0
    for g in _onnx_graphs(graph):
        for node in g.node:
            counts[_onnx_op_name(node)] += 1
            if node.op_type == "Constant":
                for attr in node.attribute:
                    if attr.name == "value" and attr.HasField("t"):
                        n, b = _onnx_tensor_size(attr.t)
                        parameters, parameter_bytes = parameters + n, parameter_bytes + b
        for tensor in g.initializer:
            n, b = _onnx_tensor_size(tensor)
            parameters, parameter_bytes = parameters + n, parameter_bytes + b

    static = _resolve_shapes(inputs, shapes)
    value_shapes = _onnx_infer_shapes(model, static)
    node_flops = tuple(_onnx_node_flops(graph, value_shapes))
    return ModelInfo(
        path=str(p),
        format="onnx",
        inputs=inputs,
        outputs=outputs,
        op_counts=dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        parameters=parameters,
        parameter_bytes=parameter_bytes,
        flops=sum(n.flops for n in node_flops),
        node_flops=node_flops,
        flops_shapes=static,
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


def _onnx_graphs(graph: Any) -> list[Any]:
    """The graph and every subgraph (If/Loop/Scan bodies), depth first."""
    out = [graph]
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("g"):
                out.extend(_onnx_graphs(attr.g))
            for sub in attr.graphs:
                out.extend(_onnx_graphs(sub))
    return out


def _onnx_op_name(node: Any) -> str:
    return node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"


def _onnx_dtype(elem_type: int) -> str:
    from onnx import helper

    try:
        return str(helper.tensor_dtype_to_np_dtype(elem_type).name)
    except (KeyError, TypeError, ValueError):
        return "unknown"


def _onnx_tensor_size(tensor: Any) -> tuple[int, int]:
    """(elements, bytes) of an initializer; 0 for small integer shape/axes constants."""
    import numpy as np

    count = math.prod(tensor.dims)
    dtype = _onnx_dtype(tensor.data_type)
    if dtype in _INT_DTYPES and count <= SMALL_INT_CONSTANT:
        return 0, 0
    try:
        itemsize = np.dtype(dtype).itemsize
    except TypeError:
        itemsize = 0
    if tensor.data_type in (16, 17, 18, 19, 20):  # bfloat16, float8 variants
        itemsize = 2 if tensor.data_type == 16 else 1
    return count, count * itemsize


def _onnx_spec(value: Any) -> TensorSpec:
    ttype = value.type.tensor_type
    dims: list[int | str] = []
    if ttype.HasField("shape"):
        for d in ttype.shape.dim:
            if d.HasField("dim_value") and d.dim_value >= 0:
                dims.append(int(d.dim_value))
            else:
                dims.append(d.dim_param or "?")
    return TensorSpec(name=value.name, dtype=_onnx_dtype(ttype.elem_type), shape=tuple(dims))


def _onnx_infer_shapes(model: Any, static: Mapping[str, tuple[int, ...]]) -> dict[str, list[int]]:
    """Shapes of every value after fixing the inputs to `static` (unknown dims dropped)."""
    import onnx

    work = onnx.ModelProto()
    work.CopyFrom(model)
    graph = work.graph
    del graph.value_info[:]
    for value in graph.input:
        if value.name in static:
            shape = value.type.tensor_type.shape
            del shape.dim[:]
            for d in static[value.name]:
                shape.dim.add().dim_value = d
    # Large initializers become typed graph inputs: shape inference needs their shape, not data.
    kept = []
    input_names = {v.name for v in graph.input}
    for tensor in graph.initializer:
        if math.prod(tensor.dims) > 64 or tensor.data_location == onnx.TensorProto.EXTERNAL:
            if tensor.name not in input_names:
                graph.input.append(
                    onnx.helper.make_tensor_value_info(tensor.name, tensor.data_type, tensor.dims)
                )
        else:
            kept.append(tensor)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    try:
        inferred = onnx.shape_inference.infer_shapes(work, data_prop=True)
    except Exception:  # inference is best effort: FLOPs of unknown shapes are 0
        inferred = work
    out: dict[str, list[int]] = {}
    g = inferred.graph
    for value in (*g.input, *g.value_info, *g.output):
        ttype = value.type.tensor_type
        if ttype.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else -1 for d in ttype.shape.dim]
            if all(d >= 0 for d in dims):
                out[value.name] = dims
    for tensor in model.graph.initializer:
        out[tensor.name] = list(tensor.dims)
    return out


def _onnx_attr(node: Any, name: str, default: int) -> int:
    for attr in node.attribute:
        if attr.name == name:
            return int(attr.i)
    return default


_ONNX_WEIGHT_INDEX = {"Conv": 1, "ConvInteger": 1, "QLinearConv": 3, "ConvTranspose": 1}
_ONNX_MATMUL_A = {"MatMul": 0, "MatMulInteger": 0, "QLinearMatMul": 0, "Gemm": 0}


def _onnx_node_flops(graph: Any, shapes: Mapping[str, list[int]]) -> list[NodeFlops]:
    result = []
    for index, node in enumerate(graph.node):
        op = node.op_type
        if node.domain not in ("", "ai.onnx") or (
            op not in _ONNX_WEIGHT_INDEX and op not in _ONNX_MATMUL_A
        ):
            continue
        out = shapes.get(node.output[0]) if node.output else None
        macs = 0
        if op in _ONNX_WEIGHT_INDEX:
            w_idx = _ONNX_WEIGHT_INDEX[op]
            weight = shapes.get(node.input[w_idx]) if len(node.input) > w_idx else None
            if op == "ConvTranspose":
                x = shapes.get(node.input[0])
                if x and weight:
                    macs = _conv_macs(x, weight, 1)
            elif out and weight:
                macs = _conv_macs(out, weight, 1)
        else:
            a = shapes.get(node.input[0])
            trans_a = op == "Gemm" and bool(_onnx_attr(node, "transA", 0))
            if a and out:
                macs = _matmul_macs(a, out, trans_a)
        name = node.name or f"{op}_{index}"
        result.append(NodeFlops(name=name, op_type=op, flops=2 * macs))
    return result


# --------------------------------------------------------------------------- OpenVINO IR
def _inspect_ir(p: Path, shapes: Mapping[str, tuple[int, ...]]) -> ModelInfo:
    import openvino as ov

    core = ov.Core()
    try:
        model = core.read_model(str(p))
    except Exception as exc:  # openvino raises RuntimeError with a multi-line C++ trace
        raise InputError(
            f"could not read OpenVINO IR {p} (damaged, or written by a newer OpenVINO?): "
            f"{_ov_message(exc)}"
        ) from exc

    inputs = tuple(_ov_spec(port) for port in model.inputs)
    outputs = tuple(_ov_spec(port) for port in model.outputs)
    counts: Counter[str] = Counter()
    parameters = parameter_bytes = 0
    for op in model.get_ordered_ops():
        kind = op.get_type_name()
        if kind == "Constant":
            n, b = _ov_constant_size(op)
            parameters, parameter_bytes = parameters + n, parameter_bytes + b
        elif kind not in ("Parameter", "Result"):
            counts[kind] += 1

    static = _resolve_shapes(inputs, shapes)
    if any(spec.dynamic_dims for spec in inputs) or shapes:
        try:
            model.reshape(
                {
                    port: ov.PartialShape(list(static[spec.name]))
                    for port, spec in zip(model.inputs, inputs, strict=True)
                }
            )
        except Exception as exc:
            if shapes:
                raise InputError(
                    f"cannot reshape {p} to {_fmt_static(static)}: {_ov_message(exc)}"
                ) from exc
    node_flops = tuple(_ov_node_flops(model))
    return ModelInfo(
        path=str(p),
        format="openvino-ir",
        inputs=inputs,
        outputs=outputs,
        op_counts=dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        parameters=parameters,
        parameter_bytes=parameter_bytes,
        flops=sum(n.flops for n in node_flops),
        node_flops=node_flops,
        flops_shapes=static,
    )


def _fmt_static(static: Mapping[str, tuple[int, ...]]) -> str:
    return ", ".join(f"{k}{_fmt_shape(v)}" for k, v in static.items())


def _ov_message(exc: BaseException) -> str:
    """The useful line of an OpenVINO exception (they embed source paths and check names)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    useful = [ln for ln in lines if not ln.startswith(("Exception from", "Check '"))]
    return (useful or lines or [type(exc).__name__])[0][:200]


def _ov_spec(port: Any) -> TensorSpec:
    names = port.get_names()
    name = sorted(names)[0] if names else port.get_node().get_friendly_name()
    pshape = port.get_partial_shape()
    dims: tuple[int | str, ...] = ()
    if pshape.rank.is_static:
        dims = tuple(d.get_length() if d.is_static else "?" for d in pshape)
    try:
        dtype = port.get_element_type().to_dtype().name
    except Exception:
        dtype = port.get_element_type().get_type_name()
    return TensorSpec(name=name, dtype=dtype, shape=dims)


def _ov_constant_size(op: Any) -> tuple[int, int]:
    shape = op.get_output_partial_shape(0)
    if not shape.is_static:
        return 0, 0
    count = math.prod(d.get_length() for d in shape)
    etype = op.get_output_element_type(0)
    if etype.get_type_name() in ("i32", "i64", "u32", "u64") and count <= SMALL_INT_CONSTANT:
        return 0, 0
    return count, (count * etype.bitwidth + 7) // 8


def _ov_static(port: Any) -> list[int] | None:
    shape = port.get_partial_shape()
    return [d.get_length() for d in shape] if shape.is_static else None


_OV_CONV_SKIP = {
    "Convolution": 1,
    "GroupConvolution": 2,
    "ConvolutionBackpropData": 1,
    "GroupConvolutionBackpropData": 2,
}
"""Leading weight dims that are output channels (or groups), not per-output MACs."""


def _ov_node_flops(model: Any) -> list[NodeFlops]:
    result = []
    for op in model.get_ordered_ops():
        kind = op.get_type_name()
        skip = _OV_CONV_SKIP.get(kind)
        if skip is None and kind != "MatMul":
            continue
        out = _ov_static(op.output(0))
        macs = 0
        if skip is not None:
            weight = _ov_static(op.input(1))
            base = _ov_static(op.input(0)) if "Backprop" in kind else out
            if weight and base:
                macs = _conv_macs(base, weight, skip)
        else:
            a = _ov_static(op.input(0))
            if a and out:
                macs = _matmul_macs(a, out, bool(op.get_attributes().get("transpose_a")))
        result.append(NodeFlops(name=op.get_friendly_name(), op_type=kind, flops=2 * macs))
    return result
