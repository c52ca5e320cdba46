"""The code log's listings (issue 43): `GET …/verificationCodes` and `…/oobCodes` with 1,000 and
10,000 entries, read on one keep-alive connection; the daemon's CPU per read and per listed
entry. Repeated reads of an unchanged listing are answered from memory (CodeListingCache), so the
10,000-entry listings are also read right after each new code ("after a send": the read that
walks the rows), the sends' own CPU measured alone and taken off. Then the p99 of the
10,000-entry reads while wrk signs up at 4 connections. Only 200 answers are counted; the others
are reported."""
import http.client
import json
import statistics
import threading
import time

SEND_SMS = "/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key=k"
SEND_OOB = "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode?key=k"


class Connection:
    """One keep-alive connection; answers that are not 200 are counted, not returned."""

    def __init__(self, port):
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.non2xx = 0

    def send(self, method, path, body=None):
        self.http.request(method, path, json.dumps(body) if body is not None else None,
                          {"Content-Type": "application/json"})
        response = self.http.getresponse()
        data = response.read()
        if response.status != 200:
            self.non2xx += 1
            return None
        return data


def send_code(connection, listing, n):
    """One more entry of `listing`."""
    if listing == "verificationCodes":
        connection.send("POST", SEND_SMS, {"phoneNumber": f"+1555{n:07d}", "recaptchaToken": "bench"})
    else:
        connection.send("POST", SEND_OOB, {"requestType": "EMAIL_SIGNIN", "email": f"log{n}@bench.test",
                                           "continueUrl": "http://localhost/done", "canHandleCodeInApp": True})


def fill(connection, start, total):
    """Sends SMS codes and email-link codes until the log holds `total` of each."""
    for n in range(start, total):
        send_code(connection, "verificationCodes", n)
        send_code(connection, "oobCodes", n)


def read_after_send(connection, project, listing, reads, cpu_seconds, pid, start):
    """Wall times of reads each made right after a new code; the daemon's CPU per read, less that
    of as many sends measured alone just before."""
    path = f"/emulator/v1/projects/{project}/{listing}"
    before = cpu_seconds(pid)
    for n in range(start, start + reads):
        send_code(connection, listing, n)
    sends = cpu_seconds(pid) - before
    times, entries = [], 0
    before = cpu_seconds(pid)
    for n in range(start + reads, start + 2 * reads):
        send_code(connection, listing, n)
        started = time.perf_counter()
        body = connection.send("GET", path)
        if body is not None:
            times.append(time.perf_counter() - started)
            entries = len(json.loads(body)[listing])
    cpu = max(0.0, cpu_seconds(pid) - before - sends) / reads
    return {"entries": entries, "p50_ms": statistics.median(times) * 1000,
            "p99_ms": sorted(times)[max(0, int(len(times) * 0.99) - 1)] * 1000, "cpu_ms": cpu * 1000}


def read_listing(connection, project, listing, reads, cpu_seconds, pid):
    """Wall times of `reads` reads (only 200s), and the daemon's CPU per read."""
    path = f"/emulator/v1/projects/{project}/{listing}"
    connection.send("GET", path)  # warm
    times, entries = [], 0
    before = cpu_seconds(pid)
    for _ in range(reads):
        started = time.perf_counter()
        body = connection.send("GET", path)
        if body is not None:
            times.append(time.perf_counter() - started)
            entries = len(json.loads(body)[listing])
    cpu = (cpu_seconds(pid) - before) / reads
    return {"entries": entries, "p50_ms": statistics.median(times) * 1000,
            "p99_ms": sorted(times)[max(0, int(len(times) * 0.99) - 1)] * 1000, "cpu_ms": cpu * 1000}


def cells(server, project, cpu_seconds, under_load, reads=100):
    """`under_load(seconds)` runs the sign-up load while the 10,000-entry reads are timed."""
    connection = Connection(server.port)
    rows, filled = [], 0
    for total in (1000, 10000):
        fill(connection, filled, total)
        filled = total
        for listing in ("verificationCodes", "oobCodes"):
            rows.append((listing, "quiet", read_listing(connection, project, listing, reads, cpu_seconds,
                                                        server.proc.pid)))
    for listing in ("verificationCodes", "oobCodes"):
        rows.append((listing, "after a send", read_after_send(connection, project, listing, reads, cpu_seconds,
                                                              server.proc.pid, filled)))
    for listing in ("verificationCodes", "oobCodes"):
        load = threading.Thread(target=under_load, args=(6,))
        load.start()
        time.sleep(0.5)  # the load under way before the first read is timed
        rows.append((listing, "4-conn sign-ups", read_listing(connection, project, listing, reads, cpu_seconds,
                                                              server.proc.pid)))
        load.join()
    return rows, connection.non2xx


def print_cells(rows, non2xx):
    print("\ncode log listings (one keep-alive connection; CPU is the daemon's, user + system)")
    print(f"{'listing':18} {'entries':>8} {'while':>16} {'p50 ms':>7} {'p99 ms':>7} {'CPU ms/read':>11} "
          f"{'CPU us/entry':>12}")
    for listing, when, r in rows:
        cpu = (f"{r['cpu_ms']:>11.2f} {r['cpu_ms'] * 1000 / max(1, r['entries']):>12.2f}"
               if when != "4-conn sign-ups" else "")
        print(f"{listing:18} {r['entries']:>8} {when:>16} {r['p50_ms']:>7.2f} {r['p99_ms']:>7.2f} {cpu}")
    print(f"non-2xx answers while filling and reading: {non2xx}")
