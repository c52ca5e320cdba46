"""Bounded resources (issue 42): header, body and idle timeouts, `Expect: 100-continue`, an early
413, enveloped answers to malformed HTTP, long-polls that end with their client, a listener at its
connection limit, bounded JSON bodies, and project/tenant id syntax. Raw sockets, as a slow or
broken client talks. docs/security.md, "Resources"."""
import json
import os
import socket
import subprocess
import threading
import time

import pytest
import requests

from conftest import BINARY, PROJECT, Daemon, error_message, free_port

LIMITS = {"header_timeout_seconds": 1, "body_timeout_seconds": 1, "idle_timeout_seconds": 1,
          "max_body_bytes": 100000}
SIGN_UP = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"


@pytest.fixture
def strict(tmp_path):
    config = tmp_path / "authemu.yaml"
    config.write_text("".join(f"{key}: {value}\n" for key, value in LIMITS.items()))
    daemon = Daemon(tmp_path, extra=["--config", str(config)]).start()
    yield daemon
    daemon.stop()


def connect(daemon, first=b""):
    sock = socket.create_connection(("127.0.0.1", daemon.port), timeout=15)
    if first:
        sock.sendall(first)
    return sock


def read_until_closed(sock):
    """Everything the daemon sends until it closes the connection (a socket timeout fails)."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    sock.close()
    return received


def answer(raw):
    """(status, headers, JSON body) of one HTTP/1.1 answer."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, json.loads(body)


@pytest.mark.parametrize("first", [
    b"",  # connected, silent
    b"GET /readyz HTTP/1.1\r\nHost: localhost\r\n",  # a head that never ends
    b"POST " + SIGN_UP.encode() + b" HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
], ids=["silent", "endless-head", "endless-body"])
def test_a_slow_client_is_cut_off_at_its_timeout(strict, first):
    assert read_until_closed(connect(strict, first)) == b""
    assert requests.get(strict.base + "/readyz", timeout=10).status_code == 200


def test_an_idle_keep_alive_connection_closes_after_its_answer(strict):
    raw = read_until_closed(connect(strict, b"GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n"))
    assert raw.startswith(b"HTTP/1.1 200 OK\r\n") and raw.endswith(b'{"status":"ready"}')


def test_expect_100_continue_is_answered_before_the_body(strict):
    body = json.dumps({"email": "expect@example.com", "password": "secret123"}).encode()
    sock = connect(strict, b"POST " + SIGN_UP.encode() + b" HTTP/1.1\r\nHost: localhost\r\n"
                   b"Content-Type: application/json\r\nExpect: 100-continue\r\n"
                   b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n")
    assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
    sock.sendall(body)
    status, _, reply = answer(read_until_closed(sock))
    assert (status, reply["email"]) == (200, "expect@example.com")


@pytest.mark.parametrize("expect", [True, False])
def test_an_over_limit_content_length_is_refused_before_the_body(strict, expect):
    sock = connect(strict, b"POST " + SIGN_UP.encode() + b" HTTP/1.1\r\nHost: localhost\r\n"
                   + (b"Expect: 100-continue\r\n" if expect else b"")
                   + b"Content-Type: application/json\r\nContent-Length: 100001\r\n\r\n")
    # No body byte is sent: the answer comes from the head alone.
    head = sock.recv(65536)
    status, headers, reply = answer(head)
    assert (status, headers["connection"]) == (413, "close")
    assert reply["error"]["code"] == 413
    assert (reply["error"]["message"], reply["error"]["status"]) == (
        "The request body exceeds the configured limit.", "FAILED_PRECONDITION")
    sock.close()


@pytest.mark.parametrize("request_bytes,status,message", [
    (b"GET /" + b"a" * 90000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n", 431,
     "INVALID_HTTP_REQUEST : The request line and headers exceed 80 KB."),
    (b"BREW / HTTP/1.1\r\nHost: localhost\r\n\r\n", 400,
     "INVALID_HTTP_REQUEST : The request is not valid HTTP/1.1: an unknown method."),
    (b"POST " + SIGN_UP.encode() + b" HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400,
     "INVALID_HTTP_REQUEST : The request is not valid HTTP/1.1: its framing (Content-Length with "
     "Transfer-Encoding, or a malformed chunk)."),
    (b"POST " + SIGN_UP.encode() + b" HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", 400,
     "INVALID_HTTP_REQUEST : The request is not valid HTTP/1.1: an invalid chunk size."),
    (b"POST " + SIGN_UP.encode() + b" HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}XX\r\n0\r\n\r\n", 400,
     "INVALID_HTTP_REQUEST : The request is not valid HTTP/1.1: its framing (Content-Length with "
     "Transfer-Encoding, or a malformed chunk)."),
], ids=["80KB-line", "unknown-method", "CL+TE", "chunk-size", "chunk-end"])
def test_malformed_http_gets_an_enveloped_answer(strict, request_bytes, status, message):
    got, headers, reply = answer(read_until_closed(connect(strict, request_bytes)))
    assert (got, headers["connection"], headers["content-type"]) == (status, "close", "application/json; charset=utf-8")
    assert reply["error"]["code"] == status
    assert reply["error"]["message"] == message


def open_descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def wait_for(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met"
        time.sleep(0.02)


def held_by_daemon(port, client_ports):
    """The daemon's sockets to these clients still open: ESTABLISHED or CLOSE_WAIT (the client
    closed, the daemon not yet), from /proc/net/tcp."""
    held = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in open(table).read().splitlines()[1:]:
            fields = line.split()
            local, remote, state = int(fields[1].split(":")[1], 16), int(fields[2].split(":")[1], 16), fields[3]
            held += local == port and remote in client_ports and state in ("01", "08")
    return held


def test_a_long_poll_ends_when_its_client_leaves(daemon):
    path = f"/emulator/v1/projects/{PROJECT}/smsMessages?phoneNumber=%2B15555550177&wait=25"
    polls = [connect(daemon, f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode()) for _ in range(40)]
    ports = {poll.getsockname()[1] for poll in polls}
    wait_for(lambda: held_by_daemon(daemon.port, ports) == 40)
    for poll in polls:
        poll.close()
    # Well before the 25 s wait: the daemon closes every departed client's socket.
    wait_for(lambda: held_by_daemon(daemon.port, ports) == 0, seconds=10)


def capped_daemon(tmp_path, port):
    """A daemon limited to 160 open files: each loopback listener keeps at most 48 connections."""
    log = open(tmp_path / "authemu.log", "wb")
    return subprocess.Popen(["prlimit", "--nofile=160:160", BINARY, "serve", "--port", str(port), "--ephemeral",
                             "--project", PROJECT], stdout=log, stderr=subprocess.STDOUT)


def tricklers(port, stop, count=120):
    """Clients that trickle a head a byte every 0.2 s and reconnect when cut off, until `stop`."""
    def trickle():
        head = b"GET /readyz HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 200
        while not stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
                    for byte in head:
                        if stop.is_set():
                            break
                        sock.sendall(bytes([byte]))
                        time.sleep(0.2)
            except OSError:
                time.sleep(0.05)
    return [threading.Thread(target=trickle, daemon=True) for _ in range(count)]


def test_at_its_connection_limit_the_daemon_does_not_spin_and_readyz_answers(tmp_path):
    """160 open files: each of the two loopback listeners keeps at most (160 - 64) / 2 = 48
    connections; 150 silent ones wait in the backlog, idle ones are closed to make room."""
    port = free_port()
    proc = capped_daemon(tmp_path, port)
    flood = []
    try:
        wait_for(lambda: subprocess.run(["curl", "-sf", f"http://127.0.0.1:{port}/readyz"],
                                        capture_output=True).returncode == 0)
        ticks = os.sysconf("SC_CLK_TCK")

        def cpu():
            fields = open(f"/proc/{proc.pid}/stat").read().split(")")[-1].split()
            return (int(fields[11]) + int(fields[12])) / ticks

        flood = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(150)]
        started, used = time.monotonic(), cpu()
        ready = requests.get(f"http://127.0.0.1:{port}/readyz", timeout=30)
        assert (ready.status_code, ready.json()) == (200, {"status": "ready"})
        assert open_descriptors(proc.pid) < 160
        # Spinning on EMFILE burns a whole core; waiting costs next to nothing.
        assert cpu() - used < 0.5 * (time.monotonic() - started) + 0.2
        assert proc.poll() is None
    finally:
        for sock in flood:
            sock.close()
        proc.terminate()
        proc.wait(timeout=20)


def test_at_its_connection_limit_trickling_heads_make_room_for_readyz(tmp_path):
    """120 clients trickle a head a byte at a time and reconnect when cut off, against a listener
    that keeps 48: while full, a head still under way after half a second is closed (a trickle cannot
    hold its slot for the 10 s header timeout, nor restart it with its first byte), so /readyz
    is answered well within the header timeout."""
    port = free_port()
    proc = capped_daemon(tmp_path, port)
    stop = threading.Event()
    threads = tricklers(port, stop)
    try:
        wait_for(lambda: subprocess.run(["curl", "-sf", f"http://127.0.0.1:{port}/readyz"],
                                        capture_output=True).returncode == 0)
        for thread in threads:
            thread.start()
        time.sleep(1.5)  # the trickles fill the listener: what is measured is the state under them
        for _ in range(3):
            ready = requests.get(f"http://127.0.0.1:{port}/readyz", timeout=5)
            assert (ready.status_code, ready.json()) == (200, {"status": "ready"})
        assert proc.poll() is None
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=5)
        proc.terminate()
        proc.wait(timeout=20)


def test_at_its_connection_limit_a_client_at_work_keeps_its_connection(tmp_path):
    """While trickles keep the listener full, a keep-alive client that rests 50 ms between requests
    is not the one closed: all 60 requests are answered on its one connection (closing idle ones at
    once cut it about one rest in ten, and reset the request racing the close)."""
    port = free_port()
    proc = capped_daemon(tmp_path, port)
    stop = threading.Event()
    threads = tricklers(port, stop)
    try:
        wait_for(lambda: subprocess.run(["curl", "-sf", f"http://127.0.0.1:{port}/readyz"],
                                        capture_output=True).returncode == 0)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as worker:
            reader = worker.makefile("rb")
            for thread in threads:
                thread.start()
            # About 1.5 s while the trickles fill the listener, then 1.5 s while they keep it full.
            for index in range(60):
                worker.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
                status = reader.readline()
                assert status == b"HTTP/1.1 200 OK\r\n", f"request {index}: {status!r}"
                length = 0
                while (line := reader.readline()) != b"\r\n":
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                reader.read(length)
                time.sleep(0.05)
        full = requests.get(f"http://127.0.0.1:{port}/readyz", timeout=5)
        assert full.status_code == 200
        assert proc.poll() is None
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=5)
        proc.terminate()
        proc.wait(timeout=20)


def test_an_answer_its_client_does_not_read_is_dropped_after_the_idle_timeout(tmp_path):
    """Pipelined downloads that the client never reads fill the socket; the daemon holds them for
    the idle timeout (1 s here), then closes the connection and frees the answer."""
    config = tmp_path / "authemu.yaml"
    config.write_text("idle_timeout_seconds: 1\n")
    strict = Daemon(tmp_path, extra=["--config", str(config)]).start()
    try:
        unread_answer_is_dropped(strict)
    finally:
        strict.stop()


def unread_answer_is_dropped(strict):
    api_users = [{"localId": f"u{index:04d}", "displayName": "n" * 2000} for index in range(1000)]
    created = requests.post(f"{strict.base}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchCreate",
                            headers={"Authorization": "Bearer owner"}, json={"users": api_users}, timeout=30)
    assert created.status_code == 200 and "error" not in created.json()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", strict.port))
    download = (f"GET /identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchGet?maxResults=1000 "
                "HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer owner\r\n\r\n").encode()
    sock.sendall(download * 4)
    port = sock.getsockname()[1]
    wait_for(lambda: held_by_daemon(strict.port, {port}) == 1)
    wait_for(lambda: held_by_daemon(strict.port, {port}) == 0, seconds=10)
    assert requests.get(strict.base + "/readyz", timeout=5).status_code == 200
    sock.close()


def test_a_body_of_too_many_json_values_is_refused_before_it_is_parsed(api):
    body = '{"displayName":"x","unknown":[' + ",".join(["0"] * 250000) + "]}"
    refused = requests.post(api.base + SIGN_UP, data=body, headers={"Content-Type": "application/json"}, timeout=30)
    assert (refused.status_code, error_message(refused)) == (
        400, "Invalid JSON payload received. The body holds more than 200000 values.")


@pytest.mark.parametrize("path,message", [
    (f"/emulator/v1/projects/a%2Fb/oobCodes",
     "INVALID_PROJECT_ID : A project id is 1 to 100 letters, digits, '-', '_', '.' or ':' (got \"a%2Fb\")."),
    (f"/emulator/v1/projects/a%00b/oobCodes",
     "INVALID_PROJECT_ID : A project id is 1 to 100 letters, digits, '-', '_', '.' or ':' (got \"a%00b\")."),
    (f"/emulator/v1/projects/{PROJECT}/tenants/t%20x/oobCodes",
     "INVALID_TENANT_ID : A tenant id is 1 to 100 letters, digits, '-', '_' or '.' (got \"t%20x\")."),
], ids=["slash", "nul", "space"])
def test_project_and_tenant_ids_outside_production_syntax_are_refused(api, path, message):
    refused = requests.get(api.base + path, timeout=10)
    assert (refused.status_code, error_message(refused)) == (400, message)


def test_ids_of_production_and_test_suites_are_accepted(api):
    for project in ("my-app-1a2b3", "example.com:app", "TestProject", "demo_project"):
        assert requests.get(f"{api.base}/emulator/v1/projects/{project}/oobCodes", timeout=10).status_code == 200


@pytest.mark.parametrize("key,value", [("header_timeout_seconds", 0), ("idle_timeout_seconds", "soon"),
                                       ("max_connections", 3)])
def test_a_bad_limit_in_the_config_file_stops_start_up_naming_the_key(tmp_path, key, value):
    config = tmp_path / "authemu.yaml"
    config.write_text(f"{key}: {value}\n")
    result = subprocess.run([BINARY, "serve", "--ephemeral", "--port", "0", "--config", str(config)],
                            capture_output=True, text=True, timeout=20)
    assert result.returncode != 0
    assert f"key '{key}' must be an integer from" in result.stderr


def unread_by_daemon(port, client_ports):
    """Bytes these clients sent that the daemon has not read yet (rx_queue, /proc/net/tcp)."""
    waiting = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in open(table).read().splitlines()[1:]:
            fields = line.split()
            local, remote = int(fields[1].split(":")[1], 16), int(fields[2].split(":")[1], 16)
            if local == port and remote in client_ports:
                waiting += int(fields[4].split(":")[1], 16)
    return waiting


def content_length(answer):
    head = answer.split(b"\r\n\r\n", 1)[0].lower()
    return int(head.split(b"content-length:")[1].split(b"\r\n")[0])


def body_under_way(port, length, sent):
    """A connection that sends a sign-up head for `length` bytes of body and only `sent` of them."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall((f"POST /identitytoolkit.googleapis.com/v1/accounts:signUp?key=k HTTP/1.1\r\nHost: localhost\r\n"
                  f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n").encode())
    sock.sendall(b'{"displayName":"' + b"a" * (sent - 16))
    return sock


def test_bodies_under_way_over_their_budget_are_refused_and_cut_off(tmp_path):
    """Clients that send most of a big body and stop hold it in the daemon's memory. Past
    `max_pending_body_bytes` over all connections (1 MiB here) a body over 64 KiB gets an enveloped
    503 (the rest of it is dropped, and the connection closes at its end), the bodies long under way are cut off within seconds (not held
    for the 60 s body timeout), and a small body is answered throughout."""
    config = tmp_path / "authemu.yaml"
    config.write_text("max_pending_body_bytes: 1048576\n")
    daemon = Daemon(tmp_path, extra=["--config", str(config)]).start()
    try:
        held = [body_under_way(daemon.port, 600_000, 500_000) for _ in range(2)]
        ports = {sock.getsockname()[1] for sock in held}
        wait_for(lambda: unread_by_daemon(daemon.port, ports) == 0)
        small = requests.post(f"{daemon.base}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
                              json={"email": "small@example.com", "password": "secret123"}, timeout=10)
        assert small.status_code == 200
        refused = body_under_way(daemon.port, 300_000, 200_000)
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer.split(b"\r\n\r\n", 1)[1]) < content_length(answer):
            answer += refused.recv(65536)
        head, body = answer.split(b"\r\n\r\n", 1)
        assert head.split(b"\r\n")[0] == b"HTTP/1.1 503 Service Unavailable"
        assert b"connection: close" in head.lower()
        message = "Too many request bodies are under way (max_pending_body_bytes); send this one again."
        assert json.loads(body) == {"error": {"code": 503, "message": message, "status": "UNAVAILABLE",
                                              "errors": [{"message": message, "reason": "backendError"}]}}
        # Without the cut-off they would be held for the body timeout, 60 s.
        wait_for(lambda: held_by_daemon(daemon.port, ports) == 0, seconds=5)
        for sock in [*held, refused]:
            sock.close()
        whole = requests.post(f"{daemon.base}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
                              json={"email": "big@example.com", "password": "secret123", "displayName": "a" * 300_000},
                              timeout=10)
        assert whole.status_code == 400
        assert whole.json()["error"]["message"].startswith("INVALID_DISPLAY_NAME")
    finally:
        daemon.stop()


def test_a_body_that_stops_holds_no_turn_of_the_bulk_gate(tmp_path):
    """Bulk work (listings, downloads, any big body) goes a few at a time; a request's body is
    read before it takes its turn, so clients that send part of a body to a bulk route, or part of
    a big body, and stop hold nothing: a download is answered at once, not after the 60 s body
    timeout."""
    daemon = Daemon(tmp_path).start()
    try:
        api = "/identitytoolkit.googleapis.com/v1"
        held = []
        for path, length in ((f"{api}/projects/{PROJECT}/accounts:query", 100), (f"{api}/accounts:lookup?key=k", 200_000)):
            for _ in range(4):
                sock = socket.create_connection(("127.0.0.1", daemon.port), timeout=10)
                sock.sendall((f"POST {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer owner\r\n"
                              f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n{{").encode())
                held.append(sock)
        download = requests.get(f"{daemon.base}{api}/projects/{PROJECT}/accounts:batchGet",
                                headers={"Authorization": "Bearer owner"}, timeout=5)
        assert (download.status_code, download.json()) == (200, {"kind": "identitytoolkit#DownloadAccountResponse"})
        for sock in held:
            sock.close()
    finally:
        daemon.stop()


def test_unread_answers_over_the_budget_are_dropped_before_the_idle_timeout(tmp_path):
    """Connections that pipeline downloads and never read them hold their answers; past
    `max_unread_answer_bytes` over all of them (1 MiB here) they are closed within seconds, long
    before the idle timeout (60 s)."""
    config = tmp_path / "authemu.yaml"
    config.write_text("max_unread_answer_bytes: 1048576\n")
    daemon = Daemon(tmp_path, extra=["--config", str(config)]).start()
    try:
        users = [{"localId": f"u{index:04d}", "displayName": "n" * 2000} for index in range(1000)]
        created = requests.post(f"{daemon.base}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchCreate",
                                headers={"Authorization": "Bearer owner"}, json={"users": users}, timeout=30)
        assert created.status_code == 200 and "error" not in created.json()
        download = (f"GET /identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchGet?maxResults=1000 "
                    "HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer owner\r\n\r\n").encode()
        sockets = []
        for _ in range(3):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", daemon.port))
            sock.sendall(download * 2)
            sockets.append(sock)
        ports = {sock.getsockname()[1] for sock in sockets}
        wait_for(lambda: held_by_daemon(daemon.port, ports) == 3)
        # Without the budget they would be held for the idle timeout, 60 s.
        wait_for(lambda: held_by_daemon(daemon.port, ports) == 0, seconds=20)
        assert requests.get(daemon.base + "/readyz", timeout=5).status_code == 200
        for sock in sockets:
            sock.close()
    finally:
        daemon.stop()
