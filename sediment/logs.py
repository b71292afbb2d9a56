"""Logging, configured once per process: structlog, JSON in production (not a
terminal), key=value on a terminal.

Everything ends up in the same format on stderr: our structlog loggers, and the
standard-library loggers of Celery, kombu and uvicorn, whose records go through
structlog's `ProcessorFormatter` with the same processors, so their lines also carry
what is bound in the context (`request_id` in the API, `task_id`, `bank_id` and
`event_id` in a worker task). Celery is told not to set up logging of its own (a
`setup_logging` receiver), so it neither replaces these handlers nor redirects
stdout and stderr into a logger.

When the process traces (sediment/tracing.py), each line written inside a span also
carries its `trace_id` and `span_id`, so a request's log lines and its trace find
each other.

Memory and query text are never logged at INFO or above: our log calls pass ids,
counts, classes and timings only; a Celery error that would dump a whole task
message (unknown task, undecodable body) has that body withheld.
"""

import logging
import sys
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any, Final

import structlog
from celery.signals import setup_logging, task_postrun, task_prerun

TASK_TOKENS: dict[str, Mapping[str, Any]] = {}
BODY_WITHHELD: Final = "task message rejected; its body is withheld: it may hold memory text"
QUIET_LOGGERS: Final = ("kombu", "amqp", "celery.bootsteps", "multipart")

TraceIds = Callable[[], tuple[str, str] | None]
_trace_ids: list[TraceIds] = []


def use_trace_ids(ids: TraceIds | None) -> None:
    """Where log lines find the current span's ids (None: they carry none)."""
    _trace_ids[:] = [ids] if ids is not None else []


def add_trace_ids(_: object, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    if _trace_ids:
        ids = _trace_ids[0]()
        if ids is not None:
            event.setdefault("trace_id", ids[0])
            event.setdefault("span_id", ids[1])
    return event


def _shared() -> list[structlog.typing.Processor]:
    return [
        structlog.contextvars.merge_contextvars,
        add_trace_ids,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]


class WithholdBodies(logging.Filter):
    """Celery logs the full body of a message it cannot run (unknown task, bad
    encoding) at ERROR: keep the record, drop the body."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("celery.worker") and "message body" in str(record.msg):
            record.msg, record.args = BODY_WITHHELD, ()
            record.exc_info, record.exc_text = None, None
        return True


class SedimentHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Ours, so configuring again replaces it and leaves other handlers in place."""


def configure(fmt: str, level: str) -> None:
    use_json = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if use_json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[*_shared(), renderer],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level)),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    _route_stdlib(renderer, level)
    setup_logging.connect(_leave_logging_alone, weak=False)
    task_prerun.connect(_bind_task, weak=False)
    task_postrun.connect(_unbind_task, weak=False)


def _route_stdlib(renderer: structlog.typing.Processor, level: str) -> None:
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[structlog.stdlib.add_logger_name, *_shared()],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
    )
    handler = SedimentHandler(sys.stderr)
    handler.setLevel(getattr(logging, level))  # libraries that lower their own level (bm25s)
    handler.setFormatter(formatter)
    handler.addFilter(WithholdBodies())
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, SedimentHandler)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level))
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "celery", "celery.task"):
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = True
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, getattr(logging, level)))


def _leave_logging_alone(**_: object) -> None:
    """Connected to Celery's `setup_logging`: any receiver makes Celery skip its own."""


def task_context(task_id: str | None, task_name: str, args: object) -> dict[str, str]:
    """Ids to bind for one task run, from its first argument (a payload or a list of
    them): never the payload itself."""
    bound = {"task_id": task_id or "", "task": task_name}
    first = args[0] if isinstance(args, list | tuple) and args else None
    payloads = first if isinstance(first, list) else [first]
    dicts = [p for p in payloads if isinstance(p, dict)]
    banks = sorted({str(p["bank_id"]) for p in dicts if isinstance(p.get("bank_id"), str)})
    if banks:
        bound["bank_id"] = ",".join(banks)
    if len(dicts) == 1 and isinstance(dicts[0].get("event_id"), str):
        bound["event_id"] = dicts[0]["event_id"]
    return bound


def _bind_task(task_id: str | None = None, task: Any = None, args: Any = None, **_: Any) -> None:
    name = str(getattr(task, "name", "") or "")
    tokens = structlog.contextvars.bind_contextvars(**task_context(task_id, name, args))
    TASK_TOKENS[task_id or ""] = tokens


def _unbind_task(task_id: str | None = None, **_: Any) -> None:
    tokens = TASK_TOKENS.pop(task_id or "", None)
    if tokens is not None:
        structlog.contextvars.reset_contextvars(**tokens)
