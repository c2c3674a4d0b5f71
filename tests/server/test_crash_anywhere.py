"""Crash anywhere: whole matches against real ``gammon serve`` processes, killed
with SIGKILL at many moments — at commit boundaries (the repository's fault-injection hook
``GAMMON_CRASH_AFTER_COMMIT`` kills the process right after its Nth commit that changed a
match, including the commits of start-up recovery) and at random moments (idle, or with an
action in flight) — on SQLite (one process) and on PostgreSQL + Redis (two processes
sharing the matches; a kill takes one of them down, or both).

After every kill the dead processes are restarted and the test checks, against what the
players' clients saw acknowledged:

* no acknowledged action is lost (the server's events begin with every acknowledged one);
* the state is identical (when nothing but clock pauses was stored after the last
  acknowledged action, the game is exactly the one last acknowledged);
* when the whole service was down, the running clock was credited for the downtime (the
  seconds it lost beyond the time the server was really up are measured);
* every match is played to its end (and its dice verify).

The figures (kills tried / survived / actions lost / seconds of clock lost, per store) are
printed, and written as JSON to ``$GAMMON_CRASH_REPORT`` when set. The default run is a few
kills per store; ``GAMMON_CRASH_KILLS=N`` (or ``scripts/crash_anywhere.py``) runs more, and
``GAMMON_CRASH_SEED`` picks the seed.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import random
import signal
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from gammon.server.accounts import COOKIE
from gammon.server.db import CRASH_AFTER_COMMIT
from tests.processes import ServerProcess
from tests.server.helpers import Player, random_play

KILLS = int(os.environ.get("GAMMON_CRASH_KILLS", "3"))
SECONDS = float(os.environ.get("GAMMON_CRASH_SECONDS", "0"))  # > 0: stop killing after this
SEED = int(os.environ.get("GAMMON_CRASH_SEED", "1"))
TRACE = bool(os.environ.get("GAMMON_CRASH_TRACE"))  # a line per kill, to diagnose a failure
DOWN = (Exception,)  # what a client sees of a killed server: closed sockets, HTTP errors


@dataclass
class Figures:
    store: str
    kills_tried: int = 0
    kills_survived: int = 0
    at_commit: int = 0  # kills made by the fault-injection hook (incl. during start-up)
    actions_acknowledged: int = 0
    actions_lost: int = 0
    states_differing: int = 0
    outages: int = 0  # kills that took the whole service down: the clock must be credited
    clock_checked: int = 0  # outages with a clock running and nothing stored unacknowledged
    clock_lost_seconds: float = 0.0  # summed over the checked outages
    clock_lost_max: float = 0.0
    matches_finished: int = 0
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (f"crash-anywhere {self.store}: kills tried {self.kills_tried}, survived "
                f"{self.kills_survived} ({self.at_commit} at a commit), actions lost "
                f"{self.actions_lost} of {self.actions_acknowledged} acknowledged, states "
                f"differing {self.states_differing}, clock lost {self.clock_lost_seconds:.2f} s "
                f"over {self.clock_checked} checked outages (max {self.clock_lost_max:.2f} s), "
                f"matches finished {self.matches_finished}")


class Crashed(Exception):
    """A server the client talks to died."""


class Cluster:
    """The ``gammon serve`` processes of one store, each started with a random crash
    point (or none: then the test kills it)."""

    def __init__(self, env: dict[str, str], count: int, rng: random.Random,
                 figures: Figures, kills: int) -> None:
        self.servers = [ServerProcess(dict(env)) for _ in range(count)]
        self.rng = rng
        self.figures = figures
        self.kills = kills  # no crash points once this many kills were tried
        self.deadline = time.monotonic() + SECONDS if SECONDS > 0 else float("inf")
        self.up_at: dict[int, float] = {}  # when each process last came up (healthy)

    def killing(self) -> bool:
        """Whether more kills are due (the kill count, or the time budget, not reached)."""
        return self.figures.kills_tried < self.kills and time.monotonic() < self.deadline

    def start(self, server: ServerProcess) -> None:
        """Start with a random crash point; a death in start-up (recovery commits) counts
        as one more kill, survived if what follows checks out."""
        for attempt in range(3):
            if attempt < 2 and self.killing() and self.rng.random() < 0.6:
                server.env[CRASH_AFTER_COMMIT] = str(self.rng.randint(1, 5))
            else:
                server.env.pop(CRASH_AFTER_COMMIT, None)
            try:
                server.start(timeout=120)  # a loaded machine starts slowly
                self.up_at[id(server)] = time.time()
                return
            except RuntimeError:
                killed = server.process is not None and server.process.returncode == \
                    -signal.SIGKILL
                server.kill()
                if not killed:
                    raise
                self.figures.kills_tried += 1
                self.figures.kills_survived += 1  # unless the checks that follow fail
                self.figures.at_commit += 1
                trace("a process died at a crash point in its start-up")
        raise AssertionError("unreachable")

    def dead(self) -> list[ServerProcess]:
        return [s for s in self.servers
                if s.process is None or s.process.poll() is not None]

    def restart_dead(self) -> float:
        """Restart every dead process (at once: a start-up takes seconds); when the first
        of them was up again (the service is up from then on: the clock runs again)."""
        dead = self.dead()
        for server in dead:
            server.kill()  # reap
        with concurrent.futures.ThreadPoolExecutor(len(dead) or 1) as pool:
            for started in [pool.submit(self.start, server) for server in dead]:
                started.result()
        return min((self.up_at[id(server)] for server in dead), default=time.time())

    def stop(self) -> None:
        for server in self.servers:
            server.stop()


class Seat:
    """One player: a guest session and a socket to one server process."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        with httpx.Client(base_url=server.url, timeout=60) as client:
            client.get("/api/me").raise_for_status()
            self.cookie = client.cookies[COOKIE]
        self.sockets = contextlib.ExitStack()
        self.player: Player | None = None

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.server.url, timeout=60,
                            cookies={COOKIE: self.cookie})

    def connect(self) -> ClientConnection:
        return connect(self.server.ws_url, open_timeout=20, max_size=2**22,
                       additional_headers={"Cookie": f"{COOKIE}={self.cookie}"})

    def open(self, match_id: str) -> Player:
        ws = self.sockets.enter_context(self.connect())
        self.player = Player.over_websockets(ws, self.server.url)
        self.player.subscribe(match_id)
        return self.player

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.sockets.close()
        self.player = None


@dataclass
class Acknowledged:
    """What the clients saw acknowledged of one match."""

    events: list[dict[str, Any]] = field(default_factory=list)
    versions: list[int] = field(default_factory=list)  # the version after each action
    game: dict[str, Any] | None = None
    clock: dict[str, Any] | None = None
    clock_seen: float = 0.0  # when that clock reading arrived
    viewer: int = 0  # the seat that saw ``game`` (the player moving alone gets legal, reach)

    def take(self, message: dict[str, Any], viewer: int = 0) -> None:
        for event in message.get("events", []):
            if event["v"] == len(self.events) + 1:
                self.events.append(event)
        if message["v"] == len(self.events):  # the latest state seen
            self.game, self.clock = message["game"], message["clock"]
            self.clock_seen, self.viewer = time.time(), viewer


def compare(seen: Acknowledged, events: list[dict[str, Any]]) -> tuple[int, int]:
    """How many events the server's log and the acknowledged ones agree on from the start,
    and how many acknowledged actions that leaves out (their version beyond the
    agreement: not stored, or stored otherwise)."""
    common = 0
    for mine, theirs in zip(seen.events, events, strict=False):
        if mine != theirs:
            break
        common += 1
    return common, sum(1 for v in seen.versions if v > common)


def choose(game: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A legal action for whoever must act: doubles, takes and drops, resignations and
    their answers, rolls and random plays (games end often, so game boundaries — where a
    game's end and the next opening meet — are crossed many times)."""
    phase = game["phase"]
    if phase == "before_roll":
        if game["can_double"] and rng.random() < 0.15:
            return {"type": "double"}
        if game["resign_floor"] == 0 and rng.random() < 0.05:
            return {"type": "resign", "level": 1}
        return {"type": "roll"}
    if phase == "moving":
        if game["resign_floor"] == 0 and rng.random() < 0.04:
            return {"type": "resign", "level": 1}
        return {"type": "play", "play": random_play(game, rng)}
    if phase == "cube_offered":
        return {"type": "take" if rng.random() < 0.6 else "drop"}
    if phase == "resign_offered":
        return {"type": "accept_resign" if rng.random() < 0.8 else "reject_resign"}
    raise AssertionError(f"no action in phase {phase}")


def on_turn(game: dict[str, Any]) -> int:
    seat = int(game["turn"])
    return 1 - seat if game["phase"] in ("cube_offered", "resign_offered") else seat


class Run:
    """Matches played on one store while its servers are killed ``kills`` times."""

    def __init__(self, store: str, env: dict[str, str], processes: int, kills: int,
                 seed: int) -> None:
        self.rng = random.Random(seed)
        self.figures = Figures(store)
        self.cluster = Cluster(env, processes, self.rng, self.figures, kills)
        self.kills = kills
        self.pending_kill: str | None = None

    # -- the whole run ------------------------------------------------------------------

    def run(self) -> Figures:
        try:
            for server in self.cluster.servers:
                self.cluster.start(server)
            while self.cluster.killing():
                self.play_match()
        finally:
            self.cluster.stop()
        return self.figures

    def play_match(self) -> None:
        servers = self.cluster.servers
        seats = [Seat(servers[0]), Seat(servers[-1])]
        match_id = self.create(seats)
        seen = Acknowledged()
        while True:
            try:
                finished = self.play_round(seats, match_id, seen)
            except Crashed:
                finished = False
                self.recover(seats, match_id, seen)
            finally:
                for seat in seats:
                    seat.close()
            if finished:
                break
        self.figures.matches_finished += 1
        with seats[0].http() as client:
            record = client.get(f"/api/games/{match_id}/fairness").json()
        if record["problems"]:
            self.figures.problems.append(f"{match_id}: dice do not verify: "
                                         f"{record['problems']}")

    def create(self, seats: list[Seat]) -> str:
        """Create and join a match; a kill at either commit is survived by asking again
        (a creation not acknowledged leaves at most an open match behind)."""
        while True:
            try:
                with seats[0].http() as client:
                    created = client.post("/api/games", json={
                        "kind": "match", "length": 3, "clock": "italian"})
                created.raise_for_status()
                match_id = str(created.json()["id"])
                break
            except DOWN as error:
                self.crashed_outside_play(error)
        while True:
            try:
                with seats[1].http() as client:
                    joined = client.post(f"/api/games/{match_id}/join")
                if joined.status_code == 200:
                    return match_id
                refusal = joined.json()
                refusal = refusal.get("detail", refusal)
                assert refusal["code"] == "not_open", joined.text  # stored before the kill
                return match_id
            except DOWN as error:
                self.crashed_outside_play(error)

    def crashed_outside_play(self, error: Exception) -> None:
        trace(f"a request failed: {error!r}")
        self.figures.kills_tried += 1
        self.figures.at_commit += 1
        deadline = time.monotonic() + 5
        while not self.cluster.dead():
            if time.monotonic() > deadline:
                raise AssertionError(f"a request failed with every server up: {error!r}")
            time.sleep(0.05)
        self.cluster.restart_dead()
        self.figures.kills_survived += 1

    # -- one server lifetime ------------------------------------------------------------

    def play_round(self, seats: list[Seat], match_id: str, seen: Acknowledged) -> bool:
        """Play until the match ends (True) or a server dies (:class:`Crashed`); the test
        itself kills at a random moment when no crash point is set."""
        try:
            players = [seat.open(match_id) for seat in seats]
        except DOWN as error:
            raise Crashed from error
        if any(p.v != len(seen.events) for p in players):  # a restart added clock pauses
            self.verify(seats, match_id, seen, outage=False, killed_at=None, ready=None)
        hooked = any(CRASH_AFTER_COMMIT in s.env for s in self.cluster.servers)
        kill_after = None if hooked and self.rng.random() < 0.8 else self.rng.randint(0, 6)
        done = 0
        while True:
            game = players[0].game
            assert game is not None
            if game["phase"] == "match_over":
                return True
            if game["phase"] in ("opening", "game_over"):  # the server's roll is on its way
                try:  # (a stranded match: none comes, and the test fails)
                    seen.take(players[0].wait(lambda m: m.get("type") == "update"))
                except (ConnectionClosed, TimeoutError, OSError) as error:
                    raise Crashed from error
                continue
            if kill_after is not None and done >= kill_after and self.cluster.killing():
                self.kill(players, seats, match_id, game, seen)  # raises Crashed
            actor = players[on_turn(game)]
            message = {**choose(game, self.rng), "match": match_id}
            try:
                reply = self.answer(actor, on_turn(game), message, seen)
                if reply["type"] == "error":
                    raise AssertionError(f"refused: {message} -> {reply}")
                seen.versions.append(actor.v)
                self.figures.actions_acknowledged += 1
                for other in players:
                    if other is not actor:
                        other.sync(actor.v)
            except (ConnectionClosed, TimeoutError, OSError) as error:
                raise Crashed from error
            done += 1

    @staticmethod
    def answer(actor: Player, seat: int, message: dict[str, Any],
               seen: Acknowledged) -> dict[str, Any]:
        """Send an action; its answer: the error, or the update with its events. Updates
        of clock pauses alone (a restarted process's downtime credit, forwarded from the
        bus) may come first: they are taken as seen, not as the answer."""
        actor.send(message)
        while True:
            reply = actor.wait(lambda m: m.get("type") in ("update", "error"))
            if reply["type"] == "error":
                return reply
            seen.take(reply, seat)
            if any(event["type"] != "clock_paused" for event in reply["events"]):
                return reply

    def kill(self, players: list[Player], seats: list[Seat], match_id: str,
             game: dict[str, Any], seen: Acknowledged) -> None:
        """SIGKILL by the test: idle, or with an action just sent (in flight)."""
        servers = self.cluster.servers
        victims = servers if len(servers) == 1 or self.rng.random() < 0.5 else \
            [self.rng.choice(servers)]
        if self.rng.random() < 0.5:
            actor = players[on_turn(game)]
            with contextlib.suppress(Exception):
                actor.send({**choose(game, self.rng), "match": match_id})
            time.sleep(self.rng.random() * 0.05)
        for server in victims:
            if server.process is not None:
                server.process.send_signal(signal.SIGKILL)
        for server in victims:  # all gone before the recovery looks (else it counts one
            if server.process is not None:  # as an outage of the other and a second kill)
                server.process.wait()
        trace(f"test kills {[servers.index(s) for s in victims]} at v{players[0].v} "
              f"{game['phase']}")
        self.pending_kill = "test"
        raise Crashed

    def recover(self, seats: list[Seat], match_id: str, seen: Acknowledged) -> None:
        """After a death: restart the dead, check what the clients saw acknowledged."""
        killed_at = time.time()
        by_hook = self.pending_kill is None
        self.pending_kill = None
        for seat in seats:
            seat.close()
        deadline = time.monotonic() + 10
        while not self.cluster.dead():
            if time.monotonic() > deadline:
                raise AssertionError("a socket failed with every server up")
            time.sleep(0.05)
        for server in self.cluster.dead():
            if server.process is not None:
                server.process.wait()
        outage = len(self.cluster.dead()) == len(self.cluster.servers)
        dead = [self.cluster.servers.index(s) for s in self.cluster.dead()]
        trace(f"recover {match_id}: dead {dead} by hook {by_hook}, acknowledged "
              f"v{len(seen.events)} {seen.versions}")
        self.figures.kills_tried += 1
        self.figures.at_commit += by_hook
        self.figures.outages += outage
        ready = self.cluster.restart_dead()
        if self.verify(seats, match_id, seen, outage=outage, killed_at=killed_at, ready=ready):
            self.figures.kills_survived += 1
        trace(self.figures.line())

    # -- the checks -----------------------------------------------------------------------

    def verify(self, seats: list[Seat], match_id: str, seen: Acknowledged, *, outage: bool,
               killed_at: float | None, ready: float | None) -> bool:
        """Compare the restarted server's log and state with what was acknowledged; then
        take the server's log as seen (actions stored but never acknowledged included).
        ``ready``: when the service was up again after an outage."""
        while True:
            try:
                with seats[seen.viewer].connect() as ws:
                    full = Player.over_websockets(ws, "verify").subscribe(match_id, since=0)
                    arrived = time.time()
                break
            except DOWN as error:  # a crash point met meanwhile (a recovery's commit): one
                self.crashed_outside_play(error)  # more kill, and its restart
                outage = False  # the clock check measured the outage before this one
        assert full["type"] == "update", full
        events = full["events"]
        common, lost = compare(seen, events)
        ok = True
        if lost:
            ok = False
            self.figures.actions_lost += lost
            self.figures.problems.append(f"{match_id}: {lost} acknowledged actions lost "
                                         f"(server log {len(events)}, agreed {common})")
            print(f"\n{match_id}: the logs part at event {common + 1}; acknowledged "
                  f"versions {seen.versions}\n  seen:   "
                  f"{json.dumps(seen.events[common:common + 8])}\n  server: "
                  f"{json.dumps(events[common:common + 8])}", file=sys.__stderr__, flush=True)
        later = events[len(seen.events):]
        unacknowledged = any(e["type"] != "clock_paused" for e in later)
        if not unacknowledged and seen.game is not None and full["game"] != seen.game:
            ok = False
            self.figures.states_differing += 1
            self.figures.problems.append(f"{match_id}: state after restart differs")
            keys = sorted(k for k in {*full["game"], *seen.game}
                          if full["game"].get(k) != seen.game.get(k))
            print(f"\n{match_id}: the state differs in {keys}\n  seen:   "
                  f"{json.dumps({k: seen.game.get(k) for k in keys})}\n  server: "
                  f"{json.dumps({k: full['game'].get(k) for k in keys})}",
                  file=sys.__stderr__, flush=True)
        if outage and killed_at is not None and ready is not None and not unacknowledged:
            self.check_clock(seen, full["clock"], killed_at, ready, arrived)
        seen.events = list(events)
        seen.versions = []
        seen.game, seen.clock, seen.clock_seen = full["game"], full["clock"], arrived
        return ok

    def check_clock(self, seen: Acknowledged, after: dict[str, Any] | None, killed_at: float,
                    ready: float, arrived: float) -> None:
        """The running player's time: what was left at the kill (the last acknowledged
        reading less the time since) against what is left now, less the time the service
        has been up again (since the first restarted process came up: with two, the
        other may take long to start, or die at a crash point in its recovery, while the
        first serves the match and the clock rightly runs)."""
        before = seen.clock
        if before is None or after is None or before["running"] is None \
                or after["running"] != before["running"]:
            return
        side = before["running"]

        def left(reading: dict[str, Any]) -> float:
            return float(reading["sides"][side]["action_left"]
                         + reading["sides"][side]["bank_left"])

        at_kill = left(before) - (killed_at - seen.clock_seen)
        lost = max(0.0, at_kill - left(after) - (arrived - ready))
        self.figures.clock_checked += 1
        self.figures.clock_lost_seconds += lost
        self.figures.clock_lost_max = max(self.figures.clock_lost_max, lost)


def trace(line: str) -> None:
    if TRACE:  # past pytest's capture (the test holds capsys)
        print(f"{time.strftime('%H:%M:%S')} {line}", file=sys.__stderr__, flush=True)


def report(figures: Figures) -> None:
    print(figures.line())
    path = os.environ.get("GAMMON_CRASH_REPORT")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({**asdict(figures), "seed": SEED}) + "\n")


@pytest.mark.slow
def test_killed_anywhere_no_acknowledged_action_is_lost(
        store: str, database_url: str, redis_url: str, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """SIGKILL at commit boundaries and random moments of whole matches; every
    kill survived, nothing acknowledged lost, identical state, clocks credited, every
    match finished."""
    env = {"GAMMON_DATABASE_URL": database_url, "GAMMON_REDIS_URL": redis_url,
           "GAMMON_RATE_LIMITS": "false", "GAMMON_HEARTBEAT_INTERVAL": "0.25",
           "GAMMON_SECRET_KEY": "crash-test-key",
           "GAMMON_ANALYSIS_ON_FINISH": "false"}  # (an engine child process per match end)
    processes = 1 if store == "sqlite" else 2
    run = Run(store, env, processes, KILLS, SEED + (store == "postgresql"))
    try:
        run.run()
    finally:
        with capsys.disabled():
            report(run.figures)
    figures = run.figures
    assert figures.problems == []
    assert figures.kills_tried >= (KILLS if SECONDS <= 0 else 1)
    assert figures.kills_survived == figures.kills_tried
    assert figures.actions_lost == 0 and figures.states_differing == 0
    assert figures.matches_finished >= 1
    # the running clock is credited for the downtime: a little is lost to the end of a
    # (slow, loaded) start-up, never the outage itself (the moments between the last
    # heartbeat, every 0.25 s, and the kill are given back)
    # (3-5 s lost per outage of ~13 s before the credit ran to each match's resumption)
    assert figures.clock_lost_max < 3.0, figures.line()


def _update(first: int, *types: str) -> dict[str, Any]:
    events = [{"type": kind, "v": first + i} for i, kind in enumerate(types)]
    return {"type": "update", "v": first + len(types) - 1, "events": events,
            "game": {"v": first + len(types) - 1}, "clock": None}


def test_the_check_finds_an_acknowledged_action_the_log_lacks() -> None:
    """The check can fail: an action acknowledged at version 5 and missing from (or
    different in) the restarted server's log is lost; unacknowledged extras are not."""
    seen = Acknowledged()
    seen.take(_update(1, "game_started", "opening_rolled", "checker_moved"))
    seen.versions.append(3)
    seen.take(_update(4, "dice_rolled", "checker_moved"))
    seen.versions.append(5)
    assert compare(seen, seen.events) == (5, 0)
    assert compare(seen, [*seen.events, {"type": "clock_paused", "v": 6}]) == (5, 0)
    assert compare(seen, seen.events[:3]) == (3, 1)  # the last action was not stored
    other = [dict(e) for e in seen.events]
    other[0]["crawford"] = True
    assert compare(seen, other) == (0, 2)  # a log that differs from the first event


def test_an_action_is_answered_by_its_update_not_a_forwarded_clock_pause() -> None:
    """On two processes a restarted one's downtime credit reaches the other's sockets at
    any moment: an update of clock pauses alone before the action's own is taken as seen,
    and the answer is the update after it (before, the pause was taken as the answer,
    the answer's events were never taken, and the next check counted them lost)."""
    seen = Acknowledged()
    seen.take(_update(1, "game_started", "opening_rolled"))
    queue = [_update(3, "clock_paused"), _update(4, "checker_moved", "turn_ended")]
    sent: list[str] = []
    actor = Player(sent.append, lambda: json.dumps(queue.pop(0)))
    answer = Run.answer(actor, 0, {"type": "play", "match": "m"}, seen)
    assert answer["v"] == 5 and actor.v == 5 and len(sent) == 1
    assert [e["type"] for e in seen.events][2:] == ["clock_paused", "checker_moved",
                                                     "turn_ended"]
    assert seen.game == {"v": 5}
