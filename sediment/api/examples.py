"""Request examples the OpenAPI document shows (/docs): one per way of calling each
data endpoint. Each is a valid request (tests/unit/test_api_examples.py sends them)."""

import uuid
from typing import Any, Final

from contracts.memory import derive_memory_id

Examples = dict[str, dict[str, Any]]

RETAIN: Final[Examples] = {
    "facts": {
        "summary": "Two facts, one a value that can change",
        "value": {
            "items": [
                {
                    "text": "Alice moved to Seattle.",
                    "key": "alice.city",
                    "occurred_at": "2024-05-01T09:00:00Z",
                    "entities": ["Alice"],
                    "tags": ["home"],
                },
                {
                    "text": "Alice likes green tea.",
                    "occurred_at": "2024-05-02T18:30:00+02:00",
                    "entities": ["Alice"],
                    "metadata": {"source_id": "chat-42"},
                },
            ]
        },
    },
    "expiring": {
        "summary": "Memories that expire: in a day (ttl_s), or at an instant (expires_at)",
        "value": {
            "items": [
                {
                    "text": "The visitor's gate code is 4711.",
                    "occurred_at": "2024-05-01T09:00:00Z",
                    "ttl_s": 86400,
                },
                {
                    "text": "The conference room is booked for the offsite.",
                    "occurred_at": "2024-05-01T09:00:00Z",
                    "expires_at": "2024-05-03T18:00:00Z",
                },
            ]
        },
    },
}

RECALL: Final[Examples] = {
    "simple": {"summary": "A question", "value": {"query": "Where does Alice live?", "limit": 5}},
    "filtered": {
        "summary": "Filters, an earlier state and the score breakdown",
        "value": {
            "query": "Where did Alice live?",
            "limit": 3,
            "tags": ["home"],
            "as_of": "2024-03-01T00:00:00Z",
            "explain": True,
        },
    },
}

FORGET_EVENT_ID: Final = uuid.UUID("7d2a4c1e-5b3f-4e6a-9c8d-2f1e0a3b4c5d")
"""The retain the id examples name; the memory id is that event's in bank `b1`."""
FORGET: Final[Examples] = {
    "ids": {
        "summary": "Forget memories by id (ids the bank does not hold: 404)",
        "value": {"memory_ids": [str(derive_memory_id("b1", FORGET_EVENT_ID))]},
    },
    "events": {
        "summary": "Forget the memories retains of the bank stored, by their event ids",
        "value": {"event_ids": [str(FORGET_EVENT_ID)]},
    },
    "filter": {
        "summary": "Forget what names Alice before June (any of tags, entities, time, source)",
        "value": {"filter": {"entities": ["Alice"], "end": "2024-06-01T00:00:00Z"}},
    },
    "source": {
        "summary": "Forget everything imported from one source",
        "value": {"filter": {"source_id": "crm-export-7"}},
    },
    "all": {"summary": "Forget the whole bank", "value": {"all_memories": True}},
}
