"""Real-model corpus: published architectures through perftui's CLI, as a new user would run them.

Each model is a real published architecture built offline from its configuration (the sizes of
the published checkpoint; seeded random weights, since nothing may be downloaded) and exported
to ONNX with dynamic batch (and sequence) axes, as Hugging Face exports ship. For every model the
script runs, through the real `perftui` entry point:

  inspect    `perftui inspect MODEL --json` (FLOPs must be > 0 for these models)
  ort        `perftui bench MODEL --engine onnxruntime --api sync,async --profile` (short)
  openvino   the same with `--engine openvino`
  rate       `perftui bench MODEL --rate R` at half the closed-loop sync rate, each engine: the
             open loop runs and keeps up (not saturated)
  int8 ort   `perftui optimize` of the ONNX Runtime project (static, random calibration)
  int8 ov    `perftui optimize` of the OpenVINO project (NNCF; same calibration)
  compare    `perftui compare` of the two engines' projects, and of FP32 and INT8 on OpenVINO
  precision  the OpenVINO project's runs record the precision the engine ran; `--precision
             bf16` and `--precision f32` run at what they ask where the CPU has it
  int8 bench each INT8 project benchmarked with its profile: the share of its time in 8-bit

and the image models again as old model-zoo graphs (benchmarks/corpus_facts.py: IR 3,
opset 9, weights made by ConstantOfShape). It prints one row per check: ok, or the exit
status and the first line of the error. A failure here is a bug to turn into a small test.
Dynamic dimensions other than the batch are bound by name (`--shape seq=128`), once for every
input that has them.

Needs torch and transformers, which CI does not install; run it from its own environment:

  python3 -m venv .venv-corpus
  .venv-corpus/bin/pip install torch==2.13.0 transformers onnx onnxscript -e .
  .venv-corpus/bin/python benchmarks/corpus.py [--only bert,vit] [--rebuild] [--time 1]

Exported models are cached in `.corpus/` (git-ignored); `--rebuild` exports them again.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".corpus"
SEQ = 128


@dataclass(frozen=True)
class Entry:
    """One published architecture: how to build it and what its inputs look like."""

    name: str
    build: Callable[[], Any]
    kind: str  # "text" (input_ids, attention_mask[, token_type_ids]) or "image"
    token_types: bool = False
    image_size: int = 224
    old_zoo: bool = False
    """A CNN the old model zoo shipped as IR 3 / opset 9 graphs: exported that way too."""


def _text_models() -> list[Entry]:
    import transformers as tf

    return [
        Entry("bert-base", lambda: tf.BertModel(tf.BertConfig()), "text", token_types=True),
        Entry("distilbert-base", lambda: tf.DistilBertModel(tf.DistilBertConfig()), "text"),
        Entry("roberta-base", lambda: tf.RobertaModel(tf.RobertaConfig(vocab_size=50265)), "text"),
        Entry("gpt2", lambda: tf.GPT2Model(tf.GPT2Config(use_cache=False)), "text"),
    ]


def _image_models() -> list[Entry]:
    import transformers as tf

    return [
        Entry("resnet-50", lambda: tf.ResNetModel(tf.ResNetConfig()), "image", old_zoo=True),
        Entry(
            "mobilenet-v2",
            lambda: tf.MobileNetV2Model(tf.MobileNetV2Config()),
            "image",
            old_zoo=True,
        ),
        Entry(
            "convnext-tiny", lambda: tf.ConvNextModel(tf.ConvNextConfig()), "image", old_zoo=True
        ),
        Entry("vit-base", lambda: tf.ViTModel(tf.ViTConfig()), "image"),
    ]


def export(entry: Entry, path: Path, opset: int = 17) -> None:
    """Export `entry` to ONNX at `path` with named dynamic axes (legacy TorchScript exporter)."""
    import torch

    torch.manual_seed(0)
    model = entry.build().eval()
    if entry.kind == "text":
        names = ["input_ids", "attention_mask"] + (["token_type_ids"] if entry.token_types else [])
        args = tuple(torch.ones(1, SEQ, dtype=torch.int64) for _ in names)
        axes = {n: {0: "batch", 1: "seq"} for n in names}
    else:
        names = ["pixel_values"]
        args = (torch.rand(1, 3, entry.image_size, entry.image_size),)
        axes = {"pixel_values": {0: "batch"}}
    axes["last_hidden_state"] = {0: "batch"}

    class Wrapped(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, *xs: Any) -> Any:
            return self.inner(**dict(zip(names, xs, strict=True))).last_hidden_state

    path.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(
            Wrapped(),
            args,
            str(path),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=opset,
            dynamo=False,
        )


def perftui(*args: str, timeout: float = 600) -> tuple[int, str, str]:
    cmd = [sys.executable, "-m", "perftui", *args]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout:.0f} s"
    return done.returncode, done.stdout, done.stderr


def shape_flags(info: dict[str, Any]) -> list[str]:
    """`--shape DIM=SEQ` for every named dynamic dimension other than the batch (the first)."""
    dims = {
        d: None
        for spec in info.get("inputs", [])
        for i, d in enumerate(spec["shape"])
        if i > 0 and isinstance(d, str) and d != "?"
    }
    return [flag for d in dims for flag in ("--shape", f"{d}={SEQ}")]


def first_error(rc: int, stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    return f"exit {rc}: {lines[-1][:150] if lines else '(no message)'}"


def check(name: str, model: Path, db: Path, budget: str) -> list[tuple[str, str, float]]:
    """Run the checks on one model; returns (check, outcome, seconds) rows."""
    rows: list[tuple[str, str, float]] = []

    def timed(label: str, *args: str) -> tuple[int, str, str]:
        start = time.perf_counter()
        rc, out, err = perftui(*args)
        rows.append((label, "ok" if rc == 0 else first_error(rc, err), time.perf_counter() - start))
        return rc, out, err

    rc, out, _ = timed("inspect", "inspect", str(model), "--json")
    flags = shape_flags(json.loads(out)) if rc == 0 else []
    if rc == 0:
        rc2, out2, _ = perftui("inspect", str(model), "--json", *flags)
        flops = json.loads(out2).get("flops", 0) if rc2 == 0 else 0
        if not flops:
            rows[-1] = ("inspect", f"FLOPs {flops!r} with {' '.join(flags) or 'no shapes'}", 0.0)
    common = ["--time", budget, "--iterations", "5", "--warmup", "1", "--db", str(db), *flags]
    for engine in ("onnxruntime", "openvino"):
        # sync and async, with the per-layer profile pass
        project = f"{name}-{engine}"
        timed(
            engine,
            "bench",
            str(model),
            "--engine",
            engine,
            "--project",
            project,
            "--api",
            "sync,async",
            "--profile",
            *common,
        )
    for engine in ("onnxruntime", "openvino"):
        # open loop at half the closed-loop sync rate: measured from arrival, not saturated
        rc, out, _ = perftui("show", f"{name}-{engine}", "--json", "--db", str(db))
        runs = (
            [r for r in json.loads(out)["runs"] if r["config"]["api"] == "sync"] if rc == 0 else []
        )
        ok = [r for r in runs if r["status"] == "ok" and r["throughput_fps"] > 0]
        if not ok:
            continue
        rate = f"{0.5 * ok[0]['throughput_fps'] / ok[0]['config']['batch']:.3g}"
        rc, out, _ = timed(
            f"rate {engine[:3]}",
            "bench",
            str(model),
            "--engine",
            engine,
            "--project",
            f"{name}-{engine}-rate",
            "--rate",
            rate,
            "--json",
            *common,
        )
        traffic = json.loads(out)["runs"][0].get("traffic") if rc == 0 else None
        if rc == 0 and (traffic is None or traffic["saturated"]):
            why = "no traffic figures" if traffic is None else "; ".join(traffic["reasons"])
            rows[-1] = (f"rate {engine[:3]}", f"at {rate}/s: {why}", rows[-1][2])
    for engine, label in (("onnxruntime", "int8 ort"), ("openvino", "int8 ov")):
        # no --shape: optimize reuses the project's; it fails unless the INT8 runs on the engine
        timed(label, "optimize", f"{name}-{engine}", "--db", str(db), "--samples", "4")
    timed("compare", "compare", f"{name}-onnxruntime", f"{name}-openvino", "--db", str(db))
    for asked in ("bf16", "f32"):
        rc, out, _ = timed(
            f"ov {asked}",
            "bench",
            str(model),
            "--engine",
            "openvino",
            "--project",
            f"{name}-ov-{asked}",
            "--precision",
            asked,
            "--json",
            *common,
        )
        ran = {r.get("precision_run") for r in json.loads(out)["runs"]} if rc == 0 else set()
        if rc == 0 and ran - {asked, "f32"}:
            rows[-1] = (f"ov {asked}", f"asked {asked}, ran {sorted(ran)}", rows[-1][2])
    for engine in ("onnxruntime", "openvino"):
        int8 = f"{name}-{engine}-int8"
        rc, out, _ = perftui("show", int8, "--json", "--db", str(db))
        if rc != 0:
            continue
        shown = json.loads(out)
        shapes = shown["notes"].get("optimization", {}).get("shapes", {})
        fixed = [f"--shape={n}[{','.join(map(str, d))}]" for n, d in shapes.items()]
        bench = [*common[: common.index(str(db)) + 1], *fixed]  # an IR keeps no dim names
        timed(
            f"int8 {engine[:3]}",
            "bench",
            shown["model"],
            "--engine",
            engine,
            "--project",
            int8,
            "--profile",
            *bench,
        )
    # after the INT8 project's own bench: a side with no run is refused (exit 2)
    timed("compare ov", "compare", f"{name}-openvino", f"{name}-openvino-int8", "--db", str(db))
    return rows


def facts(names: list[str], db: Path) -> list[str]:
    """The tables of FLOPs against published figures and of INT8 coverage."""
    from corpus_facts import coverage_row, flops_row

    lines = ["", "FLOPs (2 x MACs) at batch 1:"]
    for name in names:
        model = CACHE / f"{name}.onnx"
        rc, out, _ = perftui("inspect", str(model), "--json", "--shape", f"seq={SEQ}")
        if rc != 0:
            rc, out, _ = perftui("inspect", str(model), "--json")
        lines.append(flops_row(name, json.loads(out)) if rc == 0 else f"{name}: inspect failed")
    lines += ["", "INT8: share of the profiled time in 8-bit layers:"]
    for name in names:
        for engine in ("onnxruntime", "openvino"):
            rc, out, _ = perftui("show", f"{name}-{engine}-int8", "--json", "--db", str(db))
            if rc == 0:
                lines.append(coverage_row(name, engine, json.loads(out)))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated model names")
    parser.add_argument("--rebuild", action="store_true", help="export the models again")
    parser.add_argument("--time", default="1", help="seconds per bench run (default 1)")
    parser.add_argument(
        "--db", type=Path, help="keep the projects in this database (default: a temporary one)"
    )
    args = parser.parse_args(argv)
    entries = _text_models() + _image_models()
    if args.only:
        wanted = set(args.only.split(","))
        entries = [e for e in entries if e.name in wanted]
    failures = 0
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from corpus_facts import OLD_OPSET, old_opset

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "corpus.json"
        old: dict[str, Path] = {}
        for entry in entries:
            model = CACHE / f"{entry.name}.onnx"
            if args.rebuild or not model.exists():
                print(f"exporting {entry.name} ...", file=sys.stderr, flush=True)
                export(entry, model)
            runs = [(entry.name, model)]
            if entry.old_zoo:
                name = f"{entry.name}-opset{OLD_OPSET}"
                old[name] = CACHE / f"{name}.onnx"
                if args.rebuild or not old[name].exists():
                    export(entry, Path(tmp) / "old.onnx", OLD_OPSET)
                    old_opset(Path(tmp) / "old.onnx", old[name])
                runs.append((name, old[name]))
            for name, path in runs:
                for label, outcome, seconds in check(name, path, db, args.time):
                    failures += outcome != "ok"
                    print(f"{name:<22} {label:<10} {seconds:6.1f}s  {outcome}", flush=True)
        for line in facts([e.name for e in entries] + list(old), db):
            print(line, flush=True)
    print(f"{failures} failing checks", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
