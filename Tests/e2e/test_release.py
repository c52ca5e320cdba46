"""One version everywhere, and the release material (issue 45): Sources/AuthEmulator/Core/BuildVersion.swift holds the
version; the binary (--version, `version --json`), the running daemon (Server header, OpenAPI info.version), the
Makefile's .deb, CHANGELOG.md's newest release and deploy/debian/changelog take or name the same one. The image's label,
notices and SBOM are checked in test_container_image.py, the .deb's in scripts/check-deploy."""
import json
import re
import subprocess

import requests

from conftest import BINARY, ROOT


def version():
    return subprocess.run([str(ROOT / "scripts/version")], capture_output=True, text=True, check=True).stdout.strip()


def test_the_version_source_is_a_semantic_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?", version())


def test_the_binary_prints_the_version_and_commit():
    number = version()
    printed = subprocess.run([BINARY, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    match = re.fullmatch(rf"authemu {re.escape(number)} \(commit ([0-9a-f]{{12}}(?:-dirty)?|unknown)\)", printed)
    assert match, printed
    assert subprocess.run([BINARY, "version"], capture_output=True, text=True, check=True).stdout.strip() == printed
    as_json = json.loads(subprocess.run([BINARY, "version", "--json"], capture_output=True, text=True,
                                        check=True).stdout)
    assert as_json == {"version": number, "commit": match.group(1)}
    # scripts/build-release records the commit: a build from this checkout names its HEAD.
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    if head and "/.build/release/" in BINARY:
        assert match.group(1).removesuffix("-dirty") == head


def test_the_daemon_names_the_version(daemon):
    number = version()
    ready = requests.get(f"{daemon.base}/readyz")
    assert ready.headers["Server"] == f"authemu/{number}"
    spec = requests.get(f"{daemon.base}/emulator/openapi.json").json()
    assert spec["info"]["version"] == number


def test_the_package_the_changelogs_and_the_image_take_the_same_version():
    number = version()
    make = subprocess.run(["make", "-s", "-C", str(ROOT), "--eval", "print-version: ; @echo $(VERSION)",
                           "print-version"], capture_output=True, text=True, check=True).stdout.strip()
    assert make == number
    debian = (ROOT / "deploy/debian/changelog").read_text().splitlines()[0]
    assert debian.startswith(f"authemu ({number}) ")
    releases = re.findall(r"^## \[([^\]]+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert releases[:2] == ["Unreleased", number]
    notes = subprocess.run([str(ROOT / "scripts/changelog-section"), number], capture_output=True, text=True,
                           check=True).stdout
    assert "### Added" in notes and not notes.startswith("\n")
    assert "version=$(scripts/version)" in (ROOT / "scripts/image").read_text()
    assert "org.opencontainers.image.version=\"${VERSION}\"" in (ROOT / "deploy/container/Containerfile").read_text()


def test_the_workflows_pass_actionlint():
    linted = subprocess.run([str(ROOT / "scripts/lint-workflows")], capture_output=True, text=True)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    release = (ROOT / ".github/workflows/release.yml").read_text()
    assert "scripts/release-artifacts" in release and "scripts/test" in release
    assert "run: scripts/test" in (ROOT / ".github/workflows/ci.yml").read_text()


def test_every_swift_package_and_bundled_library_has_a_notice():
    checked = subprocess.run([str(ROOT / "scripts/third-party"), "check", "--for", "image", "--binary", BINARY],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_the_deb_sbom_lists_every_resolved_swift_package_and_validates(tmp_path):
    from spdx_tools.spdx.parser.parse_anything import parse_file
    from spdx_tools.spdx.validation.document_validator import validate_full_spdx_document
    out = tmp_path / "deb.spdx.json"
    subprocess.run([str(ROOT / "scripts/third-party"), "sbom", "--for", "deb", "--binary", BINARY, str(out)],
                   check=True, capture_output=True)
    assert validate_full_spdx_document(parse_file(str(out))) == []
    packages = {p["name"]: p for p in json.loads(out.read_text())["packages"]}
    pins = json.loads((ROOT / "Package.resolved").read_text())["pins"]
    assert len(pins) > 20
    for pin in pins:
        name = pin["location"].rstrip("/").split("/")[-1].removesuffix(".git")
        entry = packages[name]
        assert entry["versionInfo"] == pin["state"]["version"]
        assert entry["downloadLocation"] == f"git+{pin['location']}@{pin['state']['revision']}"
        assert entry["licenseDeclared"] in {"Apache-2.0", "MIT", "BSD-3-Clause", "BSD-2-Clause", "ISC"}
    assert packages["authemu"]["versionInfo"] == version()
    assert packages["swift"]["licenseDeclared"] == "Apache-2.0 WITH Swift-exception"
    document = json.loads(out.read_text())
    contained = {r["relatedSpdxElement"] for r in document["relationships"] if r["relationshipType"] == "CONTAINS"}
    by_id = {p["SPDXID"]: p["name"] for p in document["packages"]}
    # Build-time plugins are build tools of authemu, not contained in it.
    tools = {by_id[r["spdxElementId"]] for r in document["relationships"] if r["relationshipType"] == "BUILD_TOOL_OF"}
    assert tools == {"swift-docc-plugin", "swift-docc-symbolkit"} & set(packages)
    assert not {by_id[i] for i in contained} & tools
    # The .deb bundles no Debian library: those it needs at run time are DEPENDS_ON, from its control file.
    assert not any(by_id[i].startswith("lib") for i in contained)
    depends = {by_id[r["relatedSpdxElement"]] for r in document["relationships"] if r["relationshipType"] == "DEPENDS_ON"}
    control = (ROOT / "deploy/debian/control").read_text()
    listed = re.search(r"^Depends: (.*)$", control, re.M).group(1)
    assert depends == {item.strip().split(" ")[0] for item in listed.split(",")}
    assert "libsqlite3-0" in depends


def test_the_installed_binary_has_no_module_hashes_and_a_build_id_of_its_own_bytes(tmp_path):
    """scripts/install-binary (the .deb's and the image's executables): stripped, no `.swift_modhash`
    (per-build hashes of the compiler's IR, the one thing two fresh builds at one path still differ
    in once stripped), and a build-id recomputed from the bytes left, so it is the same for the same
    bytes; installing twice gives the same file."""
    first, second = tmp_path / "first", tmp_path / "second"
    for target in (first, second):
        subprocess.run([str(ROOT / "scripts/install-binary"), BINARY, str(target)], check=True)
    sections = subprocess.run(["readelf", "-SW", str(first)], capture_output=True, text=True, check=True).stdout
    assert ".swift_modhash" not in sections and ".debug_info" not in sections and ".symtab" not in sections
    # The build's own executable keeps them; only the installed one must not.
    assert ".swift_modhash" in subprocess.run(["readelf", "-SW", BINARY], capture_output=True, text=True).stdout
    notes = subprocess.run(["readelf", "-n", str(first)], capture_output=True, text=True, check=True).stdout
    build_id = re.search(r"Build ID: ([0-9a-f]{40})", notes).group(1)
    again = tmp_path / "again"
    again.write_bytes(first.read_bytes())
    recomputed = subprocess.run(["debugedit", "--build-id", "--build-id-seed=authemu", str(again)],
                                capture_output=True, text=True, check=True).stdout.strip()
    assert recomputed == build_id
    linked = subprocess.run(["readelf", "-n", BINARY], capture_output=True, text=True, check=True).stdout
    assert build_id not in linked  # not the linker's, which was computed over the module hashes too
    assert first.read_bytes() == second.read_bytes()
    shown = subprocess.run([str(first), "--version"], capture_output=True, text=True, check=True).stdout
    assert shown.startswith(f"authemu {version()} (commit ")
