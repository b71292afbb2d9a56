"""The tool list as an agent reads it: what each tool takes, in few characters.

A client sends `tools/list` to the model with every conversation, so each byte of it
is paid again and again. The schemas the SDK derives from the tools' signatures are
written for validators: a title on every field, `anyOf` with null for each optional
one, the 370-character pattern of a date and time wherever one is taken, the
printable-text pattern of each label, definitions under `$defs`, and an output schema
per tool that the answers' own text already describes. They came to 34 KB.

Here each tool is listed with its input schema only, cut to what tells a model what
to send: types, enums, bounds, formats, defaults worth knowing and one short
description per field. The server still validates every call against the full
signature (sediment/mcp_tools/tools.py), so nothing listed is looser than what is
checked, only shorter.
"""

from collections.abc import Mapping
from typing import Any, Final

from mcp.types import Tool

Schema = dict[str, Any]

DROPPED: Final = frozenset(
    {
        "title",
        "pattern",
        "patternProperties",
        "propertyNames",
        "not",
        "maxLength",
        "maxItems",
        "maxProperties",
    }
)
"""Keywords a model does not need to write a valid call: patterns and size caps the
server enforces anyway, naming the field when one is broken. Numeric bounds and
"not empty" (`minLength`, `minItems`) stay: they change what a model would send."""
PLAIN_DEFAULTS: Final[tuple[object, ...]] = (None, [], {})
"""Defaults that say nothing an omitted field does not."""
DEFS_PREFIX: Final = "#/$defs/"


def listed(tool: Tool, hidden: frozenset[str] = frozenset()) -> Tool:
    """`tool` as `tools/list` shows it: its compact input schema without the `hidden`
    arguments, a description on one line, and no output schema."""
    schema = compact(tool.input_schema)
    properties = schema.get("properties", {})
    for name in hidden:
        properties.pop(name, None)
    kept = tool.model_dump(exclude_unset=True, exclude={"input_schema", "output_schema"})
    return Tool.model_validate(
        {**kept, "input_schema": schema, "description": one_line(tool.description)}
    )


def one_line(text: str | None) -> str | None:
    """A docstring's lines and indentation as single spaces."""
    return None if text is None else " ".join(text.split())


def compact(schema: Mapping[str, Any]) -> Schema:
    """The schema with `$ref`s inlined, `anyOf [X, null]` as X, and the keywords and
    defaults above left out."""
    defs = schema.get("$defs", {})
    return _node(schema, defs)


def _node(node: Mapping[str, Any], defs: Mapping[str, Any]) -> Schema:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(DEFS_PREFIX):
        return _node({**defs[ref.removeprefix(DEFS_PREFIX)], **_without(node, "$ref")}, defs)
    options = node.get("anyOf")
    if isinstance(options, list):
        kept = [o for o in options if o != {"type": "null"}]
        if len(kept) == 1:
            inner = _node(kept[0], defs)
            outer = _node(_without(node, "anyOf"), defs)
            return {**inner, **outer}
    out: Schema = {}
    for key, value in node.items():
        if key in DROPPED or key == "$defs":
            continue
        if key == "default" and value in PLAIN_DEFAULTS:
            continue
        if key == "properties":
            out[key] = {name: _node(sub, defs) for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            out[key] = _node(value, defs)
        elif key == "anyOf":
            out[key] = [_node(o, defs) for o in value]
        else:
            out[key] = value
    return out


def _without(node: Mapping[str, Any], key: str) -> Schema:
    return {k: v for k, v in node.items() if k != key}
