"""The later states of the chains a current-state walk stands on, read in one call per
chain rather than one round per state (`state.chain_heads`, `prefetch`).

A walk that has stepped from one state to the state that replaced it knows what carried
the chain across that step: the key both hold, else the slot keys both hold
(`subject|attribute` and the like, which consolidation finds the states a memory may
replace by: `worker/consolidation/neighbourhood.py`), and not those of either value
alone ("dana|=lisbon"). The bank's records holding that key, or one of those slot keys,
from the older state's time on, hold the rest of the chain as a rule. They are only
read ahead: the walk still follows `superseded_by`, and a state this read missed is
fetched by id.
"""

from collections.abc import Sequence
from datetime import datetime
from itertools import islice

from readmodel.recall.state import Step
from readmodel.store import Filter, MemoryStore, Record

CHAIN_READ = 1024
"""Records read ahead per key or set of slot keys at most (the states of a longer chain
past these are fetched as the walk reaches them)."""

Carrier = tuple[str | None, tuple[str, ...]]


def carrier(older: Record, newer: Record) -> Carrier | None:
    """What two successive states share: their key, else their common slot keys."""
    if older.key is not None and older.key == newer.key:
        return (older.key, ())
    shared = tuple(sorted(set(older.slot_keys) & set(newer.slot_keys)))
    return (None, shared) if shared else None


def later_states(store: MemoryStore, bank_id: str, steps: Sequence[Step]) -> list[Record]:
    """Records that may follow the `steps` along their chains: per carrier, one read
    from the earliest older state on."""
    since: dict[Carrier, datetime] = {}
    for older, newer in steps:
        found = carrier(older, newer)
        if found is not None:
            since[found] = min(since.get(found, older.occurred_at), older.occurred_at)
    read: list[Record] = []
    for (key, slots), at in since.items():
        scope = (
            Filter(bank_id=bank_id, key=key, occurred_from=at)
            if key is not None
            else Filter(bank_id=bank_id, slot_keys_any=slots, occurred_from=at)
        )
        read.extend(p.record for p in islice(store.scroll(scope), CHAIN_READ))
    return read
