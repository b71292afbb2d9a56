"""The request's filters, as a store filter and as a check on records found by other routes
(chain heads), so no stage can bypass them."""

from datetime import datetime

from contracts.recall import RecallRequest
from readmodel.store import Filter, Record


def upper_bound(request: RecallRequest) -> datetime | None:
    bounds = [t for t in (request.end, request.as_of) if t is not None]
    return min(bounds) if bounds else None


def store_filter(bank_id: str, request: RecallRequest) -> Filter:
    tags = tuple(request.tags)
    return Filter(
        bank_id=bank_id,
        kinds=tuple(request.kinds),
        tags_any=tags if request.tags_match == "any" else (),
        tags_all=tags if request.tags_match == "all" else (),
        occurred_from=request.start,
        occurred_to=upper_bound(request),
    )


def admits(flt: Filter, record: Record) -> bool:
    """Would `flt` have returned `record`?"""
    if record.bank_id != flt.bank_id or (flt.kinds and record.kind not in flt.kinds):
        return False
    tags = set(record.tags)
    if flt.tags_any and not tags & set(flt.tags_any):
        return False
    if flt.tags_all and not set(flt.tags_all) <= tags:
        return False
    if flt.occurred_from is not None and record.occurred_at < flt.occurred_from:
        return False
    return flt.occurred_to is None or record.occurred_at <= flt.occurred_to
