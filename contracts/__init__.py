"""Sediment's wire and read-model contracts: pydantic models and their JSON Schema, nothing else."""

from contracts.deadletter import DeadLetter
from contracts.events import SCHEMA_VERSION, EventKind, RetainEvent, derive_event_id
from contracts.memory import Memory, MemoryKind, Observation, Relation, State, SupersessionEdge
from contracts.recall import RecallRequest, RecallResponse, RecallResult, StateMode

__all__ = [
    "SCHEMA_VERSION",
    "DeadLetter",
    "EventKind",
    "Memory",
    "MemoryKind",
    "Observation",
    "RecallRequest",
    "RecallResponse",
    "RecallResult",
    "Relation",
    "RetainEvent",
    "State",
    "StateMode",
    "SupersessionEdge",
    "derive_event_id",
]
