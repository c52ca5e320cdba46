"""What a browser does with the emulator, in real headless Chromium: error answers read by a page
on another origin (CORS), the helper iframe of popup and redirect IdP sign-in embedded the way the
JS SDK's gapi library embeds it, a redirect result that crosses from 127.0.0.1 to an app on
localhost, and the helper iframe's message when apis.google.com cannot be loaded."""
import json
from urllib.parse import quote

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

NO_AUTH_EVENT = {"type": "unknown", "error": {"code": "auth/no-auth-event"}}


def open_app(browser, app_server, daemon, query=""):
    """The test app on http://localhost:PORT, with the daemon on http://127.0.0.1:PORT."""
    browser.get(f"http://localhost:{app_server.port}/app.html?emulator={quote(daemon.base, safe='')}{query}")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return window.webStorage !== null"))


def fetch(browser, url, body):
    """A fetch from the page, as the JS SDK makes it; a CORS failure comes back as {'failed': …}."""
    return browser.execute_async_script(
        """
        const [url, body, done] = arguments;
        fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'}, body})
          .then(async r => done({status: r.status, json: await r.json()}))
          .catch(e => done({failed: String(e)}));
        """, url, json.dumps(body))


def sign_in_on_handler(browser, email, name):
    WebDriverWait(browser, 10).until(lambda d: d.find_elements(By.ID, "email"))
    browser.find_element(By.ID, "email").send_keys(email)
    browser.find_element(By.ID, "name").send_keys(name)
    browser.find_element(By.ID, "sign-in").click()


def received(browser, event_id):
    """Waits for the auth event with this id to reach the app's page; returns all it got."""
    WebDriverWait(browser, 10).until(lambda d: d.execute_script(
        "return window.received.some(e => e && e.eventId === arguments[0])", event_id))
    return browser.execute_script("return window.received")


def sign_in_with(api, url_response):
    return api.v1("accounts:signInWithIdp", {
        "requestUri": url_response, "postBody": "", "returnSecureToken": True, "returnIdpCredential": True})


def test_error_answers_reach_a_page_on_another_origin(api, daemon, browser, app_server):
    open_app(browser, app_server, daemon)
    toolkit = f"{daemon.base}/identitytoolkit.googleapis.com/v1"
    body = {"email": "cors@example.com", "password": "secret123", "returnSecureToken": True}
    assert fetch(browser, f"{toolkit}/accounts:signUp?key=k", body)["status"] == 200
    exists = fetch(browser, f"{toolkit}/accounts:signUp?key=k", body)
    assert exists == {"status": 400, "json": {"error": {
        "code": 400, "message": "EMAIL_EXISTS",
        "errors": [{"message": "EMAIL_EXISTS", "reason": "invalid", "domain": "global"}]}}}
    wrong = fetch(browser, f"{toolkit}/accounts:signInWithPassword?key=k",
                  {"email": "cors@example.com", "password": "wrong-one"})
    assert (wrong["status"], wrong["json"]["error"]["message"]) == (400, "INVALID_PASSWORD")
    unknown = fetch(browser, f"{daemon.base}/no/such/route", {})
    assert (unknown["status"], unknown["json"]["error"]["message"]) == (404, "Not Found")
    no_key = fetch(browser, f"{toolkit}/accounts:signUp", body)
    assert (no_key["status"], no_key["json"]["error"]["status"]) == (403, "PERMISSION_DENIED")


def test_helper_iframe_answers_and_relays_a_popup_sign_in(api, daemon, browser, app_server):
    open_app(browser, app_server, daemon)
    assert browser.execute_script("return window.pinged") is True
    assert browser.execute_script("return window.webStorage") == [{"status": "ACK", "webStorageSupport": True}]
    assert browser.execute_script("return window.received") == [NO_AUTH_EVENT]
    app_window = browser.current_window_handle
    browser.execute_script("openPopup('ev-popup')")
    WebDriverWait(browser, 10).until(lambda d: len(d.window_handles) == 2)
    browser.switch_to.window([h for h in browser.window_handles if h != app_window][0])
    sign_in_on_handler(browser, "popup@example.com", "Pop Up")
    browser.switch_to.window(app_window)
    events = received(browser, "ev-popup")
    event = events[-1]
    assert (event["type"], event["eventId"], event["error"]) == ("signInViaPopup", "ev-popup", None)
    signed_in = sign_in_with(api, event["urlResponse"])
    assert signed_in.status_code == 200, signed_in.text
    assert (signed_in.json()["email"], signed_in.json()["displayName"]) == ("popup@example.com", "Pop Up")


def test_redirect_result_reaches_an_app_on_localhost(api, daemon, browser, app_server):
    open_app(browser, app_server, daemon)
    browser.execute_script("startRedirect('ev-redirect')")
    WebDriverWait(browser, 10).until(lambda d: "/emulator/auth/handler" in d.current_url)
    sign_in_on_handler(browser, "redirect@example.com", "Re Direct")
    WebDriverWait(browser, 10).until(lambda d: "back=1" in d.current_url and "localhost" in d.current_url)
    events = received(browser, "ev-redirect")
    assert len(events) == 1
    assert (events[0]["type"], events[0]["eventId"]) == ("signInViaRedirect", "ev-redirect")
    signed_in = sign_in_with(api, events[0]["urlResponse"])
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["email"] == "redirect@example.com"
    # Taken once: the next page load of the app gets no event.
    open_app(browser, app_server, daemon, "&again=1")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return window.received.length") == 1)
    assert browser.execute_script("return window.received") == [NO_AUTH_EVENT]


def test_helper_iframe_says_when_apis_google_com_cannot_load(daemon, browser, gapi_server):
    gapi_server.handler.unavailable = True
    browser.get(f"{daemon.base}/emulator/auth/iframe?apiKey=k&appName=a&v=test")
    WebDriverWait(browser, 10).until(
        lambda d: "could not be loaded" in d.find_element(By.ID, "status").text)
    assert browser.find_element(By.ID, "status").text == (
        "authemu helper iframe: https://apis.google.com/js/api.js could not be loaded (offline?). "
        "Popup and redirect sign-in need it in this iframe and in the app's page.")

