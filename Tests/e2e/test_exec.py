"""`authemu exec -- COMMAND`: a daemon for the length of one command, as `firebase emulators:exec --only auth`."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

from conftest import BINARY

# A child that signs up through the Admin SDK with nothing but the variables exec sets.
ADMIN_CHILD = """
import json, os, firebase_admin
from firebase_admin import auth, credentials
import google.auth.credentials

class Offline(credentials.Base):
    def get_credential(self):
        return google.auth.credentials.AnonymousCredentials()

app = firebase_admin.initialize_app(Offline())
user = auth.create_user(email="exec@example.com", password="secret123", app=app)
print(json.dumps({"uid": user.uid, "host": os.environ["FIREBASE_AUTH_EMULATOR_HOST"],
                  "project": os.environ["GCLOUD_PROJECT"], "config": os.environ["FIREBASE_CONFIG"],
                  "appProject": app.project_id, "listed": [u.email for u in auth.list_users(app=app).users]}))
"""


def run_exec(args, cwd=None, env=None, timeout=60):
    return subprocess.run([BINARY, "exec", *args], capture_output=True, text=True, cwd=cwd, timeout=timeout,
                          env=None if env is None else {**os.environ, **env})


def test_command_signs_up_through_admin_sdk_with_the_variables_set(tmp_path):
    export = tmp_path / "export"
    result = run_exec(["--project", "exec-project", "--export-on-exit", str(export), "--",
                       sys.executable, "-c", ADMIN_CHILD],)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert re.fullmatch(r"127\.0\.0\.1:\d+", seen["host"]), seen
    assert seen["host"] != "127.0.0.1:9099"  # no port given: a free one
    assert (seen["project"], seen["appProject"], seen["listed"]) == ("exec-project", "exec-project",
                                                                     ["exec@example.com"])
    assert json.loads(seen["config"]) == {"projectId": "exec-project", "storageBucket": "exec-project.appspot.com",
                                          "databaseURL": "https://exec-project.firebaseio.com"}
    # The export written after the command holds its account; a second exec imports it.
    accounts = json.loads((export / "auth_export" / "accounts.json").read_text())
    assert [u["localId"] for u in accounts["users"]] == [seen["uid"]]
    again = run_exec(["--project", "exec-project", "--import", str(export), "--", sys.executable, "-c",
                      "import os, urllib.request, json; h=os.environ['FIREBASE_AUTH_EMULATOR_HOST'];"
                      "r=urllib.request.Request(f'http://{h}/identitytoolkit.googleapis.com/v1/projects/exec-project"
                      "/accounts:batchGet', headers={'Authorization': 'Bearer owner'});"
                      "print(json.load(urllib.request.urlopen(r))['users'][0]['email'])"])
    assert (again.returncode, again.stdout.strip()) == (0, "exec@example.com"), again.stderr


def test_state_is_in_memory_and_the_temporary_log_is_removed_on_success(tmp_path):
    result = run_exec(["--", "sh", "-c", "echo $FIREBASE_AUTH_EMULATOR_HOST"], cwd=tmp_path,
                      env={"TMPDIR": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert list(tmp_path.iterdir()) == []  # no .authemu/state.sqlite, no log left behind


def test_exit_status_passes_through_and_the_log_is_named(tmp_path):
    result = run_exec(["--", "sh", "-c", "exit 7"], env={"TMPDIR": str(tmp_path)})
    assert result.returncode == 7
    match = re.search(r"authemu exec: the command exited with 7; daemon log: (\S+)", result.stderr)
    assert match, result.stderr
    log = match.group(1)
    assert log.startswith(str(tmp_path))
    text = open(log).read()
    assert "authemu listening on 127.0.0.1:" in text and "the command exited with 7" in text
    os.unlink(log)


def test_one_argument_with_spaces_runs_through_the_shell(tmp_path):
    marker = tmp_path / "project.txt"
    result = run_exec(["--project", "shell-project", f"echo $GCLOUD_PROJECT > {marker}"])
    assert result.returncode == 0, result.stderr
    assert marker.read_text() == "shell-project\n"


def test_sigterm_reaches_the_command_and_its_status_is_returned(tmp_path):
    child = ("import signal, sys, time\n"
             "signal.signal(signal.SIGTERM, lambda s, f: (print('got', s, flush=True), sys.exit(42)))\n"
             "print('ready', flush=True)\n"
             "time.sleep(60)\n")
    log = tmp_path / "daemon.log"
    proc = subprocess.Popen([BINARY, "exec", "--log-file", str(log), "--", sys.executable, "-c", child],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"
    port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", log.read_text()).group(1))
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 42
    assert proc.stdout.read() == "got 15\n"
    # The daemon stopped with the command.
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0
    assert "the command exited with 42" in log.read_text()


def test_a_taken_port_stops_before_the_command_runs(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        marker = tmp_path / "ran"
        result = run_exec(["--host", "127.0.0.1", "--port", str(port), "--log-file", str(tmp_path / "log"),
                           "--", "touch", str(marker)])
    assert result.returncode == 2
    assert f"authemu: exec: the daemon could not start on 127.0.0.1:{port}" in result.stderr
    assert "Address already in use" in result.stderr
    assert "the command was not run" in result.stderr
    assert not marker.exists()


def test_a_command_that_cannot_be_found_is_named(tmp_path):
    result = run_exec(["--log-file", str(tmp_path / "log"), "--", "no-such-command-authemu"])
    assert result.returncode == 2
    assert "cannot run no-such-command-authemu: No such file or directory" in result.stderr


def test_no_command_is_a_usage_error():
    result = run_exec([])
    assert result.returncode == 64
    assert "give the command to run after --" in result.stderr


def test_an_import_that_fails_stops_before_the_command_runs(tmp_path):
    marker = tmp_path / "ran"
    log = tmp_path / "log"
    result = run_exec(["--import", str(tmp_path / "missing"), "--log-file", str(log), "--", "touch", str(marker)])
    assert result.returncode == 2
    assert "authemu: import:" in result.stderr
    assert f"authemu exec: the command was not run (daemon log: {log})" in result.stderr
    assert not marker.exists()
