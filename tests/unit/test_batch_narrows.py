"""`_narrows`, compared field by field, answers as the definition does: the filters equal
once the narrower's any-of values and times are replaced by the wider one's."""

import itertools
import uuid
from dataclasses import replace
from datetime import timedelta

from readmodel.store import Filter
from tests.helpers import T0
from worker.consolidation.batch import _narrows


def by_definition(flt: Filter, known: Filter) -> bool:
    for name in ("current_at", "occurred_from"):
        have_at, want_at = getattr(known, name), getattr(flt, name)
        if have_at is not None and (want_at is None or want_at < have_at):
            return False
    flt = replace(flt, current_at=known.current_at, occurred_from=known.occurred_from)
    for name in ("declared_supersedes_any", "slot_keys_any"):
        wanted, have = getattr(flt, name), getattr(known, name)
        if wanted and set(wanted) <= set(have):
            return replace(flt, **{name: have}) == known
    return False


IDS = (uuid.UUID(int=1), uuid.UUID(int=2))


def variants() -> list[Filter]:
    base = Filter("b1", kinds=("world", "experience"))
    out = []
    for keys, declared, at, since, bank, tagset in itertools.product(
        ((), ("a|x",), ("a|x", "b|y")),
        ((), IDS[:1], IDS),
        (None, T0, T0 + timedelta(days=1)),
        (None, T0),
        ("b1", "b2"),
        (None, "t"),
    ):
        out.append(
            replace(
                base,
                bank_id=bank,
                tagset=tagset,
                slot_keys_any=keys,
                declared_supersedes_any=declared,
                current_at=at,
                occurred_from=since,
            )
        )
    return out


def test_narrows_agrees_with_its_definition() -> None:
    filters = variants()
    agree = narrower = 0
    for flt, known in itertools.product(filters, repeat=2):
        expected = by_definition(flt, known)
        assert _narrows(flt, known) == expected, (flt, known)
        agree += 1
        narrower += expected
    assert narrower > 0 and narrower < agree
