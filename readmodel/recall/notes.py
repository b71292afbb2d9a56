"""What `explain` says about each stage, and the deployment settings an impression
records: enough to tell which rule acted on a recall without reading the code."""

from contracts.recall import RecallRequest
from readmodel.recall.candidate import Candidate
from readmodel.recall.config import RecallConfig
from readmodel.recall.fusion import Weights
from readmodel.recall.order import Window
from readmodel.recall.rerank import RerankStage
from readmodel.recall.state import Resolution

Setting = str | int | float | bool


def queries_note(queries: list[str]) -> str:
    """The original query and, with expansion, each sub-query that ran."""
    if len(queries) == 1:
        return "1 query"
    subs = ", ".join(repr(q) for q in queries[1:])
    return f"{len(queries)} queries: the query, then sub-queries {subs}"


def state_note(resolved: Resolution, request: RecallRequest) -> str:
    replaced = sum(1 for c in resolved.candidates if c.state_replaces is not None)
    parts = [f"heads in place of superseded states: {replaced}"]
    if resolved.inherited:
        parts.append(f"carrying a replaced state's score: {len(resolved.inherited)}")
    if request.as_of is not None:
        parts.append(f"as of {request.as_of.isoformat()}")
    return "; ".join(parts)


def prefer_note(window: Window) -> str:
    return f"dropped {window.dropped} raw memories covered by a shown observation"


def truncate_note(window: Window, request: RecallRequest) -> str:
    """Which of limit, min_score, the evidence rule and max_tokens cut anything."""
    floor = (
        f"min_score {request.min_score:g} cut {window.below_min_score}"
        if request.min_score > 0
        else "no min_score"
    )
    if request.all is False:
        floor += f"; left out without topical evidence: {window.without_evidence}"
    if request.max_tokens is None:
        budget = "no max_tokens"
    else:
        cut = "cut the rest" if window.budget_cut else "cut nothing"
        budget = f"max_tokens {request.max_tokens} {cut}"
    return f"limit {request.limit}; {floor}; {budget}"


def fusion_note(w: Weights) -> str:
    """The weights as the fuse stage's note and the impression log show them."""
    return (
        f"weighted: vector {w.vector:g}, calibrated vector {w.calibrated:g}, "
        f"keyword {w.keyword:g}, exact {w.exact:g}, importance {w.importance:g}"
    )


def deployment_settings(
    config: RecallConfig, reranker: RerankStage | None, weights: Weights
) -> dict[str, Setting]:
    """Deployment settings that change ranking, as the impression log keeps them."""
    return {
        "fusion": fusion_note(weights),
        "depth": config.depth,
        "exact_bonus": config.exact_bonus,
        "relevance_gate": config.relevance_gate,
        "decay_enabled": config.decay_enabled,
        "decay_half_life_days": config.decay_half_life_days,
        "decay_floor": config.decay_floor,
        "recency_bias_default": config.recency_bias,
        "temporal_weight": config.temporal_weight,
        "query_expansion": config.query_expansion,
        "expansion_max_queries": config.expansion_max_queries,
        "reranker": "off" if reranker is None else reranker.name,
        "semantic_floor": config.semantic_floor,
        "length_weight": config.length_weight,
        "length_ref_tokens": config.length_ref_tokens,
        "session_weight": config.session_weight,
        "session_anchors": config.session_anchors,
        "session_window_minutes": config.session_window_minutes,
        "speaker_weight": config.speaker_weight,
        "instruction_place": config.instruction_place,
        "instruction_ratio": config.instruction_ratio,
    }


def instruction_note(placed: Candidate | None, place: int) -> str:
    if placed is None:
        return (
            "no standing instruction at or above the semantic floor that the question "
            f"singles out (place {place})"
        )
    return f"standing instruction {placed.id} at place {place} or above"
