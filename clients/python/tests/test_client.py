"""The Python client against the real Rewind API, on SQLite and on PostgreSQL (python3 -m unittest)."""

from __future__ import annotations

import email.utils
import threading
import time
import unittest
import uuid
from typing import TYPE_CHECKING, Iterable, Iterator, List

from rewind_client import (
    EventStreamParser,
    LiveChange,
    LiveEvent,
    NotFound,
    RewindError,
    RetryPolicy,
    RewindClient,
    RollbackNeedsAttention,
    Unauthorized,
    ValidationFailed,
    VersionConflict,
    WriteResult,
    parse_retry_after,
)
from support import Compensator, RewindServer, TcpProxy


class RetryAfterTest(unittest.TestCase):
    def test_reads_seconds_and_http_dates(self) -> None:
        self.assertEqual(parse_retry_after("3"), 3.0)
        now = time.time()
        self.assertAlmostEqual(parse_retry_after(email.utils.formatdate(now + 10, usegmt=True), now=now) or 0, 10, delta=1.5)
        self.assertIsNone(parse_retry_after("soon"))
        self.assertIsNone(parse_retry_after(None))

    def test_honours_retry_after_over_backoff(self) -> None:
        policy = RetryPolicy(base_delay=0.2, max_delay=10)
        self.assertEqual(policy.delay(4, 2.5), 2.5)
        self.assertLessEqual(policy.delay(4, None, rand=lambda: 0.999), 1.6)


# A mixin of the per-store test classes below; a TestCase only to the type checker (unittest would run it on its own).
if TYPE_CHECKING:
    _TestCase = unittest.TestCase
else:
    _TestCase = object


class ClientOnStore(_TestCase):
    STORE = "sqlite"
    server: RewindServer

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = RewindServer(cls.STORE)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()

    def setUp(self) -> None:
        self.client = RewindClient(self.server.base_url, self.server.admin_key, retry=RetryPolicy(base_delay=0.05, max_delay=0.5))
        self.session = f"py-{uuid.uuid4().hex[:12]}"
        self.client.start_session(self.session, title="Lisbon in May")

    def test_records_steps_and_travels_in_time(self) -> None:
        c, s = self.client, self.session
        self.assertEqual(c.record_message(s, "user", "Plan a trip to Lisbon")["version"], 2)
        c.write_memory(s, "destination", "Lisbon")
        c.start_tool_call(s, "f1", "search_flights", {"to": "LIS"}, effect={"kind": "none"})
        c.succeed_tool_call(s, "f1", {"flights": ["TP1353"]})
        batch = c.record_steps(s, [{"kind": "message", "role": "agent", "content": "TP1353 it is."}, {"kind": "memory", "key": "flight", "value": "TP1353"}])
        self.assertEqual(batch["version"], 7)
        self.assertEqual(c.get_state(s, at=3)["memory"], {"destination": "Lisbon"})
        undo = c.undo(s)
        self.assertEqual(c.get_state(s)["head"], undo["head"])
        self.assertEqual(c.diff(s, 7, c.current_version(s))["sessionId"], s)
        self.assertIn("items", c.context(s))

    def test_records_a_thought_kept_out_of_the_context_unless_asked_for(self) -> None:
        c, s = self.client, self.session
        c.record_message(s, "user", "Plan a trip to Lisbon", turn_id="t1")
        c.record_thought(s, "May is busy: search hotels first.", steps=["dates: May", "hotels first"])
        thoughts = c.get_state(s)["thoughts"]
        self.assertEqual([(t["content"], t["steps"], t["turnId"]) for t in thoughts], [("May is busy: search hotels first.", ["dates: May", "hotels first"], "t1")])
        self.assertEqual([i["kind"] for i in c.context(s)["items"]], ["message"])
        self.assertEqual([i["kind"] for i in c.context(s, include_thoughts=True)["items"]], ["message", "thought"])

    def test_forks_from_a_past_step_into_a_named_branch(self) -> None:
        c, s = self.client, self.session
        asked = c.record_message(s, "user", "Lisbon in May")["version"]
        c.write_memory(s, "city", "Lisbon")
        plan = c.fork(s, asked, [{"kind": "memory", "key": "city", "value": "Porto"}], branch_name="Porto", dry_run=True)
        self.assertEqual(dict(plan).get("outcome"), "dry_run")
        c.fork(s, asked, [{"kind": "memory", "key": "city", "value": "Porto"}], branch_name="Porto")
        self.assertEqual(c.get_state(s)["memory"], {"city": "Porto"})
        head_branch = [b for b in c.timeline(s)["branches"] if b["containsHead"]][0]
        self.assertEqual((head_branch["name"], head_branch["forkedFrom"]), ("Porto", asked))
        c.name_branch(s, head_branch["tip"], "Porto, May")
        self.assertIn("Porto, May", [b["name"] for b in c.timeline(s)["branches"]])

    def test_proposes_a_tool_call_and_starts_it_only_once_approved(self) -> None:
        c, s = self.client, self.session
        c.propose_tool_call(s, "pay1", "charge_card", {"amount": 50}, effect={"kind": "irreversible"})
        with self.assertRaises(RewindError) as refused:
            c.start_tool_call(s, "pay1", "charge_card", {"amount": 50}, effect={"kind": "irreversible"}, confirmed=True)
        self.assertEqual(refused.exception.code, "approval_required")
        c.approve_tool_call(s, "pay1", note="within budget")
        proposal = c.get_state(s)["proposals"][0]
        self.assertEqual((proposal["status"], proposal["note"]), ("approved", "within budget"))
        self.assertTrue(proposal["decidedBy"])
        c.start_tool_call(s, "pay1", "charge_card", {"amount": 50}, effect={"kind": "irreversible"})
        c.propose_tool_call(s, "pay2", "charge_card", {"amount": 5000})
        c.reject_tool_call(s, "pay2", "too expensive")
        self.assertEqual([p["status"] for p in c.get_state(s)["proposals"]], ["approved", "rejected"])

    def test_raises_typed_errors_by_code(self) -> None:
        with self.assertRaises(NotFound) as missing:
            self.client.get_state("no-such-session")
        self.assertEqual(missing.exception.code, "session_not_found")
        with self.assertRaises(ValidationFailed) as invalid:
            self.client.request("POST", f"/v1/sessions/{self.session}/messages", {"role": "user"})
        self.assertIn("content", invalid.exception.fields)
        self.assertIn("content is required", invalid.exception.message)
        with self.assertRaises(Unauthorized):
            RewindClient(self.server.base_url, "rwd_not_a_key").get_state(self.session)

    def test_if_match_conflicts_name_the_current_version_and_the_helper_retries(self) -> None:
        c, s = self.client, self.session
        version = c.current_version(s)
        c.write_memory(s, "k", 1)  # someone else writes first
        with self.assertRaises(VersionConflict) as conflict:
            c.write_memory(s, "k", 2, if_match=version)
        self.assertEqual(conflict.exception.current_version, version + 1)

        seen: List[int] = []

        def write(v: int) -> WriteResult:
            seen.append(v)
            if len(seen) == 1:
                c.write_memory(s, "other", "x")  # a concurrent writer between read and write
            return c.write_memory(s, "k", 3, if_match=v)

        result = c.write_if_unchanged(s, write)
        self.assertEqual(len(seen), 2)
        self.assertEqual(seen[1], seen[0] + 1)
        self.assertEqual(result["version"], seen[1] + 1)
        self.assertEqual(c.get_state(s)["memory"]["k"], 3)

    def test_retries_a_write_whose_answer_was_lost_with_the_same_key_and_it_is_applied_once(self) -> None:
        proxy = TcpProxy(self.server.port)
        try:
            via_proxy = RewindClient(f"http://127.0.0.1:{proxy.port}", self.server.admin_key, retry=RetryPolicy(base_delay=0.05, max_delay=0.2))
            before = self.client.current_version(self.session)
            proxy.drop_next_answer = True
            result = via_proxy.record_message(self.session, "user", "only once")
            self.assertEqual(proxy.dropped, 1)
            self.assertTrue(result["duplicate"])  # the retry was answered from the first attempt
            self.assertEqual(self.client.current_version(self.session), before + 1)
            messages = [e for e in self.client.events(self.session)["events"] if e["type"] == "UserMessageReceived"]
            self.assertEqual([e["data"]["content"] for e in messages], ["only once"])
        finally:
            proxy.close()

    def test_waits_for_a_rollback_and_reports_one_that_needs_attention(self) -> None:
        for status, outcome in ((200, "completed"), (400, "needs_attention")):
            compensator = Compensator(status)
            try:
                c, s = self.client, f"{self.session}-{status}"
                c.start_session(s)
                effect = {"kind": "reversible", "compensation": {"channel": "http", "target": compensator.url + "/bookings/{{output.bookingId}}/cancel"}}
                c.start_tool_call(s, "b1", "book_hotel", {"hotel": "Alfama Inn"}, effect=effect)
                c.succeed_tool_call(s, "b1", {"bookingId": "H-981"})
                move = c.undo(s)
                self.assertIn("rollbackId", move)
                if outcome == "completed":
                    rollback = c.wait_for_rollback(move["rollbackId"], timeout=20)
                    self.assertEqual(rollback["status"], "completed")
                    self.assertEqual([r[0] for r in compensator.received], ["/bookings/H-981/cancel"])
                    self.assertTrue(compensator.received[0][1]["idempotency-key"])
                else:
                    with self.assertRaises(RollbackNeedsAttention) as attention:
                        c.wait_for_rollback(move["rollbackId"], timeout=20)
                    self.assertEqual(attention.exception.details[0]["toolCallId"], "b1")
            finally:
                compensator.close()


    def test_follows_a_session_live_and_resumes_after_the_last_change_received(self) -> None:
        c, s = self.client, self.session
        received: List[LiveEvent] = []
        with c.subscribe(s, reconnect_delay=0.1) as live:
            events = iter(live)
            ready = next(events)
            self.assertEqual(ready.kind, "ready")
            # Written from another thread while this one waits on the stream.
            writer = threading.Thread(target=lambda: (c.record_message(s, "user", "Plan Porto"), c.write_memory(s, "city", "Porto")))
            writer.start()
            while len(received) < 2:
                event = next(events)
                if event.kind == "change":
                    received.append(event)
            writer.join()
        self.assertEqual([(e.change.session_id, e.change.type) for e in received if e.change], [(s, "UserMessageReceived"), (s, "MemoryWritten")])
        self.assertEqual([e.change.version for e in received if e.change], [2, 3])
        self.assertTrue(live.closed)

        # Two more while nobody listens: a resume after the last id received gets exactly those, in order.
        c.record_message(s, "agent", "Porto it is.")
        c.write_memory(s, "nights", 2)
        with c.subscribe(s, last_event_id=received[-1].id) as resumed:
            changes = [e for e in _take(resumed, 3) if e.kind == "change"]
        self.assertEqual([(e.change.version, e.change.type) for e in changes if e.change], [(4, "AgentMessageProduced"), (5, "MemoryWritten")])

    def test_follows_the_tenant_and_reconnects_after_the_connection_drops(self) -> None:
        proxy = TcpProxy(self.server.port)
        try:
            via_proxy = RewindClient(f"http://127.0.0.1:{proxy.port}", self.server.admin_key)
            other = f"{self.session}-new"
            with via_proxy.subscribe(reconnect_delay=0.1) as live:
                events = iter(live)
                self.assertEqual(next(events).kind, "ready")
                self.client.start_session(other)
                first = _next_change(events)
                self.assertEqual((first.session_id, first.type), (other, "SessionStarted"))
                proxy.cut()  # the connection drops; the next write happens while it is down
                self.client.record_message(other, "user", "Written while the stream was down")
                proxy.restore()
                again = _next_change(events)
                self.assertEqual((again.session_id, again.version, again.type), (other, 2, "UserMessageReceived"))
        finally:
            proxy.close()

    def test_close_from_another_thread_ends_an_iteration_waiting_for_changes(self) -> None:
        live = self.client.subscribe(self.session)
        timer = threading.Timer(0.5, live.close)
        timer.start()
        started = time.monotonic()
        kinds = [event.kind for event in live]  # blocks on the quiet stream until closed
        self.assertEqual(kinds, ["ready"])
        self.assertLess(time.monotonic() - started, 10)

    def test_refusals_are_raised_not_retried(self) -> None:
        with self.assertRaises(NotFound):
            next(iter(self.client.subscribe("no-such-session")))
        with self.assertRaises(Unauthorized):
            next(iter(RewindClient(self.server.base_url, "rwd_not_a_key").subscribe(self.session)))


def _take(subscription: Iterable[LiveEvent], count: int) -> List[LiveEvent]:
    taken: List[LiveEvent] = []
    for event in subscription:
        taken.append(event)
        if len(taken) == count:
            break
    return taken


def _next_change(events: Iterator[LiveEvent]) -> LiveChange:
    for event in events:
        if event.change is not None:
            return event.change
    raise AssertionError("the stream ended without a change")


class EventStreamParserTest(unittest.TestCase):
    def test_reads_events_multiline_data_ids_comments_and_retry(self) -> None:
        parser = EventStreamParser()
        lines = [": a comment", "retry: 500", "event: change", "id: opaque~1", "data: {\"a\":", "data: 1}", "", "data:no space", "", ""]
        events = [e for e in (parser.feed(line) for line in lines) if e is not None]
        self.assertEqual([(e.event, e.data, e.id) for e in events], [("change", '{"a":\n1}', "opaque~1"), ("message", "no space", "opaque~1")])
        self.assertEqual(parser.retry_ms, 500)


class ClientOnSqlite(ClientOnStore, unittest.TestCase):
    STORE = "sqlite"


class ClientOnPostgres(ClientOnStore, unittest.TestCase):
    STORE = "postgres"


class RetriesWhileTheStoreIsDown(unittest.TestCase):
    """PostgreSQL cut for real (a TCP hop between the API and the database): 503 with Retry-After, retried."""

    def test_retries_503_honouring_retry_after_until_the_store_is_back(self) -> None:
        from support import ADMIN_URL
        import urllib.parse

        database_port = urllib.parse.urlsplit(ADMIN_URL).port or 5432
        proxy = TcpProxy(database_port)
        server = RewindServer("postgres", database_via=proxy.port)
        try:
            delays: List[float] = []

            def sleep(seconds: float) -> None:
                delays.append(seconds)
                proxy.restore()  # the database comes back while the client waits
                time.sleep(seconds)

            client = RewindClient(server.base_url, server.admin_key, retry=RetryPolicy(max_attempts=10, base_delay=0.05, max_delay=0.5), sleep=sleep)
            client.start_session("outage")
            proxy.cut()
            result = client.record_message("outage", "user", "written once the store is back")
            self.assertEqual(result["version"], 2)
            self.assertGreaterEqual(len(delays), 1)
            self.assertEqual(delays[0], 1.0)  # the API's Retry-After: 1
        finally:
            server.stop()
            proxy.close()


if __name__ == "__main__":
    unittest.main()
