"""The guides' examples run: every self-contained `curl` command in README.md and docs/*.md (no
shell variables), sent to a daemon of the guides' project (demo-project), succeeds with no error
envelope. The address 127.0.0.1:9099 of the examples is rewritten to the test daemon's."""
import json
import re
import subprocess

import pytest
import requests

from conftest import ROOT, Daemon

GUIDES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def curl_examples(path):
    """Each curl command of the file's code spans and shell blocks, continuation lines joined."""
    text = path.read_text()
    commands = re.findall(r"`(curl [^`]+)`", text)
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        joined = re.sub(r"\\\n\s*", "", block)
        commands += [line.split(" #")[0].strip() for line in joined.splitlines() if line.startswith("curl ")]
    return [command for command in commands if "$" not in command]


EXAMPLES = [(path.relative_to(ROOT).as_posix(), command) for path in GUIDES for command in curl_examples(path)]


def test_the_guides_have_curl_examples():
    assert len(EXAMPLES) >= 5


@pytest.fixture(scope="module")
def guide_daemon(tmp_path_factory):
    daemon = Daemon(tmp_path_factory.mktemp("guides"), extra=["--project", "demo-project"]).start()
    yield daemon
    daemon.stop()


@pytest.mark.parametrize("guide,command", EXAMPLES, ids=[f"{guide}:{n}" for n, (guide, _) in enumerate(EXAMPLES)])
def test_a_guide_example_runs(guide_daemon, guide, command):
    base = guide_daemon.base
    # Each example starts from the default settings (one turns on app verification).
    requests.delete(f"{base}/emulator/v1/projects/demo-project/config").raise_for_status()
    # … and from the real, running time (one freezes the clock).
    requests.post(f"{base}/emulator/v1/clock:reset", json={}).raise_for_status()
    # The SMS outbox example waits for a pending code to +15555550100: one is sent first.
    requests.post(f"{base}/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode",
                  params={"key": "any"}, json={"phoneNumber": "+15555550100"}).raise_for_status()
    command = command.replace("http://127.0.0.1:9099", base)
    assert base in command, command
    done = subprocess.run(["bash", "-c", command + " -sS -o /dev/stdout -w '\\n%{http_code}'"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    body, status = done.stdout.rsplit("\n", 1)
    assert status == "200", f"{guide}: {command}\n{status} {body}"
    assert "error" not in json.loads(body), body
