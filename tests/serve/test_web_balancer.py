"""``deploy/haproxy.cfg``'s HTTP frontend in front of two ``koma web`` replicas that share a cookie key.

A browser loads the page through HAProxy, plays, reloads (its socket goes, a new one comes) and lands on the same
replica and the same game (sticky by HAProxy's cookie); the replica names the browser's address from
X-Forwarded-For (``--trust-proxy``), and a client's forged X-Forwarded-For is not believed.
"""

from __future__ import annotations

import re
import subprocess
import time

import pytest

pytest.importorskip("aiohttp")
pytest.importorskip("asyncssh")

from balancer_helpers import HAPROXY, loopback_config
from postgres_server import free_port
from web_helpers import Browser, WebServer

pytestmark = pytest.mark.skipif(not HAPROXY, reason="haproxy is not installed (.ci/run installs it)")


async def test_through_haproxy_a_reload_finds_the_same_replica_and_game(tmp_path):
    key = tmp_path / "cookie_key"
    replicas = [WebServer(tmp_path / f"data-{n}", "--open", "--cookie-key", str(key), "--trust-proxy", "127.0.0.1/32",
                          "--rate-limit", "0", log_name=f"web-{n}.log") for n in "ab"]
    port = free_port()
    config = tmp_path / "haproxy.cfg"
    closed = [("127.0.0.1", free_port()), ("127.0.0.1", free_port())]  # the SSH replicas: none in this test
    config.write_text(loopback_config(free_port(), closed, (port, [("127.0.0.1", r.port) for r in replicas])))
    log = open(tmp_path / "haproxy.log", "w")  # noqa: SIM115
    haproxy = subprocess.Popen([HAPROXY, "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT)
    browser = Browser(replicas[0], url=f"http://127.0.0.1:{port}/")
    try:
        deadline = time.monotonic() + 60
        while True:  # HAProxy is up and has checked a replica healthy
            try:
                page = await browser.load()
                if page.status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, (tmp_path / "haproxy.log").read_text()
        player = browser.player
        await browser.connect(**{"X-Forwarded-For": "198.51.100.7"})  # forged: HAProxy replaces it
        await browser.wait_for("8-puzzle")
        landed = [r for r in replicas if f"player {player}: game started" in r.text()]
        assert len(landed) == 1
        replica = landed[0]
        assert re.search(rf"127\.0\.0\.1:0 player {player}: game started", replica.text()), replica.text()
        await browser.key("1")
        await browser.wait_for(r"Moves 0\b")
        await browser.move()
        for _ in range(3):  # reloads: each lands on the same replica, in the same game
            await browser.drop()
            await browser.load()
            await browser.connect()
            await browser.wait_for(r"Moves 1\b")
        assert replica.text().count(f"player {player}: back to its game") == 3
        assert all(f"player {player}" not in r.text() for r in replicas if r is not replica)
        await browser.key("q")
        assert await browser.closed() == 1000
    finally:
        await browser.close()
        haproxy.terminate()
        haproxy.wait(10)
        log.close()
        for replica in replicas:
            assert replica.stop() == 0
