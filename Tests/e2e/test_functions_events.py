"""Auth events for the Cloud Functions emulator (docs/functions.md): what firebase-tools' Auth
emulator sends, from every path that creates or deletes a user, to a Functions emulator found
through a flag, firebase.json or the Emulator Suite hub, and kept while it is down."""
import json
import os
import re
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import requests

from conftest import BINARY, PROJECT, Api, Daemon, ok
from functions_support import FunctionsEmulator, Hub
from test_phone import JS_SEND

EVENT_KEYS = ["eventId", "eventType", "resource", "params", "timestamp", "data"]
CREATE = "providers/firebase.auth/eventTypes/user.create"
DELETE = "providers/firebase.auth/eventTypes/user.delete"
ISO_MILLIS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.fixture
def functions():
    emulator = FunctionsEmulator().start()
    yield emulator
    emulator.stop()


@pytest.fixture
def wired(tmp_path, functions):
    """A daemon whose events go to `functions` (--functions-emulator)."""
    daemon = Daemon(tmp_path, extra=["--functions-emulator", f"127.0.0.1:{functions.port}"]).start()
    yield Api(daemon.base), daemon
    daemon.stop()


def check_envelope(event, kind, project=PROJECT):
    assert event.method == "POST"
    assert event.path == f"/functions/projects/{project}/trigger_multicast"
    assert event.headers["Content-Type"] == "application/json"
    assert event.keys == EVENT_KEYS
    assert str(uuid.UUID(event.json["eventId"])) == event.json["eventId"]
    assert event.json["eventType"] == kind
    assert event.json["resource"] == {"name": f"projects/{project}", "service": "firebaseauth.googleapis.com"}
    assert event.json["params"] == {}
    assert ISO_MILLIS.match(event.json["timestamp"])
    data = event.json["data"]
    assert None not in data.values()
    assert set(data) <= {"uid", "email", "emailVerified", "displayName", "photoURL", "phoneNumber", "disabled",
                         "metadata", "customClaims", "providerData", "tenantId", "mfaInfo"}
    for secret in ("passwordHash", "salt", "passwordUpdatedAt", "validSince", "localId"):
        assert secret not in data
    assert ISO_MILLIS.match(data["metadata"]["creationTime"])
    return data


def sentinel(api, functions, expected):
    """Signs up one more account and waits for its event: a project's events leave in order, so
    every earlier one has arrived too, and exactly `expected` came before it."""
    up = ok(api.v1("accounts:signUp", {"returnSecureToken": True})).json()
    events = functions.wait_for(expected + 1)
    assert events[expected].json["data"]["uid"] == up["localId"], [e.json for e in events]
    assert len(functions.events()) == expected + 1, [e.json for e in functions.events()[expected:]]
    return events[:expected]


def test_every_new_user_path_sends_one_create_event_with_firebase_tools_body(wired, functions):
    api, _ = wired
    email = ok(api.v1("accounts:signUp", {"email": "ev@example.com", "password": "secret123",
                                          "displayName": "Ev", "returnSecureToken": True})).json()
    anonymous = ok(api.v1("accounts:signUp", {"returnSecureToken": True})).json()
    ok(api.admin("POST", f"v1/projects/{PROJECT}/accounts",
                 {"localId": "admin-made", "email": "admin@example.com", "emailVerified": True, "displayName": "Ad",
                  "photoUrl": "https://example.com/a.png", "phoneNumber": "+15555550123", "disabled": True}))
    post_body = "providerId=google.com&id_token=" + requests.utils.quote(
        '{"sub":"g-1","email":"g@example.com","email_verified":true,"name":"G"}')
    idp = ok(api.v1("accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": post_body,
                                               "returnSecureToken": True})).json()
    custom = ok(api.v1("accounts:signInWithCustomToken", {"token": json.dumps({"uid": "custom-1"}),
                                                          "returnSecureToken": True})).json()
    ok(api.v1("accounts:sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "link@example.com"}))
    codes = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/oobCodes").json()["oobCodes"]
    code = [c for c in codes if c["email"] == "link@example.com"][-1]["oobCode"]
    link = ok(api.v1("accounts:signInWithEmailLink", {"email": "link@example.com", "oobCode": code})).json()
    session = ok(api.v1("accounts:sendVerificationCode", {**JS_SEND, "phoneNumber": "+15555550188"})).json()[
        "sessionInfo"]
    sms = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/verificationCodes").json()["verificationCodes"]
    sms_code = [m for m in sms if m["sessionInfo"] == session][-1]["code"]
    phone = ok(api.v1("accounts:signInWithPhoneNumber", {"sessionInfo": session, "code": sms_code})).json()
    tenant = ok(api.admin("POST", f"v2/projects/{PROJECT}/tenants",
                          {"displayName": "Events", "allowPasswordSignup": True})).json()["tenantId"]
    in_tenant = ok(api.v1("accounts:signUp", {"email": "t@example.com", "password": "secret123",
                                              "tenantId": tenant, "returnSecureToken": True})).json()

    # What must not send anything: sign-ins of existing accounts, updates, linking, an import.
    ok(api.v1("accounts:signInWithPassword", {"email": "ev@example.com", "password": "secret123"}))
    ok(api.v1("accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": post_body}))
    ok(api.v1("accounts:signInWithCustomToken", {"token": json.dumps({"uid": "custom-1"})}))
    ok(api.v1("accounts:update", {"idToken": email["idToken"], "displayName": "Renamed"}))
    ok(api.v1("accounts:signUp", {"idToken": anonymous["idToken"], "email": "upgraded@example.com",
                                  "password": "secret123"}))
    ok(api.admin("POST", f"v1/projects/{PROJECT}/accounts:batchCreate",
                 {"users": [{"localId": "imported-1", "email": "imported@example.com"}]}))

    made = sentinel(api, functions, 8)
    assert [e.json["eventType"] for e in made] == [CREATE] * 8
    by_uid = {e.json["data"]["uid"]: check_envelope(e, CREATE) for e in made}
    assert [e.json["data"]["uid"] for e in made] == [
        email["localId"], anonymous["localId"], "admin-made", idp["localId"], "custom-1", link["localId"],
        phone["localId"], in_tenant["localId"]]

    first = by_uid[email["localId"]]
    assert list(first) == ["uid", "email", "emailVerified", "displayName", "metadata", "customClaims",
                           "providerData"]
    assert first["email"] == "ev@example.com" and first["emailVerified"] is False and first["displayName"] == "Ev"
    assert list(first["metadata"]) == ["creationTime", "lastSignInTime"]
    assert first["customClaims"] == {}
    # As accounts:lookup lists the account's providers.
    lookup = ok(api.v1("accounts:lookup", {"idToken": email["idToken"]})).json()["users"][0]
    assert first["providerData"] == [{"rawId": "ev@example.com", "providerId": "password",
                                      "email": "ev@example.com", "federatedId": "ev@example.com"}]
    assert [p["providerId"] for p in lookup["providerUserInfo"]] == ["password"]
    assert by_uid[anonymous["localId"]] == {"uid": anonymous["localId"], "emailVerified": False,
                                            "metadata": by_uid[anonymous["localId"]]["metadata"],
                                            "customClaims": {}}
    admin_made = by_uid["admin-made"]
    assert {k: admin_made[k] for k in ("email", "emailVerified", "displayName", "photoURL", "phoneNumber",
                                       "disabled")} == {
        "email": "admin@example.com", "emailVerified": True, "displayName": "Ad",
        "photoURL": "https://example.com/a.png", "phoneNumber": "+15555550123", "disabled": True}
    assert list(admin_made["metadata"]) == ["creationTime"]  # an admin's account has not signed in
    assert by_uid[idp["localId"]]["providerData"][0]["providerId"] == "google.com"
    assert by_uid[idp["localId"]]["providerData"][0]["rawId"] == "g-1"
    assert "providerData" not in by_uid["custom-1"]
    assert by_uid[link["localId"]]["email"] == "link@example.com"
    assert by_uid[link["localId"]]["emailVerified"] is True
    assert by_uid[phone["localId"]]["phoneNumber"] == "+15555550188"
    assert by_uid[phone["localId"]]["providerData"] == [{"rawId": "+15555550188", "providerId": "phone",
                                                         "phoneNumber": "+15555550188"}]
    # A tenant's user: the parent project in the path and resource, the tenant in data.
    assert by_uid[in_tenant["localId"]]["tenantId"] == tenant
    assert "tenantId" not in first


def test_deletes_send_the_user_as_it_was_and_reset_sends_nothing(wired, functions):
    api, _ = wired
    client = ok(api.v1("accounts:signUp", {"email": "gone@example.com", "password": "secret123",
                                           "returnSecureToken": True})).json()
    ok(api.admin("POST", f"v1/projects/{PROJECT}/accounts", {"localId": "by-admin"}))
    ok(api.admin("POST", f"v1/projects/{PROJECT}/accounts:update",
                 {"localId": "by-admin", "customAttributes": json.dumps({"role": "admin"})}))
    for uid in ("b1", "b2"):
        ok(api.admin("POST", f"v1/projects/{PROJECT}/accounts", {"localId": uid}))
    ok(api.admin("POST", f"v1/projects/{PROJECT}/accounts:batchCreate", {"users": [{"localId": "imported"}]}))
    functions.wait_for(4)

    ok(api.v1("accounts:delete", {"idToken": client["idToken"]}))
    ok(api.admin("POST", f"v1/projects/{PROJECT}/accounts:delete", {"localId": "by-admin"}))
    # batchDelete: one event per account deleted; none for a missing id or a repeated one.
    ok(api.admin("POST", f"v1/projects/{PROJECT}/accounts:batchDelete",
                 {"localIds": ["b1", "missing", "b2", "b1", "imported"], "force": True}))
    # Refused deletes send nothing.
    assert api.admin("POST", f"v1/projects/{PROJECT}/accounts:delete", {"localId": "by-admin"}).status_code == 400
    ok(api.admin("POST", f"v1/projects/{PROJECT}/accounts", {"localId": "kept"}))
    refused = ok(api.admin("POST", f"v1/projects/{PROJECT}/accounts:batchDelete", {"localIds": ["kept"]})).json()
    assert refused["errors"][0]["localId"] == "kept"
    # The emulator's reset deletes without events, as firebase-tools.
    ok(requests.delete(f"{api.base}/emulator/v1/projects/{PROJECT}/accounts"))

    events = sentinel(api, functions, 10)[4:]
    assert [(e.json["eventType"], e.json["data"]["uid"]) for e in events] == [
        (DELETE, client["localId"]), (DELETE, "by-admin"), (DELETE, "b1"), (DELETE, "b2"), (DELETE, "imported"),
        (CREATE, "kept")]
    gone = check_envelope(events[0], DELETE)
    assert gone["email"] == "gone@example.com"
    assert list(gone["metadata"]) == ["creationTime", "lastSignInTime"]
    assert check_envelope(events[1], DELETE)["customClaims"] == {"role": "admin"}
    assert len({e.json["eventId"] for e in functions.events()}) == len(functions.events())


def test_events_wait_for_a_late_functions_emulator_and_a_restarted_one(tmp_path):
    functions = FunctionsEmulator()  # not listening yet
    daemon = Daemon(tmp_path, extra=["--functions-emulator", f"127.0.0.1:{functions.port}"]).start()
    api = Api(daemon.base)
    try:
        early = [ok(api.v1("accounts:signUp", {"returnSecureToken": True})).json()["localId"] for _ in range(3)]
        within_log(daemon, "cannot be reached")
        functions.start()
        assert [e.json["data"]["uid"] for e in functions.wait_for(3)] == early
        functions.stop()
        ok(api.admin("POST", f"v1/projects/{PROJECT}/accounts:delete", {"localId": early[0]}))
        later = ok(api.v1("accounts:signUp", {"returnSecureToken": True})).json()["localId"]
        within_log(daemon, "cannot be reached", count=2)
        functions.start()
        resent = functions.wait_for(5)[3:]
        assert [(e.json["eventType"], e.json["data"]["uid"]) for e in resent] == [(DELETE, early[0]),
                                                                                 (CREATE, later)]
        log = daemon.log.read_text()
        # One warning per outage, however many events waited through it.
        assert log.count("cannot be reached") == 2, log
        assert log.count("answers again") == 2, log
    finally:
        daemon.stop()
        functions.stop()


def test_a_failing_functions_emulator_gets_the_event_again_and_a_refusing_one_drops_it(wired, functions):
    api, daemon = wired
    functions.answers = [503, 500]
    first = ok(api.v1("accounts:signUp", {"returnSecureToken": True})).json()["localId"]
    attempts = functions.wait_for(3)
    assert [e.json["data"]["uid"] for e in attempts] == [first] * 3
    assert len({e.json["eventId"] for e in attempts}) == 1  # the same event, sent again
    functions.answers = [404]
    ok(api.v1("accounts:signUp", {"returnSecureToken": True}))
    after = sentinel(api, functions, 4)
    assert after[3].json["eventType"] == CREATE
    log = daemon.log.read_text()
    assert "answered HTTP 404, so the event was dropped" in log
    assert "it answered HTTP 503" in log


def within_log(daemon, text, count=1, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if daemon.log.read_text().count(text) >= count:
            return
        time.sleep(0.02)
    raise AssertionError(f"{text!r} ×{count} not in {daemon.log.read_text()}")


def test_firebase_json_names_the_functions_emulator_and_the_flag_wins(tmp_path, functions):
    other = FunctionsEmulator().start()
    config = tmp_path / "firebase.json"
    config.write_text(json.dumps({"emulators": {"functions": {"host": "0.0.0.0", "port": functions.port},
                                                "auth": {"port": 9099}}}))
    by_file = Daemon(tmp_path / "a", extra=["--firebase-json", str(config)])
    by_flag = Daemon(tmp_path / "b", extra=["--firebase-json", str(config),
                                            "--functions-emulator", f"http://127.0.0.1:{other.port}"])
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    try:
        by_file.start()
        by_flag.start()
        file_user = ok(Api(by_file.base).v1("accounts:signUp", {})).json()["localId"]
        flag_user = ok(Api(by_flag.base).v1("accounts:signUp", {})).json()["localId"]
        assert [e.json["data"]["uid"] for e in functions.wait_for(1)] == [file_user]
        assert [e.json["data"]["uid"] for e in other.wait_for(1)] == [flag_user]
        assert (f"auth events (user.create, user.delete) go to the Functions emulator at "
                f"http://127.0.0.1:{functions.port} (from {config} emulators.functions)") in by_file.log.read_text()
        assert f"(from --functions-emulator)" in by_flag.log.read_text()
    finally:
        by_file.stop()
        by_flag.stop()
        other.stop()


def test_the_hub_locator_finds_a_functions_emulator_started_after_the_daemon(tmp_path):
    functions = FunctionsEmulator()
    hub = Hub(functions_port=functions.port)
    hub_dir = tmp_path / "tmp"
    hub_dir.mkdir()
    (tmp_path / "d").mkdir()
    daemon = Daemon(tmp_path / "d", extra=["--firebase-json", "none"], env={"TMPDIR": str(hub_dir) + "/"}).start()
    try:
        api = Api(daemon.base)
        waiting = ok(api.v1("accounts:signUp", {})).json()["localId"]
        assert f"listed by the Emulator Suite hub ({hub_dir}/hub-<project>.json)" in daemon.log.read_text()
        # Then firebase-tools starts: its hub writes the locator, its Functions emulator listens.
        functions.start()
        hub.start()
        hub.write_locator(hub_dir, PROJECT)
        assert [e.json["data"]["uid"] for e in functions.wait_for(1)] == [waiting]
        within_log(daemon, f"listed by the Emulator Suite hub at {hub.origin}, from {hub_dir}/hub-{PROJECT}.json")
        # A moved Functions emulator (another port after a restart) is found again through the hub.
        functions.stop()
        moved = FunctionsEmulator().start()
        hub.functions_port = moved.port
        after = ok(api.v1("accounts:signUp", {})).json()["localId"]
        assert [e.json["data"]["uid"] for e in moved.wait_for(1)] == [after]
        moved.stop()
    finally:
        daemon.stop()
        hub.stop()
        functions.stop()


def test_firebase_emulator_hub_variable_is_asked_first(tmp_path, functions):
    hub = Hub(functions_port=functions.port).start()
    daemon = Daemon(tmp_path, extra=["--firebase-json", "none"],
                    env={"FIREBASE_EMULATOR_HUB": f"127.0.0.1:{hub.port}", "TMPDIR": str(tmp_path)}).start()
    try:
        made = ok(Api(daemon.base).v1("accounts:signUp", {})).json()["localId"]
        assert [e.json["data"]["uid"] for e in functions.wait_for(1)] == [made]
        within_log(daemon, f"listed by the Emulator Suite hub at http://127.0.0.1:{hub.port}, from FIREBASE_EMULATOR_HUB")
    finally:
        daemon.stop()
        hub.stop()


@pytest.mark.parametrize("value, reason", [
    ("nope", "key 'functions_emulator' must be host:port, http://host:port or none, got 'nope'"),
    ("127.0.0.1:0", "got '127.0.0.1:0'"),
    ("https://127.0.0.1:5001", "got 'https://127.0.0.1:5001'"),
])
def test_a_bad_functions_emulator_stops_startup_naming_the_key(value, reason):
    result = subprocess.run([BINARY, "serve", "--ephemeral", "--functions-emulator", value],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert reason in result.stderr


def test_none_sends_nothing_and_says_so(tmp_path, functions):
    config = tmp_path / "authemu.yaml"
    config.write_text("functions_emulator: none\n")
    firebase_json = tmp_path / "firebase.json"
    firebase_json.write_text(json.dumps({"emulators": {"functions": {"port": functions.port}}}))
    (tmp_path / "quiet").mkdir()
    (tmp_path / "sending").mkdir()
    quiet = Daemon(tmp_path / "quiet", extra=["--config", str(config), "--firebase-json", str(firebase_json)])
    sending = Daemon(tmp_path / "sending", extra=["--firebase-json", str(firebase_json)])
    try:
        quiet.start()
        sending.start()
        ok(Api(quiet.base).v1("accounts:signUp", {}))
        heard = ok(Api(sending.base).v1("accounts:signUp", {})).json()["localId"]
        # The key beats firebase.json: only the other daemon's account is announced.
        assert [e.json["data"]["uid"] for e in functions.wait_for(1)] == [heard]
        assert "auth events are not sent (functions_emulator: none)" in quiet.log.read_text()
    finally:
        quiet.stop()
        sending.stop()
    assert len(functions.events()) == 1


FAKE_FIREBASE = """#!/usr/bin/env python3
# Stands in for `firebase emulators:exec --only functions --project P "cmd"`: it starts a Functions
# emulator and a hub that writes its locator, then acts as the test command would.
import json, os, sys, time, urllib.request
sys.path.insert(0, {support!r})
from functions_support import FunctionsEmulator, Hub
from pathlib import Path
print("HOST=" + os.environ["FIREBASE_AUTH_EMULATOR_HOST"], "PROJECT=" + os.environ["GCLOUD_PROJECT"], flush=True)
functions = FunctionsEmulator().start()
hub = Hub(functions_port=functions.port).start()
hub.write_locator(Path(os.environ["TMPDIR"]), sys.argv[sys.argv.index("--project") + 1])
request = urllib.request.Request(
    "http://" + os.environ["FIREBASE_AUTH_EMULATOR_HOST"] + "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
    data=b"{{}}", headers={{"Content-Type": "application/json"}})
uid = json.load(urllib.request.urlopen(request))["localId"]
event = functions.wait_for(1)[0]
print("EVENT=" + event.path + " " + event.json["data"]["uid"] + (" same" if event.json["data"]["uid"] == uid else ""))
"""


def test_exec_wrapping_firebase_emulators_exec_delivers_to_its_functions_emulator(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "firebase"
    fake.write_text(FAKE_FIREBASE.format(support=str(Path(__file__).parent)))
    fake.chmod(0o755)
    hub_dir = tmp_path / "tmp"
    hub_dir.mkdir()
    result = subprocess.run(
        [BINARY, "exec", "--firebase-json", "none", "--", str(fake), "emulators:exec", "--only", "functions",
         "--project", "demo-wrapped", "npm test"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path, env={**os.environ, "TMPDIR": str(hub_dir)})
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("HOST=127.0.0.1:") and lines[0].endswith(" PROJECT=demo-wrapped")
    assert lines[1].startswith("EVENT=/functions/projects/demo-wrapped/trigger_multicast ")
    assert lines[1].endswith(" same")


@pytest.mark.parametrize("argv, project", [
    (["firebase", "emulators:exec", "-P", "p-short", "npm test"], "p-short"),
    (["npx", "firebase-tools", "emulators:start", "--project=p-equals"], "p-equals"),
    (["firebase emulators:exec --project p-line 'npm test'"], "p-line"),
    (["firebase", "deploy", "--project", "p-deploy"], None),
])
def test_exec_reads_the_project_of_a_wrapped_firebase_command(tmp_path, argv, project):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("firebase", "npx"):
        script = bin_dir / name
        script.write_text("#!/bin/sh\necho \"PROJECT=$GCLOUD_PROJECT\"\n")
        script.chmod(0o755)
    result = subprocess.run([BINARY, "exec", "--firebase-json", "none", "--", *argv], capture_output=True,
                            text=True, timeout=60, cwd=tmp_path,
                            env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"PROJECT={project or 'demo-project'}"


@pytest.mark.skipif(not os.environ.get("AUTHEMU_TEST_POSTGRES_URL"), reason="needs scripts/test's PostgreSQL")
def test_two_daemons_on_postgresql_each_send_their_own_changes_once(tmp_path):
    from test_postgres import store_url
    schema = f"events_{uuid.uuid4().hex[:12]}"
    receivers = [FunctionsEmulator().start(), FunctionsEmulator().start()]
    daemons = []
    try:
        for name, receiver in zip("ab", receivers):
            (tmp_path / name).mkdir()
            daemons.append(Daemon(tmp_path / name, store=store_url(schema),
                                  extra=["--functions-emulator", f"127.0.0.1:{receiver.port}"]).start())
        a, b = Api(daemons[0].base), Api(daemons[1].base)
        first = ok(a.v1("accounts:signUp", {"email": "pg-a@example.com", "password": "secret123"})).json()["localId"]
        second = ok(b.v1("accounts:signUp", {"email": "pg-b@example.com", "password": "secret123"})).json()[
            "localId"]
        # The address again through the other daemon: refused there, so no second event.
        again = b.v1("accounts:signUp", {"email": "pg-a@example.com", "password": "secret123"})
        assert again.status_code == 400 and again.json()["error"]["message"] == "EMAIL_EXISTS"
        ok(b.admin("POST", f"v1/projects/{PROJECT}/accounts:delete", {"localId": first}))
        ok(a.admin("POST", f"v1/projects/{PROJECT}/accounts:batchDelete", {"localIds": [second], "force": True}))
        seen_a = [(e.json["eventType"], e.json["data"]["uid"]) for e in sentinel(a, receivers[0], 2)]
        seen_b = [(e.json["eventType"], e.json["data"]["uid"]) for e in sentinel(b, receivers[1], 2)]
        assert seen_a == [(CREATE, first), (DELETE, second)]
        assert seen_b == [(CREATE, second), (DELETE, first)]
    finally:
        for daemon in daemons:
            daemon.stop()
        for receiver in receivers:
            receiver.stop()
