"""Secure by construction (issue 53), over real sockets and a real Chromium: the `Host` and the
trusted origins are parsed names, not prefixes, on every route of the route table (read back from
/emulator/openapi.json, which is built from it); an HTTP/1.1 request has exactly one `Host`; the v3
batch calls are the admin's whatever the body says; and no link can make a page of the daemon run
a script: every HTML page sends a strict Content-Security-Policy and navigates only to web
addresses or the app's own scheme."""
import json
import socket
import urllib.parse

import pytest
import requests
from selenium.common.exceptions import NoAlertPresentException

from conftest import PROJECT, error_message

LOOKALIKES = ["127.1.evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "localhost.",
              "127.0.0.1.", "evil.example@127.0.0.1", "127.0.0.1:80@evil.example", "127.0.0.1:x",
              "localhost:9099/evil", "[::1].evil.example", "127.0.0.256"]


def every_route(base):
    """(method, path) of every documented route, parameters written out, and the inspector's root."""
    document = requests.get(base + "/emulator/openapi.json", timeout=10).json()
    routes = [("GET", "/emulator/ui/")]
    for path, operations in document["paths"].items():
        concrete = (path.replace("{project}", PROJECT).replace("{tenant}", "t1").replace("{config}", "oidc.c1"))
        routes += [(method.upper(), concrete) for method in operations if method in ("get", "post", "patch", "delete")]
    assert len(routes) > 150
    return routes


def test_a_lookalike_host_is_refused_on_every_route(daemon):
    for method, path in every_route(daemon.base):
        for host in LOOKALIKES:
            refused = requests.request(method, daemon.base + path, headers={"Host": host, "Authorization": "Bearer owner"},
                                       timeout=10)
            assert refused.status_code == 403, (method, path, host, refused.text[:200])
            assert refused.json()["error"]["status"] == "PERMISSION_DENIED", (method, path, host)


@pytest.mark.parametrize("origin", ["http://127.1.evil.example", "http://127.0.0.1.evil.example",
                                    "http://localhost.evil.example", "http://localhost.", "http://user@localhost",
                                    "http://localhost:99999x", "http://127.0.0.1.nip.io"])
def test_a_lookalike_origin_is_not_trusted(daemon, origin):
    batch_get = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchGet"
    refused = requests.get(daemon.base + batch_get, headers={"Origin": origin, "Authorization": "Bearer owner"},
                           timeout=10)
    assert refused.status_code == 403 and refused.json()["error"]["status"] == "PERMISSION_DENIED"
    assert "Access-Control-Allow-Credentials" not in refused.headers
    client = requests.options(daemon.base + "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                              headers={"Origin": origin, "Access-Control-Request-Method": "POST",
                                       "Access-Control-Request-Headers": "content-type, authorization"}, timeout=10)
    assert client.status_code == 204
    assert "Access-Control-Allow-Credentials" not in client.headers
    assert client.headers["Access-Control-Allow-Headers"] == "content-type"


def raw(daemon, request):
    with socket.create_connection(("127.0.0.1", daemon.port), timeout=10) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), body.decode()


@pytest.mark.parametrize("request_bytes, detail", [
    (b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n", "The request has no Host header; HTTP/1.1 requires one."),
    (b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
     "The request has 2 Host headers; HTTP/1.1 allows one."),
    (b"GET /healthz HTTP/1.0\r\nHost: localhost\r\nhost: localhost\r\n\r\n",
     "The request has 2 Host headers; HTTP/1.1 allows one."),
])
def test_an_http_11_request_has_exactly_one_host(daemon, request_bytes, detail):
    status, body = raw(daemon, request_bytes)
    assert status.endswith("400 Bad Request"), status
    message = "INVALID_HTTP_REQUEST : " + detail
    assert json.loads(body) == {"error": {"code": 400, "message": message, "errors": [
        {"domain": "global", "message": message, "reason": "invalid"}]}}, body


def test_an_http_10_request_without_host_is_served(daemon):
    status, body = raw(daemon, b"GET /healthz HTTP/1.0\r\n\r\n")
    assert status.endswith(" 200 OK") and body == '{"status":"ok"}'


@pytest.mark.parametrize("body", ['{"targetProjectId": ""}', '{"targetProjectId": 0}', '{"targetProjectId": null}',
                                  '{"targetProjectId": {}}', '{"targetProjectId": []}', "{}"])
def test_the_v3_batch_calls_are_the_admins_whatever_the_body_says(daemon, api, body):
    api.v1("accounts:signUp", {"email": "victim@example.com", "password": "secret123"})
    for name in ("downloadAccount", "uploadAccount"):
        refused = requests.post(f"{daemon.base}/www.googleapis.com/identitytoolkit/v3/relyingparty/{name}?key=k",
                                data=body, headers={"Content-Type": "text/plain"}, timeout=10)
        assert (refused.status_code, error_message(refused)) == (
            400, "INSUFFICIENT_PERMISSION : Only authenticated requests can specify target_project_id."), name
        assert "users" not in refused.json()
        from_page = requests.post(f"{daemon.base}/www.googleapis.com/identitytoolkit/v3/relyingparty/{name}?key=k",
                                  data=body, headers={"Content-Type": "text/plain", "Origin": "https://evil.example"},
                                  timeout=10)
        assert from_page.status_code == 403 and from_page.json()["error"]["status"] == "PERMISSION_DENIED"


HANDLER = "/emulator/auth/handler"
WIDGET = {"apiKey": "k", "providerId": "google.com", "appName": "app", "authType": "signInViaRedirect",
          "eventId": "e1"}
PAYLOADS = ["javascript:alert(1)//", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
            "data:text/html,<script>alert(1)</script>", "vbscript:alert(1)", "javascript%3Aalert(1)",
            "<img src=x onerror=alert(1)>", "\"><script>alert(1)</script>", "';alert(1);'",
            "%3Cscript%3Ealert(1)%3C%2Fscript%3E"]


def no_alert(driver):
    try:
        alert = driver.switch_to.alert
    except NoAlertPresentException:
        return True
    text = alert.text
    alert.dismiss()
    raise AssertionError(f"a script ran: alert({text!r}) on {driver.current_url}")


@pytest.mark.parametrize("parameter", ["redirectUrl", "ibi", "clientId", "appId", "apn", "eventId", "authType",
                                       "providerId", "appName", "apiKey"])
def test_in_chromium_no_widget_link_runs_a_script(daemon, api, browser, parameter):
    api.v1("accounts:signInWithIdp", {"postBody": "providerId=google.com&id_token=" + urllib.parse.quote(
        '{"sub":"s1","email":"idp@example.com"}'), "requestUri": "http://localhost", "returnSecureToken": True})
    for payload in PAYLOADS:
        query = dict(WIDGET, **{parameter: payload})
        if parameter in ("ibi", "clientId", "appId", "apn"):
            query.pop("redirectUrl", None)
            query["authType"] = "signInViaRedirect"
        else:
            query.setdefault("redirectUrl", "http://localhost/app")
        driver_url = daemon.base + HANDLER + "?" + urllib.parse.urlencode(query)
        answer = requests.get(driver_url, timeout=10)
        browser.get(driver_url)
        no_alert(browser)
        if answer.status_code == 200:
            policy = answer.headers["Content-Security-Policy"]
            assert "script-src 'nonce-" in policy and "unsafe-inline" not in policy
            assert answer.headers["X-Content-Type-Options"] == "nosniff"
            for button in browser.find_elements("css selector", "button.account")[:1]:
                button.click()
                no_alert(browser)
            assert not browser.current_url.lower().startswith(("javascript:", "data:"))
        else:
            assert answer.status_code == 400, (parameter, payload, answer.text)
            assert answer.json()["authEmulator"]["error"], (parameter, payload)


def test_in_chromium_no_action_link_runs_a_script(daemon, browser):
    for payload in PAYLOADS:
        query = {"apiKey": "k", "mode": "signIn", "oobCode": "code", "continueUrl": payload}
        url = daemon.base + "/emulator/action?" + urllib.parse.urlencode(query)
        answer = requests.get(url, allow_redirects=False, timeout=10)
        assert answer.status_code == 400 and answer.json()["authEmulator"]["error"] in (
            "continueUrl must be an http(s) address", "missing continueUrl query parameter"), (payload, answer.text)
        browser.get(url)
        no_alert(browser)


def test_every_html_page_sends_a_strict_policy(daemon, api):
    pages = [HANDLER + "?" + urllib.parse.urlencode(dict(WIDGET, redirectUrl="http://localhost/app")),
             "/emulator/auth/iframe?apiKey=k&appName=app", "/emulator/ui/", f"/emulator/ui/projects/{PROJECT}/users"]
    for path in pages:
        answer = requests.get(daemon.base + path, timeout=10)
        assert answer.status_code == 200 and answer.headers["Content-Type"].startswith("text/html"), path
        policy = answer.headers["Content-Security-Policy"]
        assert "default-src 'none'" in policy and "base-uri 'none'" in policy, path
        assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0], path
        assert answer.headers["X-Content-Type-Options"] == "nosniff", path
    iframe = requests.get(daemon.base + "/emulator/auth/iframe?apiKey=k&appName=app", timeout=10)
    assert "frame-ancestors" not in iframe.headers["Content-Security-Policy"]
    handler = requests.get(daemon.base + pages[0], timeout=10)
    assert "frame-ancestors 'none'" in handler.headers["Content-Security-Policy"]
    # Each answer has its own nonce.
    assert handler.headers["Content-Security-Policy"] != requests.get(
        daemon.base + pages[0], timeout=10).headers["Content-Security-Policy"]
