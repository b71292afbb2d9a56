"""`candidate.replace` is `dataclasses.replace` for candidates, only cheaper."""

import dataclasses

import pytest

from readmodel.recall.candidate import Candidate, replace
from tests.helpers import event
from worker.consolidation.consolidator import raw_memory


def candidate() -> Candidate:
    record = raw_memory(event("Alice plays tennis.", 1), event("x", 1).occurred_at)
    return Candidate(record, vector=0.5, keyword=0.25, vector_rank=1, score=0.4)


def test_replace_equals_the_dataclasses_one_and_leaves_the_original() -> None:
    c = candidate()
    changed = replace(c, score=0.9, fused=0.7, keyword_rank=3)
    assert changed == dataclasses.replace(c, score=0.9, fused=0.7, keyword_rank=3)
    assert (c.score, c.fused, c.keyword_rank) == (0.4, 0.0, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        changed.score = 1.0  # type: ignore[misc]


def test_replace_refuses_a_field_candidates_do_not_have() -> None:
    with pytest.raises(TypeError, match="scroe"):
        replace(candidate(), scroe=1.0)
