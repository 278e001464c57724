"""The flow every generated client runs (see ../run.sh), here with the python client.

Imported from the generated package (PYTHONPATH). Reads REWIND_URL and REWIND_ADMIN_KEY; raises
(exit 1) on the first thing that is not as documented.
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import rewind_client
from rewind_client.models import (
    CompensationDto,
    ContextMessage,
    CreateApiKeyDto,
    CreateCheckpointDto,
    DryRun,
    EffectDto,
    ErrorResponse,
    HeadMoveResult,
    MemoryStepDto,
    MessageStepDto,
    RecordMessageDto,
    RecordStepsDto,
    RedoDto,
    RetryPolicyDto,
    RollbackDto,
    StartSessionDto,
    Step,
    ToolCallStepDto,
    ToolResultStepDto,
    UndoDto,
)


def check(condition, what):
    if not condition:
        raise AssertionError(f"flow (python): {what}")


def refusal(call, status):
    """The refusal a call answered with, typed by the generated model."""
    try:
        call()
    except rewind_client.ApiException as error:
        check(error.status == status, f"expected {status}, got {error.status}: {error.body}")
        return ErrorResponse.from_json(error.body)
    raise AssertionError("flow (python): the call succeeded but should have been refused")


calls = []


class Compensator(BaseHTTPRequestHandler):
    """Answers every POST, and remembers what it was asked."""

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        calls.append((self.path, self.headers.get("idempotency-key")))
        body = b'{"cancelled":true}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def client(key):
    return rewind_client.ApiClient(rewind_client.Configuration(host=os.environ["REWIND_URL"], access_token=key))


def main():
    compensator = ThreadingHTTPServer(("127.0.0.1", 0), Compensator)
    threading.Thread(target=compensator.serve_forever, daemon=True).start()
    compensator_url = f"http://127.0.0.1:{compensator.server_address[1]}"
    try:
        # An admin key makes a write key; the flow runs with that one.
        admin = rewind_client.KeysApi(client(os.environ["REWIND_ADMIN_KEY"]))
        created = admin.create_api_key(CreateApiKeyDto(name="openapi-clients flow (python)", scopes=["write", "read"]))
        check(created.key.startswith("rwd_") and "write" in created.record.scopes, "createApiKey answers the secret and the record")
        api = client(created.key)
        sessions = rewind_client.SessionsApi(api)
        steps = rewind_client.StepsApi(api)
        time_travel = rewind_client.TimeTravelApi(api)

        session_id = f"flow-py-{int(time.time() * 1000):x}"
        check(sessions.start_session(StartSessionDto(session_id=session_id)).session_id == session_id, "startSession")
        asked = steps.record_message(session_id, RecordMessageDto(role="user", content="Book a hotel in Lisbon."))
        steps.create_checkpoint(session_id, CreateCheckpointDto(label="before-booking"))
        effect = EffectDto(
            kind="compensable",
            compensation=CompensationDto(channel="http", target=compensator_url + "/bookings/{{output.bookingId}}/cancel"),
            retry=RetryPolicyDto(max_attempts=3, base_delay_ms=10, max_delay_ms=50, timeout_ms=5000),
        )
        batch = steps.record_steps(
            session_id,
            RecordStepsDto(
                steps=[
                    Step(MessageStepDto(kind="message", role="agent", content="Booking the Alfama Inn.")),
                    Step(ToolCallStepDto(kind="tool-call", tool_call_id="hotel-1", tool="book_hotel", input={"city": "Lisbon"}, effect=effect)),
                    Step(ToolResultStepDto(kind="tool-result", tool_call_id="hotel-1", output={"bookingId": "B-42"})),
                    Step(MemoryStepDto(kind="memory", key="hotel", value="B-42")),
                ]
            ),
        )
        check(len(batch.events) == 4, f"recordSteps wrote 4 events, not {len(batch.events)}")
        now = sessions.get_session(session_id)
        check(now.memory.get("hotel") == "B-42", "the memory step kept its value")
        call = now.tool_calls[0]
        check(call.effect.kind == "compensable" and call.status == "succeeded", "the tool-call step kept its effect, the result step its output")

        past = sessions.get_session_state(session_id, at=asked.step_version)
        check(not past.tool_calls and "hotel" not in past.memory and len(past.conversation.turns) == 1, "state at a past version")

        plan = time_travel.undo(session_id, UndoDto(dry_run=True)).actual_instance
        check(isinstance(plan, DryRun) and plan.plan.kind == "undo", "an undo dry run answers a plan")
        undone = time_travel.undo(session_id, UndoDto()).actual_instance
        check(isinstance(undone, HeadMoveResult) and undone.head < batch.head, "the undo moved the head back")
        check("hotel" not in sessions.get_session(session_id).memory, "the undo removed the memory write")

        rolled_back = time_travel.rollback(session_id, RollbackDto(to_checkpoint="before-booking", wait_ms=10000)).actual_instance
        check(isinstance(rolled_back, HeadMoveResult) and rolled_back.rollback.status == "completed", "the rollback to the checkpoint completed")
        check(len(calls) == 1 and calls[0][0] == "/bookings/B-42/cancel" and calls[0][1], f"the compensator was called once with an Idempotency-Key: {calls}")

        redo = refusal(lambda: time_travel.redo(session_id, RedoDto()), 409)
        check(redo.error.code == "compensated_effects_on_path", f"a redo over a compensated effect is refused: {redo}")

        context = sessions.get_context(session_id)
        item = context.items[0].actual_instance if context.items else None
        check(len(context.items) == 1 and isinstance(item, ContextMessage) and item.content == "Book a hotel in Lisbon.", "the context is the head path")
        timeline = sessions.get_timeline(session_id)
        check(timeline.head == rolled_back.head and len(timeline.rollbacks) == 2 and len(timeline.nodes) >= 6, "the timeline shows both moves")

        missing = refusal(lambda: sessions.get_session(session_id + "-missing"), 404)
        check(missing.error.code == "session_not_found", f"an unknown session is a typed 404: {missing}")
        conflict = refusal(lambda: sessions.start_session(StartSessionDto(session_id=session_id)), 409)
        check(conflict.error.code == "session_exists", f"a second start is a typed 409: {json.dumps(conflict.to_dict())}")
        print("flow (python): passed")
    finally:
        compensator.shutdown()


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # noqa: BLE001 - any failure fails the flow
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        raise
