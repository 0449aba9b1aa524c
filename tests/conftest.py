"""Shared fixtures: sample model paths and an isolated database path for every test; the
tiers each test is marked with by its nature (`pytest_collection_modifyitems`)."""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_models"
MOBILENET = SAMPLES / "mobilenet_fp32.onnx"
MOBILENET_INT8 = SAMPLES / "mobilenet_int8.onnx"
MOBILENET_IR = SAMPLES / "mobilenet_fp32.xml"
ENCODER = SAMPLES / "encoder_fp32.onnx"


@pytest.fixture(autouse=True)
def isolated_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test ever touches the user's real database."""
    path = tmp_path / "perftui-test.json"
    monkeypatch.setenv("PERFTUI_DB", str(path))
    return path


@pytest.fixture
def store(tmp_path: Path):  # -> perftui.store.database.Store, imported only where used
    from perftui.store.database import Store

    return Store(tmp_path / "data" / "perftui.json")


LAYER_PRECISION = {"f32": "FP32", "bf16": "BF16", "f16": "FP16"}
"""OpenVINO's inference precision -> the runtime precision its profile names layers with."""


def openvino_cpu_precision() -> str:
    """The inference precision OpenVINO's CPU plugin runs a float model at on this machine
    by default, as the engine reports it: 'bf16' on CPUs with AVX-512 BF16 or AMX, else
    'f32'. Tests derive what to expect of an unforced run from it."""
    import openvino as ov
    import openvino.properties.hint as hints

    return ov.Core().get_property("CPU", hints.inference_precision()).get_type_name()


# ------------------------------------------------------------------ tiers
ENGINE_MODULES = (
    "perftui.engines.openvino_engine", "perftui.engines.ort_engine",  # an engine itself
    "perftui.bench.worker", "perftui.tune.trials", "perftui.tune.worker",  # what measures
    "perftui.optimize.project", "perftui.optimize.quantize", "perftui.optimize.nncf_recipe",
    "perftui.optimize.on_engine", "perftui.optimize.accuracy",  # what quantizes and checks
    "openvino", "onnxruntime", "nncf",
)  # fmt: skip
"""Modules that load a model into a real engine: a test that calls into them (or names
them in a script it runs) is an engine test."""
ENGINE_NAMES = frozenset({"get_engine", "openvino_cpu_precision"})
"""Callables that do the same from modules that also hold lighter things."""
RUNNERS = frozenset(
    {"BenchmarkClient", "CapacityClient", "OptimizeProcess", "TuneProcess", "create_app"}
)
"""What starts a worker (the app with its real services too): on a sample model, a real
engine runs in it."""
SCRIPT_WORDS = (*(m for m in ENGINE_MODULES if m.startswith("perftui.")), "BenchmarkClient(")
"""The same, in the source of a script a test runs (`python -c SCRIPT`)."""
MEASURING = frozenset({"bench", "capacity", "tune", "optimize", "gate", "--measure"})
"""perftui's sub-commands (and compare's flag) that measure, run with a real engine."""
SSH_NAMES = frozenset({"sshd"})
"""tests/sshd.py's real OpenSSH server on the loopback address."""
TUI_NAMES = frozenset({"run_test", "snap_compare", "Pilot"})
"""Starting the Textual app (a Pilot) or a snapshot of it."""
TIERS = ("engine", "ssh", "tui", "cli")
MARKS = (*TIERS, "slow")


@dataclass
class Reach:
    """What a test reaches: the names its code uses, the string constants in it, the
    modules of the objects those names are, and the sample models among its values."""

    names: set[str] = field(default_factory=set)
    strings: set[str] = field(default_factory=set)
    modules: set[str] = field(default_factory=set)
    sample_models: bool = False


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _strings(consts: Iterable[object]) -> Iterator[str]:
    """The strings among constants, in tuples too (a literal list of strings is one)."""
    for const in consts:
        if isinstance(const, str):
            yield const
        elif isinstance(const, tuple | frozenset):
            yield from _strings(const)


def _is_sample_model(value: object) -> bool:
    return isinstance(value, str | Path) and SAMPLES in Path(value).parents


def _reach(item: pytest.Function) -> Reach:
    """Walk the test's own code, its fixtures' code and, through them, the functions of the
    tests package they call, transitively (inner functions and lambdas included)."""
    found = Reach(names=set(item.fixturenames))
    sample_names = {k for k, v in globals().items() if v == SAMPLES or _is_sample_model(v)}
    callspec = getattr(item, "callspec", None)
    params = callspec.params.values() if callspec is not None else ()
    found.sample_models = any(_is_sample_model(value) for value in params)
    infos = item._fixtureinfo.name2fixturedefs.values()
    pending: list[Callable[..., object]] = [item.function, *(d.func for ds in infos for d in ds)]
    seen: set[types.CodeType] = set()
    while pending:
        func = inspect.unwrap(pending.pop())
        code = getattr(func, "__code__", None)
        if code is None or code in seen:
            continue
        seen.add(code)
        module_globals = getattr(func, "__globals__", {})
        for inner in _code_objects(code):
            found.names.update(inner.co_names)  # imports inside a function name modules here
            found.strings.update(_strings(inner.co_consts))
            for name in inner.co_names:
                value = module_globals.get(name)
                if value is None:
                    continue
                if isinstance(value, str):  # a script held in a constant
                    found.strings.add(value)
                found.sample_models |= _is_sample_model(value)
                module = getattr(value, "__module__", None) or getattr(value, "__name__", "")
                found.modules.add(str(module))
                if callable(value) and str(module).startswith("tests"):
                    pending.append(value)
    found.sample_models |= bool(found.names & sample_names)  # imported inside a function
    return found


def _names_an_engine_module(words: set[str]) -> bool:
    return any(word.startswith(ENGINE_MODULES) for word in words)


def tiers_of(item: pytest.Function) -> list[str]:
    """What the test does: `engine` (loads a model into a real engine here or in a worker
    or a `perftui` command it starts), `ssh` (opens the loopback OpenSSH server), `tui`
    (starts the app: Pilot tests are the `async def` ones, or takes its snapshot), `cli`
    (starts perftui in another interpreter: the command, a worker, a script importing it;
    each costs an interpreter and perftui's imports)."""
    reach = _reach(item)
    scripts = {w for text in reach.strings for w in SCRIPT_WORDS if w in text}
    engines = reach.sample_models or bool(reach.strings & {"onnxruntime", "openvino"})
    command = bool(reach.strings & MEASURING) and engines  # perftui bench ... --engine X
    runner = bool(reach.names & RUNNERS) and reach.sample_models
    perftui_elsewhere = "executable" in reach.names and any(
        "perftui" in text for text in reach.strings
    )
    found = {
        "engine": command
        or runner
        or bool(reach.names & ENGINE_NAMES)
        or _names_an_engine_module(reach.names | reach.modules)
        or bool(scripts),
        "ssh": bool(reach.names & SSH_NAMES),
        "tui": inspect.iscoroutinefunction(item.function) or bool(reach.names & TUI_NAMES),
        "cli": perftui_elsewhere,
    }
    return [tier for tier in TIERS if found[tier]]


def _unmark(node: pytest.Item | pytest.Collector | None) -> None:
    while node is not None:
        node.own_markers[:] = [m for m in node.own_markers if m.name not in MARKS]
        node = node.parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by what it does (tiers_of), never by what its file says; each tier
    is also `slow`. `pytest -m "not slow"` runs the rest: pure code, fake engines, fake
    children."""
    for item in items:
        if not isinstance(item, pytest.Function):
            continue
        _unmark(item)
        tiers = tiers_of(item)
        for tier in tiers:
            item.add_marker(tier)
        if tiers:
            item.add_marker("slow")
