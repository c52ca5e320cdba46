"""State survives SIGKILL; bad input gets enveloped 4xx and the daemon keeps serving."""
import json
import signal
import subprocess

import pytest
import requests

from conftest import PROJECT, Api, Daemon, error_message


def test_users_survive_sigkill(tmp_path):
    daemon = Daemon(tmp_path, ephemeral=False).start()
    try:
        api = Api(daemon.base)
        created = []
        for index in range(25):
            response = api.v1("accounts:signUp", {"email": f"k{index}@example.com", "password": "secret123"})
            assert response.status_code == 200, response.text
            created.append(response.json()["localId"])
        tenant_user = api.v1(f"projects/{PROJECT}/tenants/t1/accounts", {"localId": "tenant-user"}, admin=True)
        assert tenant_user.status_code == 200
        assert daemon.kill() == -9
        daemon.start()
        api = Api(daemon.base)
        listed = api.admin("GET", f"v1/projects/{PROJECT}/accounts:batchGet", params={"maxResults": 100})
        assert sorted(u["localId"] for u in listed.json()["users"]) == sorted(created)
        signed_in = api.v1("accounts:signInWithPassword", {"email": "k7@example.com", "password": "secret123"})
        assert signed_in.status_code == 200
        lookup = api.v1(f"projects/{PROJECT}/tenants/t1/accounts:lookup", {"localId": ["tenant-user"]}, admin=True)
        assert lookup.json()["users"][0]["localId"] == "tenant-user"
    finally:
        daemon.stop()


def test_passkeys_survive_sigkill_and_sign_in(tmp_path):
    """The passkey bodies of firebase-tools' passkey.spec.ts; the credential index is durable."""
    daemon = Daemon(tmp_path, ephemeral=False).start()
    try:
        api = Api(daemon.base)
        created = api.v1("accounts:signUp", {"email": "passkey-user@example.com", "password": "password123",
                                             "returnSecureToken": True})
        assert created.status_code == 200
        v2 = f"{daemon.base}/identitytoolkit.googleapis.com/v2/accounts"
        enrolled = requests.post(f"{v2}/passkeyEnrollment:finalize", params={"key": "fake-api-key"},
                                 json={"idToken": created.json()["idToken"],
                                       "authenticatorRegistrationResponse": {"id": "test_credential_id_1"},
                                       "name": "My Security Key"})
        assert enrolled.status_code == 200, enrolled.text
        assert daemon.kill() == -9
        daemon.start()
        signed_in = requests.post(f"{v2}/passkeySignIn:finalize", params={"key": "fake-api-key"},
                                  json={"authenticatorAuthenticationResponse": {"id": "test_credential_id_1"}})
        assert signed_in.status_code == 200, signed_in.text
        assert signed_in.json()["localId"] == created.json()["localId"]
        lookup = api.v1("accounts:lookup", {"idToken": signed_in.json()["idToken"]})
        assert lookup.json()["users"][0]["passkeyInfo"] == [
            {"credentialId": "test_credential_id_1", "name": "My Security Key"}]
    finally:
        daemon.stop()


def test_foreign_file_is_refused_and_untouched(tmp_path):
    data = tmp_path / "state.sqlite"
    data.write_bytes(b"this is not a database" * 10)
    before = data.read_bytes()
    daemon = Daemon(tmp_path, ephemeral=False)
    with pytest.raises(RuntimeError) as failure:
        daemon.start()
    assert "not a SQLite database" in str(failure.value)
    assert data.read_bytes() == before


@pytest.mark.parametrize("body,content_type,status,message", [
    ("{not json", "application/json", 400, "Invalid JSON payload received. The body is not valid JSON."),
    ('{"email": 5, "password": "secret123"}', "application/json", 400, "INVALID_EMAIL"),
    ('{"email": ["x"], "password": "secret123"}', "application/json", 400,
     "Invalid JSON payload received. /email must be string"),
    ('[1,2,3]', "application/json", 400, "Invalid JSON payload received. / must be object"),
    ('{"email": "a@b.c"}', "application/json", 400, "MISSING_PASSWORD"),
    ('{"email": "a@b.c", "password": "123"}', "application/json", 400,
     "WEAK_PASSWORD : Password should be at least 6 characters"),
])
def test_bad_sign_up_bodies(api, body, content_type, status, message):
    response = api.session.post(f"{api.base}/identitytoolkit.googleapis.com/v1/accounts:signUp",
                                params={"key": "k"}, data=body, headers={"Content-Type": content_type})
    assert response.status_code == status
    assert error_message(response) == message
    assert response.json()["error"]["code"] == status


def test_envelopes_for_routes_credentials_and_size(api):
    unknown = api.v1("accounts:doesNotExist", {})
    assert unknown.status_code == 404
    assert unknown.json()["error"]["status"] == "NOT_FOUND"

    no_key = api.v1("accounts:signUp", {}, key=False)
    assert no_key.status_code == 403
    assert no_key.json()["error"]["status"] == "PERMISSION_DENIED"

    bad_bearer = api.session.post(f"{api.base}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:lookup",
                                  json={}, headers={"Authorization": "Bearer not-owner"})
    assert bad_bearer.status_code == 401
    assert bad_bearer.json()["error"]["status"] == "UNAUTHENTICATED"

    key_only = api.v1(f"projects/{PROJECT}/accounts:lookup", {"localId": ["x"]})
    assert error_message(key_only) == \
        "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id."

    huge = api.session.post(f"{api.base}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
                            data=b'{"displayName":"' + b"x" * (17 * 1024 * 1024) + b'"}',
                            headers={"Content-Type": "application/json"})
    assert huge.status_code == 413
    assert huge.json()["error"]["code"] == 413

    unimplemented = api.v1("accounts:signInWithIdp", {"requestUri": "http://localhost", "returnRefreshToken": True})
    assert unimplemented.status_code == 501
    assert error_message(unimplemented) == "signInWithIdp returnRefreshToken is not implemented in the Auth Emulator."

    assert requests.get(f"{api.base}/readyz").status_code == 200


def test_http10_without_keep_alive_is_answered_and_closed(daemon):
    import socket
    for request, closes in [(b"GET /readyz HTTP/1.0\r\n\r\n", True),
                            (b"GET /readyz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", True),
                            (b"GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n", False)]:
        with socket.create_connection(("127.0.0.1", daemon.port)) as sock:
            sock.settimeout(2)
            sock.sendall(request)
            data, closed = b"", False
            try:
                while True:
                    chunk = sock.recv(4096)
                    if not chunk:
                        closed = True
                        break
                    data += chunk
                    if not closes and b"\r\n\r\n" in data and data.endswith(b"}"):
                        break
            except socket.timeout:
                pass
            assert data.startswith(b"HTTP/1.1 200 OK"), data
            assert closed is closes, request


def test_contact_indexes_upgrade_in_place_and_serve_lookups(tmp_path):
    """v6 migration: email/phone indexes only hold rows that have the value. A database from before
    it (old indexes, migration not recorded) is upgraded on start with every user intact, and the
    sign-in and phone lookups search the new indexes."""
    daemon = Daemon(tmp_path, ephemeral=False).start()
    try:
        api = Api(daemon.base)
        assert api.v1("accounts:signUp", {"email": "idx@example.com", "password": "secret123"}).status_code == 200
        phone_user = api.v1(f"projects/{PROJECT}/accounts", {"localId": "idx-phone", "phoneNumber": "+15555550177"},
                            admin=True)
        assert phone_user.status_code == 200, phone_user.text
    finally:
        daemon.stop()
    db = str(daemon.data)

    def sql(statement):
        return subprocess.run(["sqlite3", db, statement], capture_output=True, text=True, check=True).stdout.strip()

    # Roll the file back to the v5 shape.
    sql("DROP INDEX users_email; CREATE INDEX users_email ON users(project_id, tenant_id, email);"
        "DROP INDEX users_phone; CREATE INDEX users_phone ON users(project_id, tenant_id, phone_number);"
        "DELETE FROM grdb_migrations WHERE identifier = 'v6-partial-contact-indexes';")
    daemon.start()
    try:
        api = Api(daemon.base)
        signed_in = api.v1("accounts:signInWithPassword", {"email": "idx@example.com", "password": "secret123"})
        assert signed_in.status_code == 200, signed_in.text
        by_phone = api.v1(f"projects/{PROJECT}/accounts:lookup", {"phoneNumber": ["+15555550177"]}, admin=True)
        assert [u["localId"] for u in by_phone.json()["users"]] == ["idx-phone"]
    finally:
        daemon.stop()
    assert sql("SELECT count(*) FROM grdb_migrations WHERE identifier = 'v6-partial-contact-indexes'") == "1"
    assert sql("SELECT sql FROM sqlite_master WHERE name = 'users_email'").endswith("WHERE email IS NOT NULL")
    assert sql("SELECT sql FROM sqlite_master WHERE name = 'users_phone'").endswith("WHERE phone_number IS NOT NULL")
    where = "FROM users WHERE project_id = ? AND tenant_id = ? AND"
    assert "USING INDEX users_email (project_id=? AND tenant_id=? AND email=?)" in sql(
        f"EXPLAIN QUERY PLAN SELECT local_id {where} email = ?")
    assert "USING INDEX users_phone (project_id=? AND tenant_id=? AND phone_number=?)" in sql(
        f"EXPLAIN QUERY PLAN SELECT local_id {where} phone_number = ? LIMIT 1")
    assert sql("PRAGMA integrity_check") == "ok"


def test_provider_emails_are_indexed_on_upgrade(tmp_path):
    """v7 migration: linked IdPs' emails get a column and index of their own, filled from the stored
    records of a database from before it, so createAuthUri finds an address that only an IdP has."""
    daemon = Daemon(tmp_path, ephemeral=False).start()
    claims = '{"sub":"up-1","email":"first@example.com","email_verified":true}'
    moved = '{"sub":"up-1","email":"Second@Example.com","email_verified":true}'
    try:
        api = Api(daemon.base)
        for token in (claims, moved):
            body = {"requestUri": "http://localhost", "returnSecureToken": True,
                    "postBody": "providerId=facebook.com&id_token=" + requests.utils.quote(token)}
            assert api.v1("accounts:signInWithIdp", body).status_code == 200
    finally:
        daemon.stop()
    db = str(daemon.data)

    def sql(statement):
        return subprocess.run(["sqlite3", db, statement], capture_output=True, text=True, check=True).stdout.strip()

    assert sql("SELECT email FROM federated_ids WHERE raw_id = 'up-1'") == "second@example.com"
    # Roll the file back to the v6 shape.
    sql("DROP INDEX federated_ids_email; ALTER TABLE federated_ids DROP COLUMN email;"
        "DELETE FROM grdb_migrations WHERE identifier = 'v7-provider-emails';")
    daemon.start()
    try:
        api = Api(daemon.base)
        for email, methods in (("second@example.com", ["facebook.com"]), ("first@example.com", ["facebook.com"])):
            uri = api.v1("accounts:createAuthUri", {"identifier": email, "continueUri": "http://localhost"})
            assert uri.status_code == 200, uri.text
            assert uri.json()["registered"] is True
            assert uri.json()["signinMethods"] == methods
        unknown = api.v1("accounts:createAuthUri", {"identifier": "third@example.com", "continueUri": "http://localhost"})
        assert unknown.json()["registered"] is False
    finally:
        daemon.stop()
    assert sql("SELECT email FROM federated_ids WHERE raw_id = 'up-1'") == "second@example.com"
    assert "USING INDEX federated_ids_email" in sql(
        "EXPLAIN QUERY PLAN SELECT local_id FROM federated_ids WHERE project_id = ? AND tenant_id = ? AND email = ?")
    assert sql("PRAGMA integrity_check") == "ok"


def test_an_ephemeral_database_is_a_file_of_its_own_removed_at_stop(tmp_path):
    """`--ephemeral` keeps its state in a directory of its own under $TMPDIR (so reads have
    connections of their own, as with --data): gone when the daemon stops, and after a kill -9
    removed by the next ephemeral start."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    daemon = Daemon(tmp_path, env={"TMPDIR": str(temporary)}).start()
    [directory] = list(temporary.glob("authemu-ephemeral-*"))
    assert directory.name.startswith(f"authemu-ephemeral-{daemon.proc.pid}-")
    assert (directory / "state.sqlite").exists()
    assert oct(directory.stat().st_mode & 0o777) == "0o700"
    created = Api(daemon.base).v1("accounts:signUp", {"email": "e@example.com", "password": "secret123"})
    assert created.status_code == 200
    assert daemon.kill(signal.SIGTERM) == 0
    assert list(temporary.glob("authemu-ephemeral-*")) == []
    killed = Daemon(tmp_path, env={"TMPDIR": str(temporary)}).start()
    assert killed.kill() == -signal.SIGKILL
    assert len(list(temporary.glob("authemu-ephemeral-*"))) == 1
    again = Daemon(tmp_path, env={"TMPDIR": str(temporary)}).start()
    try:
        [left] = list(temporary.glob("authemu-ephemeral-*"))
        assert left.name.startswith(f"authemu-ephemeral-{again.proc.pid}-")
        lookup = Api(again.base).v1("accounts:signInWithPassword", {"email": "e@example.com", "password": "secret123"})
        assert error_message(lookup) == "EMAIL_NOT_FOUND"
    finally:
        again.stop()
    assert list(temporary.glob("authemu-ephemeral-*")) == []
