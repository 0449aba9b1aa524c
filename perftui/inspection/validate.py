"""Cheap checks of a model file before it is read: it exists, its format is known, and it is
not obviously damaged (no engine library is imported)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perftui.domain.errors import InputError

if TYPE_CHECKING:
    from perftui.domain.capabilities import Capabilities

__all__ = ["FORMATS", "check_onnx_graph", "model_format", "validate_model_file"]

FORMATS = {".onnx": "onnx", ".xml": "openvino-ir"}
_ONNX_GRAPH_FIELD = 7
_ONNX_OPSET_FIELD = 8


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
                if ok and length is not None:
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


def check_onnx_graph(
    path: str | os.PathLike[str], engine: Capabilities, domains: bool = True
) -> None:
    """InputError for what an engine would only trip over once the worker reads the model:
    stored tensors whose data is missing, outside the model's folder (OpenVINO refuses it; ONNX
    Runtime would read any file the model names) or smaller than their shapes
    (perftui.inspection.onnx_tensors), and (`domains`) nodes of an operator domain the engine
    does not know."""
    import onnx  # only here: the CLI's other paths start without it

    from perftui.inspection.onnx_tensors import check_tensors

    p = Path(path)
    try:
        model = onnx.load(str(p), load_external_data=False)
    except Exception:  # the engine's own reader says what is wrong
        return
    local = {function.domain for function in model.functions}
    known = engine.onnx_domains | local
    check_tensors(_graphs(model.graph), p)
    for graph in _graphs(model.graph):
        for node in graph.node:
            if domains and node.domain not in known:
                raise InputError(
                    f"model {p.name}: node {node.name or node.op_type!r} is {node.op_type} of"
                    f" the operator domain {node.domain!r}, which {engine.engine} does not know"
                    f" (it knows {', '.join(sorted(d or 'ai.onnx' for d in known - {''}))})"
                )


def _graphs(graph: Any) -> Any:
    """The graph and every subgraph of its nodes (If, Loop, Scan bodies), depth first."""
    yield graph
    for node in graph.node:
        for attribute in node.attribute:
            for sub in (
                (attribute.g, *attribute.graphs) if attribute.HasField("g") else attribute.graphs
            ):
                yield from _graphs(sub)
