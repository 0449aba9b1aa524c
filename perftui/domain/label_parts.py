"""How every label writes each setting of a configuration ('b4 t2 s:auto r:auto async
p:f32 seq=64'): the parts RunConfig.label, domain.labels and the charts' short labels pick
from, so one setting reads the same wherever it is shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perftui.domain.records import RunConfig

HINT_WORDS = {"latency": "lat", "throughput": "thr", "cumulative_throughput": "cum"}
"""How labels write a performance hint."""
API_HINT = {"sync": "latency", "async": "throughput"}
"""The hint `--hint auto` picks for each api: a label says a hint only when it is another."""
LabelPart = tuple[str, str, bool]
"""(setting, text, quiet): quiet where the setting is a default a whole label leaves out
(no precision asked, the api's own hint); a label of what differs says it all the same."""


def config_parts(config: RunConfig) -> list[LabelPart]:
    """The parts of every label of `config`, in the order labels read: batch, threads,
    streams, requests, hint, api, the precision asked, the dims."""
    from perftui.domain.records import AUTO  # records builds its labels from this module

    threads = "t:auto" if config.threads == 0 else f"t{config.threads}"
    streams = "s:auto" if config.streams == AUTO else f"s{config.streams}"
    requests = "r:auto" if config.requests == AUTO else f"r{config.requests}"
    hint = HINT_WORDS.get(config.hint, config.hint)
    parts = [
        ("batch", f"b{config.batch}", False),
        ("threads", threads, False),
        ("streams", streams, False),
        ("requests", requests, False),
        ("hint", hint, API_HINT.get(config.api) == config.hint),
        ("api", config.api, False),
        ("precision", f"p:{config.precision or 'auto'}", not config.precision),
    ]
    return parts + [(f"dim {name}", f"{name}={value}", False) for name, value in config.dims]
