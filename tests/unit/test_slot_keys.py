"""Slot keys: consolidation compares a new fact only with memories sharing a key, so every
pair `implicit_update` relates must share one. Checked over every pair of statements of
a subject in the supersession benchmark's dev set and the update table's pairs."""

import json
from itertools import permutations
from pathlib import Path

from worker.consolidation.statements import statement_features
from worker.consolidation.updates import candidate_keys, implicit_update, older_keys, slot_keys

DEV = Path(__file__).resolve().parents[2] / "bench" / "data" / "supersession_dev.json"


def _statements() -> list[tuple[str, list[str]]]:
    data = json.loads(DEV.read_text(encoding="utf-8"))
    return [(s["text"], s["entities"]) for b in data["banks"] for s in b["statements"]]


def _finds(new: tuple[str, list[str]], stored: tuple[str, list[str]]) -> bool:
    keys = set(candidate_keys(statement_features(*new)))
    return bool(keys & set(slot_keys(statement_features(*stored))))


def test_every_related_pair_shares_a_slot_key_in_both_arrival_orders() -> None:
    statements = _statements()
    related = 0
    by_entity: dict[str, list[tuple[str, list[str]]]] = {}
    for s in statements:
        by_entity.setdefault(",".join(sorted(s[1])), []).append(s)
    for group in by_entity.values():
        for older, newer in permutations(group, 2):
            fo, fn = statement_features(*older), statement_features(*newer)
            if implicit_update(fo, fn) is None:
                continue
            related += 1
            assert _finds(newer, older) and _finds(older, newer), (older[0], newer[0])
    assert related >= 100


def test_episodes_have_no_keys_and_facts_do() -> None:
    assert slot_keys(statement_features("Ana moved the car to the other side.", ["Ana"])) == []
    keys = slot_keys(statement_features("Ana lives in Porto.", ["Ana"]))
    assert keys and all("|" in k for k in keys)


def test_a_retraction_of_any_attribute_reaches_every_fact_of_its_subject() -> None:
    ended = statement_features("Ana is no longer vegetarian.", ["Ana"])
    fact = statement_features("Ana is vegetarian.", ["Ana"])
    assert implicit_update(fact, ended) is not None
    assert set(candidate_keys(ended)) & set(slot_keys(fact))
    assert set(candidate_keys(fact)) & set(slot_keys(ended))


def test_an_older_memory_a_fact_replaces_holds_one_of_its_older_keys() -> None:
    """Under its other candidate keys a fact is compared only with newer memories."""
    by_entity: dict[str, list[tuple[str, list[str]]]] = {}
    for s in _statements():
        by_entity.setdefault(",".join(sorted(s[1])), []).append(s)
    related = 0
    for group in by_entity.values():
        for older, newer in permutations(group, 2):
            fo, fn = statement_features(*older), statement_features(*newer)
            if implicit_update(fo, fn) is None:
                continue
            related += 1
            assert set(older_keys(fn)) & set(slot_keys(fo)), (older[0], newer[0])
            assert set(older_keys(fn)) <= set(candidate_keys(fn))
    assert related >= 100


def test_accumulating_values_and_retractions_of_anything_look_only_forward() -> None:
    pet = statement_features("Ana has a beagle.", ["Ana"])
    assert candidate_keys(pet) and not older_keys(pet)
    ended = statement_features("Ana got a beagle and no longer has the old pet.", ["Ana"])
    assert "ana|*" in candidate_keys(ended) and "ana|*" not in older_keys(ended)
    moved = statement_features("Ana lives in Porto.", ["Ana"])
    assert older_keys(moved) == ("ana|residence",)


def test_a_retraction_of_anything_reaches_only_values_sharing_one_of_its_words() -> None:
    """`ends` needs a shared word, so the stated values a retraction of any attribute is
    compared with are found by word, not as every fact of the subject (pets one has
    accumulate, so that set grows with the bank)."""
    bulb = statement_features("Ana replaced a broken light bulb in the kitchen.", ["Ana"])
    pet = statement_features("Ana has a beagle.", ["Ana"])
    assert not set(older_keys(bulb)) & set(slot_keys(pet))
    sold = statement_features("Ana no longer has the beagle.", ["Ana"])
    assert implicit_update(pet, sold) is not None
    assert set(older_keys(sold)) & set(slot_keys(pet))
    assert slot_keys(pet) == ["ana|=beagl", "ana|pet"]
