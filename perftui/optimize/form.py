"""The optimize dialog's fields, checked as typed with the forms' one vocabulary
(perftui.domain.forms.fields) before the child starts; deeper checks (the folder's files, shapes
against the model) are the worker's.

The dashboard loads this module, so it imports only the standard library, perftui.domain and
the runner's OptimizeOptions (perftui.optimize.runner, standard library only): no numpy, no engine.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path

from perftui.domain.errors import InputError
from perftui.domain.forms.fields import Form, whole_number
from perftui.domain.forms.options import parse_shapes
from perftui.domain.limits import DEFAULT_RANDOM_SAMPLES as DEFAULT_RANDOM_SAMPLES
from perftui.domain.limits import check_samples
from perftui.domain.names import check_project_name, int8_name
from perftui.domain.records import METHODS
from perftui.optimize.runner import OptimizeOptions

suggest_name = int8_name  # the dialog's name for it (perftui.tui.optimize)


def _method(text: str) -> str:
    if text.strip() not in METHODS:
        raise InputError(f"choose {' or '.join(METHODS)}")
    return text.strip()


def _calibration(text: str) -> str | None:
    """The folder as an absolute path; None (random data) when empty."""
    text = text.strip()
    if not text:
        return None
    path = Path(text).expanduser()
    if not path.exists():
        raise InputError(f"no such folder: {text}")
    if not path.is_dir():
        raise InputError(f"{text} is a file; give the folder that holds the samples")
    return str(path.absolute())


def _shapes(text: str) -> tuple[str, ...]:
    text = text.strip()
    if text:
        parse_shapes([text])
    return (text,) if text else ()


def optimize_form(existing: Collection[str] = ()) -> Form:
    """The dialog's fields; `existing` are the project names a new project may not take."""

    def name(text: str) -> str:
        text = text.strip()
        if not text:
            raise InputError("the new project needs a name")
        check_project_name(text)
        if text in existing:
            raise InputError(f"project '{text}' already exists; choose another name")
        return text

    return Form(
        {
            "method": _method,
            "calibration": _calibration,
            "samples": lambda t: check_samples(whole_number(t, "samples", optional=True)),
            "shapes": _shapes,
            "name": name,
        },
        defaults={},
    )


FORM_FIELDS = tuple(optimize_form().parsers)


def check_field(name: str, text: str, existing: Collection[str] = ()) -> str | None:
    """Why the form's field `name` cannot be used as typed, or None."""
    return optimize_form(existing).check(name, text)


def options_from_form(
    project: str, values: Mapping[str, str], existing: Collection[str] = ()
) -> OptimizeOptions:
    """The options the form asks for; FieldError names the first field that cannot be used."""
    v = optimize_form(existing).parse_all(values)
    return OptimizeOptions(project=project, **v)


def form_from_options(options: OptimizeOptions) -> dict[str, str]:
    """The form's values for `options` (to edit them again after a failure)."""
    return {
        "method": options.method,
        "calibration": options.calibration or "",
        "samples": "" if options.samples is None else str(options.samples),
        "shapes": ",".join(options.shapes),
        "name": options.name or "",
    }
