"""The role of each model input, read from the graph: which synthetic data is valid for it.

An input is followed through a few cheap ops (casts, reshapes, adding a constant, ...):

* a mask (its name says so, or it reaches ``1 - x``) gets ones;
* token-type / segment ids (by name) get zeros, position ids (by name) a range;
* an input that reaches a Gather as its indices gets integers in [0, rows of the smallest
  table it indexes), shifted by the constants added on the way;
* anything else keeps the default rule (perftui.domain.model.input_rules.DEFAULT), and says so.

ONNX graphs are read with `onnx`, OpenVINO IR with `openvino` (imported inside the functions),
so the data of a model file is the same whichever engine runs it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from perftui.domain.model.input_rules import DEFAULT, InputRule
from perftui.inspection.validate import model_format

__all__ = ["input_rules", "name_rule"]

MAX_STEPS = 6
"""How many cheap ops an input is followed through."""
_ONNX_PASS = {"Cast", "Unsqueeze", "Squeeze", "Reshape", "Flatten", "Identity", "Expand", "Tile"}
_ONNX_PASS |= {"Transpose", "Concat"}
_OV_PASS = {"Convert", "Unsqueeze", "Squeeze", "Reshape", "Broadcast", "Tile", "Transpose"}
_OV_PASS |= {"Concat"}


@dataclass(frozen=True)
class Use:
    """One place an input's values end up: a consumer `op` named `node`, the input's position
    among its operands, the other operands' constant values (None where not constant) and the
    row count of the table a Gather indexes."""

    op: str
    node: str
    index: int
    constants: tuple[Any, ...]
    rows: int | None = None


def name_rule(name: str) -> InputRule | None:
    """The rule an input's name alone gives (masks, token types, positions), if any."""
    lowered = name.lower()
    if "mask" in lowered:
        return InputRule("ones", "a mask (by its name): ones, no padding")
    if "token_type" in lowered or "segment" in lowered:
        return InputRule("zeros", "token-type / segment ids (by its name): zeros, one segment")
    if "position" in lowered:
        return InputRule("range", "position ids (by its name): 0, 1, 2, ...")
    return None


def _scalar(value: Any) -> float | None:
    try:
        return float(value.reshape(-1)[0]) if value is not None and value.size == 1 else None
    except (AttributeError, TypeError, ValueError):
        return None


def _graph_rule(
    name: str, integer: bool, follow: Callable[[Any], Iterable[tuple[Use, Any]]], start: Any
) -> InputRule:
    """Follow one input through the graph (`follow(value)` lists its uses and the values they
    produce) and turn what it reaches into a rule."""
    by_name = name_rule(name)
    tables: list[tuple[int, int, str]] = []  # (rows, offset, gather)
    frontier = [(start, 0)]
    for _ in range(MAX_STEPS):
        next_frontier = []
        for value, offset in frontier:
            for use, produced in follow(value):
                if use.op == "Gather" and use.index == 1 and use.rows:
                    tables.append((use.rows, offset, use.node))
                elif use.op == "Sub" and use.index == 1 and _scalar(use.constants[0]) == 1.0:
                    return by_name or InputRule("ones", f"a mask (it reaches 1 - x in {use.node})")
                elif use.op in ("Add", "Sub") and produced is not None:
                    c = _scalar(use.constants[1 - use.index]) if len(use.constants) == 2 else None
                    if c is not None and c == int(c) and use.index == 0:
                        shift = int(c) if use.op == "Add" else -int(c)
                        next_frontier.append((produced, offset + shift))
                elif use.op == "pass" and produced is not None:
                    next_frontier.append((produced, offset))
        frontier = next_frontier
    if by_name is not None:
        if tables:
            rows, _, node = min(tables)
            return InputRule(by_name.kind, f"{by_name.why}; indexes {node} ({rows} rows)", 0, rows)
        return by_name
    if tables and integer:
        rows, offset, node = min(tables, key=lambda t: t[0] - t[1])
        low, high = max(0, -offset), rows - offset
        if high > low:
            more = f" (the smallest of {len(tables)} tables)" if len(tables) > 1 else ""
            added = f", after adding {offset}" if offset else ""
            return InputRule("indices", f"indices of {node}, {rows} rows{more}{added}", low, high)
    return DEFAULT


def input_rules(path: str | os.PathLike[str]) -> dict[str, InputRule]:
    """The rule of each input of an ONNX or OpenVINO IR model, by input name."""
    if model_format(path) == "onnx":
        return _onnx_rules(str(path))
    return _ir_rules(str(path))


# --------------------------------------------------------------------------- ONNX
def _onnx_rules(path: str) -> dict[str, InputRule]:
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(path, load_external_data=False).graph
    shapes = {t.name: list(t.dims) for t in graph.initializer}
    small = {t.name: t for t in graph.initializer if len(t.dims) <= 1 and sum(t.dims) <= 1}
    consts: dict[str, Any] = {name: numpy_helper.to_array(t) for name, t in small.items()}
    producer: dict[str, Any] = {}
    consumers: dict[str, list[tuple[Any, int]]] = {}
    for node in graph.node:
        for out in node.output:
            producer[out] = node
        for i, name in enumerate(node.input):
            consumers.setdefault(name, []).append((node, i))
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value":
                    shapes[node.output[0]] = list(attr.t.dims)
                    consts[node.output[0]] = numpy_helper.to_array(attr.t)

    def table_rows(name: str, axis: int) -> int | None:
        """Rows of a constant table, also behind a dequantization or a cast."""
        for _ in range(3):
            if name in shapes:
                dims = shapes[name]
                return int(dims[axis]) if -len(dims) <= axis < len(dims) else None
            node = producer.get(name)
            if node is None or node.op_type not in ("DequantizeLinear", "Cast", "Identity"):
                return None
            name = node.input[0]
        return None

    def follow(value: str) -> Iterable[tuple[Use, str | None]]:
        for node, index in consumers.get(value, []):
            op = (
                "pass"
                if node.op_type in _ONNX_PASS and (index == 0 or node.op_type == "Concat")
                else node.op_type
            )
            rows = None
            if op == "Gather":
                axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
                rows = table_rows(node.input[0], axis)
            constants = tuple(consts.get(name) for name in node.input)
            yield Use(op, node.name or node.output[0], index, constants, rows), node.output[0]

    inits = set(shapes)
    rules = {}
    for value in graph.input:
        if value.name in inits:
            continue
        elem = value.type.tensor_type.elem_type
        integer = elem in (2, 3, 4, 5, 6, 7, 9, 12, 13)  # (u)int8..64, bool
        rules[value.name] = _graph_rule(value.name, integer, follow, value.name)
    return rules


# --------------------------------------------------------------------------- OpenVINO IR
_OV_OPS = {"Subtract": "Sub", "Add": "Add", "Gather": "Gather"}


def _ir_rules(path: str) -> dict[str, InputRule]:
    import openvino as ov

    model = ov.Core().read_model(path)

    def constant(port: Any) -> Any:
        node = port.get_source_output().get_node()
        return node.get_data() if node.get_type_name() == "Constant" else None

    def follow(output: Any) -> Iterable[tuple[Use, Any]]:
        for target in output.get_target_inputs():
            node = target.get_node()
            kind = node.get_type_name()
            index = target.get_index()
            op = "pass" if kind in _OV_PASS and (index == 0 or kind == "Concat") else kind
            op = _OV_OPS.get(op, op)
            rows = None
            if op == "Gather":
                data = node.input(0).get_partial_shape()
                axis = _scalar(constant(node.input(2)))
                if data.rank.is_static and axis is not None and data[int(axis)].is_static:
                    rows = data[int(axis)].get_length()
            constants = tuple(constant(node.input(i)) for i in range(node.get_input_size()))
            yield Use(op, node.get_friendly_name(), index, constants, rows), node.output(0)

    rules = {}
    for port in model.inputs:
        names = sorted(port.get_names()) or [port.get_node().get_friendly_name()]
        integer = port.get_element_type().is_integral()
        rule = _graph_rule(names[0], integer, follow, port.get_node().output(0))
        rules.update(dict.fromkeys(names, rule))
    return rules
