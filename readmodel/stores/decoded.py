"""`DecodedRecords`: records already decoded from their payloads, by point id and version.

Decoding a payload (`from_payload`, `stored_stats`) was most of recall's time in the
store: about 20 us a hit, some 100 hits a recall, and mostly the same points recall
after recall. The engine gives every point a version that each write to it raises (an
upsert, a payload update, a delete and re-insert), so a record decoded at one version
is that version's record for as long as the point keeps it: an entry is never stale,
only unused once the point moves on, and needs no invalidation. (A record read by id
after a search reported its version may be of a later version, as a read by id after
a search always could be; a search reporting the later version misses it.)

Versions count the operations of one shard; a shard rebuilt by copying (a purge's
compaction) numbers them afresh, so an adapter clears its entries when it closes the
shard they came from. Records are immutable, so one decoded record is shared by every
hit that reads it.
"""

import uuid
from collections.abc import Mapping
from typing import Any, Final

from readmodel.stamped import Stamped
from readmodel.store import Record, StoredPoint, TextStats

DEFAULT_SIZE: Final = 2048
"""Entries kept; the oldest entry goes first. An entry holds about 7 KB for a LoCoMo turn
and 17 KB for a BEAM memory (its record and text stems, measured), so 14 to 36 MB at
most. Recall's hit rate on the LoCoMo dev questions is 0.94 at 1024 to 2048 entries
and 0.97 at 8192; on BEAM dev 0.88 from 512 up (a bank's hot set is small)."""

Decoded = tuple[Record, TextStats | None]


class DecodedRecords(Stamped[uuid.UUID, int, Decoded]):
    """Records by point id, each for the version it was decoded at."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        super().__init__(size)


PAYLOAD_RECORDS_SIZE: Final = 16384
"""Entries of `PayloadRecords`. Consolidation reads each event's statements of the same
subject by slot key, batch after batch, and mostly reads the same points again: on the
bench workload (10,000 events in one bank) 84% of its reads find an equal payload at
16,384 entries and 73% at 4,096. An entry holds its payload besides the decoded record,
about 7 KB for a short statement: 16,384 entries add some 120 MB to an ingest of 20,000
events (4,096 about 30 MB, but an ingest of 20,000 events then took 53 s of CPU time
rather than 46 s)."""


class PayloadRecords(Stamped[str, Mapping[str, Any], Decoded]):
    """Records by point id, each for the payload it was decoded from. A scroll or a read
    by id reports no version, so the payload itself is the stamp: an equal payload decodes
    to an equal record, and comparing two payloads costs a tenth of decoding one."""

    def __init__(self, size: int = PAYLOAD_RECORDS_SIZE) -> None:
        super().__init__(size)


DENSE_POINTS_SIZE: Final = 16384
"""Entries of `DensePoints`: as many as `PayloadRecords`, which the scrolls they serve
used before (consolidation reads the same subjects' statements batch after batch). An
entry holds a record, its text stats and its dense vector (1 KB at 256 dimensions)."""


class DensePoints(Stamped[uuid.UUID, int, StoredPoint]):
    """Points read with their dense vector alone, by point id, each for the version it
    was read at: consolidation's scrolls and neighbour searches, which read the points
    of the same subjects batch after batch, take the points whose version has not moved
    from here and read only the others."""

    def __init__(self, size: int = DENSE_POINTS_SIZE) -> None:
        super().__init__(size)
