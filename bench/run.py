#!/usr/bin/env python3
"""authemu benchmark: throughput and latency against a bare Hummingbird baseline, cold start,
memory and database size, and cost growth from 1k to 1M accounts. Prints one table.

Run through bench/run (which installs wrk and builds release binaries)."""
import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import code_log

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / ".build" / "release"
AUTHEMU = RELEASE / "authemu"  # --authemu replaces it (e.g. to compare two builds)
LUA = Path(__file__).resolve().parent / "lua"
PROJECT = "bench-project"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def call(base, path, body=None, admin=False, method=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method or ("POST" if data else "GET"))
    request.add_header("Content-Type", "application/json")
    if admin:
        request.add_header("Authorization", "Bearer owner")
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read() or b"{}")


def wait_ready(base, proc, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("process exited")
        try:
            with urllib.request.urlopen(base + "/readyz", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.005)
    raise RuntimeError("not ready")


class Server:
    def __init__(self, args, env=None, readyz=True):
        """`readyz`: wait for authemu's /readyz (the bench servers only open their port)."""
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([str(a).replace("{port}", str(self.port)) for a in args],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        wait_ready(self.base, self.proc) if readyz else self._wait_port()

    def _wait_port(self):
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.01)

    def rss_mib(self):
        with open(f"/proc/{self.proc.pid}/status") as status:
            return int([l for l in status if l.startswith("VmRSS:")][0].split()[1]) / 1024

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def authemu(data):
    return Server([AUTHEMU, "serve", "--port", "{port}", "--project", PROJECT, "--data", data,
                   "--log-level", "error"])


def cpu_seconds(pid):
    """User + system CPU time a process has used (/proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(server, script, connections, seconds, env):
    """One wrk cell; also the server's CPU time per request, which a loaded shared host moves far
    less than requests per second (other tenants take wall-clock time, not the server's CPU)."""
    threads = connections  # one connection per thread: multi-step flows keep their state per thread
    before = cpu_seconds(server.proc.pid)
    out = subprocess.run(["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "-s", str(LUA / script),
                          server.base], capture_output=True, text=True,
                         env={**os.environ, "BENCH_LUA": str(LUA), **env})
    match = re.search(r"RESULT (\{.*\})", out.stdout)
    if not match:
        raise RuntimeError(out.stdout + out.stderr)
    result = json.loads(match.group(1))
    result["cpu_us"] = (cpu_seconds(server.proc.pid) - before) * 1e6 / max(1, result["requests"])
    return result


def prepare_users(base, threads=8):
    """One password user (signIn, lookup, refresh) and one SMS-MFA user per wrk thread."""
    created = call(base, "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                   {"email": "bench@bench.test", "password": "secret123", "returnSecureToken": True})
    for tid in range(1, threads + 1):
        call(base, f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts",
             {"localId": f"mfa{tid}", "email": f"mfa{tid}@bench.test", "password": "secret123",
              "emailVerified": True, "mfaInfo": [{"phoneInfo": f"+155599{tid:05d}"}]}, admin=True)
        call(base, f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts",
             {"localId": f"totp{tid}", "email": f"totp{tid}@bench.test", "password": "secret123",
              "emailVerified": True, "mfaInfo": [{"mfaEnrollmentId": f"t{tid}", "totpInfo": {}}]}, admin=True)
    # TOTP on, replay protection off: every thread signs in its one TOTP user again and again.
    call(base, f"/identitytoolkit.googleapis.com/v2/projects/{PROJECT}/config?updateMask=mfa,emulatorSettings",
         {"mfa": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                  "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]},
          "emulatorSettings": {"totpReplayProtection": False}}, admin=True, method="PATCH")
    return created


def load_accounts(base, total, start=0, batch=1000):
    for offset in range(start, total, batch):
        users = [{"localId": f"load{n:08d}", "email": f"load{n}@bench.test", "rawPassword": "secret123"}
                 for n in range(offset, min(total, offset + batch))]
        call(base, f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:batchCreate",
             {"users": users}, admin=True)


def cold_start(data, runs):
    """Median time to READY=1 on a notify socket, and to the first 200 on /readyz."""
    ready, first = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "notify")
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sock.bind(path)
            sock.settimeout(30)
            port = free_port()
            start = time.monotonic()
            proc = subprocess.Popen([AUTHEMU, "serve", "--port", str(port), "--data", data,
                                     "--log-level", "error"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    env={**os.environ, "NOTIFY_SOCKET": path})
            while b"READY=1" not in sock.recv(4096):
                pass
            ready.append(time.monotonic() - start)
            sock.close()
            proc.terminate()
            proc.wait()
            proc = subprocess.Popen([AUTHEMU, "serve", "--port", str(port), "--data", data,
                                     "--log-level", "error"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            start = time.monotonic()
            wait_ready(f"http://127.0.0.1:{port}", proc)
            first.append(time.monotonic() - start)
            proc.terminate()
            proc.wait()
    return statistics.median(ready) * 1000, statistics.median(first) * 1000


def ms(us):
    return f"{us / 1000:.2f}"


def print_requests(options, base_results, floor_results, flows, results):
    print(f"\nauthemu benchmark — {os.cpu_count()} cores, wrk {options.seconds} s per cell, release builds\n")
    print(f"{'flow':32} {'conns':>5} {'req/s':>9} {'flows/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
          f"{'vs baseline req/s':>18} {'p50 vs base':>11} {'CPU us/req':>10} {'CPU vs base':>11} {'non-2xx':>7}")
    rows = [("baseline (fixed JSON)", base_results, None),
            ("floor: baseline + insert commit", floor_results["signup.lua"], None),
            ("floor: baseline + update commit", floor_results["signin.lua"], None)]
    rows += [(name, {c: results[(name, c)] for c in (1, 4)}, steps) for name, _, steps in flows]
    for name, cells, steps in rows:
        for connections in (1, 4):
            r, b = cells[connections], base_results[connections]
            flows_per_s = f"{r['rps'] / steps:.0f}" if steps else ""
            print(f"{name:32} {connections:>5} {r['rps']:>9.0f} {flows_per_s:>8} "
                  f"{ms(r['p50_us']):>7} {ms(r['p99_us']):>7} {r['rps'] / b['rps']:>18.2f} "
                  f"{r['p50_us'] / max(1, b['p50_us']):>11.2f} {r['cpu_us']:>10.0f} "
                  f"{r['cpu_us'] / max(1, b['cpu_us']):>11.2f} {r['non2xx']:>7}")


def lookup_pairs(work, pairs, seconds):
    """The issue-43 target, `accounts:lookup` at 4 connections against the baseline, measured as
    pairs of adjacent cells; prints each pair and the median ratio."""
    baseline = Server([RELEASE / "authemu-bench-baseline", "{port}"], readyz=False)
    server = authemu(str(work / "pairs.sqlite"))
    user = prepare_users(server.base)
    env = {"BENCH_ID_TOKEN": user["idToken"], "BENCH_PROJECT": PROJECT}
    ratios = []
    print(f"{'pair':>4} {'baseline req/s':>14} {'lookup req/s':>12} {'ratio':>6} {'lookup CPU us/req':>17} {'non-2xx':>7}")
    for pair in range(1, pairs + 1):
        base = wrk(baseline, "baseline.lua", 4, seconds, {})
        lookup = wrk(server, "lookup.lua", 4, seconds, env)
        ratios.append(lookup["rps"] / base["rps"])
        print(f"{pair:>4} {base['rps']:>14.0f} {lookup['rps']:>12.0f} {ratios[-1]:>6.2f} {lookup['cpu_us']:>17.0f} "
              f"{base['non2xx'] + lookup['non2xx']:>7}", flush=True)
    print(f"median ratio {statistics.median(ratios):.2f} (min {min(ratios):.2f}, max {max(ratios):.2f})")
    server.stop()
    baseline.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=5, help="wrk duration per measurement")
    parser.add_argument("--accounts", type=int, default=1_000_000, help="accounts for the scale figures")
    parser.add_argument("--starts", type=int, default=20, help="cold starts to take the median of")
    parser.add_argument("--authemu", help="the authemu binary to measure (default: .build/release/authemu)")
    parser.add_argument("--throughput-only", action="store_true",
                        help="only the request table (no scale, memory or cold-start figures)")
    parser.add_argument("--pairs", type=int, metavar="N",
                        help="only N pairs of 4-connection cells, the baseline then accounts:lookup, "
                             "each pair's ratio (a noisy host moves both cells of a pair alike)")
    options = parser.parse_args()
    if options.authemu:
        global AUTHEMU
        AUTHEMU = Path(options.authemu).resolve()
    work = Path(tempfile.mkdtemp(prefix="authemu-bench-"))
    if options.pairs:
        lookup_pairs(work, options.pairs, options.seconds)
        shutil.rmtree(work, ignore_errors=True)
        return 0

    baseline = Server([RELEASE / "authemu-bench-baseline", "{port}"], readyz=False)
    base_results = {c: wrk(baseline, "baseline.lua", c, options.seconds, {}) for c in (1, 4)}
    baseline_rss = baseline.rss_mib()
    baseline.stop()
    # The floor: the baseline plus one durable SQLite commit per request (a sign-up's insert, a
    # sign-in's stamp), under the sign-up and sign-in loads.
    floor = Server([RELEASE / "authemu-bench-floor", "{port}", work / "floor.sqlite"], readyz=False)
    floor_results = {script: {c: wrk(floor, script, c, options.seconds, {"BENCH_EMAIL": "floor@bench.test"})
                              for c in (1, 4)} for script in ("signup.lua", "signin.lua")}
    floor.stop()

    small = str(work / "small.sqlite")
    server = authemu(small)
    idle_rss = server.rss_mib()
    user = prepare_users(server.base)
    load_accounts(server.base, 1000)
    env = {"BENCH_EMAIL": "bench@bench.test", "BENCH_ID_TOKEN": user["idToken"], "BENCH_PROJECT": PROJECT,
           "BENCH_REFRESH_TOKEN_URLENCODED": urllib.parse.quote(user["refreshToken"], safe="")}
    flows = [("signUp (email)", "signup.lua", 1), ("signInWithPassword", "signin.lua", 1),
             ("accounts:lookup", "lookup.lua", 1), ("token refresh", "refresh.lua", 1),
             ("phone sign-in (3 requests)", "phone.lua", 3), ("TOTP MFA sign-in (3 requests)", "totp_mfa.lua", 3),
             ("SMS MFA sign-in (4 requests)", "sms_mfa.lua", 4)]
    results = {}
    for name, script, steps in flows:
        for connections in (1, 4):
            results[(name, connections)] = wrk(server, script, connections, options.seconds, env)
    small_latency = {s: wrk(server, s, 1, options.seconds, env)["p50_us"] for s in ("signin.lua", "lookup.lua")}
    server.stop()
    # The code log on a daemon of its own (the flows above left codes in theirs).
    log_server = authemu(str(work / "codelog.sqlite"))
    log_rows = code_log.cells(log_server, PROJECT, cpu_seconds,
                              lambda seconds: wrk(log_server, "signup.lua", 4, seconds, {"BENCH_PREFIX": "log"}))
    log_server.stop()
    if options.throughput_only:
        print_requests(options, base_results, floor_results, flows, results)
        code_log.print_cells(*log_rows)
        shutil.rmtree(work, ignore_errors=True)
        return 0

    big = str(work / "big.sqlite")
    server = authemu(big)
    user = prepare_users(server.base)
    load_accounts(server.base, min(100_000, options.accounts))
    rss_100k = server.rss_mib()
    load_accounts(server.base, options.accounts, start=100_000)
    rss_big = server.rss_mib()
    env["BENCH_ID_TOKEN"] = user["idToken"]
    big_latency = {s: wrk(server, s, 1, options.seconds, env)["p50_us"] for s in ("signin.lua", "lookup.lua")}
    server.stop()
    db_bytes = sum(os.path.getsize(p) for p in [big, big + "-wal"] if os.path.exists(p))

    empty = str(work / "empty.sqlite")
    authemu(empty).stop()
    cold_empty = cold_start(empty, options.starts)
    cold_big = cold_start(big, options.starts)

    print_requests(options, base_results, floor_results, flows, results)
    code_log.print_cells(*log_rows)
    print()
    print(f"cold start to READY=1 (median of {options.starts}): empty {cold_empty[0]:.1f} ms, "
          f"{options.accounts:,} accounts {cold_big[0]:.1f} ms")
    print(f"cold start to first 200 on /readyz:           empty {cold_empty[1]:.1f} ms, "
          f"{options.accounts:,} accounts {cold_big[1]:.1f} ms")
    print(f"RSS: baseline {baseline_rss:.1f} MiB; authemu idle {idle_rss:.1f} MiB, after 100,000 accounts "
          f"{rss_100k:.1f} MiB, after {options.accounts:,} accounts {rss_big:.1f} MiB")
    print(f"database: {db_bytes / 1e6:.1f} MB for {options.accounts:,} accounts = "
          f"{db_bytes / options.accounts:.0f} bytes per account")
    print(f"p50 at 1 connection, ~1k vs {options.accounts:,} accounts: signInWithPassword "
          f"{ms(small_latency['signin.lua'])} -> {ms(big_latency['signin.lua'])} ms, accounts:lookup "
          f"{ms(small_latency['lookup.lua'])} -> {ms(big_latency['lookup.lua'])} ms")
    shutil.rmtree(work, ignore_errors=True)  # the databases: ~500 MB with a million accounts


if __name__ == "__main__":
    sys.exit(main())
