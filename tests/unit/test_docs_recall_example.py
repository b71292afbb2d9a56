"""The recall page's `explain` example has the shape of today's response: the same
fields, the same components, and the stages a default recall reports, in order. (Its
values are produced from the demo data by tests/e2e/test_docs_examples.py.)"""

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from contracts.recall import Components, RecallResponse, RecallResult, StageTrace
from tests.helpers import DEFAULT_STAGES

PAGE = Path(__file__).resolve().parents[2] / "docs" / "recall.md"


def example() -> Any:
    text = PAGE.read_text(encoding="utf-8")
    block = re.search(r"<!-- check: explain -->\n```json\n(.*?)```", text, re.DOTALL)
    assert block is not None, "docs/recall.md holds the explain example"
    return json.loads(block.group(1))


def sent(model: type[BaseModel], shown: set[str]) -> None:
    """The fields of an answer as the API sends it: every field, less those left null
    (absent is null) and the deprecated `timings_ms` (no longer sent)."""
    fields = model.model_fields
    optional = {name for name, f in fields.items() if f.default is None} | {"timings_ms"}
    assert shown <= set(fields), shown - set(fields)
    assert set(fields) - shown <= optional, set(fields) - shown - optional


def test_the_recall_example_matches_the_response_contract() -> None:
    body = example()
    sent(RecallResponse, set(body))
    assert "timings_ms" not in body and None not in body.values()
    [result] = body["results"]
    sent(RecallResult, set(result))
    sent(Components, set(result["components"]))
    stages = [StageTrace.model_validate(s) for s in body["explain"]]
    assert [s.stage for s in stages] == DEFAULT_STAGES
    assert set(body["timings"]) == set(DEFAULT_STAGES)
    assert all(s.note for s in stages if s.stage != "feedback")
