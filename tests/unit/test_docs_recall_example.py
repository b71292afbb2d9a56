"""The recall page's `explain` example has the shape of today's response: the same
fields, the same components, and the stages a default recall reports, in order. (Its
values are produced from the demo data by tests/e2e/test_docs_examples.py.)"""

import json
import re
from pathlib import Path
from typing import Any

from contracts.recall import Components, RecallResponse, RecallResult, StageTrace
from tests.helpers import DEFAULT_STAGES

PAGE = Path(__file__).resolve().parents[2] / "docs" / "recall.md"


def example() -> Any:
    text = PAGE.read_text(encoding="utf-8")
    block = re.search(r"<!-- check: explain -->\n```json\n(.*?)```", text, re.DOTALL)
    assert block is not None, "docs/recall.md holds the explain example"
    return json.loads(block.group(1))


def test_the_recall_example_matches_the_response_contract() -> None:
    body = example()
    assert set(body) == set(RecallResponse.model_fields)
    [result] = body["results"]
    assert set(result) == set(RecallResult.model_fields)
    assert set(result["components"]) == set(Components.model_fields)
    stages = [StageTrace.model_validate(s) for s in body["explain"]]
    assert [s.stage for s in stages] == DEFAULT_STAGES
    assert set(body["timings"]) == set(DEFAULT_STAGES)
    assert all(s.note for s in stages if s.stage != "feedback")
