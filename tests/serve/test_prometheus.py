"""A real Prometheus (Debian's ``prometheus``, set up by ``.ci/run``) scraping ``koma serve``'s ``/metrics`` on loopback
every second, with ``deploy/koma-alerts.yml`` loaded: a game played by a real OpenSSH client (in tmux) shows up in its
query API (``koma_games_started_total`` and friends), and every alerting rule loads and evaluates."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import urllib.parse
from pathlib import Path

import pytest
from admin_helpers import get, wait_until
from postgres_server import free_port
from serve_helpers import HAVE_ASYNCSSH, SSH, TMUX, Client, Server, play_a_move

PROMETHEUS = shutil.which("prometheus")
ALERTS = Path(__file__).resolve().parents[2] / "deploy" / "koma-alerts.yml"
pytestmark = [
    pytest.mark.skipif(not HAVE_ASYNCSSH, reason="asyncssh is not installed (pip install -e '.[ssh]')"),
    pytest.mark.skipif(SSH is None or TMUX is None, reason="needs ssh and tmux (CI installs openssh-client and tmux)"),
    pytest.mark.skipif(PROMETHEUS is None, reason="Prometheus is not installed (CI installs the Debian package prometheus)"),
]


class Prometheus:
    """Prometheus on 127.0.0.1 (a free port), scraping ``targets`` every second, with Koma's alerting rules."""

    def __init__(self, root: Path, targets: list[int]):
        self.port = free_port()
        config = root / "prometheus.yml"
        config.write_text(json.dumps({  # JSON is YAML
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s", "scrape_timeout": "1s"},
            "rule_files": [str(ALERTS)],
            "scrape_configs": [{"job_name": "koma", "static_configs": [{"targets": [f"127.0.0.1:{t}" for t in targets]}]}],
        }))
        self.log = root / "prometheus.log"
        self.handle = open(self.log, "w")  # noqa: SIM115 - Prometheus writes to it until stop()
        self.process = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={root / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{self.port}"], stdout=self.handle, stderr=subprocess.STDOUT)
        wait_until(lambda: get(self.port, "/-/ready", 2)[0] == 200 or self.process.poll() is not None, 60,
                   "Prometheus ready")
        assert self.process.poll() is None, self.log.read_text()[-2000:]

    def api(self, path: str, **query: str) -> dict:
        status, body = get(self.port, f"/api/v1/{path}?{urllib.parse.urlencode(query)}")
        assert status == 200, body
        return json.loads(body)["data"]

    def value(self, expression: str) -> float | None:
        """The instant value of ``expression`` summed over its series (None when it has none)."""
        result = self.api("query", query=expression)["result"]
        return sum(float(r["value"][1]) for r in result) if result else None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.handle.close()


def test_prometheus_scrapes_a_played_game_and_loads_the_alerts(tmp_path):
    server = Server(tmp_path / "data", "--open", "--admin-port", "0")
    prometheus = Prometheus(tmp_path, [server.admin_port])
    client = None
    try:
        assert wait_until(lambda: prometheus.value('up{job="koma"}') == 1, 60, "the replica scraped")
        assert prometheus.value("koma_ready") == 1
        client = Client(server, "ann", tmp_path)
        client.wait_for("8-puzzle")
        client.keys("1")
        play_a_move(client)
        assert wait_until(lambda: prometheus.value('koma_game_screens{screen="play"}') == 1, 60, "the play screen")
        client.keys("q")
        assert client.exit_status() == 0

        def seen(expression: str, at_least: float = 1) -> float:
            return wait_until(lambda: (v := prometheus.value(expression)) is not None and v >= at_least and v, 60,
                              expression)

        seen('koma_games_started_total{transport="ssh",how="warm"}')
        seen('koma_games_ended_total{transport="ssh",how="quit"}')
        seen('koma_home_seconds_count{transport="ssh"}')
        seen('koma_key_seconds_count{transport="ssh"}', 2)
        seen("koma_store_save_seconds_count", 2)
        seen("koma_warm_process_up")
        seen("process_resident_memory_bytes", 1e6)
        assert prometheus.value('koma_sessions{phase="playing"}') == 0
        home_p95 = prometheus.value('histogram_quantile(0.95, sum by (le) (koma_home_seconds_bucket))')
        assert home_p95 is not None and 0 < home_p95 <= 30

        def rules() -> list[dict]:
            return [r for group in prometheus.api("rules")["groups"] for r in group["rules"]]

        evaluated = wait_until(lambda: all(r.get("health") in ("ok", "err") for r in rules()) and rules(), 30,
                               "the rules evaluated")
        assert {r["name"] for r in evaluated} >= {"KomaReplicaNotReady", "KomaOutboxGrowing", "KomaRefusalsRising",
                                                  "KomaHomeSlow"}
        assert all(r["health"] == "ok" for r in evaluated), evaluated
        assert not any(a["labels"]["alertname"] == "KomaReplicaNotReady" for a in prometheus.api("alerts")["alerts"])
    finally:
        if client is not None:
            client.close()
        prometheus.stop()
        server.kill()
