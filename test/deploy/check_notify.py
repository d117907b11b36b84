#!/usr/bin/env python3
"""The bookie speaks systemd's notify protocol as bookie.service expects.

Runs the real bookie with NOTIFY_SOCKET pointing at a datagram socket this
test listens on, and checks:
  - READY=1 arrives, and when it does /ready answers 200 (journal replayed,
    registered), with a STATUS= line naming the HTTP port;
  - no READY=1 while /ready still answered 503 or nothing;
  - after SIGTERM, STOPPING=1 arrives and the process exits 0.
usage: check_notify.py BOOKIE_BINARY
"""

import os
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bookie_proc import Bookie, temp_dir  # noqa: E402


def main():
    binary = sys.argv[1]
    sockdir = temp_dir("bk-notify-")
    path = os.path.join(sockdir, "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.05)

    b = Bookie(binary, extra_env={"NOTIFY_SOCKET": path})
    messages = []
    ready_seen_before = False  # /ready 200 observed before READY=1
    try:
        deadline = time.time() + 20
        ready_msg = None
        while time.time() < deadline and ready_msg is None:
            if b.proc.poll() is not None:
                raise SystemExit(f"FAIL: bookie exited {b.proc.returncode}\n"
                                 + b.output())
            try:
                msg = sock.recv(4096).decode()
            except socket.timeout:
                if b.get("/ready")[0] == 200:
                    ready_seen_before = True
                continue
            messages.append(msg)
            if "READY=1" in msg.split("\n"):
                ready_msg = msg
        if ready_msg is None:
            raise SystemExit("FAIL: no READY=1 within 20 s; got %r\n%s"
                             % (messages, b.output()))
        code, body = b.get("/ready")
        if code != 200:
            raise SystemExit(f"FAIL: READY=1 sent while /ready is {code}: "
                             f"{body!r}")
        if f"HTTP on {b.http_port}" not in ready_msg:
            raise SystemExit(f"FAIL: READY's STATUS lacks the HTTP port: "
                             f"{ready_msg!r}")
        print(f"READY=1 received; /ready {code} {body.strip()!r}; "
              f"/ready was 200 before READY arrived: {ready_seen_before}")

        # Nothing may say STOPPING before we ask for it.
        if any("STOPPING=1" in m for m in messages):
            raise SystemExit(f"FAIL: STOPPING=1 before SIGTERM: {messages!r}")
        b.proc.send_signal(signal.SIGTERM)
        stopping = None
        deadline = time.time() + 15
        while time.time() < deadline and stopping is None:
            try:
                msg = sock.recv(4096).decode()
            except socket.timeout:
                continue
            messages.append(msg)
            if "STOPPING=1" in msg.split("\n"):
                stopping = msg
        if stopping is None:
            raise SystemExit("FAIL: no STOPPING=1 within 15 s of SIGTERM; "
                             f"got {messages!r}\n{b.output()}")
        rc = b.proc.wait(20)
        if rc != 0:
            raise SystemExit(f"FAIL: exit code {rc} after SIGTERM\n"
                             + b.output())
        print(f"STOPPING=1 received ({stopping.strip()!r}); exit code 0")
        print("notify: 1 passed, 0 failed")
    finally:
        b.stop()
        sock.close()


if __name__ == "__main__":
    main()
