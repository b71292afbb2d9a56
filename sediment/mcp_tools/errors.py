"""Every tool error as an agent reads it: `error: ` and what was wrong, whoever found it.

The SDK words errors three ways: a `ToolError` a tool raised comes back as "Error
executing tool recall: ...", its own argument check as that prefix and pydantic's
text (which repeats each rejected value, memory text included), and a crash as the
prefix alone. Sediment's messages, the scope refusal and "unavailable" had no prefix
at all. Here each becomes one line starting `error: `: an agent (or a person reading
its transcript) tells a refusal from an answer by its first word, whatever the tool.
"""

from collections.abc import Sequence

import structlog
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import ValidationError

ERROR = "error: "

log = structlog.get_logger("sediment.mcp")


def bad_fields(exc: ValidationError, prefix: str = "") -> list[str]:
    """One line per bad field, named as the caller wrote it, without the values."""
    from sediment.api.problems import problems

    return [f"{prefix}{d.field}: {d.problem}" for d in problems(exc.errors())]


def invalid(what: str, lines: Sequence[str]) -> ToolError:
    return ToolError(f"invalid {what}: " + "; ".join(lines))


class NotReady(RuntimeError):
    """The process could not build what the tools need (the store held by another
    process, a store that needs a rebuild, Redis down at start); the message says why
    and what to do, and the next call tries again."""


def reworded(tool: str, exc: ToolError) -> ToolError:
    """`exc`, as the SDK raised it for a call to `tool`, said with the one prefix."""
    cause = exc.__cause__
    if isinstance(cause, NotReady):
        reason = cause.__cause__
        if reason is not None and _unavailable(reason):
            return unavailable(tool, reason)
        return ToolError(f"{ERROR}cannot serve {tool}: {cause}")
    if isinstance(exc, UnexpectedToolError):
        if cause is not None and _unavailable(cause):
            return unavailable(tool, cause)
        return UnexpectedToolError(f"{ERROR}{tool} failed on the server (its log says why)")
    if isinstance(cause, ToolError):
        return ToolError(ERROR + str(cause))
    if isinstance(cause, ValidationError):
        return ToolError(ERROR + str(invalid(tool, bad_fields(cause))))
    return ToolError(ERROR + str(exc))


def refused(message: str) -> ToolError:
    return ToolError(ERROR + message)


def unavailable(tool: str, cause: BaseException) -> ToolError:
    """A dependency's failure as the tool error an agent can act on: what did not
    answer, and that the same call may be sent again (retains carry event ids)."""
    from sediment.api.problems import unavailable_message

    log.warning(
        "mcp_unavailable",
        tool=tool,
        error_class=type(cause).__name__,
        cause_class=type(cause.__cause__).__name__ if cause.__cause__ else None,
    )
    return ToolError(f"{ERROR}unavailable: {unavailable_message(cause)}")


def _unavailable(exc: BaseException) -> bool:
    from sediment.api.problems import UNAVAILABLE

    return isinstance(exc, UNAVAILABLE)
