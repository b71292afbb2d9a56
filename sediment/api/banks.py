"""Which banks there are: `GET /v1/banks` (each with its sizes), and the nearest names
to a bank that holds nothing, for the message that says so.

A key limited to some banks lists only those (`ApiKey.opens`); the token, an open API
and a key on `*` list every bank. The route path is outside `/v1/banks/{bank_id}`, so
`ScopeGuard` asks only for a known key; the listing itself is what is narrowed.
"""

import difflib
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from fastapi import APIRouter, Depends
from pydantic import Field

from readmodel.store import Filter, MemoryStore
from sediment.api.auth import CallerKey, Deps, require_token
from sediment.api.models import Body
from worker.consolidation.neighbourhood import RAW_KINDS

NEAREST: Final = 3


class BankSummary(Body):
    """One bank: its raw memories (world and experience) and its observations."""

    bank_id: str
    memories: int
    observations: int


class BankList(Body):
    """The banks holding at least one memory that the caller may read, by name."""

    banks: list[BankSummary] = Field(default_factory=list)


def summaries(store: MemoryStore, visible: Callable[[str], bool] | None = None) -> BankList:
    """Every bank of the store (those `visible` admits), with its counts."""
    names = sorted(b for b in store.banks() if visible is None or visible(b))
    return BankList(
        banks=[
            BankSummary(
                bank_id=name,
                memories=store.count(Filter(name, kinds=RAW_KINDS)),
                observations=store.count(Filter(name, kinds=("observation",))),
            )
            for name in names
        ]
    )


def nearest(bank: str, known: Iterable[str], n: int = NEAREST) -> list[str]:
    """The known names closest to `bank`: a name equal but for case first, then
    difflib's closest (ratio at least 0.6), compared without case."""
    names = sorted(set(known))
    same = [k for k in names if k.lower() == bank.lower() and k != bank]
    by_lower: dict[str, list[str]] = {}
    for name in names:
        by_lower.setdefault(name.lower(), []).append(name)
    close = difflib.get_close_matches(bank.lower(), list(by_lower), n=n, cutoff=0.6)
    found = same + [k for low in close for k in by_lower[low] if k not in same and k != bank]
    return found[:n]


def empty_bank_note(bank: str, known: Sequence[str]) -> str:
    """What a recall of a bank that holds nothing says: the nearest names, else the
    banks there are (a few), else that no bank holds anything yet."""
    close = nearest(bank, known)
    if close:
        return f"bank {bank!r} holds no memories; did you mean {' or '.join(map(repr, close))}?"
    if known:
        shown = ", ".join(sorted(known)[:10]) + (" ..." if len(known) > 10 else "")
        return f"bank {bank!r} holds no memories; the banks are: {shown} (sediment banks)"
    return f"bank {bank!r} holds no memories, and no bank does yet: retain or ingest first"


router = APIRouter(dependencies=[Depends(require_token)])


@router.get("/v1/banks", summary="The banks, with their memory and observation counts")
def list_banks(deps: Deps, key: CallerKey) -> BankList:
    """The banks holding at least one memory, by name; a key limited to some banks
    sees only those."""
    visible = None if key is None or key.every_bank else key.opens
    return summaries(deps.store, visible)
