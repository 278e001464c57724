"""A Python agent loop on Rewind's HTTP API through clients/python.

The hotel service runs here (a small HTTP server); Rewind calls its cancel endpoint when
the agent's booking is rolled back. Needs REWIND_URL and REWIND_API_KEY, and
clients/python on PYTHONPATH; the hotel service listens on 127.0.0.1, so the Rewind it talks to
must allow loopback compensations (start it with REWIND_EGRESS_ALLOW=127.0.0.0/8,::1):

    PYTHONPATH=clients/python REWIND_URL=http://localhost:3000 REWIND_API_KEY=... \
        python3 examples/python-agent-loop/agent.py
"""
import json
import os
import re
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from rewind_client import RewindClient

BOOKINGS = {}


class HotelService(BaseHTTPRequestHandler):
    """POST /bookings/<id>/cancel: the compensation Rewind sends on rollback."""

    def do_POST(self):
        match = re.fullmatch(r"/bookings/([\w-]+)/cancel", self.path)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not match:
            self.send_response(404)
            self.end_headers()
            return
        BOOKINGS.pop(match.group(1), None)
        body = json.dumps({"cancelled": match.group(1)}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def decide(text):
    """Stands in for the model."""
    match = re.search(r"book (?:the )?(\w+)", text)
    return ("book_hotel", {"hotel": match.group(1)}) if match else (None, None)


def main():
    service = ThreadingHTTPServer(("127.0.0.1", 0), HotelService)
    threading.Thread(target=service.serve_forever, daemon=True).start()
    hotel_url = f"http://127.0.0.1:{service.server_address[1]}"

    rewind = RewindClient(os.environ["REWIND_URL"], os.environ["REWIND_API_KEY"])
    rewind.register_tool("book_hotel", "reversible", compensation={
        "channel": "http", "target": hotel_url + "/bookings/{{output.bookingId}}/cancel"})
    session = f"py-trip-{uuid.uuid4().hex[:8]}"
    rewind.start_session(session, title="Python agent loop")

    for text in ["book the Alfama", "book the Baixa"]:
        rewind.create_checkpoint(session, f"before {text}")
        rewind.record_message(session, "user", text)
        tool, args = decide(text)
        if tool:
            call_id = uuid.uuid4().hex
            rewind.start_tool_call(session, call_id, tool, args)
            booking_id = f"B-{args['hotel']}"
            BOOKINGS[booking_id] = args["hotel"]  # the tool's real work
            rewind.succeed_tool_call(session, call_id, {"bookingId": booking_id})
            rewind.record_message(session, "assistant", f"Booked {args['hotel']} ({booking_id}).")
        print(f"{text} -> bookings: {sorted(BOOKINGS.values())}")

    move = rewind.rollback(session, to_checkpoint="before book the Baixa")
    if move.get("rollbackId"):
        rewind.wait_for_rollback(move["rollbackId"])
    state = rewind.get_state(session)
    print(f"after the rollback: bookings {sorted(BOOKINGS.values())}, "
          f"tool calls {[c['input']['hotel'] for c in state['toolCalls']]}")
    service.shutdown()
    assert sorted(BOOKINGS.values()) == ["Alfama"], BOOKINGS


if __name__ == "__main__":
    main()
