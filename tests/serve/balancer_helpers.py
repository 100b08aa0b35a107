"""HAProxy for the tests: ``deploy/haproxy.cfg`` itself, with loopback addresses, in front of ``koma serve`` replicas."""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from postgres_server import free_port
from serve_helpers import SSH, Server

HAPROXY = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
DEPLOY_CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "haproxy.cfg"
# what only a system-wide HAProxy can do (a chroot, a user, syslog, the admin socket): left out here
SYSTEM_ONLY = re.compile(r"^\s*(chroot|user|group|daemon|stats socket|log /dev/log)\b")


def loopback_config(port: int, replicas: list[tuple[str, int]], web: tuple[int, list[tuple[str, int]]] | None = None) -> str:
    """``deploy/haproxy.cfg`` listening on 127.0.0.1:``port``, its server lines pointed at ``replicas``; its
    ``koma web`` sections (named ``*web*``) listen on ``web``'s port in front of its replicas, or are left out."""
    lines, servers, section = [], iter(replicas), ""
    web_servers = iter(web[1]) if web else iter(())
    for line in DEPLOY_CONFIG.read_text().splitlines():
        if SYSTEM_ONLY.match(line):
            continue
        started = re.match(r"^(global|defaults|frontend|backend|listen)\b\s*(\S*)", line)
        if started:
            section = started.group(2)
        is_web = "web" in section
        if is_web and web is None:
            continue
        if re.match(r"^\s*bind\s", line):
            line = f"    bind 127.0.0.1:{web[0] if is_web and web else port}"
        server = re.match(r"^(\s*server\s+\S+\s+)\S+(.*)$", line)
        if server:
            host, replica_port = next(web_servers if is_web else servers)
            line = f"{server.group(1)}{host}:{replica_port}{server.group(2)}"
        lines.append(line)
    assert next(servers, None) is None, "deploy/haproxy.cfg has fewer server lines than the test has replicas"
    return "\n".join(lines) + "\n"


class Balancer:
    """HAProxy on 127.0.0.1 (a free port) in front of ``replicas``, which share the host key ``host_key``."""

    def __init__(self, root: Path, replicas: list[Server], host_key: Path):
        self.port = free_port()
        self.known_hosts = root / "known_hosts"  # the shared key, as a player's ssh remembers it
        self.known_hosts.write_text(f"[127.0.0.1]:{self.port} {Path(str(host_key) + '.pub').read_text()}")
        self.config = root / "haproxy.cfg"
        self.config.write_text(loopback_config(self.port, [("127.0.0.1", r.port) for r in replicas]))
        self.log = root / "haproxy.log"
        self.handle = open(self.log, "w")  # noqa: SIM115 - HAProxy writes to it until stop()
        self.process = subprocess.Popen([HAPROXY, "-db", "-f", str(self.config)], stdout=self.handle, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=2).close()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"HAProxy did not start: {self.log.read_text()[-2000:]}") from None
                time.sleep(0.05)

    def ssh(self, user: str, *extra: str) -> list[str]:
        """OpenSSH to the balancer, checking the host key strictly: any replica presenting another key fails."""
        return [SSH, "-p", str(self.port), "-o", "StrictHostKeyChecking=yes", "-o", f"UserKnownHostsFile={self.known_hosts}",
                "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "-o", "ConnectTimeout=20", *extra, f"{user}@127.0.0.1"]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.handle.close()
