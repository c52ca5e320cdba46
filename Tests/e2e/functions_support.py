"""Stand-ins for firebase-tools' Cloud Functions emulator and Emulator Suite hub, for the auth
event tests: real HTTP servers on loopback that record what reaches them."""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from conftest import free_port


def serve(port, handler):
    """A threaded HTTP server on loopback, serving until `shutdown()`."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def answer(handler, status, document):
    body = json.dumps(document).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class Recorded:
    def __init__(self, method, path, headers, body):
        self.method = method
        self.path = path
        self.headers = headers
        self.raw = body
        self.json = json.loads(body) if body else None
        # The key order as sent (firebase-tools' JSON.stringify keeps its source's order).
        self.keys = [key for key, _ in json.loads(body, object_pairs_hook=lambda pairs: pairs)] if body else []


class FunctionsEmulator:
    """Answers POST …/trigger_multicast as firebase-tools' Functions emulator does (200,
    {"status":"multicast_acknowledged"}), or with `status` when a test says; can stop and start
    again on the same port, as a restarted emulator."""

    def __init__(self, port=None):
        self.port = port or free_port()
        self.received = []
        self.answers = []  # statuses to answer first, then 200
        self.lock = threading.Lock()
        self.server = None

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with owner.lock:
                    status = owner.answers.pop(0) if owner.answers else 200
                    owner.received.append(Recorded("POST", self.path, dict(self.headers), body))
                answer(self, status, {"status": "multicast_acknowledged"} if status == 200 else {})

            def log_message(self, *args):
                pass

        self.server = serve(self.port, Handler)
        return self

    def stop(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def events(self):
        with self.lock:
            return list(self.received)

    def wait_for(self, count, seconds=30):
        """The first `count` requests, once they have arrived (fails after `seconds`)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            got = self.events()
            if len(got) >= count:
                return got
            time.sleep(0.02)
        raise AssertionError(f"{count} event(s) expected, {len(self.events())} arrived: "
                             f"{[e.json for e in self.events()]}")


class Hub:
    """firebase-tools' Emulator Suite hub as other processes see it: `GET /emulators` lists the
    running emulators; `write_locator` writes hub-<project>.json into a folder."""

    def __init__(self, functions_port=None):
        self.port = free_port()
        self.functions_port = functions_port
        self.asked = 0
        self.server = None

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                owner.asked += 1
                emulators = {"hub": {"name": "hub", "host": "127.0.0.1", "port": owner.port}}
                if owner.functions_port:
                    emulators["functions"] = {"name": "functions", "host": "127.0.0.1", "port": owner.functions_port,
                                              "pid": 4242,
                                              "listen": [{"address": "127.0.0.1", "family": "IPv4",
                                                          "port": owner.functions_port}]}
                answer(self, 200 if self.path == "/emulators" else 404, emulators if self.path == "/emulators" else {})

            def log_message(self, *args):
                pass

        self.server = serve(self.port, Handler)
        return self

    def write_locator(self, directory, project):
        locator = {"version": "15.28.1", "origins": [f"http://[::1]:{free_port()}", self.origin], "pid": 4242}
        (directory / f"hub-{project}.json").write_text(json.dumps(locator))

    def stop(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()
