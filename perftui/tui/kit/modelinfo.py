"""The inspection summary of a model file (inputs, shapes, parameters, FLOPs, operators)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Static

from perftui.tui.kit import format as fmt
from perftui.tui.kit.format import escape

if TYPE_CHECKING:
    from perftui.domain.model.model_info import ModelInfo


def describe(info: ModelInfo, ops: int = 6) -> str:
    """Rich markup lines describing a model."""
    lines = [f"[b]Format[/]   {info.format}"]
    for title, specs in (("Inputs", info.inputs), ("Outputs", info.outputs)):
        for n, spec in enumerate(specs):
            dynamic = ""
            if spec.dynamic_dims:
                names = ",".join(str(spec.shape[i]) for i in spec.dynamic_dims)
                dynamic = f" [i](dynamic: {escape(names)})[/]"
            head = f"[b]{title}[/]" if n == 0 else " " * len(title)
            lines.append(
                f"{head}{' ' * (9 - len(title))}{escape(spec.name)} {spec.dtype} "
                f"{escape(fmt.shape(spec.shape))}{dynamic}"
            )
    lines.append(f"[b]Params[/]   {fmt.count(info.parameters)} ({fmt.size(info.parameter_bytes)})")
    lines.append(f"[b]FLOPs[/]    {fmt.count(info.flops)} at {escape(info.flops_at())}")
    top = sorted(info.op_counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ", ".join(f"{escape(name)} {n}" for name, n in top[:ops])
    more = f", +{len(top) - ops} more" if len(top) > ops else ""
    lines.append(f"[b]Ops[/]      {shown}{more}")
    return "\n".join(lines)


class ModelInfoView(Static):
    """Shows a ModelInfo, an error, or a hint."""

    def show_info(self, info: ModelInfo) -> None:
        self.remove_class("error")
        self.update(describe(info))

    def show_error(self, message: str) -> None:
        self.add_class("error")
        self.update(f"[b]Cannot use this model[/]\n{escape(message)}")

    def show_hint(self, message: str) -> None:
        self.remove_class("error")
        self.update(escape(message))
