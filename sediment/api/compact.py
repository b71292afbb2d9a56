"""Recall results sized for an agent's context window.

An agent pays for every character a tool returns. The full `RecallResponse` (scores,
components, timings, nulls) and its pretty-printed JSON echo came to about fifteen
times the characters of the memory texts it carried; the compact form keeps what an
agent acts on: per result the short id (which `inspect`, `feedback` and `forget`
take back), the date, the kind, the text and the state (`Recalled`, what the Python
client returns). As text (what the MCP tool answers) it is one line per result,
`<id> <date> <score> [exp: ]<text>[ [excerpt]][ [instruction]][ [<state>]]`: the
score with two decimals, `exp: ` for something the agent did, `[excerpt]` when the
text is the passage of a longer memory that answered, and the state only when it is
not current; then a line for what needs saying (nothing found and how many results
were left out, low confidence, writes pending).

A row's id, date and score take 22 characters and a newline, so the text is at most
1.5 times the memory texts it shows where those average 46 characters or more (as on
the demo conversation); shorter texts (the README quickstart's, about 26) get those
23 characters a row and nothing else. So the results left out are told of only when
none is shown: that note (about 65 characters) would double a short answer, and the
left-out results, those without topical evidence, are what the tool's `all` brings
back.
"""

from typing import Literal

from pydantic import Field

from contracts.memory import MemoryKind, State
from contracts.recall import Components, Label, RecallResponse, RecallResult, StageTrace
from sediment.api.models import Body as Model
from sediment.recall_defaults import LOW_CONFIDENCE, left_out_note
from sediment.short_ids import short

KIND_TAGS: dict[str, str] = {"experience": "exp: "}
"""An experience is something the agent did; a fact and an observation (what several
memories agree on) read alike."""


class Found(Model):
    """One result: `id` is the short id; `superseded_by` and `replaces` are short ids,
    present only when there is one; `outdated`: true as of the request's `as_of`, since
    replaced; `excerpt`: true when `text` is the passage of a longer memory that
    answered (`inspect` shows the whole, as does recall with `full_text`);
    `instruction`: true for a standing instruction the user gave, a rule for answering
    rather than an answer (docs/recall.md, "Standing instructions")."""

    id: str
    date: str
    kind: MemoryKind
    text: str
    state: Literal["current", "superseded"]
    superseded_by: str | None = None
    replaces: str | None = None
    outdated: bool | None = None
    excerpt: bool | None = None
    instruction: bool | None = None
    score: float | None = None
    components: Components | None = None
    labels: list[Label] | None = None


class Recalled(Model):
    """The compact answer; `pending`: events accepted for the bank and not yet
    consolidated (0: the results reflect every write so far)."""

    bank_id: str
    results: list[Found] = Field(default_factory=list)
    pending: int = 0
    pending_events: list[str] | None = None
    low_confidence: bool | None = None
    timings: dict[str, float] | None = None
    explain: list[StageTrace] | None = None


def found(r: RecallResult, explained: bool) -> Found:
    """With `explained`, the score and its evidence too."""
    superseded = r.state == State.SUPERSEDED
    return Found(
        id=short(r.id),
        date=r.occurred_at.date().isoformat(),
        kind=r.kind,
        text=r.text,
        state="superseded" if superseded else "current",
        superseded_by=short(r.superseded_by) if superseded and r.superseded_by else None,
        replaces=short(r.state_replaces) if r.state_replaces else None,
        outdated=True if not superseded and r.superseded_by else None,
        excerpt=True if r.snippet else None,
        instruction=True if "instruction" in r.labels else None,
        score=r.score if explained else None,
        components=r.components if explained else None,
        labels=(r.labels or None) if explained else None,
    )


def compact(response: RecallResponse) -> Recalled:
    """Timings and stage traces only when the request asked to `explain`."""
    explained = response.explain is not None
    return Recalled(
        bank_id=response.bank_id,
        results=[found(r, explained) for r in response.results],
        pending=response.pending,
        pending_events=[str(e) for e in response.pending_events] or None,
        low_confidence=True if response.low_confidence else None,
        timings=response.timings if explained else None,
        explain=response.explain,
    )


def structured(answer: Recalled) -> dict[str, object]:
    """No nulls: an absent field says the same in fewer characters."""
    return answer.model_dump(mode="json", exclude_none=True)


def score_text(score: float) -> str:
    """Two decimals without the leading zero: `.76`, `1.05`, `-.02`."""
    text = f"{score:.2f}"
    if text.startswith("0."):
        return text[1:]
    return "-" + text[2:] if text.startswith("-0.") else text


def line(r: RecallResult) -> str:
    f = found(r, explained=False)
    state = ""
    if f.superseded_by:
        state = f" [superseded by {f.superseded_by}]"
    elif f.state == "superseded":
        state = " [superseded]"
    elif f.outdated:
        state = " [outdated]"
    excerpt = " [excerpt]" if f.excerpt else ""
    rule = " [instruction]" if f.instruction else ""
    head = f"{f.id} {f.date} {score_text(r.score)} {KIND_TAGS.get(f.kind, '')}"
    return f"{head}{f.text}{excerpt}{rule}{state}"


def text_of(response: RecallResponse) -> str:
    """One line per result; a last line only for what needs saying (nothing found, and
    then the results left out for want of topical evidence; low confidence; writes
    still pending)."""
    lines = [line(r) for r in response.results]
    if not lines:
        lines.append(f"nothing found in bank {response.bank_id}")
        if response.without_evidence:
            lines.append(left_out_note(response.without_evidence, "all: true"))
    if response.low_confidence:
        lines.append(LOW_CONFIDENCE)
    if response.pending:
        lines.append(f"({response.pending} events pending: not yet in these results)")
    return "\n".join(lines)
