"""Durability under faults (issue 8 §3): SIGKILL under write load, full and read-only disks,
damaged database files. The short version runs in CI; AUTHEMU_FAULT_KILLS sets the kill count."""
import os
import random
import shutil
import subprocess
import threading
import time

import pytest
import requests

from conftest import BINARY, PROJECT, Api, Daemon, ok

KILLS = int(os.environ.get("AUTHEMU_FAULT_KILLS", "20"))


def writer(api, stop, acknowledged, prefix):
    """signUp, then enrol a factor through the admin API; records only what was answered 200."""
    index = 0
    session = requests.Session()
    while not stop.is_set():
        index += 1
        email = f"{prefix}-{index}@example.com"
        try:
            created = session.post(f"{api.base}/identitytoolkit.googleapis.com/v1/accounts:signUp",
                                   params={"key": "k"}, json={"email": email, "password": "secret123"}, timeout=5)
            if created.status_code != 200:
                continue
            local_id = created.json()["localId"]
            acknowledged.append(("user", local_id, None))
            enrolled = session.post(
                f"{api.base}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:update",
                headers={"Authorization": "Bearer owner"},
                json={"localId": local_id, "mfa": {"enrollments": [{"mfaEnrollmentId": f"f-{index}",
                                                                    "phoneInfo": "+15555550100"}]}}, timeout=5)
            if enrolled.status_code == 200:
                acknowledged.append(("factor", local_id, f"f-{index}"))
        except requests.RequestException:
            return


def test_acknowledged_writes_survive_repeated_sigkill(tmp_path):
    daemon = Daemon(tmp_path, ephemeral=False)
    acknowledged = []
    rng = random.Random(8)
    for round_number in range(KILLS):
        daemon.start()
        api = Api(daemon.base)
        stop = threading.Event()
        threads = [threading.Thread(target=writer, args=(api, stop, acknowledged, f"r{round_number}t{t}"))
                   for t in range(3)]
        for thread in threads:
            thread.start()
        time.sleep(rng.uniform(0.05, 0.4))  # a random point in the write load
        assert daemon.kill() == -9
        stop.set()
        for thread in threads:
            thread.join(timeout=10)
    daemon.start()
    try:
        api = Api(daemon.base)
        users = api.admin("GET", f"v1/projects/{PROJECT}/accounts:batchGet", params={"maxResults": -1}).json()
        stored = {u["localId"]: {f["mfaEnrollmentId"] for f in u.get("mfaInfo", [])} for u in users.get("users", [])}
    finally:
        daemon.stop()
    lost = [entry for entry in acknowledged
            if entry[1] not in stored or (entry[0] == "factor" and entry[2] not in stored[entry[1]])]
    check = subprocess.run(["sqlite3", str(daemon.data), "PRAGMA integrity_check;"], capture_output=True, text=True)
    print(f"\nSIGKILL x{KILLS}: acknowledged {len(acknowledged)}, lost {len(lost)}, "
          f"integrity_check {check.stdout.strip()}")
    assert len(acknowledged) > KILLS
    assert lost == []
    assert check.stdout.strip() == "ok"


def test_kill_during_checkpoint_state_is_not_mistaken_for_truncation(tmp_path):
    """A kill during a WAL checkpoint leaves page 1 (with the grown page count) written before the
    pages that extend the file. The WAL still holds every page: SQLite recovers, and authemu must
    not refuse the file as truncated. The state is made by killing the daemon with a full WAL and
    then growing the page count in the main file's header as that checkpoint would have."""
    daemon = Daemon(tmp_path, ephemeral=False)
    daemon.start()
    api = Api(daemon.base)
    created = [api.v1("accounts:signUp", {"email": f"c{i}@example.com", "password": "secret123"}).json()["localId"]
               for i in range(30)]
    assert daemon.kill() == -9
    wal = daemon.data.with_name(daemon.data.name + "-wal")
    assert wal.stat().st_size > 0
    header = bytearray(daemon.data.read_bytes()[:100])
    page_size = int.from_bytes(header[16:18], "big")
    pages = daemon.data.stat().st_size // page_size
    header[28:32] = (pages + 8).to_bytes(4, "big")  # the count the checkpoint was growing the file to
    header[92:96] = header[24:28]  # and valid, as SQLite writes it
    with open(daemon.data, "r+b") as file:
        file.write(header)
    daemon.start()
    try:
        for local_id in created:
            found = api.admin("POST", f"v1/projects/{PROJECT}/accounts:lookup", {"localId": [local_id]})
            assert found.status_code == 200 and found.json()["users"][0]["localId"] == local_id
    finally:
        daemon.stop()
    check = subprocess.run(["sqlite3", str(daemon.data), "PRAGMA integrity_check;"], capture_output=True, text=True)
    assert check.stdout.strip() == "ok"


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_full_disk_answers_503_and_recovers(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)]).returncode != 0:
        pytest.skip("cannot mount tmpfs here")
    daemon = Daemon(tmp_path, ephemeral=False)
    daemon.data = mount / "state.sqlite"
    try:
        daemon.start()
        api = Api(daemon.base)
        assert api.v1("accounts:signUp", {"email": "before@example.com", "password": "secret123"}).status_code == 200
        filler = mount / "filler"
        subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k", "count=100"], capture_output=True)
        statuses = set()
        for index in range(200):
            response = api.v1("accounts:signUp", {"email": f"full{index}@example.com", "password": "secret123",
                                                  "displayName": "x" * 2000})
            statuses.add(response.status_code)
            if response.status_code == 503:
                assert response.json()["error"]["status"] == "UNAVAILABLE"
                break
        assert 503 in statuses, statuses
        assert statuses <= {200, 503}
        filler.unlink()
        recovered = api.v1("accounts:signUp", {"email": "after@example.com", "password": "secret123"})
        assert recovered.status_code == 200, recovered.text
        signed_in = api.v1("accounts:signInWithPassword", {"email": "before@example.com", "password": "secret123"})
        assert signed_in.status_code == 200
        assert requests.get(f"{daemon.base}/readyz").status_code == 200
    finally:
        daemon.stop()
        subprocess.run(["umount", "-l", str(mount)])


def test_read_only_database_answers_503_and_recovers(tmp_path):
    """The database files turn read-only under a running daemon (the immutable attribute refuses
    writes even on the descriptors SQLite already holds, as a read-only remount would): writes
    answer 503, reads keep being served, nothing half-written appears, and writes resume once the
    files are writable again."""
    daemon = Daemon(tmp_path, ephemeral=False)
    daemon.start()
    files = [str(daemon.data) + suffix for suffix in ("", "-wal")]
    try:
        api = Api(daemon.base)
        before = api.v1("accounts:signUp", {"email": "before@example.com", "password": "secret123",
                                            "returnSecureToken": True})
        assert before.status_code == 200
        if subprocess.run(["chattr", "+i", *files], capture_output=True).returncode != 0:
            pytest.skip("this filesystem has no immutable attribute (chattr +i)")
        try:
            during = api.v1("accounts:signUp", {"email": "during@example.com", "password": "secret123"})
            assert during.status_code == 503, during.text
            assert during.json()["error"]["status"] == "UNAVAILABLE"
            sign_in = api.v1("accounts:signInWithPassword", {"email": "before@example.com", "password": "secret123"})
            assert sign_in.status_code == 503, sign_in.text
            lookup = api.v1("accounts:lookup", {"idToken": before.json()["idToken"]})
            assert lookup.status_code == 200, lookup.text
            assert lookup.json()["users"][0]["email"] == "before@example.com"
        finally:
            subprocess.run(["chattr", "-i", *files], check=True)
        after = api.v1("accounts:signUp", {"email": "after@example.com", "password": "secret123"})
        assert after.status_code == 200, after.text
        missing = api.v1("accounts:signInWithPassword", {"email": "during@example.com", "password": "secret123"})
        assert missing.status_code == 400
        assert missing.json()["error"]["message"] == "EMAIL_NOT_FOUND"
        assert api.v1("accounts:signInWithPassword",
                      {"email": "before@example.com", "password": "secret123"}).status_code == 200
    finally:
        subprocess.run(["chattr", "-i", *files], capture_output=True)
        daemon.stop()
    check = subprocess.run(["sqlite3", str(daemon.data), "PRAGMA integrity_check"], capture_output=True, text=True)
    assert check.stdout.strip() == "ok"


def test_database_truncated_under_the_daemon_answers_503_not_500(tmp_path):
    """The file is cut to nothing while the daemon runs (another program, a bad restore): reads
    and writes answer 503 UNAVAILABLE in the envelope, /readyz turns 503, and the fault is
    logged once; never a 500."""
    daemon = Daemon(tmp_path, ephemeral=False)
    daemon.start()
    try:
        api = Api(daemon.base)
        created = ok(api.v1("accounts:signUp", {"email": "cut@example.com", "password": "secret123"})).json()
        assert requests.get(f"{daemon.base}/readyz", timeout=5).status_code == 200
        # The main file only: the -shm index is memory-mapped, and cutting a mapped file is a
        # SIGBUS in any program that maps it (SQLite's documentation, "wal-index").
        subprocess.run(["sqlite3", str(daemon.data), "PRAGMA wal_checkpoint(TRUNCATE)"], capture_output=True)
        os.truncate(daemon.data, 0)
        for call in (
            lambda: api.v1("accounts:lookup", {"idToken": created["idToken"]}),
            lambda: api.v1("accounts:signInWithPassword", {"email": "cut@example.com", "password": "secret123"}),
            lambda: api.v1("accounts:signUp", {"email": "new@example.com", "password": "secret123"}),
        ):
            answer = call()
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"]["status"] == "UNAVAILABLE"
            assert answer.json()["error"]["message"] == "The emulator's database cannot be used: file is not a database"
        for _ in range(2):
            ready = requests.get(f"{daemon.base}/readyz", timeout=5)
            assert ready.status_code == 503
            assert ready.json()["error"]["status"] == "UNAVAILABLE"
    finally:
        daemon.stop()
    assert daemon.log.read_text().count("the store does not answer: not ready") == 1


@pytest.mark.parametrize("damage", ["truncate", "garbage"])
def test_damaged_database_refuses_to_start_and_is_not_modified(tmp_path, damage):
    daemon = Daemon(tmp_path, ephemeral=False)
    daemon.start()
    api = Api(daemon.base)
    for index in range(200):
        ok(api.v1("accounts:signUp", {"email": f"d{index}@example.com", "password": "secret123",
                                      "displayName": "y" * 500}))
    daemon.stop()
    data = daemon.data.read_bytes()
    if damage == "truncate":
        daemon.data.write_bytes(data[: len(data) // 2])
    else:
        daemon.data.write_bytes(data[:100] + os.urandom(len(data) - 100))
    before = daemon.data.read_bytes()
    run = subprocess.run([BINARY, "serve", "--port", "0", "--data", str(daemon.data)],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 2
    message = run.stderr
    assert ("truncated" in message) if damage == "truncate" else ("refusing to touch it" in message or "cannot" in message)
    assert daemon.data.read_bytes() == before
