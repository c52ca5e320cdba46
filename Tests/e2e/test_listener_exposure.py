"""What `serve` says about who can reach it (issue 20, a safe start off loopback)."""
import re
import socket

import pytest
import requests

from conftest import Daemon, PROJECT

WARNING = re.compile(r"warning authemu listens on (\S+), not on loopback only: (.*)")


def started(tmp_path, *extra):
    daemon = Daemon(tmp_path, extra=list(extra)).start()
    daemon.stop()
    return daemon.log.read_text()


def export_lines(log):
    return [line for line in log.splitlines() if "export FIREBASE_AUTH_EMULATOR_HOST=" in line]


def test_loopback_listener_is_quiet_and_exports_itself(tmp_path):
    log = started(tmp_path)
    assert WARNING.search(log) is None
    port = re.search(r"export FIREBASE_AUTH_EMULATOR_HOST=127\.0\.0\.1:(\d+)", log).group(1)
    assert export_lines(log) == [f"export FIREBASE_AUTH_EMULATOR_HOST=127.0.0.1:{port}"]


def test_wildcard_listener_warns_and_exports_usable_addresses(tmp_path):
    daemon = Daemon(tmp_path, extra=["--host", "0.0.0.0"]).start()
    try:
        # Reachable on loopback as before, and the admin credential is still the well-known one.
        listed = requests.get(f"{daemon.base}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchGet",
                              headers={"Authorization": "Bearer owner"})
        assert listed.status_code == 200
    finally:
        daemon.stop()
    log = daemon.log.read_text()
    warning = WARNING.search(log)
    assert warning.group(1) == f"0.0.0.0:{daemon.port}"
    assert warning.group(2).startswith(
        "every host that can reach any of this machine's addresses can use it. "
        "The admin credential is the well-known 'Bearer owner'")
    lines = export_lines(log)
    assert all("0.0.0.0" not in line for line in lines)
    first = socket.gethostname() if socket.gethostname() != "localhost" else lines[0].split("=")[1].rsplit(":", 1)[0]
    assert lines[0] == f"export FIREBASE_AUTH_EMULATOR_HOST={first}:{daemon.port}"
    assert lines[-1] == f"# or: export FIREBASE_AUTH_EMULATOR_HOST=127.0.0.1:{daemon.port}"
    assert all(line.startswith("# or: export ") for line in lines[1:])


def test_wildcard_listener_with_an_admin_token_says_so(tmp_path):
    config = tmp_path / "authemu.yaml"
    config.write_text("admin_token: s3cret-admin\n")
    log = started(tmp_path, "--host", "0.0.0.0", "--config", str(config))
    warning = WARNING.search(log)
    assert warning.group(2) == (
        "every host that can reach any of this machine's addresses can use it. "
        "Admin APIs need the admin_token you set.")
    assert "s3cret-admin" not in log


def ipv6_loopback():
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not ipv6_loopback(), reason="this machine has no ::1")
def test_default_listens_on_both_loopbacks_and_links_follow_the_host_used(tmp_path):
    daemon = Daemon(tmp_path).start()
    try:
        for index, base in enumerate((f"http://127.0.0.1:{daemon.port}", f"http://[::1]:{daemon.port}",
                                      f"http://localhost:{daemon.port}")):
            assert requests.get(f"{base}/healthz", timeout=5).json() == {"status": "ok"}
            requests.post(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
                          json={"email": f"x{index}@example.com", "password": "secret123"}).raise_for_status()
            link = requests.post(f"{base}/identitytoolkit.googleapis.com/v1/accounts:sendOobCode",
                                 headers={"Authorization": "Bearer owner"},
                                 json={"requestType": "PASSWORD_RESET", "email": f"x{index}@example.com",
                                       "returnOobLink": True}).json()["oobLink"]
            assert link.startswith(f"{base}/emulator/action?mode=resetPassword&lang=en&oobCode=")
    finally:
        daemon.stop()
    assert "authemu also listening on ::1:" in daemon.log.read_text()


def test_an_explicit_address_is_bound_alone(tmp_path):
    daemon = Daemon(tmp_path, extra=["--host", "127.0.0.1"]).start()
    try:
        assert requests.get(f"{daemon.base}/healthz").status_code == 200
        with socket.socket(socket.AF_INET6) as probe:
            assert probe.connect_ex(("::1", daemon.port)) != 0
    finally:
        daemon.stop()


def test_public_url_fixes_the_links(tmp_path):
    config = tmp_path / "authemu.yaml"
    config.write_text("public_url: https://auth.example.test\n")
    daemon = Daemon(tmp_path, extra=["--config", str(config)]).start()
    try:
        base = f"http://localhost:{daemon.port}/identitytoolkit.googleapis.com/v1"
        requests.post(f"{base}/accounts:signUp", params={"key": "k"},
                      json={"email": "fixed@example.com", "password": "secret123"}).raise_for_status()
        link = requests.post(f"{base}/accounts:sendOobCode", headers={"Authorization": "Bearer owner"},
                             json={"requestType": "VERIFY_EMAIL", "email": "fixed@example.com",
                                   "returnOobLink": True}).json()["oobLink"]
        assert link.startswith("https://auth.example.test/emulator/action?mode=verifyEmail&lang=en&oobCode=")
    finally:
        daemon.stop()
