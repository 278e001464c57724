"""Starts the real Rewind API (built: apps/api/dist/main.js) on SQLite or on a fresh PostgreSQL database."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Dict, List, Optional, Tuple

REPO = Path(__file__).resolve().parents[3]
MAIN = REPO / "apps" / "api" / "dist" / "main.js"
ADMIN_URL = os.environ.get("REWIND_TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _psql(sql: str) -> None:
    subprocess.run(["psql", ADMIN_URL, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], check=True, capture_output=True)


class TcpProxy:
    """A real TCP hop that a test can cut (connections refused and dropped) or make lose one answer."""

    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self.open = True
        self.drop_next_answer = False
        self.dropped = 0
        self._sockets: List[socket.socket] = []
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            if not self.open:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            drop = self.drop_next_answer
            self.drop_next_answer = False
            with self._lock:
                self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, drop), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, drop_answer: bool) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if drop_answer:
                    # The server answered (so it applied the request); the client never hears it.
                    self.dropped += 1
                    break
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.close()
            except OSError:
                pass

    def cut(self) -> None:
        self.open = False
        with self._lock:
            for s in self._sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                    s.close()
                except OSError:
                    pass
            self._sockets.clear()

    def restore(self) -> None:
        self.open = True

    def close(self) -> None:
        self.cut()
        self._server.close()


class RewindServer:
    """The real API in its own process, on the given store; ``database_port`` may route PostgreSQL through a proxy."""

    def __init__(self, store: str, database_via: Optional[int] = None) -> None:
        if not MAIN.exists():
            raise RuntimeError(f"{MAIN} is missing: run `npm run build` in {REPO} first.")
        self.store = store
        self.port = free_port()
        self.admin_key = f"py-test-{secrets.token_hex(12)}"
        self.data_dir = tempfile.mkdtemp(prefix="rewind-py-")
        self.database: Optional[str] = None
        self.database_url: Optional[str] = None
        env = {**os.environ, "PORT": str(self.port), "HOST": "127.0.0.1", "REWIND_DATA_DIR": self.data_dir, "REWIND_ADMIN_KEY": self.admin_key, "REWIND_LOG_LEVEL": "error",
               # The tests' compensators listen on this machine: let compensations reach loopback.
               "REWIND_EGRESS_ALLOW": "127.0.0.0/8,::1"}
        if store == "postgres":
            self.database = f"rewind_py_{secrets.token_hex(6)}"
            _psql(f"CREATE DATABASE {self.database}")
            url = urllib.parse.urlsplit(ADMIN_URL)
            netloc = url.netloc if database_via is None else url.netloc.rsplit("@", 1)[0] + f"@127.0.0.1:{database_via}"
            self.database_url = urllib.parse.urlunsplit((url.scheme, netloc, f"/{self.database}", url.query, ""))
            env.update({"REWIND_STORE": "postgres", "DATABASE_URL": self.database_url})
        self.process = subprocess.Popen(["node", str(MAIN)], env=env, cwd=str(REPO), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._wait_until_up()

    def _wait_until_up(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                output = self.process.stdout.read().decode() if self.process.stdout else ""
                raise RuntimeError(f"the API exited at start: {output}")
            try:
                with urllib.request.urlopen(self.base_url + "/health", timeout=1) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"the API did not answer on {self.base_url} within {timeout} s")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)
        if self.database:
            _psql(f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)")


class Compensator:
    """A real HTTP compensator (the travel service's cancel endpoint) answering with a chosen status."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.received: List[Tuple[str, Dict[str, str], str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("content-length", "0"))).decode()
                outer.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                payload = json.dumps({"cancelled": outer.status < 300}).encode()
                self.send_response(outer.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
