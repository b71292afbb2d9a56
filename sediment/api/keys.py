"""API keys: the entries of `SEDIMENT_API_KEYS_FILE` (a secret's SHA-256, the banks it
opens, its scopes), how a file of them is read, how a sent secret finds its key, and
the key of the request being served (`current_key`), which the MCP tools read because
their bank comes in the call's arguments, not in the URL the middleware checks."""

from __future__ import annotations

import fnmatch
import hashlib
import hmac
import json
from collections.abc import Iterable, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

KeyScope = Literal["read", "write", "forget", "metrics", "admin"]
SCOPES: Final[tuple[str, ...]] = ("read", "write", "forget", "metrics", "admin")


class ApiKey(BaseModel):
    """One entry of `SEDIMENT_API_KEYS_FILE`: the secret's SHA-256 (hex), the banks it
    opens (fnmatch patterns) and its scopes. `admin` implies every scope; `metrics`
    reads `/v1/stats` and `/metrics` (of its banks only), nothing else."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=128)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    banks: tuple[str, ...] = Field(min_length=1)
    scopes: tuple[KeyScope, ...] = Field(min_length=1)

    def opens(self, bank: str) -> bool:
        return any(fnmatch.fnmatchcase(bank, p) for p in self.banks)

    @property
    def every_bank(self) -> bool:
        """A `*` pattern: the key opens every bank, as the token does."""
        return "*" in self.banks

    def among(self, banks: Iterable[str]) -> list[str]:
        """The banks of `banks` this key opens, sorted: what a listing shows it."""
        return sorted(b for b in banks if self.opens(b))

    def refusal(self, bank: str) -> str:
        """Why this key may not touch `bank`: the 403's message, and the MCP tool error's."""
        return f"API key {self.name!r} does not open bank {bank!r} (banks: {', '.join(self.banks)})"

    def grants(self, scope: str) -> bool:
        return scope in self.scopes or "admin" in self.scopes


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def load_keys(path: Path) -> tuple[ApiKey, ...]:
    """The keys file, or a ValueError naming the variable and what is wrong."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return tuple(TypeAdapter(list[ApiKey]).validate_python(raw))
    except (OSError, ValueError) as exc:
        raise ValueError(f"SEDIMENT_API_KEYS_FILE={path}: {exc}") from exc


def key_of(keys: Sequence[ApiKey], given: str | None) -> ApiKey | None:
    """The key whose digest is the given secret's; every entry compared in constant time."""
    if not given:
        return None
    have = digest(given).encode("ascii")
    found = None
    for key in keys:
        if hmac.compare_digest(have, key.sha256.encode("ascii")):
            found = key
    return found


current_key: ContextVar[ApiKey | None] = ContextVar("sediment_api_key", default=None)
"""The key of the request being served; None for the token, an open API, or no request
(the CLI, `sediment mcp` over stdio): every bank."""
