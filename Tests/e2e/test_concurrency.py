"""64 connections of mixed flows (issue 8 §4): no errors but expected 4xx, every SMS code sent is
in the outbox exactly once, bounded RSS. AUTHEMU_SOAK_SECONDS sets the duration (CI: 5 s)."""
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import requests

from conftest import PROJECT, Api, Daemon

SECONDS = float(os.environ.get("AUTHEMU_SOAK_SECONDS", "5"))
CONNECTIONS = 64


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return int([line for line in status if line.startswith("VmRSS:")][0].split()[1])


def worker(base, number, deadline, report):
    session = requests.Session()
    rng = random.Random(number)
    key = {"key": "k"}
    v1 = f"{base}/identitytoolkit.googleapis.com/v1"
    email = f"c{number}@example.com"
    created = session.post(f"{v1}/accounts:signUp", params=key, json={"email": email, "password": "secret123"})
    report["statuses"].append(created.status_code)
    id_token = created.json().get("idToken")
    # Wrong passwords go to an account of their own, which they lock (TOO_MANY_ATTEMPTS_TRY_LATER,
    # also a 400) while the worker's own account keeps signing in.
    guessed = f"g{number}@example.com"
    report["statuses"].append(session.post(f"{v1}/accounts:signUp", params=key,
                                           json={"email": guessed, "password": "secret123"}).status_code)
    index = 0
    while time.monotonic() < deadline:
        index += 1
        flow = rng.choice(["signin", "lookup", "phone", "signup", "wrong"])
        if flow == "signin":
            response = session.post(f"{v1}/accounts:signInWithPassword", params=key,
                                    json={"email": email, "password": "secret123"})
        elif flow == "lookup":
            response = session.post(f"{v1}/accounts:lookup", params=key, json={"idToken": id_token})
        elif flow == "signup":
            response = session.post(f"{v1}/accounts:signUp", params=key,
                                    json={"email": f"c{number}-{index}@example.com", "password": "secret123"})
        elif flow == "wrong":
            response = session.post(f"{v1}/accounts:signInWithPassword", params=key,
                                    json={"email": guessed, "password": "wrong-password"})
            report["expected4xx"] += response.status_code == 400
            report["wrong"].append(response.json()["error"]["message"].split(" : ")[0])
        else:
            phone = f"+1555{number:03d}{index % 10000:04d}"
            sent = session.post(f"{v1}/accounts:sendVerificationCode", params=key, json={"phoneNumber": phone})
            report["statuses"].append(sent.status_code)
            session_info = sent.json()["sessionInfo"]
            report["sessions"].append(session_info)
            message = session.get(f"{base}/emulator/v1/projects/{PROJECT}/smsMessages",
                                  params={"phoneNumber": phone, "status": "PENDING"}).json()["smsMessages"][-1]
            response = session.post(f"{v1}/accounts:signInWithPhoneNumber", params=key,
                                    json={"sessionInfo": session_info, "code": message["code"]})
        report["statuses"].append(response.status_code)


def test_mixed_flows_on_64_connections(tmp_path):
    daemon = Daemon(tmp_path, ephemeral=False).start()
    try:
        idle = rss_kib(daemon.proc.pid)
        report = {"statuses": [], "sessions": [], "expected4xx": 0, "wrong": []}
        deadline = time.monotonic() + SECONDS
        with ThreadPoolExecutor(max_workers=CONNECTIONS) as pool:
            for future in [pool.submit(worker, daemon.base, n, deadline, report) for n in range(CONNECTIONS)]:
                future.result()
        peak = rss_kib(daemon.proc.pid)
        outbox = requests.get(f"{daemon.base}/emulator/v1/projects/{PROJECT}/smsMessages").json()["smsMessages"]
        sessions = [m["sessionInfo"] for m in outbox]
        unexpected = [s for s in report["statuses"] if s != 200]
        print(f"\n{len(report['statuses'])} requests in {SECONDS:.0f} s on {CONNECTIONS} connections, "
              f"{len(unexpected) - report['expected4xx']} unexpected errors, {len(report['sessions'])} SMS sent, "
              f"{len(sessions)} in the outbox, RSS {idle} KiB idle -> {peak} KiB")
        assert len(unexpected) == report["expected4xx"]
        assert set(report["wrong"]) <= {"INVALID_PASSWORD", "TOO_MANY_ATTEMPTS_TRY_LATER"}
        assert sorted(sessions) == sorted(report["sessions"])
        assert len(set(sessions)) == len(sessions)
        assert peak < 256 * 1024
    finally:
        daemon.stop()
