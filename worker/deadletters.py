"""The dead-letter stream `sediment:dlq`: poison events with their reasons, capped."""

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, cast

import redis

from contracts.deadletter import DeadLetter

DLQ_STREAM = "sediment:dlq"


class DeadLetters(Protocol):
    def add(self, letter: DeadLetter) -> str: ...

    def list(self, limit: int = 100) -> list[DeadLetter]: ...

    def remove(self, ids: Sequence[str]) -> int: ...

    def length(self) -> int: ...


class RedisDeadLetters:
    """A Redis stream trimmed to about `maxlen` entries; each entry is one DeadLetter as JSON."""

    def __init__(self, client: redis.Redis, maxlen: int, stream: str = DLQ_STREAM) -> None:
        self._client = client
        self._maxlen = maxlen
        self._stream = stream

    def add(self, letter: DeadLetter) -> str:
        body = letter.model_dump_json().encode("utf-8")
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


class FileDeadLetters:
    """The embedded mode's dead-letter stream: a JSON-lines file in the data directory,
    so `sediment dlq list` in a later process sees what an earlier `ingest` rejected."""

    def __init__(self, path: "os.PathLike[str] | str", maxlen: int) -> None:
        self._path = Path(path)
        self._maxlen = maxlen

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
        letters.append(letter.model_copy(update={"id": entry_id}))
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
