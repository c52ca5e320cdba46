"""The route table (Sources/AuthEmulatorHTTP/RouteTable.swift) is the one place that spells the
daemon's paths: every path of /emulator/openapi.json is written out on its line there, every line
is one route, and nothing else registers a route with the router."""
import re
import subprocess
import urllib.parse

import requests

from conftest import ROOT

TABLE = ROOT / "Sources" / "AuthEmulatorHTTP" / "RouteTable.swift"
ROUTE_LINE = re.compile(r'^    Route\(\.(\w+), "([^"]+)", \.(\w+), \.(\w+)\(.*\)(?:, \.bulk)?\),$')


def table_routes():
    lines = [line for line in TABLE.read_text().splitlines() if line.lstrip().startswith("Route(")]
    routes = [ROUTE_LINE.match(line) for line in lines]
    assert None not in routes, [line for line, m in zip(lines, routes) if m is None]
    return [(m.group(1).upper(), m.group(2), m.group(3)) for m in routes]


def test_every_documented_operation_is_one_line_of_the_route_table(daemon):
    spec = requests.get(f"{daemon.base}/emulator/openapi.json").json()
    documented = set()
    for path, item in spec["paths"].items():
        prefix = urllib.parse.urlparse((item.get("servers") or spec["servers"])[0]["url"]).path.rstrip("/")
        documented |= {(method.upper(), prefix + path) for method in item if method != "servers"}
    routes = table_routes()
    assert len(routes) == len({(method, path) for method, path, _ in routes}), "a route is listed twice"
    # The document lists every route but the inspector's pages (access .ui), and nothing else.
    assert documented == {(method, path) for method, path, access in routes if access != "ui"}
    assert len(documented) > 150


def test_only_the_route_registration_talks_to_the_router():
    # The daemon's targets (the bench floors are separate programs with a router of their own).
    daemon = [str(ROOT / "Sources" / target) for target in ("AuthEmulator", "AuthEmulatorHTTP", "authemu")]
    found = subprocess.run(
        ["grep", "-rlE", r"router\.(on|get|post|patch|delete|put)\(", *daemon],
        capture_output=True, text=True).stdout.split()
    assert [path.removeprefix(str(ROOT) + "/") for path in found] == [
        "Sources/AuthEmulatorHTTP/RouteRegistration.swift"]

