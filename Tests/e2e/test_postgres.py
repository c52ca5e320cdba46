"""Two daemons on one PostgreSQL database (the server scripts/test starts): one truth."""
import concurrent.futures
import os
import signal
import subprocess
import threading
import time
import urllib.parse
import uuid

import pytest
import requests

from conftest import BINARY, PROJECT, ROOT, Api, Daemon, error_message, ok
from test_mfa import totp, v2, verified_email_user

URL = os.environ.get("AUTHEMU_TEST_POSTGRES_URL")
SERVER_DIR = os.environ.get("AUTHEMU_TEST_POSTGRES_DIR")
ROOT_SCRIPT = str(ROOT / "scripts" / "test-postgres")
pytestmark = pytest.mark.skipif(not URL, reason="AUTHEMU_TEST_POSTGRES_URL is not set (scripts/test sets it)")


def store_url(schema):
    return f"{URL}{'&' if '?' in URL else '?'}schema={schema}"


@pytest.fixture
def pair(tmp_path):
    """Daemons A and B on one new schema."""
    schema = f"e2e_{uuid.uuid4().hex[:12]}"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = Daemon(tmp_path / "a", store=store_url(schema)).start()
    second = Daemon(tmp_path / "b", store=store_url(schema)).start()
    try:
        yield Api(first.base), Api(second.base), first, second
    finally:
        try:
            first.stop()
        finally:
            second.stop()


def sign_up(api, email, password="secret123"):
    return api.v1("accounts:signUp", {"email": email, "password": password, "returnSecureToken": True})


def outbox(api, **params):
    return requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/smsMessages", params=params,
                        timeout=40).json()["smsMessages"]


def patch_config(api, body, mask):
    response = api.admin("PATCH", f"v2/projects/{PROJECT}/config", body, params={"updateMask": mask})
    assert response.status_code == 200, response.text


def within(seconds, check):
    """Polls `check` until it is true; returns how long it took (fails after `seconds`)."""
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < seconds, f"not within {seconds} s"
        time.sleep(0.02)
    return time.monotonic() - started


def test_an_account_created_on_a_signs_in_on_b(pair):
    a, b, *_ = pair
    created = sign_up(a, "one@example.com").json()
    signed_in = b.v1("accounts:signInWithPassword", {"email": "one@example.com", "password": "secret123",
                                                     "returnSecureToken": True})
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["localId"] == created["localId"]
    refreshed = requests.post(f"{b.base}/securetoken.googleapis.com/v1/token", params={"key": "k"},
                              data={"grant_type": "refresh_token", "refresh_token": created["refreshToken"]})
    assert refreshed.json()["user_id"] == created["localId"]
    assert error_message(sign_up(b, "one@example.com")) == "EMAIL_EXISTS"


def test_config_tenant_and_clock_changes_on_a_apply_on_b_within_a_second(pair):
    a, b, *_ = pair
    # B reads (and caches) the settings first.
    assert b.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550161"}).status_code == 200
    patch_config(a, {"signIn": {"phoneNumber": {"testPhoneNumbers": {"+15555550162": "654321"}}}},
                 "signIn.phoneNumber.testPhoneNumbers")

    def test_number_applies():
        b.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550162"})
        sent = outbox(b, phoneNumber="+15555550162")
        return bool(sent) and sent[-1]["code"] == "654321"
    assert within(1.0, test_number_applies) < 1.0

    tenant = a.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "shared", "allowPasswordSignup": True})
    tenant_id = tenant.json()["name"].split("/")[-1]
    assert b.v1("accounts:signUp", {"email": "t@example.com", "password": "secret123", "tenantId": tenant_id}
                ).status_code == 200
    changed = a.admin("PATCH", f"v2/projects/{PROJECT}/tenants/{tenant_id}", {"allowPasswordSignup": False},
                      params={"updateMask": "allowPasswordSignup"})
    assert changed.status_code == 200, changed.text

    def refused():
        answer = b.v1("accounts:signUp", {"email": f"{uuid.uuid4().hex[:8]}@example.com", "password": "secret123",
                                          "tenantId": tenant_id})
        return answer.status_code == 400 and error_message(answer) == "OPERATION_NOT_ALLOWED"
    assert within(1.0, refused) < 1.0

    moved = requests.post(f"{a.base}/emulator/v1/clock:advance", json={"seconds": 3600})
    assert moved.json()["offsetSeconds"] == 3600
    assert within(1.0, lambda: requests.get(f"{b.base}/emulator/v1/clock").json()["offsetSeconds"] == 3600) < 1.0
    frozen = requests.post(f"{a.base}/emulator/v1/clock:set", json={"time": "2030-01-01T00:00:00Z", "freeze": True})
    assert frozen.json()["frozen"] is True
    assert within(1.0, lambda: requests.get(f"{b.base}/emulator/v1/clock").json()["now"]
                  == "2030-01-01T00:00:00.000Z") < 1.0
    created = sign_up(b, "frozen@example.com").json()
    found = b.v1("accounts:lookup", {"idToken": created["idToken"]}).json()["users"][0]
    assert (found["createdAt"], found["lastLoginAt"]) == ("1893456000000", "1893456000000")
    requests.post(f"{a.base}/emulator/v1/clock:reset", json={}).raise_for_status()
    assert within(1.0, lambda: requests.get(f"{b.base}/emulator/v1/clock").json()["frozen"] is False) < 1.0


def test_an_sms_sent_through_a_wakes_a_long_poll_on_b(pair):
    a, b, first, second = pair
    result = {}

    def reader():
        result["messages"] = outbox(b, phoneNumber="+15555550163", wait=10)
        result["at"] = time.monotonic()

    thread = threading.Thread(target=reader)
    thread.start()
    time.sleep(0.3)  # the reader must be parked in B's long-poll before A sends
    sent_at = time.monotonic()
    assert a.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550163"}).status_code == 200
    thread.join(timeout=15)
    assert [m["phoneNumber"] for m in result["messages"]] == ["+15555550163"]
    assert result["at"] - sent_at < 1.0

    command = subprocess.Popen([BINARY, "codes", "--url", second.base, "--project", PROJECT,
                                "--phone", "+15555550164", "--wait", "10"], stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    sent_at = time.monotonic()
    assert a.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550164"}).status_code == 200
    out, _ = command.communicate(timeout=15)
    assert time.monotonic() - sent_at < 1.5
    assert out.strip() == outbox(a, phoneNumber="+15555550164")[-1]["code"]


def test_the_same_email_signed_up_on_both_gives_one_account(pair):
    a, b, *_ = pair
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda i: sign_up(a if i % 2 else b, "race@example.com"), range(16)))
    assert sorted(r.status_code for r in answers) == [200] + [400] * 15
    assert {error_message(r) for r in answers if r.status_code == 400} == {"EMAIL_EXISTS"}
    found = a.v1(f"projects/{PROJECT}/accounts:query", {"returnUserInfo": True}, admin=True).json()
    assert [u["email"] for u in found["userInfo"]] == ["race@example.com"]


def test_creates_in_sixteen_projects_on_both_daemons_at_once_all_land(pair):
    """A CI fleet's shape: 32 clients, two per project, half on each daemon, creating accounts
    through the admin API at once. Serializable writes may be run again; none is lost or refused."""
    a, b, *_ = pair
    schema_tag = uuid.uuid4().hex[:6]

    def create(client):
        api, project = (a if client % 2 else b), f"fleet-{schema_tag}-{client % 16}"
        return [api.admin("POST", f"v1/projects/{project}/accounts",
                          {"email": f"c{client}-{n}@example.com", "password": "secret123"}).status_code
                for n in range(5)]

    with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
        statuses = [status for answers in pool.map(create, range(32)) for status in answers]
    assert statuses == [200] * 160
    for project in range(16):
        found = a.v1(f"projects/fleet-{schema_tag}-{project}/accounts:query", {"returnUserInfo": True}, admin=True)
        emails = sorted(user["email"] for user in found.json()["userInfo"])
        assert emails == sorted(f"c{client}-{n}@example.com" for client in (project, project + 16) for n in range(5))


def test_single_use_codes_lockout_quotas_and_totp_replay_hold_across_daemons(pair):
    a, b, *_ = pair
    # Single use: the same code verified on A and B at once signs in once.
    session = a.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550165"}).json()["sessionInfo"]
    code = outbox(a, phoneNumber="+15555550165")[-1]["code"]
    body = {"sessionInfo": session, "code": code}
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda i: (a if i % 2 else b).v1("accounts:signInWithPhoneNumber", body), range(8)))
    assert sorted(r.status_code for r in answers) == [200] + [400] * 7
    assert {error_message(r) for r in answers if r.status_code == 400} == {"INVALID_SESSION_INFO"}

    # Lockout: ten wrong codes at once across both count every attempt; the right code is then refused.
    session = b.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550166"}).json()["sessionInfo"]
    code = outbox(b, phoneNumber="+15555550166")[-1]["code"]
    wrong = {"sessionInfo": session, "code": "000000" if code != "000000" else "111111"}
    with concurrent.futures.ThreadPoolExecutor(max_workers=10) as pool:
        answers = list(pool.map(lambda i: (a if i % 2 else b).v1("accounts:signInWithPhoneNumber", wrong), range(10)))
    messages = sorted(error_message(r) for r in answers)
    assert messages == ["INVALID_CODE"] * 4 + ["TOO_MANY_ATTEMPTS_TRY_LATER"] * 6
    right = a.v1("accounts:signInWithPhoneNumber", {"sessionInfo": session, "code": code})
    assert error_message(right) == "TOO_MANY_ATTEMPTS_TRY_LATER"

    # Quota: at most 3 SMS an hour to a number, however the requests are spread.
    patch_config(a, {"emulatorSettings": {"smsQuotaPerNumberPerHour": 3}}, "emulatorSettings.smsQuotaPerNumberPerHour")
    # B has heard the change once a fourth SMS to another number is refused there.
    assert within(1.0, lambda: b.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550168"}
                                     ).status_code == 400) < 1.0
    number = {"phoneNumber": "+15555550167"}
    with concurrent.futures.ThreadPoolExecutor(max_workers=10) as pool:
        answers = list(pool.map(lambda i: (a if i % 2 else b).v1("accounts:sendVerificationCode", number), range(10)))
    assert sorted(r.status_code for r in answers) == [200] * 3 + [400] * 7
    assert {error_message(r) for r in answers if r.status_code == 400} == {
        "QUOTA_EXCEEDED : Exceeded quota for verifying +15555550167."}

    # TOTP replay: a code used on A is refused on B.
    patch_config(a, {"mfa": {"state": "ENABLED", "providerConfigs": [
        {"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}}, "mfa")
    user = verified_email_user(a, "totp@example.com")
    started = v2(a, "mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {}}).json()
    info = started["totpSessionInfo"]
    finalized = v2(b, "mfaEnrollment:finalize", {"idToken": user["idToken"], "totpVerificationInfo": {
        "sessionInfo": info["sessionInfo"], "verificationCode": totp(info["sharedSecretKey"])}})
    assert finalized.status_code == 200, finalized.text
    later = totp(info["sharedSecretKey"], time.time() + 30)
    outcomes = []
    for daemon in (a, b):
        first = daemon.v1("accounts:signInWithPassword", {"email": "totp@example.com", "password": "secret123"}).json()
        outcomes.append(v2(daemon, "mfaSignIn:finalize", {
            "mfaPendingCredential": first["mfaPendingCredential"],
            "mfaEnrollmentId": first["mfaInfo"][0]["mfaEnrollmentId"],
            "totpVerificationInfo": {"verificationCode": later}}))
    assert outcomes[0].status_code == 200, outcomes[0].text
    assert outcomes[1].status_code == 400 and error_message(outcomes[1]) == "INVALID_CODE"


def test_kill_9_of_a_under_load_loses_nothing_it_acknowledged(pair):
    a, b, first, _ = pair
    acknowledged = []
    stop = threading.Event()

    def writer(worker):
        index = 0
        while not stop.is_set():
            email = f"w{worker}-{index}@example.com"
            try:
                if sign_up(a, email).status_code == 200:
                    acknowledged.append(email)
            except requests.RequestException:
                return
            index += 1

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    within(20, lambda: len(acknowledged) >= 100)
    first.kill(signal.SIGKILL)
    stop.set()
    for thread in threads:
        thread.join(timeout=10)
    missing = [email for email in list(acknowledged)
               if b.v1(f"projects/{PROJECT}/accounts:lookup", {"email": [email]}, admin=True).json().get("users") is None]
    assert len(acknowledged) >= 100 and missing == []


@pytest.mark.skipif(not SERVER_DIR, reason="AUTHEMU_TEST_POSTGRES_DIR is not set (scripts/test sets it)")
def test_postgres_restarted_under_load(pair):
    """While the server is down: 503 UNAVAILABLE within the 5 s deadline, never a 500, /readyz 503. Then
    both daemons reconnect by themselves, and every acknowledged write is there."""
    a, b, *_ = pair
    acknowledged, answers = [], []
    stop = threading.Event()

    def writer(worker):
        index = 0
        while not stop.is_set():
            api = a if index % 2 else b
            started = time.monotonic()
            response = sign_up(api, f"r{worker}-{index}@example.com")
            answers.append((response.status_code, response.json()["error"]["status"] if response.status_code >= 400
                            else None, time.monotonic() - started))
            if response.status_code == 200:
                acknowledged.append(f"r{worker}-{index}@example.com")
            index += 1

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    try:
        within(20, lambda: len(acknowledged) >= 40)
        subprocess.run([ROOT_SCRIPT, "down", SERVER_DIR], check=True)
        within(15, lambda: any(status == 503 for status, *_ in answers))
        ready = requests.get(f"{a.base}/readyz", timeout=10)
        assert ready.status_code == 503
        time.sleep(1)  # the outage lasts a while under load
    finally:
        subprocess.run([ROOT_SCRIPT, "up", SERVER_DIR], check=True)
    within(20, lambda: requests.get(f"{a.base}/readyz").status_code == 200
           and requests.get(f"{b.base}/readyz").status_code == 200)
    count = len(acknowledged)
    within(20, lambda: len(acknowledged) >= count + 20)
    stop.set()
    for thread in threads:
        thread.join(timeout=20)
    assert not any(thread.is_alive() for thread in threads), "a request never answered"
    assert {status for status, *_ in answers} <= {200, 503}
    assert {kind for status, kind, _ in answers if status == 503} == {"UNAVAILABLE"}
    assert max(elapsed for *_, elapsed in answers) < 6.5
    missing = [email for email in list(acknowledged)
               if a.v1(f"projects/{PROJECT}/accounts:lookup", {"email": [email]}, admin=True).json().get("users") is None]
    assert missing == []


def test_a_daemon_started_just_before_its_database_waits_for_it(tmp_path):
    """Connection refused at start-up is tried again for the 5 s deadline (a systemd unit started
    with its database must not fail at once, nor hit its start limit)."""
    subprocess.run([ROOT_SCRIPT, "down", SERVER_DIR], check=True)
    later = threading.Timer(1.5, lambda: subprocess.run([ROOT_SCRIPT, "up", SERVER_DIR], check=True))
    later.start()
    try:
        daemon = Daemon(tmp_path, store=store_url(f"e2e_{uuid.uuid4().hex[:12]}")).start()
    finally:
        later.join()
    try:
        assert ok(sign_up(Api(daemon.base), "patient@example.com")).status_code == 200
        assert "PostgreSQL cannot be reached yet (" in daemon.log.read_text()
    finally:
        daemon.stop()


def test_moving_from_sqlite_to_postgres_is_an_export_and_an_import(tmp_path):
    lite = Daemon(tmp_path, ephemeral=False).start()
    created = sign_up(Api(lite.base), "moved@example.com").json()
    lite.stop()
    exported = subprocess.run([BINARY, "export", str(tmp_path / "move"), "--data", str(lite.data),
                               "--project", PROJECT], capture_output=True, text=True)
    assert exported.returncode == 0, exported.stderr
    target = store_url(f"e2e_{uuid.uuid4().hex[:12]}")
    imported = subprocess.run([BINARY, "import", str(tmp_path / "move"), "--store", target, "--project", PROJECT],
                              capture_output=True, text=True)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == f"imported 1 account(s) into project {PROJECT}"
    (tmp_path / "pg").mkdir()
    daemon = Daemon(tmp_path / "pg", store=target).start()
    try:
        signed_in = Api(daemon.base).v1("accounts:signInWithPassword", {
            "email": "moved@example.com", "password": "secret123", "returnSecureToken": True})
        assert signed_in.status_code == 200, signed_in.text
        assert signed_in.json()["localId"] == created["localId"]
        log = (tmp_path / "pg" / "authemu.log").read_text()
        assert "authemu-test-password" not in log and ":***@" in log
    finally:
        daemon.stop()


def test_a_bad_store_url_stops_start_up_naming_the_key(tmp_path):
    for args, message in [
        (["--store", "postgres://u:p@127.0.0.1:1/db?schema=Bad-Name"],
         "--store: key 'store': store URL: schema must be a lower-case SQL name"),
        (["--store", "mysql://x"], "--store: key 'store' must be sqlite:PATH or postgres://"),
        (["--store", "sqlite:/tmp/x.sqlite", "--ephemeral"],
         "--store names where the state lives: give it or --data/--ephemeral"),
    ]:
        result = subprocess.run([BINARY, "serve", "--port", "0"] + args, capture_output=True, text=True, timeout=20)
        assert result.returncode != 0 and message in result.stderr, result.stderr
    unreachable = subprocess.run([BINARY, "serve", "--port", "0", "--store",
                                  "postgres://authemu:hunter2@127.0.0.1:1/db?sslmode=disable"],
                                 capture_output=True, text=True, timeout=30)
    assert unreachable.returncode == 2
    assert "Connection refused" in unreachable.stderr
    assert "cannot open the PostgreSQL store postgres://authemu:***@127.0.0.1:1/db?sslmode=disable" in unreachable.stderr
    assert "hunter2" not in unreachable.stderr
    # The start-up failure names the server's reason, not only that no connection came in time.
    wrong = subprocess.run([BINARY, "serve", "--port", "0", "--store", URL.replace("authemu-test-password", "hunter2")],
                           capture_output=True, text=True, timeout=30)
    assert wrong.returncode == 2
    assert 'password authentication failed for user "authemu" (28P01)' in wrong.stderr, wrong.stderr
    assert "hunter2" not in wrong.stderr


def test_text_postgresql_cannot_hold_is_a_400_not_a_500(pair):
    a, b, *_ = pair
    refused = a.v1("accounts:signUp", {"email": "a\u0000b@example.com", "password": "secret123"})
    assert (refused.status_code, error_message(refused)) == (400, "INVALID_EMAIL")  # before the database
    for answer in [
        a.v1("accounts:signUp", {"email": "nul@example.com", "password": "secret123", "displayName": "a\u0000b"}),
        a.v1("accounts:lookup", {"localId": ["x\u0000y"]}, admin=True),
        a.v1(f"projects/{PROJECT}/accounts", {"localId": "x\u0000y"}, admin=True),
    ]:
        assert answer.status_code == 400, answer.text
        assert error_message(answer).startswith("INVALID_ARGUMENT : The database cannot store this value: ")
    assert sign_up(b, "after@example.com").status_code == 200


def tls_url(schema, **params):
    """The test server's URL with other TLS parameters (it serves a self-signed certificate for
    localhost and 127.0.0.1, made by scripts/test-postgres)."""
    query = "&".join(f"{key}={value}" for key, value in {"schema": schema, **params}.items())
    return f"{URL.split('?')[0]}?{query}"


def encrypted_connections():
    """How many of the server's connections use TLS (the other tests' and psql's URL disable it)."""
    answer = subprocess.run(["psql", URL, "-Atc", "SELECT count(*) FROM pg_stat_ssl WHERE ssl"],
                            capture_output=True, text=True, check=True)
    return int(answer.stdout)


def test_tls_require_encrypts_and_verify_full_checks_the_certificate(tmp_path):
    certificate = tmp_path / "server.crt"
    certificate.write_bytes((ROOT / SERVER_DIR / "data" / "server.crt").read_bytes())
    schema = f"e2e_{uuid.uuid4().hex[:12]}"
    before = encrypted_connections()
    (tmp_path / "tls").mkdir()
    daemon = Daemon(tmp_path / "tls", store=tls_url(schema, sslmode="require")).start()
    try:
        assert sign_up(Api(daemon.base), "tls@example.com").status_code == 200
        assert encrypted_connections() > before
    finally:
        daemon.stop()

    # verify-full against the system's CAs: nothing vouches for a self-signed certificate.
    refused = subprocess.run([BINARY, "serve", "--port", "0", "--store", tls_url(schema, sslmode="verify-full")],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2
    assert "cannot open the PostgreSQL store" in refused.stderr, refused.stderr
    assert "CERTIFICATE_VERIFY_FAILED" in refused.stderr, refused.stderr

    # With the certificate as the trusted root, verify-full connects (it names 127.0.0.1), and the
    # account written over plain TLS is there.
    (tmp_path / "verified").mkdir()
    verified = Daemon(tmp_path / "verified",
                      store=tls_url(schema, sslmode="verify-full", sslrootcert=certificate)).start()
    try:
        found = Api(verified.base).v1(f"projects/{PROJECT}/accounts:lookup", {"email": ["tls@example.com"]}, admin=True)
        assert [user["email"] for user in found.json()["users"]] == ["tls@example.com"]
    finally:
        verified.stop()

    missing = subprocess.run([BINARY, "serve", "--port", "0", "--store",
                              tls_url(schema, sslmode="verify-full", sslrootcert=tmp_path / "nope.crt")],
                             capture_output=True, text=True, timeout=30)
    assert missing.returncode == 64  # a bad flag value, as for every other key
    assert f"store URL: sslrootcert {tmp_path / 'nope.crt'} is not a readable file" in missing.stderr


def test_the_store_is_named_by_flag_environment_or_file_alike(tmp_path):
    """AUTHEMU_STORE, `store:` in the YAML file and a Unix-socket URL name the same database as
    --store; `--store sqlite:PATH` is --data's long form."""
    schema = f"e2e_{uuid.uuid4().hex[:12]}"
    for name in ("env", "file", "lite"):
        (tmp_path / name).mkdir()
    (tmp_path / "authemu.yaml").write_text(f"store: '{store_url(schema)}'\n")
    by_env = Daemon(tmp_path / "env", ephemeral=None, env={"AUTHEMU_STORE": store_url(schema)}).start()
    by_file = Daemon(tmp_path / "file", ephemeral=None, extra=["--config", str(tmp_path / "authemu.yaml")]).start()
    lite_path = tmp_path / "lite" / "long-form.sqlite"
    by_long_form = Daemon(tmp_path / "lite", store=f"sqlite:{lite_path}").start()
    try:
        created = ok(sign_up(Api(by_env.base), "named@example.com")).json()
        signed_in = Api(by_file.base).v1("accounts:signInWithPassword", {
            "email": "named@example.com", "password": "secret123", "returnSecureToken": True})
        assert signed_in.status_code == 200, signed_in.text
        assert signed_in.json()["localId"] == created["localId"]
        # The server's Unix socket (in its directory, named for its port) reaches the same schema.
        port = urllib.parse.urlsplit(URL).port
        (tmp_path / "socket").mkdir()
        by_socket = Daemon(tmp_path / "socket", store=f"postgres://authemu:authemu-test-password@:{port}/postgres"
                           f"?host={SERVER_DIR}&schema={schema}").start()
        try:
            found = Api(by_socket.base).v1(f"projects/{PROJECT}/accounts:lookup", {"email": ["named@example.com"]},
                                           admin=True)
            assert [user["localId"] for user in found.json()["users"]] == [created["localId"]]
        finally:
            by_socket.stop()
        for daemon in (by_env, by_file):
            log = daemon.log.read_text()
            assert "state postgres://authemu:***@" in log and f"(schema {schema})" in log
            assert "authemu-test-password" not in log

        assert ok(sign_up(Api(by_long_form.base), "lite@example.com")).status_code == 200
        assert sign_up(Api(by_long_form.base), "named@example.com").status_code == 200  # another store
        assert f"state {lite_path}" in by_long_form.log.read_text()
    finally:
        for daemon in (by_env, by_file, by_long_form):
            daemon.stop()
    assert lite_path.stat().st_size > 0
