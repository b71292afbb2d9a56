"""A person named in full is one subject; two people of one first name are two."""

from pathlib import Path

import pytest

from contracts.memory import Relation, State
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from tests.helpers import event, verdict
from worker.consolidation.consolidator import Consolidator, consolidate
from worker.consolidation.features import stored_fields
from worker.consolidation.fullnames import full_names
from worker.consolidation.policy import ConsolidationPolicy

EVOLVED = Relation.EVOLVED_INTO
EMBEDDER = HashEmbedder(64)


def test_full_names_come_from_the_entities_and_the_text() -> None:
    assert full_names("Pia moved to Oslo.", ("Pia Halsen",)) == (("pia", ("halsen",)),)
    assert full_names("José García moved to Lima.", ()) == (("josé", ("garcía",)),)
    assert full_names("Pia Halsen's husband works at Initech.", ()) == (("pia", ("halsen",)),)


@pytest.mark.parametrize(
    ("text", "entities"),
    [
        ("Dr Lee is my GP.", ()),
        ("We had Sunday Lunch at Pia's.", ()),
        ("Pia Halsen and Pia Kesini both live in Lyon.", ()),
        ("Pia lives in Lyon.", ("Pia",)),
    ],
)
def test_no_full_name_where_none_or_two_are_written(text: str, entities: tuple[str, ...]) -> None:
    assert dict(full_names(text, entities)).get("pia") is None
    assert "dr" not in dict(full_names(text, entities))


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Pia Halsen lives in Lyon.", "Pia Kesini moved to Seattle."),
        ("Jonas Rassen works at Wayne.", "Jonas Torwell works at Hooli."),
        ("Greta Lunard eats pescatarian.", "Greta Perova eats vegan now."),
        ("Pia Halsen's husband works at Initech.", "Pia Kesini's husband works at Globex now."),
    ],
)
def test_two_people_of_one_first_name_never_supersede_each_other(older: str, newer: str) -> None:
    assert verdict(older, newer) is None


@pytest.mark.parametrize(
    ("older", "newer", "entities", "newer_entities"),
    [
        ("Pia Halsen lives in Lyon.", "Pia Halsen moved to Seattle.", (), None),
        ("Greta Lunard eats pescatarian.", "Greta Lunard is vegan now.", (), None),
        ("Pia Halsen lives in Lyon.", "Pia moved to Seattle.", (), ("Pia Halsen",)),
        ("Pia lives in Lyon.", "Pia moved to Seattle.", ("Pia Halsen",), None),
    ],
)
def test_one_person_named_in_full_is_still_one_subject(
    older: str, newer: str, entities: tuple[str, ...], newer_entities: tuple[str, ...] | None
) -> None:
    assert verdict(older, newer, entities, newer_entities) is EVOLVED


def test_the_keys_name_the_person_in_full_and_the_surname_is_no_word_of_the_frame() -> None:
    keys = stored_fields("Dev Halini eats pescatarian.", ["Dev Halini"])["slot_keys"]
    assert "dev halini|diet" in keys
    assert not any(k.startswith("dev|") for k in keys)
    assert not any("halini" in k.partition("|")[2] for k in keys)


def test_in_a_bank_of_people_of_one_first_name_each_keeps_their_own_current_values(
    tmp_path: Path,
) -> None:
    """Through the consolidator and the embedded engine, events in time order: each
    Pia's latest residence and diet are current, and only her own older ones are not."""
    said = [
        ("Pia Halsen lives in Lyon.", "Pia Halsen"),
        ("Pia Kesini lives in Porto.", "Pia Kesini"),
        ("Pia Osberg eats keto.", "Pia Osberg"),
        ("Pia Kesini moved to Seattle.", "Pia Kesini"),
        ("Pia Halsen eats vegan.", "Pia Halsen"),
        ("Pia Osberg moved to Oslo.", "Pia Osberg"),
        ("Pia Halsen is vegetarian now.", "Pia Halsen"),
    ]
    events = [event(text, day, bank="pias", entities=[who]) for day, (text, who) in enumerate(said)]
    store = EdgeStore(tmp_path)
    try:
        store.ensure_schema(EMBEDDER.dimension)
        deps = Consolidator(store, EMBEDDER, NoLocks(), ConsolidationPolicy())
        for e in events:
            consolidate([e], deps)
        states = {p.record.text: p.record.state for p in store.scroll(Filter("pias"))}
    finally:
        store.close()
    superseded = {t for t, s in states.items() if s is State.SUPERSEDED}
    assert superseded == {"Pia Kesini lives in Porto.", "Pia Halsen eats vegan."}
