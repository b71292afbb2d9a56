"""Spans from two processes, in one form: the in-memory exporter's `ReadableSpan`s of
the test process and the JSON lines a worker wrote (`SEDIMENT_OTEL_FILE`, the console
exporter's JSON). Rendered as the trees and the span docs/tracing.md shows, with what
changes from run to run (ids, times, hosts) left out, so the page can be checked."""

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan

SHOWN = re.compile(
    r"^(gen_ai\.|sediment\.|db\.|messaging\.(?!message\.id)|celery\.(action|task_name)$"
    r"|http\.(route|status_code|method)$)"
)


@dataclass(frozen=True)
class Rec:
    name: str
    kind: str
    service: str
    trace_id: str
    span_id: str
    parent_id: str | None
    start: str
    attributes: Mapping[str, Any]
    links: tuple[str, ...]
    raw: str


def from_sdk(spans: Iterable[ReadableSpan]) -> list[Rec]:
    return [from_json(json.loads(s.to_json())) for s in spans]


def from_file(path: Path) -> list[Rec]:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [from_json(json.loads(line)) for line in lines if line.strip()]


def from_json(span: dict[str, Any]) -> Rec:
    return Rec(
        name=span["name"],
        kind=span["kind"].removeprefix("SpanKind."),
        service=span["resource"]["attributes"].get("service.name", ""),
        trace_id=span["context"]["trace_id"],
        span_id=span["context"]["span_id"],
        parent_id=span.get("parent_id"),
        start=span["start_time"],
        attributes=span.get("attributes") or {},
        links=tuple(link["context"]["span_id"] for link in span.get("links") or []),
        raw=json.dumps(span, indent=4),
    )


def chain(span: Rec, spans: list[Rec]) -> list[Rec]:
    """`span` and its ancestors, up to its trace's root."""
    by_id = {s.span_id: s for s in spans}
    out = [span]
    while out[-1].parent_id is not None:
        out.append(by_id[out[-1].parent_id])
    return out


def tree(root: Rec, spans: list[Rec], replace: Mapping[str, str]) -> list[str]:
    """One line per span, children indented under their parent, in start order."""
    lines: list[str] = []

    def walk(span: Rec, depth: int) -> None:
        shown = {k: v for k, v in sorted(span.attributes.items()) if SHOWN.match(k)}
        attrs = " ".join(f"{k}={_value(v)}" for k, v in shown.items())
        link = f" links={len(span.links)}" if span.links else ""
        line = f"{'  ' * depth}{span.name} [{span.kind}, {span.service}]{link} {attrs}".rstrip()
        lines.append(_replaced(line, replace))
        children = [s for s in spans if s.parent_id == span.span_id]
        for child in sorted(children, key=lambda s: s.start):
            walk(child, depth + 1)

    walk(root, 0)
    return lines


def normalised_json(span: Rec, spans: list[Rec], replace: Mapping[str, str]) -> str:
    """The span's exporter JSON with ids, times, hosts and versions as placeholders."""
    data = json.loads(span.raw)
    names = {s.span_id: s.name for s in spans}
    data["context"]["trace_id"] = "<trace id>"
    data["context"]["span_id"] = f"<span id of {span.name}>"
    if data.get("parent_id"):
        data["parent_id"] = f"<span id of {names.get(data['parent_id'], 'its parent')}>"
    for link in data.get("links") or []:
        link["context"]["trace_id"] = "<trace id>"
        link["context"]["span_id"] = f"<span id of {names.get(link['context']['span_id'], '?')}>"
    data["start_time"], data["end_time"] = "<start>", "<end>"
    resource = data["resource"]["attributes"]
    for key in ("service.version", "telemetry.sdk.version", "service.instance.id"):
        if key in resource:
            resource[key] = f"<{key}>"
    return _replaced(json.dumps(data, indent=4), replace)


def _value(v: object) -> str:
    return json.dumps(v) if isinstance(v, list | str) else str(v)


def _replaced(text: str, replace: Mapping[str, str]) -> str:
    for old, new in replace.items():
        text = text.replace(old, new)
    return text
