"""The later states of the chains a current-state walk stands on, read in one call per
chain rather than one round per state (`state.chain_heads`, `prefetch`).

A keyed memory's later states share its key, and a memory read by attribute shares its
slot keys with the states that replace it (consolidation finds them by those keys,
`worker/consolidation/neighbourhood.py`), and they occurred no earlier. So the records
of the bank with that key, else one of those slot keys, from the state's own time on,
hold the rest of its chain as a rule. They are only read ahead: the walk still follows
`superseded_by`, and a state this read missed is fetched by id.
"""

from collections.abc import Sequence
from datetime import datetime
from itertools import islice

from readmodel.store import Filter, MemoryStore, Record

CHAIN_READ = 1024
"""Records read ahead per key or slot at most (the states of a longer chain past these
are fetched as the walk reaches them)."""


def later_states(store: MemoryStore, bank_id: str, positions: Sequence[Record]) -> list[Record]:
    """Records that may follow `positions` along their chains: per key (or set of slot
    keys), one read from the earliest of those positions on."""
    since: dict[tuple[str | None, tuple[str, ...]], datetime] = {}
    for r in positions:
        group = (r.key, () if r.key is not None else tuple(sorted(r.slot_keys)))
        if group != (None, ()):
            since[group] = min(since.get(group, r.occurred_at), r.occurred_at)
    found: list[Record] = []
    for (key, slots), at in since.items():
        scope = (
            Filter(bank_id=bank_id, key=key, occurred_from=at)
            if key is not None
            else Filter(bank_id=bank_id, slot_keys_any=slots, occurred_from=at)
        )
        found.extend(p.record for p in islice(store.scroll(scope), CHAIN_READ))
    return found
