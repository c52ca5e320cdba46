"""One reset that leaves nothing behind, against the built binary: deleting a scope's accounts also
removes its email action codes, SMS and APNs outboxes and armed faults; the CLI's `reset` clears a
project and its tenants; `DELETE …/oobCodes` and `…/verificationCodes` clear only those."""
import subprocess

import requests

from conftest import BINARY, PROJECT, Api, Daemon, ok

EMULATOR = f"/emulator/v1/projects/{PROJECT}"


def leave_traces(api, tenant=None):
    """An account, a password-reset code and an SMS code in one scope."""
    scoped = {"tenantId": tenant} if tenant else {}
    ok(api.v1("accounts:signUp", {"email": "reset@example.com", "password": "secret123", **scoped}))
    ok(api.v1("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "reset@example.com", **scoped}))
    ok(api.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550181", **scoped}))


def listed(api, scope, name):
    return requests.get(f"{api.base}{scope}/{name}").json()[name]


def test_deleting_accounts_clears_their_codes_and_messages_and_a_tenant_keeps_its_own(api):
    tenant = ok(api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "reset",
                                                                     "allowPasswordSignup": True})).json()
    tenant_id = tenant["name"].split("/")[-1]
    tenant_scope = f"{EMULATOR}/tenants/{tenant_id}"
    leave_traces(api)
    leave_traces(api, tenant_id)
    ok(api.v1("accounts:verifyIosClient", {"appToken": "reset-device", "isSandbox": True}))
    assert [len(listed(api, EMULATOR, name)) for name in ("oobCodes", "verificationCodes", "apnsPushes")] == [1, 1, 1]

    deleted = requests.delete(f"{api.base}{EMULATOR}/accounts")
    assert (deleted.status_code, deleted.json()) == (200, {})
    for name in ("oobCodes", "verificationCodes", "smsMessages", "apnsPushes"):
        assert listed(api, EMULATOR, name) == [], name
    assert len(listed(api, tenant_scope, "oobCodes")) == 1
    assert len(listed(api, tenant_scope, "verificationCodes")) == 1
    again = api.v1("accounts:signUp", {"email": "reset@example.com", "password": "secret123"})
    assert again.status_code == 200, again.text

    ok(requests.delete(f"{api.base}{tenant_scope}/accounts"))
    assert listed(api, tenant_scope, "oobCodes") == []
    assert listed(api, tenant_scope, "verificationCodes") == []


def test_clearing_only_the_codes(api):
    leave_traces(api)
    cleared = requests.delete(f"{api.base}{EMULATOR}/oobCodes")
    assert (cleared.status_code, cleared.json()) == (200, {})
    assert listed(api, EMULATOR, "oobCodes") == []
    assert len(listed(api, EMULATOR, "verificationCodes")) == 1
    cleared = requests.delete(f"{api.base}{EMULATOR}/verificationCodes")
    assert (cleared.status_code, cleared.json()) == (200, {})
    assert listed(api, EMULATOR, "verificationCodes") == []
    taken = api.v1("accounts:signUp", {"email": "reset@example.com", "password": "secret123"})
    assert taken.json()["error"]["message"] == "EMAIL_EXISTS"


def test_the_cli_reset_clears_the_project_and_its_tenants(tmp_path):
    daemon = Daemon(tmp_path, ephemeral=False).start()
    try:
        api = Api(daemon.base)
        tenant = ok(api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "cli",
                                                                         "allowPasswordSignup": True})).json()
        tenant_id = tenant["name"].split("/")[-1]
        leave_traces(api)
        leave_traces(api, tenant_id)
        ok(requests.post(f"{daemon.base}{EMULATOR}/appVerification:failNext", json={"fault": "APNS_PUSH",
                                                                                  "count": 3}))
        daemon.stop()
        done = subprocess.run([BINARY, "reset", "--data", str(daemon.data), "--project", PROJECT],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == f"removed 2 account(s) of project {PROJECT}"
        daemon.start()
        for scope in (EMULATOR, f"{EMULATOR}/tenants/{tenant_id}"):
            for name in ("oobCodes", "verificationCodes"):
                assert listed(api, scope, name) == [], (scope, name)
        ok(api.v1("accounts:verifyIosClient", {"appToken": "after-reset", "isSandbox": True}))
        assert len(listed(api, EMULATOR, "apnsPushes")) == 1
    finally:
        daemon.stop()


def test_a_running_daemon_lists_what_another_daemon_and_the_cli_reset_wrote_on_its_file(tmp_path):
    """A daemon alone on its file answers a listing read again from memory (CodeListingStamps); a
    second daemon on the file, and `authemu reset --data` run beside it, each make it read again."""
    first = Daemon(tmp_path, ephemeral=False).start()
    second = Daemon(tmp_path, ephemeral=False)
    try:
        api = Api(first.base)
        leave_traces(api)
        codes = listed(api, EMULATOR, "verificationCodes")
        assert [entry["phoneNumber"] for entry in codes] == ["+15555550181"]
        assert listed(api, EMULATOR, "verificationCodes") == codes
        assert (tmp_path / "state.sqlite-lock").exists()

        second.start()
        other = Api(second.base)
        sent = ok(other.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550182"})).json()
        assert listed(api, EMULATOR, "verificationCodes")[1]["sessionInfo"] == sent["sessionInfo"]
        assert len(listed(api, EMULATOR, "verificationCodes")) == 2
        second.stop()
        second.proc.wait(timeout=20)
        ok(api.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550183"}))
        assert [entry["phoneNumber"] for entry in listed(api, EMULATOR, "verificationCodes")] == [
            "+15555550181", "+15555550182", "+15555550183"]
        assert [entry["email"] for entry in listed(api, EMULATOR, "oobCodes")] == ["reset@example.com"]

        done = subprocess.run([BINARY, "reset", "--data", str(first.data), "--project", PROJECT],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert listed(api, EMULATOR, "verificationCodes") == []
        assert listed(api, EMULATOR, "oobCodes") == []
    finally:
        second.stop()
        first.stop()
