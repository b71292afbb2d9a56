"""`EdgeStore`: the `MemoryStore` port over an embedded Qdrant Edge shard on local disk.

The shard lives in `<path>/shard`; `<path>/store.json` records the dense size the
shard was created with, written before the shard so a half-created store never
claims a size it does not have.

Durability: Edge writes every update to its write-ahead log before applying it, so an
update that returned survives the process being killed (the WAL is replayed on load).
`close()` additionally flushes the segments, which keeps the replay short.

Memory: until a flush, Edge keeps what was written since the last one in memory (a
few KB per small update); the store flushes itself every `FLUSH_EVERY_UPDATES` updates.
A flush costs about the same however little was written since the last one, and more
as the shard grows (0.3 to 0.6 s at 20,000 points, on a shared 2-core machine): every
1,000 updates, flushes took a tenth of an ingest's time; every 5,000, an ingest of
20,000 events peaks some 25 MB higher.

Search: Edge has no background optimizer, so a shard is one unindexed segment searched
by full scan until someone calls `optimize()`, which builds the HNSW graph of every
segment above the engine's indexing threshold (about 10,000 points). Recall's search
(`search_hybrid`) uses the graph once it exists; `search_dense` and
`search_dense_batch`, the worker's neighbour queries, ask for exact search, so what
consolidation merges never depends on when an index was built. `optimize()` holds the
interpreter lock for its whole run (70 s at 100,000 points on a shared 2-core machine),
so it is never called on a request's path: operators run `sediment optimize`. A point
updated after indexing is copied into the unindexed segment, and searched there by full
scan until the next `optimize()`. Consolidation's updates are few per point; recall's
`touch` of its results would be one per recalled point, so last-access times are kept
beside the points instead (`AccessTimes`, readmodel/stores/access.py), merged into every
read, and written into the points by `optimize()` just before it indexes.

Consolidation's reads (`search_dense` and `search_dense_batch` with vectors, `scroll`
with the dense vector alone) ask the engine for ids and versions only, and take the
points from `DensePoints` where it holds them at those versions: a batch reads the
statements of its subjects, which the batches before it read too, and converting a
point's payload and vector into Python objects cost more than everything else such a
read does.
"""

import contextlib
import functools
import json
import os
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Concatenate, Final, ParamSpec, TypeVar

import numpy as np
import qdrant_edge as qe

from readmodel.store import (
    DENSE_VECTOR,
    EMPTY_VECTOR,
    KEYWORD_VECTOR,
    PASSAGE_VECTOR,
    DerivedPatch,
    Feedback,
    Filter,
    Hit,
    Rebuilding,
    SparseVector,
    StoredPoint,
    StoreInfo,
    Vector,
)
from readmodel.stores import ties
from readmodel.stores.access import AccessTimes, Restampable, from_micros, restamped
from readmodel.stores.decoded import DecodedRecords, DensePoints, PayloadRecords
from readmodel.stores.dialect import Dialect, scrolled
from readmodel.stores.gate import Gate
from readmodel.stores.payload import (
    DONE_PAYLOAD,
    FLOAT_INDEXES,
    KEYWORD_INDEXES,
    TENANT_FIELD,
    DenseSizeMismatchError,
    HitReader,
    feedback_payload,
    hit,
    passages_by_id,
    point_id,
    same_values,
    stored_point,
    touch_payload,
    vector_names,
)
from readmodel.stores.pending_purge import PendingPurge, sync_dir

ENGINE: Final = "qdrant-edge"
SHARD_DIR: Final = "shard"
COMPACT_DIR: Final = "shard.compact"
OLD_DIR: Final = "shard.old"
META_FILE: Final = "store.json"
ENGINE_CONFIG_FILE: Final = "edge_config.json"
DEFAULT_PAGE_SIZE: Final = 256
FLUSH_EVERY_UPDATES: Final = 5000
DENSE_MEMORY: Final = qe.Memory.Cold

P = ParamSpec("P")
R = TypeVar("R")


def _reading(
    method: "Callable[Concatenate[EdgeStore, P], R]",
) -> "Callable[Concatenate[EdgeStore, P], R]":
    """A call that reads the shard: never during the swap of a live purge."""

    @functools.wraps(method)
    def run(store: "EdgeStore", /, *args: P.args, **kwargs: P.kwargs) -> R:
        with store._gate.shared():
            return method(store, *args, **kwargs)

    return run


def _writing(
    method: "Callable[Concatenate[EdgeStore, P], R]",
) -> "Callable[Concatenate[EdgeStore, P], R]":
    """A call that writes the shard: never during a live purge's copy or swap."""

    @functools.wraps(method)
    def run(store: "EdgeStore", /, *args: P.args, **kwargs: P.kwargs) -> R:
        with store._writes.shared(), store._gate.shared():
            return method(store, *args, **kwargs)

    return run


class EdgeStore:
    """Embedded store: one Edge shard per directory, no server process.

    Only one `EdgeStore` may have a directory open at a time (the shard owns its files).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        page_size: int = DEFAULT_PAGE_SIZE,
        flush_every: int = FLUSH_EVERY_UPDATES,
    ) -> None:
        self._root = Path(path)
        self._gate = Gate()
        """Held shared by every call that reads or writes the shard, exclusive by the
        swap of a live purge (`purge_now`)."""
        self._writes = Gate()
        """Held shared by every call that writes, exclusive for the whole of a live purge,
        so nothing is written to the shard while it is copied."""
        self._owed = False
        """A forget's delete happened since the last copy (`purge_now`)."""
        self._awaiting: dict[str, int] = {}
        """Per bank, forgets that called `purge` and have not deleted yet."""
        self._flush_every = flush_every
        self._unflushed = 0
        self._shard_dir = self._root / SHARD_DIR
        self._meta_path = self._root / META_FILE
        self._page_size = page_size
        self._dense_size = self._read_dense_size()
        self._shard: qe.EdgeShard | None = None
        self._purge_on_close = False
        self._pending_purge = PendingPurge(self._root)
        self._recover_swap()
        self._finish_pending_purge()
        self._access = AccessTimes(self._root)
        self._decoded = DecodedRecords()
        self._by_payload = PayloadRecords()
        self._dense_points = DensePoints()
        self._banks_found: frozenset[str] | None = None
        self._banks_written: set[str] = set()
        self._banks_lock = threading.Lock()
        self._passages = True
        """Whether the shard has the passage vector: one created before it has none and
        is copied into one that has when the store opens (`_compact`)."""
        if (self._shard_dir / ENGINE_CONFIG_FILE).exists():
            # With our config, so that a store created before a placement changed
            # gets it for every segment written from now on (optimized or compacted).
            self._shard, self._passages = _load(self._shard_dir, self._dense_size)
            if not self._passages and self._dense_size is not None:
                # Created before long memories had passages: copied once into a shard
                # that has the passage vector (`sediment rebuild --all` then derives
                # the passages of the memories stored before).
                self._shard.close()
                self._compact(self._dense_size)
                self._shard, self._passages = _load(self._shard_dir, self._dense_size)

    @property
    def path(self) -> Path:
        return self._root

    @_writing
    def ensure_schema(self, dense_size: int) -> None:
        created = self._shard is None
        if self._shard is None:
            self._write_dense_size(dense_size)
            self._shard = qe.EdgeShard.create(str(self._shard_dir), _config(dense_size))
            self._passages = True
        elif self._dense_size is None:
            self._adopt_unrecorded_shard(dense_size)
        elif self._dense_size != dense_size:
            raise DenseSizeMismatchError(str(self._root), self._dense_size, dense_size)
        shard = self._require()
        present = set(shard.info().payload_schema)
        missing = {f: s for f, s in _index_schemas().items() if f not in present}
        for field, schema in missing.items():
            shard.update(qe.UpdateOperation.create_field_index(field, schema))
        if created or missing:
            shard.flush()

    @_writing
    def upsert(self, points: Sequence[StoredPoint]) -> None:
        if points:
            op = qe.UpdateOperation.upsert_points(
                [DIALECT.point_of(p, self._passages) for p in points]
            )
            # Before the write, so the banks known are never behind the engine's.
            self._banks_written.update(p.record.bank_id for p in points)
            self._update(op)

    @_reading
    def fetch(
        self, bank_id: str, ids: Sequence[uuid.UUID], with_vectors: bool = False
    ) -> list[StoredPoint]:
        """Without vectors, records decoded before at the versions the points hold are
        not read again (recall's chain walks and as-of views read the same few points
        recall after recall); a point the version probe did not report is read as is."""
        if with_vectors:
            return self._restamped(bank_id, self._read(bank_id, ids, with_vectors))
        wanted = list(dict.fromkeys(ids))
        versions = self._versions(bank_id, wanted)
        points = self._read_seen(bank_id, versions, [i for i in wanted if i in versions])
        unversioned = [i for i in wanted if i not in versions]
        if unversioned:
            points += self._restamped(bank_id, self._read(bank_id, unversioned))
        found = {p.record.id: p for p in points}
        return [found[i] for i in wanted if i in found]

    def _versions(self, bank_id: str, ids: list[uuid.UUID]) -> dict[uuid.UUID, int]:
        """The versions of the bank's points of `ids`. The engine reports versions with
        search hits only (a read by id has none, a search without a query says 0), so
        this is an exact dense search over those points alone, without payloads: about
        20 us, where reading and decoding a long memory costs about 35."""
        if not ids or self._dense_size is None:
            return {}
        scope = _filter(Filter(bank_id=bank_id, ids=tuple(ids)))
        probe = np.ones(self._dense_size, dtype=np.float32)
        request = _dense_request(probe, scope, len(ids), None, False, EXACT, with_payload=False)
        return _versioned(self._require().query(request))[1]

    def _read(
        self,
        bank_id: str,
        ids: Sequence[uuid.UUID],
        with_vectors: bool = False,
        dense_only: bool = False,
    ) -> list[StoredPoint]:
        """The bank's points of `ids` as stored, without their pending access times;
        with `dense_only`, of the vectors only the dense one, and decoded afresh (such
        points are kept in `_dense_points` instead)."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        records = self._require().retrieve(
            [str(i) for i in wanted],
            with_payload=True,
            with_vector=vector_names(with_vectors, sparse=not dense_only, passages=self._passages),
        )
        by_payload = None if dense_only else self._by_payload
        found = {
            point_id(r.id): stored_point(r.payload or {}, r.vector, by_payload)
            for r in records
            if (r.payload or {}).get(TENANT_FIELD) == bank_id
        }
        return [found[i] for i in wanted if i in found]

    def _dense_read(
        self, bank_id: str, ids: Sequence[uuid.UUID], versions: dict[uuid.UUID, int]
    ) -> dict[uuid.UUID, StoredPoint]:
        """The bank's points of `ids` with their dense vectors alone: those read before
        at the versions a search reported (`versions`) from `_dense_points`, the others
        read by id, and kept there at that version (an id without one, read as it is)."""
        found: dict[uuid.UUID, StoredPoint] = {}
        missing: list[uuid.UUID] = []
        for i in ids:
            version = versions.get(i)
            point = None if version is None else self._dense_points.get(i, version)
            if point is None or point.record.bank_id != bank_id:
                missing.append(i)
            else:
                found[i] = point
        for p in self._read(bank_id, missing, with_vectors=True, dense_only=True):
            # Shared by every later read of this version: nothing may write into it.
            p.dense.flags.writeable = False
            version = versions.get(p.record.id)
            if version is not None:
                self._dense_points.put(p.record.id, version, p)
            found[p.record.id] = p
        return found

    def _dense_hits(
        self, bank_id: str, answers: Sequence[Sequence[qe.ScoredPoint]]
    ) -> list[list[Hit]]:
        """Hits with their dense vectors, from searches that read ids, scores and
        versions alone: each point read once (`_dense_read`), however many searches
        found it; one deleted since its search found it is no hit."""
        read = [_versioned(found) for found in answers]
        versions = {i: v for _, found in read for i, v in found.items()}
        points = self._dense_read(bank_id, list(versions), versions)
        return [
            self._restamped(
                bank_id,
                [
                    Hit(points[i].record, score, points[i].dense, points[i].stats)
                    for i, score in scored
                    if i in points
                ],
            )
            for scored, _ in read
        ]

    def _read_seen(
        self, bank_id: str, versions: dict[uuid.UUID, int], ids: Sequence[uuid.UUID]
    ) -> list[StoredPoint]:
        """The points of `ids` a search found at `versions`: those decoded at that version
        from `DecodedRecords` (or from `DensePoints`, read with their dense vector at
        that version), the others read (at that version or a later one) and kept there."""
        points: list[StoredPoint] = []
        missing: list[uuid.UUID] = []
        for i in ids:
            found = self._decoded.get(i, versions[i])
            if found is None and (dense := self._dense_points.get(i, versions[i])) is not None:
                found = (dense.record, dense.stats)
            if found is None or found[0].bank_id != bank_id:
                missing.append(i)
            else:
                points.append(StoredPoint(found[0], EMPTY_VECTOR, stats=found[1]))
        for p in self._read(bank_id, missing):
            self._decoded.put(p.record.id, versions[p.record.id], (p.record, p.stats))
            points.append(p)
        return self._restamped(bank_id, points)

    @_reading
    def passage_vectors(self, bank_id: str, ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Vector]:
        wanted = list(dict.fromkeys(ids))
        if not wanted or not self._passages:
            return {}
        records = self._require().retrieve(
            [str(i) for i in wanted], with_payload=[TENANT_FIELD], with_vector=[PASSAGE_VECTOR]
        )
        return passages_by_id(bank_id, ((r.id, r.payload, r.vector) for r in records))

    @_reading
    def search_dense(
        self,
        vector: Vector | Sequence[float],
        flt: Filter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[Hit]:
        if with_vectors:
            request = _dense_request(
                vector, _filter(flt), limit, score_threshold, False, EXACT, with_payload=False
            )
            return self._dense_hits(flt.bank_id, [self._require().query(request)])[0]
        request = _dense_request(vector, _filter(flt), limit, score_threshold, False, EXACT)
        hits = [hit(p.payload or {}, p.score, p.vector) for p in self._require().query(request)]
        return self._restamped(flt.bank_id, hits)

    @_reading
    def search_dense_batch(
        self,
        queries: Sequence[tuple[Vector, Filter]],
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[list[Hit]]:
        if not queries:
            return []
        scopes = {flt: _filter(flt) for flt in dict.fromkeys(flt for _, flt in queries)}
        requests = [
            _dense_request(
                v, scopes[flt], limit, score_threshold, False, EXACT, with_payload=not with_vectors
            )
            for v, flt in queries
        ]
        answers = self._require().query_batch(qe.QueryBatchRequest(requests))
        if with_vectors:
            by_bank: dict[str, list[int]] = {}
            for n, (_, flt) in enumerate(queries):
                by_bank.setdefault(flt.bank_id, []).append(n)
            out: list[list[Hit]] = [[] for _ in queries]
            for bank_id, ns in by_bank.items():
                hits = self._dense_hits(bank_id, [answers[n] for n in ns])
                for n, found in zip(ns, hits, strict=True):
                    out[n] = found
            return out
        read = HitReader()
        return [
            self._restamped(
                flt.bank_id, [read(p.id, p.payload or {}, p.score, p.vector) for p in found]
            )
            for found, (_, flt) in zip(answers, queries, strict=True)
        ]

    @_reading
    def search_keyword(self, vector: SparseVector, flt: Filter, limit: int) -> list[Hit]:
        """IDF statistics are taken over the bank alone, so other banks never shift scores."""
        if not vector.indices:
            return []
        scope = _filter(flt)
        corpus = self._idf_corpus(flt.bank_id)
        request = _keyword_request(vector, scope, corpus, ties.first_read(limit))
        first, versions = _versioned(self._require().query(request))
        return self._keyword_hits(flt.bank_id, limit, first, versions, {})

    def _idf_corpus(self, bank_id: str) -> qe.Filter | None:
        """The points the keyword half's IDF statistics are taken over: the bank's, or
        None (the engine's statistics over the whole shard) while the shard holds no
        other bank's points, when the two are the same numbers. The engine computes a
        corpus filter's statistics by a pass over the points it selects, on every query:
        1.1 ms of a 1.3 ms keyword search at 100,000 memories in one bank.

        The banks are read from the engine once (a facet, about 10 ms at 100,000) and
        every upsert adds its banks before it writes, so they are never fewer than the
        engine holds (the directory admits one process). Deleting a bank's points keeps
        it counted until the store is reopened: the bank's corpus then, which is
        always right. Checked without building the union, which a store of many banks
        would pay on every recall."""
        if self._banks_found is None:
            with self._banks_lock:
                if self._banks_found is None:
                    self._banks_found = frozenset(self.banks())
        found, written = self._banks_found, self._banks_written
        if len(found) <= 1 and len(written) <= 1 and (found | written) <= {bank_id}:
            return None
        return DIALECT.bank(bank_id)

    def _keyword_hits(
        self,
        bank_id: str,
        limit: int,
        first: list[ties.Scored],
        versions: dict[uuid.UUID, int],
        known: dict[uuid.UUID, Hit],
    ) -> list[Hit]:
        read = functools.partial(self._read_seen, bank_id, versions)
        return ties.kept_hits(first, limit, known, read)

    @_reading
    def search_hybrid(
        self, dense: Vector | Sequence[float], sparse: SparseVector, flt: Filter, limit: int
    ) -> tuple[list[Hit], list[Hit]]:
        """Recall's search: the dense half uses the HNSW graph where one was built
        (approximate; see the module's docstring), the keyword half is exact.

        Both halves read ids, scores and versions only; the records of the dense hits
        and of the keyword hits kept come from `DecodedRecords`, the rest from one read
        by id (the engine converts a payload as fast either way; a record read twice
        is converted once). A point deleted between the search and that read is not
        a hit."""
        scope = _filter(flt)
        requests = [_dense_request(dense, scope, limit, None, False, None, with_payload=False)]
        if sparse.indices:
            corpus = self._idf_corpus(flt.bank_id)
            requests.append(_keyword_request(sparse, scope, corpus, ties.first_read(limit)))
        answers = self._require().query_batch(qe.QueryBatchRequest(requests))
        dense_read, versions = _versioned(answers[0])
        keyword_read, keyword_versions = _versioned(answers[1] if len(answers) > 1 else [])
        versions.update(keyword_versions)
        wanted = [i for i, _ in dense_read] + [i for i, _ in ties.top(keyword_read, limit)]
        found = self._read_seen(flt.bank_id, versions, list(dict.fromkeys(wanted)))
        known = {p.record.id: Hit(p.record, 0.0, None, p.stats) for p in found}
        dense_hits = [
            Hit(known[i].record, score, None, known[i].stats)
            for i, score in dense_read
            if i in known
        ]
        if len(answers) == 1:
            return dense_hits, []
        return dense_hits, self._keyword_hits(flt.bank_id, limit, keyword_read, versions, known)

    @_writing
    def set_derived(self, bank_id: str, patches: Sequence[DerivedPatch]) -> None:
        """Patches with the same values are one engine operation (a batch's done-markers
        mostly are)."""
        for values, ids in same_values(patches).items():
            scope = _filter(Filter(bank_id=bank_id, ids=ids))
            self._update(qe.UpdateOperation.set_payload_by_filter(scope, dict(values)))

    @_writing
    def mark_consolidated(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None:
        if ids:
            self._set_payload(bank_id, tuple(ids), DONE_PAYLOAD)

    @_writing
    def set_feedback(self, bank_id: str, record_id: uuid.UUID, feedback: Feedback) -> None:
        self._set_payload(bank_id, (record_id,), feedback_payload(feedback))

    def _restamped(self, bank_id: str, items: list[Restampable]) -> list[Restampable]:
        """`items` with the bank's pending last-access times (`AccessTimes`)."""
        times = self._access.of_bank(bank_id)
        return list(restamped(items, times)) if times else items

    def touch(self, bank_id: str, ids: Sequence[uuid.UUID], at: datetime) -> None:
        """Kept beside the points until the next `optimize` (`AccessTimes`), so a recall
        never moves what it returned out of the search index."""
        self._access.record(bank_id, (i.int for i in ids), at)

    def _set_payload(
        self, bank_id: str, ids: tuple[uuid.UUID, ...], values: dict[str, Any]
    ) -> None:
        scope = _filter(Filter(bank_id=bank_id, ids=ids))
        self._update(qe.UpdateOperation.set_payload_by_filter(scope, values))

    @_writing
    def delete(self, bank_id: str, ids: Sequence[uuid.UUID]) -> None:
        if ids:
            scope = _filter(Filter(bank_id=bank_id, ids=tuple(ids)))
            self._update(qe.UpdateOperation.delete_points_by_filter(scope))
            self._access.forget(bank_id, (i.int for i in ids))
            if self._awaiting.get(bank_id):
                self._awaiting[bank_id] -= 1
                self._owed = True

    def scroll(
        self, flt: Filter, with_vectors: bool = False, dense_only: bool = False
    ) -> Iterator[StoredPoint]:
        """Each page is read from the shard open at the time (a live purge's copy keeps
        every point's id, which the next page starts from). With the dense vectors
        alone, consolidation's reads, the points are read at once (`_dense_scroll`)."""
        if with_vectors and dense_only and self._dense_size is not None:
            found = self._dense_scroll(flt)
            if found is not None:
                return iter(found)
        engine_filter = _filter(flt)
        self._require()
        wanted = vector_names(with_vectors, sparse=not dense_only, passages=self._passages)

        def page(offset: Any) -> tuple[list[Any], Any]:
            with self._gate.shared():
                request = qe.ScrollRequest(
                    offset=offset,
                    limit=self._page_size,
                    filter=engine_filter,
                    with_payload=True,
                    with_vector=wanted,
                )
                records, next_offset = self._require().scroll(request)
            return list(records), next_offset

        times = self._access.of_bank(flt.bank_id)
        points = scrolled(page, self._by_payload)
        return restamped(points, times) if times else points

    @_reading
    def _dense_scroll(self, flt: Filter) -> list[StoredPoint] | None:
        """`scroll(flt, with_vectors=True, dense_only=True)` at once: how many points
        `flt` selects, their ids and versions (an exact search under the same filter
        reading neither payloads nor vectors), then the points, from `_dense_read`; None
        when the search finds fewer points than the count (a point without a dense
        vector, or one deleted in between), for a plain scroll to read them. Converting
        a point's payload and vector into Python objects is most of what a plain scroll
        costs (about 25 us a short statement, besides decoding it), and consolidation
        reads the statements of the same subjects by slot key batch after batch: most
        have not moved since the last batch read them."""
        scope = _filter(flt)
        shard = self._require()
        count = shard.count(qe.CountRequest(exact=True, filter=scope))
        if not count:
            return []
        probe = np.ones(self._dense_size or 0, dtype=np.float32)
        request = _dense_request(probe, scope, count, None, False, EXACT, with_payload=False)
        versions = _versioned(shard.query(request))[1]
        if len(versions) < count:
            return None
        ids = sorted(versions, key=_uuid_order)
        found = self._dense_read(flt.bank_id, ids, versions)
        return self._restamped(flt.bank_id, [found[i] for i in ids if i in found])

    @_reading
    def count(self, flt: Filter) -> int:
        return self._require().count(qe.CountRequest(exact=True, filter=_filter(flt)))

    @_reading
    def banks(self) -> list[str]:
        if self._shard is None:
            return []
        response = self._shard.facet(qe.FacetRequest("bank_id", limit=MAX_BANKS, exact=True))
        return sorted(str(hit.value) for hit in response.hits if hit.count > 0)

    @_reading
    def info(self) -> StoreInfo:
        details = {"path": str(self._root), "dense_size": str(self._dense_size)}
        if self._shard is None:
            return StoreInfo(engine=ENGINE, points=0, details=details)
        shard_info = self._shard.info()
        details["segments"] = str(shard_info.segments_count)
        return StoreInfo(engine=ENGINE, points=shard_info.points_count, details=details)

    def _update(self, op: qe.UpdateOperation) -> None:
        """One engine update; every `flush_every` of them, a flush (the count is
        approximate under threads, which is all it needs to be)."""
        shard = self._require()
        shard.update(op)
        self._unflushed += 1
        if self._unflushed >= self._flush_every:
            self._unflushed = 0
            shard.flush()

    @_writing
    def flush(self) -> None:
        """Persist segments now, so a reopen does not have to replay the WAL."""
        if self._shard is not None:
            self._shard.flush()

    @_writing
    def optimize(self) -> bool:
        """Build HNSW / merge segments; Edge has no background optimizer, so callers decide.
        Holds the interpreter lock until done (see the module's docstring); True when the
        engine changed something."""
        shard = self._require()
        self._fold_access()
        return shard.optimize()

    def _fold_access(self) -> None:
        """Write the pending last-access times into the points, where later than theirs;
        the optimize that follows indexes the points this moved."""
        pending = self._access.snapshot()
        for bank_id, times in pending.items():
            ids = [uuid.UUID(int=i) for i in times]
            groups: dict[int, list[uuid.UUID]] = {}
            for start in range(0, len(ids), self._page_size):
                for p in self.fetch(bank_id, ids[start : start + self._page_size]):
                    at = times[p.record.id.int]
                    if p.record.last_accessed_at == from_micros(at):
                        groups.setdefault(at, []).append(p.record.id)
            for at, same in groups.items():
                self._set_payload(bank_id, tuple(same), touch_payload(from_micros(at)))
        self._access.clear(pending)

    @_writing
    def purge(self, bank_id: str) -> None:
        """A forget calls this before its delete. A deleted point's payload stays in its
        segment's pages and in the write-ahead log (whose files are reused, not
        truncated). Optimizing with a vacuum threshold of zero rewrites the pages but not
        the WAL, and emptying the WAL resets the operation numbers the points' versions
        are checked against (later deletes would be ignored). So every live point is
        copied into a fresh shard, which replaces the old one: while the store is open,
        by `purge_now` (which the serving process calls every `SEDIMENT_FORGET_PURGE_S`),
        and at close for whatever is still owed. The intent is on disk (`purge.pending`,
        fsynced) before this returns: a process killed before the copy leaves it there,
        and the next open of the directory copies the shard before anything reads it
        (`_finish_pending_purge`). The bank's next delete is the forget's: the copy that
        follows it purges it (the forget holds the bank's lock from here to its delete,
        so no other delete of the bank comes between)."""
        if not self._purge_on_close:
            self._pending_purge.record()
        self._purge_on_close = True
        self._awaiting[bank_id] = self._awaiting.get(bank_id, 0) + 1

    def purge_now(self) -> bool:
        """Copy the live points into a fresh shard now, while the store stays open, if a
        forget's delete is owed a purge; True when it copied. Writes wait for the whole
        copy (`_writes`); reads go on from the old shard until the swap, which waits for
        the reads in flight (`_gate`) and takes a few milliseconds. `purge.pending` is
        cleared unless a forget called `purge` and has not deleted yet."""
        if not self._owed:
            return False
        with self._writes.exclusive():
            if self._shard is None or self._dense_size is None or not self._owed:
                return False
            self._copy_live(self._shard, self._passages, self._dense_size)
            with self._gate.exclusive():
                old, self._shard = self._shard, None
                old.close()
                self._swap_in()
                self._decoded.clear()
                self._by_payload.clear()
                self._dense_points.clear()
                self._shard, self._passages = _load(self._shard_dir, self._dense_size)
            self._owed = False
            if not any(self._awaiting.values()):
                self._purge_on_close = False
                self._pending_purge.clear()
        return True

    def close(self) -> None:
        with self._writes.exclusive(), self._gate.exclusive():
            self._access.close()
            self._decoded.clear()
            self._by_payload.clear()
            self._dense_points.clear()
            if self._shard is not None:
                shard, self._shard = self._shard, None
                shard.flush()
                shard.close()
                if self._purge_on_close and self._dense_size is not None:
                    self._compact(self._dense_size)
                    self._purge_on_close = False
                    self._owed = False
                    self._pending_purge.clear()

    def _finish_pending_purge(self) -> None:
        """The purge a killed process owed (its `purge.pending` is still there): the
        shard, its WAL replayed (deletes included), is copied before it is opened."""
        if not self._pending_purge.pending:
            return
        if self._dense_size is None or not (self._shard_dir / ENGINE_CONFIG_FILE).exists():
            self._purge_on_close = True
            return
        self._compact(self._dense_size)
        self._pending_purge.clear()

    def _compact(self, dense_size: int) -> None:
        """Copy the live points of the closed shard into `shard.compact`, then swap it in;
        a crash between the renames is repaired when the store is next opened
        (`_recover_swap`)."""
        source, had_passages = _load(self._shard_dir, dense_size)
        try:
            self._copy_live(source, had_passages, dense_size)
        finally:
            source.close()
        self._swap_in()

    def _copy_live(self, source: qe.EdgeShard, had_passages: bool, dense_size: int) -> None:
        """Every live point of `source` into a new shard at `shard.compact`, closed."""
        fresh_dir = self._root / COMPACT_DIR
        shutil.rmtree(fresh_dir, ignore_errors=True)
        target = qe.EdgeShard.create(str(fresh_dir), _config(dense_size))
        for field, schema in _index_schemas().items():
            target.update(qe.UpdateOperation.create_field_index(field, schema))
        offset: Any = None
        while True:
            request = qe.ScrollRequest(
                offset=offset,
                limit=self._page_size,
                with_payload=True,
                with_vector=vector_names(True, sparse=True, passages=had_passages),
            )
            records, offset = source.scroll(request)
            points = [DIALECT.point_of(stored_point(r.payload or {}, r.vector)) for r in records]
            if points:
                target.update(qe.UpdateOperation.upsert_points(points))
            if offset is None:
                break
        target.flush()
        target.close()

    def _swap_in(self) -> None:
        """`shard.compact` becomes `shard` (the shard at `shard` closed)."""
        old_dir = self._root / OLD_DIR
        self._shard_dir.rename(old_dir)
        (self._root / COMPACT_DIR).rename(self._shard_dir)
        shutil.rmtree(old_dir)
        sync_dir(self._root)

    def _recover_swap(self) -> None:
        old_dir = self._root / OLD_DIR
        if old_dir.exists() and not self._shard_dir.exists():
            old_dir.rename(self._shard_dir)
        shutil.rmtree(self._root / COMPACT_DIR, ignore_errors=True)
        shutil.rmtree(old_dir, ignore_errors=True)

    def _require(self) -> qe.EdgeShard:
        if self._shard is None:
            raise RuntimeError(
                f"EdgeStore at {self._root} has no open shard: "
                "call ensure_schema(dense_size) first (or the store was closed)"
            )
        return self._shard

    def _adopt_unrecorded_shard(self, dense_size: int) -> None:
        """A shard without our size record: let the engine check the size, then record it."""
        self._require().close()
        self._shard = None
        try:
            self._shard, self._passages = _load(self._shard_dir, dense_size)
        except Exception as exc:
            self._shard = qe.EdgeShard.load(str(self._shard_dir))
            raise DenseSizeMismatchError(str(self._root), None, dense_size, str(exc)) from exc
        self._write_dense_size(dense_size)

    def layout(self) -> int | None:
        value = self._meta().get("layout")
        return value if isinstance(value, int) else None

    def mark_layout(self, version: int) -> None:
        self._write_meta({**self._meta(), "layout": version})

    def rebuilding(self) -> Rebuilding | None:
        return Rebuilding.of_json(self._meta().get("rebuilding"))

    def mark_rebuilding(self, rebuilding: Rebuilding | None) -> None:
        marker = rebuilding.as_json() if rebuilding is not None else None
        self._write_meta({**self._meta(), "rebuilding": marker})

    def _meta(self) -> dict[str, object]:
        with contextlib.suppress(FileNotFoundError):
            meta = json.loads(self._meta_path.read_text())
            return meta if isinstance(meta, dict) else {}
        return {}

    def _read_dense_size(self) -> int | None:
        value = self._meta().get("dense_size")
        return int(value) if isinstance(value, int | str) else None

    def _write_dense_size(self, dense_size: int) -> None:
        self._write_meta({**self._meta(), "dense_size": dense_size})
        self._dense_size = dense_size

    def _write_meta(self, meta: dict[str, object]) -> None:
        self._root.mkdir(parents=True, exist_ok=True)
        tmp = self._meta_path.with_suffix(".tmp")
        with tmp.open("w") as fh:
            json.dump(meta, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self._meta_path)
        sync_dir(self._root)


MAX_BANKS = 1_000_000


EXACT: Final = qe.SearchParams(exact=True)
"""The worker's neighbour queries: a full scan even where an HNSW graph exists."""


def _dense_request(
    vector: Vector | Sequence[float],
    scope: qe.Filter,
    limit: int,
    score_threshold: float | None,
    with_vectors: bool,
    params: qe.SearchParams | None,
    with_payload: bool = True,
) -> qe.QueryRequest:
    return qe.QueryRequest(
        limit=limit,
        query=qe.Query.Nearest(np.asarray(vector, dtype=np.float32).tolist(), using=DENSE_VECTOR),
        filter=scope,
        with_payload=with_payload,
        with_vector=vector_names(with_vectors, sparse=False),
        score_threshold=score_threshold,
        params=params,
    )


def _keyword_request(
    vector: SparseVector, scope: qe.Filter, corpus: qe.Filter | None, limit: int
) -> qe.QueryRequest:
    """Ids and scores only (the hits kept are read by id, `_keyword_hits`); IDF
    statistics over `corpus` (None: the whole shard), which `EdgeStore._idf_corpus`
    makes the bank's points alone, so other banks never shift scores."""
    return qe.QueryRequest(
        limit=limit,
        query=qe.Query.Nearest(DIALECT.sparse_of(vector), using=KEYWORD_VECTOR),
        filter=scope,
        with_payload=False,
        with_vector=False,
        params=qe.SearchParams(idf=qe.IdfParams(corpus=corpus)),
    )


def _uuid_order(u: uuid.UUID) -> int:
    """The id order of a scroll, without `UUID.__lt__` per comparison."""
    return u.int


def _versioned(
    points: Sequence[qe.ScoredPoint],
) -> tuple[list[ties.Scored], dict[uuid.UUID, int]]:
    """Ids and scores, and each id's version. The binding builds a new `UUID` on every
    read of a point's `id` (about 0.5 us), so each is read once."""
    scored: list[ties.Scored] = []
    versions: dict[uuid.UUID, int] = {}
    for p in points:
        i = point_id(p.id)
        scored.append((i, float(p.score)))
        versions[i] = p.version
    return scored, versions


NO_GRAPH: Final = qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000)
"""The passage vectors are read by id, never searched: no HNSW graph is built for them."""


def _load(shard_dir: Path, dense_size: int | None) -> tuple[qe.EdgeShard, bool]:
    """The shard opened with our config, and whether it has the passage vector: one
    created before that vector existed opens as it is (the engine refuses a config
    whose vectors differ from its segments'), and says it has none."""
    if dense_size is None:
        return qe.EdgeShard.load(str(shard_dir), None), True
    try:
        return qe.EdgeShard.load(str(shard_dir), _config(dense_size)), True
    except Exception as exc:
        # The engine names the vectors it expected and those it found.
        if f'["\\"{DENSE_VECTOR}\\""]' not in str(exc):
            raise
        return qe.EdgeShard.load(str(shard_dir)), False


def _config(dense_size: int) -> qe.EdgeConfig:
    """Dense vectors `Cold`: mapped from their files and paged in as searches read them,
    not copied into memory when a segment opens (the engine's default, `Cached`, which
    also keeps a mutable segment's vectors resident twice). See docs/decisions/0019,
    "Resident memory at 100,000 memories"."""
    dense = qe.EdgeVectorParams(size=dense_size, distance=qe.Distance.Cosine, memory=DENSE_MEMORY)
    passages = qe.EdgeVectorParams(
        size=dense_size,
        distance=qe.Distance.Cosine,
        memory=DENSE_MEMORY,
        multivector_config=qe.MultiVectorConfig(comparator=qe.MultiVectorComparator.MaxSim),
        hnsw_config=NO_GRAPH,
    )
    return qe.EdgeConfig(
        vectors={DENSE_VECTOR: dense, PASSAGE_VECTOR: passages},
        sparse_vectors={KEYWORD_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
    )


def _index_schemas() -> dict[str, qe.KeywordIndexParams | qe.PayloadSchemaType]:
    schemas: dict[str, qe.KeywordIndexParams | qe.PayloadSchemaType] = {
        field: qe.KeywordIndexParams(is_tenant=field == TENANT_FIELD) for field in KEYWORD_INDEXES
    }
    schemas.update({field: qe.PayloadSchemaType.Float for field in FLOAT_INDEXES})
    return schemas


EdgeCondition = qe.FieldCondition | qe.HasIdCondition


@functools.lru_cache(maxsize=4096)
def _any_of(key: str, values: tuple[str, ...]) -> qe.FieldCondition:
    """Built once per key and values: the binding takes about 12 us to build a condition
    on `MatchAny` (it tries the other match types first), and a worker asks for the same
    few (the raw kinds, an entity's keys) batch after batch. Conditions are immutable."""
    return qe.FieldCondition(key=key, match=qe.MatchAny(list(values)))


DIALECT: Final[Dialect[qe.Filter, EdgeCondition, qe.Point, qe.SparseVector]] = Dialect(
    all_of=lambda must, must_not: qe.Filter(must=list(must), must_not=list(must_not) or None),
    equals=lambda key, value: qe.FieldCondition(key=key, match=qe.MatchValue(value)),
    any_of=lambda key, values: _any_of(key, tuple(values)),
    between=lambda key, gte, lte: qe.FieldCondition(key=key, range=qe.RangeFloat(gte=gte, lte=lte)),
    has_ids=lambda ids: qe.HasIdCondition(set(ids)),
    point=qe.Point,
    sparse=qe.SparseVector,
)
_filter = DIALECT.filter
