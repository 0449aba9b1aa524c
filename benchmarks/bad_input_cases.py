"""The cases of benchmarks/bad_input.py: each makes its files in a folder of its own and
returns the `perftui` arguments that must be refused (exit 2, one line, nothing written)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from tests.bad_files import huge_npy, huge_npz, zip_bomb  # noqa: E402
from tests.test_cli_refusals import _bad_models  # noqa: E402
from tests.test_real_inputs import mini_encoder  # noqa: E402

MODEL = ROOT / "sample_models" / "mobilenet_fp32.onnx"
QUICK = ["--time", "0.2", "--iterations", "5", "--warmup", "1"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
Setup = Callable[[Path], list[str]]
"""Makes a case's files in its folder; returns the CLI's arguments."""


def _args(*args: str) -> Setup:
    return lambda _folder: list(args)


def _file(make: Callable[[Path], Path], *args: str, flag: str = "--data") -> Setup:
    return lambda folder: [*args, flag, str(make(folder))]


def _calibration(folder: Path) -> list[str]:
    (folder / "calib").mkdir()
    zip_bomb(folder / "calib" / "0.npz", "input", (1, 2**30))
    _project(folder)
    return ["optimize", "m", "--calibration", str(folder / "calib")]


def _project(folder: Path, name: str = "m") -> None:
    from perftui.domain.records import Project
    from perftui.store import Store

    Store(folder / "db.json").add_project(Project(name, str(MODEL), "openvino", "CPU"))


def _targets(document: object) -> Setup:
    def setup(folder: Path) -> list[str]:
        (folder / "db.targets.json").write_text(json.dumps(document))
        return ["targets", "list"]

    return setup


def _target_bench(model_name: str) -> Setup:
    def setup(folder: Path) -> list[str]:
        (folder / "db.targets.json").write_text(
            json.dumps({"targets": [{"name": "t1", "destination": "perftui-nowhere.invalid"}]})
        )
        model = folder / model_name
        model.write_bytes(MODEL.read_bytes())
        return ["bench", str(model), "--target", "t1", *QUICK]

    return setup


def _encoder_data(engine: str) -> Setup:
    def setup(folder: Path) -> list[str]:
        model = mini_encoder(folder / "mini.onnx")
        np.savez(
            folder / "d.npz",
            input_ids=np.array([[1, 2, 60, 3]], np.int64),
            mask=np.ones((1, 4), np.int64),
            token_type=np.zeros((1, 4), np.int64),
        )
        return ["bench", str(model), "--engine", engine, "--shape", "seq=4", "--data",
                str(folder / "d.npz"), *QUICK]  # fmt: skip

    return setup


def _bad_model(which: str, engine: str) -> Setup:
    def setup(folder: Path) -> list[str]:
        (folder / "models").mkdir()
        return ["bench", str(_bad_models(folder / "models")[which]), "--engine", engine, *QUICK]

    return setup


def _import_name(name: str) -> Setup:
    def setup(folder: Path) -> list[str]:
        source = folder / "src.json"
        other = folder / "other" / "db.json"
        other.parent.mkdir()
        _project(other.parent, "src")
        out = subprocess.run(
            [sys.executable, "-m", "perftui", "--db", str(other), "export"],
            capture_output=True, text=True, env=ENV, check=True,
        )  # fmt: skip
        document = json.loads(out.stdout)
        document["projects"][0]["name"] = name
        source.write_text(json.dumps(document))
        return ["import", str(source)]

    return setup


def _lossy(folder: Path) -> list[str]:
    np.save(folder / "x.npy", np.full((1, 3, 224, 224), 0.1))
    return ["bench", str(MODEL), "--data", str(folder / "x.npy"), *QUICK]


NAMES = {"escape": "x\x1b[31mRED", "newline": "a\nb", "cr": "a\rb", "bell": "b\x07",
         "rtl": "r\u202eevil", "10k": "n" * 10_000}  # fmt: skip

CASES: dict[str, dict[str, Setup]] = {
    "npz/npy": {
        "zip bomb --data": _file(
            lambda f: zip_bomb(f / "b.npz", "input", (1, 2**30)), "bench", str(MODEL), *QUICK
        ),
        "zip bomb --data ort": _file(
            lambda f: zip_bomb(f / "b.npz", "input", (1, 2**30)),
            "bench",
            str(MODEL),
            "--engine",
            "onnxruntime",
            *QUICK,
        ),
        "zip bomb --calibration": _calibration,
        "npy 10^12": _file(lambda f: huge_npy(f / "x.npy", (10**6, 10**6)), "bench", str(MODEL)),
        "npz 10^12": _file(
            lambda f: huge_npz(f / "x.npz", "input", (10**6, 10**6)), "bench", str(MODEL)
        ),
    },
    "bounds": {
        **{
            f"optimize --samples {n}": _args("optimize", "m", "--samples", n)
            for n in ("0", "1000000", str(10**20))
        },
        **{
            f"{c} --seed={s}": _args(c, *a, f"--seed={s}")
            for c, a in (
                ("bench", [str(MODEL)]),
                ("tune", ["m", "--max-latency", "5"]),
                ("optimize", ["m"]),
            )
            for s in ("-1", str(10**20))
        },
    },
    "internal": {
        "report -o missing/dir": lambda f: ["report", "A", "-o", str(f / "missing/dir/r.md")],
        "report -o DIR": lambda f: ["report", "A", "-o", str(f)],
        "targets list wrong types": _targets({"targets": [{"name": 1, "destination": []}]}),
        "targets list bad destination": _targets({"targets": [{"name": "t", "destination": ";"}]}),
        "model path newline on target": _target_bench("a\nb.onnx"),
    },
    "targets": {
        "unreachable target": _target_bench("m.onnx"),
        **{
            f"add {d!r}": _args("targets", "add", "t1", d)
            for d in ("host;id", "$(id)", "a\nb", "user@-oProxyCommand=x", "-oProxyCommand=x")
        },
        "add an unreachable host": _args("targets", "add", "t1", "perftui-nowhere.invalid"),
        **{
            f"price {v!r}": _args("targets", "add", "t1", "h", "--price-per-hour", v)
            for v in ("-1", "abc", "nan", "1e9")
        },
        **{
            f"targets price local {v!r}": _args("targets", "price", "local", v)
            for v in ("-1", "abc")
        },
        "bench --target with an empty host": _args("bench", str(MODEL), "--target", "local,,x"),
        "bench --target with an unknown host": _args("bench", str(MODEL), "--target", "local,x"),
    },
    "models": {
        f"{which} {engine}": _bad_model(which, engine)
        for which in (
            "huge initializer",
            "missing external data",
            "constant escaping",
            "huge constant",
        )
        for engine in ("onnxruntime", "openvino")
    },
    "names": {
        **{
            f"bench --project {k}": _args("bench", str(MODEL), "--project", v, *QUICK)
            for k, v in NAMES.items()
        },
        **{f"optimize --name {k}": _args("optimize", "m", "--name", v) for k, v in NAMES.items()},
        **{f"import {k}": _import_name(v) for k, v in NAMES.items() if k in ("rtl", "10k")},
    },
    "smaller": {
        "--batch 1,,2": _args("bench", str(MODEL), "--batch", "1,,2", *QUICK),
        "lossy float64 --data": _lossy,
    },
    "vocabulary": {f"ids >= vocabulary {e}": _encoder_data(e) for e in ("openvino", "onnxruntime")},
}
