"""Blocking functions called over real HTTP: a local server stands in for the Functions emulator."""
import base64
import json
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from conftest import BINARY, PROJECT, Api, Daemon, error_message
from tls_support import ca_and_server_certificate


def jwt_claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


class FunctionServer:
    """Answers POST /<event> with the reply set for it and records what was posted."""

    def __init__(self, tls=None):
        self.replies = {}
        self.requests = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                server.requests.append((self.path, self.headers["Content-Type"], json.loads(body)))
                status, reply, with_length = server.replies[self.path.lstrip("/")]
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if with_length:
                    self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def functions(api):
    server = FunctionServer()
    yield server
    server.close()
    set_triggers(api, {})


def set_triggers(api, triggers):
    body = {"blockingFunctions": {"triggers": {event: {"functionUri": uri} for event, uri in triggers.items()}}}
    reply = api.admin("PATCH", f"admin/v2/projects/{PROJECT}/config", body,
                      params={"updateMask": "blockingFunctions"})
    assert reply.status_code == 200, reply.text


def test_functions_shape_the_new_account_and_its_tokens(api, functions):
    set_triggers(api, {"beforeCreate": f"{functions.url}/beforeCreate",
                       "beforeSignIn": f"{functions.url}/beforeSignIn"})
    # One answer with Content-Length, one that ends when the connection closes (HTTP/1.0).
    functions.replies["beforeCreate"] = (200, {"userRecord": {"updateMask": "displayName,customClaims",
                                                              "displayName": "Ada",
                                                              "customClaims": {"role": "admin"}}}, True)
    functions.replies["beforeSignIn"] = (200, {"userRecord": {"updateMask": "sessionClaims",
                                                              "sessionClaims": {"session": "yes"}}}, False)
    up = api.v1("accounts:signUp", {"email": "hook@example.com", "password": "secret123",
                                    "returnSecureToken": True, "clientType": "CLIENT_TYPE_WEB"})
    assert up.status_code == 200, up.text
    claims = jwt_claims(up.json()["idToken"])
    assert (claims["name"], claims["role"], claims["session"]) == ("Ada", "admin", "yes")

    paths = [path for path, _, _ in functions.requests]
    assert paths == ["/beforeCreate", "/beforeSignIn"]
    _, content_type, body = functions.requests[0]
    assert content_type == "application/json"
    event = jwt_claims(body["data"]["jwt"])
    assert event["event_type"] == "beforeCreate"
    assert event["sign_in_method"] == "password"
    assert event["aud"] == f"{functions.url}/beforeCreate"
    assert event["user_record"]["uid"] == up.json()["localId"]
    assert event["user_record"]["email"] == "hook@example.com"
    stored = api.v1("accounts:lookup", {"localId": [up.json()["localId"]]}, admin=True).json()["users"][0]
    # Numbers of milliseconds, as firebase-tools sends them (firebase-functions does `new Date(value)`).
    assert event["user_record"]["metadata"]["creation_time"] == int(stored["createdAt"])
    again = api.v1("accounts:signInWithPassword", {"email": "hook@example.com", "password": "secret123"})
    assert again.status_code == 200, again.text
    signed_in = jwt_claims(functions.requests[2][2]["data"]["jwt"])
    assert signed_in["user_record"]["metadata"]["last_sign_in_time"] == int(stored["lastLoginAt"])
    assert stored["displayName"] == "Ada"
    assert json.loads(stored["customAttributes"]) == {"role": "admin"}


def test_a_function_that_refuses_or_is_down_stops_the_sign_up(api, functions):
    set_triggers(api, {"beforeCreate": f"{functions.url}/beforeCreate"})
    functions.replies["beforeCreate"] = (400, {"error": {"status": "INVALID_ARGUMENT", "message": "no"}}, True)
    refused = api.v1("accounts:signUp", {"email": "no@example.com", "password": "secret123"})
    assert refused.status_code == 400
    assert error_message(refused) == (
        f"BLOCKING_FUNCTION_ERROR_RESPONSE : ((HTTP request to {functions.url}/beforeCreate returned HTTP error "
        '400: {"error": {"status": "INVALID_ARGUMENT", "message": "no"}}))')

    closed = f"{functions.url}/beforeCreate"
    functions.close()
    down = api.v1("accounts:signUp", {"email": "no@example.com", "password": "secret123"})
    assert down.status_code == 500
    assert down.json()["error"]["status"] == "INTERNAL"
    assert error_message(down) == f"BLOCKING_FUNCTION_ERROR_RESPONSE : ((Failed to make request to {closed}.))"
    missing = api.v1("accounts:lookup", {"email": ["no@example.com"]}, admin=True).json()
    assert "users" not in missing


class FunctionsSdkServer:
    """beforeCreate / beforeSignIn written with the firebase-functions Python SDK (PyPI), served by
    Flask: the SDK parses the emulator's JWT and builds the answer exactly as deployed functions do."""

    def __init__(self, project):
        import firebase_admin
        import flask
        import google.auth.credentials
        from firebase_admin import credentials
        from firebase_functions import https_fn, identity_fn
        from werkzeug.serving import make_server

        class OfflineCredential(credentials.Base):
            def get_credential(self):
                return google.auth.credentials.AnonymousCredentials()

        if firebase_admin._DEFAULT_APP_NAME not in firebase_admin._apps:
            firebase_admin.initialize_app(OfflineCredential(), {"projectId": project})
        self.events = []

        @identity_fn.before_user_created()
        def before_create(event):
            self.events.append(event)
            if event.data.email.startswith("blocked"):
                raise https_fn.HttpsError(https_fn.FunctionsErrorCode.PERMISSION_DENIED, "Not on the list.")
            return identity_fn.BeforeCreateResponse(
                display_name="From beforeCreate", photo_url="http://localhost/p.png",
                custom_claims={"role": "reader"})

        @identity_fn.before_user_signed_in()
        def before_sign_in(event):
            self.events.append(event)
            return identity_fn.BeforeSignInResponse(session_claims={"via": event.additional_user_info.provider_id})

        app = flask.Flask("functions")
        app.add_url_rule("/beforeCreate", "beforeCreate", lambda: before_create(flask.request), methods=["POST"])
        app.add_url_rule("/beforeSignIn", "beforeSignIn", lambda: before_sign_in(flask.request), methods=["POST"])
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


@pytest.fixture
def functions_sdk(api, daemon, monkeypatch):
    # The SDK skips the signature check when it runs against the Auth emulator.
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", f"127.0.0.1:{daemon.port}")
    server = FunctionsSdkServer(PROJECT)
    yield server
    server.close()
    set_triggers(api, {})


def test_functions_written_with_the_firebase_functions_sdk(api, functions_sdk):
    set_triggers(api, {"beforeCreate": f"{functions_sdk.url}/beforeCreate",
                       "beforeSignIn": f"{functions_sdk.url}/beforeSignIn"})
    up = api.v1("accounts:signUp", {"email": "reader@example.com", "password": "secret123",
                                    "returnSecureToken": True})
    assert up.status_code == 200, up.text
    claims = jwt_claims(up.json()["idToken"])
    assert claims["name"] == "From beforeCreate"
    assert claims["picture"] == "http://localhost/p.png"
    assert (claims["role"], claims["via"]) == ("reader", "password")

    created, signed_in = functions_sdk.events
    assert created.data.uid == up.json()["localId"]
    assert created.data.email == "reader@example.com"
    assert created.additional_user_info.is_new_user is True
    assert created.data.metadata.creation_time is not None
    assert signed_in.data.display_name == "From beforeCreate"
    assert signed_in.data.custom_claims == {"role": "reader"}
    assert signed_in.additional_user_info.is_new_user is False

    refused = api.v1("accounts:signUp", {"email": "blocked@example.com", "password": "secret123"})
    assert refused.status_code == 400
    message = error_message(refused)
    assert message.startswith("BLOCKING_FUNCTION_ERROR_RESPONSE : ((HTTP request to "
                              f"{functions_sdk.url}/beforeCreate returned HTTP error 403: ")
    assert "Not on the list." in message


def test_https_functions_and_the_send_events(tmp_path):
    """beforeSendSms and beforeSendEmail over https://, trusted through --functions-ca-file."""
    ca, server_certificate = ca_and_server_certificate(tmp_path)
    server = FunctionServer(tls=server_certificate)
    daemon = Daemon(tmp_path, extra=["--functions-ca-file", ca]).start()
    try:
        api = Api(daemon.base)
        set_triggers(api, {"beforeSendSms": f"{server.url}/beforeSendSms",
                           "beforeSendEmail": f"{server.url}/beforeSendEmail"})
        server.replies["beforeSendSms"] = (200, {}, True)
        sent = api.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550170"})
        assert sent.status_code == 200, sent.text
        claims = jwt_claims(server.requests[-1][2]["data"]["jwt"])
        assert (claims["event_type"], claims["sms_type"]) == ("beforeSendSms", "SIGN_IN_OR_SIGN_UP")
        assert claims["user_record"]["phone_number"] == "+15555550170"
        server.replies["beforeSendSms"] = (200, {"recaptchaActionOverride": "BLOCK"}, True)
        blocked = api.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550171"})
        assert (blocked.status_code, error_message(blocked)) == (
            400, "BLOCKING_FUNCTION_ERROR_RESPONSE : ((The beforeSendSms function blocked the SMS "
                 "(recaptchaActionOverride: BLOCK).))")
        outbox = api.session.get(f"{daemon.base}/emulator/v1/projects/{PROJECT}/smsMessages",
                                 params={"phoneNumber": "+15555550171"}).json()
        assert outbox == {"smsMessages": []}
        assert api.v1("accounts:signUp", {"email": "https@example.com", "password": "secret123"}).status_code == 200
        server.replies["beforeSendEmail"] = (200, {"recaptchaActionOverride": "BLOCK"}, True)
        reset = api.v1("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "https@example.com"})
        assert error_message(reset).startswith("BLOCKING_FUNCTION_ERROR_RESPONSE : ((The beforeSendEmail function")
        assert jwt_claims(server.requests[-1][2]["data"]["jwt"])["email_type"] == "PASSWORD_RESET"
        codes = api.session.get(f"{daemon.base}/emulator/v1/projects/{PROJECT}/oobCodes").json()["oobCodes"]
        assert codes == []
    finally:
        daemon.stop()
        server.close()


def test_https_function_without_a_trusted_ca_fails_cleanly(api, functions, tmp_path):
    _, server_certificate = ca_and_server_certificate(tmp_path)
    secure = FunctionServer(tls=server_certificate)
    try:
        set_triggers(api, {"beforeSendSms": f"{secure.url}/beforeSendSms"})
        secure.replies["beforeSendSms"] = (200, {}, True)
        refused = api.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550172"})
        assert (refused.status_code, error_message(refused)) == (
            500, f"BLOCKING_FUNCTION_ERROR_RESPONSE : ((Failed to make request to {secure.url}/beforeSendSms.))")
        assert secure.requests == []
    finally:
        secure.close()


def test_an_unusable_functions_ca_file_stops_startup(tmp_path):
    missing = tmp_path / "missing.pem"
    run = subprocess.run([BINARY, "serve", "--ephemeral", "--port", "0", "--functions-ca-file", str(missing)],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 2
    assert f"key 'functions_ca_file': {missing} cannot read PEM certificates" in run.stderr


def test_a_phone_user_marked_verified_by_a_function_has_the_claim(api, functions):
    """firebase-tools: the ID token's email_verified follows the record, also without an address."""
    set_triggers(api, {"beforeCreate": f"{functions.url}/beforeCreate"})
    functions.replies["beforeCreate"] = (200, {"userRecord": {"updateMask": "emailVerified", "emailVerified": True}},
                                         True)
    phone = "+15555550177"
    sent = api.v1("accounts:sendVerificationCode", {"phoneNumber": phone, "recaptchaToken": "t"})
    assert sent.status_code == 200, sent.text
    codes = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/verificationCodes").json()["verificationCodes"]
    code = [c["code"] for c in codes if c["sessionInfo"] == sent.json()["sessionInfo"]][0]
    signed_in = api.v1("accounts:signInWithPhoneNumber", {"sessionInfo": sent.json()["sessionInfo"], "code": code})
    assert signed_in.status_code == 200, signed_in.text
    claims = jwt_claims(signed_in.json()["idToken"])
    assert (claims["phone_number"], claims["email_verified"]) == (phone, True)
    assert "email" not in claims
