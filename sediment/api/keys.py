"""API keys: the entries of `SEDIMENT_API_KEYS_FILE` (a secret's SHA-256, the banks it
opens, its scopes), how a file of them is read and how a sent secret finds its key."""

from __future__ import annotations

import fnmatch
import hashlib
import hmac
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

KeyScope = Literal["read", "write", "forget", "admin"]
SCOPES: Final[tuple[str, ...]] = ("read", "write", "forget", "admin")


class ApiKey(BaseModel):
    """One entry of `SEDIMENT_API_KEYS_FILE`: the secret's SHA-256 (hex), the banks it
    opens (fnmatch patterns) and its scopes. `admin` implies every scope."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=128)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    banks: tuple[str, ...] = Field(min_length=1)
    scopes: tuple[KeyScope, ...] = Field(min_length=1)

    def opens(self, bank: str | None) -> bool:
        return bank is None or any(fnmatch.fnmatchcase(bank, p) for p in self.banks)

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
