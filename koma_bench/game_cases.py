"""The game's and the servers' cases of ``koma bench``: ``koma bench serve``, ``serve-crowd``, ``web``, ``race``, ``cli``,
``keys``, ``open`` and the rest, in one literal table.

They run only when their group is named (each starts a private server; the crowds take minutes);
the scenarios themselves are in :mod:`koma_bench.serve.scenarios` (run by :mod:`koma_bench.serve.ssh` and
:mod:`koma_bench.serve.web`), imported only when a case runs, so that
listing the cases stays cheap for every ``koma`` command.
"""

from __future__ import annotations

import os
from typing import Any

from koma_bench.harness import AGAINST_VARIABLE, Case, beside_the_other


def scenario(name: str, *options: str):
    """The scenario on this checkout; with ``koma bench --against REV``, on REV's checkout too, right after."""

    def run() -> dict[str, Any]:
        from koma_bench.serve.ssh import run_scenario

        here = run_scenario(name, *options)
        against = os.environ.get(AGAINST_VARIABLE)
        if not against:
            return here
        return beside_the_other(here, lambda: run_scenario(name, *options, checkout=against))

    return run


def web_scenario(name: str, *options: str):
    def run() -> dict[str, Any]:
        from koma_bench.serve.web import run_web_scenario

        return run_web_scenario(name, *options)

    return run


def serve_case(name: str, group: str, scenario_name: str, *options: str, target: str = "", quick: bool = True) -> Case:
    run = web_scenario(scenario_name, *options) if group.startswith("web") else scenario(scenario_name, *options)
    return Case(name, group, run, target=target, quick=quick, runs=0, on_request=True)


def replicas_scenario(replicas: int):
    def run() -> dict[str, Any]:
        from koma_bench.race_links import URL_VARIABLE
        from koma_bench.serve.ssh import run_race_screens_on_replicas

        url = os.environ.get(URL_VARIABLE, "")
        if not url.startswith("postgresql"):
            return {"skipped": f"set {URL_VARIABLE} to a PostgreSQL database the replicas share"}
        return run_race_screens_on_replicas(url, replicas)

    return run


def race_scenario(rooms: int, racers: int, tps: float, padding: int, processes: int | None = None):
    def run() -> dict[str, Any]:
        from koma_bench.race_links import bench_race

        return bench_race(rooms, racers, tps, padding, processes)

    return run


def cli_processes() -> dict[str, Any]:
    from koma_bench.command_process import solve_processes

    return solve_processes(os.environ.get(AGAINST_VARIABLE) or None)


def keys_beside_the_floor() -> dict[str, Any]:
    from koma_bench.keys import keys_beside_the_floor

    return keys_beside_the_floor(os.environ.get(AGAINST_VARIABLE) or None)


def arrival_beside_the_floor() -> dict[str, Any]:
    from koma_bench.arrival import arrival_beside_the_floor

    return arrival_beside_the_floor(os.environ.get(AGAINST_VARIABLE) or None)


def open_beside_the_floor() -> dict[str, Any]:
    from koma_bench.open_screen import open_beside_the_floor

    return open_beside_the_floor(os.environ.get(AGAINST_VARIABLE) or None)


CROWD = ("--max-sessions", "250")
CASES: tuple[Case, ...] = (
    Case("koma solve 15 in a process of its own (tables built)", "cli", cli_processes, runs=0, on_request=True,
         target="<= 0.4 s"),
    Case("koma play 15 in a terminal: CPU per key, beside a bare Textual app's (the floor)", "keys", keys_beside_the_floor,
         runs=0, on_request=True, target="move <= 1/5 of the issue's baseline; the floor is what Textual alone costs"),
    Case("koma: opening the 15-puzzle from home, main thread CPU, beside a bare Textual screen of its shape (the floor)",
         "open", open_beside_the_floor, runs=0, on_request=True,
         target="open <= 1/2 of the issue's baseline; the floor is what Textual alone costs"),
    serve_case("koma serve: one game (warm pool)", "serve", "one game",
               target="home <= 0.1 s CPU, 15-puzzle <= 0.1 s, move <= 8 ms, idle <= 2 ms/s, <= 25 MiB PSS"),
    serve_case("koma serve --cold: one game", "serve", "one game", "--cold"),
    Case("koma serve: an arrival's CPU by phase, fork to home screen, beside a bare Textual app forked the same way "
         "(the floor)", "serve", arrival_beside_the_floor, runs=0, on_request=True,
         target="home <= 25 ms of CPU in the game; the floor is what Textual alone costs"),
    serve_case("koma serve: a speed solve at 15 keys a second", "serve", "speed game",
               target="key-to-screen p95 < 60 ms, every key drawn before the next"),
    serve_case("koma serve: a 10x10 speed solve at 15 keys a second", "serve", "speed game 10x10",
               target="key-to-screen p95 < 60 ms, every key drawn before the next"),
    serve_case("koma serve: a race against 7 opponents typing 10 tiles a second", "serve", "race game",
               target="own key-to-screen p95 within 1.2x of a solo speed solve's in the same run"),
    serve_case("koma serve: 8 racers' screens, 10 tiles a second each", "serve", "race screens",
               target="opponents' moves on each screen p95 <= 150 ms, reveals within 50 ms of each other"),
    Case("koma serve x2 on PostgreSQL: 8 racers' screens, 10 tiles a second each", "serve-replicas",
         replicas_scenario(2), runs=0, on_request=True, quick=True,
         target="opponents' moves on each screen p95 <= 300 ms, reveals within 50 ms of each other"),
    # the same game with the admin listener on: the games write their metrics too; compare with the first case
    serve_case("koma serve --admin-port 0: one game (metrics on)", "serve", "one game", "--admin-port", "0",
               target="within noise of the first case"),
    serve_case("koma serve: 20 players at once", "serve-crowd", "at once", *CROWD),
    serve_case("koma serve: 40 players arriving 2/s, 20 moves 0.3 s apart", "serve-crowd", "arrivals", *CROWD,
               target="all 40 served, home p95 <= 0.8 s, key-to-screen p95 <= 80 ms"),
    serve_case("koma serve: 150 players arriving 10/s, 20 moves 0.3 s apart", "serve-crowd", "arrivals 150", *CROWD,
               target="all 150 served with the default admission, home p95 <= 1.0 s, key-to-screen p95 <= 150 ms"),
    # every racer a real SSH player (the shape from $KOMA_BENCH_RACE_CROWD, ROOMSxRACERS@TPS, default 25x4@3)
    serve_case("koma serve: 25 rooms of 4 racers (100 SSH players) typing 3 tiles a second", "serve-race-crowd",
               "race crowd", *CROWD, target="every race completes, every racer's screen and the store agree"),
    serve_case("koma serve: 200 idle players and a newcomer", "serve-crowd", "idle crowd", *CROWD,
               target="newcomer home <= 1 s", quick=False),
    serve_case("koma web: one game (warm pool)", "web", "one game",
               target="home <= 0.1 s CPU, move <= 8 ms, idle <= 2 ms/s, the server's own CPU <= 1 ms per key"),
    serve_case("koma web: a phone's taps and keys in Speed (48x42, the page at 390x844)", "web", "phone game",
               target="tap-to-screen p95 within 1.2x of key-to-screen in the same run (a swipe sends a key's bytes)"),
    serve_case("koma web: 40 browsers arriving 2/s, 20 moves 0.3 s apart", "web-crowd", "arrivals", *CROWD,
               target="all 40 served, home p95 <= 0.8 s, key-to-screen p95 <= 80 ms"),
    serve_case("koma serve --cold: 20 players at once", "serve-crowd-cold", "at once", "--cold", *CROWD),
    serve_case("koma serve --cold: 40 players arriving 2/s, 20 moves 0.3 s apart", "serve-crowd-cold", "arrivals",
               "--cold", *CROWD),
    serve_case("koma serve --cold: 200 idle players and a newcomer", "serve-crowd-cold", "idle crowd", "--cold", *CROWD,
               quick=False),
    Case("races: 8 racers on one SQLite store, 10 tiles/s each", "race", race_scenario(1, 8, 10.0, 90), runs=0,
         on_request=True, target="opponent move p95 <= 150 ms, reveal spread <= 50 ms, results identical"),
    # the links of 100 players' games, 10 to a process (the games themselves are koma bench serve-crowd's)
    Case("races: 25 rooms of 4 racers, 3 tiles/s each", "race-crowd", race_scenario(25, 4, 3.0, 25, processes=10), runs=0,
         on_request=True, target="every race completes, results identical"),
)
