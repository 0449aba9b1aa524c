"""What a project's ``notes["optimization"]`` says, read back for display (no engine imports).

`perftui optimize` stores, with the INT8 project it makes: method, calibration ("folder" |
"random"), calibration_dir, samples, seed, source_model, the accuracy report and created_at;
the project's `source_project` names the FP32 project. Notes written by hand or by an older
version may lack any of these, so every field is optional and a malformed accuracy report
reads as None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from perftui.domain.records import Project
    from perftui.optimize.accuracy import AccuracyReport


@dataclass(frozen=True)
class Optimization:
    """How an INT8 project was made from its source project."""

    source: str | None
    method: str
    calibration: str
    calibration_dir: str | None = None
    samples: int | None = None
    seed: int | None = None
    created_at: str = ""
    accuracy: AccuracyReport | None = None

    @property
    def random(self) -> bool:
        """Calibrated (or checked) on seeded random data: the figures are a consistency check."""
        return self.calibration == "random"

    def calibration_text(self) -> str:
        """E.g. '16 samples from /data/calib' or '16 seeded random samples (seed 0)'."""
        count = f"{self.samples} " if self.samples is not None else ""
        if self.calibration == "folder":
            return f"{count}samples from {self.calibration_dir or 'a folder'}"
        if self.random:
            seed = f" (seed {self.seed})" if self.seed is not None else ""
            return f"{count}seeded random samples{seed}"
        return self.calibration or "unknown"

    def report_lines(self) -> tuple[str, ...]:
        """Plain lines for a report: how the INT8 model was made, its accuracy against the
        FP32 model and the caution when its outputs stray (`perftui report`)."""
        made = f"{self.method}, {self.created_at[:10]}" if self.created_at else self.method
        data = self.calibration_text()
        data = (
            f"no calibration (dynamic); checked on {data}"
            if self.method == "dynamic"
            else f"calibrated on {data}"
        )
        lines = [f"INT8 of {self.source or 'an unknown project'} ({made}); {data}"]
        if self.random:
            lines.append(
                "warning: random data, so the accuracy figures are only a consistency check, "
                "not the accuracy on real data"
            )
        report = self.accuracy
        if report is None:
            return (*lines, "Accuracy against FP32: not recorded")
        lines.append(
            f"Accuracy against FP32 on {report.samples} {report.inputs or 'test'} inputs: "
            f"{report.summary()}"
        )
        if caution := report.caution():
            lines.append(f"caution: {caution}")
        return tuple(lines)


def _int(value: Any) -> int | None:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


def optimization_of(project: Project) -> Optimization | None:
    """The project's optimization record, or None when it was not made by `optimize`."""
    notes = project.notes.get("optimization") if isinstance(project.notes, dict) else None
    if not isinstance(notes, dict):
        return None
    accuracy = None
    if isinstance(notes.get("accuracy"), dict):
        from perftui.optimize.accuracy import AccuracyReport

        try:
            accuracy = AccuracyReport.from_dict(notes["accuracy"])
        except (KeyError, TypeError, ValueError):
            accuracy = None
    return Optimization(
        source=project.source_project,
        method=str(notes.get("method") or "static"),
        calibration=str(notes.get("calibration") or ""),
        calibration_dir=notes.get("calibration_dir") or None,
        samples=_int(notes.get("samples")),
        seed=_int(notes.get("seed")),
        created_at=str(notes.get("created_at") or ""),
        accuracy=accuracy,
    )


def derived_projects(name: str, projects: list[Project]) -> list[str]:
    """Names of the projects made from project `name` (its INT8 versions)."""
    return [p.name for p in projects if p.source_project == name and p.name != name]
