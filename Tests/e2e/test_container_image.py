"""The container image (scripts/image) in a real container runtime: Debian's podman.

Runs when AUTHEMU_IMAGE names a built image (scripts/test builds it after the release build and
sets it); skipped otherwise, since building it needs the release binary.

Facts of these test machines, not of the image (so they live here, never in the Containerfile):
podman's default OCI runtime crun fails here with "cgroups in hybrid mode not supported", and its
default rlimits are refused ("setrlimit RLIMIT_NOFILE/NPROC: Operation not permitted"); runc with
explicit limits works.
"""
import json
import os
import re
import subprocess
import time
import uuid

import pytest
import requests

from conftest import free_port

IMAGE = os.environ.get("AUTHEMU_IMAGE")
pytestmark = pytest.mark.skipif(not IMAGE, reason="AUTHEMU_IMAGE is not set (scripts/test builds the image)")
PODMAN = ["podman", "--runtime", "runc"]
MACHINE_LIMITS = ["--ulimit", "nofile=20000:20000", "--ulimit", "nproc=32768:32768"]
JS_SEND = {"phoneNumber": "+15555550100", "clientType": "CLIENT_TYPE_WEB", "captchaResponse": "NO_RECAPTCHA",
           "recaptchaVersion": "RECAPTCHA_ENTERPRISE", "recaptchaToken": "fake-recaptcha-token"}


def podman(*args, check=True):
    result = subprocess.run([*PODMAN, *args], capture_output=True, text=True, timeout=120)
    if check:
        assert result.returncode == 0, f"podman {' '.join(args)}: {result.stderr}"
    return result


class Container:
    def __init__(self, *options, inside=9099):
        self.name = f"authemu-test-{uuid.uuid4().hex[:10]}"
        self.port = free_port()
        podman("run", "-d", "--name", self.name, *MACHINE_LIMITS, "-p", f"127.0.0.1:{self.port}:{inside}", *options,
               IMAGE)

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def inspect(self):
        return json.loads(podman("inspect", self.name).stdout)[0]

    def wait_healthy(self, seconds=30):
        """Runs the image's HEALTHCHECK (`authemu health`) as the runtime does, until it passes."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if podman("healthcheck", "run", self.name, check=False).returncode == 0:
                state = self.inspect()["State"]
                health = state.get("Health") or state.get("Healthcheck")
                assert health["Status"] == "healthy", state
                return
            time.sleep(0.2)
        raise AssertionError(f"never healthy: {podman('logs', self.name, check=False).stdout}")

    def host_uid(self):
        pid = self.inspect()["State"]["Pid"]
        with open(f"/proc/{pid}/status") as status:
            return next(line.split()[1] for line in status if line.startswith("Uid:"))

    def v1(self, operation, body):
        return requests.post(f"{self.base}/identitytoolkit.googleapis.com/v1/{operation}", params={"key": "k"},
                             json=body, timeout=10)

    def remove(self):
        podman("rm", "-f", "-v", self.name, check=False)


@pytest.fixture
def containers():
    made = []
    yield lambda *options, **kw: made.append(Container(*options, **kw)) or made[-1]
    for container in made:
        container.remove()


@pytest.fixture
def volume():
    name = f"authemu-test-{uuid.uuid4().hex[:10]}"
    podman("volume", "create", name)
    yield name
    podman("volume", "rm", "-f", name, check=False)


def test_no_arguments_serves_on_9099_healthy_and_an_sms_code_signs_in(containers):
    container = containers()
    container.wait_healthy()
    config = container.inspect()["Config"]
    assert config["User"] == "65532:0"
    assert container.host_uid() == "65532"
    signed_up = container.v1("accounts:signUp", {"email": "c@example.com", "password": "secret123"})
    assert signed_up.status_code == 200, signed_up.text
    session = container.v1("accounts:sendVerificationCode", JS_SEND).json()["sessionInfo"]
    codes = requests.get(f"{container.base}/emulator/v1/projects/demo-project/verificationCodes").json()
    code = [c for c in codes["verificationCodes"] if c["sessionInfo"] == session][0]["code"]
    signed_in = container.v1("accounts:signInWithPhoneNumber", {"sessionInfo": session, "code": code})
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["phoneNumber"] == "+15555550100"
    logs = podman("logs", container.name).stdout + podman("logs", container.name).stderr
    assert "authemu listening on 0.0.0.0:9099" in logs
    assert "admin credential" in logs  # the warning about the well-known credential off loopback


def test_a_named_volume_keeps_accounts_and_stop_is_graceful(containers, volume):
    first = containers("-v", f"{volume}:/var/lib/authemu")
    first.wait_healthy()
    uid = first.v1("accounts:signUp", {"email": "kept@example.com", "password": "secret123"}).json()["localId"]
    started = time.monotonic()
    podman("stop", first.name)
    assert time.monotonic() - started < 5
    assert first.inspect()["State"]["ExitCode"] == 0
    assert "authemu stopped" in podman("logs", first.name).stdout
    first.remove()
    second = containers("-v", f"{volume}:/var/lib/authemu")
    second.wait_healthy()
    signed_in = second.v1("accounts:signInWithPassword", {"email": "kept@example.com", "password": "secret123"})
    assert (signed_in.status_code, signed_in.json().get("localId")) == (200, uid), signed_in.text


def test_read_only_root_filesystem(containers):
    container = containers("--read-only")
    container.wait_healthy()
    assert container.v1("accounts:signUp", {"email": "ro@example.com", "password": "secret123"}).status_code == 200


def test_any_uid_openshift_style(containers, volume):
    container = containers("--user", "12345", "-v", f"{volume}:/var/lib/authemu")
    container.wait_healthy()
    assert container.host_uid() == "12345"
    assert container.v1("accounts:signUp", {"email": "uid@example.com", "password": "secret123"}).status_code == 200


def test_configuration_by_environment_and_health_follows_the_port(containers):
    moved = containers("-e", "AUTHEMU_PORT=9199", "-e", "AUTHEMU_PROJECT=env-project", inside=9199)
    moved.wait_healthy()
    assert "authemu listening on 0.0.0.0:9199, project env-project" in podman("logs", moved.name).stdout
    assert moved.v1("accounts:signUp", {"email": "e@example.com", "password": "secret123"}).status_code == 200


def test_the_image_holds_no_shell_and_no_time_zone_data():
    name = f"authemu-test-{uuid.uuid4().hex[:10]}"
    podman("create", "--name", name, IMAGE)
    try:
        listing = subprocess.run(f"podman export {name} | tar -t", shell=True, capture_output=True, text=True,
                                 check=True).stdout.split()
    finally:
        podman("rm", "-v", name)
    assert "usr/bin/authemu" in listing or "./usr/bin/authemu" in listing
    names = {entry.lstrip("./") for entry in listing}
    assert not any(entry.startswith(("bin/sh", "usr/bin/sh", "usr/bin/bash", "usr/share/zoneinfo")) for entry in names)
    assert "etc/ssl/certs/ca-certificates.crt" in names
    labels = json.loads(podman("image", "inspect", IMAGE).stdout)[0]["Labels"]
    assert labels["org.opencontainers.image.licenses"] == "Apache-2.0"
    assert {"org.opencontainers.image.version", "org.opencontainers.image.source",
            "org.opencontainers.image.description"} <= set(labels)


def test_the_image_carries_its_license_notices_and_sbom_and_the_one_version(tmp_path):
    """Issue 45: LICENSE, the generated third-party notices and a valid SPDX SBOM in /usr/share/doc/authemu; the
    version label, the binary's --version and the Server header are the one version."""
    from spdx_tools.spdx.parser.parse_anything import parse_file
    from spdx_tools.spdx.validation.document_validator import validate_full_spdx_document
    version = subprocess.run(["scripts/version"], capture_output=True, text=True, check=True,
                             cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
                             ).stdout.strip()
    name = f"authemu-test-{uuid.uuid4().hex[:10]}"
    podman("create", "--name", name, IMAGE)
    try:
        for file in ("LICENSE", "third-party-notices.txt", "sbom.spdx.json"):
            podman("cp", f"{name}:/usr/share/doc/authemu/{file}", str(tmp_path / file))
    finally:
        podman("rm", "-v", name)
    assert (tmp_path / "LICENSE").read_text().split()[:3] == ["Apache", "License", "Version"]
    notices = (tmp_path / "third-party-notices.txt").read_text()
    for bundled in ("swift-nio", "GRDB.swift", "Debian package libc6", "Debian package libsqlite3-0",
                    "apt-get source glibc=", "/usr/share/common-licenses/LGPL-2.1"):
        assert bundled in notices
    document = parse_file(str(tmp_path / "sbom.spdx.json"))
    assert validate_full_spdx_document(document) == []
    packages = {p.name: p for p in document.packages}
    assert str(packages["authemu"].version) == version
    assert {"swift-nio", "hummingbird", "libc6", "zlib1g", "libsqlite3-0"} <= set(packages)
    labels = json.loads(podman("image", "inspect", IMAGE).stdout)[0]["Labels"]
    assert labels["org.opencontainers.image.version"] == version
    printed = podman("run", "--rm", *MACHINE_LIMITS, IMAGE, "--version").stdout.strip()
    assert re.fullmatch(rf"authemu {re.escape(version)} \(commit [0-9a-f]{{12}}(-dirty)?\)", printed), printed


def test_a_mounted_yaml_file_named_by_authemu_config(containers, tmp_path):
    config = tmp_path / "authemu.yaml"
    config.write_text("project: yaml-project\nsingle_project: error\n")
    config.chmod(0o644)
    container = containers("-v", f"{config}:/etc/authemu.yaml:ro", "-e", "AUTHEMU_CONFIG=/etc/authemu.yaml")
    container.wait_healthy()
    assert "authemu listening on 0.0.0.0:9099, project yaml-project" in podman("logs", container.name).stdout
    refused = requests.post(f"{container.base}/identitytoolkit.googleapis.com/v1/projects/other/accounts:query",
                            json={}, headers={"Authorization": "Bearer owner"}, timeout=10)
    assert refused.status_code == 400
    assert refused.json()["error"]["message"].startswith("Multiple projectIds are not recommended")


def test_a_volume_passes_between_the_default_user_and_any_uid_of_group_0(containers, volume):
    """The image's user, then an OpenShift-style uid, then the image's user again, each killed
    (so -wal and -shm stay behind): every one reads what the others wrote and writes its own."""
    emails = []
    for turn, user in enumerate([[], ["--user", "12345"], []]):
        container = containers(*user, "-v", f"{volume}:/var/lib/authemu")
        container.wait_healthy()
        for email in emails:
            signed_in = container.v1("accounts:signInWithPassword", {"email": email, "password": "secret123"})
            assert signed_in.status_code == 200, (turn, signed_in.text)
        email = f"turn{turn}@example.com"
        signed_up = container.v1("accounts:signUp", {"email": email, "password": "secret123"})
        assert signed_up.status_code == 200, (turn, signed_up.text)
        emails.append(email)
        podman("kill", "-s", "KILL", container.name)
        container.remove()
    mountpoint = podman("volume", "inspect", "--format", "{{.Mountpoint}}", volume).stdout.strip()
    modes = {name: oct(os.stat(os.path.join(mountpoint, name)).st_mode & 0o777)
             for name in ("state.sqlite", "state.sqlite-wal", "state.sqlite-shm")}
    assert modes == {"state.sqlite": "0o664", "state.sqlite-wal": "0o664", "state.sqlite-shm": "0o664"}
