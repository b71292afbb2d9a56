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
from typing import Final

from readmodel.stamped import Stamped
from readmodel.store import Record, TextStats

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
