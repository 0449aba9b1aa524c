"""A benchmark's hold on a target: the host's lock, for every --repeat round of the benchmark.

One SSH session runs `agent hold`, which takes the host's lock, answers with a token, the
host's environment and the model files the host lacks, and keeps the lock until this side
closes the session (or the connection drops, or this process dies). Each round's relay shows
the token to run under it.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from typing import Any

from perftui.targets.registry import Target
from perftui.targets.ssh import TargetError, failure, python_argv
from perftui.targets.transfer import AGENT, Manifest

CLOSE_TIMEOUT_S = 10.0


class Lease:
    def __init__(self, target: Target, files: Manifest) -> None:
        """Take the target's lock; TargetError when another benchmark holds it."""
        self.target = target
        self._process = subprocess.Popen(
            python_argv(target, *AGENT, "hold", files.key, *files.wanted),
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
        if status != "held" or len(answer) < 3:
            said = self.close()
            if status == "busy":
                raise TargetError(
                    f"target {target.name} is busy: another benchmark is running there ({detail})",
                    busy=True,
                )
            raise failure(target, self._process.returncode, said)
        self.token = detail
        self.environment: dict[str, Any] = json.loads(answer[1])
        self.folder = answer[2]
        self.missing = answer[3:]

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
