"""`perftui gate`'s two sides: each a project (its compared configuration, as `compare`
picks it) or a model file (the other side's settings, or bench's flags), as the requests
that measure them alternately under the gate's label; CliError for what cannot be."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from perftui.cli.common import CliError, checked_flag, project_names
from perftui.domain.errors import InputError
from perftui.domain.forms.bench import DEFAULTS
from perftui.domain.records import LOCAL
from perftui.domain.settings import TYPED
from perftui.engines import DEFAULT_ENGINE

if TYPE_CHECKING:
    from perftui.domain.records import BenchmarkRequest, Project, RunResult
    from perftui.store import Store

GATE_TIME_S = 1.0
"""Each run's timed seconds: rounds, not long runs, narrow B/A."""
SETTINGS: tuple[str, ...] = (*(s.name for s in TYPED), "iterations", "warmup")
MODEL_ONLY = (*SETTINGS, "engine", "device", "shape", "data", "seed")
"""Flags that describe how to measure a model file (bench's); a project brings its own."""
ROLES = ("baseline", "candidate")


def _given(args: argparse.Namespace) -> list[str]:
    return ["--" + n.replace("_", "-") for n in MODEL_ONLY if getattr(args, n) is not None]


def _side(store: Store, text: str) -> Project | Path:
    """The project of that name, else the model file at that path; CliError for neither."""
    from perftui.domain.names import terminal_safe

    project = store.get_project(text)
    if project is not None:
        return project
    path = Path(text).expanduser()
    if path.is_file():
        return path.absolute()
    shown = terminal_safe(text)
    if path.suffix.lower() in (".onnx", ".xml") or os.sep in text:
        raise CliError(f"model file {shown} does not exist")
    raise CliError(
        f"{shown!r} is neither a project nor a model file; projects: {project_names(store, text)}"
    )


def _model_args(args: argparse.Namespace, path: Path) -> argparse.Namespace:
    """bench's arguments for a model file side: the gate's model flags, else bench's defaults."""
    settings = {n: getattr(args, n) if getattr(args, n) is not None else DEFAULTS[n] for n in
                SETTINGS}  # fmt: skip
    return argparse.Namespace(
        model=str(path),
        engine=args.engine or DEFAULT_ENGINE,
        device=args.device or "CPU",
        shape=args.shape or [],
        data=args.data,
        seed=args.seed or 0,
        profile=False,
        project=None,
        profile_iterations=DEFAULTS["profile_iterations"],
        repeat="1",
        time=str(GATE_TIME_S),
        **settings,
    )


def gate_requests(
    store: Store,
    args: argparse.Namespace,
    rounds: int,
    time_s: float,
    label: str,
) -> tuple[BenchmarkRequest, BenchmarkRequest]:
    """Both sides' requests, each `rounds` runs of `time_s` under the gate's label."""
    from perftui.bench.alternate import measure_side
    from perftui.cli.bench import request_from_args
    from perftui.domain.compare import pick_run
    from perftui.domain.limits import pair_host
    from perftui.domain.records import Project

    sides = [_side(store, args.baseline), _side(store, args.candidate)]
    projects = [s for s in sides if not isinstance(s, Path)]
    try:
        host = pair_host(projects, args.target)
    except InputError as error:
        flag = "--target: " if args.target else ""
        raise CliError(flag + str(error)) from None
    if len(projects) == 2 and projects[0].name == projects[1].name:
        raise CliError(
            f"the baseline and the candidate are the same project, {projects[0].name!r}: "
            "gate two different ones"
        )
    if projects and _given(args):
        raise CliError(
            f"{_given(args)[0]}: a project brings its own settings; the model flags are for "
            "gating two model files"
        )
    if len(projects) == 2:
        runs = _alike(store, projects[0], projects[1])
    else:
        runs = {p.name: pick_run(store.runs(p.name), None, "median") for p in projects}
    token = label.split()[1]
    pair: list[BenchmarkRequest | None] = [
        None
        if isinstance(side, Path)
        else measure_side(store, f"the {role} ({side.name})", side.name, runs[side.name],
                          rounds, token, time_s, label)
        for side, role in zip(sides, ROLES, strict=True)
    ]  # fmt: skip
    if len(projects) == 1:  # the model file takes the project's settings
        request = next(r for r in pair if r is not None)
        engine, device = request.project.engine, request.project.device
        pair = [
            replace(request, project=Project(_name(s, engine, device), str(s), engine, device))
            if isinstance(s, Path)
            else r
            for r, s in zip(pair, sides, strict=True)
        ]
    elif not projects:  # two model files: bench's flags
        files = [side for side in sides if isinstance(side, Path)]  # both, as no project
        made = [request_from_args(_model_args(args, side)) for side in files]
        if len(made[0].configs) != 1:
            raise CliError(
                f"the settings give {len(made[0].configs)} configurations; a gate judges one: "
                "give one value per setting"
            )
        budget = replace(made[0].budget, time_s=time_s)
        pair = [replace(r, budget=budget, repeat=rounds, profile=False, label=label) for r in made]
    a, b = pair
    assert a is not None and b is not None
    return _named(store, a, b, host)


def _alike(store: Store, a: Project, b: Project) -> dict[str, RunResult | None]:
    """Each project's run of one configuration, chosen as `compare` chooses (its compared
    runs where they ran alike, else A's fastest configuration measured on both sides);
    CliError when the two share none: a gate measures one configuration on both sides."""
    from perftui.domain.compare import compare_projects
    from perftui.domain.compare.projects import shared_pair
    from perftui.domain.compare.settings import differing_settings

    runs = store.runs(a.name), store.runs(b.name)
    c = compare_projects(a.name, runs[0], b.name, runs[1])
    pair = c.a, c.b
    if c.a is not None and c.b is not None and c.a.config != c.b.config:
        pair = shared_pair(*runs) or (None, None)
        if pair[0] is None:
            raise CliError(
                f"the baseline ({a.name}) and the candidate ({b.name}) share no measured "
                f"configuration (their fastest runs differ in "
                f"{', '.join(differing_settings(c.a, c.b))}): a gate measures one on both "
                "sides; benchmark one with the other's settings first"
            )
    return {a.name: pair[0], b.name: pair[1]}


def _name(path: Path, engine: str, device: str) -> str:
    """A model file's project name, as bench names it."""
    from perftui.domain.names import default_project_name

    return default_project_name(str(path), engine, device)


def _named(
    store: Store, a: BenchmarkRequest, b: BenchmarkRequest, host: str
) -> tuple[BenchmarkRequest, BenchmarkRequest]:
    """A model file's side (a project not stored yet) under bench's name (`NAME@host` on a
    target, as `bench --target` names it), suffixed with its role where the two sides would
    share one; CliError where that name measures another model."""
    from perftui.domain.names import check_project_name
    from perftui.store.paths import same_target

    def named(request: BenchmarkRequest, suffix: str) -> BenchmarkRequest:
        if request.project.created_at:  # a stored project
            return request
        name = request.project.name + suffix + ("" if host == LOCAL else f"@{host}")
        return replace(request, project=replace(request.project, name=name, target=host))

    sides = [named(a, ""), named(b, "")]
    if sides[0].project.name == sides[1].project.name:
        sides = [named(r, f"-{role}") for r, role in zip((a, b), ROLES, strict=True)]
    for request in sides:
        wanted = request.project
        if wanted.created_at:
            continue
        checked_flag("the model's project name", check_project_name, wanted.name)
        existing = store.get_project(wanted.name)
        if existing is not None and not same_target(existing, wanted):
            where = "" if existing.target == LOCAL else f" of target {existing.target}"
            raise CliError(
                f"project {wanted.name!r} already measures {existing.model} on "
                f"{existing.engine}/{existing.device}{where}; rename that project "
                "(perftui projects)"
            )
    return sides[0], sides[1]
