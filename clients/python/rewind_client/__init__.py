"""Rewind's Python client: standard library only."""

from .client import RetryPolicy, Response, RewindClient, WriteResult, parse_retry_after
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
    "IdempotencyKeyReused",
    "NotFound",
    "PayloadTooLarge",
    "Response",
    "RetryPolicy",
    "RewindClient",
    "RewindError",
    "RollbackInProgress",
    "RollbackNeedsAttention",
    "RollbackTimeout",
    "StoreUnavailable",
    "TooManyRequests",
    "Unauthorized",
    "ValidationFailed",
    "VersionConflict",
    "WriteResult",
    "parse_retry_after",
]
