#!/usr/bin/env python3
"""The PostgreSQL store against SQLite: sign-up, sign-in and the SMS MFA flow at 1 and 4
connections; one PostgreSQL daemon and two on one database (wrk on each at once). Throughput, and
the daemons' own CPU time per request (the PostgreSQL server's is not counted), which issue 32's
targets compare: the PostgreSQL daemon's at most 1.5x (sign-in) and 2x (sign-up) the SQLite one's.
Also the floor server (authemu-bench-floor) on each store: the statements authemu sends and nothing
else. authemu's CPU on PostgreSQL cannot go below its CPU on SQLite minus the SQLite floor's plus
the PostgreSQL floor's, so that sum over SQLite's CPU is the lowest ratio this driver allows.
Run through bench/postgres (which builds the release binary and starts a server)."""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import AUTHEMU, PROJECT, RELEASE, Server, prepare_users, wrk  # noqa: E402
from postgres_deployment import deployment, print_deployment  # noqa: E402

FLOWS = [("signUp (email)", "signup.lua", 1), ("signInWithPassword", "signin.lua", 1),
         ("SMS MFA sign-in (4 requests)", "sms_mfa.lua", 4)]


def daemon(store):
    return Server([AUTHEMU, "serve", "--port", "{port}", "--project", PROJECT, "--log-level", "error"] + store)


def floor_cpu(store, seconds):
    """The floor server's CPU µs per request for sign-up and sign-in at 1 and 4 connections."""
    floor = Server([RELEASE / "authemu-bench-floor", "{port}", store], readyz=False)
    cpu = {}
    for name, script, _ in FLOWS[:2]:
        for connections in (1, 4):
            result = wrk(floor, script, connections, seconds, {"BENCH_EMAIL": "floor@bench.test"})
            if result["non2xx"] + result["socket_errors"]:
                raise RuntimeError(f"floor {name}: {result}")
            cpu[(name, connections)] = result["cpu_us"]
    floor.stop()
    return cpu


def environment(user):
    return {"BENCH_EMAIL": "bench@bench.test", "BENCH_ID_TOKEN": user["idToken"], "BENCH_PROJECT": PROJECT}


def measure(servers, env, seconds):
    """Requests per second of each flow at 1 and 4 connections per daemon, summed over the daemons
    (each wrk gets its own users and email prefix)."""
    table = {}
    for name, script, _ in FLOWS:
        for connections in (1, 4):
            results = [None] * len(servers)

            def run(index):
                results[index] = wrk(servers[index], script, connections, seconds,
                                     {**env, "BENCH_TID_OFFSET": str(index * 4), "BENCH_PREFIX": f"d{index}"})
            threads = [threading.Thread(target=run, args=(i,)) for i in range(len(servers))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            failed = sum(r["non2xx"] + r["socket_errors"] for r in results)
            if failed:
                print(f"  {name} at {connections} × {len(servers)}: {failed} failed requests", file=sys.stderr)
            requests = sum(r["requests"] for r in results)
            cpu_us = sum(r["cpu_us"] * r["requests"] for r in results) / max(1, requests)
            table[(name, connections)] = (sum(r["rps"] for r in results), cpu_us)
    return table


def one_round(url, seconds):
    """Every table and floor once: SQLite, both floors, one PostgreSQL daemon, two."""
    with tempfile.TemporaryDirectory() as work:
        sqlite = daemon(["--data", f"{work}/bench.sqlite"])
        env = environment(prepare_users(sqlite.base))
        tables = {"SQLite": measure([sqlite], env, seconds)}
        sqlite.stop()
        floors = {"SQLite": floor_cpu(f"{work}/floor.sqlite", seconds)}
    floors["PostgreSQL"] = floor_cpu(url.split("?")[0], seconds)
    store = ["--store", f"{url}&schema=bench_{uuid.uuid4().hex[:8]}"]
    first = daemon(store)
    env = environment(prepare_users(first.base))
    tables["PostgreSQL, 1 daemon"] = measure([first], env, seconds)
    second = daemon(store)
    tables["PostgreSQL, 2 daemons"] = measure([first, second], env, seconds)
    first.stop()
    second.stop()
    drop_schemas(url)
    return tables, floors


def drop_schemas(url):
    """Drops the round's schemas (authemu's and the floors'), so each round starts on an empty server
    and no earlier round's tables are vacuumed during its cells."""
    psql = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))[-1]
    subprocess.run([psql, url.split("?")[0], "-qc", """
        DO $$ DECLARE s text; BEGIN
          FOR s IN SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bench\\_%' OR nspname LIKE 'floor\\_%' LOOP
            EXECUTE format('DROP SCHEMA %I CASCADE', s);
          END LOOP;
        END $$"""], check=True, capture_output=True)


def median_of(rounds):
    """Each cell's median over the rounds (each member of a (req/s, CPU) pair on its own): on a
    shared machine one run's cells move by a quarter."""
    def cell(values):
        if isinstance(values[0], tuple):
            return tuple(statistics.median(v[i] for v in values) for i in range(len(values[0])))
        return statistics.median(values)
    first = rounds[0]
    return {table: {key: cell([r[table][key] for r in rounds]) for key in first[table]} for table in first}


def print_rounds(results):
    """Each round's CPU µs per request: authemu on SQLite and on PostgreSQL, and both floors."""
    print("\nCPU µs per request in each round (SQLite / PostgreSQL, then the floors'):\n")
    print("| round | flow | conns | authemu SQLite / PG | floor SQLite / PG |")
    print("|---|---|---|---|---|")
    for index, (tables, floors) in enumerate(results, start=1):
        for name, _, _ in FLOWS[:2]:
            for connections in (1, 4):
                key = (name, connections)
                print(f"| {index} | {name} | {connections} | {tables['SQLite'][key][1]:,.0f} / "
                      f"{tables['PostgreSQL, 1 daemon'][key][1]:,.0f} | {floors['SQLite'][key]:,.0f} / "
                      f"{floors['PostgreSQL'][key]:,.0f} |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=1, help="run everything this many times; medians")
    parser.add_argument("--projects", type=int, help="deployment run: connection t writes to project t mod N")
    parser.add_argument("--daemons", type=int, help="deployment run: this many PostgreSQL daemons")
    parser.add_argument("--latency-ms", type=float, help="deployment run: a delay proxy, D ms each way")
    parser.add_argument("--connections", type=int, default=16, help="deployment run: connections in all")
    parser.add_argument("--store-options", default="", help="deployment run: appended to the store URL "
                        "(&synchronous_commit=on)")
    parser.add_argument("--authemu", help="this binary instead of the release build's (to compare two builds)")
    options = parser.parse_args()
    if options.authemu:
        global AUTHEMU
        AUTHEMU = options.authemu
    url = os.environ["BENCH_POSTGRES_URL"]
    if options.projects or options.daemons or options.latency_ms is not None:
        options.projects, options.daemons = options.projects or 1, options.daemons or 1
        options.latency_ms = options.latency_ms or 0
        for _ in range(options.rounds):
            print_deployment(deployment(url, options), options)
            drop_schemas(url)
        return
    results = [one_round(url, options.seconds) for _ in range(options.rounds)]
    if options.rounds > 1:
        print_rounds(results)
    tables = median_of([tables for tables, _ in results])
    floors = median_of([floors for _, floors in results])
    rounds = f", median of {options.rounds} rounds" if options.rounds > 1 else ""
    print(f"\nPostgreSQL store — {os.cpu_count()} cores, wrk {options.seconds} s per cell{rounds}, release build\n")
    print("| flow | conns/daemon | SQLite req/s | PG 1 daemon | ratio | PG 2 daemons | ratio to 1 "
          "| SQLite CPU µs/req | PG 1 daemon CPU µs/req | CPU ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, _, _ in FLOWS:
        for connections in (1, 4):
            lite, lite_cpu = tables["SQLite"][(name, connections)]
            one, one_cpu = tables["PostgreSQL, 1 daemon"][(name, connections)]
            two, _ = tables["PostgreSQL, 2 daemons"][(name, connections)]
            print(f"| {name} | {connections} | {lite:,.0f} | {one:,.0f} | {one / lite:.2f} | {two:,.0f} | "
                  f"{two / one:.2f} | {lite_cpu:,.0f} | {one_cpu:,.0f} | {one_cpu / max(1, lite_cpu):.2f} |")
    print("\nThe floor server's CPU µs per request, and the lowest CPU ratio it leaves authemu "
          "(its SQLite CPU - SQLite floor + PostgreSQL floor, over its SQLite CPU):\n")
    print("| flow | conns | SQLite floor | PG floor | PG floor - SQLite floor | authemu SQLite | lowest ratio "
          "| authemu PG ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for name, _, _ in FLOWS[:2]:
        for connections in (1, 4):
            lite_floor, pg_floor = floors["SQLite"][(name, connections)], floors["PostgreSQL"][(name, connections)]
            _, lite_cpu = tables["SQLite"][(name, connections)]
            _, one_cpu = tables["PostgreSQL, 1 daemon"][(name, connections)]
            lowest = (lite_cpu - lite_floor + pg_floor) / max(1, lite_cpu)
            print(f"| {name} | {connections} | {lite_floor:,.0f} | {pg_floor:,.0f} | {pg_floor - lite_floor:,.0f} "
                  f"| {lite_cpu:,.0f} | {lowest:.2f} | {one_cpu / max(1, lite_cpu):.2f} |")

if __name__ == "__main__":
    main()
