"""Every snippet of docs/containers.md and of the README's container section, parsed: the YAML loads,
every published port is on 127.0.0.1, the compose health check is the image's own HEALTHCHECK, and the
`podman run` lines use the image's defaults (no command, state volume at /var/lib/authemu)."""
import json
import re
import shlex
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "docs" / "containers.md", ROOT / "README.md"]


def blocks(path, language):
    return re.findall(rf"```{language}\n(.*?)```", path.read_text(), re.S)


def image_healthcheck():
    line = next(l for l in (ROOT / "deploy/container/Containerfile").read_text().splitlines()
                if l.startswith("HEALTHCHECK"))
    return json.loads(line.split("CMD", 1)[1])


def published_ports(document):
    ports = []
    for job in (document.get("jobs") or {}).values():
        for service in (job.get("services") or {}).values():
            ports += service.get("ports", [])
    for service in (document.get("services") or {}).values() if isinstance(document.get("services"), dict) else []:
        ports += service.get("ports", [])
    return ports


def test_every_yaml_snippet_loads_and_publishes_on_loopback_only():
    seen = {"actions": 0, "gitlab": 0, "compose": 0}
    for path in DOCS:
        for text in blocks(path, "yaml"):
            document = yaml.safe_load(text)
            assert isinstance(document, dict), text
            for port in published_ports(document):
                assert str(port).startswith("127.0.0.1:"), (path.name, port)
            if "jobs" in document:
                seen["actions"] += 1
                service = next(iter(next(iter(document["jobs"].values()))["services"].values()))
                assert "command" not in service and service["ports"] == ["127.0.0.1:9099:9099"]
            elif isinstance(document.get("services"), dict):
                seen["compose"] += 1
                authemu = document["services"]["authemu"]
                assert authemu["healthcheck"]["test"] == ["CMD", *image_healthcheck()]
                assert "authemu-state:/var/lib/authemu" in authemu["volumes"]
                tests = next(s for n, s in document["services"].items() if n != "authemu")
                assert tests["depends_on"]["authemu"]["condition"] == "service_healthy"
            else:
                seen["gitlab"] += 1
                job = next(iter(document.values()))
                assert job["services"][0]["alias"] == "authemu"
                assert job["variables"]["FIREBASE_AUTH_EMULATOR_HOST"] == "authemu:9099"
    assert seen == {"actions": 2, "gitlab": 2, "compose": 2}, seen


def test_podman_run_lines_use_the_image_defaults():
    lines = [line for path in DOCS for text in blocks(path, "sh") for line in text.splitlines()
             if line.startswith(("podman run", "docker run"))]
    assert len(lines) >= 2
    for line in lines:
        words = shlex.split(line)
        published = [words[i + 1] for i, w in enumerate(words) if w == "-p"]
        assert published and all(p.startswith("127.0.0.1:") for p in published), line
        assert words[-1].startswith(("authemu:", "registry.example.com/")), line  # the image, no command after it


def test_the_healthcheck_needs_no_shell():
    assert image_healthcheck() == ["/usr/bin/authemu", "health"]
