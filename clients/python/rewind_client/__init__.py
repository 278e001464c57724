"""Rewind's Python client: standard library only."""

from .client import RetryPolicy, Response, RewindClient, WriteResult, parse_retry_after
from .live import EventStreamParser, LiveChange, LiveEvent, LiveSubscription, ServerSentEvent
from .errors import (
    Conflict,
    ConfirmationRequired,
    IdempotencyKeyReused,
    NotFound,
    PayloadTooLarge,
    RewindError,
    RollbackInProgress,
    RollbackNeedsAttention,
    RollbackTimeout,
    StoreUnavailable,
    TooManyRequests,
    Unauthorized,
    ValidationFailed,
    VersionConflict,
)

__all__ = [
    "Conflict",
    "ConfirmationRequired",
    "EventStreamParser",
    "IdempotencyKeyReused",
    "LiveChange",
    "LiveEvent",
    "LiveSubscription",
    "NotFound",
    "PayloadTooLarge",
    "Response",
    "RetryPolicy",
    "RewindClient",
    "RewindError",
    "RollbackInProgress",
    "RollbackNeedsAttention",
    "RollbackTimeout",
    "ServerSentEvent",
    "StoreUnavailable",
    "TooManyRequests",
    "Unauthorized",
    "ValidationFailed",
    "VersionConflict",
    "WriteResult",
    "parse_retry_after",
]
