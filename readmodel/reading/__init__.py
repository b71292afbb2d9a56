"""One reading of a statement: who it is about, what is said of them, with which values.

`read(text, entities)` runs the named stages of `pipeline.py` over each clause of a short
statement and returns a `Reading` (`statement.py`). Consolidation decides sameness on
readings (`sameness.py`), and a known thing's date or status said anew (`things.py`);
recall reads questions and candidates with the same stages.
"""

from readmodel.reading.pipeline import read, several_statements
from readmodel.reading.sameness import (
    another_occurrence,
    merge_key,
    reading_key,
    same_reading,
    same_statement,
    same_values,
    why_not_same,
)
from readmodel.reading.statement import Clause, Reading, Value
from readmodel.reading.things import thing_keys, thing_update

__all__ = [
    "Clause",
    "Reading",
    "Value",
    "another_occurrence",
    "merge_key",
    "read",
    "reading_key",
    "same_reading",
    "same_statement",
    "same_values",
    "several_statements",
    "thing_keys",
    "thing_update",
    "why_not_same",
]
