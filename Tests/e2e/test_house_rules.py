"""The house rules a newcomer relies on (issue 25): no function in Sources/ over 80 lines, and a
README that stays a map (at most 250 lines, a link to every guide in docs/)."""
import re

from conftest import ROOT

LIMIT = 80
# A declaration that opens a body: func, init, subscript, a computed property or accessor block.
DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|private|fileprivate|internal|package|static|class|override|mutating|nonisolated|final|"
    r"convenience|required|dynamic)\s+)*"
    r"(?:func\s|init[?!]?\s*[(<]|subscript\s*[(<]|var\s+\w+\s*:[^=]*\{\s*$)")


def code_lines(text):
    """The lines with string literals and comments blanked, so braces inside them do not count."""
    lines, in_literal, in_comment = [], False, False
    for line in text.splitlines():
        if line.count('"""') % 2 == 1:
            in_literal = not in_literal
            lines.append("")
            continue
        if in_literal:
            lines.append("")
            continue
        line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
        if in_comment:
            end = line.find("*/")
            if end < 0:
                lines.append("")
                continue
            line, in_comment = line[end + 2:], False
        line = re.sub(r"/\*.*?\*/", "", line)
        if "/*" in line:
            line, in_comment = line[:line.index("/*")], True
        lines.append(line.split("//")[0])
    return lines


def function_lengths(path):
    """(first line, length in lines) of every body-bearing declaration of a Swift file."""
    lines = code_lines(path.read_text())
    for start, line in enumerate(lines):
        if not DECLARATION.match(line):
            continue
        depth, opened = 0, False
        for end in range(start, min(len(lines), start + 2000)):
            for char in lines[end]:
                if char == "{":
                    depth, opened = depth + 1, True
                elif char == "}":
                    depth -= 1
            if opened and depth <= 0:
                yield start + 1, end - start + 1
                break
            if not opened and end - start > 12:  # a requirement without a body (protocols)
                break


def test_no_function_in_sources_is_over_80_lines():
    found = {path: list(function_lengths(path)) for path in (ROOT / "Sources").rglob("*.swift")}
    assert sum(len(lengths) for lengths in found.values()) > 900  # the scanner sees the functions
    too_long = [f"{path.relative_to(ROOT)}:{line}: {length} lines"
                for path, lengths in found.items() for line, length in lengths if length > LIMIT]
    assert too_long == []


def test_the_scanner_counts_a_long_function(tmp_path):
    body = "\n".join(f'    let x{n} = "{{ not a brace }}" // }}' for n in range(85))
    sample = tmp_path / "Sample.swift"
    sample.write_text(f"struct S {{\n    public static func long() {{\n{body}\n    }}\n    func short() {{ }}\n}}\n")
    assert list(function_lengths(sample)) == [(2, 87), (89, 1)]


def test_the_readme_is_a_map_of_the_guides():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    guides = sorted(path.name for path in (ROOT / "docs").glob("*.md"))
    assert len(guides) >= 10
    assert [name for name in guides if f"(docs/{name})" not in readme] == []
