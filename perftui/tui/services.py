"""What the dashboard asks of the rest of perftui, behind one injectable object.

The defaults call the real engines (device lists), the model inspector, the request
validator, the child-process benchmark client and the child-process `perftui optimize`;
tests pass fakes. Every call here may be slow or import an engine library, so screens make
them from thread workers only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from perftui.bench.alternate import Measured
from perftui.domain.records import BenchmarkRequest
from perftui.engines import ENGINES

if TYPE_CHECKING:
    from pathlib import Path

    from perftui.bench.alternate import Alternation
    from perftui.domain.compare import Comparison
    from perftui.domain.forms.tune import TuneSpec
    from perftui.domain.model.model_info import ModelInfo
    from perftui.domain.tune.result import Trial
    from perftui.optimize.runner import OptimizeEvent, OptimizeOptions
    from perftui.store.database import Store
    from perftui.targets.fleet import Fleet, SerialStore
    from perftui.targets.probe import Probe
    from perftui.targets.registry import Target
    from perftui.tune.search import Outcome


Client = Measured
"""The part of perftui.bench.client.BenchmarkClient the dashboard uses (the part the
alternation of `compare --measure` uses too)."""


class Optimizer(Protocol):
    """The part of perftui.optimize.runner.OptimizeProcess the dashboard uses."""

    def events(self) -> Iterator[OptimizeEvent]: ...

    def cancel(self) -> None: ...

    def kill(self) -> None: ...


class Tuning(Protocol):
    """The part of perftui.tune.runner.TuneProcess the dashboard uses."""

    outcome: Outcome | None

    def trials(self) -> Iterator[Trial]: ...

    def cancel(self) -> None: ...

    def kill(self) -> None: ...


def probe_devices() -> dict[str, list[str] | str]:
    """Engine name -> the devices it reports here, or the one-line reason it cannot be used."""
    from perftui.engines import get_engine

    found: dict[str, list[str] | str] = {}
    for name in ENGINES:
        try:
            devices = list(get_engine(name).devices())
            found[name] = devices or f"{name} reports no devices on this machine"
        except Exception as error:  # a missing or broken engine library
            text = str(error).strip().splitlines()
            found[name] = f"{name} cannot be used: {text[0] if text else type(error).__name__}"
    return found


def inspect(path: str, shapes: Mapping[str, tuple[int, ...]] | None = None) -> ModelInfo:
    """Inputs, outputs, parameters and FLOPs of a model file (InputError for a bad file)."""
    from perftui.inspection import inspect_model, validate_model_file

    validate_model_file(path)
    return inspect_model(path, dict(shapes) if shapes else None)


def validate(request: BenchmarkRequest) -> None:
    """InputError when the request cannot run (model, engine, device or shapes)."""
    from perftui.bench.plan import validate_request

    validate_request(request)


def client(request: BenchmarkRequest, store: Store | SerialStore) -> Client:
    """A benchmark client that runs the request in a child process and stores each run; on
    the project's SSH target when it names one (the model is placed there first)."""
    from perftui.bench.client import BenchmarkClient
    from perftui.targets.launcher import priced, target_launcher

    made = BenchmarkClient(request, store, target_launcher(request, store.path))
    made.launcher = priced(made.launcher, store.path, request.project.target)  # its price
    return made


def measure_requests(
    store: Store, comparison: Comparison, rounds: int
) -> tuple[BenchmarkRequest, BenchmarkRequest]:
    """The requests that measure A's and B's compared runs again, alternately (InputError
    for what cannot be); `alternate` runs them."""
    from perftui.bench.alternate import measure_requests as requests

    return requests(store, comparison, rounds)


def alternate(a: Client, b: Client) -> Alternation:
    """Two clients' rounds in turn, A B, B A, ... (`perftui compare --measure`)."""
    from perftui.bench.alternate import Alternation

    return Alternation(a, b)


def target_names(db_path: Path) -> list[str]:
    """The SSH targets configured beside the database at `db_path` (InputError if unreadable)."""
    from perftui.targets.registry import TargetBook

    return [target.name for target in TargetBook(db_path).all()]


def probe_target(target: Target) -> Probe:
    """What the host is (CPU, ISA, engines and their devices there), or why it cannot run a
    benchmark; `target` named local is this machine. Never raises."""
    from perftui.targets.probe import probe, this_machine
    from perftui.targets.registry import LOCAL

    if target.name == LOCAL:
        target = this_machine(target.price_per_hour)
    return probe(target, devices=True)


def target_devices(db_path: Path, name: str) -> dict[str, list[str] | str]:
    """Engine -> the devices it reports on the target `name` (probed there), or the
    one-line reason it cannot be used there."""
    from perftui.domain.errors import InputError
    from perftui.targets.probe import probe
    from perftui.targets.registry import TargetBook

    try:
        found = probe(TargetBook(db_path).get(name), devices=True)
    except InputError as error:
        return dict.fromkeys(ENGINES, str(error))
    if found.error or found.devices is None:
        return dict.fromkeys(ENGINES, found.error or f"target {name} gave no device list")
    return {e: found.devices.get(e) or f"{e} reports no devices on {name}" for e in ENGINES}


def setup_target(target: Target, say: Callable[[str], None]) -> str:
    """Install this perftui into a venv on the host (as `perftui targets setup`); the python
    there that has it. TargetError when it cannot."""
    from perftui.targets.setup import setup_target as install

    return install(target, "python3", (), say)


def optimize(options: OptimizeOptions, db_path: Path) -> Optimizer:
    """Optimize in a child process; the project it makes is stored here, in the database at
    `db_path` (not yet started: `events()` runs it)."""
    from perftui.optimize.runner import OptimizeProcess

    return OptimizeProcess(options, db_path)


def tune(spec: TuneSpec, store: Store) -> Tuning:
    """A search in a child process; each trial's runs are stored here as they land (not yet
    started: `trials()` runs it)."""
    from perftui.targets.registry import LOCAL, TargetBook
    from perftui.tune.runner import TuneProcess

    return TuneProcess(spec, store, TargetBook(store.path).price(LOCAL))


def cores() -> int:
    from perftui.tune.runner import cores as usable

    return usable()


def busy_reasons() -> list[str]:
    """Why the machine is already busy with other work before a benchmark starts, judged as
    `perftui bench` judges it ([] when it is not, or where it cannot be read)."""
    from perftui.bench.machine import busy_reasons as judged

    return judged()


@dataclass
class Services:
    """The dashboard's back ends; replace any of them in tests."""

    devices: Callable[[], dict[str, list[str] | str]] = probe_devices
    inspect: Callable[[str, Mapping[str, tuple[int, ...]] | None], ModelInfo] = inspect
    validate: Callable[[BenchmarkRequest], None] = validate
    client: Callable[[BenchmarkRequest, Store | SerialStore], Client] = client
    measure_requests: Callable[
        [Store, Comparison, int], tuple[BenchmarkRequest, BenchmarkRequest]
    ] = measure_requests
    alternate: Callable[[Client, Client], Alternation] = alternate
    targets: Callable[[Path], list[str]] = target_names
    probe_target: Callable[[Target], Probe] = probe_target
    target_devices: Callable[[Path, str], dict[str, list[str] | str]] = target_devices
    setup_target: Callable[[Target, Callable[[str], None]], str] = setup_target
    optimize: Callable[[OptimizeOptions, Path], Optimizer] = optimize
    busy: Callable[[], list[str]] = busy_reasons
    tune: Callable[[TuneSpec, Store], Tuning] = tune
    cores: Callable[[], int] = cores

    def fleet(self, request: BenchmarkRequest, hosts: list[str], store: Store) -> Fleet:
        """`request` on each of `hosts` at once (perftui.targets.fleet, as `bench --target
        a,b`): each host's client made by `client`, the runs stored one write at a time."""
        from perftui.targets.fleet import Fleet, SerialStore, shares

        serial = SerialStore(store)
        return Fleet(
            shares(request, hosts),
            lambda share, _say: self.client(share.request, serial),
        )
