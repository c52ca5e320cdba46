#!/usr/bin/env python3
"""User-space instructions per request, counted by valgrind's callgrind: a figure that does not
move with the machine's load (wall-clock figures on a shared 2-core machine move by 2x from run
to run). Compares authemu's hot requests with the bare Hummingbird baseline.

    bench/instructions [--requests 300]

Each server runs under callgrind; every flow is warmed up with 50 requests, counters are zeroed,
then --requests requests are sent one after another on one keep-alive connection and the total
is divided by their number. Binaries are copied without debug info first (valgrind cannot read
the Swift compiler's DWARF here)."""
import argparse
import glob
import http.client
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / ".build" / "release"


class Callgrind:
    """A server under callgrind, with a keep-alive client."""

    def __init__(self, binary, args, port, workdir, valgrind_args=()):
        self.out = os.path.join(workdir, f"callgrind.{port}")
        stripped = os.path.join(workdir, os.path.basename(binary))
        subprocess.run(["strip", "--strip-debug", "-o", stripped, binary], check=True)
        self.proc = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={self.out}", *valgrind_args, stripped, *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while True:
            try:
                self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                self.conn.request("GET", "/readyz")
                self.conn.getresponse().read()
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(f"{binary} did not start under valgrind")
                time.sleep(0.3)

    def post(self, path, body, form=False):
        return self.send("POST", path, body if form else json.dumps(body),
                         {"Content-Type": "application/x-www-form-urlencoded" if form else "application/json"})

    def get(self, path):
        return self.send("GET", path)

    def admin(self, method, path, body):
        return self.send(method, path, json.dumps(body),
                         {"Content-Type": "application/json", "Authorization": "Bearer owner"})

    def send(self, method, path, body=None, headers=None):
        self.conn.request(method, path, body, headers or {})
        response = self.conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{path}: {response.status} {data[:200]!r}")
        return json.loads(data)

    def _control(self, flag):
        subprocess.run(["callgrind_control", flag, str(self.proc.pid)], capture_output=True, check=True)

    def per_request(self, send, requests):
        for _ in range(50):
            send()
        self._control("-z")
        for path in glob.glob(self.out + "*"):
            os.remove(path)
        for _ in range(requests):
            send()
        self._control("-d")
        total = 0
        for path in glob.glob(self.out + "*"):
            with open(path) as dump:
                for line in dump:
                    if line.startswith(("summary:", "totals:")):
                        total += int(line.split()[1])
                        break
            os.remove(path)
        return total / requests

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def single_request_flows(server):
    """signUp, signIn, lookup and token refresh, as bench/lua sends them."""
    v1 = "/identitytoolkit.googleapis.com/v1/"
    user = server.post(v1 + "accounts:signUp?key=k",
                       {"email": "bench@bench.test", "password": "secret123", "returnSecureToken": True})
    counter = iter(range(10**9))
    return [
        ("signUp (email)", lambda: server.post(v1 + "accounts:signUp?key=k", {
            "email": f"u{next(counter)}@bench.test", "password": "secret123", "returnSecureToken": True})),
        ("signInWithPassword", lambda: server.post(v1 + "accounts:signInWithPassword?key=k", {
            "email": "bench@bench.test", "password": "secret123", "returnSecureToken": True})),
        ("accounts:lookup", lambda: server.post(v1 + "accounts:lookup?key=k", {"idToken": user["idToken"]})),
        ("token refresh", lambda: server.post(
            "/securetoken.googleapis.com/v1/token?key=k",
            "grant_type=refresh_token&refresh_token=" + urllib.parse.quote(user["refreshToken"]), form=True)),
    ]


def multi_step_flows(server):
    """The phone and MFA flows of bench/run, as one client makes them (see bench/lua)."""
    v1, v2 = "/identitytoolkit.googleapis.com/v1/", "/identitytoolkit.googleapis.com/v2/"
    outbox = "/emulator/v1/projects/demo-project/smsMessages?status=PENDING"
    accounts = v1 + "projects/demo-project/accounts"
    ready = []

    def setup():  # on the first multi-step flow: the single requests above run without MFA configured
        if ready:
            return
        ready.append(True)
        server.admin("POST", accounts, {"localId": "mfa1", "email": "mfa1@bench.test", "password": "secret123",
                                        "emailVerified": True, "mfaInfo": [{"phoneInfo": "+15559900001"}]})
        server.admin("POST", accounts, {"localId": "totp1", "email": "totp1@bench.test", "password": "secret123",
                                        "emailVerified": True, "mfaInfo": [{"mfaEnrollmentId": "t1", "totpInfo": {}}]})
        server.admin("PATCH", v2 + "projects/demo-project/config?updateMask=mfa,emulatorSettings", {
            "mfa": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                    "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]},
            "emulatorSettings": {"totpReplayProtection": False}})
    numbers = iter(range(10**6, 10**7))

    def phone():
        setup()
        number = f"+1555{next(numbers)}"
        session = server.post(v1 + "accounts:sendVerificationCode?key=k", {"phoneNumber": number})["sessionInfo"]
        code = server.get(outbox + "&phoneNumber=" + urllib.parse.quote(number))["smsMessages"][0]["code"]
        server.post(v1 + "accounts:signInWithPhoneNumber?key=k", {"sessionInfo": session, "code": code})

    def password(email):
        return server.post(v1 + "accounts:signInWithPassword?key=k", {"email": email, "password": "secret123"})

    def sms_mfa():
        setup()
        pending = password("mfa1@bench.test")
        start = server.post(v2 + "accounts/mfaSignIn:start?key=k", {
            "mfaPendingCredential": pending["mfaPendingCredential"],
            "mfaEnrollmentId": pending["mfaInfo"][0]["mfaEnrollmentId"]})
        code = server.get(outbox + "&purpose=MFA_SIGN_IN&phoneNumber=%2B15559900001")["smsMessages"][0]["code"]
        server.post(v2 + "accounts/mfaSignIn:finalize?key=k", {
            "mfaPendingCredential": pending["mfaPendingCredential"],
            "phoneVerificationInfo": {"sessionInfo": start["phoneResponseInfo"]["sessionInfo"], "code": code}})

    def totp_mfa():
        setup()
        pending = password("totp1@bench.test")
        code = server.get("/emulator/v1/projects/demo-project/totpCodes?localId=totp1")["code"]
        server.post(v2 + "accounts/mfaSignIn:finalize?key=k", {
            "mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": "t1",
            "totpVerificationInfo": {"verificationCode": code}})

    return [("phone sign-in (per request of 3)", phone, 3), ("TOTP MFA sign-in (per request of 3)", totp_mfa, 3),
            ("SMS MFA sign-in (per request of 4)", sms_mfa, 4)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--authemu", default=str(RELEASE / "authemu"), help="binary to measure (e.g. an older build)")
    options = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="authemu-instructions-")
    try:
        baseline = Callgrind(str(RELEASE / "authemu-bench-baseline"), ["9391"], 9391, workdir)
        base = baseline.per_request(
            lambda: baseline.post("/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                                  {"email": "a@b.c", "password": "secret123"}), options.requests)
        baseline.stop()

        server = Callgrind(options.authemu,
                           ["serve", "--port", "9392", "--data", os.path.join(workdir, "state.sqlite"),
                            "--log-level", "error"], 9392, workdir)
        flows = single_request_flows(server) + multi_step_flows(server)
        print(f"{'request':34} {'instructions':>12} {'vs baseline':>11}")
        print(f"{'baseline (fixed JSON)':34} {base / 1000:11.0f}k {1:11.2f}")
        for name, send, *steps in flows:
            # Multi-step flows: instructions per request (the flow's total over its requests).
            per_request = server.per_request(send, options.requests // (steps[0] if steps else 1))
            count = per_request / (steps[0] if steps else 1)
            print(f"{name:34} {count / 1000:11.0f}k {count / base:11.2f}", flush=True)
        server.stop()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
