#!/usr/bin/env python3
"""The PostgreSQL store as a shared service is deployed: M daemons on one database one network
hop away (authemu-bench-proxy, D ms each way), C connections creating accounts through the admin
API, connection t writing to project t mod N. One SQLite daemon under the same load in the same
run is the reference. Counts only 2xx answers (and prints how many were not, per cell), the daemons'
and the proxy's CPU, and the share of busy database sessions that wait on a lock (sampled from
pg_stat_activity while the cell runs). bench/postgres runs it when given --projects, --daemons or
--latency-ms."""
import glob
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import AUTHEMU, PROJECT, RELEASE, Server, cpu_seconds, free_port, wrk  # noqa: E402

PSQL = (sorted(glob.glob("/usr/lib/postgresql/*/bin/psql")) or ["psql"])[-1]

# Samples pg_stat_activity every 20 ms for the given number of samples: busy client sessions (the
# daemons': active, or in a transaction waiting for the daemon's next statement) and those of them
# waiting on a lock. One psql process for the whole cell; the statistics snapshot is cleared each time.
SAMPLER = """
DO $$ DECLARE busy bigint := 0; waiting bigint := 0; b bigint; w bigint; BEGIN
  FOR i IN 1..%d LOOP
    PERFORM pg_stat_clear_snapshot();
    SELECT count(*), count(*) FILTER (WHERE wait_event_type = 'Lock') INTO b, w FROM pg_stat_activity
      WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
        AND state IN ('active', 'idle in transaction');
    busy := busy + b; waiting := waiting + w;
    PERFORM pg_sleep(0.02);
  END LOOP;
  RAISE NOTICE 'LOCKWAIT % %', busy, waiting;
END $$"""


class DelayProxy:
    def __init__(self, target_port, delay_ms):
        self.port = free_port()
        self.proc = subprocess.Popen([RELEASE / "authemu-bench-proxy", str(self.port), str(target_port), str(delay_ms)],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError("delay proxy did not start")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def round_trip_ms(url):
    """The median of 20 `SELECT 1`s through psql at `url`, in ms (psql's own time included)."""
    done = subprocess.run([PSQL, url.split("?")[0], "-c", "\\timing on"] + ["-c", "SELECT 1"] * 20,
                          capture_output=True, text=True, check=True)
    times = sorted(float(line.split()[1]) for line in done.stdout.splitlines() if line.startswith("Time:"))
    return times[len(times) // 2]


def rollbacks(url):
    """Transactions rolled back in the database so far (a serializable write that lost a conflict
    and was run again is one; a create that fails as the domain says is another)."""
    done = subprocess.run([PSQL, url.split("?")[0], "-Atc",
                           "SELECT xact_rollback FROM pg_stat_database WHERE datname = current_database()"],
                          capture_output=True, text=True, check=True)
    return int(done.stdout.strip())


def sample_lock_waits(url, seconds, out):
    samples = max(1, int(seconds / 0.025))
    done = subprocess.run([PSQL, url.split("?")[0], "-qc", SAMPLER.replace("%d", str(samples), 1)],
                          capture_output=True, text=True)
    for line in done.stderr.splitlines():
        if "LOCKWAIT" in line:
            busy, waiting = line.split("LOCKWAIT")[1].split()
            out["busy"], out["waiting"] = int(busy), int(waiting)


def run_cell(servers, connections, projects, seconds, extra_pids=(), sample_url=None):
    """C connections split over the daemons (connection numbers run on across them)."""
    per = connections // len(servers)
    results = [None] * len(servers)
    pids = [s.proc.pid for s in servers] + list(extra_pids)
    before = {pid: cpu_seconds(pid) for pid in pids}
    waits = {}
    sampler = threading.Thread(target=sample_lock_waits, args=(sample_url, seconds - 1, waits)) if sample_url else None

    def one(index):
        results[index] = wrk(servers[index], "create.lua", per, seconds,
                             {"BENCH_TID_OFFSET": str(index * per), "BENCH_PROJECTS": str(projects),
                              "BENCH_PREFIX": f"d{index}{uuid.uuid4().hex[:6]}"})
    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(servers))]
    started = time.monotonic()
    for thread in threads + ([sampler] if sampler else []):
        thread.start()
    for thread in threads + ([sampler] if sampler else []):
        thread.join()
    elapsed = time.monotonic() - started
    ok = sum(r["requests"] - r["non2xx"] for r in results)
    return {"created": ok / seconds, "non2xx": sum(r["non2xx"] + r["socket_errors"] for r in results),
            "p50_ms": max(r["p50_us"] for r in results) / 1000,
            "cpu": {pid: (cpu_seconds(pid) - before[pid]) / elapsed for pid in pids},
            "lock_share": waits["waiting"] / waits["busy"] if waits.get("busy") else None}


def deployment(url, options):
    """The SQLite reference, then PostgreSQL with M daemons behind the proxy."""
    connections, projects, daemons = options.connections, options.projects, options.daemons
    rows = []
    authemu = options.authemu or AUTHEMU
    with tempfile.TemporaryDirectory() as work:
        sqlite = Server([authemu, "serve", "--port", "{port}", "--project", PROJECT, "--log-level", "error",
                         "--data", f"{work}/bench.sqlite"])
        rows.append(("SQLite, 1 daemon", run_cell([sqlite], connections, projects, options.seconds), sqlite, None))
        sqlite.stop()
    port = int(url.split("@")[1].split("/")[0].split(":")[1])
    proxy = DelayProxy(port, options.latency_ms) if options.latency_ms else None
    store_url = url.replace(f":{port}/", f":{proxy.port}/") if proxy else url
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    options.round_trip = (round_trip_ms(url), round_trip_ms(store_url))
    rolled_back = rollbacks(url)
    servers = []
    try:
        for _ in range(daemons):
            servers.append(Server([authemu, "serve", "--port", "{port}", "--project", PROJECT, "--log-level", "error",
                                   "--store", f"{store_url}&schema={schema}&pool={connections}{options.store_options}"]))
        cell = run_cell(servers, connections, projects, options.seconds, [proxy.proc.pid] if proxy else [], url)
        rows.append((f"PostgreSQL, {daemons} daemon{'s' * (daemons > 1)}", cell, servers, proxy))
    finally:
        for server in servers:
            server.stop()
        if proxy:
            proxy.stop()
    time.sleep(1)  # the servers' backends report their statistics as they exit
    cell["rollbacks"] = rollbacks(url) - rolled_back
    return rows


def print_deployment(rows, options):
    reference = rows[0][1]["created"]
    print(f"\nAccounts created through the admin API: {options.connections} connections, {options.projects} "
          f"project(s) (connection t writes to project t mod {options.projects}), {options.latency_ms} ms each "
          f"way to PostgreSQL (psql's SELECT 1: {options.round_trip[0]:.2f} ms direct, {options.round_trip[1]:.2f} ms "
          f"through the proxy), store URL options '{options.store_options}', wrk {options.seconds} s, only 2xx "
          f"counted\n")
    print("| set-up | created/s | × SQLite | p50 ms | non-2xx | lock waits / busy sessions | rolled back "
          "| CPU (cores) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, cell, servers, proxy in rows:
        servers = servers if isinstance(servers, list) else [servers]
        cpu = [f"daemon {cell['cpu'][s.proc.pid]:.2f}" for s in servers]
        if proxy:
            cpu.append(f"proxy {cell['cpu'][proxy.proc.pid]:.2f}")
        share = "" if cell["lock_share"] is None else f"{cell['lock_share']:.0%}"
        print(f"| {name} | {cell['created']:,.0f} | {cell['created'] / reference:.3f} | {cell['p50_ms']:.1f} "
              f"| {cell['non2xx']} | {share} | {cell.get('rollbacks', '')} | {', '.join(cpu)} |")
