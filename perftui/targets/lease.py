"""A benchmark's hold on a target: the host's lock, for every --repeat round of the benchmark.

One SSH session runs `agent hold`, which takes the host's lock, answers with a token, the
host's environment and, for each model, its folder there and the files the host lacks, and
keeps the lock until this side closes the session (or the connection drops, or this process
dies). Each round's relay shows the token to run under it. A gate's two benchmarks (two
models, or one model twice) share one lease: the host runs nothing else between their rounds.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from dataclasses import dataclass
from typing import Any

from perftui.targets.registry import Target
from perftui.targets.ssh import TargetError, failure, python_argv
from perftui.targets.transfer import AGENT, Manifest

CLOSE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Place:
    """A model's folder on the target and the files it lacks there (missing or stale)."""

    folder: str
    missing: list[str]


class Lease:
    def __init__(self, target: Target, *models: Manifest) -> None:
        """Take the target's lock for the benchmarks of `models`; TargetError when another
        benchmark holds it."""
        self.target = target
        keys = {files.key: files for files in models}  # one model twice: asked for once
        wanted = [word for key, files in keys.items() for word in (key, *files.wanted)]
        self._process = subprocess.Popen(
            python_argv(target, *AGENT, "hold", *wanted),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            start_new_session=True,  # Ctrl-C goes to the parent, which ends the lease
        )
        assert self._process.stdout is not None
        answer = []
        for line in self._process.stdout:
            if not line.strip():
                break
            answer.append(line.strip())
        status, _, detail = (answer[0] if answer else "").partition(" ")
        places = [line for line in answer[2:] if line.startswith("{")]  # an older agent: none
        if status != "held" or len(places) != len(keys) or len(answer) != 2 + len(keys):
            said = self.close()
            if status == "busy":
                raise TargetError(
                    f"target {target.name} is busy: another benchmark is running there ({detail})",
                    busy=True,
                )
            raise failure(target, self._process.returncode, said)
        self.token = detail
        self.environment: dict[str, Any] = json.loads(answer[1])
        found = zip(keys, places, strict=True)
        self.places = {key: Place(**json.loads(line)) for key, line in found}
        """Each model's place on the target, by its key (perftui.targets.transfer.Manifest)."""

    def close(self) -> str:
        """End the lease (the host's lock is released); what the session said on stderr."""
        process = self._process
        with contextlib.suppress(BrokenPipeError, ValueError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(timeout=CLOSE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        said = ""
        for stream in (process.stdout, process.stderr):
            if stream is not None and not stream.closed:
                said = stream.read()
                stream.close()
        return said
