"""The daemon where the time-zone data lacks GMT (a FROM scratch image with a partial zoneinfo folder,
a host without tzdata): it needs only UTC. Foundation's ISO8601DateFormatter trapped there (SIGILL,
after openat /usr/share/zoneinfo/GMT gave ENOENT) on the first log line. A mount namespace of the
test's own (unshare, as root) puts a folder holding only `UTC` over /usr/share/zoneinfo, with TZ=UTC;
the debug binary and, once built, the release binary (the one the image and the .deb carry) must
start, answer, log and parse times."""
import os
import shutil
import subprocess
import time
import urllib.request

import pytest
import requests

from conftest import BINARY, ROOT, free_port

RELEASE = ROOT / ".build" / "release" / "authemu"
pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root and unshare")


def binaries():
    """The binary under test and the release build's, once each (scripts/test tests the release build)."""
    return list(dict.fromkeys([BINARY] + ([str(RELEASE)] if RELEASE.exists() else [])))


def in_partial_zoneinfo(tmp_path, command):
    """`command` in a namespace where /usr/share/zoneinfo holds only UTC."""
    zoneinfo = tmp_path / "zoneinfo"
    zoneinfo.mkdir()
    shutil.copy("/usr/share/zoneinfo/Etc/UTC", zoneinfo / "UTC")
    script = (f"mount --bind {zoneinfo} /usr/share/zoneinfo && test ! -e /usr/share/zoneinfo/GMT && "
              f"exec {command}")
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script]


@pytest.mark.parametrize("binary", binaries())
def test_starts_serves_and_logs_without_gmt_zone_data(tmp_path, binary):
    port = free_port()
    log = tmp_path / "log"
    proc = subprocess.Popen(in_partial_zoneinfo(tmp_path, f"{binary} serve --ephemeral --port {port}"),
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT, env={**os.environ, "TZ": "UTC"})
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, f"exited {proc.returncode}: {log.read_text()}"
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1).status == 200:
                    break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.05)
        base = f"http://127.0.0.1:{port}"
        signed = requests.post(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
                               json={"email": "utc@example.com", "password": "secret123"})
        assert signed.status_code == 200, signed.text
        moved = requests.post(f"{base}/emulator/v1/clock:set", json={"time": "2030-01-01T02:00:00.250+02:00"})
        assert moved.json()["now"] == "2030-01-01T00:00:00.250Z"
        (tmp_path / "totp").mkdir()
        totp = subprocess.run(in_partial_zoneinfo(tmp_path / "totp", f"{binary} totp JBSWY3DPEHPK3PXP --at "
                                                  "2030-01-01T00:00:00Z"),
                              capture_output=True, text=True, env={**os.environ, "TZ": "UTC"})
        assert (totp.returncode, totp.stdout) == (0, "098407\n"), totp.stderr
    finally:
        proc.terminate()
        assert proc.wait(timeout=20) == 0, log.read_text()
    first = log.read_text().splitlines()[0]
    assert first.split(" ")[0].endswith("Z") and first.split(" ")[1] == "info", first
