"""The recall pipeline: every stage of DESIGN.md section 4, in order, each a small function."""

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial

from contracts.recall import RecallRequest, RecallResponse, StageTrace
from readmodel.embedders import Embedder, Vectors
from readmodel.recall import adjust
from readmodel.recall.as_of import observations_as_of
from readmodel.recall.candidate import Candidate
from readmodel.recall.chains import later_states
from readmodel.recall.config import RecallConfig
from readmodel.recall.dates import DateWindow, date_match, date_note, query_window, within
from readmodel.recall.evidence import with_evidence
from readmodel.recall.fetch import fetch_candidates, fetch_current, merge_candidates
from readmodel.recall.fusion import Weights, weighted, weights_for
from readmodel.recall.gate import relevance_gate
from readmodel.recall.instructions import fetch_instructions, place_instruction
from readmodel.recall.labels import direct_answer, low_confidence
from readmodel.recall.length import length_prior
from readmodel.recall.notes import (
    deployment_settings,
    fusion_note,
    instruction_note,
    prefer_note,
    queries_note,
    state_note,
    truncate_note,
)
from readmodel.recall.order import Window, fill_window, sort_key
from readmodel.recall.outdated import outdate_older
from readmodel.recall.passage_cache import PassageCache
from readmodel.recall.plans import states_before_plans
from readmodel.recall.query import QueryAnalysis, analyse, expansions
from readmodel.recall.rerank import RerankStage
from readmodel.recall.results import to_result
from readmodel.recall.scope import admits, store_filter
from readmodel.recall.session import session_affinity
from readmodel.recall.snippets import with_snippets
from readmodel.recall.speaker import lift_named, named_speakers, speaker_note
from readmodel.recall.state import Resolution, resolve_current
from readmodel.recall.subject import asked_subject_first
from readmodel.recall.successors import newer_answers
from readmodel.store import Filter, MemoryStore, Record, Vector, expired
from readmodel.text import query_vector
from telemetry.tracing import NOOP_TRACER, Attributes, Tracer


class Trace:
    """Stage timings always; per-stage notes when the caller asked for `explain`; each
    stage's start and end (`perf_counter`) for its span when the process traces."""

    def __init__(self) -> None:
        self.stages: list[StageTrace] = []
        self.bounds: list[tuple[float, float]] = []
        self._clock = time.perf_counter()

    def lap(self, stage: str, candidates: Sequence[Candidate], note: str = "") -> None:
        now = time.perf_counter()
        self.stages.append(
            StageTrace(
                stage=stage,
                ms=round((now - self._clock) * 1000, 3),
                candidates=len(candidates),
                note=note,
            )
        )
        self.bounds.append((self._clock, now))
        self._clock = now

    def emit(self, tracer: Tracer) -> None:
        """Each stage twice over: a child span, `recall.{stage}`, with the candidates it
        left (a trace viewer draws it, with the store calls in its time window), and an
        event of that name on the recall's own span at the stage's start, with
        `duration_ms` and `candidates` (the recall span alone says where its time
        went). Never a stage's note: notes quote the query's expansions and dates."""
        for stage, (start, end) in zip(self.stages, self.bounds, strict=True):
            attributes: Attributes = {
                "sediment.stage": stage.stage,
                "sediment.candidates": stage.candidates,
            }
            tracer.finished(f"recall.{stage.stage}", start, end, attributes)
            said: Attributes = {"duration_ms": stage.ms, "candidates": stage.candidates}
            tracer.event(f"recall.{stage.stage}", start, said)

    def timings(self) -> dict[str, float]:
        return {s.stage: s.ms for s in self.stages}


@dataclass(frozen=True)
class RecallPipeline:
    """Reads the model. Wired once per process; `recall` is safe to call from many threads."""

    store: MemoryStore
    embedder: Embedder
    config: RecallConfig = field(default_factory=RecallConfig)
    reranker: RerankStage | None = None
    clock: Callable[[], datetime] = field(default=partial(datetime.now, UTC))
    tracer: Tracer = NOOP_TRACER
    weights: Weights | None = None
    """Fusion weights; None takes those fit for the embedder (`fusion.weights_for`)."""
    passages: PassageCache = field(default_factory=PassageCache)
    """Passage vectors of the long memories read lately (`readmodel.recall.passage_cache`)."""

    @property
    def fusion_weights(self) -> Weights:
        return self.weights if self.weights is not None else weights_for(self.embedder.name)

    def recall(self, bank_id: str, request: RecallRequest) -> RecallResponse:
        trace, cfg = Trace(), self.config
        analysis = analyse(request.query)
        queries = (
            expansions(analysis, cfg.expansion_max_queries, cfg.expansion_min_token)
            if cfg.query_expansion
            else [request.query]
        )
        vectors = self.embedder.embed(queries)
        trace.lap("embed", [], queries_note(queries))
        now = self.clock()
        flt = store_filter(bank_id, request, now)
        when = query_window(request.query) if cfg.date_weight > 0 else None
        current = not request.history and request.as_of is None
        cands = self._fetch_candidates(queries, vectors, flt, when, request.limit, current, trace)
        weights = self.fusion_weights
        cands = weighted(with_evidence(cands, analysis, cfg.exact_bonus, cfg.depth), weights)
        trace.lap("fuse", cands, fusion_note(weights))
        if when is not None:
            cands = date_match(cands, when, cfg.date_weight)
            trace.lap("date", cands, date_note(when, cfg.date_weight))
        if cfg.length_weight > 0:
            cands = length_prior(cands, cfg.length_weight, cfg.length_ref_tokens)
            trace.lap("length", cands, f"weight {cfg.length_weight:g} over {cfg.length_ref_tokens}")
        if cfg.session_weight > 0:
            span = timedelta(minutes=cfg.session_window_minutes)
            cands = session_affinity(cands, cfg.session_weight, cfg.session_anchors, span)
            trace.lap("session", cands, f"weight {cfg.session_weight:g}")
        if cfg.speaker_weight > 0:
            named = named_speakers(request.query, cands)
            cands = lift_named(cands, named, cfg.speaker_weight)
            trace.lap("speaker", cands, speaker_note(named, cfg.speaker_weight))
        cands = relevance_gate(cands, cfg.relevance_gate)
        trace.lap("gate", cands, f"gate {cfg.relevance_gate:g}")
        fetch = partial(self._fetch, bank_id)
        if request.as_of is not None:
            cands = observations_as_of(cands, partial(self._fetch, bank_id, now=now), request.as_of)
            trace.lap("as_of", cands, f"observations as of {request.as_of.isoformat()}")
        resolved = Resolution(cands)
        if not request.history:
            admit = partial(admits, flt)
            resolved = resolve_current(
                cands,
                fetch,
                admit,
                request.as_of,
                live=lambda r: not expired(r, now),
                prefetch=partial(later_states, self.store, bank_id),
            )
            cands = resolved.candidates
            trace.lap("current_state", cands, state_note(resolved, request))
        cands, bias_on = self._adjust(cands, request, analysis, trace)
        ordered = sorted(cands, key=sort_key)
        trace.lap("sort", ordered, "score, then newest first, then id")
        ordered = asked_subject_first(ordered, request.query)
        trace.lap("subject", ordered, "statements of another subject after the asked one's")
        if not request.history and request.as_of is None:
            ordered = states_before_plans(ordered, request.query)
            trace.lap("plans", ordered, "what is planned after what is so, of the asked subject")
            later = newer_answers(
                ordered, request.query, flt, self.embedder.embed, self.store.search_dense_batch
            )
            trace.lap("successors", later, "newer memories read near what the first answer")
            ordered = outdate_older(ordered, request.query, later=later)
            outdated = sum(1 for c in ordered if c.outdated_by is not None)
            trace.lap(
                "outdated", ordered, f"older values of one subject, after the newest: {outdated}"
            )
        if not request.full_text:
            ordered = self._snippets(bank_id, ordered, vectors[0], analysis, request, trace)
        window = self._window(ordered, request, trace)
        response = self._response(bank_id, request, analysis, window, resolved, bias_on, trace)
        if self.tracer.enabled:
            trace.emit(self.tracer)
        return response

    def _fetch_candidates(
        self,
        queries: list[str],
        vectors: Vectors,
        flt: Filter,
        when: DateWindow | None,
        limit: int,
        current: bool,
        trace: Trace,
    ) -> list[Candidate]:
        """Dense and keyword candidates of every query; with a named date, also those of
        the query within that date, which a busy bank would otherwise push out. For the
        current state, the current states to the depth and the superseded ones that
        match best (`fetch.fetch_current`); for history and `as_of`, every state."""
        depth = max(self.config.depth, limit * 3)
        older = self.config.superseded_depth

        def search(dense: Vector, query: str, scope: Filter) -> list[Candidate]:
            sparse = query_vector(query)
            if current:
                return fetch_current(self.store, dense, sparse, scope, depth, older)
            return fetch_candidates(self.store, dense, sparse, scope, depth)

        lists = [search(v, q, flt) for q, v in zip(queries, vectors, strict=True)]
        if self.config.instruction_place > 0:
            lists.append(fetch_instructions(self.store, vectors[0], flt))
        dated = within(flt, when) if when is not None else None
        if dated is not None:
            lists.append(search(vectors[0], queries[0], dated))
        cands = merge_candidates(lists)
        pool = f"; evidence over the first {self.config.depth}" if depth > self.config.depth else ""
        states = ""
        if current:
            states = f"; current states, and the best {older} superseded by keyword"
        trace.lap(
            "fetch",
            cands,
            f"depth {depth}{pool}{states}" + (", and within the date" if dated else ""),
        )
        return cands

    def _snippets(
        self,
        bank_id: str,
        ordered: list[Candidate],
        query: Vector,
        analysis: QueryAnalysis,
        request: RecallRequest,
        trace: Trace,
    ) -> list[Candidate]:
        """Long memories in reach of the window (twice its size, for the places
        prefer-observations frees) return the passage that answers; one further down
        that the window still reaches is returned whole."""
        head = request.limit * 2
        read = partial(self.store.passage_vectors, bank_id)
        ordered = with_snippets(
            ordered, head, partial(self.passages.vectors, read), query, analysis.stems
        )
        cut = sum(1 for c in ordered[:head] if c.snippet)
        trace.lap("snippets", ordered, f"long memories returned as their passage: {cut}")
        return ordered

    def _window(self, ordered: list[Candidate], request: RecallRequest, trace: Trace) -> Window:
        """Rerank the head of the order, place the standing instruction that applies
        (`readmodel.recall.instructions`), then fill the shown window. Prefer-observations
        (DESIGN stage 8) runs here, in the final order and before truncation, because
        only here is it known which observations are returned. With `all` false, what
        has no topical evidence is left out of the window (`labels.topical`)."""
        if self.reranker is not None:
            head = self.reranker(request.query, ordered[: request.limit * 3])
            ordered = sorted(head.candidates, key=sort_key) + ordered[request.limit * 3 :]
            trace.lap("rerank", ordered, head.note)
        place = self.config.instruction_place
        if place > 0:
            current = not request.history and request.as_of is None
            floor = self.config.semantic_floor
            ordered, placed = place_instruction(
                ordered, floor, place, current, self.config.instruction_ratio
            )
            trace.lap("instructions", ordered, instruction_note(placed, place))
        window = fill_window(
            ordered,
            request.limit,
            request.min_score,
            request.max_tokens,
            request.prefer_observations,
            evidence_floor=self.config.semantic_floor if request.all is False else None,
        )
        if request.prefer_observations:
            trace.lap("prefer_observations", window.shown, prefer_note(window))
        trace.lap("truncate", window.shown, truncate_note(window, request))
        return window

    def _adjust(
        self, cands: list[Candidate], request: RecallRequest, analysis: QueryAnalysis, trace: Trace
    ) -> tuple[list[Candidate], bool]:
        cfg = self.config
        if cfg.decay_enabled:
            cands = adjust.apply_decay(
                cands,
                self.clock(),
                cfg.decay_half_life_days,
                cfg.decay_floor,
                cfg.decay_recency_weight,
                cfg.decay_importance_weight,
            )
            trace.lap("decay", cands, f"half-life {cfg.decay_half_life_days:g} d")
        mode = request.recency_bias or cfg.recency_bias
        bias_on = mode == "on" or (mode == "auto" and analysis.temporal_intent)
        if bias_on:
            cands = adjust.apply_recency_bias(cands, cfg.temporal_weight)
            trace.lap("recency_bias", cands, f"{mode}, weight {cfg.temporal_weight:g}")
        cands = adjust.apply_feedback(cands)
        trace.lap("feedback", cands)
        return cands, bias_on

    def _response(
        self,
        bank_id: str,
        request: RecallRequest,
        analysis: QueryAnalysis,
        window: Window,
        resolved: Resolution,
        bias_on: bool,
        trace: Trace,
    ) -> RecallResponse:
        cfg, shown = self.config, window.shown
        return RecallResponse(
            bank_id=bank_id,
            query=request.query,
            results=[
                to_result(c, request.explain, cfg.semantic_floor, resolved.inherited.get(c.id))
                for c in shown
            ],
            dropped_by_prefer_observations=window.dropped,
            recency_bias="on" if bias_on else "off",
            low_confidence=low_confidence(shown, cfg.semantic_floor),
            without_evidence=window.without_evidence,
            direct_answer=direct_answer(
                shown, analysis, cfg.direct_answer_overlap, cfg.direct_answer_margin
            ),
            timings=trace.timings(),
            explain=trace.stages if request.explain else None,
        )

    def _fetch(
        self, bank_id: str, ids: Sequence[uuid.UUID], now: datetime | None = None
    ) -> list[Record]:
        """Records by id; with `now`, only those not expired by then."""
        found = [p.record for p in self.store.fetch(bank_id, ids)]
        return found if now is None else [r for r in found if not expired(r, now)]

    def ranking_settings(self) -> dict[str, str | int | float | bool]:
        """The deployment's settings that change ranking, for the impression log."""
        return deployment_settings(self.config, self.reranker, self.fusion_weights)
