"""Why a setting was refused, in words an operator can act on: the variable, the
problem, the value given and what the variable accepts."""

import types
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Union, get_args, get_origin

import annotated_types as at
import pydantic
from pydantic import SecretStr
from pydantic.fields import FieldInfo

from sediment.settings import Settings

PREFIX = "SEDIMENT_"
BOUNDS = ((at.Gt, "gt", ">"), (at.Ge, "ge", ">="), (at.Lt, "lt", "<"), (at.Le, "le", "<="))


def _kind(annotation: object) -> str:
    """What one type accepts, in words; `X | None` reads as X (unset is always allowed)."""
    origin = get_origin(annotation)
    if origin is Literal:
        return "one of " + ", ".join(str(a) for a in get_args(annotation))
    if origin in (Union, types.UnionType):
        return " or ".join(_kind(a) for a in get_args(annotation) if a is not type(None))
    names: dict[object, str] = {
        bool: "true or false",
        int: "an integer",
        float: "a number",
        Path: "a path",
        SecretStr: "a non-empty secret",
    }
    return names.get(annotation, "text")


def _bounds(info: FieldInfo) -> list[str]:
    out = []
    for meta in info.metadata:
        for cls, attr, sign in BOUNDS:
            if isinstance(meta, cls):
                bound = getattr(meta, attr)
                out.append(f"{sign} {bound:g}" if isinstance(bound, float) else f"{sign} {bound}")
        if getattr(meta, "pattern", None):
            out.append(f"matching {meta.pattern}")
    return out


def accepted(field: str) -> str:
    """What `SEDIMENT_<FIELD>` accepts, e.g. "a number >= 0 and <= 1"."""
    info = Settings.model_fields[field]
    bounds = " and ".join(_bounds(info))
    return f"{_kind(info.annotation)} {bounds}".strip()


def variable(loc: Sequence[int | str]) -> str:
    return PREFIX + "_".join(str(p) for p in loc).upper() if loc else "settings"


def problems(exc: pydantic.ValidationError) -> list[str]:
    """One line per refused variable: name, problem, the value given, what it accepts."""
    lines = []
    for e in exc.errors():
        loc, msg = e["loc"], str(e["msg"]).removeprefix("Value error, ")
        line = f"{variable(loc)}: {msg}"
        if loc and str(loc[0]) in Settings.model_fields:
            line += f" (got {e.get('input')!r}; accepted: {accepted(str(loc[0]))})"
        lines.append(line)
    return lines
