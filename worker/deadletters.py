"""The dead-letter stream `sediment:dlq`: poison events with their reasons, capped in
number (SEDIMENT_DLQ_MAXLEN) and in size: an entry keeps at most
SEDIMENT_DLQ_MAX_PAYLOAD_BYTES, so one huge poison message cannot fill Redis. What is
cut is known by its size and SHA-256 (`capped`)."""

import hashlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, cast

import redis

from contracts.deadletter import DeadLetter

DLQ_STREAM = "sediment:dlq"
DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024
MIN_MESSAGE_CHARS = 200


def _size(letter: DeadLetter) -> int:
    return len(letter.model_dump_json().encode("utf-8"))


def _head(text: str, max_bytes: int) -> str:
    """The longest prefix of `text` within `max_bytes` of UTF-8, cut between characters."""
    return text.encode("utf-8", "surrogatepass")[: max(0, max_bytes)].decode("utf-8", "ignore")


def capped(letter: DeadLetter, max_bytes: int) -> DeadLetter:
    """The letter with its payload's size and hash, whose stored JSON is at most
    `max_bytes`: a larger payload is cut to a preview (`truncated`), and a reason too
    long to leave room for one is shortened."""
    whole = letter.payload.encode("utf-8", "surrogatepass")
    letter = letter.model_copy(
        update={"payload_bytes": len(whole), "payload_sha256": hashlib.sha256(whole).hexdigest()}
    )
    if _size(letter) <= max_bytes:
        return letter
    empty = letter.model_copy(update={"payload": "", "truncated": True})
    if _size(empty) > max_bytes // 2:
        keep = max(MIN_MESSAGE_CHARS, max_bytes // 8)
        empty = empty.model_copy(update={"message": _head(letter.message, keep)})
    budget = max_bytes - _size(empty)
    while True:
        preview = empty.model_copy(update={"payload": _head(letter.payload, budget)})
        excess = _size(preview) - max_bytes
        if excess <= 0 or budget <= 0:
            return preview
        budget -= excess


_COMPACT = """
local entries = redis.call('XRANGE', KEYS[1], '-', '+')
redis.call('DEL', KEYS[1])
for _, e in ipairs(entries) do redis.call('XADD', KEYS[1], e[1], unpack(e[2])) end
return #entries
"""


class DeadLetters(Protocol):
    def add(self, letter: DeadLetter) -> str: ...

    def list(self, limit: int = 100) -> list[DeadLetter]: ...

    def remove(self, ids: Sequence[str]) -> int: ...

    def length(self) -> int: ...


class RedisDeadLetters:
    """A Redis stream trimmed to about `maxlen` entries; each entry is one DeadLetter as JSON."""

    def __init__(
        self,
        client: redis.Redis,
        maxlen: int,
        stream: str = DLQ_STREAM,
        max_payload_bytes: int = DEFAULT_MAX_PAYLOAD_BYTES,
    ) -> None:
        self._client = client
        self._maxlen = maxlen
        self._stream = stream
        self._max_bytes = max_payload_bytes
        self._compact = client.register_script(_COMPACT)

    def add(self, letter: DeadLetter) -> str:
        body = capped(letter, self._max_bytes).model_dump_json().encode("utf-8")
        entry = self._client.xadd(
            self._stream, {b"letter": body}, maxlen=self._maxlen, approximate=True
        )
        return entry.decode() if isinstance(entry, bytes) else str(entry)

    def list(self, limit: int = 100) -> list[DeadLetter]:
        entries = cast(
            list[tuple[bytes, dict[bytes, bytes]]], self._client.xrange(self._stream, count=limit)
        )
        out = []
        for entry_id, fields in entries:
            letter = DeadLetter.model_validate_json(fields[b"letter"])
            out.append(letter.model_copy(update={"id": entry_id.decode()}))
        return out

    def remove(self, ids: Sequence[str]) -> int:
        return int(self._client.xdel(self._stream, *ids)) if ids else 0

    def length(self) -> int:
        return int(self._client.xlen(self._stream))

    def compact(self) -> None:
        """Rewrite the stream with its remaining entries (same ids): XDEL only flags an
        entry, its bytes stay in the stream's nodes until the whole node is freed, and a
        forgotten event's payload must not."""
        self._compact(keys=[self._stream])


class FileDeadLetters:
    """The embedded mode's dead-letter stream: a JSON-lines file in the data directory,
    so `sediment dlq list` in a later process sees what an earlier `ingest` rejected."""

    def __init__(
        self,
        path: "os.PathLike[str] | str",
        maxlen: int,
        max_payload_bytes: int = DEFAULT_MAX_PAYLOAD_BYTES,
    ) -> None:
        self._path = Path(path)
        self._maxlen = maxlen
        self._max_bytes = max_payload_bytes

    def _read(self) -> list[DeadLetter]:
        if not self._path.exists():
            return []
        lines = self._path.read_text(encoding="utf-8").splitlines()
        return [DeadLetter.model_validate_json(line) for line in lines if line.strip()]

    def _write(self, letters: list[DeadLetter]) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._path.with_suffix(".tmp")
        tmp.write_text("".join(le.model_dump_json() + "\n" for le in letters), encoding="utf-8")
        tmp.replace(self._path)

    def add(self, letter: DeadLetter) -> str:
        letters = self._read()
        last = int(letters[-1].id.split("-")[0]) if letters else 0
        entry_id = f"{max(last + 1, time.time_ns() // 1_000_000)}-0"
        letters.append(capped(letter, self._max_bytes).model_copy(update={"id": entry_id}))
        self._write(letters[-self._maxlen :])
        return entry_id

    def list(self, limit: int = 100) -> list[DeadLetter]:
        return self._read()[:limit]

    def remove(self, ids: Sequence[str]) -> int:
        letters = self._read()
        kept = [le for le in letters if le.id not in set(ids)]
        self._write(kept)
        return len(letters) - len(kept)

    def length(self) -> int:
        return len(self._read())
