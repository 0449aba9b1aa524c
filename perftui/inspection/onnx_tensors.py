"""The tensors an ONNX model stores (initializers and Constant nodes' values), checked before
an engine reads them: each one's data is where it says, inside the model's folder, and as large
as its shape declares.

ONNX Runtime met a model it could not read (an initializer declaring 10^12 elements, a missing
external data file, a Constant whose external data escaped the folder) only in its worker: a
failed run was stored and the CLI exited 1 (issue 26). Checked here, such a model is bad input
on both engines, on this machine and before a target is contacted.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from perftui.domain.errors import InputError

__all__ = ["check_tensors", "stored_tensors"]

_TYPED_FIELDS = ("float_data", "int32_data", "int64_data", "double_data", "uint64_data")


def stored_tensors(graph: Any) -> Iterator[tuple[Any, str]]:
    """(tensor, what it is) for the graph's initializers and its Constant nodes' values."""
    for tensor in graph.initializer:
        yield tensor, f"initializer {tensor.name!r}"
    for node in graph.node:
        if node.op_type != "Constant" or node.domain not in ("", "ai.onnx"):
            continue
        what = f"Constant {node.name or (node.output[0] if node.output else '')!r}"
        for attribute in node.attribute:
            if attribute.HasField("t"):
                yield attribute.t, what
            if attribute.HasField("sparse_tensor"):
                yield attribute.sparse_tensor.values, what


def _declared_bytes(tensor: Any) -> int | None:
    """Bytes the tensor's dims and data type declare; None for types of no fixed size."""
    import onnx

    elements = math.prod(tensor.dims)
    if (bits := _sub_byte().get(tensor.data_type)) is not None:
        return (elements * bits + 7) // 8
    try:
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type)
    except (KeyError, TypeError, ValueError):
        return None
    return None if dtype.hasobject else elements * dtype.itemsize  # strings: no fixed size


@functools.cache
def _sub_byte() -> dict[int, int]:
    """Bits per element of the ONNX data types packed several to a byte."""
    import onnx

    bits = {"INT4": 4, "UINT4": 4, "FLOAT4E2M1": 4, "INT2": 2, "UINT2": 2}
    bits |= {"FLOAT6E2M3": 6, "FLOAT6E3M2": 6}
    return {
        getattr(onnx.TensorProto, n): b for n, b in bits.items() if hasattr(onnx.TensorProto, n)
    }


def _external(tensor: Any) -> dict[str, str]:
    return {entry.key: entry.value for entry in tensor.external_data}


def _check_external(tensor: Any, what: str, model: Path, folder: Path, needed: int | None) -> None:
    info = _external(tensor)
    location = info.get("location", "")
    file = (folder / location).resolve()
    where = f"model {model.name}: the external data of {what}"
    if not location or not file.is_relative_to(folder):
        raise InputError(
            f"{where} is {location!r}, outside the model's folder {folder}; move the data file"
            " beside the model"
        )
    if not file.is_file():
        raise InputError(f"{where} is {location!r}, which does not exist beside the model")
    try:
        offset = int(info.get("offset", "0"))
        length = int(info["length"]) if "length" in info else None
    except ValueError:
        raise InputError(f"{where} has an offset or length that is not a number") from None
    size = file.stat().st_size
    want = length if length is not None else needed
    if offset < 0 or (want is not None and offset + want > size):
        raise InputError(
            f"{where} needs bytes {offset:,} to {offset + (want or 0):,} of {location!r},"
            f" which holds {size:,}; the data file is cut short or belongs to another model"
        )
    if needed is not None and length is not None and length < needed:
        raise InputError(f"{where} holds {length:,} bytes, its shape needs {needed:,}")


def _check_inline(tensor: Any, what: str, model: Path, needed: int | None) -> None:
    if needed is None:
        return
    if tensor.raw_data:
        present = len(tensor.raw_data)
    else:
        elements = max(len(getattr(tensor, field)) for field in _TYPED_FIELDS)
        declared = math.prod(tensor.dims)
        if elements >= declared:
            return  # typed fields: one entry per element (two for complex types)
        present = 0
    if present < needed:
        raise InputError(
            f"model {model.name}: {what} declares {math.prod(tensor.dims):,} elements"
            f" ({needed:,} bytes) and holds {present:,} bytes; the model is damaged"
        )


def check_tensors(graphs: Iterator[Any], model: Path) -> None:
    """InputError for the first stored tensor of `graphs` (the model's and its subgraphs)
    whose data is missing, outside the model's folder or smaller than its shape."""
    import onnx

    folder = model.resolve().parent
    for graph in graphs:
        for tensor, what in stored_tensors(graph):
            if any(d < 0 for d in tensor.dims):
                raise InputError(f"model {model.name}: {what} has a negative dimension")
            needed = _declared_bytes(tensor)
            if tensor.data_location == onnx.TensorProto.EXTERNAL:
                _check_external(tensor, what, model, folder, needed)
            else:
                _check_inline(tensor, what, model, needed)
