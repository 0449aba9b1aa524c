"""The registry of benchmark settings (perftui.domain.settings): every RunConfig field is one of
its settings, every list of settings derives from it, and keys of configurations come from the
settings themselves, so a new setting (CPU pinning) reaches each without a hand edit."""

from __future__ import annotations

import csv
import io
from dataclasses import fields, replace

import pytest

from perftui.domain.compare.settings import differing_settings
from perftui.domain.errors import InputError
from perftui.domain.forms.bench import DEFAULTS, FIELDS, build_request, check_field
from perftui.domain.forms.fields import FieldError
from perftui.domain.records import Project, RunConfig, RunResult
from perftui.domain.settings import SETTINGS, expand_matrix, key
from perftui.domain.tune.guide import neighbours
from perftui.engines.capabilities import ONNXRUNTIME, OPENVINO
from perftui.exchange import schema
from perftui.exchange.documents import CSV_COLUMNS

OV = Project("ov", "/m.xml", "openvino")
ORT = Project("ort", "/m.onnx", "onnxruntime")


def test_every_field_of_a_configuration_is_a_setting_in_label_order():
    assert [s.name for s in SETTINGS] == [f.name for f in fields(RunConfig)]


def test_keys_leave_out_only_what_they_name():
    a = RunConfig(batch=1, precision="f16")
    assert key(a, without=("batch",)) == key(replace(a, batch=8), without=("batch",))
    # a hand tuple of "everything but the batch" once left precision and dims out
    assert key(a, without=("batch",)) != key(replace(a, precision="bf16"), without=("batch",))
    assert key(a, without=("batch",)) != key(replace(a, pinning="on"), without=("batch",))


def test_tune_neighbours_differ_in_one_knob_alone():
    best = RunConfig(batch=2, threads=2, api="async", hint="throughput")
    other_precision = replace(best, batch=4, precision="bf16")
    same = replace(best, batch=4)
    assert neighbours(best, [other_precision, same]) == [same]


def test_pinning_is_a_setting_end_to_end():
    values = {**DEFAULTS, "pinning": "on,off"}
    configs = build_request(OV, values, capabilities=OPENVINO).configs
    assert [c.pinning for c in configs] == ["on", "off"]
    assert [c.label() for c in configs] == ["b1 t:auto s:auto r:auto sync pin:on",
                                            "b1 t:auto s:auto r:auto sync pin:off"]  # fmt: skip
    assert RunConfig().label() == "b1 t:auto s:auto r:auto sync"  # auto: quiet
    assert any(f.name == "pinning" and f.label == "CPU pinning" for f in FIELDS)
    runs = [RunResult(config=c) for c in configs]
    assert differing_settings(*runs) == ["pinning on vs off"]
    assert "pinning" in CSV_COLUMNS
    # stored, imported, and read back; an old stored configuration has none: auto
    assert RunConfig.from_dict(configs[0].to_dict()) == configs[0]
    assert schema.config(configs[0].to_dict(), "config")["pinning"] == "on"
    with pytest.raises(schema.SchemaError, match=r"config\.pinning: expected one of auto, on"):
        schema.config({**configs[0].to_dict(), "pinning": "maybe"}, "config")
    # stored only where set: what was stored before pinning existed reads and writes the same
    assert "pinning" not in RunConfig().to_dict()
    assert RunConfig.from_dict(RunConfig().to_dict()).pinning == "auto"


def test_an_engine_that_does_not_take_pinning_refuses_it_in_one_line():
    reason = check_field("pinning", "on", ONNXRUNTIME) or ""
    assert reason.startswith("onnxruntime does not take pinning on") and "\n" not in reason
    assert check_field("pinning", "auto", ONNXRUNTIME) is None
    assert check_field("pinning", "on", OPENVINO) is None
    assert "choose from: auto, on, off" in (check_field("pinning", "always") or "")
    with pytest.raises(FieldError) as error:
        build_request(ORT, {**DEFAULTS, "pinning": "auto,off"}, capabilities=ONNXRUNTIME)
    assert error.value.field == "pinning"


def test_csv_writes_each_setting_in_its_column():
    from perftui.domain.settings import BY_NAME

    config = RunConfig(dims=(("seq", 64),), pinning="off")
    assert BY_NAME["dims"].csv(config.dims) == "seq=64"
    header = next(csv.reader(io.StringIO(",".join(CSV_COLUMNS))))
    assert header[6 : 6 + len(SETTINGS)] == [s.name for s in SETTINGS]


def test_the_matrix_refuses_a_value_no_setting_takes():
    with pytest.raises(InputError, match="unknown pinning 'sometimes'"):
        expand_matrix({"pinning": ["sometimes"]})
