"""ONNX Runtime engine: one InferenceSession; async = N Python threads calling session.run.

ONNX Runtime releases the GIL inside `run`, so concurrent threads on one session overlap;
latency is the wall time of each `run` call (perf_counter), Python call overhead included,
which is what a bare `session.run` loop would measure.
"""

from __future__ import annotations

import functools
import json
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from time import perf_counter

import numpy as np
import onnxruntime as ort

from perftui.domain.errors import InputError
from perftui.domain.records import LayerProfile, RunConfig, TensorSpec
from perftui.domain.resolved import Resolved
from perftui.engines.base import (
    PROFILE_WARMUP,
    Engine,
    LoadedModel,
    Prepared,
    Recorder,
    check_profile_request,
    elapsed_ms,
    request_count,
)
from perftui.engines.capabilities import ONNXRUNTIME
from perftui.engines.ort_config import (
    IGNORED_PROVIDERS,
    OPTIMIZED_WEIGHTS_FILE,
    OPTIMIZED_WEIGHTS_MIN,
    check_fixed_dims,
    declared_inputs,
    device_name,
    first_line,
    onnx_model_file,
    session_options,
    static_inputs,
)
from perftui.engines.ort_profile import load_graph, load_graph_bytes, profile_rows
from perftui.threads import Parallel

ASYNC_AUTO_REQUESTS = 2


class OrtPrepared(Prepared):
    """One InferenceSession; `requests` threads share it in async mode."""

    def __init__(
        self,
        *,
        inputs: list[TensorSpec],
        read_ms: float,
        compile_ms: float,
        resolved: Resolved,
        session: ort.InferenceSession,
        model_bytes: bytes,
        model_path: Path,
        threads: int,
        providers: list[str],
        profile: bool,
    ) -> None:
        super().__init__(inputs=inputs, read_ms=read_ms, compile_ms=compile_ms, resolved=resolved)
        self._session = session
        self._model_bytes = model_bytes if profile else b""  # kept only for the profile pass
        self._model_path = model_path
        self._threads = threads
        self._providers = providers
        self._profile = profile
        self._feeds: dict[str, np.ndarray] | None = None
        self._samples: list[dict[str, np.ndarray]] = []

    def bind(
        self, feeds: Mapping[str, np.ndarray], others: Sequence[Mapping[str, np.ndarray]] = ()
    ) -> None:
        self._samples = [self._checked(sample) for sample in (feeds, *others)]
        self._feeds = self._samples[0]

    def _checked(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        self.check_feeds(feeds)
        bound = {}
        for spec in self.inputs:
            data = np.ascontiguousarray(feeds[spec.name], dtype=np.dtype(spec.dtype))
            if tuple(data.shape) != tuple(spec.shape):
                raise InputError(
                    f"input {spec.name!r} data has shape {list(data.shape)}, "
                    f"the session expects {list(spec.shape)}"
                )
            bound[spec.name] = data
        return bound

    def infer_once(self) -> float:
        feeds = self._bound_feeds()
        start = perf_counter()
        self._session.run(None, feeds)
        return perf_counter() - start

    def run_async(self, recorder: Recorder) -> None:
        self._bound_feeds()
        samples = self._samples
        run = self._session.run
        done = recorder.done
        record = recorder.record

        def request(feeds: dict[str, np.ndarray]) -> None:
            while not requests.failed and not done():
                start = perf_counter()
                run(None, feeds)
                record(perf_counter() - start)

        requests = Parallel(request, "perftui-ort-request")
        recorder.begin()
        requests.run([samples[i % len(samples)] for i in range(int(self.resolved["requests"]))])

    def slots(self, n: int) -> list[Callable[[], object]]:
        """`session.run` is thread-safe and releases the GIL: the slots share the session."""
        self._bound_feeds()
        samples, run = self._samples, self._session.run
        return [functools.partial(run, None, samples[i % len(samples)]) for i in range(n)]

    def layer_profile(self, iterations: int) -> list[LayerProfile]:
        """Per-node kernel times from ONNX Runtime's profiler, in a fresh profiling session so
        that neither earlier runs nor the profiler's event limit can distort them."""
        check_profile_request(self._profile, iterations)
        feeds = self._bound_feeds()
        with tempfile.TemporaryDirectory(prefix="perftui-ort-profile-") as folder:
            options = session_options(self._threads, self._model_path)
            options.enable_profiling = True
            options.profile_file_prefix = str(Path(folder) / "profile")
            optimized = Path(folder) / "optimized.onnx"
            options.optimized_model_filepath = str(optimized)
            options.add_session_config_entry(OPTIMIZED_WEIGHTS_FILE, "optimized.weights")
            options.add_session_config_entry(OPTIMIZED_WEIGHTS_MIN, "1024")
            session = ort.InferenceSession(
                self._model_bytes, sess_options=options, providers=self._providers
            )
            for _ in range(PROFILE_WARMUP + iterations):
                session.run(None, feeds)
            with open(session.end_profiling(), encoding="utf-8") as handle:
                events = json.load(handle)
            graph = load_graph(optimized)
        original = load_graph_bytes(self._model_bytes)
        return profile_rows(events, iterations, graph, original)

    def _bound_feeds(self) -> dict[str, np.ndarray]:
        if self._feeds is None:
            raise RuntimeError("bind() input data before running requests")
        return self._feeds


class OrtEngine(Engine):
    capabilities = ONNXRUNTIME

    def version(self) -> str:
        return ort.__version__

    def devices(self) -> list[str]:
        return [device_name(p) for p in self._providers() if p not in IGNORED_PROVIDERS]

    def model_inputs(self, model_path: str) -> list[TensorSpec]:
        return declared_inputs(onnx_model_file(model_path))

    def check_shapes(
        self, declared: Sequence[TensorSpec], shapes: Mapping[str, tuple[int, ...]], batch: int
    ) -> None:
        for spec in declared:
            if spec.name in shapes:
                check_fixed_dims(spec.name, spec.shape, shapes[spec.name], batch)

    def prepare(
        self,
        model_path: str,
        device: str,
        config: RunConfig,
        shapes: Mapping[str, tuple[int, ...]],
        *,
        profile: bool = False,
    ) -> OrtPrepared:
        providers = self._providers_for(device)
        self.check_config(config)
        requests = request_count(config, lambda: ASYNC_AUTO_REQUESTS)
        path = onnx_model_file(model_path)
        start = time.perf_counter()
        model_bytes = path.read_bytes()
        read_ms = elapsed_ms(start)
        options = session_options(config.threads, path)
        start = time.perf_counter()
        try:
            session = ort.InferenceSession(model_bytes, sess_options=options, providers=providers)
        except Exception as error:
            raise InputError(
                f"could not read model {path} with onnxruntime: {first_line(error)}"
            ) from error
        compile_ms = elapsed_ms(start)
        inputs = static_inputs(session, shapes, config.batch)
        resolved = Resolved(
            streams=1,
            threads=config.threads if config.threads > 0 else None,  # auto: ORT does not say
            requests=requests,
            hint=None,
            precision="model",
            shapes={spec.name: [int(d) for d in spec.shape] for spec in inputs},  # static
            device=device,
            providers=list(session.get_providers()),
        )
        return OrtPrepared(
            inputs=inputs,
            read_ms=read_ms,
            compile_ms=compile_ms,
            resolved=resolved,
            session=session,
            model_bytes=model_bytes,
            model_path=path,
            threads=config.threads,
            providers=providers,
            profile=profile,
        )

    def check_config(self, config: RunConfig) -> None:
        super().check_config(config)
        if config.threads < 0:
            raise InputError(f"threads must be 0 (engine default) or more, not {config.threads}")

    def load_outputs(
        self, model_path: str, device: str, shapes: Mapping[str, tuple[int, ...]], exact: bool
    ) -> LoadedModel:
        """A session on the device's execution provider (CPU behind it); it runs the model's
        own precision, so `exact` changes nothing, and the inputs carry their shapes."""
        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(model_path, options, providers=self._providers_for(device))
        names = tuple(o.name for o in session.get_outputs())
        return LoadedModel(
            names, lambda feeds: list(session.run(list(names), dict(feeds))), "model"
        )

    def check_device(self, device: str) -> None:
        self._providers_for(device)

    @staticmethod
    def _providers() -> list[str]:
        return list(ort.get_available_providers())

    def _providers_for(self, device: str) -> list[str]:
        """Execution providers for a device name; the CPU provider backs up any other."""
        for provider in self._providers():
            if provider in IGNORED_PROVIDERS:
                continue
            if device.upper() in (device_name(provider).upper(), provider.upper()):
                if provider == "CPUExecutionProvider":
                    return [provider]
                return [provider, "CPUExecutionProvider"]
        raise InputError(
            f"device {device!r} is not available to onnxruntime on this machine; "
            f"available: {', '.join(self.devices()) or 'none'}"
        )


ENGINE = OrtEngine()
