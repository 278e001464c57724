"""A small, dependency-free client for Rewind's HTTP API (``/v1``)."""

from __future__ import annotations

import email.utils
import http.client
import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, TypedDict, TypeVar, cast

from .errors import RewindError, RollbackNeedsAttention, RollbackTimeout, VersionConflict, error_from
from .live import DEFAULT_READ_TIMEOUT, LiveSubscription

JSON = Any
T = TypeVar("T")

#: Statuses worth another attempt: the request was not applied (503: store unreachable; 429: slow down).
RETRYABLE_STATUSES = frozenset({408, 429, 503})


class WriteResult(TypedDict, total=False):
    """What every write answers: the session's version and head after it, and the events written."""

    sessionId: str
    version: int
    head: int
    status: str
    duplicate: bool
    events: List[Dict[str, Any]]
    rollbackId: str
    rollback: Dict[str, Any]


@dataclass
class Response:
    status: int
    headers: Mapping[str, str]
    body: JSON

    @property
    def etag_version(self) -> Optional[int]:
        """The stream version in ``ETag: "<version>"``, for ``If-Match``."""
        tag = self.headers.get("etag") or self.headers.get("ETag")
        digits = (tag or "").strip().strip('W/').strip('"')
        return int(digits) if digits.isdigit() else None


@dataclass
class RetryPolicy:
    """Exponential backoff with full jitter; ``Retry-After`` from the server wins when it is given."""

    max_attempts: int = 5
    base_delay: float = 0.2
    max_delay: float = 10.0
    #: The longest ``Retry-After`` honoured; a longer one is raised to the caller instead of slept through.
    max_retry_after: float = 60.0

    def delay(self, attempt: int, retry_after: Optional[float], rand: Callable[[], float] = random.random) -> float:
        if retry_after is not None:
            return max(0.0, retry_after)
        return rand() * min(self.max_delay, self.base_delay * (2.0 ** (attempt - 1)))


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date."""
    if value is None or value.strip() == "":
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


_NETWORK_ERRORS = (ConnectionError, socket.timeout, TimeoutError, http.client.RemoteDisconnected, http.client.IncompleteRead)


def _is_network_error(error: BaseException) -> bool:
    if isinstance(error, urllib.error.HTTPError):
        return False
    if isinstance(error, urllib.error.URLError):
        return isinstance(error.reason, (OSError,) + _NETWORK_ERRORS)
    return isinstance(error, _NETWORK_ERRORS)


def _segment(value: str) -> str:
    return urllib.parse.quote(str(value), safe="")


class RewindClient:
    """
    Every write gets one ``Idempotency-Key`` (generated unless you give one) that is reused on
    each retry, so a write retried after a lost answer is applied once. 503, 429, 408 and
    network errors are retried with backoff, honouring ``Retry-After``. Refusals raise typed
    errors (``VersionConflict``, ``NotFound``, ``ValidationFailed``, ...).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        retry: Optional[RetryPolicy] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._sleep = sleep

    # ---- transport ---------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        body: JSON = None,
        *,
        query: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        if_match: Optional[int] = None,
        correlation_id: Optional[str] = None,
    ) -> Response:
        """One logical request: retried on 503/429/408 and network errors, with the same Idempotency-Key."""
        write = method.upper() != "GET"
        headers = {"authorization": f"Bearer {self.api_key}", "accept": "application/json"}
        if write:
            headers["idempotency-key"] = idempotency_key or f"py-{uuid.uuid4()}"
        if if_match is not None:
            headers["if-match"] = f'"{int(if_match)}"'
        if correlation_id is not None:
            headers["x-correlation-id"] = correlation_id
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["content-type"] = "application/json"
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._send(method.upper(), url, data, headers)
            except Exception as error:  # noqa: BLE001 - only network errors are retried
                if not _is_network_error(error) or attempt >= self.retry.max_attempts:
                    raise
                self._sleep(self.retry.delay(attempt, None))
                continue
            if response.status < 400:
                return response
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            failure = error_from(response.status, response.body, retry_after)
            retryable = response.status in RETRYABLE_STATUSES and (retry_after is None or retry_after <= self.retry.max_retry_after)
            if not retryable or attempt >= self.retry.max_attempts:
                raise failure
            self._sleep(self.retry.delay(attempt, retry_after))

    def _send(self, method: str, url: str, data: Optional[bytes], headers: Dict[str, str]) -> Response:
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as raw:
                return Response(raw.status, {k.lower(): v for k, v in raw.headers.items()}, _parse(raw.read()))
        except urllib.error.HTTPError as refused:
            with refused:
                return Response(refused.code, {k.lower(): v for k, v in refused.headers.items()}, _parse(refused.read()))

    def _write(self, method: str, path: str, body: JSON = None, **options: Any) -> WriteResult:
        return cast(WriteResult, self.request(method, path, body, **options).body)

    def _object(self, method: str, path: str, body: JSON = None, **options: Any) -> Dict[str, Any]:
        """A request whose answer is a JSON object (a resource, not a write result)."""
        return cast(Dict[str, Any], self.request(method, path, body, **options).body)

    # ---- live streams --------------------------------------------------------------------

    def subscribe(
        self,
        session_id: Optional[str] = None,
        *,
        last_event_id: Optional[str] = None,
        reconnect_delay: float = 1.0,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
    ) -> LiveSubscription:
        """
        The changes committed to a session (or, without ``session_id``, to every session of the
        key's tenant) as they happen, as server-sent events. Iterate over it; ``close()`` ends it.
        A dropped connection is reopened with ``Last-Event-ID`` (pass a change's ``id`` as
        ``last_event_id`` to resume after it); a refusal raises a typed error.
        """
        return LiveSubscription(
            self.base_url,
            self.api_key,
            session_id=session_id,
            last_event_id=last_event_id,
            reconnect_delay=reconnect_delay,
            read_timeout=read_timeout,
        )

    # ---- sessions and steps --------------------------------------------------------------

    def start_session(self, session_id: Optional[str] = None, title: Optional[str] = None, metadata: Optional[Dict[str, Any]] = None, **options: Any) -> WriteResult:
        body = {k: v for k, v in {"sessionId": session_id, "title": title, "metadata": metadata}.items() if v is not None}
        return self._write("POST", "/v1/sessions", body, **options)

    def record_message(self, session_id: str, role: str, content: str, turn_id: Optional[str] = None, **options: Any) -> WriteResult:
        body = {"role": role, "content": content, **({"turnId": turn_id} if turn_id else {})}
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/messages", body, **options)

    def start_tool_call(
        self,
        session_id: str,
        tool_call_id: str,
        tool: str,
        input: JSON = None,
        effect: Optional[Dict[str, Any]] = None,
        confirmed: Optional[bool] = None,
        turn_id: Optional[str] = None,
        **options: Any,
    ) -> WriteResult:
        body: Dict[str, Any] = {"toolCallId": tool_call_id, "tool": tool, "input": input}
        if effect is not None:
            body["effect"] = effect
        if confirmed is not None:
            body["confirmed"] = confirmed
        if turn_id is not None:
            body["turnId"] = turn_id
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/tool-calls", body, **options)

    def succeed_tool_call(self, session_id: str, call_id: str, output: JSON, **options: Any) -> WriteResult:
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/tool-calls/{_segment(call_id)}/succeed", {"output": output}, **options)

    def fail_tool_call(self, session_id: str, call_id: str, error: str, retryable: bool = False, **options: Any) -> WriteResult:
        body = {"error": error, "retryable": retryable}
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/tool-calls/{_segment(call_id)}/fail", body, **options)

    def write_memory(self, session_id: str, key: str, value: JSON, **options: Any) -> WriteResult:
        return self._write("PUT", f"/v1/sessions/{_segment(session_id)}/memory/{_segment(key)}", {"value": value}, **options)

    def erase_memory(self, session_id: str, key: str, **options: Any) -> WriteResult:
        return self._write("DELETE", f"/v1/sessions/{_segment(session_id)}/memory/{_segment(key)}", **options)

    def set_context_var(self, session_id: str, name: str, value: JSON, **options: Any) -> WriteResult:
        return self._write("PUT", f"/v1/sessions/{_segment(session_id)}/context-vars/{_segment(name)}", {"value": value}, **options)

    def push_task(self, session_id: str, title: str, task_id: Optional[str] = None, data: JSON = None, **options: Any) -> WriteResult:
        body: Dict[str, Any] = {"title": title}
        if task_id is not None:
            body["taskId"] = task_id
        if data is not None:
            body["data"] = data
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/tasks", body, **options)

    def pop_task(self, session_id: str, **options: Any) -> WriteResult:
        return self._write("DELETE", f"/v1/sessions/{_segment(session_id)}/tasks/top", **options)

    def propose_tool_call(
        self,
        session_id: str,
        tool_call_id: str,
        tool: str,
        input: JSON = None,
        effect: Optional[Dict[str, Any]] = None,
        turn_id: Optional[str] = None,
        **options: Any,
    ) -> WriteResult:
        """Puts a tool call to a person instead of starting it; start it (same id, tool and input) once approved."""
        body: Dict[str, Any] = {"toolCallId": tool_call_id, "tool": tool, "input": input}
        if effect is not None:
            body["effect"] = effect
        if turn_id is not None:
            body["turnId"] = turn_id
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/proposals", body, **options)

    def approve_tool_call(self, session_id: str, tool_call_id: str, note: Optional[str] = None, **options: Any) -> WriteResult:
        body = {} if note is None else {"note": note}
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/proposals/{_segment(tool_call_id)}/approve", body, **options)

    def reject_tool_call(self, session_id: str, tool_call_id: str, reason: str, **options: Any) -> WriteResult:
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/proposals/{_segment(tool_call_id)}/reject", {"reason": reason}, **options)

    def interrupt_turn(self, session_id: str, turn_id: str, partial_content: str, **options: Any) -> WriteResult:
        body = {"partialContent": partial_content}
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/turns/{_segment(turn_id)}/interrupt", body, **options)

    def record_thought(
        self, session_id: str, content: str, steps: Optional[List[str]] = None, turn_id: Optional[str] = None, **options: Any
    ) -> WriteResult:
        """The agent's reasoning: a timeline step, never part of context() unless include_thoughts=True."""
        body: Dict[str, Any] = {"content": content}
        if steps is not None:
            body["steps"] = list(steps)
        if turn_id is not None:
            body["turnId"] = turn_id
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/thoughts", body, **options)

    def create_checkpoint(self, session_id: str, label: str, **options: Any) -> WriteResult:
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/checkpoints", {"label": label}, **options)

    def record_steps(self, session_id: str, steps: List[Dict[str, Any]], **options: Any) -> WriteResult:
        """Several steps (e.g. a whole turn) in one atomic write: all or none."""
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/steps", {"steps": steps}, **options)

    # ---- time travel ---------------------------------------------------------------------

    def rollback(
        self,
        session_id: str,
        to_version: Optional[int] = None,
        to_checkpoint: Optional[str] = None,
        acknowledge_irreversible: Optional[bool] = None,
        dry_run: Optional[bool] = None,
        wait_ms: Optional[int] = None,
        **options: Any,
    ) -> WriteResult:
        body = _head_move({"toVersion": to_version, "toCheckpoint": to_checkpoint}, acknowledge_irreversible, dry_run, wait_ms)
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/rollback", body, **options)

    def undo(self, session_id: str, steps: Optional[int] = None, acknowledge_irreversible: Optional[bool] = None, dry_run: Optional[bool] = None, wait_ms: Optional[int] = None, **options: Any) -> WriteResult:
        body = _head_move({"steps": steps}, acknowledge_irreversible, dry_run, wait_ms)
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/undo", body, **options)

    def redo(self, session_id: str, acknowledge_irreversible: Optional[bool] = None, dry_run: Optional[bool] = None, wait_ms: Optional[int] = None, **options: Any) -> WriteResult:
        body = _head_move({}, acknowledge_irreversible, dry_run, wait_ms)
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/redo", body, **options)

    def fork(
        self,
        session_id: str,
        at_version: int,
        steps: List[Dict[str, Any]],
        branch_name: Optional[str] = None,
        acknowledge_irreversible: Optional[bool] = None,
        dry_run: Optional[bool] = None,
        wait_ms: Optional[int] = None,
        **options: Any,
    ) -> WriteResult:
        """Fork from the past: make step at_version current and start a new branch there with steps (as record_steps takes them)."""
        body = _head_move({"atVersion": at_version, "steps": list(steps), "branchName": branch_name}, acknowledge_irreversible, dry_run, wait_ms)
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/fork", body, **options)

    def name_branch(self, session_id: str, version: int, name: str, **options: Any) -> WriteResult:
        """Names a branch by one of its steps (timeline() gives each branch the nearest name on its path)."""
        return self._write("POST", f"/v1/sessions/{_segment(session_id)}/branch-names", {"version": version, "name": name}, **options)

    def get_rollback(self, rollback_id: str) -> Dict[str, Any]:
        return self._object("GET", f"/v1/rollbacks/{_segment(rollback_id)}")

    def wait_for_rollback(self, rollback_id: str, timeout: float = 30.0, poll_interval: float = 0.1) -> Dict[str, Any]:
        """Polls a rollback until it completes; raises RollbackNeedsAttention or RollbackTimeout otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            rollback = self.get_rollback(rollback_id)
            status = rollback.get("status")
            if status == "completed":
                return rollback
            if status == "needs_attention":
                raise RollbackNeedsAttention(
                    200,
                    "rollback_needs_attention",
                    f"Rollback {rollback_id} could not undo every effect: retry or resolve the failed ones (/v1/rollbacks/{rollback_id}).",
                    [e for e in rollback.get("effects", []) if isinstance(e, dict) and e.get("status") == "failed"],
                )
            if time.monotonic() >= deadline:
                raise RollbackTimeout(0, "rollback_timeout", f"Rollback {rollback_id} is still {status} after {timeout} s; it goes on in the background.")
            self._sleep(poll_interval)

    def retry_effect(self, rollback_id: str, call_id: str, **options: Any) -> Dict[str, Any]:
        return self._object("POST", f"/v1/rollbacks/{_segment(rollback_id)}/effects/{_segment(call_id)}/retry", {}, **options)

    def resolve_effect(self, rollback_id: str, call_id: str, note: str, **options: Any) -> Dict[str, Any]:
        return self._object("POST", f"/v1/rollbacks/{_segment(rollback_id)}/effects/{_segment(call_id)}/resolve", {"note": note}, **options)

    def register_tool(self, name: str, kind: str, compensation: Optional[Dict[str, Any]] = None, retry: Optional[Dict[str, Any]] = None, **options: Any) -> Dict[str, Any]:
        body: Dict[str, Any] = {"kind": kind}
        if compensation is not None:
            body["compensation"] = compensation
        if retry is not None:
            body["retry"] = retry
        return self._object("PUT", f"/v1/tools/{_segment(name)}", body, **options)

    # ---- reads ---------------------------------------------------------------------------

    def get_state(self, session_id: str, at: Optional[int] = None) -> Dict[str, Any]:
        if at is None:
            return self._object("GET", f"/v1/sessions/{_segment(session_id)}")
        return self._object("GET", f"/v1/sessions/{_segment(session_id)}/state", query={"at": at})

    def current_version(self, session_id: str) -> int:
        """The session's version now (its ETag): what to send as ``if_match``."""
        response = self.request("GET", f"/v1/sessions/{_segment(session_id)}")
        return response.etag_version if response.etag_version is not None else int(response.body["version"])

    def timeline(self, session_id: str) -> Dict[str, Any]:
        return self._object("GET", f"/v1/sessions/{_segment(session_id)}/timeline")

    def events(self, session_id: str, from_version: Optional[int] = None, limit: Optional[int] = None) -> Dict[str, Any]:
        return self._object("GET", f"/v1/sessions/{_segment(session_id)}/events", query={"from": from_version, "limit": limit})

    def diff(self, session_id: str, from_version: int, to_version: int) -> Dict[str, Any]:
        return self._object("GET", f"/v1/sessions/{_segment(session_id)}/diff", query={"from": from_version, "to": to_version})

    def context(
        self,
        session_id: str,
        max_turns: Optional[int] = None,
        max_chars: Optional[int] = None,
        at: Optional[int] = None,
        include_thoughts: Optional[bool] = None,
    ) -> Dict[str, Any]:
        thoughts = None if include_thoughts is None else ("true" if include_thoughts else "false")
        query = {"maxTurns": max_turns, "maxChars": max_chars, "at": at, "includeThoughts": thoughts}
        return self._object("GET", f"/v1/sessions/{_segment(session_id)}/context", query=query)

    # ---- If-Match helpers ----------------------------------------------------------------

    def write_if_unchanged(self, session_id: str, write: Callable[[int], T], max_attempts: int = 5) -> T:
        """
        Optimistic concurrency: ``write(version)`` is called with the current version and must
        pass it as ``if_match``; when someone wrote first (409 version_conflict) it is called
        again with the new version, up to ``max_attempts`` times.
        """
        version = self.current_version(session_id)
        for attempt in range(1, max_attempts + 1):
            try:
                return write(version)
            except VersionConflict as conflict:
                if attempt == max_attempts:
                    raise
                version = conflict.current_version if conflict.current_version is not None else self.current_version(session_id)
        raise AssertionError("unreachable")


def _head_move(target: Dict[str, Any], acknowledge_irreversible: Optional[bool], dry_run: Optional[bool], wait_ms: Optional[int]) -> Dict[str, Any]:
    body = {k: v for k, v in target.items() if v is not None}
    for key, value in (("acknowledgeIrreversible", acknowledge_irreversible), ("dryRun", dry_run), ("waitMs", wait_ms)):
        if value is not None:
            body[key] = value
    return body


def _parse(raw: bytes) -> JSON:
    if not raw:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return raw.decode("utf-8", "replace")
