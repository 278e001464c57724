"""
Live streams of committed changes (server-sent events): ``GET /v1/sessions/{id}/stream`` for one
session, ``GET /v1/stream`` for every session of the key's tenant. Standard library only.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional

from .errors import error_from

#: The server pings every 20 s: a stream silent for this long is taken as dead and reopened.
DEFAULT_READ_TIMEOUT = 60.0


@dataclass(frozen=True)
class LiveChange:
    """One committed event, as a live stream tells it: where and what, never its data."""

    session_id: str
    #: Its version in the session.
    version: int
    #: The event's type, e.g. ``UserMessageReceived``.
    type: str
    occurred_at: Optional[str]
    #: The fields as the server sent them (a newer server may send more, or fewer, e.g. no global position).
    raw: Dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LiveEvent:
    """
    ``ready``: the stream is open, changes after ``data`` follow; ``reset``: a resume was too far
    behind to replay, reload what you show; ``change``: one committed event (``change``), whose
    ``id`` resumes the stream after it.
    """

    kind: str
    #: The event's id, an opaque cursor: give it back as ``last_event_id`` to resume after it (change only).
    id: Optional[str] = None
    change: Optional[LiveChange] = None
    data: Dict[str, Any] = field(default_factory=dict)


@dataclass
class ServerSentEvent:
    """One event of a ``text/event-stream``, before it is read as a live event."""

    event: str = "message"
    data: str = ""
    id: Optional[str] = None


class EventStreamParser:
    """The ``text/event-stream`` format (WHATWG HTML §9.2.6), fed one line at a time."""

    def __init__(self) -> None:
        self._event = ""
        self._data: List[str] = []
        self._id: Optional[str] = None
        self.last_id: Optional[str] = None
        #: The reconnection time the server asked for (``retry:``), in milliseconds.
        self.retry_ms: Optional[int] = None

    def feed(self, line: str) -> Optional[ServerSentEvent]:
        """Takes one line (without its end of line); answers the event a blank line completes."""
        if line == "":
            if not self._data and not self._event:
                self._id = None
                return None
            if self._id is not None:
                self.last_id = self._id
            event = ServerSentEvent(self._event or "message", "\n".join(self._data), self.last_id)
            self._event, self._data, self._id = "", [], None
            return event
        if line.startswith(":"):
            return None  # a comment
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value
        elif name == "retry" and value.isdigit():
            self.retry_ms = int(value)
        return None


def _to_live_event(message: ServerSentEvent) -> Optional[LiveEvent]:
    try:
        data = json.loads(message.data) if message.data else {}
    except ValueError:
        return None
    if not isinstance(data, dict):
        data = {}
    if message.event in ("ready", "reset"):
        return LiveEvent(message.event, data=data)
    if message.event == "change":
        change = LiveChange(
            session_id=str(data.get("sessionId", "")),
            version=int(data.get("version", 0)),
            type=str(data.get("type", "")),
            occurred_at=data.get("occurredAt") if isinstance(data.get("occurredAt"), str) else None,
            raw=data,
        )
        return LiveEvent("change", id=message.id, change=change, data=data)
    return None  # ping, and kinds a newer server may add


class LiveSubscription:
    """
    Iterates over a live stream's events, reconnecting after a dropped connection with
    ``Last-Event-ID`` (no change missed or repeated). Refusals (4xx: a bad key, an unknown
    session) are raised as the client's typed errors, not retried. ``close()`` (from any thread,
    or by leaving a ``with`` block) ends the iteration.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        session_id: Optional[str] = None,
        last_event_id: Optional[str] = None,
        reconnect_delay: float = 1.0,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        opener: Optional[Callable[[urllib.request.Request, float], Any]] = None,
    ) -> None:
        base = base_url.rstrip("/")
        self.url = f"{base}/v1/sessions/{urllib.parse.quote(session_id, safe='')}/stream" if session_id else f"{base}/v1/stream"
        self.api_key = api_key
        #: The id of the last change received: where a reconnection resumes.
        self.last_event_id = last_event_id
        self.reconnect_delay = reconnect_delay
        self.read_timeout = read_timeout
        self._open = opener or (lambda request, timeout: urllib.request.urlopen(request, timeout=timeout))
        self._closed = threading.Event()
        self._response: Any = None
        self._lock = threading.Lock()

    def __enter__(self) -> "LiveSubscription":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[LiveEvent]:
        return self.events()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def close(self) -> None:
        """Ends the subscription: the iteration stops at its next read."""
        self._closed.set()
        with self._lock:
            response = self._response
        if response is None:
            return
        # Shutting the socket down wakes a read blocked in another thread, which then closes the
        # response itself (closing it from here would race with that read).
        sock = getattr(getattr(getattr(response, "fp", None), "raw", None), "_sock", None)
        if isinstance(sock, socket.socket):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def events(self) -> Iterator[LiveEvent]:
        while not self._closed.is_set():
            headers = {"authorization": f"Bearer {self.api_key}", "accept": "text/event-stream", "cache-control": "no-cache"}
            if self.last_event_id:
                headers["last-event-id"] = self.last_event_id
            request = urllib.request.Request(self.url, headers=headers, method="GET")
            try:
                response = self._open(request, self.read_timeout)
            except urllib.error.HTTPError as refused:
                with refused:
                    body = _json(refused.read())
                if 400 <= refused.code < 500:
                    raise error_from(refused.code, body) from None
                self._pause()
                continue
            except (OSError, http.client.HTTPException):
                self._pause()  # unreachable: tried again after the delay
                continue
            with self._lock:
                self._response = response
            parser = EventStreamParser()
            try:
                while not self._closed.is_set():
                    raw = response.readline()
                    if not raw:
                        break  # the server ended the stream: reopen it
                    message = parser.feed(raw.decode("utf-8").rstrip("\r\n"))
                    if message is None:
                        continue
                    event = _to_live_event(message)
                    if event is None:
                        continue
                    if event.kind == "change" and event.id:
                        self.last_event_id = event.id
                    yield event
            except (OSError, ValueError, http.client.HTTPException):
                pass  # dropped (or closed by close()): reopened below unless closed
            finally:
                with self._lock:
                    self._response = None
                try:
                    response.close()
                except OSError:
                    pass
            self._pause()

    def _pause(self) -> None:
        self._closed.wait(self.reconnect_delay)


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw else None
    except ValueError:
        return raw.decode("utf-8", "replace")
