"""Starts the built authemu binary on a free port and points the Admin SDK at it."""
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("AUTHEMU_BIN", str(ROOT / ".build" / "debug" / "authemu"))
PROJECT = "e2e-project"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Daemon:
    """One authemu process; restartable on the same data file."""

    def __init__(self, tmp_path, ephemeral=True, extra=(), store=None, env=None):
        """`store` is --store's value; `env` is added to the environment. With `extra` or `env` naming
        the state (--config, AUTHEMU_STORE), pass ephemeral=None so that no --data/--ephemeral is added."""
        self.port = free_port()
        self.data = tmp_path / "state.sqlite"
        self.ephemeral = ephemeral
        self.store = store
        self.extra = list(extra)
        self.env = None if env is None else {**os.environ, **env}
        self.proc = None
        self.log = tmp_path / "authemu.log"

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        args = [BINARY, "serve", "--port", str(self.port), "--project", PROJECT] + self.extra
        if self.store:
            args += ["--store", self.store]
        elif self.ephemeral is not None:
            args += ["--ephemeral"] if self.ephemeral else ["--data", str(self.data)]
        self.proc = subprocess.Popen(args, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT, env=self.env)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"authemu exited: {self.log.read_text()}")
            try:
                with urllib.request.urlopen(self.base + "/readyz", timeout=1) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("authemu did not become ready")

    def kill(self, sig=signal.SIGKILL):
        self.proc.send_signal(sig)
        return self.proc.wait(timeout=20)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.kill(signal.SIGTERM)


@pytest.fixture(scope="session", autouse=True)
def no_ephemeral_database_left():
    """An `--ephemeral` daemon keeps its database in a directory of its own under the temporary
    directory and removes it when it stops; one a test killed (-9) leaves it for the next
    ephemeral start to remove. After the last test, those of daemons that are gone are removed."""
    yield
    import shutil
    import tempfile
    temporary = Path(tempfile.gettempdir())
    for directory in temporary.glob("authemu-ephemeral-*"):
        pid = int(directory.name.split("-")[2])
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(directory, ignore_errors=True)
        except PermissionError:
            pass


@pytest.fixture(scope="session")
def daemon(tmp_path_factory):
    # AUTHEMU_E2E_STORE=postgres://… runs the shared daemon on PostgreSQL (a schema of its own).
    store = os.environ.get("AUTHEMU_E2E_STORE")
    if store:
        store += f"{'&' if '?' in store else '?'}schema=e2e_shared_{os.getpid()}_{int(time.time())}"
    instance = Daemon(tmp_path_factory.mktemp("authemu"), store=store).start()
    yield instance
    instance.stop()


@pytest.fixture
def api(daemon):
    """Plain-HTTP client with the default project's accounts, settings, tenants and clock reset first:
    nothing one test sets leaks into the next."""
    requests.delete(f"{daemon.base}/emulator/v1/projects/{PROJECT}/accounts").raise_for_status()
    requests.delete(f"{daemon.base}/emulator/v1/projects/{PROJECT}/config").raise_for_status()
    requests.post(f"{daemon.base}/emulator/v1/clock:reset").raise_for_status()
    return Api(daemon.base)


class Api:
    def __init__(self, base):
        self.base = base
        self.session = requests.Session()

    def v1(self, operation, body, admin=False, key=True, project=None):
        params = {"key": "fake-api-key"} if key else {}
        headers = {"Authorization": "Bearer owner"} if admin else {}
        return self.session.post(f"{self.base}/identitytoolkit.googleapis.com/v1/{operation}",
                                 params=params, json=body, headers=headers)

    def v3(self, name, body):
        return self.session.post(f"{self.base}/www.googleapis.com/identitytoolkit/v3/relyingparty/{name}",
                                 params={"key": "fake-api-key"}, json=body)

    def admin(self, method, path, body=None, params=None):
        return self.session.request(method, f"{self.base}/identitytoolkit.googleapis.com/{path}",
                                    json=body, params=params, headers={"Authorization": "Bearer owner"})


def ok(response):
    """A setup call's answer, which must be a success: a refused setup fails the test there."""
    request = response.request
    assert 200 <= response.status_code < 300, f"{request.method} {request.url}: {response.status_code} {response.text}"
    return response


def error_message(response):
    return response.json()["error"]["message"]


@pytest.fixture
def admin_auth(daemon, api):
    """firebase_admin bound to the daemon through FIREBASE_AUTH_EMULATOR_HOST."""
    import firebase_admin
    import google.auth.credentials
    from firebase_admin import auth, credentials

    class OfflineCredential(credentials.Base):
        """tenant_mgt builds a production HTTP client up front; it must not need real credentials."""

        def get_credential(self):
            return google.auth.credentials.AnonymousCredentials()

    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = f"127.0.0.1:{daemon.port}"
    name = f"app-{daemon.port}"
    try:
        app = firebase_admin.get_app(name)
    except ValueError:
        app = firebase_admin.initialize_app(OfflineCredential(), options={"projectId": PROJECT}, name=name)
    return auth, app


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Lets fixtures see whether their test failed (browser artifacts are kept then)."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture(scope="session")
def gapi_server(tmp_path_factory):
    from browser_support import StaticServer, self_signed_certificate

    server = StaticServer(certificate=self_signed_certificate(tmp_path_factory.mktemp("tls")))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def app_server():
    from browser_support import StaticServer

    server = StaticServer()
    yield server
    server.stop()


@pytest.fixture
def browser(request, gapi_server):
    """Headless Chromium; on failure its windows' screenshots and DOM go to Tests/e2e/artifacts."""
    from browser_support import keep_artifacts, start_chromium, stop_chromium

    driver = start_chromium(gapi_server.port)
    yield driver
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        for path in keep_artifacts(driver, request.node.name):
            print(f"browser artifact: {path}")
    stop_chromium(driver)
    gapi_server.handler.unavailable = False


def pytest_collection_modifyitems(config, items):
    """With AUTHEMU_E2E_STORE, only the tests of the shared daemon run again (on PostgreSQL); those
    that start daemons of their own already ran on SQLite."""
    if os.environ.get("AUTHEMU_E2E_STORE"):
        for item in items:
            if "daemon" not in item.fixturenames:
                item.add_marker(pytest.mark.skip(reason="starts its own daemons: run once, on SQLite"))
