"""Recall logs: impressions, the per-session last recall, and slow calls.

They exist to tune ranking and to find slow paths without ever holding what users
said or stored: entries carry ids, ranks, scores, timings, sizes and a hash of the
query, never query text or memory text. Streams are capped (XADD MAXLEN ~), and the
last-recall snapshot expires, so the logs cannot grow without bound.
"""

import hashlib
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final, Protocol

import redis
from pydantic import BaseModel, ConfigDict, Field
from redis.typing import EncodableT, FieldT

from contracts.recall import RecallRequest, RecallResponse

IMPRESSIONS_STREAM: Final = "sediment:impressions"
SLOW_STREAM: Final = "sediment:slow"
LAST_RECALL_PREFIX: Final = "sediment:last_recall:"
QUERY_HASH_CHARS: Final = 16

Setting = str | int | float | bool | None


class ShownResult(BaseModel):
    """One returned memory as the logs keep it: identity and position, no text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: uuid.UUID
    rank: int = Field(ge=1)
    score: float


class LastRecall(BaseModel):
    """What a session was last shown, so a caller can mark it afterwards."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    bank_id: str
    session_key: str
    at: datetime
    query_hash: str
    results: list[ShownResult]


@dataclass(frozen=True)
class Impression:
    at: datetime
    bank_id: str
    session_key: str | None
    query_hash: str
    query_len: int
    duration_ms: float
    results: tuple[ShownResult, ...]
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    settings: Mapping[str, Setting] = field(default_factory=dict)


@dataclass(frozen=True)
class SlowCall:
    at: datetime
    operation: str
    duration_ms: float
    bank_id: str | None = None
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    sizes: Mapping[str, int] = field(default_factory=dict)


def query_hash(query: str) -> str:
    """Lets repeated queries be grouped without keeping the query."""
    return hashlib.sha256(query.encode("utf-8")).hexdigest()[:QUERY_HASH_CHARS]


def shown(response: RecallResponse) -> tuple[ShownResult, ...]:
    return tuple(
        ShownResult(id=r.id, rank=i, score=round(r.score, 6))
        for i, r in enumerate(response.results, 1)
    )


def ranking_settings(request: RecallRequest, response: RecallResponse) -> dict[str, Setting]:
    """The request options that change what is returned; tags are counted, not kept."""
    return {
        "limit": request.limit,
        "history": request.history,
        "as_of_set": request.as_of is not None,
        "range_set": request.start is not None or request.end is not None,
        "prefer_observations": request.prefer_observations,
        "recency_bias": response.recency_bias,
        "recency_bias_requested": request.recency_bias,
        "max_tokens": request.max_tokens,
        "min_score": request.min_score,
        "kinds": ",".join(request.kinds),
        "tags": len(request.tags),
        "explain": request.explain,
    }


def impression_of(
    bank_id: str,
    request: RecallRequest,
    response: RecallResponse,
    duration_ms: float,
    at: datetime,
    deployment: Mapping[str, Setting] | None = None,
) -> Impression:
    """`deployment`: the process's ranking settings (decay, gate, expansion, recency
    default, reranker, ...), kept beside the request's options so two impressions
    ranked under different settings can be told apart."""
    return Impression(
        at=at,
        bank_id=bank_id,
        session_key=request.session_key,
        query_hash=query_hash(request.query),
        query_len=len(request.query),
        duration_ms=round(duration_ms, 3),
        results=shown(response),
        timings_ms=dict(response.timings),
        settings={**dict(deployment or {}), **ranking_settings(request, response)},
    )


def last_recall_of(impression: Impression) -> LastRecall | None:
    if impression.session_key is None:
        return None
    return LastRecall(
        bank_id=impression.bank_id,
        session_key=impression.session_key,
        at=impression.at,
        query_hash=impression.query_hash,
        results=list(impression.results),
    )


class RecallLog(Protocol):
    """Port for the recall logs; `RedisRecallLog` implements it on redis-py or fakeredis."""

    def add_impression(self, impression: Impression) -> None: ...

    def add_slow(self, call: SlowCall) -> None: ...

    def save_last(self, snapshot: LastRecall) -> None: ...

    def last(self, bank_id: str, session_key: str) -> LastRecall | None: ...

    def impressions(self, count: int) -> list[dict[str, str]]:
        """The newest entries, oldest first, as stored (field name to value)."""

    def slow_calls(self, count: int) -> list[dict[str, str]]:
        """The newest entries, oldest first, as stored (field name to value)."""


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def last_recall_key(bank_id: str, session_key: str) -> str:
    """`/` cannot occur in a bank id, so no (bank, session) pair can collide with another."""
    return f"{LAST_RECALL_PREFIX}{bank_id}/{session_key}"


class RedisRecallLog:
    def __init__(
        self,
        client: redis.Redis,
        impressions_maxlen: int,
        slow_maxlen: int,
        last_recall_ttl_s: int,
    ) -> None:
        self._client = client
        self._impressions_maxlen = impressions_maxlen
        self._slow_maxlen = slow_maxlen
        self._ttl_s = last_recall_ttl_s

    def add_impression(self, impression: Impression) -> None:
        fields: dict[FieldT, EncodableT] = {
            "time": impression.at.isoformat(),
            "bank": impression.bank_id,
            "session_key": impression.session_key or "",
            "query_hash": impression.query_hash,
            "query_len": str(impression.query_len),
            "duration_ms": str(impression.duration_ms),
            "results": _json([r.model_dump(mode="json") for r in impression.results]),
            "timings_ms": _json(dict(impression.timings_ms)),
            "settings": _json(dict(impression.settings)),
        }
        self._client.xadd(
            IMPRESSIONS_STREAM, fields, maxlen=self._impressions_maxlen, approximate=True
        )

    def add_slow(self, call: SlowCall) -> None:
        fields: dict[FieldT, EncodableT] = {
            "time": call.at.isoformat(),
            "operation": call.operation,
            "bank": call.bank_id or "",
            "duration_ms": str(round(call.duration_ms, 3)),
            "timings_ms": _json(dict(call.timings_ms)),
            "sizes": _json(dict(call.sizes)),
        }
        self._client.xadd(SLOW_STREAM, fields, maxlen=self._slow_maxlen, approximate=True)

    def save_last(self, snapshot: LastRecall) -> None:
        key = last_recall_key(snapshot.bank_id, snapshot.session_key)
        self._client.set(key, snapshot.model_dump_json(), ex=self._ttl_s)

    def last(self, bank_id: str, session_key: str) -> LastRecall | None:
        raw = self._client.get(last_recall_key(bank_id, session_key))
        if raw is None:
            return None
        return LastRecall.model_validate_json(raw)

    def impressions(self, count: int) -> list[dict[str, str]]:
        return self._newest(IMPRESSIONS_STREAM, count)

    def slow_calls(self, count: int) -> list[dict[str, str]]:
        return self._newest(SLOW_STREAM, count)

    def _newest(self, stream: str, count: int) -> list[dict[str, str]]:
        entries = self._client.xrevrange(stream, count=count)
        return [_decoded(fields) for _, fields in reversed(entries)]  # type: ignore[arg-type]


def _decoded(fields: Mapping[bytes | str, bytes | str]) -> dict[str, str]:
    def text(v: bytes | str) -> str:
        return v.decode("utf-8") if isinstance(v, bytes) else v

    return {text(k): text(v) for k, v in fields.items()}
