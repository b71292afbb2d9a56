"""Process settings: one `Settings` per process, read once at start by the bootstrap."""

from dataclasses import replace
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from contracts.base import BANK_ID_PATTERN, require_bank_id
from readmodel.recall.config import RecallConfig
from worker.consolidation.policy import ConsolidationPolicy

_RECALL = RecallConfig()
_POLICY = ConsolidationPolicy()
"""Defaults are defined once, on the values the settings build: recall's and
consolidation's own dataclasses. A setting only names which of their fields a
deployment may change."""
_RECALL_SETTINGS = (
    "depth",
    "exact_bonus",
    "date_weight",
    "relevance_gate",
    "decay_enabled",
    "decay_half_life_days",
    "decay_floor",
    "decay_recency_weight",
    "decay_importance_weight",
    "recency_bias",
    "temporal_weight",
    "rerank_timeout_ms",
    "rerank_cache_ttl_s",
    "rerank_cache_size",
    "semantic_floor",
    "query_expansion",
    "expansion_max_queries",
    "expansion_min_token",
    "length_weight",
    "length_ref_tokens",
    "session_weight",
    "session_anchors",
    "session_window_minutes",
    "speaker_weight",
    "instruction_place",
    "instruction_ratio",
)
_POLICY_SETTINGS = ("merge_threshold", "neighbour_limit")


class Settings(BaseSettings):
    """Every `SEDIMENT_` variable. Invalid values stop the process at start."""

    model_config = SettingsConfigDict(env_prefix="SEDIMENT_", extra="ignore", frozen=True)

    mode: Literal["embedded", "standalone", "distributed"] = "embedded"
    data_dir: Path = Path(".sediment")
    redis_url: str = "redis://127.0.0.1:6379/0"
    allow_volatile_redis: bool = False
    qdrant_url: str | None = None
    qdrant_api_key: SecretStr | None = None
    collection: str = Field(default="sediment_memories", pattern=r"^[A-Za-z0-9_-]{1,64}$")
    store: Literal["auto", "edge", "qdrant-local"] = "auto"
    embedder: Literal["static", "minilm", "hash"] = "static"
    static_model_path: Path | None = None
    max_text_bytes: int = Field(default=16 * 1024, ge=64, le=1024 * 1024)

    queue: str = Field(default="sediment", pattern=r"^[A-Za-z0-9_.:-]{1,64}$")
    task_soft_time_limit_s: int = Field(default=60, ge=1)
    task_time_limit_s: int = Field(default=90, ge=2)
    visibility_timeout_s: int = Field(default=300, ge=3)
    retry_max: int = Field(default=8, ge=0, le=100)
    retry_backoff_max_s: int = Field(default=120, ge=1)
    lock_timeout_s: int = Field(default=10, ge=1)
    lock_wait_s: int = Field(default=120, ge=1)
    worker_concurrency: int = Field(default=1, ge=1, le=64)
    worker_batch_messages: int = Field(default=64, ge=1, le=1024)
    worker_batch_wait_ms: int = Field(default=20, ge=1, le=10_000)
    worker_batch_max_wait_ms: int = Field(default=250, ge=1, le=60_000)
    serve_recall_slots: int = Field(default=2, ge=0, le=1024)
    serve_recall_yield_ms: int = Field(default=200, ge=0, le=60_000)
    recall_waiters_per_key: int = Field(default=8, ge=1, le=10_000)
    recall_waiters_per_bank: int = Field(default=16, ge=1, le=10_000)
    dlq_maxlen: int = Field(default=100_000, ge=10)
    dlq_max_payload_bytes: int = Field(default=64 * 1024, ge=4096, le=64 * 1024 * 1024)
    ledger_sweep_s: int = Field(default=5, ge=0, le=3600)
    ledger_grace_s: int = Field(default=20, ge=1)
    holder_ttl_s: int = Field(default=10, ge=0, le=3600)
    ledger_max_republish: int = Field(default=5, ge=1, le=100)
    expiry_sweep_s: int = Field(default=60, ge=0, le=86_400)
    audit_maxlen: int = Field(default=10_000, ge=10)
    forget_aof_rewrite_s: int = Field(default=60, ge=0, le=86_400)
    forget_purge_s: int = Field(default=120, ge=0, le=86_400)

    merge_threshold: float = Field(default=_POLICY.merge_threshold, gt=0.0, le=1.0)
    neighbour_limit: int = Field(default=_POLICY.neighbour_limit, ge=1, le=1024)

    recall_depth: int = Field(default=_RECALL.depth, ge=1, le=1000)
    recall_exact_bonus: float = Field(default=_RECALL.exact_bonus, ge=1.0, le=100.0)
    recall_date_weight: float = Field(default=_RECALL.date_weight, ge=0.0, le=1.0)
    recall_relevance_gate: float = Field(default=_RECALL.relevance_gate, ge=0.0, le=1.0)
    recall_decay_enabled: bool = _RECALL.decay_enabled
    recall_decay_half_life_days: float = Field(default=_RECALL.decay_half_life_days, gt=0.0)
    recall_decay_floor: float = Field(default=_RECALL.decay_floor, ge=0.0, le=1.0)
    recall_decay_recency_weight: float = Field(default=_RECALL.decay_recency_weight, ge=0.0, le=1.0)
    recall_decay_importance_weight: float = Field(
        default=_RECALL.decay_importance_weight, ge=0.0, le=1.0
    )
    recall_recency_bias: Literal["off", "on", "auto"] = _RECALL.recency_bias
    recall_temporal_weight: float = Field(default=_RECALL.temporal_weight, ge=0.0, le=1.0)
    recall_rerank_timeout_ms: float = Field(default=_RECALL.rerank_timeout_ms, gt=0.0)
    recall_rerank_cache_ttl_s: float = Field(default=_RECALL.rerank_cache_ttl_s, ge=0.0)
    recall_rerank_cache_size: int = Field(default=_RECALL.rerank_cache_size, ge=0, le=1_000_000)
    recall_reranker: Literal["off", "minilm"] = "off"
    recall_semantic_floor: float = Field(default=_RECALL.semantic_floor, ge=0.0, le=1.0)
    recall_length_weight: float = Field(default=_RECALL.length_weight, ge=0.0, le=4.0)
    recall_length_ref_tokens: int = Field(default=_RECALL.length_ref_tokens, ge=1, le=10_000)
    recall_session_weight: float = Field(default=_RECALL.session_weight, ge=0.0, le=1.0)
    recall_session_anchors: int = Field(default=_RECALL.session_anchors, ge=0, le=100)
    recall_session_window_minutes: float = Field(
        default=_RECALL.session_window_minutes, ge=0.0, le=10_080.0
    )
    recall_speaker_weight: float = Field(default=_RECALL.speaker_weight, ge=0.0, le=4.0)
    recall_instruction_place: int = Field(default=_RECALL.instruction_place, ge=0, le=100)
    recall_instruction_ratio: float = Field(default=_RECALL.instruction_ratio, gt=0.0, le=1.0)
    recall_query_expansion: bool = _RECALL.query_expansion
    recall_expansion_max_queries: int = Field(default=_RECALL.expansion_max_queries, ge=1, le=16)
    recall_expansion_min_token: int = Field(default=_RECALL.expansion_min_token, ge=1, le=32)
    recall_slow_ms: float = Field(default=250.0, gt=0.0)
    impressions_maxlen: int = Field(default=100_000, ge=10)
    slow_maxlen: int = Field(default=10_000, ge=10)
    last_recall_ttl_s: int = Field(default=86_400, ge=1)
    api_token: SecretStr | None = None
    api_keys_file: Path | None = None
    api_max_body_bytes: int = Field(default=1_048_576, ge=1024)
    metrics_enabled: bool = True
    metrics_retention_s: int = Field(default=86_400, ge=120, le=90 * 86_400)
    metrics_sample_s: float = Field(default=15.0, ge=0.0, le=3600.0)
    metrics_public: bool | None = None
    mcp_bank: (
        Annotated[str, Field(pattern=BANK_ID_PATTERN), AfterValidator(require_bank_id)] | None
    ) = None

    otel: bool | None = None
    otel_file: Path | None = None

    log_format: Literal["auto", "json", "console"] = "auto"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    def policy(self) -> ConsolidationPolicy:
        return replace(_POLICY, **{n: getattr(self, n) for n in _POLICY_SETTINGS})

    def recall_config(self) -> RecallConfig:
        return replace(_RECALL, **{n: getattr(self, f"recall_{n}") for n in _RECALL_SETTINGS})

    @field_validator("api_token")
    @classmethod
    def _token_not_empty(cls, token: SecretStr | None) -> SecretStr | None:
        """An empty token would let the API compare against nothing; refuse to start."""
        if token is not None and not token.get_secret_value().strip():
            raise ValueError(
                "SEDIMENT_API_TOKEN is set but empty: unset it to serve without a token, "
                "or set a non-empty token"
            )
        return token

    @model_validator(mode="after")
    def _limits_nest(self) -> "Settings":
        """Celery needs visibility timeout > hard limit > soft limit, or a slow task runs twice."""
        if self.task_time_limit_s <= self.task_soft_time_limit_s:
            raise ValueError(
                "SEDIMENT_TASK_TIME_LIMIT_S must exceed SEDIMENT_TASK_SOFT_TIME_LIMIT_S"
            )
        if self.visibility_timeout_s <= self.task_time_limit_s:
            raise ValueError("SEDIMENT_VISIBILITY_TIMEOUT_S must exceed SEDIMENT_TASK_TIME_LIMIT_S")
        return self
