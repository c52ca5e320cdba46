"""systemd integration against the real binary: sd_notify on a test socket, watchdog, reload, stop."""
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request

import pytest
import requests

from conftest import BINARY, PROJECT, free_port


class NotifySocket:
    """A datagram socket standing in for systemd's NOTIFY_SOCKET; records (time, message)."""

    def __init__(self, tmp_path):
        self.path = str(tmp_path / "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.2)
        self.messages = []
        self.running = True
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while self.running:
            try:
                data = self.sock.recv(4096).decode()
                self.messages.append((time.monotonic(), data))
            except socket.timeout:
                continue
            except OSError:
                return

    def wait_for(self, text, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for stamp, message in self.messages:
                if text in message.split("\n"):
                    return stamp, message
            time.sleep(0.02)
        raise AssertionError(f"{text!r} never arrived; got {self.messages}")

    def close(self):
        self.running = False
        self.sock.close()


def start(tmp_path, notify, extra=(), env_extra=None):
    port = free_port()
    env = {**os.environ, "NOTIFY_SOCKET": notify.path, **(env_extra or {})}
    proc = subprocess.Popen([BINARY, "serve", "--port", str(port), "--data", str(tmp_path / "s.sqlite"),
                             "--project", PROJECT, *extra], env=env,
                            stdout=open(tmp_path / "out.log", "ab"), stderr=subprocess.STDOUT)
    return proc, port


def test_ready_only_once_listening_then_stopping_on_sigterm(tmp_path):
    notify = NotifySocket(tmp_path)
    proc, port = start(tmp_path, notify)
    try:
        notify.wait_for("READY=1")
        # READY=1 means the port already accepts: no retry needed.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as response:
            assert response.status == 200
        ready = notify.wait_for("READY=1")[1].split("\n")
        assert ready == ["READY=1", f"STATUS=Listening on 127.0.0.1:{port}, project {PROJECT}"]
        # The account count follows READY=1 (counting a million accounts must not delay start-up).
        notify.wait_for(f"STATUS=Listening on 127.0.0.1:{port}, project {PROJECT}, 0 accounts")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        notify.wait_for("STOPPING=1")
    finally:
        if proc.poll() is None:
            proc.kill()
        notify.close()


def test_watchdog_cadence(tmp_path):
    notify = NotifySocket(tmp_path)
    proc, port = start(tmp_path, notify, env_extra={"WATCHDOG_USEC": "1000000"})
    try:
        notify.wait_for("READY=1")
        time.sleep(2.4)  # observe the real cadence: the point of the test is the wall-clock interval
        pings = [stamp for stamp, message in notify.messages if "WATCHDOG=1" in message.split("\n")]
        assert len(pings) >= 3, notify.messages
        gaps = [b - a for a, b in zip(pings, pings[1:])]
        assert all(0.3 < gap < 0.9 for gap in gaps), gaps
    finally:
        proc.kill()
        notify.close()


def config_with_test_number(code, extra=""):
    """A config file whose project has +15555550190 as a test number with `code`."""
    return (f"projects:\n  {PROJECT}:\n    config:\n      signIn:\n        phoneNumber:\n"
            f"          testPhoneNumbers: {{'+15555550190': '{code}'}}\n{extra}")


def start_with_config(tmp_path, code):
    """A daemon started from a config file (test number code `code`), with its notify socket."""
    config = tmp_path / "authemu.yaml"
    config.write_text(config_with_test_number(code))
    notify = NotifySocket(tmp_path)
    proc, port = start(tmp_path, notify, extra=["--config", str(config)])
    notify.wait_for("READY=1")
    return config, notify, proc, f"http://127.0.0.1:{port}/identitytoolkit.googleapis.com/v1"


def test_sighup_reloads_test_numbers_and_keeps_old_config_on_bad_file(tmp_path):
    config, notify, proc, base = start_with_config(tmp_path, "111111")
    try:
        config.write_text(config_with_test_number("222222"))
        before = len(notify.messages)
        proc.send_signal(signal.SIGHUP)
        notify.wait_for("RELOADING=1")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any("READY=1" in m for _, m in notify.messages[before + 1:]):
            time.sleep(0.02)
        session = requests.post(f"{base}/accounts:sendVerificationCode", params={"key": "k"},
                                json={"phoneNumber": "+15555550190"}).json()["sessionInfo"]
        signed_in = requests.post(f"{base}/accounts:signInWithPhoneNumber", params={"key": "k"},
                                  json={"sessionInfo": session, "code": "222222"})
        assert signed_in.status_code == 200, signed_in.text

        config.write_text("projects:\n  p:\n    config:\n      mfa: {state: SOMETIMES}\n")
        count = sum("RELOADING=1" in m for _, m in notify.messages)
        proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and sum("RELOADING=1" in m for _, m in notify.messages) == count:
            time.sleep(0.02)
        time.sleep(0.2)
        assert proc.poll() is None
        session = requests.post(f"{base}/accounts:sendVerificationCode", params={"key": "k"},
                                json={"phoneNumber": "+15555550190"}).json()["sessionInfo"]
        still = requests.post(f"{base}/accounts:signInWithPhoneNumber", params={"key": "k"},
                              json={"sessionInfo": session, "code": "222222"})
        assert still.status_code == 200
        assert "was not applied, keeping the running configuration" in (tmp_path / "out.log").read_text()
    finally:
        proc.kill()
        notify.close()


def sighup_ignored(pid):
    """Whether /proc says the process ignores SIGHUP (bit 0 of SigIgn)."""
    with open(f"/proc/{pid}/status") as status:
        line = next(line for line in status if line.startswith("SigIgn:"))
    return int(line.split()[1], 16) & 1 == 1


def test_sighup_during_start_up_is_ignored_not_fatal(tmp_path):
    """SIGHUP is ignored from the process's first instruction (a constructor, before the Swift
    runtime): a burst sent all through start-up leaves the daemon running and then ready."""
    notify = NotifySocket(tmp_path)
    proc, port = start(tmp_path, notify)
    try:
        while not sighup_ignored(proc.pid):
            assert proc.poll() is None
        sent = 0
        while not any("READY=1" in m.split("\n") for _, m in notify.messages):
            assert proc.poll() is None, f"exited {proc.returncode} after {sent} SIGHUPs"
            proc.send_signal(signal.SIGHUP)
            sent += 1
            time.sleep(0.001)
        assert sent > 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as response:
            assert response.status == 200
        proc.send_signal(signal.SIGHUP)
        time.sleep(0.1)
        assert proc.poll() is None
    finally:
        proc.kill()
        notify.close()


def stop_caught(pid, signum):
    """Whether /proc says the process catches the signal (its bit in SigCgt)."""
    with open(f"/proc/{pid}/status") as status:
        line = next(line for line in status if line.startswith("SigCgt:"))
    return int(line.split()[1], 16) >> (signum - 1) & 1 == 1


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_during_start_up_stops_gracefully(tmp_path, signum):
    """SIGTERM / SIGINT are recorded from the first instruction (the same constructor): one sent
    before the service group's handlers exist stops the daemon as a later one would, exit 0 (it
    was killed by the signal: exit -15 / -2)."""
    notify = NotifySocket(tmp_path)
    proc, _ = start(tmp_path, notify)
    try:
        deadline = time.monotonic() + 10
        while not stop_caught(proc.pid, signum):
            assert proc.poll() is None and time.monotonic() < deadline, "the signal is never caught"
        proc.send_signal(signum)
        assert proc.wait(timeout=20) == 0
        assert f"{signal.Signals(signum).name} during start-up: stopping" in (tmp_path / "out.log").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
        notify.close()


def test_a_reload_refused_in_one_part_applies_no_part(tmp_path):
    """One project's change is valid, another's is not: the reload is refused whole, and the valid
    change is not live either."""
    config, notify, proc, base = start_with_config(tmp_path, "111111")
    try:
        config.write_text(config_with_test_number("333333", "  zz-other:\n    config:\n      mfa: {state: SOMETIMES}\n"))
        reload_and_wait(proc, notify)
        for code, status in (("333333", 400), ("111111", 200)):
            session = requests.post(f"{base}/accounts:sendVerificationCode", params={"key": "k"},
                                    json={"phoneNumber": "+15555550190"}).json()["sessionInfo"]
            answer = requests.post(f"{base}/accounts:signInWithPhoneNumber", params={"key": "k"},
                                   json={"sessionInfo": session, "code": code})
            assert answer.status_code == status, answer.text
        log = (tmp_path / "out.log").read_text()
        assert "projects.zz-other.config: " in log
        assert "was not applied, keeping the running configuration" in log
    finally:
        proc.kill()
        notify.close()


def reload_and_wait(proc, notify):
    """SIGHUP, then the READY=1 that follows its RELOADING=1."""
    before = len(notify.messages)
    proc.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        later = [m for _, m in notify.messages[before:]]
        reloading = next((i for i, m in enumerate(later) if "RELOADING=1" in m.split("\n")), None)
        if reloading is not None and any("READY=1" in m.split("\n") for m in later[reloading + 1:]):
            return
        time.sleep(0.02)
    raise AssertionError(f"no RELOADING=1 then READY=1 after SIGHUP: {notify.messages[before:]}")


def test_sighup_replaces_the_sms_region_policy_branch(tmp_path):
    """The file's smsRegionConfig goes through the REST API's write path: one branch replaces the other."""
    config = tmp_path / "authemu.yaml"
    config.write_text(f"projects:\n  {PROJECT}:\n    config:\n      smsRegionConfig:\n"
                      "        allowByDefault: {disallowedRegions: [CA]}\n")
    notify = NotifySocket(tmp_path)
    proc, port = start(tmp_path, notify, extra=["--config", str(config)])
    base = f"http://127.0.0.1:{port}/identitytoolkit.googleapis.com"

    def send(phone):
        return requests.post(f"{base}/v1/accounts:sendVerificationCode", params={"key": "k"},
                             json={"phoneNumber": phone})

    try:
        notify.wait_for("READY=1")
        assert send("+15555550181").status_code == 200
        assert send("+14165550181").json()["error"]["message"].startswith("OPERATION_NOT_ALLOWED")
        config.write_text(f"projects:\n  {PROJECT}:\n    config:\n      smsRegionConfig:\n"
                          "        allowlistOnly: {allowedRegions: [GB]}\n")
        reload_and_wait(proc, notify)
        stored = requests.get(f"{base}/v2/projects/{PROJECT}/config", headers={"Authorization": "Bearer owner"})
        assert stored.json()["smsRegionConfig"] == {"allowlistOnly": {"allowedRegions": ["GB"]}}
        us = send("+15555550182")
        assert (us.status_code, us.json()["error"]["message"]) == (
            400, "OPERATION_NOT_ALLOWED : SMS unable to be sent until this region enabled by the app developer.")
        assert send("+447700900181").status_code == 200
        assert send("+14165550182").status_code == 400
    finally:
        proc.kill()
        notify.close()


def test_sigterm_with_requests_in_flight(tmp_path):
    notify = NotifySocket(tmp_path)
    proc, port = start(tmp_path, notify)
    base = f"http://127.0.0.1:{port}"
    try:
        notify.wait_for("READY=1")
        results = []
        started = threading.Event()

        def long_poll():
            started.set()
            response = requests.get(f"{base}/emulator/v1/projects/{PROJECT}/smsMessages",
                                    params={"wait": 2, "phoneNumber": "+15555550199"})
            results.append(response.status_code)

        threads = [threading.Thread(target=long_poll) for _ in range(4)]
        for thread in threads:
            thread.start()
        started.wait()
        requests.post(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
                      json={"email": "inflight@example.com", "password": "secret123"}).raise_for_status()
        time.sleep(0.3)  # let the long polls reach the server before the signal
        proc.send_signal(signal.SIGTERM)
        for thread in threads:
            thread.join(timeout=15)
        assert results == [200, 200, 200, 200]
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        notify.close()
    out = subprocess.run(["sqlite3", str(tmp_path / "s.sqlite"), "SELECT count(*) FROM users; PRAGMA integrity_check;"],
                         capture_output=True, text=True)
    assert out.stdout.split() == ["1", "ok"]


@pytest.mark.skipif(shutil.which("systemd-socket-activate") is None, reason="needs systemd-socket-activate")
def test_socket_activation(tmp_path):
    port = free_port()
    # Both loopbacks, as deploy/authemu.socket hands them over; each descriptor is served.
    proc = subprocess.Popen(["systemd-socket-activate", "-l", f"127.0.0.1:{port}", "-l", f"[::1]:{port}", BINARY,
                             "serve", "--ephemeral", "--project", PROJECT],
                            stdout=open(tmp_path / "out.log", "ab"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                response = requests.get(f"http://127.0.0.1:{port}/readyz", timeout=2)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline, (tmp_path / "out.log").read_text()
                time.sleep(0.1)
        assert response.status_code == 200
        assert requests.get(f"http://[::1]:{port}/readyz", timeout=5).status_code == 200
        assert "socket activation" in (tmp_path / "out.log").read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)


JOURNAL_SOCKET = "/run/systemd/journal/socket"


@pytest.mark.skipif(os.path.exists(JOURNAL_SOCKET) or os.geteuid() != 0,
                    reason="needs to stand in for journald's socket (absent here, and root to create it)")
def test_journal_entries_carry_sms_fields(tmp_path):
    os.makedirs(os.path.dirname(JOURNAL_SOCKET), exist_ok=True)
    journal = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    journal.bind(JOURNAL_SOCKET)
    journal.settimeout(0.2)
    port = free_port()
    proc = subprocess.Popen([BINARY, "serve", "--ephemeral", "--port", str(port), "--project", PROJECT,
                             "--log-format", "journal"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    entries = []
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                requests.get(f"http://127.0.0.1:{port}/readyz", timeout=1)
                break
            except requests.ConnectionError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        requests.post(f"http://127.0.0.1:{port}/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode",
                      params={"key": "k"}, json={"phoneNumber": "+15555550197"}).raise_for_status()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not any(b"AUTHEMU_EVENT=sms" in e for e in entries):
            try:
                entries.append(journal.recv(65536))
            except socket.timeout:
                pass
    finally:
        proc.kill()
        journal.close()
        os.unlink(JOURNAL_SOCKET)
    sms = [dict(line.split("=", 1) for line in e.decode().split("\n") if "=" in line)
           for e in entries if b"AUTHEMU_EVENT=sms" in e][0]
    assert sms["MESSAGE"].startswith("To verify the phone number +15555550197, use the code ")
    assert sms["AUTHEMU_PHONE"] == "+15555550197"
    assert sms["AUTHEMU_CODE"] == sms["MESSAGE"].split()[-1].rstrip(".")
    assert sms["AUTHEMU_PROJECT"] == PROJECT
    assert sms["PRIORITY"] == "6"
    assert sms["SYSLOG_IDENTIFIER"] == "authemu"


def test_sigterm_while_imported_hash_checks_run_stops_within_the_shutdown_timeout(tmp_path):
    # STANDARD_SCRYPT at the import bound (N·r·p 2^20, 128 MiB): each wrong password costs a check
    # on the slow-check pool. Clients keep the pool busy; SIGTERM must still stop the daemon within
    # shutdown_timeout_seconds (before the bounds, a cost-31 bcrypt check outlived 15 s).
    import base64
    import hashlib

    notify = NotifySocket(tmp_path)
    proc, port = start(tmp_path, notify, env_extra={"AUTHEMU_SHUTDOWN_TIMEOUT_SECONDS": "3"})
    base = f"http://127.0.0.1:{port}/identitytoolkit.googleapis.com/v1"
    admin = {"Authorization": "Bearer owner"}
    try:
        notify.wait_for("READY=1")
        salt = b"pepper"
        digest = hashlib.scrypt(b"right", salt=salt, n=1 << 17, r=8, p=1, dklen=64, maxmem=256 << 20)
        users = [{"localId": f"s{n}", "email": f"s{n}@example.com", "passwordHash": base64.b64encode(digest).decode(),
                  "salt": base64.b64encode(salt).decode()} for n in range(6)]
        imported = requests.post(f"{base}/projects/{PROJECT}/accounts:batchCreate", headers=admin, timeout=30,
                                 json={"hashAlgorithm": "STANDARD_SCRYPT", "memoryCost": 1 << 17, "blockSize": 8,
                                       "parallelization": 1, "dkLen": 64, "users": users})
        assert (imported.status_code, imported.json().get("error")) == (200, None), imported.text
        answered = threading.Event()

        def guess(n):
            for _ in range(3):
                try:
                    reply = requests.post(f"{base}/accounts:signInWithPassword", params={"key": "k"}, timeout=30,
                                          json={"email": f"s{n}@example.com", "password": "wrong"})
                except requests.RequestException:
                    return
                if reply.status_code == 400:
                    answered.set()

        clients = [threading.Thread(target=guess, args=(n,)) for n in range(6)]
        for client in clients:
            client.start()
        assert answered.wait(timeout=30)
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        assert time.monotonic() - signalled < 4.5
        for client in clients:
            client.join(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        notify.close()
