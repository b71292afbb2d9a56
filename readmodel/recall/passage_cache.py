"""`PassageCache`: the stored passage vectors of long memories recall read lately.

Snippets (`readmodel.recall.snippets`) read the passage vectors of every long memory in
reach of the window: on BEAM dev about 30 memories and 130 passages a recall, some 3 ms
of the engine converting vectors to Python, and mostly the same memories recall after
recall in a bank. A memory's passage vectors are the embedder's vectors of its text's
passages: while the text is the same, so are they. An entry is kept by bank, memory id
and the text it was read for, so a memory whose text changed (a new version of it) is
read again, and a forgotten memory is never asked for (recall no longer finds it). The
embedder is fixed for the life of a process (another one needs `rebuild --all` and a
restart), so an entry never goes stale; the oldest entries go first (`Stamped`).
"""

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from readmodel.recall.candidate import Candidate
from readmodel.stamped import Stamped
from readmodel.store import Vector

DEFAULT_SIZE: Final = 2048
"""Memories kept. An entry is its passages' vectors (a BEAM memory of 4 passages: 4 x 256
float32, 4 KB with the static embedder), so some 8 MB at most."""

PassageVectors = Callable[[Sequence[uuid.UUID]], Mapping[uuid.UUID, Vector]]
"""The stored passage vectors of these memories of one bank (those that have them)."""


class PassageCache:
    """Passage vectors by bank and memory id, each for the text it was read for."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self._kept: Stamped[tuple[str, uuid.UUID], str, Vector] = Stamped(size)

    def vectors(
        self, read: PassageVectors, memories: Sequence[Candidate]
    ) -> dict[uuid.UUID, Vector]:
        """The passage vectors of `memories` (of one bank): kept ones for the same text,
        the others from `read` in one call, then kept."""
        found: dict[uuid.UUID, Vector] = {}
        missing: list[Candidate] = []
        for c in memories:
            kept = self._kept.get((c.record.bank_id, c.id), c.record.text)
            if kept is None:
                missing.append(c)
            else:
                found[c.id] = kept
        if not missing:
            return found
        fresh = read([c.id for c in missing])
        for c in missing:
            if c.id in fresh:
                self._kept.put((c.record.bank_id, c.id), c.record.text, fresh[c.id])
        found.update(fresh)
        return found

    def __len__(self) -> int:
        return len(self._kept)
