"""A daemon safe to share (issue 42): an admin credential that means something, no page of
another origin driving the daemon (CORS), no DNS rebinding (Host). docs/security.md."""
import os
import time

import pytest
import requests

from browser_support import StaticServer, start_chromium, stop_chromium
from conftest import PROJECT, Daemon, error_message, ok

TOOLKIT = "/identitytoolkit.googleapis.com"
BATCH_GET = f"{TOOLKIT}/v1/projects/{PROJECT}/accounts:batchGet"
SIGN_UP = f"{TOOLKIT}/v1/accounts:signUp?key=k"
WIPE = f"/emulator/v1/projects/{PROJECT}/accounts"
REFUSED_PAGE = ("A page of https://evil.example may not call this endpoint; only this "
                "machine's pages (localhost) and public_url's may.")
INVALID_CREDENTIALS = ("Request had invalid authentication credentials. Expected OAuth 2 access "
                       "token, login cookie or other valid authentication credential. See "
                       "https://developers.google.com/identity/sign-in/web/devconsole-project.")


@pytest.fixture
def own_token(tmp_path):
    config = tmp_path / "authemu.yaml"
    config.write_text("admin_token: s3cret-Admin\n")
    daemon = Daemon(tmp_path, extra=["--config", str(config)]).start()
    yield daemon
    daemon.stop()


def batch_get(base, authorization):
    return requests.get(base + BATCH_GET, headers={"Authorization": authorization},
                        timeout=10)


def test_an_admin_token_of_ones_own_is_exact_and_ends_the_access_token_shortcut(own_token):
    assert batch_get(own_token.base, "Bearer s3cret-Admin").status_code == 200
    assert batch_get(own_token.base, "bearer s3cret-Admin").status_code == 200  # the scheme is case-insensitive
    for wrong in ("Bearer s3cret-admin", "Bearer s3cret-Admin2", "Bearer s3cret-Admi", "Bearer owner",
                  "Bearer ya29.a0AfH6SMB-anything"):
        refused = batch_get(own_token.base, wrong)
        assert (refused.status_code, error_message(refused)) == (401, INVALID_CREDENTIALS), wrong


def test_the_default_token_in_any_case_and_google_access_tokens_are_admin(daemon):
    # As firebase-tools, whose own suite sends `bEArEr OWNER`; an admin_token of one's own stays exact.
    for admin in ("Bearer owner", "bEArEr OWNER", "Bearer Owner", "Bearer ya29.a0AfH6SMB-anything"):
        assert batch_get(daemon.base, admin).status_code == 200, admin
    for wrong in ("Bearer owner2", "Bearer own", "Bearer 0wner"):
        refused = batch_get(daemon.base, wrong)
        assert (refused.status_code, error_message(refused)) == (401, INVALID_CREDENTIALS), wrong


def preflight(base, path, origin, headers="content-type, authorization", private=False):
    extra = {"Access-Control-Request-Private-Network": "true"} if private else {}
    return requests.options(base + path, headers={"Origin": origin, "Access-Control-Request-Method": "POST",
                                                  "Access-Control-Request-Headers": headers, **extra}, timeout=10)


def test_a_page_elsewhere_may_call_the_browser_sdks_routes_without_credentials(daemon, api):
    answer = preflight(daemon.base, SIGN_UP, "https://evil.example", private=True)
    assert answer.status_code == 204
    assert answer.headers["Access-Control-Allow-Origin"] == "https://evil.example"
    assert "Access-Control-Allow-Credentials" not in answer.headers
    assert answer.headers["Access-Control-Allow-Headers"] == "content-type"
    assert answer.headers["Access-Control-Allow-Private-Network"] == "true"
    created = requests.post(daemon.base + SIGN_UP, json={"email": "x@example.com", "password": "secret123"},
                            headers={"Origin": "https://evil.example"}, timeout=10)
    assert created.status_code == 200 and created.json()["email"] == "x@example.com"
    assert created.headers["Access-Control-Allow-Origin"] == "https://evil.example"
    assert "Access-Control-Allow-Credentials" not in created.headers


def test_a_page_elsewhere_may_not_call_admin_or_emulator_routes(daemon, api):
    ok(api.v1("accounts:signUp", {"email": "kept@example.com", "password": "secret123"}))
    for method, path in (("OPTIONS", BATCH_GET), ("GET", BATCH_GET), ("DELETE", WIPE), ("OPTIONS", WIPE),
                         ("POST", "/emulator/v1/clock:advance"), ("GET", f"/emulator/v1/projects/{PROJECT}/oobCodes"),
                         ("GET", "/emulator/ui/")):
        refused = requests.request(method, daemon.base + path, headers={"Origin": "https://evil.example",
                                                                        "Authorization": "Bearer owner"}, timeout=10)
        assert (refused.status_code, error_message(refused)) == (403, REFUSED_PAGE), (method, path)
        assert refused.json()["error"]["status"] == "PERMISSION_DENIED"
        assert "Access-Control-Allow-Origin" not in refused.headers
        assert "Access-Control-Allow-Private-Network" not in refused.headers
    kept = batch_get(daemon.base, "Bearer owner").json()["users"]
    assert [user["email"] for user in kept] == ["kept@example.com"]


@pytest.mark.parametrize("origin", ["http://localhost:4000", "http://127.0.0.1:5173", "http://[::1]:3000",
                                    "http://app.localhost:8080"])
def test_this_machines_pages_may_call_every_route_with_credentials(daemon, origin):
    answer = preflight(daemon.base, BATCH_GET, origin)
    assert answer.status_code == 204
    assert answer.headers["Access-Control-Allow-Origin"] == origin
    assert answer.headers["Access-Control-Allow-Credentials"] == "true"
    assert answer.headers["Access-Control-Allow-Headers"] == "content-type, authorization"
    listed = requests.get(daemon.base + BATCH_GET, headers={"Origin": origin, "Authorization": "Bearer owner"},
                          timeout=10)
    assert listed.status_code == 200 and listed.headers["Access-Control-Allow-Origin"] == origin


def test_public_urls_origin_is_this_daemons_too(tmp_path):
    config = tmp_path / "authemu.yaml"
    config.write_text("public_url: https://auth.team.example\n")
    daemon = Daemon(tmp_path, extra=["--config", str(config)]).start()
    try:
        answer = preflight(daemon.base, WIPE, "https://auth.team.example")
        assert answer.status_code == 204
        assert answer.headers["Access-Control-Allow-Origin"] == "https://auth.team.example"
        named = requests.get(daemon.base + "/healthz", headers={"Host": "auth.team.example"}, timeout=10)
        assert named.status_code == 200
    finally:
        daemon.stop()


@pytest.mark.parametrize("host", ["evil.example:9099", "evil.example", "192.168.1.10:9099", "localhost.evil.example"])
def test_a_loopback_listener_refuses_a_host_that_does_not_name_it(daemon, host):
    refused = requests.get(daemon.base + "/emulator/ui/", headers={"Host": host}, timeout=10)
    assert (refused.status_code, refused.json()["error"]["status"]) == (403, "PERMISSION_DENIED")
    assert error_message(refused) == (f"Host {host} does not name this daemon: a loopback listener answers "
                                      "localhost, 127.0.0.1, [::1] and public_url's host.")


@pytest.mark.parametrize("host", ["localhost:9099", "127.0.0.1:9099", "[::1]:9099", "LOCALHOST", "10.0.2.2:9099",
                                  "127.0.0.2", "ci.localhost:9099"])
def test_a_loopback_listener_answers_its_names_and_the_android_emulators(daemon, host):
    assert requests.get(daemon.base + "/healthz", headers={"Host": host}, timeout=10).status_code == 200


@pytest.fixture
def evil_browser():
    """Chromium resolving evil.test to 127.0.0.1, as DNS rebinding would; a page server for it."""
    pages = StaticServer()
    driver = start_chromium(pages.port, resolve=["evil.test"])
    yield driver, pages
    stop_chromium(driver)
    pages.stop()


FETCH = """
const [url, init, done] = arguments;
fetch(url, init).then(r => r.text().then(t => done({status: r.status, body: t})),
                      e => done({error: String(e)}));
"""


def test_in_chromium_a_page_elsewhere_cannot_read_accounts_or_wipe_them_but_can_sign_up(daemon, api, evil_browser):
    driver, pages = evil_browser
    ok(api.v1("accounts:signUp", {"email": "kept@example.com", "password": "secret123"}))
    driver.get(f"http://evil.test:{pages.port}/app.html")
    read = driver.execute_async_script(FETCH, daemon.base + BATCH_GET, {"headers": {"Authorization": "Bearer owner"}})
    assert read == {"error": "TypeError: Failed to fetch"}
    wiped = driver.execute_async_script(FETCH, daemon.base + WIPE, {"method": "DELETE"})
    assert wiped == {"error": "TypeError: Failed to fetch"}
    # A form-like POST needs no preflight: the daemon refuses it before any handler runs.
    advanced = driver.execute_async_script(
        FETCH, daemon.base + "/emulator/v1/clock:advance", {"method": "POST", "mode": "no-cors", "body": "{}"})
    assert advanced == {"status": 0, "body": ""}
    assert requests.get(daemon.base + "/emulator/v1/clock", timeout=10).json()["offsetSeconds"] == 0
    signed_up = driver.execute_async_script(FETCH, daemon.base + SIGN_UP, {
        "method": "POST", "headers": {"Content-Type": "application/json"},
        "body": '{"email":"page@example.com","password":"secret123"}'})
    assert signed_up["status"] == 200 and '"email":"page@example.com"' in signed_up["body"]
    emails = sorted(user["email"] for user in batch_get(daemon.base, "Bearer owner").json()["users"])
    assert emails == ["kept@example.com", "page@example.com"]


def test_in_chromium_a_rebound_name_gets_no_inspector(daemon, evil_browser):
    driver, _ = evil_browser
    driver.get(f"http://evil.test:{daemon.port}/emulator/ui/")
    text = driver.find_element("tag name", "body").text
    assert f"Host evil.test:{daemon.port} does not name this daemon" in text
    assert "csrf" not in driver.page_source.lower()
    assert driver.get_cookies() == []
    driver.get(f"http://localhost:{daemon.port}/emulator/ui/")
    assert "Users" in driver.title or "authemu" in driver.title.lower()


def test_an_email_with_a_control_character_is_invalid_email(api):
    for email in ("a\nforged line@x.com", "tab\t@x.com", "nul\u0000@x.com", "del\u007f@x.com", "sep\u2028@x.com"):
        answer = api.v1("accounts:signUp", {"email": email, "password": "secret123"})
        assert (answer.status_code, error_message(answer)) == (400, "INVALID_EMAIL"), repr(email)
        created = api.v1(f"projects/{PROJECT}/accounts", {"email": email}, admin=True)
        assert (created.status_code, error_message(created)) == (400, "INVALID_EMAIL"), repr(email)


def test_the_text_log_escapes_control_characters_from_a_request(tmp_path):
    daemon = Daemon(tmp_path).start()
    try:
        signed_up = ok(requests.post(daemon.base + SIGN_UP, json={"email": "log@example.com", "password": "secret123",
                                                                 "returnSecureToken": True}, timeout=10))
        revoked = requests.post(f"{daemon.base}{TOOLKIT}/v2/accounts:revokeToken?key=k",
                                json={"idToken": signed_up.json()["idToken"], "providerId": "apple.com\nforged line\u001b[2J",
                                      "tokenType": "ACCESS_TOKEN", "token": "t"}, timeout=10)
        assert revoked.status_code == 200, revoked.text
    finally:
        daemon.stop()
    lines = daemon.log.read_text().splitlines()
    assert not [line for line in lines if line.startswith("forged line")]
    assert [line for line in lines if "revoked the apple.com\\nforged line\\u{1B}[2J ACCESS_TOKEN of" in line]


def test_the_open_files_limit_is_raised_to_the_hard_limit(tmp_path):
    import subprocess
    from conftest import BINARY, free_port

    port = free_port()
    proc = subprocess.Popen(["prlimit", "--nofile=1024:8192", BINARY, "serve", "--port", str(port), "--ephemeral",
                             "--project", PROJECT], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(400):  # until it is ready, as conftest's Daemon waits
            try:
                if requests.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                    break
            except requests.ConnectionError:
                assert proc.poll() is None, "authemu exited"
                time.sleep(0.05)
        limits = open(f"/proc/{proc.pid}/limits").read().splitlines()
        assert [line.split()[3:5] for line in limits if line.startswith("Max open files")] == [["8192", "8192"]]
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_a_state_file_this_uid_cannot_write_stops_start_up_with_how_to_fix_it():
    """As uid 65534 (root writes everything): a directory it cannot write, then a database it
    cannot write; both stop start-up (exit 2) with the path and the reason."""
    import os
    import shutil
    import subprocess
    import tempfile

    from conftest import BINARY

    work = tempfile.mkdtemp(prefix="authemu-perm-")
    try:
        os.chmod(work, 0o755)
        binary = shutil.copy(BINARY, os.path.join(work, "authemu"))
        locked = os.path.join(work, "locked")
        os.mkdir(locked, 0o755)

        def serve(data):
            return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", binary, "serve",
                                   "--data", data, "--port", "0"], capture_output=True, text=True, timeout=30)

        created = serve(os.path.join(locked, "state.sqlite"))
        assert created.returncode == 2
        assert created.stderr.strip() == (
            f"authemu: cannot open the database: cannot create {locked}/state.sqlite: this process (uid 65534, "
            f"gid 65534) cannot write the directory {locked}")
        os.chmod(locked, 0o777)
        existing = os.path.join(locked, "theirs.sqlite")
        subprocess.run([binary, "reset", "--data", existing], check=True, capture_output=True)
        os.chmod(existing, 0o644)
        refused = serve(existing)
        assert refused.returncode == 2
        assert refused.stderr.strip() == (
            f"authemu: cannot open the database: {existing} exists but this process (uid 65534, gid 65534) cannot "
            "write it: make it writable by this user or its group (a container volume: chmod -R g+w, the image "
            "runs its user in group 0)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize("path", ["/", "/healthz", "/readyz", "/emulator/ui/", f"/emulator/v1/projects/{PROJECT}/config",
                                  f"{TOOLKIT}/v1/projects?key=k"])
def test_head_answers_wherever_get_does_with_the_same_headers_and_no_body(daemon, path):
    get = requests.get(daemon.base + path, timeout=10)
    head = requests.head(daemon.base + path, timeout=10)
    assert (head.status_code, head.content) == (get.status_code, b"")
    assert head.headers["Content-Type"] == get.headers["Content-Type"]
    assert head.headers.get("Content-Length") == get.headers.get("Content-Length")


def test_head_on_a_post_only_route_is_a_404(daemon):
    head = requests.head(daemon.base + SIGN_UP, timeout=10)
    assert (head.status_code, head.content) == (404, b"")


EMULATOR_API = [("GET", f"/emulator/v1/projects/{PROJECT}/oobCodes", {}),
                ("GET", f"/emulator/v1/projects/{PROJECT}/verificationCodes", {}),
                ("GET", f"/emulator/v1/projects/{PROJECT}/smsMessages", {}),
                ("GET", f"/emulator/v1/projects/{PROJECT}/config", {}),
                ("PATCH", f"/emulator/v1/projects/{PROJECT}/config", {}),
                ("DELETE", f"/emulator/v1/projects/{PROJECT}/accounts", {}),
                ("POST", f"/emulator/v1/projects/{PROJECT}/appVerification:failNext",
                 {"fault": "APNS_PUSH", "count": 1}),
                ("GET", "/emulator/v1/clock", {})]
OFF_LOOPBACK = ("The daemon listens beyond loopback: this endpoint needs the admin credential "
                "(Authorization: Bearer …).")


def exposed(tmp_path, token=None):
    extra = ["--host", "0.0.0.0"]
    if token:
        config = tmp_path / "authemu.yaml"
        config.write_text(f"admin_token: {token}\n")
        extra += ["--config", str(config)]
    return Daemon(tmp_path, extra=extra).start()


def test_off_loopback_an_admin_token_of_ones_own_guards_the_emulator_api(tmp_path):
    daemon = exposed(tmp_path, "s3cret-Admin")
    try:
        requests.post(f"{daemon.base}{TOOLKIT}/v1/accounts:sendOobCode?key=k", timeout=10,
                      json={"requestType": "PASSWORD_RESET", "email": "nobody@example.com"})
        for method, path, body in EMULATOR_API:
            refused = requests.request(method, daemon.base + path, json=body, timeout=10)
            assert (refused.status_code, error_message(refused)) == (403, OFF_LOOPBACK), path
            wrong = requests.request(method, daemon.base + path, json=body, timeout=10,
                                     headers={"Authorization": "Bearer owner"})
            assert (wrong.status_code, error_message(wrong)) == (401, INVALID_CREDENTIALS), path
        codes = requests.get(daemon.base + EMULATOR_API[0][1], timeout=10,
                             headers={"Authorization": "Bearer s3cret-Admin"})
        assert (codes.status_code, codes.json()) == (200, {"oobCodes": []})
        # Public keys, health and the action page a link opens stay open: the code is the secret.
        for path in ("/healthz", "/readyz", "/emulator/openapi.json",
                     "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"):
            assert requests.get(daemon.base + path, timeout=10).status_code == 200, path
        action = requests.get(f"{daemon.base}/emulator/action?mode=verifyEmail&oobCode=unknown&apiKey=k",
                              timeout=10)
        assert action.status_code == 400 and "INVALID_OOB_CODE" in action.text
    finally:
        daemon.stop()


def test_off_loopback_with_the_default_token_the_emulator_api_is_open_as_firebase_tools(tmp_path):
    daemon = exposed(tmp_path)
    try:
        for method, path, body in EMULATOR_API[:-1]:
            answer = requests.request(method, daemon.base + path, json=body, timeout=10)
            assert answer.status_code == 200, (path, answer.text)
        clock = requests.get(daemon.base + "/emulator/v1/clock", timeout=10)
        assert (clock.status_code, error_message(clock)) == (403, OFF_LOOPBACK)
    finally:
        daemon.stop()


def test_on_loopback_an_admin_token_of_ones_own_leaves_the_emulator_api_open(own_token):
    for method, path, body in EMULATOR_API:
        answer = requests.request(method, own_token.base + path, json=body, timeout=10)
        assert answer.status_code == 200, (path, answer.text)


def test_the_helpers_send_the_token_to_a_guarded_emulator_api(tmp_path):
    import subprocess
    from conftest import BINARY
    from test_phone import JS_SEND

    daemon = exposed(tmp_path, "s3cret-Admin")
    try:
        ok(requests.post(f"{daemon.base}{TOOLKIT}/v1/accounts:sendVerificationCode?key=k", timeout=10,
                         json={**JS_SEND, "phoneNumber": "+15555550188"}))
        codes = [BINARY, "codes", "--url", daemon.base, "--project", PROJECT, "--phone", "+15555550188"]
        env = {k: v for k, v in os.environ.items() if k != "AUTHEMU_ADMIN_TOKEN"}
        refused = subprocess.run(codes, capture_output=True, text=True, timeout=30, env=env)
        assert refused.returncode == 1 and "needs the admin credential" in refused.stderr, refused.stderr
        for extra, extra_env in ((["--admin-token", "s3cret-Admin"], {}), ([], {"AUTHEMU_ADMIN_TOKEN": "s3cret-Admin"})):
            given = subprocess.run(codes + extra, capture_output=True, text=True, timeout=30, env={**env, **extra_env})
            assert given.returncode == 0, given.stderr
            assert len(given.stdout.strip()) == 6 and given.stdout.strip().isdigit()
    finally:
        daemon.stop()
