"""Starts a real bookie process for the deploy tests (mem:// metadata)."""

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request


_TEMP_DIRS = []


def temp_dir(prefix):
    """A temporary directory removed when the test process exits."""
    d = tempfile.mkdtemp(prefix=prefix)
    _TEMP_DIRS.append(d)
    return d


@atexit.register
def _remove_temp_dirs():
    for d in _TEMP_DIRS:
        shutil.rmtree(d, ignore_errors=True)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean_env(extra=None):
    """The environment without BK_ variables (the bookie reads them)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("BK_") and k != "NOTIFY_SOCKET"}
    env.update(extra or {})
    return env


def http_get(port, path, timeout=2.0):
    """(status, body); status 0 when nothing answers."""
    try:
        with urllib.request.urlopen(
                f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except (urllib.error.URLError, ConnectionError, OSError):
        return 0, ""


class Bookie:
    def __init__(self, binary, extra_env=None, extra_flags=(),
                 metadata="mem://", directory=None):
        self.dir = directory or temp_dir("bk-deploy-")
        self.http_port = free_port()
        self.args = [
            binary,
            f"--metadataServiceUri={metadata}",
            "--bookieId=deploy-test-bookie",
            "--bookiePort=0",
            f"--httpServerPort={self.http_port}",
            "--listeningInterface=127.0.0.1",
            "--advertisedAddress=127.0.0.1",
            f"--journalDirectories={self.dir}/journal",
            f"--ledgerDirectories={self.dir}/ledgers",
            "--diskCheckInterval=100",
            "--logLevel=warn",
            *extra_flags,
        ]
        self.log = open(os.path.join(self.dir, f"bookie-{self.http_port}.log"),
                        "w+")
        self.proc = subprocess.Popen(self.args, env=clean_env(extra_env),
                                     stdout=self.log, stderr=subprocess.STDOUT)

    def get(self, path):
        return http_get(self.http_port, path)

    def wait_ready(self, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"bookie exited {self.proc.returncode}: "
                                   + self.output())
            if self.get("/ready")[0] == 200:
                return
            time.sleep(0.05)
        raise RuntimeError("bookie not ready in time: " + self.output())

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def stop(self, timeout=15):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


class ZooKeeper:
    """A throw-away ZooKeeper server (Debian's zookeeper package)."""

    def __init__(self):
        self.dir = temp_dir("bk-zk-")
        self.port = free_port()
        cfg = os.path.join(self.dir, "zoo.cfg")
        with open(cfg, "w") as f:
            f.write(f"dataDir={self.dir}/data\nclientPort={self.port}\n"
                    "clientPortAddress=127.0.0.1\ntickTime=500\n"
                    "admin.enableServer=false\n"
                    "4lw.commands.whitelist=srvr,ruok,mntr\n")
        self.log = open(os.path.join(self.dir, "zk.log"), "w")
        self.proc = subprocess.Popen(
            ["java", "-Xmx256m", "-cp",
             "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar",
             "org.apache.zookeeper.server.ZooKeeperServerMain", cfg],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port),
                                              timeout=1) as s:
                    s.sendall(b"srvr")
                    if b"Mode:" in s.recv(4096):
                        return
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("ZooKeeper did not start")

    def uri(self, root="/ledgers"):
        return f"zk://127.0.0.1:{self.port}{root}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
