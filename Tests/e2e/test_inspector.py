"""The inspector (/emulator/ui) in real headless Chromium, as a developer at a desk uses it."""
import html
import re
import time
import urllib.parse

import pytest
import requests
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_support import ARTIFACTS
from conftest import PROJECT, Daemon, ok
from test_mfa import enable_totp, totp, v2, verified_email_user

UI = f"/emulator/ui/projects/{PROJECT}"


def wait_for(browser, condition, seconds=10):
    """Waits through page loads: an element of the page being left is stale, not a failure."""
    return WebDriverWait(browser, seconds, poll_frequency=0.05,
                         ignored_exceptions=[StaleElementReferenceException]).until(condition)


def shot(browser, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / f"inspector-{name}.png"))


def test_create_a_user_in_the_page_and_find_it_with_the_admin_sdk(api, daemon, browser, admin_auth):
    auth, app = admin_auth
    browser.get(f"{daemon.base}{UI}/users")
    browser.find_element(By.CSS_SELECTOR, "details summary").click()
    browser.find_element(By.ID, "new-email").send_keys("made-in-ui@example.com")
    browser.find_element(By.ID, "new-password").send_keys("secret123")
    browser.find_element(By.ID, "new-name").send_keys("Made In UI")
    browser.find_element(By.ID, "new-claims").send_keys('{"role": "tester"}')
    browser.find_element(By.CSS_SELECTOR, '[data-action="create-user"]').click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-testid="uid"]'))
    uid = browser.find_element(By.CSS_SELECTOR, '[data-testid="uid"]').text
    user = auth.get_user_by_email("made-in-ui@example.com", app=app)
    assert (user.uid, user.display_name, user.custom_claims) == (uid, "Made In UI", {"role": "tester"})
    assert browser.find_element(By.CSS_SELECTOR, '[data-testid="notice"]').text == "User created."
    shot(browser, "user")
    # Disable, then delete after the confirmation step.
    browser.find_element(By.CSS_SELECTOR, '[data-action="disable-user"]').click()
    wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, '[data-testid="disabled"]').text == "yes")
    assert auth.get_user(uid, app=app).disabled is True
    browser.find_element(By.CSS_SELECTOR, '[data-action="delete-user"]').click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-action="confirm"]'))
    browser.find_element(By.CSS_SELECTOR, '[data-action="confirm"]').click()
    wait_for(browser, lambda d: "/users?" in d.current_url)
    assert api.v1(f"projects/{PROJECT}/accounts:lookup", {"localId": [uid]}, admin=True).json().get("users") is None


def test_an_mfa_code_appears_on_an_open_messages_page(api, daemon, browser):
    user = verified_email_user(api, "live@example.com")
    started = v2(api, "mfaEnrollment:start", {"idToken": user["idToken"],
                                               "phoneEnrollmentInfo": {"phoneNumber": "+15555550177"}}).json()
    code = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/smsMessages",
                        params={"phoneNumber": "+15555550177"}).json()["smsMessages"][-1]["code"]
    assert v2(api, "mfaEnrollment:finalize", {"idToken": user["idToken"], "phoneVerificationInfo": {
        "sessionInfo": started["phoneSessionInfo"]["sessionInfo"], "code": code}}).status_code == 200
    first = api.v1("accounts:signInWithPassword", {"email": "live@example.com", "password": "secret123"}).json()
    browser.get(f"{daemon.base}{UI}/messages")
    before = len(browser.find_elements(By.CSS_SELECTOR, '[data-testid="sms-code"]'))
    opened = time.monotonic()
    v2(api, "mfaSignIn:start", {"mfaPendingCredential": first["mfaPendingCredential"],
                                "mfaEnrollmentId": first["mfaInfo"][0]["mfaEnrollmentId"],
                                "phoneSignInInfo": {"phoneNumber": "+15555550177"}}).raise_for_status()
    sent = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/smsMessages",
                        params={"purpose": "MFA_SIGN_IN"}).json()["smsMessages"][-1]["code"]
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, '[data-testid="sms-code"]')) == before + 1, 5)
    assert time.monotonic() - opened < 5
    assert browser.find_elements(By.CSS_SELECTOR, '[data-testid="sms-code"]')[0].text == sent
    shot(browser, "messages")


def test_a_totp_factor_shows_the_rfc_6238_code_of_its_secret(api, daemon, browser):
    enable_totp(api)
    user = verified_email_user(api, "totp-ui@example.com")
    info = v2(api, "mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {}}).json()[
        "totpSessionInfo"]
    assert v2(api, "mfaEnrollment:finalize", {"idToken": user["idToken"], "totpVerificationInfo": {
        "sessionInfo": info["sessionInfo"], "verificationCode": totp(info["sharedSecretKey"])}}).status_code == 200
    browser.get(f"{daemon.base}{UI}/users/{user['localId']}")
    shown = browser.find_element(By.CSS_SELECTOR, '[data-testid="totp-code"]').text
    now = time.time()
    assert shown in {totp(info["sharedSecretKey"], now), totp(info["sharedSecretKey"], now - 30)}
    seconds = int(browser.find_element(By.CSS_SELECTOR, '[data-testid="totp-seconds"]').text)
    assert 1 <= seconds <= 30


def test_clicking_an_email_verification_link_verifies_the_user(api, daemon, browser, admin_auth):
    auth, app = admin_auth
    user = api.v1("accounts:signUp", {"email": "click@example.com", "password": "secret123",
                                      "returnSecureToken": True}).json()
    assert api.v1("accounts:sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": user["idToken"]}).status_code == 200
    browser.get(f"{daemon.base}{UI}/users/{user['localId']}")
    link = browser.find_element(By.CSS_SELECTOR, '[data-testid="oob-link"]').get_attribute("href")
    browser.get(link)
    wait_for(browser, lambda d: "successfully verified" in d.page_source)
    assert auth.get_user(user["localId"], app=app).email_verified is True


def test_a_hostile_display_name_stays_text(api, daemon, browser):
    hostile = "<img src=x onerror=alert(1)>"
    ok(api.v1(f"projects/{PROJECT}/accounts", {"email": "evil@example.com", "displayName": hostile}, admin=True))
    browser.get(f"{daemon.base}{UI}/users?q=evil")
    cell = browser.find_element(By.CSS_SELECTOR, '[data-testid="user-row"] [data-testid="display-name"]')
    assert cell.text == hostile
    assert browser.find_elements(By.CSS_SELECTOR, "td img") == []
    try:
        browser.switch_to.alert
        raise AssertionError("the display name ran as script")
    except NoAlertPresentException:
        pass
    shot(browser, "users")


def test_off_loopback_the_inspector_asks_for_the_admin_token(tmp_path, browser):
    exposed = Daemon(tmp_path, extra=["--host", "0.0.0.0"]).start()
    try:
        browser.get(f"{exposed.base}{UI}/users")
        wait_for(browser, lambda d: "/emulator/ui/login" in d.current_url)
        shot(browser, "login")
        browser.find_element(By.ID, "token").send_keys("wrong")
        browser.find_element(By.CSS_SELECTOR, '[data-action="login"]').click()
        # Read in the wait: the login page is replaced by the one that answers the form.
        wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, '[data-testid="error"]').text
                 == "That is not the admin token.")
        browser.find_element(By.ID, "token").send_keys("owner")
        browser.find_element(By.CSS_SELECTOR, '[data-action="login"]').click()
        wait_for(browser, lambda d: d.current_url.endswith(f"{UI}/users")
                 and d.find_element(By.TAG_NAME, "h1").text == "Users")
        # The cookie holds a session the daemon issued, not the token; a forged one opens nothing.
        session = browser.get_cookie("authemu_admin")
        assert session["httpOnly"] and session["sameSite"] == "Strict"
        assert session["value"] != "owner" and re.fullmatch(r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", session["value"])
        forged = session["value"][:-2] + ("AA" if not session["value"].endswith("AA") else "BB")
        for value in ("owner", forged):
            page = requests.get(f"{exposed.base}{UI}/users", cookies={"authemu_admin": value},
                                allow_redirects=False, timeout=10)
            assert (page.status_code, page.headers["Location"].split("?")[0]) == (303, "/emulator/ui/login"), value
        opened = requests.get(f"{exposed.base}{UI}/users", cookies={"authemu_admin": session["value"]},
                              allow_redirects=False, timeout=10)
        assert opened.status_code == 200
    finally:
        exposed.stop()


def test_test_phone_numbers_edited_in_the_page_work_over_rest(api, daemon, browser):
    browser.get(f"{daemon.base}{UI}/config")
    numbers = browser.find_element(By.ID, "test-numbers")
    numbers.clear()
    numbers.send_keys("+15555550199 246810")
    browser.find_element(By.CSS_SELECTOR, '[data-action="save-test-numbers"]').click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-testid="notice"]'))
    try:
        session = api.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550199"}).json()["sessionInfo"]
        signed_in = api.v1("accounts:signInWithPhoneNumber", {"sessionInfo": session, "code": "246810"})
        assert signed_in.status_code == 200, signed_in.text
        shot(browser, "config")
    finally:
        ok(api.admin("PATCH", f"v2/projects/{PROJECT}/config", {"signIn": {"phoneNumber": {"testPhoneNumbers": {}}}},
                     params={"updateMask": "signIn.phoneNumber.testPhoneNumbers"}))


def test_a_totp_factor_added_in_the_page_scans_to_its_uri(api, daemon, browser, tmp_path):
    import shutil
    import subprocess

    user = api.v1(f"projects/{PROJECT}/accounts", {"email": "scan@example.com", "emailVerified": True}, admin=True)
    browser.get(f"{daemon.base}{UI}/users/{user.json()['localId']}")
    browser.find_element(By.CSS_SELECTOR, "#add-factor summary").click()
    browser.find_element(By.ID, "factor-totp-name").send_keys("Phone app")
    browser.find_element(By.CSS_SELECTOR, '[data-action="add-totp-factor"]').click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-testid="totp-qr"]'))
    secret = browser.find_element(By.CSS_SELECTOR, '[data-testid="totp-secret"]').text
    uri = browser.find_element(By.CSS_SELECTOR, '[data-testid="totp-uri"]').text
    assert uri == (f"otpauth://totp/{PROJECT}:scan@example.com?secret={secret}&issuer={PROJECT}"
                   "&algorithm=SHA1&digits=6&period=30")
    assert browser.find_element(By.CSS_SELECTOR, '[data-testid="totp-code"]').text in {
        totp(secret), totp(secret, time.time() - 30)}
    image = tmp_path / "qr.png"
    browser.find_element(By.CSS_SELECTOR, '[data-testid="totp-qr"]').screenshot(str(image))
    shot(browser, "totp-added")
    scanner = shutil.which("zbarimg")
    assert scanner, "zbar-tools is installed by scripts/setup-deps --test"
    scanned = subprocess.run([scanner, "--raw", "-q", str(image)], capture_output=True, text=True, timeout=30)
    assert scanned.stdout.strip() == uri


def test_the_header_says_when_the_clock_is_frozen_or_moved(api, daemon, browser):
    browser.get(f"{daemon.base}{UI}/users")
    assert browser.find_elements(By.CSS_SELECTOR, '[data-testid="clock"]') == []
    ok(requests.post(f"{daemon.base}/emulator/v1/clock:set", json={"time": "2030-01-01T00:00:00Z", "freeze": True}))
    browser.get(f"{daemon.base}{UI}/users")
    badge = browser.find_element(By.CSS_SELECTOR, '[data-testid="clock"]')
    assert badge.text.startswith("Clock frozen at ")
    assert badge.find_element(By.TAG_NAME, "time").get_attribute("datetime") == "2030-01-01T00:00:00.000Z"
    shot(browser, "clock-frozen")
    browser.set_window_size(390, 844)
    browser.get(f"{daemon.base}{UI}/users")
    shot(browser, "clock-frozen-narrow")
    # The empty-state message spans the narrow card, not its label column.
    empty = browser.find_element(By.CSS_SELECTOR, "table.cards td[colspan]")
    assert empty.text == "No users."  # nothing was searched
    indent = browser.execute_script(
        "const range = document.createRange(); range.selectNodeContents(arguments[0]);"
        "return range.getBoundingClientRect().left - arguments[0].getBoundingClientRect().left;", empty)
    assert indent < 16, indent
    ok(requests.post(f"{daemon.base}/emulator/v1/clock:resume", json={}))
    browser.get(f"{daemon.base}/emulator/ui/")
    assert browser.find_element(By.CSS_SELECTOR, '[data-testid="clock"]').text.startswith("Clock moved to ")
    ok(requests.post(f"{daemon.base}/emulator/v1/clock:reset", json={}))
    browser.get(f"{daemon.base}/emulator/ui/")
    assert browser.find_elements(By.CSS_SELECTOR, '[data-testid="clock"]') == []


@pytest.mark.parametrize("uid", ["with space", "slash/inside", "query?mark", "per%cent", "umläut"])
def test_a_user_whose_uid_needs_escaping_opens_in_the_page(api, daemon, uid):
    ok(api.v1(f"projects/{PROJECT}/accounts", {"localId": uid, "email": "escaped@example.com"}, admin=True))
    page = requests.get(f"{daemon.base}{UI}/users/{urllib.parse.quote(uid, safe='')}", timeout=10)
    assert page.status_code == 200, page.text
    assert html.escape(uid) in page.text and "escaped@example.com" in page.text


def test_the_overview_pages_through_every_project_once(api, daemon, browser):
    projects = {f"paged-{index:02d}" for index in range(45)}
    for project in projects:
        ok(requests.post(f"{api.base}/identitytoolkit.googleapis.com/v1/projects/{project}/accounts",
                         json={"localId": "u"}, headers={"Authorization": "Bearer owner"}, timeout=10))
    seen, path, pages = [], "/emulator/ui/", 0
    while path:
        page = requests.get(daemon.base + path, timeout=10)
        assert page.status_code == 200
        headings = re.findall(r"<h2>([^<]*)</h2>", page.text)
        assert len(headings) <= 21  # 20 a page, and the default project on the first
        seen += headings
        pages += 1
        more = re.search(r'href="([^"]*)" data-testid="next-page"', page.text)
        path = html.unescape(more.group(1)) if more else None
    assert len(seen) == len(set(seen)) and projects <= set(seen) and seen[0] == PROJECT
    assert pages >= 3
    browser.get(f"{daemon.base}/emulator/ui/")
    browser.find_element(By.CSS_SELECTOR, '[data-testid="next-page"]').click()
    wait_for(browser, lambda d: "after=" in d.current_url)
    shot(browser, "overview-page-2")
    browser.set_window_size(390, 844)
    browser.refresh()
    shot(browser, "overview-page-2-narrow")
