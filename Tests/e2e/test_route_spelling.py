"""Every path of /emulator/openapi.json is spelled, literally, at its route in Sources/: grep finds it."""
import subprocess
import urllib.parse

import requests

from conftest import ROOT


def test_every_documented_path_is_written_out_where_its_route_is(daemon):
    spec = requests.get(f"{daemon.base}/emulator/openapi.json").json()
    missing = []
    for path, item in spec["paths"].items():
        prefix = urllib.parse.urlparse((item.get("servers") or spec["servers"])[0]["url"]).path.rstrip("/")
        found = subprocess.run(["grep", "-rlF", f'"{prefix}{path}"', str(ROOT / "Sources")],
                               capture_output=True, text=True)
        if not found.stdout.strip():
            missing.append(prefix + path)
    assert len(spec["paths"]) > 100
    assert missing == []
