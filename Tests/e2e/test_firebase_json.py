"""A firebase-tools project folder (firebase.json + .firebaserc): serve and exec take the auth
emulator's host and port, singleProjectMode and the default project from it; flags and AUTHEMU_*
variables win; a malformed file stops start-up naming the file and the key."""
import json
import os
import subprocess
import sys
import time
import urllib.request

import requests

from conftest import BINARY, free_port


def firebase_project(root, port, firebaserc=True, single=None):
    """The layout `firebase init` leaves: firebase.json with other products' sections, .firebaserc, functions/."""
    emulators = {"auth": {"host": "127.0.0.1", "port": port}, "ui": {"enabled": True, "port": 4000},
                 "firestore": {"port": 8080}}
    if single is not None:
        emulators["singleProjectMode"] = single
    (root / "firebase.json").write_text(json.dumps({
        "hosting": {"public": "public", "ignore": ["firebase.json", "**/.*"]},
        "functions": [{"source": "functions", "codebase": "default"}],
        "firestore": {"rules": "firestore.rules"},
        "emulators": emulators,
    }, indent=2))
    if firebaserc:
        (root / ".firebaserc").write_text(json.dumps({"projects": {"default": "fb-project", "prod": "fb-prod"},
                                                      "targets": {}, "etags": {}}))
    (root / "functions").mkdir()
    return root


PRINT_ENV = "import os; print(os.environ['FIREBASE_AUTH_EMULATOR_HOST'], os.environ['GCLOUD_PROJECT'])"


def test_exec_in_a_subfolder_takes_port_and_project_from_the_project_files(tmp_path):
    port = free_port()
    root = firebase_project(tmp_path, port)
    result = subprocess.run([BINARY, "exec", "--", sys.executable, "-c", PRINT_ENV], cwd=root / "functions",
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [f"127.0.0.1:{port}", "fb-project"]


def test_flags_and_environment_win_over_firebase_json(tmp_path):
    root = firebase_project(tmp_path, free_port())
    flag_port, env_port = free_port(), free_port()
    by_flag = subprocess.run([BINARY, "exec", "--port", str(flag_port), "--project", "flag-project", "--",
                              sys.executable, "-c", PRINT_ENV], cwd=root, capture_output=True, text=True, timeout=60)
    assert by_flag.stdout.split() == [f"127.0.0.1:{flag_port}", "flag-project"], by_flag.stderr
    by_env = subprocess.run([BINARY, "exec", "--", sys.executable, "-c", PRINT_ENV], cwd=root, capture_output=True,
                            text=True, timeout=60, env={**os.environ, "AUTHEMU_PORT": str(env_port)})
    assert by_env.stdout.split() == [f"127.0.0.1:{env_port}", "fb-project"], by_env.stderr
    ignored = subprocess.run([BINARY, "exec", "--firebase-json", "none", "--", sys.executable, "-c", PRINT_ENV],
                             cwd=root, capture_output=True, text=True, timeout=60)
    assert ignored.stdout.split()[1] == "demo-project", ignored.stderr


def start_serve(root, port, extra=(), env=None):
    log = open(root / "serve.log", "wb")
    proc = subprocess.Popen([BINARY, "serve", "--ephemeral", *extra], cwd=root, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, **(env or {})})
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        assert proc.poll() is None, (root / "serve.log").read_text()
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1).status == 200:
                return proc
        except OSError:
            time.sleep(0.05)
    raise AssertionError("not ready")


def test_serve_warns_once_per_other_project_in_single_project_mode(tmp_path):
    port = free_port()
    root = firebase_project(tmp_path, port, single=True)
    proc = start_serve(root, port)
    try:
        base = f"http://127.0.0.1:{port}/identitytoolkit.googleapis.com/v1"
        signed = requests.post(f"{base}/accounts:signUp?key=k", json={"email": "d@example.com", "password": "secret1"})
        assert signed.status_code == 200, signed.text
        for _ in range(2):
            other = requests.post(f"{base}/projects/other-project/accounts:query", json={},
                                  headers={"Authorization": "Bearer owner"})
            assert other.status_code == 200, other.text
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    log = (root / "serve.log").read_text()
    assert f"firebase.json and {root}/.firebaserc" in log
    assert f"authemu listening on 127.0.0.1:{port}" in log and "project fb-project" in log
    warning = ("Multiple projectIds are not recommended in single project mode. Requested project ID other-project, "
               "but the emulator is configured for fb-project.")
    assert log.count(warning) == 1, log


def test_single_project_error_refuses_other_projects_with_firebase_tools_message(tmp_path):
    port = free_port()
    proc = start_serve(tmp_path, port, ["--port", str(port), "--project", "mine"],
                       env={"AUTHEMU_SINGLE_PROJECT": "error"})
    try:
        base = f"http://127.0.0.1:{port}/identitytoolkit.googleapis.com/v1"
        other = requests.post(f"{base}/projects/theirs/accounts:query", json={}, headers={"Authorization": "Bearer owner"})
        mine = requests.post(f"{base}/projects/mine/accounts:query", json={}, headers={"Authorization": "Bearer owner"})
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert other.status_code == 400
    assert other.json()["error"]["message"] == (
        "Multiple projectIds are not recommended in single project mode. Requested project ID theirs, but the "
        "emulator is configured for mine. To opt-out of single project mode add/set the 'singleProjectMode' false "
        "property in the firebase.json emulators config.")
    assert mine.status_code == 200, mine.text


def test_single_project_mode_false_serves_other_projects_quietly(tmp_path):
    port = free_port()
    root = firebase_project(tmp_path, port, single=False)
    assert_other_projects_served_quietly(root, port)


def assert_other_projects_served_quietly(root, port, extra=()):
    proc = start_serve(root, port, extra)
    try:
        other = requests.post(f"http://127.0.0.1:{port}/identitytoolkit.googleapis.com/v1/projects/x/accounts:query",
                              json={}, headers={"Authorization": "Bearer owner"})
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert other.status_code == 200, other.text
    assert "single project mode" not in (root / "serve.log").read_text()


def refused(root, text, name="firebase.json"):
    (root / name).write_text(text)
    return subprocess.run([BINARY, "serve", "--ephemeral"], cwd=root, capture_output=True, text=True, timeout=30)


def test_malformed_project_files_stop_start_up_naming_file_and_key(tmp_path):
    cases = [
        ('{"emulators": {"auth": {"port": "abc"}}}', "firebase.json",
         "key 'emulators.auth.port' must be a port number from 1 to 65535"),
        ('{"emulators": {"auth": {"port": 70000}}}', "firebase.json",
         "key 'emulators.auth.port' must be a port number from 1 to 65535"),
        ('{"emulators": {"auth": {"host": 5}}}', "firebase.json", "key 'emulators.auth.host' must be a host name"),
        ('{"emulators": {"auth": []}}', "firebase.json", "key 'emulators.auth' must be an object"),
        ('{"emulators": {"singleProjectMode": "yes"}}', "firebase.json",
         "key 'emulators.singleProjectMode' must be true or false"),
        ('{"emulators": ', "firebase.json", "not valid JSON"),
        ('[1, 2]', "firebase.json", "the top level must be a JSON object"),
    ]
    for text, name, reason in cases:
        result = refused(tmp_path, text, name)
        assert result.returncode == 64, (text, result.stderr)
        assert f"{tmp_path}/{name}: {reason}" in result.stderr, (text, result.stderr)
    (tmp_path / "firebase.json").write_text('{"emulators": {"auth": {"port": 9099}}}')
    bad_rc = refused(tmp_path, '{"projects": {"default": "has space"}}', ".firebaserc")
    assert bad_rc.returncode == 64
    assert (f"{tmp_path}/.firebaserc: key 'projects.default' must be a project id (letters, digits, '-'), "
            "got 'has space'") in bad_rc.stderr


def test_single_project_setting_is_checked_and_a_bare_yaml_off_is_off(tmp_path):
    bad = subprocess.run([BINARY, "serve", "--ephemeral"], cwd=tmp_path, capture_output=True, text=True, timeout=30,
                         env={**os.environ, "AUTHEMU_SINGLE_PROJECT": "maybe"})
    assert bad.returncode == 64
    assert "environment AUTHEMU_SINGLE_PROJECT: key 'single_project' must be one of off, warn, error" in bad.stderr
    # A firebase.json asks for warnings; the YAML file's bare `off` (false in YAML 1.1) turns them off.
    port = free_port()
    (tmp_path / "p").mkdir()
    root = firebase_project(tmp_path / "p", port)
    (root / "authemu.yaml").write_text("single_project: off\n")
    assert_other_projects_served_quietly(root, port, ["--config", str(root / "authemu.yaml")])
