"""The request's filters, as a store filter and as a check on records found by other routes
(chain heads), so no stage can bypass them."""

from datetime import datetime

from contracts.recall import RecallRequest
from readmodel.store import Filter, Record, matches


def upper_bound(request: RecallRequest) -> datetime | None:
    bounds = [t for t in (request.end, request.as_of) if t is not None]
    return min(bounds) if bounds else None


def store_filter(bank_id: str, request: RecallRequest, now: datetime | None = None) -> Filter:
    """`now`: what has expired by then is never a candidate (expiry is about the real
    time of the recall, whatever `as_of` asks)."""
    tags = tuple(request.tags)
    return Filter(
        bank_id=bank_id,
        kinds=tuple(request.kinds),
        tags_any=tags if request.tags_match == "any" else (),
        tags_all=tags if request.tags_match == "all" else (),
        occurred_from=request.start,
        occurred_to=upper_bound(request),
        live_at=now,
    )


def admits(flt: Filter, record: Record) -> bool:
    """Would `flt` have returned `record`?"""
    return matches(flt, record)
