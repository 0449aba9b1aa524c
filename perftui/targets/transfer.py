"""Copying a model to a target: content-addressed (by sha256), once, verified there."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from perftui.domain.errors import InputError
from perftui.domain.names import describe, terminal_safe, unsafe_char
from perftui.targets.agent import file_digest
from perftui.targets.registry import Target
from perftui.targets.ssh import run_python

UPLOAD_TIMEOUT_S = 3600.0
AGENT = ("-m", "perftui.targets.agent")


@dataclass(frozen=True)
class Placed:
    model: str
    """The model's path on the target."""
    sent_bytes: int
    seconds: float


def model_files(model: Path) -> list[Path]:
    """The model file and what the engines read beside it: an IR's .bin, ONNX external data."""
    files = [model]
    if model.suffix.lower() == ".xml" and model.with_suffix(".bin").is_file():
        files.append(model.with_suffix(".bin"))
    elif model.suffix.lower() == ".onnx":
        import onnx

        graph = onnx.load(str(model), load_external_data=False).graph
        locations = {
            entry.value
            for tensor in graph.initializer
            if tensor.data_location == onnx.TensorProto.EXTERNAL
            for entry in tensor.external_data
            if entry.key == "location"
        }
        files += [model.parent / location for location in sorted(locations)]
    return files


@dataclass(frozen=True)
class Manifest:
    """A model's files by name (relative to the model's folder) with their sha256 digests."""

    model: Path
    files: dict[str, Path]
    digests: dict[str, str]

    @property
    def key(self) -> str:
        """The folder name on the target: a digest of every file's name and digest."""
        text = "".join(f"{name}\0{sha}\n" for name, sha in sorted(self.digests.items()))
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def wanted(self) -> list[str]:
        return [f"{name}:{sha}" for name, sha in self.digests.items()]


def manifest(model: Path) -> Manifest:
    """The model's files and digests; InputError for a file name the agent's line-based
    protocol cannot carry (a newline or other control character)."""
    files = {path.relative_to(model.parent).as_posix(): path for path in model_files(model)}
    for name in files:
        if (char := unsafe_char(name)) is not None:
            raise InputError(
                f"model file '{terminal_safe(name)}' has {describe(char)} in its name; rename"
                " it to measure it on a target"
            )
    return Manifest(model, files, {name: file_digest(path) for name, path in files.items()})


def place_model(
    target: Target,
    files: Manifest,
    folder: str,
    missing: list[str],
    notify: Callable[[str], None] = lambda _: None,
) -> Placed:
    """Send the `missing` files (missing or damaged in the target's `folder`), each verified
    by its digest there before it is used."""
    started = time.perf_counter()
    sent = 0
    for name in missing:
        size = files.files[name].stat().st_size
        notify(f"copying {name} ({size / 2**20:.1f} MiB) to {target.name}")
        run_python(
            target,
            [*AGENT, "put", files.key, name, files.digests[name]],
            upload=files.files[name],
            timeout_s=UPLOAD_TIMEOUT_S,
        )
        sent += size
    return Placed(f"{folder}/{files.model.name}", sent, time.perf_counter() - started)
