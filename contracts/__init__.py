"""Sediment's wire and read-model contracts: pydantic models and their JSON Schema, nothing else."""

from contracts.audit import AuditAction, AuditEntry
from contracts.deadletter import DeadLetter
from contracts.events import SCHEMA_VERSION, EventKind, RetainEvent, derive_event_id
from contracts.feedback import FeedbackEvent, Vote
from contracts.forget import ForgetEvent, ForgetFilter, Tombstone
from contracts.memory import Memory, MemoryKind, Observation, Relation, State, SupersessionEdge
from contracts.recall import (
    Components,
    RecallRequest,
    RecallResponse,
    RecallResult,
    StageTrace,
    StateMode,
)

__all__ = [
    "SCHEMA_VERSION",
    "AuditAction",
    "AuditEntry",
    "Components",
    "DeadLetter",
    "EventKind",
    "FeedbackEvent",
    "ForgetEvent",
    "ForgetFilter",
    "Memory",
    "MemoryKind",
    "Observation",
    "RecallRequest",
    "RecallResponse",
    "RecallResult",
    "Relation",
    "RetainEvent",
    "StageTrace",
    "State",
    "StateMode",
    "SupersessionEdge",
    "Tombstone",
    "Vote",
    "derive_event_id",
]
