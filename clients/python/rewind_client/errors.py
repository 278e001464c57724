"""Refusals from Rewind, one class per documented error code (or status)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional


class RewindError(Exception):
    """A refusal in Rewind's documented shape: ``{"error": {"code", "message", "details"}}``."""

    def __init__(self, status: int, code: str, message: str, details: Optional[List[Dict[str, Any]]] = None, retry_after: Optional[float] = None):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details: List[Dict[str, Any]] = details or []
        self.retry_after = retry_after

    @property
    def fields(self) -> List[str]:
        """The fields the refusal names (e.g. ``content``, ``steps.1``, ``If-Match``)."""
        return [d["field"] for d in self.details if isinstance(d, dict) and "field" in d]


class ValidationFailed(RewindError):
    """400: the request is not valid; ``fields`` names each bad field."""


class Unauthorized(RewindError):
    """401: no API key, or not a valid one."""


class NotFound(RewindError):
    """404: no such session, version, tool call or route for this tenant."""


class Conflict(RewindError):
    """409: the request conflicts with the session's state."""


class VersionConflict(Conflict):
    """409 ``version_conflict``: someone wrote first; ``current_version`` is where the session is."""

    @property
    def current_version(self) -> Optional[int]:
        for detail in self.details:
            version = detail.get("currentVersion") if isinstance(detail, dict) else None
            if isinstance(version, int):
                return version
        return None


class IdempotencyKeyReused(Conflict):
    """409 ``idempotency_key_reused``: the key was used for a different request."""


class RollbackInProgress(Conflict):
    """409 ``rollback_in_progress``: the session is locked while its rollback runs."""


class ConfirmationRequired(RewindError):
    """428: an irreversible call needs ``confirmed=True``."""


class PayloadTooLarge(RewindError):
    """413: the body is larger than the server accepts."""


class TooManyRequests(RewindError):
    """429: slow down; ``retry_after`` says for how long (retried by the client first)."""


class StoreUnavailable(RewindError):
    """503: the event store cannot be reached; nothing was written (retried by the client first)."""


class RollbackNeedsAttention(RewindError):
    """A rollback could not undo every effect: an operator must retry or resolve them."""


class RollbackTimeout(RewindError):
    """``wait_for_rollback`` gave up waiting; the rollback goes on."""


_BY_CODE = {
    "version_conflict": VersionConflict,
    "idempotency_key_reused": IdempotencyKeyReused,
    "rollback_in_progress": RollbackInProgress,
    "store_unavailable": StoreUnavailable,
}
_BY_STATUS = {
    400: ValidationFailed,
    401: Unauthorized,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    428: ConfirmationRequired,
    429: TooManyRequests,
    503: StoreUnavailable,
}


def error_from(status: int, body: Any, retry_after: Optional[float] = None) -> RewindError:
    """The typed error for a refusal (by code first, then by status)."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return RewindError(status, "unexpected_response", f"HTTP {status} without an error body: {str(body)[:200]}", [], retry_after)
    code = str(error.get("code", "error"))
    cls = _BY_CODE.get(code) or _BY_STATUS.get(status) or RewindError
    details = error.get("details") if isinstance(error.get("details"), list) else []
    return cls(status, code, str(error.get("message", "")), details, retry_after)
