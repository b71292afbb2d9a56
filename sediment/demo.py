"""`sediment demo`: a short conversation, consolidated in-process, explained.

It writes to the configured store (SEDIMENT_DATA_DIR, or --data-dir), bank `demo`, so
`sediment recall --bank demo ...` and `sediment serve` see the same memories afterwards.
Event ids are derived from bank, text and time: a second run stores nothing new.
"""

import uuid
from importlib import resources
from pathlib import Path

from rich.console import Console

from contracts.memory import Observation, State
from contracts.recall import RecallRequest
from readmodel.recall.pipeline import RecallPipeline
from readmodel.store import Filter, MemoryStore, Record
from sediment.bootstrap import bootstrap
from sediment.ingest import GoodLine, read_events
from sediment.render import recall_table
from sediment.retain import Publisher
from sediment.settings import Settings

BANK = "demo"
QUESTIONS = (
    "Where does Maya live?",
    "What does Maya drink in the morning?",
    "What does Maya do on weekends?",
)


def _chains(records: dict[uuid.UUID, Record]) -> list[list[Record]]:
    """Supersession chains from each memory that nothing supersedes into, oldest first."""
    targets = {r.superseded_by for r in records.values() if r.superseded_by}
    chains = []
    for r in sorted(records.values(), key=lambda r: r.occurred_at):
        if r.superseded_by and r.id not in targets and r.kind != "observation":
            chain, seen = [r], {r.id}
            while chain[-1].superseded_by in records and chain[-1].superseded_by not in seen:
                chain.append(records[chain[-1].superseded_by])
                seen.add(chain[-1].id)
            chains.append(chain)
    return chains


def run_demo(settings: Settings, data_dir: Path | None, console: Console) -> None:
    target = data_dir or settings.data_dir
    rt = bootstrap(settings.model_copy(update={"mode": "embedded", "data_dir": target}))
    try:
        _ingest(rt.publisher, target, settings.max_text_bytes, console)
        _explain(rt.store, console)
        _recalls(rt.recall_pipeline, console)
    finally:
        rt.close()


def _ingest(publisher: Publisher, target: Path, max_text_bytes: int, console: Console) -> None:
    source = resources.files("sediment").joinpath("data/demo.jsonl")
    with resources.as_file(source) as path:
        lines = read_events(path, BANK, max_text_bytes)
        events = [line.event for line in lines if isinstance(line, GoodLine)]
    stored = publisher.publish_retain(events)
    repeats = len(events) - len({e.event_id for e in events})
    console.rule("[bold]ingest")
    console.print(
        f"store: {target.resolve()}, bank {BANK!r}; later: "
        f'sediment recall --bank {BANK} "Where does Maya live?"',
        soft_wrap=True,
    )
    console.print(
        f"{len(events)} events in file order (not time order): {repeats} duplicate in the "
        f"file, {len(events) - repeats - stored} already stored by an earlier run, "
        f"{stored} stored now",
        soft_wrap=True,
    )


def _explain(store: MemoryStore, console: Console) -> None:
    records = {p.record.id: p.record for p in store.scroll(Filter(BANK))}
    console.rule("[bold]observations (restatements merged, with provenance)")
    for obs in (r for r in records.values() if isinstance(r, Observation)):
        console.print(
            f"[green]{obs.text}[/green]  proof_count={obs.proof_count} state={obs.state.value}"
        )
        for sid in obs.source_memory_ids:
            console.print(f"    <- {sid}  {records[sid].text}")
    console.rule("[bold]supersession chains (by event time)")
    for chain in _chains(records):
        parts = [
            f"[dim]{c.text}[/dim]" if c.state is State.SUPERSEDED else f"[bold]{c.text}"
            for c in chain
        ]
        rels = [c.relation.value if c.relation else "" for c in chain]
        line = parts[0]
        for rel, part in zip(rels, parts[1:], strict=False):
            line += f"\n    --{rel}--> {part}"
        console.print(line)


def _recalls(pipeline: RecallPipeline, console: Console) -> None:
    console.rule("[bold]recall (current state, prefer observations)")
    for q in QUESTIONS:
        response = pipeline.recall(BANK, RecallRequest(query=q, limit=3))
        console.print(recall_table(response))
        console.print(f"dropped by prefer-observations: {response.dropped_by_prefer_observations}")
    console.rule("[bold]recall with history")
    history = pipeline.recall(BANK, RecallRequest(query=QUESTIONS[0], limit=4, history=True))
    console.print(recall_table(history))
