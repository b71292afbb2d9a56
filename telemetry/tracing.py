"""Spans of Sediment's own operations, through a port: the recall pipeline, the store,
the worker and the retain path say what they do here, and only the process's bootstrap
decides whether that reaches OpenTelemetry (`telemetry/otel.py`, the `otel` extra).

The default is `NOOP_TRACER`: nothing is imported, nothing allocated beyond a shared
no-op span, so a process without tracing pays a method call per operation.

What a span may carry is fixed here too: bank ids, counts, ids and timings. Memory
text, queries and tags never go into a name, an attribute or an event; errors are
recorded by class (`error.type`), never by message (a validation message can repeat
the text it rejected).

Names and attributes follow the OpenTelemetry semantic conventions where they define
them (docs/tracing.md says which versions): the GenAI memory operations for retain,
recall and forget, `execute_tool` for MCP tools, messaging for the queue and database
client spans for the store.
"""

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from enum import Enum
from typing import Final, Protocol

AttributeValue = str | bool | int | float | Sequence[str] | Sequence[int]
Attributes = Mapping[str, AttributeValue]
Carrier = Mapping[str, str]
"""W3C trace context as a message carries it (`traceparent`, `tracestate` headers)."""

TRACE_HEADERS: Final = ("traceparent", "tracestate")

OPERATION: Final = "gen_ai.operation.name"
PROVIDER: Final = "gen_ai.provider.name"
STORE_ID: Final = "gen_ai.memory.store.id"
RECORD_COUNT: Final = "gen_ai.memory.record.count"
TOOL_NAME: Final = "gen_ai.tool.name"
SEARCH_MEMORY: Final = "search_memory"
UPDATE_MEMORY: Final = "update_memory"
DELETE_MEMORY: Final = "delete_memory"
EXECUTE_TOOL: Final = "execute_tool"
PROVIDER_NAME: Final = "sediment"
ERROR_TYPE: Final = "error.type"


class SpanKind(Enum):
    INTERNAL = "internal"
    SERVER = "server"
    CLIENT = "client"
    PRODUCER = "producer"
    CONSUMER = "consumer"


class Span(Protocol):
    def set_attributes(self, attributes: Attributes) -> None: ...

    @property
    def ref(self) -> object:
        """This span, as a parent or a link of another (opaque to callers)."""


class Tracer(Protocol):
    @property
    def enabled(self) -> bool:
        """False: spans cost nothing and record nothing; skip work done only for them."""

    def span(
        self,
        name: str,
        attributes: Attributes | None = None,
        *,
        kind: SpanKind = SpanKind.INTERNAL,
        parent: object | None = None,
        links: Sequence[object] = (),
        current: bool = True,
    ) -> AbstractContextManager[Span]:
        """A span for the block. `parent`: a `ref` or a `remote` context (default: the
        current span); `links`: refs of spans it relates to (a batch's messages);
        `current`: whether spans started within are its children."""

    def remote(self, carrier: Carrier) -> object | None:
        """The context a message carries, to parent or link a span to; None if none."""

    def current(self) -> object | None:
        """The current span's ref; None outside any span (a store call outside a traced
        operation, such as the bookkeeping after a recall, makes no trace of its own)."""

    def finished(self, name: str, start_s: float, end_s: float, attributes: Attributes) -> None:
        """A child of the current span that already happened, between two
        `time.perf_counter()` readings (the recall stages, timed as they ran); nothing
        outside a span (a pipeline called directly would make a trace per stage)."""

    def event(self, name: str, at_s: float, attributes: Attributes) -> None:
        """An event on the current span at a `time.perf_counter()` reading (a recall
        stage, with its duration and the candidates it left); nothing outside a span."""


class _NoopSpan:
    def set_attributes(self, attributes: Attributes) -> None:
        pass

    @property
    def ref(self) -> object:
        return None


NOOP_SPAN: Final = _NoopSpan()


class NoopTracer:
    """Tracing off: every span is the same no-op, every block runs as it would."""

    @property
    def enabled(self) -> bool:
        return False

    @contextmanager
    def span(
        self,
        name: str,
        attributes: Attributes | None = None,
        *,
        kind: SpanKind = SpanKind.INTERNAL,
        parent: object | None = None,
        links: Sequence[object] = (),
        current: bool = True,
    ) -> Iterator[Span]:
        yield NOOP_SPAN

    def remote(self, carrier: Carrier) -> object | None:
        return None

    def current(self) -> object | None:
        return None

    def finished(self, name: str, start_s: float, end_s: float, attributes: Attributes) -> None:
        pass

    def event(self, name: str, at_s: float, attributes: Attributes) -> None:
        pass


NOOP_TRACER: Final = NoopTracer()


def memory_operation(operation: str, banks: Sequence[str], count: int) -> dict[str, AttributeValue]:
    """GenAI memory attributes: the bank is the memory store; several banks are named
    in `sediment.banks` instead (the convention has one store per span)."""
    attributes: dict[str, AttributeValue] = {
        OPERATION: operation,
        PROVIDER: PROVIDER_NAME,
        RECORD_COUNT: count,
    }
    distinct = sorted(set(banks))
    if len(distinct) == 1:
        attributes[STORE_ID] = distinct[0]
    elif distinct:
        attributes["sediment.banks"] = distinct
    return attributes


def memory_span_name(operation: str, banks: Sequence[str]) -> str:
    """`{gen_ai.operation.name} {gen_ai.memory.store.id}`, or the operation alone."""
    distinct = set(banks)
    return f"{operation} {distinct.pop()}" if len(distinct) == 1 else operation
