#!/usr/bin/env python3
"""Issue 54's cases replayed against one binary: work of a client's choosing must not stall other
requests, and state a client creates must stay bounded. Each case runs on a daemon of its own while
one client signs up unrelated accounts in a loop; it reports that client's p50/p99 (only 2xx
answers count; the others are counted), the daemon's peak RSS growth over the case, and how long
/readyz took at the end.

    bench/limits.py [--authemu PATH] [--seconds 5] [--case NAME ...]

Cases: slow-hash (8 clients guess passwords of an imported bcrypt cost-12 user), saml (64 KB SAML
documents to signInWithIdp), redirect-events (40 posts of 15 MB), big-fields (11 sign-ups with a
15 MB display name), unread (200 connections pipeline a 1,000-user download and never read),
projects (20,000 project ids, one SMS code each), trickle (120 clients trickle heads at a
listener capped by 160 open files), held-bodies (100 connections send 15 MiB of a sign-up body and
stop, reconnecting when cut off), lookups (8 clients look up 150,000 ids a request)."""
import argparse
import base64
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import requests

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
API = "/identitytoolkit.googleapis.com/v1"
ADMIN = {"Authorization": "Bearer owner"}


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Daemon:
    def __init__(self, binary, prefix=(), config=""):
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="authemu-limits-")
        args = [*prefix, binary, "serve", "--port", str(self.port), "--ephemeral", "--project", "bench"]
        if config:
            path = os.path.join(self.dir, "authemu.yaml")
            with open(path, "w") as file:
                file.write(config)
            args += ["--config", path]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if requests.get(self.base + "/readyz", timeout=1).status_code == 200:
                    return
            except requests.RequestException:
                time.sleep(0.05)
        raise RuntimeError("the daemon did not start")

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        subprocess.run(["rm", "-rf", self.dir])


def sign_ups(daemon, stop, latencies, failures):
    """Unrelated sign-ups, one at a time, while the case runs."""
    session = requests.Session()
    index = 0
    while not stop.is_set():
        index += 1
        started = time.monotonic()
        try:
            answer = session.post(f"{daemon.base}{API}/accounts:signUp", params={"key": "k"}, timeout=60,
                                  json={"email": f"calm{index}@example.com", "password": "secret123"})
            if answer.status_code == 200:
                latencies.append(time.monotonic() - started)
            else:
                failures.append(answer.status_code)
        except requests.RequestException as error:
            failures.append(type(error).__name__)


def slow_hash(daemon, stop):
    bcrypt = base64.b64encode(b"$2a$12$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW").decode()
    requests.post(f"{daemon.base}{API}/projects/bench/accounts:batchCreate", headers=ADMIN, timeout=30,
                  json={"hashAlgorithm": "BCRYPT", "users": [
                      {"localId": f"h{n}", "email": f"h{n}@example.com", "passwordHash": bcrypt} for n in range(8)]})

    def guess(n):
        session = requests.Session()
        while not stop.is_set():
            try:
                session.post(f"{daemon.base}{API}/accounts:signInWithPassword", params={"key": "k"}, timeout=60,
                             json={"email": f"h{n}@example.com", "password": "wrong"})
            except requests.RequestException:
                pass
    return [threading.Thread(target=guess, args=(n,)) for n in range(8)]


def saml(daemon, stop):
    attributes = "".join(f'<saml:Attribute Name="a{n}"><saml:AttributeValue>v</saml:AttributeValue>'
                         f"</saml:Attribute>" for n in range(800))
    document = (f'<samlp:Response xmlns:samlp="p" xmlns:saml="a"><saml:Assertion><saml:Subject><saml:NameID>'
                f"s@example.com</saml:NameID></saml:Subject><saml:AttributeStatement>{attributes}"
                f"<saml:Attribute Name=\"open\">" + "<saml:Attribute Name=\"x\">" * 300 +
                "</saml:AttributeStatement></saml:Assertion></samlp:Response>")[:64 * 1024]
    posted = base64.b64encode(document.encode()).decode()

    def post():
        session = requests.Session()
        while not stop.is_set():
            try:
                session.post(f"{daemon.base}{API}/accounts:signInWithIdp", params={"key": "k"}, timeout=120,
                             json={"requestUri": "http://localhost", "returnSecureToken": True,
                                   "postBody": "providerId=saml.bench&SAMLResponse=" + posted.replace("+", "%2B")})
            except requests.RequestException:
                pass
    return [threading.Thread(target=post) for _ in range(2)]


def redirect_events(daemon, stop):
    body = {"apiKey": "k", "appName": "a", "appOrigin": "http://localhost", "eventId": "e", "sessionId": "s",
            "authEvent": {"type": "signInViaRedirect", "urlResponse": "x" * (15 << 20)}}

    def post():
        for n in range(40):
            if stop.is_set():
                return
            body["eventId"] = f"e{n}"
            try:
                requests.post(f"{daemon.base}/emulator/auth/redirectEvents", json=body, timeout=60)
            except requests.RequestException:
                pass
    return [threading.Thread(target=post)]


def big_fields(daemon, stop):
    def post():
        for n in range(11):
            if stop.is_set():
                return
            try:
                requests.post(f"{daemon.base}{API}/accounts:signUp", params={"key": "k"}, timeout=120,
                              json={"email": f"big{n}@example.com", "password": "secret123",
                                    "displayName": "d" * (15 << 20)})
            except requests.RequestException:
                pass
    return [threading.Thread(target=post)]


def unread(daemon, stop):
    users = [{"localId": f"u{n:04d}", "displayName": "n" * 1800} for n in range(1000)]
    requests.post(f"{daemon.base}{API}/projects/bench/accounts:batchCreate", headers=ADMIN, json={"users": users},
                  timeout=60)
    download = (f"GET {API}/projects/bench/accounts:batchGet?maxResults=1000 HTTP/1.1\r\nHost: localhost\r\n"
                "Authorization: Bearer owner\r\n\r\n").encode()
    held = []

    def open_all():
        for _ in range(200):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", daemon.port))
            sock.sendall(download * 4)
            held.append(sock)
        stop.wait()
        for sock in held:
            sock.close()
    return [threading.Thread(target=open_all)]


def projects(daemon, stop):
    def send(offset):
        session = requests.Session()
        for n in range(offset, 20000, 4):
            if stop.is_set():
                return
            try:
                session.post(f"{daemon.base}{API}/accounts:sendVerificationCode", headers=ADMIN, timeout=30,
                             json={"phoneNumber": "+15555550100", "targetProjectId": f"p-{n}"})
            except requests.RequestException:
                pass
    return [threading.Thread(target=send, args=(offset,)) for offset in range(4)]


def held_bodies(daemon, stop):
    head = (f"POST {API}/accounts:signUp?key=k HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            f"Content-Length: {16 << 20}\r\n\r\n").encode()
    body = b'{"displayName":"' + b"a" * ((15 << 20) - 16)

    def hold():
        while not stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", daemon.port), timeout=1) as sock:
                    sock.sendall(head)
                    sock.sendall(body)
                    while not stop.is_set():
                        try:
                            if not sock.recv(65536):
                                break
                        except socket.timeout:
                            continue
            except OSError:
                time.sleep(0.05)
    return [threading.Thread(target=hold) for _ in range(100)]


def lookups(daemon, stop):
    body = ('{"localId":[' + ",".join(f'"u{index}"' for index in range(150_000)) + "]}").encode()
    headers = {**ADMIN, "Content-Type": "application/json"}

    def send():
        session = requests.Session()
        while not stop.is_set():
            try:
                session.post(f"{daemon.base}{API}/projects/bench/accounts:lookup", headers=headers, data=body,
                             timeout=30)
            except requests.RequestException:
                pass
    return [threading.Thread(target=send) for _ in range(8)]


def trickle(daemon, stop):
    def slow():
        head = b"GET /readyz HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 200
        while not stop.is_set():
            try:
                sock = socket.create_connection(("127.0.0.1", daemon.port), timeout=2)
                for byte in head:
                    if stop.is_set():
                        break
                    sock.sendall(bytes([byte]))
                    time.sleep(0.2)
                sock.close()
            except OSError:
                time.sleep(0.05)
    return [threading.Thread(target=slow) for _ in range(120)]


CASES = {"slow-hash": slow_hash, "saml": saml, "redirect-events": redirect_events, "big-fields": big_fields,
         "unread": unread, "projects": projects, "trickle": trickle, "held-bodies": held_bodies,
         "lookups": lookups}


def run(binary, name, seconds):
    prefix = ["prlimit", "--nofile=160:160"] if name == "trickle" else []
    daemon = Daemon(binary, prefix)
    try:
        start_rss = peak = daemon.rss_kib()
        stop, latencies, failures = threading.Event(), [], []
        load = CASES[name](daemon, stop)
        calm = threading.Thread(target=sign_ups, args=(daemon, stop, latencies, failures))
        for thread in [*load, calm]:
            thread.start()
        ends = time.monotonic() + seconds
        while time.monotonic() < ends:
            peak = max(peak, daemon.rss_kib())
            time.sleep(0.1)
        started = time.monotonic()
        try:
            ready = requests.get(daemon.base + "/readyz", timeout=30).status_code
        except requests.RequestException:
            ready = "no answer"
        readyz = time.monotonic() - started
        stop.set()
        for thread in [*load, calm]:
            thread.join(timeout=60)
        ordered = sorted(latencies)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else float("nan")
        print(f"| {name} | {len(ordered)} | {len(failures)} {sorted(set(map(str, failures)))} | "
              f"{statistics.median(ordered) * 1000 if ordered else float('nan'):.1f} | {p99 * 1000:.1f} | "
              f"{(peak - start_rss) / 1024:.0f} | {ready} in {readyz * 1000:.0f} ms |", flush=True)
    finally:
        daemon.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--authemu", default=os.path.join(ROOT, ".build/release/authemu"))
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--case", action="append", choices=sorted(CASES))
    options = parser.parse_args()
    print(f"{options.authemu}: {subprocess.run([options.authemu, '--version'], capture_output=True, text=True).stdout.strip()}")
    print("| case | unrelated sign-ups (2xx) | not 2xx | p50 ms | p99 ms | peak RSS growth MiB | /readyz at the end |")
    print("|---|---|---|---|---|---|---|")
    for name in options.case or list(CASES):
        run(options.authemu, name, options.seconds)


if __name__ == "__main__":
    sys.exit(main())
