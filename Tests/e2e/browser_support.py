"""Real headless Chromium (Debian's chromium + chromium-driver, driven by Selenium) for the tests
of what a browser does: a web app's page served on another origin (http://localhost:PORT) than the
daemon (http://127.0.0.1:PORT), and a stand-in for https://apis.google.com/js/api.js, served over
HTTPS with a throwaway certificate to a Chromium whose host resolver maps apis.google.com here."""
import http.server
import os
import shutil
import ssl
import tempfile
import threading
from pathlib import Path

BROWSER_DIR = Path(__file__).resolve().parent / "browser"
ARTIFACTS = Path(os.environ.get("AUTHEMU_ARTIFACTS", Path(__file__).resolve().parent / "artifacts"))


class _Files(http.server.SimpleHTTPRequestHandler):
    """Serves Tests/e2e/browser; `unavailable` makes the stand-in api.js answer 503 (offline)."""

    unavailable = False

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(BROWSER_DIR), **kwargs)

    def do_GET(self):
        if self.path.split("?")[0] == "/js/api.js":
            if type(self).unavailable:
                self.send_error(503)
                return
            self.path = "/gapi_stub.js"
        super().do_GET()

    def log_message(self, *args):
        pass


class StaticServer:
    """A thread serving the browser pages, over HTTP or (with a certificate) HTTPS."""

    def __init__(self, certificate=None):
        handler = type("Handler", (_Files,), {"unavailable": False})
        self.handler = handler
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        if certificate:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*certificate)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def self_signed_certificate(directory):
    """A certificate for apis.google.com; Chromium runs with --ignore-certificate-errors."""
    from tls_support import ca_and_server_certificate

    return ca_and_server_certificate(directory, names=("apis.google.com",))[1]


def start_chromium(gapi_port, window=(1280, 900), resolve=()):
    """A driver whose Chromium keeps its profile and temporary files in `driver.scratch`, a
    directory that `stop_chromium` removes (Chromium leaves its singleton directory in TMPDIR).
    `resolve`: more host names that Chromium resolves to 127.0.0.1 (as a rebinding attacker's would)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    scratch = tempfile.mkdtemp(prefix="authemu-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--ignore-certificate-errors", "--disable-popup-blocking", "--no-first-run",
                 f"--window-size={window[0]},{window[1]}",
                 "--host-resolver-rules=" + ", ".join([f"MAP apis.google.com 127.0.0.1:{gapi_port}"]
                                                       + [f"MAP {name} 127.0.0.1" for name in resolve])):
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={scratch}/profile")
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver",
                      env={**os.environ, "TMPDIR": scratch})
    driver = webdriver.Chrome(options=options, service=service)
    driver.scratch = scratch
    driver.set_script_timeout(15)
    driver.set_page_load_timeout(30)
    return driver


def stop_chromium(driver):
    driver.quit()
    shutil.rmtree(driver.scratch, ignore_errors=True)


def keep_artifacts(driver, name):
    """A screenshot and the DOM of every window, for a failed test."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    kept = []
    for index, handle in enumerate(driver.window_handles):
        try:
            driver.switch_to.window(handle)
            base = ARTIFACTS / f"{name}-{index}"
            driver.save_screenshot(str(base.with_suffix(".png")))
            base.with_suffix(".html").write_text(driver.page_source)
            kept.append(str(base))
        except Exception as error:  # a closed window: keep what the others show
            kept.append(f"window {index}: {error}")
    return kept
