"""Recall's tunables, as one frozen value the bootstrap builds from settings."""

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class RecallConfig:
    depth: int = 60
    superseded_depth: int = 10
    exact_bonus: float = 4.0
    date_weight: float = 0.25
    relevance_gate: float = 0.0
    decay_enabled: bool = False
    decay_half_life_days: float = 14.0
    decay_floor: float = 0.2
    decay_recency_weight: float = 0.5
    decay_importance_weight: float = 0.5
    recency_bias: Literal["off", "on", "auto"] = "auto"
    temporal_weight: float = 0.3
    rerank_timeout_ms: float = 200.0
    rerank_cache_ttl_s: float = 300.0
    rerank_cache_size: int = 4096
    query_expansion: bool = False
    expansion_max_queries: int = 4
    expansion_min_token: int = 3
    direct_answer_overlap: float = 0.55
    direct_answer_margin: float = 0.15
    semantic_floor: float = 0.3
    length_weight: float = 0.3
    length_ref_tokens: int = 60
    session_weight: float = 0.2
    session_anchors: int = 3
    session_window_minutes: float = 60.0
    speaker_weight: float = 0.8
    instruction_place: int = 2
    instruction_ratio: float = 0.95
