#!/usr/bin/env python3
"""The inspector's benchmark (issue 21): server time of the first users page and of searches at
--accounts accounts, and what the inspector adds to idle RSS and to cold start. Run through
bench/inspector, which builds the release binary."""
import argparse
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import AUTHEMU, PROJECT, Server, call, cold_start  # noqa: E402


def load_named_accounts(base, total, batch=1000):
    for offset in range(0, total, batch):
        users = [{"localId": f"load{n:08d}", "email": f"load{n}@bench.test", "displayName": f"Load User {n}",
                  "phoneNumber": f"+1555{n:07d}"} for n in range(offset, min(total, offset + batch))]
        call(base, f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchCreate",
             {"users": users}, admin=True)


def p50_ms(base, path, runs):
    """Median wall time of `runs` GETs on loopback, and the user rows of the page."""
    times = []
    rows = 0
    for _ in range(runs):
        start = time.perf_counter()
        with urllib.request.urlopen(base + path, timeout=30) as response:
            rows = response.read().count(b'data-testid="user-row"')
            assert response.status == 200
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--accounts", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--authemu", default=str(AUTHEMU))
    options = parser.parse_args()
    binary = Path(options.authemu)
    with tempfile.TemporaryDirectory() as work:
        data = str(Path(work) / "state.sqlite")
        server = Server([binary, "serve", "--port", "{port}", "--project", PROJECT, "--data", data])
        idle = server.rss_mib()
        for page in ("/emulator/ui/", f"/emulator/ui/projects/{PROJECT}/users", f"/emulator/ui/projects/{PROJECT}/messages"):
            p50_ms(server.base, page, 3)  # noqa: the first requests parse the templates
        after_ui = server.rss_mib()
        load_named_accounts(server.base, options.accounts)
        users = f"/emulator/ui/projects/{PROJECT}/users"
        rows = [
            ("first users page", users),
            ("page after load00500000", f"{users}?after=load00500000"),
            ("search uid prefix load0099", f"{users}?q=load0099"),
            ("search email prefix load777", f"{users}?q=load777"),
            ("search phone prefix +15550123", f"{users}?q=%2B15550123"),
            ("search display-name prefix 'load user 4242'", f"{users}?q=load%20user%204242"),
            ("search with no match", f"{users}?q=nobody"),
            ("one user", f"{users}/load00424242"),
        ]
        print(f"inspector at {options.accounts:,} accounts, p50 of {options.runs} requests on loopback (ms), rows shown:")
        for name, path in rows:
            median, shown = p50_ms(server.base, path, options.runs)
            print(f"  {name:<45} {median:7.2f}  {shown:3d}")
        server.stop()
        cold = cold_start(data, options.starts)
    print(f"idle RSS {idle:.1f} MiB; after the inspector's first pages {after_ui:.1f} MiB "
          f"(+{after_ui - idle:.1f} MiB: templates parsed on first use)")
    print(f"cold start with {options.accounts:,} accounts: READY=1 {cold[0]:.1f} ms, first /readyz {cold[1]:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
